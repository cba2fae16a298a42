/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Glue between hcbs_test.h and kselftest_harness.h for the HCBS suites:
 * include it after the harness.  Every fixture holds a struct hcbs_env;
 * HCBS_ENV_SETUP() skips on a kernel without HCBS, HCBS_ENV_TEARDOWN()
 * undoes everything and fails the test if reserved bandwidth leaked.
 */
#ifndef HCBS_KSFT_H
#define HCBS_KSFT_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hcbs_test.h"

/* The measured load runs on CPU 1, the test's control thread on CPU 0. */
#define HCBS_CTL_CPU	0
#define HCBS_LOAD_CPU	1

/* Priorities: root hogs above group tasks, to show groups do not care. */
#define HCBS_PRIO_ROOT_HOG	90
#define HCBS_PRIO_GROUP		10

#define HCBS_ENV_SETUP(env, suite) do {					\
	const char *__reason = "";					\
	bool __skip;							\
	int __err = hcbs_env_setup(env, suite, 2, HCBS_CTL_CPU,		\
				   &__skip, &__reason);			\
	if (__err && __skip)						\
		SKIP(return, "%s", __reason);				\
	ASSERT_EQ(0, __err) TH_LOG("%s: %s", __reason, strerror(-__err)); \
} while (0)

#define HCBS_ENV_TEARDOWN(env) do {					\
	long long __b0 = 0, __b1 = 0;					\
	bool __ready = (env)->ready;					\
	int __cpu;							\
	hcbs_env_teardown(env);						\
	if (__ready) {							\
		__cpu = hcbs_env_bw_leak(env, 3000, &__b0, &__b1);	\
		/* A failed ASSERT leaves the harness's trigger set. */	\
		_metadata->trigger = 0;					\
		EXPECT_EQ(-1, __cpu) TH_LOG("reserved bandwidth leaked on CPU %d: " \
			"dl_bw->total_bw %lld at setup, %lld after teardown", \
			__cpu, __b0, __b1);				\
	}								\
} while (0)

/* A group @name under the test's top group, with cpu.rt.max = @q/@p µs. */
static inline void hcbs_group(struct __test_metadata *_metadata,
			      struct hcbs_env *env, const char *name,
			      long long q_us, long long p_us, char *out,
			      size_t len)
{
	int err = hcbs_env_group(env, name, out, len);

	ASSERT_EQ(0, err) TH_LOG("create %s: %s", name, strerror(-err));
	if (q_us == 0 && p_us == 0)
		return;
	err = hcbs_set_rt_max(out, q_us, p_us);
	ASSERT_EQ(0, err) TH_LOG("%s: cpu.rt.max = %lld %lld: %s", name,
				 q_us, p_us, strerror(-err));
}

/* A hog as @spec says, in the test's environment; fails the test if not. */
static inline struct hcbs_hog *hcbs_spec_hog(struct __test_metadata *_metadata,
					     struct hcbs_env *env,
					     const struct hcbs_hog_spec *spec)
{
	const char *step = "";
	struct hcbs_hog *h;
	int err;

	h = hcbs_env_hog(env, spec, &err, &step);
	ASSERT_NE(NULL, h) TH_LOG("hog in %s on CPU %d (policy %d prio %d): %s: %s",
				  spec->cgroup ? spec->cgroup : "(root)", spec->cpu,
				  spec->policy, spec->prio, step, strerror(-err));
	return h;
}

static inline struct hcbs_hog *hcbs_hog(struct __test_metadata *_metadata,
					struct hcbs_env *env, const char *cg,
					int cpu, int policy, int prio)
{
	struct hcbs_hog_spec spec = {
		.cgroup = cg, .cpu = cpu, .policy = policy, .prio = prio,
	};

	return hcbs_spec_hog(_metadata, env, &spec);
}

/*
 * Enable the cpuset controller beside cpu from the root down to the test's
 * top group.  The suites' config has CONFIG_CPUSETS, so a kernel without
 * the controller fails the test.  *@root_enabled says that we wrote
 * +cpuset at the root; hcbs_cpuset_restore() takes it back.
 */
static inline void hcbs_cpuset_enable(struct __test_metadata *_metadata,
				      struct hcbs_env *env, bool *root_enabled)
{
	const char *root = hcbs_cg_root();
	int err;

	ASSERT_TRUE(hcbs_cg_has_word(root, "cgroup.controllers", "cpuset"))
		TH_LOG("no cpuset controller on cgroup v2 (CONFIG_CPUSETS)");
	if (!hcbs_cg_has_word(root, "cgroup.subtree_control", "cpuset")) {
		err = hcbs_cg_write(root, "cgroup.subtree_control", "+cpuset");
		ASSERT_EQ(0, err) TH_LOG("+cpuset at the root: %s", strerror(-err));
		*root_enabled = true;
	}
	err = hcbs_cg_write(env->top, "cgroup.subtree_control", "+cpuset");
	ASSERT_EQ(0, err) TH_LOG("+cpuset in %s: %s", env->top, strerror(-err));
}

static inline void hcbs_cpuset_restore(bool root_enabled)
{
	if (root_enabled)
		hcbs_cg_write(hcbs_cg_root(), "cgroup.subtree_control", "-cpuset");
}

/*
 * The share tolerance on a KASAN kernel ($HCBS_KASAN, set by
 * scripts/guest/soak): every memory access is checked, the kernel runs
 * several times slower, its timers fire late, and the deadline class
 * forgives a server a lag that large (replenish_dl_entity(): "DL replenish
 * lagged too much"), so a group can get more than Q/P.
 */
#define HCBS_KASAN_SHARE_TOL 0.05

/* Print "# WHAT: share S (expected E)" and check it within @tol. */
static inline void hcbs_check_share(struct __test_metadata *_metadata,
				    const char *what, double share,
				    double expected, double tol)
{
	if (getenv("HCBS_KASAN") && tol < HCBS_KASAN_SHARE_TOL) {
		hcbs_note("%s: KASAN kernel: tolerance %.4f widened to %.4f (late timers)",
			  what, tol, HCBS_KASAN_SHARE_TOL);
		tol = HCBS_KASAN_SHARE_TOL;
	}
	hcbs_note("%s: share %.4f (expected %.4f +- %.4f)", what, share,
		  expected, tol);
	EXPECT_TRUE(hcbs_values_close(share, expected, tol))
		TH_LOG("%s: measured %.4f of a CPU, expected %.4f +- %.4f",
		       what, share, expected, tol);
}

/*
 * main(): on a kernel without HCBS the whole program is one TAP skip and
 * exits 4 (the harness alone would exit 0 with every test skipped).
 */
#define HCBS_TEST_MAIN							\
int main(int argc, char **argv)						\
{									\
	const char *reason = "";					\
	int i;								\
									\
	for (i = 1; i < argc; i++)					\
		if (!strcmp(argv[i], "-l") || !strcmp(argv[i], "-h"))	\
			return test_harness_run(argc, argv);		\
	if (!hcbs_force() && hcbs_probe_kernel(&reason) == 0) {	\
		ksft_print_header();					\
		ksft_exit_skip("%s\n", reason);				\
	}								\
	return test_harness_run(argc, argv);				\
}

#endif /* HCBS_KSFT_H */
