// SPDX-License-Identifier: GPL-2.0
/*
 * HCBS on cgroup v1: the legacy cpu.rt_runtime_us / cpu.rt_period_us
 * files of the cpu controller have the same meaning as on v2 (a
 * per-CPU deadline server of runtime / period for the group's RT tasks).
 *
 * The cpu controller can be mounted on a v1 hierarchy only while nothing
 * has it enabled on cgroup v2 (no "cpu" in any cgroup.subtree_control).
 * The v2 suites give it back when they finish.  If something else enabled
 * it at the root, the test releases it for its own duration (and enables
 * it again after) only inside the QEMU guest of scripts/vm-run ($HCBS_ACCEL
 * set) and only if no cgroup below the root enables it further; otherwise
 * it skips, saying why.
 */
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "hcbs_ksft.h"

#define PATHLEN 512
#define TOL 0.01

static const char *errname(int err)
{
	const char *n = err ? strerrorname_np(err < 0 ? -err : err) : NULL;

	return err ? (n ? n : "unknown errno") : "accepted";
}

FIXTURE(v1) {
	struct hcbs_env hogs;		/* only its hog table is used */
	char mnt[PATHLEN];		/* v1 cpu hierarchy */
	bool mounted;
	bool v2_cpu_released;		/* we wrote -cpu at the v2 root */
	int nr_bw;
	long long bw0[HCBS_MAX_CPUS];
};

#define GROUP_PREFIX "hcbs-test-v1-"

/* Remove every group of ours (GROUP_PREFIX*) below the v1 root @mnt. */
static void remove_groups(const char *mnt)
{
	char path[PATHLEN + 256];
	struct dirent *de;
	DIR *d = opendir(mnt);

	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, GROUP_PREFIX, strlen(GROUP_PREFIX)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", mnt, de->d_name);
		hcbs_cg_destroy(path);
	}
	if (d)
		closedir(d);
}

/* Give the cpu controller back to cgroup v2 if we took it. */
static void v2_cpu_restore(FIXTURE_DATA(v1) *self)
{
	uint64_t end = hcbs_now_ns() + 30 * HCBS_NSEC_PER_SEC;

	if (!self->v2_cpu_released)
		return;
	/* The v1 hierarchy is released asynchronously after umount. */
	while (hcbs_cg_write(hcbs_cg_root(), "cgroup.subtree_control", "+cpu") &&
	       hcbs_now_ns() < end)
		hcbs_sleep_ms(50);
	self->v2_cpu_released = false;
}

FIXTURE_SETUP(v1)
{
	uint64_t end;
	int err = 0;

	memset(&self->hogs, 0, sizeof(self->hogs));
	self->hogs.nr_cpus = hcbs_nr_cpus();
	if (self->hogs.nr_cpus < 2)
		SKIP(return, "not enough CPUs (run the guest with --cpus 2)");
	ASSERT_EQ(0, hcbs_pin_cpu(0, HCBS_CTL_CPU));
	/* What a v2 test killed by its timeout left would pin cpu to v2. */
	hcbs_remove_stale_groups();
	if (hcbs_cg_has_word(hcbs_cg_root(), "cgroup.subtree_control", "cpu")) {
		if (!getenv("HCBS_ACCEL"))
			SKIP(return, "the cpu controller is enabled on cgroup v2 (%s/cgroup.subtree_control), so it cannot be mounted on v1; outside the test guest it is not released",
			     hcbs_cg_root());
		err = hcbs_cg_write(hcbs_cg_root(), "cgroup.subtree_control", "-cpu");
		if (err)
			SKIP(return, "the cpu controller is in use on cgroup v2 and cannot be released for a v1 mount (%s)",
			     strerror(-err));
		hcbs_note("v1: released the cpu controller from cgroup v2 for this test");
		self->v2_cpu_released = true;
		err = 0;
	}
	self->nr_bw = hcbs_dl_total_bw(self->bw0, HCBS_MAX_CPUS);
	snprintf(self->mnt, sizeof(self->mnt), "%s/v1cpu", hcbs_tmp_dir());
	ASSERT_TRUE(mkdir(self->mnt, 0755) == 0 || errno == EEXIST);
	/* Controller state left on v2 is released asynchronously (RCU). */
	end = hcbs_now_ns() + 10 * HCBS_NSEC_PER_SEC;
	while (mount("none", self->mnt, "cgroup", 0, "cpu")) {
		err = errno;
		if (err != EBUSY || hcbs_now_ns() > end)
			break;
		hcbs_sleep_ms(50);
	}
	if (err) {
		v2_cpu_restore(self);
		if (err != EBUSY)
			ASSERT_EQ(0, err) TH_LOG("mount -t cgroup -o cpu: %s", strerror(err));
		SKIP(return, "cannot mount the cpu controller on cgroup v1 (EBUSY for 10 s: cpu groups of cgroup v2 are still alive, or cpu is bound to v2 in this boot)");
	}
	self->mounted = true;
	/*
	 * The groups sit right below the v1 root, as legacy users put them:
	 * a group between would need a reservation of its own first.
	 */
	remove_groups(self->mnt);
	if (!hcbs_cg_has_file(self->mnt, "cpu.rt_runtime_us")) {
		hcbs_cg1_umount(self->mnt, 30000);
		v2_cpu_restore(self);
		ASSERT_TRUE(false) TH_LOG("no cpu.rt_runtime_us on v1: kernel without CONFIG_RT_GROUP_SCHED?");
	}
}

FIXTURE_TEARDOWN_PARENT(v1)
{
	long long bw[HCBS_MAX_CPUS];
	uint64_t end = hcbs_now_ns() + 3 * HCBS_NSEC_PER_SEC;
	int cpu, bad, n, err;

	hcbs_env_teardown(&self->hogs);
	if (!self->mounted) {
		v2_cpu_restore(self);
		return;
	}
	remove_groups(self->mnt);
	err = hcbs_cg1_umount(self->mnt, 30000);
	EXPECT_EQ(0, err) TH_LOG("the v1 cpu hierarchy did not go away after umount (%s): cgroup v2 cannot use the cpu controller for the rest of this boot",
				 strerror(-err));
	v2_cpu_restore(self);
	if (self->nr_bw <= 0)
		return;
	do {
		n = hcbs_dl_total_bw(bw, HCBS_MAX_CPUS);
		for (bad = -1, cpu = 0; cpu < self->nr_bw && bad < 0; cpu++)
			if (n <= cpu || bw[cpu] != self->bw0[cpu])
				bad = cpu;
		if (bad >= 0)
			hcbs_sleep_ms(20);
	} while (bad >= 0 && hcbs_now_ns() < end);
	EXPECT_EQ(-1, bad) TH_LOG("reserved bandwidth leaked on CPU %d: %lld before, %lld after",
				  bad, self->bw0[bad < 0 ? 0 : bad], bw[bad < 0 ? 0 : bad]);
}

static void v1_group(struct __test_metadata *_metadata, const char *top,
		     const char *name, long long q_us, long long p_us, char *out,
		     size_t len)
{
	int err;

	ASSERT_EQ(0, hcbs_cg_path(out, len, top, name));
	ASSERT_EQ(0, hcbs_cg_create(out));
	err = hcbs_cg_write(out, "cpu.rt_period_us", "%lld", p_us);
	ASSERT_EQ(0, err) TH_LOG("%s: cpu.rt_period_us %lld: %s", name, p_us, errname(err));
	err = hcbs_cg_write(out, "cpu.rt_runtime_us", "%lld", q_us);
	ASSERT_EQ(0, err) TH_LOG("%s: cpu.rt_runtime_us %lld: %s", name, q_us, errname(err));
}

static void expect_v1(struct __test_metadata *_metadata, const char *cg,
		      const char *runtime, const char *period)
{
	char buf[64];

	ASSERT_EQ(0, hcbs_cg_read(cg, "cpu.rt_runtime_us", buf, sizeof(buf)));
	EXPECT_STREQ(runtime, buf);
	ASSERT_EQ(0, hcbs_cg_read(cg, "cpu.rt_period_us", buf, sizeof(buf)));
	EXPECT_STREQ(period, buf);
}

static void expect_v1_fails(struct __test_metadata *_metadata, const char *cg,
			    const char *file, const char *val, int want)
{
	char r0[64], p0[64];
	int err;

	ASSERT_EQ(0, hcbs_cg_read(cg, "cpu.rt_runtime_us", r0, sizeof(r0)));
	ASSERT_EQ(0, hcbs_cg_read(cg, "cpu.rt_period_us", p0, sizeof(p0)));
	err = hcbs_cg_write(cg, file, "%s", val);
	hcbs_note("v1: write '%s' to %s: %s (expected %s)", val, file, errname(err),
		  errname(want));
	EXPECT_EQ(-want, err);
	expect_v1(_metadata, cg, r0, p0);
}

/* The legacy files: values, limits, errors. */
TEST_F(v1, files)
{
	char g[PATHLEN], r[64], p[64];

	ASSERT_EQ(0, hcbs_cg_path(g, sizeof(g), self->mnt, GROUP_PREFIX "g"));
	ASSERT_EQ(0, hcbs_cg_create(g));
	ASSERT_EQ(0, hcbs_cg_read(g, "cpu.rt_runtime_us", r, sizeof(r)));
	ASSERT_EQ(0, hcbs_cg_read(g, "cpu.rt_period_us", p, sizeof(p)));
	hcbs_note("v1: new group: cpu.rt_runtime_us %s, cpu.rt_period_us %s", r, p);

	ASSERT_EQ(0, hcbs_cg_write(g, "cpu.rt_period_us", "100000"));
	ASSERT_EQ(0, hcbs_cg_write(g, "cpu.rt_runtime_us", "30000"));
	expect_v1(_metadata, g, "30000", "100000");
	ASSERT_EQ(0, hcbs_cg_write(g, "cpu.rt_period_us", "50000"));
	expect_v1(_metadata, g, "30000", "50000");
	expect_v1_fails(_metadata, g, "cpu.rt_runtime_us", "60000", EINVAL);
	expect_v1_fails(_metadata, g, "cpu.rt_runtime_us", "abc", EINVAL);
	expect_v1_fails(_metadata, g, "cpu.rt_period_us", "20000", EINVAL);
	expect_v1_fails(_metadata, g, "cpu.rt_period_us", "99", EINVAL);
	expect_v1_fails(_metadata, g, "cpu.rt_period_us", "5000000", EINVAL);
	expect_v1_fails(_metadata, g, "cpu.rt_period_us", "0", EINVAL);
	ASSERT_EQ(0, hcbs_cg_write(g, "cpu.rt_runtime_us", "-1"));
	expect_v1(_metadata, g, "-1", "50000");
	ASSERT_EQ(0, hcbs_cg_write(g, "cpu.rt_runtime_us", "0"));
	expect_v1(_metadata, g, "0", "50000");
}

/* Admission: siblings against the global limit, children against parents. */
TEST_F(v1, admission)
{
	char a[PATHLEN], b[PATHLEN], c[PATHLEN], buf[32];
	double free_bw = hcbs_free_bw(self->hogs.nr_cpus);
	long long qa, qb;

	if (free_bw < 0)
		free_bw = hcbs_rt_global_bw() - hcbs_fair_server_bw(0);
	hcbs_note("v1: free per-CPU bandwidth for groups %.4f", free_bw);
	qa = (long long)(free_bw * 0.6 * 100000);
	qb = (long long)(free_bw * 100000) - qa;

	v1_group(_metadata, self->mnt, GROUP_PREFIX "a", qa, 100000, a, sizeof(a));
	ASSERT_EQ(0, hcbs_cg_path(b, sizeof(b), self->mnt, GROUP_PREFIX "b"));
	ASSERT_EQ(0, hcbs_cg_create(b));
	ASSERT_EQ(0, hcbs_cg_write(b, "cpu.rt_period_us", "100000"));
	snprintf(buf, sizeof(buf), "%lld", qb + 2000);
	expect_v1_fails(_metadata, b, "cpu.rt_runtime_us", buf, EBUSY);
	snprintf(buf, sizeof(buf), "%lld", qb - 2000);
	ASSERT_EQ(0, hcbs_cg_write(b, "cpu.rt_runtime_us", "%s", buf));

	/* A child of a fits in a's reservation, not beyond. */
	ASSERT_EQ(0, hcbs_cg_path(c, sizeof(c), a, "c"));
	ASSERT_EQ(0, hcbs_cg_create(c));
	ASSERT_EQ(0, hcbs_cg_write(c, "cpu.rt_period_us", "100000"));
	snprintf(buf, sizeof(buf), "%lld", qa + 1000);
	expect_v1_fails(_metadata, c, "cpu.rt_runtime_us", buf, EBUSY);
	snprintf(buf, sizeof(buf), "%lld", qa / 2);
	ASSERT_EQ(0, hcbs_cg_write(c, "cpu.rt_runtime_us", "%s", buf));
	snprintf(buf, sizeof(buf), "%lld", qa / 4);
	expect_v1_fails(_metadata, a, "cpu.rt_runtime_us", buf, EBUSY);
}

/* A v1 group's FIFO hog gets its share beside a higher-priority root hog. */
TEST_F_TIMEOUT(v1, share, 60)
{
	unsigned int window_ms = hcbs_window_ms(3000);
	char g[PATHLEN];
	double share;
	struct hcbs_hog *h;
	int err;

	v1_group(_metadata, self->mnt, GROUP_PREFIX "g", 30000, 100000, g, sizeof(g));
	h = hcbs_hog(_metadata, &self->hogs, g, HCBS_LOAD_CPU, SCHED_FIFO,
		     HCBS_PRIO_GROUP);
	hcbs_hog(_metadata, &self->hogs, NULL, HCBS_LOAD_CPU, SCHED_FIFO,
		 HCBS_PRIO_ROOT_HOG);
	hcbs_sleep_ms(300);
	hcbs_note("v1: window %u ms on CPU %d: group 30/100 ms FIFO hog, root FIFO %d hog",
		  window_ms, HCBS_LOAD_CPU, HCBS_PRIO_ROOT_HOG);
	ASSERT_EQ(0, hcbs_measure_shares(&h->pid, 1, window_ms, &share));
	hcbs_check_share(_metadata, "v1 group 30/100", share, 0.3, TOL);

	/* Runtime 0 is refused while the group holds an RT task. */
	expect_v1_fails(_metadata, g, "cpu.rt_runtime_us", "0", EBUSY);
	hcbs_hog_stop(h);
	err = hcbs_cg_write(g, "cpu.rt_runtime_us", "0");
	EXPECT_EQ(0, err) TH_LOG("runtime 0 once the task is gone: %s", errname(err));
}

HCBS_TEST_MAIN
