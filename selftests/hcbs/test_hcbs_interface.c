// SPDX-License-Identifier: GPL-2.0
/*
 * HCBS cgroup v2 interface: cpu.rt.max in every form, the legacy
 * cpu.rt_runtime_us / cpu.rt_period_us view of the same state,
 * cpu.rt.stat, every error (a failed write must change nothing),
 * admission along the hierarchy and against the global RT limit, groups
 * that forbid RT tasks, exact bandwidth accounting after churn, 128
 * reserved groups at once, concurrent writers of the same groups, and
 * the server tracepoints.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "hcbs_ksft.h"

#define PATHLEN 512

static const char *errname(int err)
{
	const char *n = err ? strerrorname_np(err < 0 ? -err : err) : NULL;

	return err ? (n ? n : "unknown errno") : "accepted";
}

static void expect_file(struct __test_metadata *_metadata, const char *cg,
			const char *file, const char *want)
{
	char buf[256];
	int err;

	err = hcbs_cg_read(cg, file, buf, sizeof(buf));
	ASSERT_EQ(0, err) TH_LOG("read %s/%s: %s", cg, file, strerror(-err));
	EXPECT_STREQ(want, buf) TH_LOG("%s reads '%s', expected '%s'", file, buf, want);
}

/* All three views of the group's RT bandwidth. */
static void expect_state(struct __test_metadata *_metadata, const char *cg,
			 const char *max, const char *runtime, const char *period)
{
	expect_file(_metadata, cg, "cpu.rt.max", max);
	expect_file(_metadata, cg, "cpu.rt_runtime_us", runtime);
	expect_file(_metadata, cg, "cpu.rt_period_us", period);
}

static void expect_write_ok(struct __test_metadata *_metadata, const char *cg,
			    const char *file, const char *val)
{
	int err = hcbs_cg_write(cg, file, "%s", val);

	EXPECT_EQ(0, err) TH_LOG("write '%s' to %s: %s", val, file, errname(err));
}

/*
 * Writing @val to @file must fail with @want (an errno), and leave
 * cpu.rt.max as it was.
 */
static void expect_write_fails(struct __test_metadata *_metadata,
			       const char *cg, const char *file,
			       const char *val, int want)
{
	char before[128], after[128];
	int err;

	ASSERT_EQ(0, hcbs_cg_read(cg, "cpu.rt.max", before, sizeof(before)));
	err = hcbs_cg_write(cg, file, "%s", val);
	hcbs_note("write '%s' to %s: %s (expected %s)", val, file,
		  errname(err), errname(want));
	EXPECT_EQ(-want, err) TH_LOG("write '%s' to %s: %s, expected %s",
				     val, file, errname(err), errname(want));
	ASSERT_EQ(0, hcbs_cg_read(cg, "cpu.rt.max", after, sizeof(after)));
	EXPECT_STREQ(before, after) TH_LOG("failed write '%s' to %s changed cpu.rt.max",
					   val, file);
}

FIXTURE(iface) {
	struct hcbs_env env;
};

FIXTURE_SETUP(iface)
{
	HCBS_ENV_SETUP(&self->env, "iface");
}

FIXTURE_TEARDOWN_PARENT(iface)
{
	HCBS_ENV_TEARDOWN(&self->env);
}

/* A new group has no reservation of its own and zeroed statistics. */
TEST_F(iface, defaults)
{
	static const char *const keys[] = {
		"usage_usec", "nr_periods", "nr_throttled", "throttled_usec",
		"nr_lagged", "lagged_usec",
	};
	char g[PATHLEN];
	long long v;
	unsigned int i;
	int err;

	hcbs_group(_metadata, &self->env, "g", 0, 0, g, sizeof(g));
	expect_state(_metadata, g, "max 100000", "-1", "100000");
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		err = hcbs_cg_read_key(g, "cpu.rt.stat", keys[i], &v);
		EXPECT_EQ(0, err) TH_LOG("cpu.rt.stat has no '%s': %s", keys[i],
					 strerror(-err));
		if (!err)
			EXPECT_EQ(0, v) TH_LOG("new group: %s %lld", keys[i], v);
	}
	err = hcbs_cg_write(g, "cpu.rt.stat", "0");
	hcbs_note("write to cpu.rt.stat: %s", errname(err));
	EXPECT_NE(0, err) TH_LOG("cpu.rt.stat must be read-only");
}

/* Every accepted form of cpu.rt.max and of the legacy pair. */
TEST_F(iface, write_forms)
{
	char g[PATHLEN];

	hcbs_group(_metadata, &self->env, "g", 0, 0, g, sizeof(g));

	expect_write_ok(_metadata, g, "cpu.rt.max", "30000 100000");
	expect_state(_metadata, g, "30000 100000", "30000", "100000");
	/* "RUNTIME" alone keeps the period. */
	expect_write_ok(_metadata, g, "cpu.rt.max", "20000");
	expect_state(_metadata, g, "20000 100000", "20000", "100000");
	expect_write_ok(_metadata, g, "cpu.rt.max", "max");
	expect_state(_metadata, g, "max 100000", "-1", "100000");
	expect_write_ok(_metadata, g, "cpu.rt.max", "max 50000");
	expect_state(_metadata, g, "max 50000", "-1", "50000");
	/* What echo(1) writes: a trailing newline. */
	expect_write_ok(_metadata, g, "cpu.rt.max", "10000 50000\n");
	expect_state(_metadata, g, "10000 50000", "10000", "50000");
	expect_write_ok(_metadata, g, "cpu.rt.max", "max");
	expect_state(_metadata, g, "max 50000", "-1", "50000");
	expect_write_ok(_metadata, g, "cpu.rt.max", "25000");
	expect_state(_metadata, g, "25000 50000", "25000", "50000");
	/* Period limits are inclusive: [100 us, ~4 s]. */
	expect_write_ok(_metadata, g, "cpu.rt.max", "max 100");
	expect_state(_metadata, g, "max 100", "-1", "100");
	expect_write_ok(_metadata, g, "cpu.rt.max", "max 4000000");
	expect_state(_metadata, g, "max 4000000", "-1", "4000000");
	expect_write_ok(_metadata, g, "cpu.rt.max", "0 100000");
	expect_state(_metadata, g, "0 100000", "0", "100000");

	/* The upstream RFC / Docker form: period keeps runtime and back. */
	expect_write_ok(_metadata, g, "cpu.rt.max", "25000 50000");
	expect_write_ok(_metadata, g, "cpu.rt_period_us", "200000");
	expect_state(_metadata, g, "25000 200000", "25000", "200000");
	expect_write_ok(_metadata, g, "cpu.rt_runtime_us", "40000");
	expect_state(_metadata, g, "40000 200000", "40000", "200000");
	expect_write_ok(_metadata, g, "cpu.rt_runtime_us", "-1");
	expect_state(_metadata, g, "max 200000", "-1", "200000");
	expect_write_ok(_metadata, g, "cpu.rt_runtime_us", "0");
	expect_state(_metadata, g, "0 200000", "0", "200000");
	expect_write_ok(_metadata, g, "cpu.rt_period_us", "100000\n");
	expect_write_ok(_metadata, g, "cpu.rt_runtime_us", "10000\n");
	expect_state(_metadata, g, "10000 100000", "10000", "100000");
	expect_write_ok(_metadata, g, "cpu.rt.max", "max 100000");
	expect_state(_metadata, g, "max 100000", "-1", "100000");
}

/* Malformed input and out-of-range values: EINVAL, nothing changes. */
TEST_F(iface, write_errors)
{
	static const char *const rt_max_einval[] = {
		/* (an empty write(2) never reaches the file's handler) */
		"\n", "abc", "max abc", "abc 100000", "30000 abc",
		"-1 100000", "30000 -100000", "1.5 100000", "max -1",
		/* runtime > period */
		"200000 100000", "100001",
		/* period outside [100 us, 2^22 us] */
		"max 99", "50 99", "max 0", "0 0", "max 5000000", "1000 5000000",
	};
	/* Legacy: any negative runtime means "max", as in stock kernels. */
	static const char *const runtime_einval[] = {
		"abc", "1.5", "200000",
	};
	static const char *const period_einval[] = {
		"abc", "-1", "0", "99", "5000000", "20000",
	};
	char g[PATHLEN];
	unsigned int i;

	hcbs_group(_metadata, &self->env, "g", 30000, 100000, g, sizeof(g));
	for (i = 0; i < sizeof(rt_max_einval) / sizeof(rt_max_einval[0]); i++)
		expect_write_fails(_metadata, g, "cpu.rt.max", rt_max_einval[i], EINVAL);
	/* runtime 30000: "200000" is above the period, "20000" a period below it. */
	for (i = 0; i < sizeof(runtime_einval) / sizeof(runtime_einval[0]); i++)
		expect_write_fails(_metadata, g, "cpu.rt_runtime_us", runtime_einval[i], EINVAL);
	for (i = 0; i < sizeof(period_einval) / sizeof(period_einval[0]); i++)
		expect_write_fails(_metadata, g, "cpu.rt_period_us", period_einval[i], EINVAL);
	expect_state(_metadata, g, "30000 100000", "30000", "100000");
}

/*
 * Children's reservations must fit in their parent's; a "max" parent
 * hands the check up to its nearest reserved ancestor (here the root).
 */
TEST_F(iface, hierarchy_sums)
{
	char p[PATHLEN], c1[PATHLEN], c2[PATHLEN], gc[PATHLEN];
	int err;

	hcbs_group(_metadata, &self->env, "p", 50000, 100000, p, sizeof(p));
	ASSERT_EQ(0, hcbs_cg_write(p, "cgroup.subtree_control", "+cpu"));
	ASSERT_EQ(0, hcbs_cg_path(c1, sizeof(c1), p, "c1"));
	ASSERT_EQ(0, hcbs_cg_path(c2, sizeof(c2), p, "c2"));
	ASSERT_EQ(0, hcbs_cg_create(c1));
	ASSERT_EQ(0, hcbs_cg_create(c2));

	expect_write_ok(_metadata, c1, "cpu.rt.max", "30000 100000");
	/* 0.3 + 0.3 > 0.5 */
	expect_write_fails(_metadata, c2, "cpu.rt.max", "30000 100000", EBUSY);
	expect_write_fails(_metadata, c2, "cpu.rt_runtime_us", "30000", EBUSY);
	expect_state(_metadata, c2, "max 100000", "-1", "100000");
	/* 0.3 + 0.2 == 0.5 fits, in another period too */
	expect_write_ok(_metadata, c2, "cpu.rt.max", "10000 50000");
	expect_state(_metadata, c2, "10000 50000", "10000", "50000");
	expect_write_fails(_metadata, c1, "cpu.rt.max", "31000 100000", EBUSY);
	expect_write_fails(_metadata, c2, "cpu.rt_period_us", "40000", EBUSY);
	/* The parent cannot shrink below its children, whatever the form. */
	expect_write_fails(_metadata, p, "cpu.rt.max", "40000 100000", EBUSY);
	expect_write_fails(_metadata, p, "cpu.rt.max", "40000", EBUSY);
	expect_write_fails(_metadata, p, "cpu.rt_runtime_us", "40000", EBUSY);
	expect_write_fails(_metadata, p, "cpu.rt_period_us", "120000", EBUSY);
	expect_write_fails(_metadata, p, "cpu.rt.max", "0 100000", EBUSY);
	/* Same bandwidth, other period: fine. */
	expect_write_ok(_metadata, p, "cpu.rt.max", "100000 200000");
	expect_state(_metadata, p, "100000 200000", "100000", "200000");

	/* A grandchild is bounded by its own parent, not the grandparent. */
	ASSERT_EQ(0, hcbs_cg_write(c1, "cgroup.subtree_control", "+cpu"));
	ASSERT_EQ(0, hcbs_cg_path(gc, sizeof(gc), c1, "gc"));
	ASSERT_EQ(0, hcbs_cg_create(gc));
	expect_write_fails(_metadata, gc, "cpu.rt.max", "40000 100000", EBUSY);
	expect_write_ok(_metadata, gc, "cpu.rt.max", "30000 100000");
	expect_write_fails(_metadata, c1, "cpu.rt.max", "20000 100000", EBUSY);

	/*
	 * A "max" parent has no budget of its own: its reserved children are
	 * then checked against the next reserved ancestor, the root.
	 */
	err = hcbs_cg_write(p, "cpu.rt.max", "max");
	hcbs_note("parent with 0.5 reserved below it set to max: %s", errname(err));
	EXPECT_EQ(0, err);
	expect_write_ok(_metadata, c1, "cpu.rt.max", "60000 100000");
	expect_write_fails(_metadata, p, "cpu.rt.max", "50000 100000", EBUSY);
	expect_write_ok(_metadata, p, "cpu.rt.max", "85000 100000");
	expect_state(_metadata, p, "85000 100000", "85000", "100000");
}

/*
 * Top-level groups share the global limit with the fair servers and
 * SCHED_DEADLINE tasks on every CPU.
 */
TEST_F(iface, toplevel_sum)
{
	char a[PATHLEN], b[PATHLEN], buf[64];
	double free_bw = hcbs_env_free_bw(&self->env);
	long long qa, qb, lo, hi, mid;

	if (free_bw < 0) {
		free_bw = hcbs_rt_global_bw() - hcbs_fair_server_bw(0);
		hcbs_note("no debugfs total_bw: assuming free bandwidth %.4f", free_bw);
	}
	hcbs_note("free per-CPU bandwidth for groups: %.4f (global limit %.4f, fair server %.4f)",
		  free_bw, hcbs_rt_global_bw(), hcbs_fair_server_bw(0));
	ASSERT_GT(free_bw, 0.2);

	/* The largest reservation one group gets, to 0.001, is what is free. */
	hcbs_group(_metadata, &self->env, "a", 0, 0, a, sizeof(a));
	for (lo = 0, hi = 100000; hi - lo > 100; ) {
		mid = (lo + hi) / 2;
		if (hcbs_set_rt_max(a, mid, 100000))
			hi = mid;
		else
			lo = mid;
	}
	hcbs_note("largest top-level reservation admitted: %.4f (expected %.4f)",
		  lo / 100000.0, free_bw);
	EXPECT_TRUE(hcbs_values_close(lo / 100000.0, free_bw, 0.002))
		TH_LOG("admission limit %.4f, expected global limit - fair servers - deadline tasks = %.4f",
		       lo / 100000.0, free_bw);

	qa = (long long)(free_bw * 0.6 * 100000);
	qb = (long long)(free_bw * 100000) - qa;
	expect_write_ok(_metadata, a, "cpu.rt.max", "max");
	snprintf(buf, sizeof(buf), "%lld 100000", qa);
	expect_write_ok(_metadata, a, "cpu.rt.max", buf);
	hcbs_group(_metadata, &self->env, "b", 0, 0, b, sizeof(b));
	snprintf(buf, sizeof(buf), "%lld 100000", qb + 2000);
	expect_write_fails(_metadata, b, "cpu.rt.max", buf, EBUSY);
	snprintf(buf, sizeof(buf), "%lld 100000", qb - 2000);
	expect_write_ok(_metadata, b, "cpu.rt.max", buf);
	snprintf(buf, sizeof(buf), "%lld 100000", qa + 4000);
	expect_write_fails(_metadata, a, "cpu.rt.max", buf, EBUSY);
	/* Freed bandwidth is available again at once. */
	expect_write_ok(_metadata, b, "cpu.rt.max", "max");
	expect_write_ok(_metadata, a, "cpu.rt.max", buf);
}

/* The global RT limit cannot go below what groups have reserved. */
TEST_F(iface, global_limit)
{
	static const char *rt_runtime = "/proc/sys/kernel/sched_rt_runtime_us";
	long long v, bw0[HCBS_MAX_CPUS], bw1[HCBS_MAX_CPUS];
	char g[PATHLEN];
	int err, n, cpu;

	hcbs_group(_metadata, &self->env, "g", 50000, 100000, g, sizeof(g));
	ASSERT_EQ(0, hcbs_read_long(rt_runtime, &v));
	hcbs_note("sched_rt_runtime_us %lld", v);

	err = hcbs_write_str(rt_runtime, "450000");
	hcbs_note("sched_rt_runtime_us 450000 with 0.5 + fair servers reserved: %s",
		  errname(err));
	EXPECT_EQ(-EBUSY, err);
	ASSERT_EQ(0, hcbs_read_long(rt_runtime, &v));
	EXPECT_EQ(self->env.rt_runtime0, v);

	n = hcbs_dl_total_bw(bw0, HCBS_MAX_CPUS);
	err = hcbs_write_str(rt_runtime, "700000");
	EXPECT_EQ(0, err) TH_LOG("sched_rt_runtime_us 700000: %s", errname(err));
	/*
	 * Changing the limit rebuilds the root domains' accounting: nothing
	 * reserved may get lost (stock 6.12 drops the fair servers there).
	 */
	ASSERT_EQ(n, hcbs_dl_total_bw(bw1, HCBS_MAX_CPUS));
	for (cpu = 0; cpu < n; cpu++) {
		hcbs_note("CPU %d: dl_bw->total_bw %lld before the sched_rt_runtime_us write, %lld after",
			  cpu, bw0[cpu], bw1[cpu]);
		EXPECT_EQ(bw0[cpu], bw1[cpu]);
	}
	expect_write_fails(_metadata, g, "cpu.rt.max", "80000 100000", EBUSY);
	expect_write_ok(_metadata, g, "cpu.rt.max", "60000 100000");
	/* teardown restores sched_rt_runtime_us */
}

/* "0 PERIOD" forbids RT tasks; a group holding RT tasks keeps its runtime. */
TEST_F(iface, zero_runtime)
{
	char z[PATHLEN], g[PATHLEN], buf[256];
	struct hcbs_hog *h;
	int err;

	hcbs_group(_metadata, &self->env, "zero", 0, 100000, z, sizeof(z));
	expect_state(_metadata, z, "0 100000", "0", "100000");

	/* A SCHED_OTHER task may live there, but not turn RT. */
	h = hcbs_hog(_metadata, &self->env, z, HCBS_LOAD_CPU, SCHED_OTHER, 0);
	err = hcbs_set_policy(h->pid, SCHED_FIFO, HCBS_PRIO_GROUP);
	hcbs_note("sched_setscheduler(FIFO) in a 0-runtime group: %s", errname(err));
	EXPECT_EQ(-EPERM, err);
	EXPECT_EQ(SCHED_OTHER, sched_getscheduler(h->pid));
	hcbs_hog_stop(h);

	/* An RT task cannot move in. */
	h = hcbs_hog(_metadata, &self->env, NULL, HCBS_LOAD_CPU, SCHED_FIFO, 1);
	err = hcbs_cg_attach(z, h->pid);
	hcbs_note("moving a FIFO task into a 0-runtime group: %s", errname(err));
	EXPECT_NE(0, err);
	ASSERT_EQ(0, hcbs_cg_read(z, "cgroup.procs", buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
	hcbs_hog_stop(h);

	/* A group with an RT task cannot drop to 0. */
	hcbs_group(_metadata, &self->env, "g", 30000, 100000, g, sizeof(g));
	h = hcbs_hog(_metadata, &self->env, g, HCBS_LOAD_CPU, SCHED_FIFO,
		     HCBS_PRIO_GROUP);
	expect_write_fails(_metadata, g, "cpu.rt.max", "0 100000", EBUSY);
	expect_write_fails(_metadata, g, "cpu.rt.max", "0", EBUSY);
	expect_write_fails(_metadata, g, "cpu.rt_runtime_us", "0", EBUSY);
	expect_state(_metadata, g, "30000 100000", "30000", "100000");
	/* Once the task is gone it can. */
	hcbs_hog_stop(h);
	expect_write_ok(_metadata, g, "cpu.rt.max", "0 100000");
}

/*
 * A fork straight into a group gets the checks of a move into it: no RT
 * task in a group whose reservation has no runtime.
 */
TEST_F(iface, clone_into_cgroup)
{
	char z[PATHLEN], g[PATHLEN], buf[64];
	int err;

	hcbs_group(_metadata, &self->env, "zero", 0, 100000, z, sizeof(z));
	hcbs_group(_metadata, &self->env, "g", 10000, 100000, g, sizeof(g));
	err = hcbs_clone_into(z, SCHED_FIFO, 1);
	hcbs_note("clone3(CLONE_INTO_CGROUP) of a FIFO task into a 0-runtime group: %s (expected EPERM)",
		  errname(err));
	EXPECT_EQ(-EPERM, err);
	ASSERT_EQ(0, hcbs_cg_read(z, "cgroup.procs", buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
	err = hcbs_clone_into(g, SCHED_FIFO, 1);
	hcbs_note("clone3(CLONE_INTO_CGROUP) of a FIFO task into a 10/100 ms group: %s",
		  errname(err));
	EXPECT_EQ(0, err);
}

/* Drop CAP_SYS_NICE from the calling process's effective set. */
static int drop_cap_sys_nice(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	data[CAP_TO_INDEX(CAP_SYS_NICE)].effective &= ~CAP_TO_MASK(CAP_SYS_NICE);
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

#define PRIV_WRITES 6

/*
 * Reserving more of the root's bandwidth takes CAP_SYS_NICE, as a
 * SCHED_DEADLINE task does; giving it back, and sharing out a reserved
 * ancestor's bandwidth below it (a delegated subtree), do not.
 */
TEST_F(iface, privilege)
{
	static const struct {
		int cg;			/* 0: top-level group t, 1: t/c */
		const char *val;
		int want;		/* errno */
	} w[PRIV_WRITES] = {
		{ 0, "20000 100000", EPERM },	/* max -> reserved */
		{ 0, "10000 100000", 0 },	/* lower (set to 20000 first) */
		{ 0, "30000 100000", EPERM },	/* raise */
		{ 0, "10000 50000", EPERM },	/* same runtime, more bandwidth */
		{ 1, "5000 100000", 0 },	/* within t's 10/100 */
		{ 0, "max", 0 },		/* give it back */
	};
	char t[PATHLEN], c[PATHLEN], buf[64];
	int *res, status, i;
	pid_t pid;

	hcbs_group(_metadata, &self->env, "t", 0, 0, t, sizeof(t));
	ASSERT_EQ(0, hcbs_cg_write(t, "cgroup.subtree_control", "+cpu"));
	ASSERT_EQ(0, hcbs_cg_path(c, sizeof(c), t, "c"));
	ASSERT_EQ(0, hcbs_cg_create(c));
	res = mmap(NULL, sizeof(int) * PRIV_WRITES, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, res);

	for (i = 0; i < PRIV_WRITES; i++) {
		if (i == 1)	/* the privileged parent reserves 20/100 */
			ASSERT_EQ(0, hcbs_set_rt_max(t, 20000, 100000));
		pid = fork();
		ASSERT_GE(pid, 0);
		if (pid == 0) {
			int err = drop_cap_sys_nice();

			res[i] = err ? err : hcbs_cg_write(w[i].cg ? c : t, "cpu.rt.max",
							   "%s", w[i].val);
			_exit(err ? 1 : 0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("could not drop CAP_SYS_NICE: %s", errname(res[i]));
		hcbs_note("without CAP_SYS_NICE, '%s' to %s/cpu.rt.max: %s (expected %s)",
			  w[i].val, w[i].cg ? "t/c" : "t", errname(res[i]),
			  errname(w[i].want));
		EXPECT_EQ(-w[i].want, res[i]);
	}
	ASSERT_EQ(0, hcbs_cg_read(t, "cpu.rt.max", buf, sizeof(buf)));
	EXPECT_STREQ("max 100000", buf);
	ASSERT_EQ(0, hcbs_cg_read(c, "cpu.rt.max", buf, sizeof(buf)));
	EXPECT_STREQ("5000 100000", buf);
	munmap(res, sizeof(int) * PRIV_WRITES);
}

static long long rt_global_period_us(void)
{
	long long v;

	return hcbs_read_long("/proc/sys/kernel/sched_rt_period_us", &v) ? 1000000 : v;
}

/* Write @val to the root's @file without CAP_SYS_NICE; the write's -errno. */
static int write_unprivileged(const char *file, const char *val)
{
	int *res, status, ret;
	pid_t pid;

	res = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED)
		return -errno;
	*res = -ECHILD;
	pid = fork();
	if (pid == 0) {
		int err = drop_cap_sys_nice();

		*res = err ? err : hcbs_cg_write(hcbs_cg_root(), file, "%s", val);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		*res = -ECHILD;
	ret = *res;
	munmap(res, sizeof(int));
	return ret;
}

/*
 * The root group's share (cpu.rt.max on the root, as the upstream RFC's
 * root runtime): "max" by default and then nothing changes; set, it is
 * reserved on every CPU against SCHED_DEADLINE tasks whether the groups
 * use it or not, and the groups below the root divide it.
 */
TEST_F(iface, root_share)
{
	const char *root = hcbs_cg_root();
	double g = hcbs_rt_global_bw(), f = hcbs_fair_server_bw(0);
	int m = self->env.nr_cpus, err;
	double share = 0.5, held = 0.2, dl_bw;
	char a[PATHLEN], b[PATHLEN], buf[64];
	struct hcbs_hog_spec spec = {
		.cpu = -1, .policy = SCHED_OTHER, .sleeper = true,
	};
	const char *step = "";
	struct hcbs_hog *dl;
	uint64_t dl_rt;

	ASSERT_TRUE(hcbs_cg_has_file(root, "cpu.rt.max"))
		TH_LOG("no cpu.rt.max on the root group");
	snprintf(buf, sizeof(buf), "max %lld", (long long)(rt_global_period_us()));
	expect_state(_metadata, root, buf, "-1", buf + 4);

	/*
	 * A deadline task that fits beside groups holding 0.2 but not
	 * beside a share of 0.5 reserved on each of the m CPUs.
	 */
	dl_bw = m * (g - f - share) + 0.1;
	ASSERT_LT(dl_bw, m * (g - f - held));
	ASSERT_LE(dl_bw, 1.0) TH_LOG("%d CPUs: no deadline task tells the share apart", m);
	dl_rt = (uint64_t)(dl_bw * HCBS_NSEC_PER_SEC);
	hcbs_note("%d CPUs, global limit %.4f, fair server %.4f: share %.2f, groups %.2f, deadline task %.4f",
		  m, g, f, share, held, dl_bw);

	hcbs_group(_metadata, &self->env, "a", (long long)(held * 100000), 100000,
		   a, sizeof(a));
	/* Bad values, and values that do not fit, change nothing. */
	expect_write_fails(_metadata, root, "cpu.rt.max", "abc", EINVAL);
	expect_write_fails(_metadata, root, "cpu.rt.max", "2000000 1000000", EINVAL);
	expect_write_fails(_metadata, root, "cpu.rt.max", "100 0", EINVAL);
	snprintf(buf, sizeof(buf), "%lld 1000000", (long long)((g + 0.01) * 1000000));
	expect_write_fails(_metadata, root, "cpu.rt.max", buf, EBUSY);
	expect_write_fails(_metadata, root, "cpu.rt.max", "100000 1000000", EBUSY);
	expect_write_fails(_metadata, root, "cpu.rt.max", "0 1000000", EBUSY);
	err = write_unprivileged("cpu.rt.max", "500000 1000000");
	hcbs_note("without CAP_SYS_NICE, '500000 1000000' to the root: %s (expected EPERM)",
		  errname(err));
	EXPECT_EQ(-EPERM, err);

	/* Set: the groups divide it. */
	expect_write_ok(_metadata, root, "cpu.rt.max", "500000 1000000");
	expect_state(_metadata, root, "500000 1000000", "500000", "1000000");
	hcbs_group(_metadata, &self->env, "b", 0, 0, b, sizeof(b));
	expect_write_fails(_metadata, b, "cpu.rt.max", "40000 100000", EBUSY);
	expect_write_ok(_metadata, b, "cpu.rt.max", "30000 100000");
	expect_write_ok(_metadata, b, "cpu.rt.max", "max");

	/* Set: deadline tasks cannot take what the groups do not use. */
	dl = hcbs_env_hog(&self->env, &spec, &err, &step);
	ASSERT_NE(NULL, dl) TH_LOG("sleeper: %s: %s", step, strerror(-err));
	err = hcbs_set_deadline(dl->pid, dl_rt, HCBS_NSEC_PER_SEC, HCBS_NSEC_PER_SEC);
	hcbs_note("deadline task %.4f beside a share of %.2f (groups use %.2f): %s (expected EBUSY)",
		  dl_bw, share, held, errname(err));
	EXPECT_EQ(-EBUSY, err);
	err = write_unprivileged("cpu.rt.max", "max");
	EXPECT_EQ(-EPERM, err) TH_LOG("unprivileged 'max' to the root: %s", errname(err));

	/* Back to the default: only what the groups hold is reserved. */
	expect_write_ok(_metadata, root, "cpu.rt.max", "max");
	err = hcbs_set_deadline(dl->pid, dl_rt, HCBS_NSEC_PER_SEC, HCBS_NSEC_PER_SEC);
	hcbs_note("the same deadline task with the share back at max: %s (expected accepted)",
		  errname(err));
	EXPECT_EQ(0, err);
	/* ... and a share the deadline task leaves no room for is refused. */
	expect_write_fails(_metadata, root, "cpu.rt.max", "500000 1000000", EBUSY);
	ASSERT_EQ(0, hcbs_set_policy(dl->pid, SCHED_OTHER, 0));

	/* The two-file form sets the same state. */
	expect_write_fails(_metadata, root, "cpu.rt_runtime_us", "100000", EBUSY);
	expect_write_ok(_metadata, root, "cpu.rt_period_us", "500000");
	expect_state(_metadata, root, "max 500000", "-1", "500000");
	/* The deadline task's bandwidth is released at its 0-lag time. */
	hcbs_sleep_ms(1100);
	expect_write_ok(_metadata, root, "cpu.rt_runtime_us", "300000");
	expect_state(_metadata, root, "300000 500000", "300000", "500000");
	expect_write_ok(_metadata, root, "cpu.rt_runtime_us", "-1");
	expect_state(_metadata, root, "max 500000", "-1", "500000");
	snprintf(buf, sizeof(buf), "max %lld", (long long)(rt_global_period_us()));
	expect_write_ok(_metadata, root, "cpu.rt.max", buf);
}

/* cpu.rt.stat counts what the group's server did. */
TEST_F(iface, rt_stat)
{
	const unsigned int window_ms = 1000, q_us = 10000, p_us = 100000;
	long long u0, u1, np0, np1, nt0, nt1, tu0, tu1;
	uint64_t c0, c1, t0, t1;
	double expected_us, win_us, hog_us;
	char g[PATHLEN];
	struct hcbs_hog *h;

	hcbs_group(_metadata, &self->env, "g", q_us, p_us, g, sizeof(g));
	h = hcbs_hog(_metadata, &self->env, g, HCBS_LOAD_CPU, SCHED_FIFO,
		     HCBS_PRIO_GROUP);
	hcbs_hog(_metadata, &self->env, NULL, HCBS_LOAD_CPU, SCHED_FIFO,
		 HCBS_PRIO_ROOT_HOG);
	hcbs_sleep_ms(200);

	t0 = hcbs_now_ns();
	ASSERT_EQ(0, hcbs_proc_cputime_ns(h->pid, &c0));
	ASSERT_EQ(0, hcbs_cg_read_key(g, "cpu.rt.stat", "usage_usec", &u0));
	ASSERT_EQ(0, hcbs_cg_read_key(g, "cpu.rt.stat", "nr_periods", &np0));
	ASSERT_EQ(0, hcbs_cg_read_key(g, "cpu.rt.stat", "nr_throttled", &nt0));
	ASSERT_EQ(0, hcbs_cg_read_key(g, "cpu.rt.stat", "throttled_usec", &tu0));
	hcbs_sleep_until_ns(t0 + window_ms * HCBS_NSEC_PER_MSEC);
	ASSERT_EQ(0, hcbs_cg_read_key(g, "cpu.rt.stat", "usage_usec", &u1));
	ASSERT_EQ(0, hcbs_cg_read_key(g, "cpu.rt.stat", "nr_periods", &np1));
	ASSERT_EQ(0, hcbs_cg_read_key(g, "cpu.rt.stat", "nr_throttled", &nt1));
	ASSERT_EQ(0, hcbs_cg_read_key(g, "cpu.rt.stat", "throttled_usec", &tu1));
	ASSERT_EQ(0, hcbs_proc_cputime_ns(h->pid, &c1));
	t1 = hcbs_now_ns();

	win_us = (t1 - t0) / 1000.0;
	hog_us = (c1 - c0) / 1000.0;
	expected_us = win_us * q_us / p_us;
	hcbs_note("group %u/%u us over %.0f us: usage_usec +%lld (hog's clock %.0f, expected %.0f)",
		  q_us, p_us, win_us, u1 - u0, hog_us, expected_us);
	hcbs_note("nr_periods +%lld, nr_throttled +%lld, throttled_usec +%lld",
		  np1 - np0, nt1 - nt0, tu1 - tu0);
	EXPECT_TRUE(hcbs_values_close(u1 - u0, expected_us, 0.1 * expected_us));
	EXPECT_TRUE(hcbs_values_close(u1 - u0, hog_us, 0.05 * hog_us + 2000));
	EXPECT_GE(np1 - np0, 9);
	EXPECT_GE(nt1 - nt0, 9);
	EXPECT_GE(tu1 - tu0, (long long)(0.5 * win_us));
}

/*
 * A period shortened while the group's server is throttled takes effect
 * at once: the server's deadline comes in to at most one new period away
 * (as sched_setattr() does for a deadline task), and so must its
 * replenishment.  A group at 10 ms every second whose FIFO hog spent its
 * budget gets 10 ms every 100 ms 100 ms into the period: its hog must run
 * again about 100 ms after the write, not when the old period ends 900 ms
 * later, and the late replenishment must not count as a lag.
 */
TEST_F_TIMEOUT(iface, period_change_while_throttled, 60)
{
	const unsigned int q_us = 10000, p_old_us = 1000000, p_new_us = 100000;
	/* The new period, and the time a replenishment may take to run. */
	const uint64_t limit_ns = (p_new_us + 50000) * 1000ULL;
	long long lag0, lag1;
	uint64_t c0, c, t0, t;
	char g[PATHLEN];
	struct hcbs_hog *h;

	hcbs_group(_metadata, &self->env, "g", q_us, p_old_us, g, sizeof(g));
	h = hcbs_hog(_metadata, &self->env, g, HCBS_LOAD_CPU, SCHED_FIFO,
		     HCBS_PRIO_GROUP);
	/* Into a period after the first full one: throttled, 10 ms spent. */
	hcbs_sleep_ms(1100);
	ASSERT_EQ(0, hcbs_proc_cputime_ns(h->pid, &c0));
	hcbs_sleep_ms(20);
	ASSERT_EQ(0, hcbs_proc_cputime_ns(h->pid, &c));
	ASSERT_EQ(c0, c) TH_LOG("the hog ran %.3f ms in 20 ms: not throttled",
				(c - c0) / 1e6);
	ASSERT_EQ(0, hcbs_cg_read_key(g, "cpu.rt.stat", "nr_lagged", &lag0));

	t0 = hcbs_now_ns();
	ASSERT_EQ(0, hcbs_cg_write(g, "cpu.rt.max", "%u %u", q_us, p_new_us));
	do {
		hcbs_sleep_ms(1);
		ASSERT_EQ(0, hcbs_proc_cputime_ns(h->pid, &c));
		t = hcbs_now_ns();
	} while (c == c0 && t - t0 < 2 * p_old_us * 1000ULL);
	ASSERT_EQ(0, hcbs_cg_read_key(g, "cpu.rt.stat", "nr_lagged", &lag1));
	hcbs_note("period %u -> %u us while throttled: the hog ran again %.1f ms after the write (limit %.0f ms: the new period and 50 ms for the replenishment to run); nr_lagged +%lld",
		  p_old_us, p_new_us, (t - t0) / 1e6, limit_ns / 1e6, lag1 - lag0);
	EXPECT_NE(c0, c) TH_LOG("the hog did not run for 2 s after the write");
	EXPECT_LT(t - t0, limit_ns) TH_LOG("replenished %.1f ms after the period became %u us",
					   (t - t0) / 1e6, p_new_us);
	EXPECT_EQ(lag0, lag1) TH_LOG("the period change counted as %lld lagged periods",
				     lag1 - lag0);
}

/*
 * Create, reserve, move, re-prioritise, resize with tasks running,
 * unreserve and destroy: the root domain's reserved bandwidth ends where
 * it started, on every CPU.
 */
TEST_F_TIMEOUT(iface, no_leak, 120)
{
	char a[PATHLEN], ab[PATHLEN], c[PATHLEN];
	long long bw[HCBS_MAX_CPUS], before = 0, after = 0;
	struct hcbs_hog *h1, *h2, *h3;
	int n, cpu, bad;

	if (!self->env.nr_bw)
		SKIP(return, "no /sys/kernel/debug/sched/debug (CONFIG_SCHED_DEBUG, debugfs)");
	hcbs_group(_metadata, &self->env, "a", 20000, 100000, a, sizeof(a));
	ASSERT_EQ(0, hcbs_cg_write(a, "cgroup.subtree_control", "+cpu"));
	ASSERT_EQ(0, hcbs_cg_path(ab, sizeof(ab), a, "b"));
	ASSERT_EQ(0, hcbs_cg_create(ab));
	expect_write_ok(_metadata, ab, "cpu.rt.max", "10000 50000");
	hcbs_group(_metadata, &self->env, "c", 30000, 100000, c, sizeof(c));

	n = hcbs_dl_total_bw(bw, HCBS_MAX_CPUS);
	ASSERT_EQ(self->env.nr_bw, n);
	for (cpu = 0; cpu < n; cpu++) {
		hcbs_note("CPU %d: dl_bw->total_bw %lld -> %lld with groups 0.2 (+0.2 nested) and 0.3",
			  cpu, self->env.bw0[cpu], bw[cpu]);
		EXPECT_GT(bw[cpu], self->env.bw0[cpu])
			TH_LOG("group reservations are not in the root domain's total_bw");
	}

	hcbs_note("start FIFO/RR/OTHER hogs in a/b and c");
	h1 = hcbs_hog(_metadata, &self->env, ab, HCBS_LOAD_CPU, SCHED_FIFO, 10);
	h2 = hcbs_hog(_metadata, &self->env, c, HCBS_LOAD_CPU, SCHED_RR, 20);
	h3 = hcbs_hog(_metadata, &self->env, c, HCBS_LOAD_CPU, SCHED_OTHER, 0);
	hcbs_sleep_ms(100);
	hcbs_note("move the FIFO hog from a/b to c, switch policies");
	ASSERT_EQ(0, hcbs_cg_attach(c, h1->pid));
	ASSERT_EQ(0, hcbs_set_policy(h2->pid, SCHED_OTHER, 0));
	ASSERT_EQ(0, hcbs_set_policy(h3->pid, SCHED_FIFO, 30));
	hcbs_sleep_ms(100);
	hcbs_note("resize and unreserve under running tasks");
	expect_write_ok(_metadata, c, "cpu.rt.max", "40000 100000");
	expect_write_fails(_metadata, ab, "cpu.rt.max", "5000 10000", EBUSY);
	expect_write_ok(_metadata, ab, "cpu.rt.max", "2000 10000");
	expect_write_ok(_metadata, ab, "cpu.rt.max", "max");
	/* Unreserve and reserve again under a running FIFO task. */
	expect_write_ok(_metadata, c, "cpu.rt.max", "max");
	hcbs_sleep_ms(100);
	expect_write_ok(_metadata, c, "cpu.rt.max", "30000 100000");
	ASSERT_EQ(0, hcbs_set_policy(h2->pid, SCHED_RR, 20));
	hcbs_sleep_ms(100);
	hcbs_note("move the FIFO hog to the root group and back into a/b");
	ASSERT_EQ(0, hcbs_cg_attach(hcbs_cg_root(), h1->pid));
	ASSERT_EQ(0, hcbs_cg_attach(ab, h1->pid));
	hcbs_sleep_ms(100);
	/*
	 * Highest priority first: h3 (FIFO 30) and h2 (RR 20) share c, so
	 * h2 cannot run, not even to die, while h3 spins.
	 */
	hcbs_hog_stop(h3);
	hcbs_hog_stop(h2);
	hcbs_hog_stop(h1);

	/* Destroyed while still reserved. */
	hcbs_note("stop the hogs, destroy the groups still reserved");
	ASSERT_EQ(0, hcbs_cg_destroy(a));
	ASSERT_EQ(0, hcbs_cg_destroy(c));
	bad = hcbs_env_bw_leak(&self->env, 3000, &before, &after);
	EXPECT_EQ(-1, bad) TH_LOG("CPU %d: total_bw %lld at start, %lld after destroying the groups",
				  bad, before, after);
}

/* ------------------------------------------- many groups, many writers */
/* The kernel's fixed point: to_ratio() of kernel/sched/core.c (BW_SHIFT 20). */
static long long bw_ratio(long long period_us, long long runtime_us)
{
	return period_us ? (long long)(((unsigned long long)runtime_us << 20) / period_us) : 0;
}

/* "Q P" or "max P" of @cg as numbers; *@q = -1 for max. */
static int read_rt_max(const char *cg, long long *q, long long *p)
{
	char buf[128], qs[32];
	int err = hcbs_cg_read(cg, "cpu.rt.max", buf, sizeof(buf));

	if (err)
		return err;
	if (sscanf(buf, "%31s %lld", qs, p) != 2)
		return -EINVAL;
	*q = strcmp(qs, "max") ? atoll(qs) : -1;
	return 0;
}

/*
 * rt_groups_bw of every CPU minus its value at @base: what the groups
 * reserve now beyond the start.  The number of CPUs, or -errno.
 */
static int groups_bw_delta(const long long *base, long long *delta)
{
	long long total[HCBS_MAX_CPUS], groups[HCBS_MAX_CPUS];
	int n = hcbs_dl_bw(total, groups, HCBS_MAX_CPUS);

	for (int cpu = 0; cpu < n; cpu++)
		delta[cpu] = groups[cpu] - base[cpu];
	return n;
}

#define MANY_GROUPS	128
#define MANY_PERIOD_US	200000

/*
 * A periodic RT task: 20 us of work every 500 ms; counts its jobs.  What a
 * job costs its server is mostly the wakeup, the switches and the sleep:
 * under TCG with lockdep about 0.7 ms on a quiet host (4 groups: 103 ms of
 * cpu.rt.stat usage for 142 such jobs) and 2.5-4 ms with another guest
 * beside it, hence the long period.
 */
static void __attribute__((noreturn)) many_task(volatile unsigned long *jobs)
{
	for (;;) {
		uint64_t end = hcbs_now_ns() + 20000;

		while (hcbs_now_ns() < end)
			;
		(*jobs)++;
		hcbs_sleep_ms(500);
	}
}

/*
 * 128 reserved groups at once, each with a periodic FIFO task on either
 * CPU: every reservation is admitted and counted once per CPU in
 * rt_groups_bw, every group's task runs, and destroying them gives all
 * the bandwidth back.  Reports the time of a cpu.rt.max write at that
 * count (admission walks the groups).
 */
TEST_F_TIMEOUT(iface, many_groups, 240)
{
	long long base_total[HCBS_MAX_CPUS], base[HCBS_MAX_CPUS], delta[HCBS_MAX_CPUS];
	long long q_us, want, before = 0, after = 0;
	volatile unsigned long *jobs;	/* [ng]: jobs; [ng]: started */
	pid_t pid[MANY_GROUPS] = { 0 };
	char cg[MANY_GROUPS][PATHLEN];
	uint64_t t0, write_ns = 0;
	double free_bw;
	int n, i, cpu, bad, starved = 0, ng = MANY_GROUPS;
	const char *env = getenv("HCBS_MANY_GROUPS");

	if (env && atoi(env) > 0 && atoi(env) < MANY_GROUPS)
		ng = atoi(env);
	if (!self->env.nr_bw)
		SKIP(return, "no /sys/kernel/debug/sched/debug (CONFIG_SCHED_DEBUG, debugfs)");
	ASSERT_LE(1, hcbs_dl_bw(base_total, base, HCBS_MAX_CPUS));
	free_bw = hcbs_env_free_bw(&self->env);
	/* 0.8 of what is free, shared by the groups */
	q_us = (long long)(free_bw * 0.8 * MANY_PERIOD_US / ng);
	q_us &= ~1LL;	/* even: halved below, it keeps the same share */
	hcbs_note("%d groups of %lld us / %d us each (free per CPU: %.3f); a FIFO task in each: 20 us every 500 ms; pass: >= 3 of its 12 jobs in 6 s (TCG allowance: a job costs its server 0.7-4 ms there)",
		  ng, q_us, MANY_PERIOD_US, free_bw);
	/* a job every 500 ms at up to ~4 ms each (TCG, loaded host) */
	ASSERT_LE(1000, q_us) TH_LOG("too little free bandwidth for %d groups", ng);
	jobs = mmap(NULL, sizeof(*jobs) * (ng + 1), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, jobs);

	for (i = 0; i < ng; i++) {
		char name[16];

		snprintf(name, sizeof(name), "m%03d", i);
		ASSERT_EQ(0, hcbs_env_group(&self->env, name, cg[i], sizeof(cg[i])));
		t0 = hcbs_now_ns();
		ASSERT_EQ(0, hcbs_set_rt_max(cg[i], q_us, MANY_PERIOD_US))
			TH_LOG("group %d of %d refused", i + 1, ng);
		write_ns += hcbs_now_ns() - t0;
	}
	n = groups_bw_delta(base, delta);
	want = ng * bw_ratio(MANY_PERIOD_US, q_us);
	for (cpu = 0; cpu < n; cpu++) {
		EXPECT_EQ(want, delta[cpu]) TH_LOG("CPU %d: the groups reserve %lld, expected %lld",
						   cpu, delta[cpu], want);
	}
	hcbs_note("admission: %.0f us per cpu.rt.max write on average, %d groups",
		  write_ns / 1e3 / ng, ng);

	for (i = 0; i < ng; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i]) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (hcbs_pin_cpu(0, i % self->env.nr_cpus) || hcbs_cg_attach(cg[i], 0) ||
			    hcbs_set_policy(0, SCHED_FIFO, 1 + i % 90))
				_exit(3);
			__atomic_add_fetch(&jobs[ng], 1, __ATOMIC_RELAXED);
			many_task(&jobs[i]);
		}
	}
	/* forks are slow under TCG: count jobs once every task is running */
	t0 = hcbs_now_ns();
	while (jobs[ng] < ng && hcbs_now_ns() - t0 < 60000000000ULL)
		hcbs_sleep_ms(100);
	ASSERT_EQ(ng, jobs[ng]) TH_LOG("only %lu of %d tasks started in 60 s",
							 jobs[ng], ng);
	for (i = 0; i < ng; i++)
		jobs[i] = 0;
	hcbs_sleep_ms(6000);
	for (i = 0; i < ng; i++) {
		int st;

		/* a task that could not start exited 3: report it as such */
		if (waitpid(pid[i], &st, WNOHANG) == pid[i]) {
			pid[i] = 0;
			EXPECT_TRUE(0) TH_LOG("task of group %d exited (status %d)", i, st);
		} else if (jobs[i] < 3) {
			starved++;
			TH_LOG("group %d: %lu jobs in 6 s", i, jobs[i]);
		}
	}
	for (i = 0; i < 3; i++) {
		long long u = -1, np = -1, nt = -1;

		hcbs_cg_read_key(cg[i], "cpu.rt.stat", "usage_usec", &u);
		hcbs_cg_read_key(cg[i], "cpu.rt.stat", "nr_periods", &np);
		hcbs_cg_read_key(cg[i], "cpu.rt.stat", "nr_throttled", &nt);
		hcbs_note("group %d: %lu jobs in 6 s; cpu.rt.stat usage %lld us, %lld periods, %lld throttled",
			  i, jobs[i], u, np, nt);
	}
	/*
	 * 12 jobs each in 6 s; 3 is the allowance for TCG, where a job costs
	 * its server far more than its 20 us (see many_task()); a server that
	 * is never served gives 0.
	 */
	EXPECT_EQ(0, starved) TH_LOG("%d of %d groups' tasks barely ran", starved, ng);

	hcbs_note("resize every group under its running task, then destroy them all");
	for (i = 0; i < ng; i++)
		EXPECT_EQ(0, hcbs_set_rt_max(cg[i], q_us / 2, MANY_PERIOD_US / 2));
	want = ng * bw_ratio(MANY_PERIOD_US / 2, q_us / 2);
	n = groups_bw_delta(base, delta);
	for (cpu = 0; cpu < n; cpu++) {
		EXPECT_EQ(want, delta[cpu]) TH_LOG("CPU %d after the resize: %lld, expected %lld",
						   cpu, delta[cpu], want);
	}
	/*
	 * A task killed inside a 175 us / 50 ms reservation takes seconds of
	 * wall time to exit (lockdep, TCG): make them SCHED_OTHER first.
	 */
	for (i = 0; i < ng; i++) {
		if (pid[i] > 0) {
			hcbs_set_policy(pid[i], SCHED_OTHER, 0);
			kill(pid[i], SIGKILL);
		}
	}
	for (i = 0; i < ng; i++) {
		if (pid[i] > 0)
			waitpid(pid[i], NULL, 0);
		EXPECT_EQ(0, hcbs_cg_destroy(cg[i]));
	}
	munmap((void *)jobs, sizeof(*jobs) * (ng + 1));
	bad = hcbs_env_bw_leak(&self->env, 5000, &before, &after);
	EXPECT_EQ(-1, bad) TH_LOG("CPU %d: total_bw %lld at start, %lld after destroying %d groups",
				  bad, before, after, ng);
	n = groups_bw_delta(base, delta);
	for (cpu = 0; cpu < n; cpu++) {
		EXPECT_EQ(0, delta[cpu]) TH_LOG("CPU %d: rt_groups_bw %lld above its start", cpu,
						delta[cpu]);
	}
}

#define WRITERS		4
#define WRITER_GROUPS	8

/*
 * WRITERS processes write random, well-formed reservations into the same
 * WRITER_GROUPS sibling groups at once, in both interfaces, so that the
 * sum often would not fit: admission must serialise them.  Every write
 * is accepted or refused with EBUSY, never anything else; a checker
 * samples that what the kernel admitted (rt_groups_bw of every CPU) never
 * exceeds the free bandwidth; at the end rt_groups_bw is exactly the sum
 * of what the files say, and unreserving them gives everything back.
 */
TEST_F_TIMEOUT(iface, concurrent_writers, 120)
{
	long long base_total[HCBS_MAX_CPUS], base[HCBS_MAX_CPUS], delta[HCBS_MAX_CPUS];
	long long limit, sum, q, p, worst = 0;
	unsigned long *counts, samples = 0, over = 0;
	char cg[WRITER_GROUPS][PATHLEN];
	pid_t pid[WRITERS];
	double free_bw;
	uint64_t end;
	int n, i, w, st, cpu;

	if (!self->env.nr_bw)
		SKIP(return, "no /sys/kernel/debug/sched/debug (CONFIG_SCHED_DEBUG, debugfs)");
	ASSERT_LE(1, hcbs_dl_bw(base_total, base, HCBS_MAX_CPUS));
	free_bw = hcbs_env_free_bw(&self->env);
	limit = (long long)(free_bw * (1 << 20));
	for (i = 0; i < WRITER_GROUPS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "w%d", i);
		ASSERT_EQ(0, hcbs_env_group(&self->env, name, cg[i], sizeof(cg[i])));
	}
	/* per writer: accepted, EBUSY, other errors */
	counts = mmap(NULL, sizeof(*counts) * WRITERS * 3, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, counts);
	memset(counts, 0, sizeof(*counts) * WRITERS * 3);

	end = hcbs_now_ns() + 8000000000ULL;
	for (w = 0; w < WRITERS; w++) {
		pid[w] = fork();
		ASSERT_LE(0, pid[w]);
		if (!pid[w]) {
			uint64_t r = 0x9e3779b97f4a7c15ULL * (w + 1);

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			hcbs_pin_cpu(0, w % self->env.nr_cpus);
			while (hcbs_now_ns() < end) {
				long long wp, wq;
				int g, err;

				r ^= r << 13, r ^= r >> 7, r ^= r << 17;
				g = r % WRITER_GROUPS;
				wp = 10000 + (r >> 8) % 90000;
				/* 2 us (> 1024 ns) up to 0.4: 8 of them overbook often */
				wq = 2 + (long long)((r >> 24) % 400) * wp / 1000;
				switch ((r >> 40) % 4) {
				case 0:
					err = hcbs_cg_write(cg[g], "cpu.rt.max", "max");
					break;
				case 1:
					/* the two-file form: runtime, within the current period */
					err = hcbs_cg_write(cg[g], "cpu.rt_runtime_us", "%lld",
							    2 + wq / 4);
					break;
				default:
					err = hcbs_cg_write(cg[g], "cpu.rt.max", "%lld %lld", wq, wp);
				}
				counts[w * 3 + (!err ? 0 : err == -EBUSY ? 1 : 2)]++;
				if (err && err != -EBUSY)
					fprintf(stderr, "# writer %d: %s: %s\n", w, cg[g], errname(err));
			}
			_exit(0);
		}
	}

	/*
	 * The checker: what the kernel has admitted (each CPU's rt_groups_bw,
	 * read under its lock) never exceeds the free bandwidth.  Slack: 10^-4
	 * for the rounding of the free bandwidth read from debugfs.
	 */
	while (hcbs_now_ns() < end) {
		n = groups_bw_delta(base, delta);
		for (cpu = 0; cpu < n; cpu++) {
			if (delta[cpu] > limit + (1 << 20) / 10000)
				over++;
			if (delta[cpu] > worst)
				worst = delta[cpu];
		}
		samples++;
		hcbs_sleep_ms(2);
	}
	for (w = 0; w < WRITERS; w++) {
		ASSERT_EQ(pid[w], waitpid(pid[w], &st, 0));
		EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
		hcbs_note("writer %d: %lu accepted, %lu EBUSY, %lu other", w, counts[w * 3],
			  counts[w * 3 + 1], counts[w * 3 + 2]);
		EXPECT_EQ(0, counts[w * 3 + 2]) TH_LOG("writer %d: errors other than EBUSY", w);
		EXPECT_LT(0, counts[w * 3]);
		EXPECT_LT(0, counts[w * 3 + 1]) TH_LOG("writer %d never overbooked: the test tested nothing",
						       w);
	}
	hcbs_note("%lu samples of rt_groups_bw; the most the groups held: %.4f of a free %.4f per CPU",
		  samples, worst / (double)(1 << 20), free_bw);
	EXPECT_EQ(0, over) TH_LOG("%lu samples above the free bandwidth: admission let writers overbook",
				  over);

	/* quiet now: the kernel's count is exactly what the files say */
	sum = 0;
	for (i = 0; i < WRITER_GROUPS; i++) {
		ASSERT_EQ(0, read_rt_max(cg[i], &q, &p));
		if (q >= 0)
			sum += bw_ratio(p, q);
	}
	EXPECT_GE(limit, sum);
	n = groups_bw_delta(base, delta);
	for (cpu = 0; cpu < n; cpu++) {
		EXPECT_EQ(sum, delta[cpu]) TH_LOG("CPU %d: rt_groups_bw %lld above its start, the files sum to %lld",
						  cpu, delta[cpu], sum);
	}
	for (i = 0; i < WRITER_GROUPS; i++)
		EXPECT_EQ(0, hcbs_cg_write(cg[i], "cpu.rt.max", "max"));
	n = groups_bw_delta(base, delta);
	for (cpu = 0; cpu < n; cpu++) {
		EXPECT_EQ(0, delta[cpu]) TH_LOG("CPU %d: %lld left reserved", cpu, delta[cpu]);
	}
	munmap(counts, sizeof(*counts) * WRITERS * 3);
}

#define KEEP_ROUNDS	500

/*
 * One half of (Q, P) written alone keeps the other half: "Q" to
 * cpu.rt.max or cpu.rt_runtime_us keeps the period, cpu.rt_period_us the
 * runtime.  Whatever is kept must be what the group has when the write
 * takes effect, not what it had when the write began: a writer of the
 * other half that lands in between would be undone.  A child rewrites
 * one half as fast as it can while the parent changes the other half
 * once a round; after the child's next two writes the parent's value
 * must still be there.
 */
struct keep_race {
	volatile unsigned long writes;
	volatile int stop;
	volatile int err;
};

static void __attribute__((noreturn)) keep_writer(struct keep_race *r,
						  const char *cg, bool period)
{
	int err;

	while (!r->stop) {
		if (period)
			err = hcbs_cg_write(cg, "cpu.rt_period_us", "100000");
		else if (r->writes % 2)
			err = hcbs_cg_write(cg, "cpu.rt_runtime_us", "5000");
		else
			err = hcbs_cg_write(cg, "cpu.rt.max", "5000");
		if (err && !r->err)
			r->err = err;
		__atomic_add_fetch(&r->writes, 1, __ATOMIC_RELEASE);
	}
	_exit(0);
}

/*
 * Rounds of the parent setting the half @period says is not the child's
 * (the period if the child writes the runtime) to one of two values;
 * returns how many rounds lost the parent's value.
 */
static int keep_race_rounds(struct __test_metadata *_metadata,
			    const char *cg, bool period)
{
	static const long long runtimes[] = { 5000, 6000 };
	static const long long periods[] = { 50000, 100000 };
	struct keep_race *r;
	long long q, p;
	int round, lost = 0, status;
	pid_t child;

	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r);
	memset(r, 0, sizeof(*r));
	ASSERT_EQ(0, hcbs_set_rt_max(cg, 5000, 100000));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		hcbs_pin_cpu(0, 1);
		keep_writer(r, cg, period);
	}
	ASSERT_EQ(0, hcbs_pin_cpu(0, 0));
	for (round = 0; round < KEEP_ROUNDS; round++) {
		long long want_q = period ? runtimes[round % 2] : 5000;
		long long want_p = period ? 100000 : periods[round % 2];
		unsigned long w;
		int err;

		err = hcbs_set_rt_max(cg, want_q, want_p);
		EXPECT_EQ(0, err) TH_LOG("round %d: cpu.rt.max %lld %lld: %s", round,
					 want_q, want_p, errname(err));
		w = __atomic_load_n(&r->writes, __ATOMIC_ACQUIRE);
		while (__atomic_load_n(&r->writes, __ATOMIC_ACQUIRE) < w + 2)
			;
		ASSERT_EQ(0, read_rt_max(cg, &q, &p));
		if (q != want_q || p != want_p) {
			if (!lost)
				TH_LOG("round %d: wrote %lld %lld, the other writer's next writes left %lld %lld",
				       round, want_q, want_p, q, p);
			lost++;
		}
	}
	r->stop = 1;
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_EQ(0, r->err) TH_LOG("the %s writer: %s", period ? "period" : "runtime",
				     errname(r->err));
	hcbs_note("%d rounds of a cpu.rt.max write beside %lu writes of the %s alone: %d lost",
		  KEEP_ROUNDS, r->writes, period ? "period" : "runtime", lost);
	munmap(r, sizeof(*r));
	return lost;
}

TEST_F_TIMEOUT(iface, single_value_write_keeps_other, 120)
{
	char g[PATHLEN];

	ASSERT_EQ(0, hcbs_env_group(&self->env, "g", g, sizeof(g)));
	EXPECT_EQ(0, keep_race_rounds(_metadata, g, false))
		TH_LOG("a runtime-only write put back a period it had read before another write changed it");
	EXPECT_EQ(0, keep_race_rounds(_metadata, g, true))
		TH_LOG("a period-only write put back a runtime it had read before another write changed it");
	EXPECT_EQ(0, hcbs_cg_write(g, "cpu.rt.max", "max"));
}

/* --------------------------------------------------------- tracepoints */
static const char *const trace_events[] = {
	"sched_hcbs_server_start", "sched_hcbs_server_stop",
	"sched_hcbs_server_replenish", "sched_hcbs_server_throttle",
};
#define NR_TRACE_EVENTS (sizeof(trace_events) / sizeof(trace_events[0]))

FIXTURE(trace) {
	struct hcbs_env env;
	const char *tracefs;
};

FIXTURE_SETUP(trace)
{
	HCBS_ENV_SETUP(&self->env, "trace");
	self->tracefs = hcbs_tracefs();
}

#define SCHED_FEATURES "/sys/kernel/debug/sched/features"

static void trace_event_write(const char *tracefs, const char *event,
			      const char *file, const char *val, int *err)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/events/sched/%s/%s", tracefs, event, file);
	*err = hcbs_write_str(path, val);
}

FIXTURE_TEARDOWN_PARENT(trace)
{
	unsigned int i;
	int err;

	for (i = 0; self->tracefs && i < NR_TRACE_EVENTS; i++) {
		trace_event_write(self->tracefs, trace_events[i], "enable", "0", &err);
		trace_event_write(self->tracefs, trace_events[i], "filter", "0", &err);
	}
	if (self->tracefs) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/events/timer/hrtimer_start/enable",
			 self->tracefs);
		hcbs_write_str(path, "0");
	}
	/* trace.budget_overrun turns the budget's hrtick off for a while */
	if (!access(SCHED_FEATURES, W_OK))
		hcbs_write_str(SCHED_FEATURES, "HRTICK_RT_GROUP");
	HCBS_ENV_TEARDOWN(&self->env);
}

/*
 * Clear the trace buffer and record the server events of cgroup @id only.
 * Returns 0 or -errno.
 */
static int trace_arm(struct __test_metadata *_metadata, const char *tracefs,
		     uint64_t id)
{
	char path[PATH_MAX], filter[64];
	unsigned int i;
	int fd, err;

	snprintf(filter, sizeof(filter), "cgroup_id == %llu", (unsigned long long)id);
	snprintf(path, sizeof(path), "%s/trace", tracefs);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);	/* clears the buffer */
	if (fd < 0) {
		err = -errno;
		TH_LOG("open %s: %s", path, strerror(-err));
		return err;
	}
	close(fd);
	for (i = 0; i < NR_TRACE_EVENTS; i++) {
		trace_event_write(tracefs, trace_events[i], "filter", filter, &err);
		if (!err)
			trace_event_write(tracefs, trace_events[i], "enable", "1", &err);
		if (err) {
			TH_LOG("%s: filter '%s' or enable: %s", trace_events[i], filter,
			       strerror(-err));
			return err;
		}
	}
	return 0;
}

/* "stop" for sched_hcbs_server_stop; "none" for NR_TRACE_EVENTS */
static const char *server_event_name(unsigned int i)
{
	static const char prefix[] = "sched_hcbs_server_";

	return i < NR_TRACE_EVENTS ? trace_events[i] + sizeof(prefix) - 1 : "none";
}

static void trace_disarm(const char *tracefs)
{
	unsigned int i;
	int err;

	for (i = 0; i < NR_TRACE_EVENTS; i++)
		trace_event_write(tracefs, trace_events[i], "enable", "0", &err);
}

/*
 * Count each server event in the trace buffer into @counts.  With @marker,
 * also say which server event (an index of trace_events[], NR_TRACE_EVENTS
 * for none) came last before the first line that holds @marker (@before)
 * and last of all (@last).  Returns 0 or -errno.
 */
static int trace_count(const char *tracefs, unsigned long *counts,
		       const char *marker, unsigned int *before, unsigned int *last)
{
	unsigned int i, ev_last = NR_TRACE_EVENTS, ev_before = NR_TRACE_EVENTS;
	char path[PATH_MAX], line[1024];
	bool marked = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", tracefs);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	memset(counts, 0, NR_TRACE_EVENTS * sizeof(*counts));
	while (fgets(line, sizeof(line), f)) {
		if (marker && !marked && strstr(line, marker)) {
			marked = true;
			ev_before = ev_last;
			continue;
		}
		for (i = 0; i < NR_TRACE_EVENTS; i++) {
			char tag[64];

			snprintf(tag, sizeof(tag), "%s:", trace_events[i]);
			if (strstr(line, tag)) {
				counts[i]++;
				ev_last = i;
			}
		}
	}
	fclose(f);
	if (before)
		*before = ev_before;
	if (last)
		*last = ev_last;
	return 0;
}

TEST_F_TIMEOUT(trace, server_events, 60)
{
	static const char *const fields[] = {
		" cgroup_id;", " cpu;", " runtime;", " deadline;",
		" dl_runtime;", " dl_period;",
	};
	char g[PATHLEN], path[PATH_MAX], fmt[4096];
	unsigned long counts[NR_TRACE_EVENTS];
	struct hcbs_hog *h;
	uint64_t id;
	unsigned int i, j;
	int err;

	if (!self->tracefs)
		SKIP(return, "no tracefs");
	for (i = 0; i < NR_TRACE_EVENTS; i++) {
		snprintf(path, sizeof(path), "%s/events/sched/%s/format",
			 self->tracefs, trace_events[i]);
		err = hcbs_read_file(path, fmt, sizeof(fmt));
		ASSERT_EQ(0, err) TH_LOG("no tracepoint %s: %s", trace_events[i],
					 strerror(-err));
		for (j = 0; j < sizeof(fields) / sizeof(fields[0]); j++) {
			bool has = strstr(fmt, fields[j]) != NULL;

			EXPECT_TRUE(has) TH_LOG("%s has no field%s", trace_events[i],
						fields[j]);
		}
	}

	hcbs_group(_metadata, &self->env, "g", 2000, 10000, g, sizeof(g));
	ASSERT_EQ(0, hcbs_cg_id(g, &id));
	ASSERT_EQ(0, trace_arm(_metadata, self->tracefs, id));
	h = hcbs_hog(_metadata, &self->env, g, HCBS_LOAD_CPU, SCHED_FIFO, HCBS_PRIO_GROUP);
	hcbs_sleep_ms(500);
	hcbs_hog_stop(h);
	/*
	 * A server stops when its last task leaves: at the hog's last
	 * switch-out if it had budget then, else at its replenishment.  500 ms
	 * cover a late timer under TCG.
	 */
	hcbs_sleep_ms(500);
	trace_disarm(self->tracefs);
	ASSERT_EQ(0, trace_count(self->tracefs, counts, NULL, NULL, NULL));
	for (i = 0; i < NR_TRACE_EVENTS; i++)
		hcbs_note("%s: %lu events for cgroup id %llu (group 2/10 ms, hog for 500 ms)",
			  trace_events[i], counts[i], (unsigned long long)id);
	EXPECT_GE(counts[0], 1);
	EXPECT_GE(counts[1], 1);
	EXPECT_GE(counts[2], 10);
	EXPECT_GE(counts[3], 10);
}

/*
 * A group's last task on a CPU leaves its server there, and the CPU goes
 * on with fair tasks only: the server must stop, not stay queued for a
 * pick that never comes (a CPU running only fair tasks skips the deadline
 * class), which would serve the group's next task there with a stale
 * deadline and keep the server's bandwidth and the tick.  The hog leaves
 * by becoming SCHED_OTHER, made so from this CPU: at 1/100 ms its server
 * is throttled then (it stops at its replenishment), at 80/100 ms it is
 * running (it stops as the hog is switched out).
 */
TEST_F_TIMEOUT(trace, idle_server_stops, 60)
{
	static const struct {
		const char *name;
		long long runtime_us, period_us;
	} cases[] = {
		{ "t", 1000, 100000 },
		{ "r", 80000, 100000 },
	};
	char g[PATHLEN], marker[PATH_MAX], msg[64];
	unsigned long counts[NR_TRACE_EVENTS];
	unsigned int c, before, last;
	uint64_t id;

	if (!self->tracefs)
		SKIP(return, "no tracefs");
	snprintf(marker, sizeof(marker), "%s/trace_marker", self->tracefs);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct hcbs_hog *h;

		hcbs_group(_metadata, &self->env, cases[c].name, cases[c].runtime_us,
			   cases[c].period_us, g, sizeof(g));
		ASSERT_EQ(0, hcbs_cg_id(g, &id));
		ASSERT_EQ(0, trace_arm(_metadata, self->tracefs, id));
		h = hcbs_hog(_metadata, &self->env, g, HCBS_LOAD_CPU, SCHED_FIFO,
			     HCBS_PRIO_GROUP);
		hcbs_sleep_ms(350);
		snprintf(msg, sizeof(msg), "hcbs-leave-%u", c);
		ASSERT_EQ(0, hcbs_write_str(marker, msg));
		ASSERT_EQ(0, hcbs_set_policy(h->pid, SCHED_OTHER, 0));
		/* Two periods: the replenishment comes within one. */
		hcbs_sleep_ms(2 * cases[c].period_us / 1000);
		trace_disarm(self->tracefs);
		ASSERT_EQ(0, trace_count(self->tracefs, counts, msg, &before, &last));
		hcbs_hog_stop(h);
		hcbs_note("group %lld/%lld us, its FIFO hog made SCHED_OTHER on CPU %d "
			  "when its server's last event was %s: %lu start, %lu stop, "
			  "%lu replenish, %lu throttle; last event %s",
			  cases[c].runtime_us, cases[c].period_us, HCBS_LOAD_CPU,
			  server_event_name(before), counts[0], counts[1], counts[2],
			  counts[3], server_event_name(last));
		EXPECT_GE(counts[1], 1) TH_LOG("the emptied server did not stop");
		EXPECT_EQ(1, last) TH_LOG("the last server event was %s, not stop",
					  server_event_name(last));
	}
}

static int cmp_s64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Spin for @us of CLOCK_MONOTONIC, read through the vDSO: not the thread's
 * CPU clock, whose every read enters the kernel and charges the server
 * (update_curr), which would throttle it to the us without any timer.
 */
static void spin_us(long long us)
{
	uint64_t end = hcbs_now_ns() + us * 1000;

	while (hcbs_now_ns() < end)
		;
}

/*
 * Two FIFO processes of one group on @cpu that hand a byte to each other
 * through two pipes for ever, each spinning @spin us before it passes
 * the byte on: every hand-over is a switch between two tasks of one
 * server.  They die with the test (PR_SET_PDEATHSIG).
 * Returns 0, with their pids in @pids, or -errno.
 */
static int pingpong_start(const char *cg, int cpu, long long spin, pid_t pids[2])
{
	int ab[2], ba[2], i, err = 0;

	if (pipe2(ab, O_CLOEXEC) || pipe2(ba, O_CLOEXEC))
		return -errno;
	for (i = 0; i < 2; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			err = -errno;
			break;
		}
		if (!pids[i]) {
			int in = i ? ab[0] : ba[0], out = i ? ba[1] : ab[1];
			char c = 0;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (hcbs_pin_cpu(0, cpu) || hcbs_cg_attach(cg, getpid()) ||
			    hcbs_set_policy(0, SCHED_FIFO, HCBS_PRIO_GROUP))
				_exit(1);
			if (!i && write(out, &c, 1) != 1)
				_exit(1);
			while (read(in, &c, 1) == 1) {
				spin_us(spin);
				if (write(out, &c, 1) != 1)
					break;
			}
			_exit(1);
		}
	}
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	if (err && i == 1) {
		kill(pids[0], SIGKILL);
		waitpid(pids[0], NULL, 0);
	}
	return err;
}

static void pingpong_stop(pid_t pids[2])
{
	int i;

	for (i = 0; i < 2; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

/* One run of trace.budget_overrun: what 2 s of a group at @q/@p gave. */
struct overrun_run {
	size_t n;		/* throttles seen */
	int64_t p50, p99, max;	/* overrun per period, ns */
	double share;
};

static void budget_overrun_run(struct __test_metadata *_metadata,
			       FIXTURE_DATA(trace) *self, long long q, long long p,
			       long long spin, const char *what, int64_t *over,
			       size_t cap, struct overrun_run *r)
{
	char g[PATHLEN], path[PATH_MAX], filter[64], line[1024], name[16];
	uint64_t id, c0, c1, t0, t1, v;
	struct hcbs_hog *h = NULL;
	pid_t pids[2];
	int err, j, np;
	FILE *f;

	snprintf(name, sizeof(name), "v%lld%s", p, spin ? "pp" : "");
	hcbs_group(_metadata, &self->env, name, q, p, g, sizeof(g));
	ASSERT_EQ(0, hcbs_cg_id(g, &id));
	snprintf(filter, sizeof(filter), "cgroup_id == %llu && cpu == %d",
		 (unsigned long long)id, HCBS_LOAD_CPU);
	trace_event_write(self->tracefs, "sched_hcbs_server_throttle", "filter", filter, &err);
	ASSERT_EQ(0, err) TH_LOG("filter '%s': %s", filter, strerror(-err));
	if (spin) {
		err = pingpong_start(g, HCBS_LOAD_CPU, spin, pids);
		ASSERT_EQ(0, err) TH_LOG("ping-pong: %s", strerror(-err));
		np = 2;
	} else {
		struct hcbs_hog_spec spec = {
			.cgroup = g, .cpu = HCBS_LOAD_CPU, .policy = SCHED_FIFO,
			.prio = HCBS_PRIO_GROUP, .quiet = true,
		};

		h = hcbs_spec_hog(_metadata, &self->env, &spec);
		pids[0] = h->pid;
		np = 1;
	}
	hcbs_sleep_ms(300);
	snprintf(path, sizeof(path), "%s/trace", self->tracefs);
	err = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ASSERT_LE(0, err) TH_LOG("open %s: %s", path, strerror(errno));
	close(err);
	for (c0 = 0, j = 0; j < np; j++, c0 += v)
		ASSERT_EQ(0, hcbs_schedstat_ns(pids[j], &v));
	t0 = hcbs_now_ns();
	trace_event_write(self->tracefs, "sched_hcbs_server_throttle", "enable", "1", &err);
	ASSERT_EQ(0, err);
	hcbs_sleep_ms(2000);
	trace_event_write(self->tracefs, "sched_hcbs_server_throttle", "enable", "0", &err);
	for (c1 = 0, j = 0; j < np; j++, c1 += v)
		ASSERT_EQ(0, hcbs_schedstat_ns(pids[j], &v));
	t1 = hcbs_now_ns();
	if (spin)
		pingpong_stop(pids);
	else
		hcbs_hog_stop(h);

	r->n = 0;
	f = fopen(path, "re");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f) && r->n < cap) {
		const char *x = strstr(line, "sched_hcbs_server_throttle:");
		long long runtime;

		if (!x || !(x = strstr(x, " runtime=")) || sscanf(x, " runtime=%lld", &runtime) != 1)
			continue;
		over[r->n++] = runtime < 0 ? -runtime : 0;
	}
	fclose(f);
	qsort(over, r->n, sizeof(*over), cmp_s64);
	r->share = (double)(c1 - c0) / (double)(t1 - t0);
	r->p50 = r->n ? over[r->n / 2] : 0;
	r->p99 = r->n ? over[r->n * 99 / 100] : 0;
	r->max = r->n ? over[r->n - 1] : 0;
	hcbs_note("%lld us every %lld us, %s on CPU %d for 2 s: share %.4f (Q/P %.4f), %zu throttles",
		  q, p, what, HCBS_LOAD_CPU, r->share, (double)q / p, r->n);
	hcbs_note("  overrun per period: p50 %.1f us, p99 %.1f us, max %.1f us (goal: 2%% of Q, %.1f us)",
		  r->p50 / 1e3, r->p99 / 1e3, r->max / 1e3, q * 0.02);
	trace_event_write(self->tracefs, "sched_hcbs_server_throttle", "filter", "0", &err);
	ASSERT_EQ(0, hcbs_cg_destroy(g));
}

/*
 * A FIFO process of @cg on @cpu that runs @jobs jobs of @spin us, one
 * every @period us, and exits.  Returns its pid or -errno.
 */
static pid_t periodic_start(const char *cg, int cpu, int jobs, long long spin,
			    long long period)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		uint64_t t;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (hcbs_pin_cpu(0, cpu) || hcbs_cg_attach(cg, getpid()) ||
		    hcbs_set_policy(0, SCHED_FIFO, HCBS_PRIO_GROUP))
			_exit(1);
		for (t = hcbs_now_ns(); jobs--; ) {
			spin_us(spin);
			t += period * 1000;
			hcbs_sleep_until_ns(t);
		}
		_exit(0);
	}
	return pid;
}

/* Run periodic_start() to its end; fails the test if it did not exit 0. */
static void periodic_run(struct __test_metadata *_metadata, const char *cg,
			 int cpu, int jobs, long long spin, long long period)
{
	pid_t pid = periodic_start(cg, cpu, jobs, spin, period);
	int status;

	ASSERT_LT(0, pid) TH_LOG("fork: %s", strerror(-pid));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("the periodic task of %s failed to set itself up (status %#x)", cg, status);
}

/*
 * @cpu's .running_bw and .this_bw in the sched debug file.  Fails the test
 * on a kernel that does not show them.
 */
static void dl_rq_bws(struct __test_metadata *_metadata, int cpu,
		      long long *running, long long *total)
{
	long long v[HCBS_MAX_CPUS];

	ASSERT_LT(cpu, hcbs_dl_rq_field("running_bw", v, HCBS_MAX_CPUS))
		TH_LOG("no .running_bw of CPU %d in the sched debug file", cpu);
	*running = v[cpu];
	ASSERT_LT(cpu, hcbs_dl_rq_field("this_bw", v, HCBS_MAX_CPUS))
		TH_LOG("no .this_bw of CPU %d in the sched debug file", cpu);
	*total = v[cpu];
}

/* @running is @want, plus the fair server's @fair if it is active. */
#define EXPECT_RUNNING_BW(running, want, fair, when)				\
	EXPECT_TRUE((running) == (want) || (running) == (want) + (fair))	\
		TH_LOG("%s: running_bw %lld, expected %lld (+ %lld if the fair server is active)", \
		       when, running, want, fair)

/*
 * A reserved group's server keeps its bandwidth active while the group
 * sleeps between jobs (in its runqueue's running_bw: GRUB's "active non
 * contending"), and takes it out only when the reservation changes or
 * goes; so no inactive timer is started and cancelled (or fired) per job.
 *
 * A FIFO task of a group at 20/100 ms runs 500 jobs of 100 us every 1 ms
 * on CPU 1.  Checked: (1) the deadline class's inactive timers started on
 * CPU 1 (timer:hrtimer_start with function inactive_task_timer) number
 * under a tenth of the jobs, the allowance being the fair server's (CFS
 * tasks come and go on CPU 1; a server that went inactive at every job
 * started one per job); (2) 300 ms after the last job, past any zero-lag
 * time, CPU 1's running_bw holds the group's Q/P and this_bw the group's
 * on top of what it held before; (3) a new cpu.rt.max (10/100) while the
 * group sleeps takes the old bandwidth out of both, and the next jobs put
 * the new one into running_bw; (4) without a reservation both are back to
 * what they were before the group.  running_bw may hold the fair server's
 * bandwidth or not at each reading: both are accepted.
 */
TEST_F_TIMEOUT(trace, idle_server_bandwidth, 60)
{
	const int cpu = HCBS_LOAD_CPU, jobs = 500;
	long long rb0, tb0, rb, tb, fq, fp, fair, g1, g2;
	char g[PATHLEN], path[PATH_MAX], line[1024];
	unsigned long inactive = 0;
	int err;
	FILE *f;

	if (!self->tracefs)
		SKIP(return, "no tracefs");
	hcbs_fair_server(cpu, &fq, &fp);
	fair = hcbs_bw(fq, fp);
	g1 = hcbs_bw(20 * HCBS_NSEC_PER_MSEC, 100 * HCBS_NSEC_PER_MSEC);
	g2 = hcbs_bw(10 * HCBS_NSEC_PER_MSEC, 100 * HCBS_NSEC_PER_MSEC);
	dl_rq_bws(_metadata, cpu, &rb0, &tb0);
	EXPECT_RUNNING_BW(rb0, 0LL, fair, "before the group");
	hcbs_group(_metadata, &self->env, "idle", 20000, 100000, g, sizeof(g));
	dl_rq_bws(_metadata, cpu, &rb, &tb);
	EXPECT_EQ(tb0 + g1, tb) TH_LOG("this_bw %lld with the group at 20/100 ms, %lld before", tb, tb0);

	snprintf(path, sizeof(path), "%s/trace", self->tracefs);
	err = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ASSERT_LE(0, err) TH_LOG("open %s: %s", path, strerror(errno));
	close(err);
	snprintf(path, sizeof(path), "%s/events/timer/hrtimer_start/enable", self->tracefs);
	err = hcbs_write_str(path, "1");
	ASSERT_EQ(0, err) TH_LOG("enable timer:hrtimer_start: %s", strerror(-err));
	periodic_run(_metadata, g, cpu, jobs, 100, 1000);
	hcbs_write_str(path, "0");
	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace", self->tracefs, cpu);
	f = fopen(path, "re");
	ASSERT_NE(NULL, f) TH_LOG("open %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		inactive += strstr(line, "hrtimer_start:") &&
			    strstr(line, " function=inactive_task_timer ");
	fclose(f);
	hcbs_note("%d jobs of 100 us every 1 ms in a group at 20/100 ms on CPU %d: %lu inactive timers started (at most %d)",
		  jobs, cpu, inactive, jobs / 10);
	EXPECT_LE(inactive, (unsigned long)jobs / 10)
		TH_LOG("the server went inactive at %lu of %d jobs", inactive, jobs);

	hcbs_sleep_ms(300);
	dl_rq_bws(_metadata, cpu, &rb, &tb);
	hcbs_note("CPU %d: running_bw %lld, this_bw %lld (before the group %lld, %lld; group %lld, fair server %lld)",
		  cpu, rb, tb, rb0, tb0, g1, fair);
	EXPECT_RUNNING_BW(rb, g1, fair, "300 ms after the group's last job");
	EXPECT_EQ(tb0 + g1, tb);

	ASSERT_EQ(0, hcbs_set_rt_max(g, 10000, 100000));
	dl_rq_bws(_metadata, cpu, &rb, &tb);
	EXPECT_RUNNING_BW(rb, 0LL, fair, "a new cpu.rt.max while the group sleeps");
	EXPECT_EQ(tb0 + g2, tb) TH_LOG("this_bw %lld at 10/100 ms", tb);
	periodic_run(_metadata, g, cpu, 20, 100, 1000);
	dl_rq_bws(_metadata, cpu, &rb, &tb);
	EXPECT_RUNNING_BW(rb, g2, fair, "after jobs at 10/100 ms");

	ASSERT_EQ(0, hcbs_set_rt_max(g, 0, 100000));
	dl_rq_bws(_metadata, cpu, &rb, &tb);
	EXPECT_RUNNING_BW(rb, 0LL, fair, "without a reservation");
	EXPECT_EQ(tb0, tb) TH_LOG("this_bw %lld without a reservation, %lld before the group", tb, tb0);
	ASSERT_EQ(0, hcbs_cg_destroy(g));
}

/*
 * 5G-slot periods: a FIFO hog in a group at 200 us every 1 ms, then every
 * 500 us and every 1.37 ms; then two FIFO processes of one group at 2.3 ms
 * every 10.3 ms that hand the CPU to each other every 1.9 ms (a pipe
 * ping-pong): every
 * period has a switch inside the server, after which the budget ends
 * neither at a switch nor at a tick, and the budget's timer is the one
 * kept armed across that switch.  Every period the group spends its
 * budget and is throttled; the runtime at the throttle
 * (sched_hcbs_server_throttle) is what the period overran (negative) or
 * left (CBS charges an overrun to the next periods).  The budget is
 * enforced by the hrtick (HRTICK_RT_GROUP): the overrun is the timer's
 * lateness, not a tick (1 ms here, 4 ms with Debian's HZ=250).
 *
 * The hog spins without entering the kernel (hcbs_hog_spec.quiet): only
 * interrupts charge its server, so without the hrtick only the tick
 * enforces the budget.  (The usual hog reads its thread's CPU clock after
 * every long step, each read a charge; under TCG, whose steps are often
 * long, that enforced the budget to ~0.1 ms without any timer.)
 *
 * Checked: the group is throttled in most periods and its share over 2 s
 * is Q/P; with the debugfs sched features, the hog at 200 us every
 * 1.37 ms (a period that drifts against the tick) runs again with the
 * hrtick off (enforced by the tick): the hrtick must at least halve the
 * median overrun (measured 0.22; the ping-pong is not compared: its
 * switches bound the overrun without the hrtick too) (a ratio,
 * not a latency: under TCG the timers themselves fire about 0.1 ms late);
 * off an emulator no period overran by a quarter of Q (the goal, 2% of
 * Q, is printed).
 */
TEST_F_TIMEOUT(trace, budget_overrun, 150)
{
	/*
	 * compare: run again with the hrtick off.  Only for periods that
	 * are no multiple of the tick: otherwise the budget ends at the
	 * same phase of the tick in every period, and what the tick leaves
	 * is one fixed value between 0 and a tick, decided by the run.
	 */
	static const struct {
		long long q, p, spin;	/* spin: us of a ping-pong, 0: a hog */
		bool compare;
	} cases[] = { { 200, 1000, 0, false }, { 200, 500, 0, false },
		      { 200, 1370, 0, true }, { 2300, 10300, 1900, false } };
	struct overrun_run on, off;
	bool features = !access(SCHED_FEATURES, W_OK), slow = hcbs_machine_slow();
	size_t cap = 1 << 16;
	unsigned int i;
	char what[48];
	int64_t *over;
	int err;

	if (!self->tracefs)
		SKIP(return, "no tracefs");
	over = calloc(cap, sizeof(*over));
	ASSERT_NE(NULL, over);
	if (!features)
		hcbs_note("no %s: the hrtick is not compared with the tick", SCHED_FEATURES);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long long q = cases[i].q, p = cases[i].p;

		if (cases[i].spin)
			snprintf(what, sizeof(what), "a ping-pong every %lld us", cases[i].spin);
		else
			snprintf(what, sizeof(what), "a FIFO hog");
		budget_overrun_run(_metadata, self, q, p, cases[i].spin, what, over, cap, &on);
		/*
		 * Most periods end in a throttle.  Under TCG a timer that fires
		 * milliseconds late is an overrun of many budgets, which CBS
		 * pays back with as many periods without a throttle.
		 */
		EXPECT_GE(on.n, slow ? 10 : (size_t)(2000 * 1000 / p / 4))
			TH_LOG("%zu throttles in 2 s of %lld us periods", on.n, p);
		/* CBS pays an overrun back: the share holds over the window */
		EXPECT_TRUE(hcbs_values_close(on.share, (double)q / p, slow ? 0.03 : 0.01))
			TH_LOG("share %.4f, Q/P %.4f (tolerance %.2f%s)", on.share, (double)q / p,
			       slow ? 0.03 : 0.01, slow ? ", wider under TCG for stalled vCPUs" : "");
		if (!slow && on.n)
			EXPECT_LE(on.max, q * 1000 / 4)
				TH_LOG("a period overran by %.1f us of a %lld us budget: enforced by the tick?",
				       on.max / 1e3, q);
		if (!features || !cases[i].compare)
			continue;
		ASSERT_EQ(0, hcbs_write_str(SCHED_FEATURES, "NO_HRTICK_RT_GROUP"));
		budget_overrun_run(_metadata, self, q, p, cases[i].spin, what, over, cap, &off);
		err = hcbs_write_str(SCHED_FEATURES, "HRTICK_RT_GROUP");
		ASSERT_EQ(0, err) TH_LOG("HRTICK_RT_GROUP back on: %s", strerror(-err));
		hcbs_note("  %s: median overrun %.1f us with the hrtick, %.1f us without (ratio %.2f, at most 0.50)",
			  what, on.p50 / 1e3, off.p50 / 1e3, off.p50 ? (double)on.p50 / off.p50 : 0);
		EXPECT_LE(on.p50 * 2, off.p50)
			TH_LOG("%s: the hrtick does not enforce the budget better than the tick", what);
	}
	free(over);
}

HCBS_TEST_MAIN
