// SPDX-License-Identifier: GPL-2.0
/*
 * HCBS coexistence: groups and SCHED_DEADLINE tasks share one admission
 * test (per root domain: sum of DL tasks + m * (groups + fair servers)
 * <= m * sched_rt_runtime_us / sched_rt_period_us) and run side by side;
 * root SCHED_FIFO tasks get what the servers leave; inside a group the
 * usual SCHED_FIFO / SCHED_RR rules pick the task.
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "hcbs_ksft.h"

#define PATHLEN 512
#define TOL 0.01

static const char *errname(int err)
{
	const char *n = err ? strerrorname_np(err < 0 ? -err : err) : NULL;

	return err ? (n ? n : "unknown errno") : "accepted";
}

FIXTURE(coexist) {
	struct hcbs_env env;
};

FIXTURE_SETUP(coexist)
{
	HCBS_ENV_SETUP(&self->env, "coexist");
}

FIXTURE_TEARDOWN_PARENT(coexist)
{
	HCBS_ENV_TEARDOWN(&self->env);
}

static struct hcbs_hog *dl_sleeper(struct __test_metadata *_metadata,
				   struct hcbs_env *env)
{
	struct hcbs_hog_spec spec = {
		.cpu = -1, .policy = SCHED_OTHER, .sleeper = true,
	};
	const char *step = "";
	struct hcbs_hog *h;
	int err;

	h = hcbs_env_hog(env, &spec, &err, &step);
	ASSERT_NE(NULL, h) TH_LOG("sleeper: %s: %s", step, strerror(-err));
	return h;
}

/* Set @pid to SCHED_DEADLINE with bandwidth @bw (runtime / 1 s). */
static int set_dl_bw(pid_t pid, double bw)
{
	uint64_t period = HCBS_NSEC_PER_SEC;

	return hcbs_set_deadline(pid, (uint64_t)(bw * period), period, period);
}

/*
 * A group's reservation counts, on every CPU, against SCHED_DEADLINE
 * admission, and a deadline task's against the group's.
 */
TEST_F(coexist, admission)
{
	double free_bw = hcbs_env_free_bw(&self->env), g_bw, dl_free, bw_fail,
	       bw_ok, g2_bw;
	int m = self->env.nr_cpus, err, i;
	struct hcbs_hog *dl;
	char g[PATHLEN], buf[64], before[64];
	long long q_us;

	if (free_bw < 0)
		SKIP(return, "no /sys/kernel/debug/sched/debug to read the free bandwidth from");
	/* Leave 0.1 per CPU, i.e. m * 0.1 for deadline tasks. */
	q_us = (long long)((free_bw - 0.1) * 100000);
	ASSERT_GT(q_us, 10000);
	g_bw = q_us / 100000.0;
	dl_free = m * (free_bw - g_bw);
	/*
	 * Margins wide enough that the outcome does not depend on whether
	 * the fair servers are in the root domain's total_bw (stock 6.12
	 * drops them there; iface.toplevel_sum checks the exact limit).
	 */
	bw_fail = dl_free + m * hcbs_fair_server_bw(0) + 0.05;
	bw_fail = bw_fail > 1.0 ? 1.0 : bw_fail;
	bw_ok = dl_free * 0.75;
	hcbs_note("%d CPUs, free per-CPU bandwidth %.4f; group %.4f leaves %.4f for deadline tasks",
		  m, free_bw, g_bw, dl_free);
	ASSERT_GT(bw_fail, dl_free + m * hcbs_fair_server_bw(0))
		TH_LOG("too many CPUs for a single task to overflow");

	hcbs_group(_metadata, &self->env, "g", q_us, 100000, g, sizeof(g));
	dl = dl_sleeper(_metadata, &self->env);
	err = set_dl_bw(dl->pid, bw_fail);
	hcbs_note("deadline task %.4f beside the group: %s (expected EBUSY)", bw_fail,
		  errname(err));
	EXPECT_EQ(-EBUSY, err);
	err = set_dl_bw(dl->pid, bw_ok);
	hcbs_note("deadline task %.4f beside the group: %s", bw_ok, errname(err));
	ASSERT_EQ(0, err);

	/*
	 * Now a group bandwidth that fits a CPU's own limit but not the root
	 * domain with the deadline task in it: m * g2 + bw_ok > m * limit.
	 */
	g2_bw = free_bw - 0.005;
	ASSERT_EQ(0, hcbs_cg_read(g, "cpu.rt.max", before, sizeof(before)));
	snprintf(buf, sizeof(buf), "%lld 100000", (long long)(g2_bw * 100000));
	err = hcbs_cg_write(g, "cpu.rt.max", "%s", buf);
	hcbs_note("group raised to %s beside the %.4f deadline task: %s (expected EBUSY)",
		  buf, bw_ok, errname(err));
	EXPECT_EQ(-EBUSY, err);
	ASSERT_EQ(0, hcbs_cg_read(g, "cpu.rt.max", buf, sizeof(buf)));
	EXPECT_STREQ(before, buf);

	/* Unreserving the group frees the room at once. */
	ASSERT_EQ(0, hcbs_cg_write(g, "cpu.rt.max", "max"));
	err = set_dl_bw(dl->pid, bw_fail);
	hcbs_note("deadline task %.4f with the group unreserved: %s", bw_fail, errname(err));
	EXPECT_EQ(0, err);
	/* ... and the other way round. */
	snprintf(buf, sizeof(buf), "%lld 100000", q_us);
	err = hcbs_cg_write(g, "cpu.rt.max", "%s", buf);
	hcbs_note("group back to %s beside the %.4f deadline task: %s (expected EBUSY)",
		  buf, bw_fail, errname(err));
	EXPECT_EQ(-EBUSY, err);
	hcbs_hog_stop(dl);
	/*
	 * A deadline task's bandwidth is released at its 0-lag time after it
	 * exits, up to one of its periods later: retry for a while.
	 */
	for (i = 0; i < 100; i++) {
		err = hcbs_cg_write(g, "cpu.rt.max", "%s", buf);
		if (err != -EBUSY)
			break;
		hcbs_sleep_ms(20);
	}
	EXPECT_EQ(0, err) TH_LOG("group %s once the deadline task exited: %s", buf,
				 errname(err));
}

/* A running SCHED_DEADLINE task and a group both get their bandwidth. */
TEST_F_TIMEOUT(coexist, deadline_task_beside_group, 60)
{
	unsigned int window_ms = hcbs_window_ms(3000);
	struct hcbs_hog *dl;
	double share[2];
	char g[PATHLEN];
	pid_t pids[2];
	int err;

	hcbs_group(_metadata, &self->env, "g", 30000, 100000, g, sizeof(g));
	pids[0] = hcbs_hog(_metadata, &self->env, g, HCBS_LOAD_CPU, SCHED_FIFO,
			   HCBS_PRIO_GROUP)->pid;
	hcbs_hog(_metadata, &self->env, NULL, HCBS_LOAD_CPU, SCHED_FIFO,
		 HCBS_PRIO_ROOT_HOG);
	/* Deadline tasks cannot be pinned: this one may run on any CPU. */
	dl = hcbs_hog(_metadata, &self->env, NULL, -1, SCHED_OTHER, 0);
	err = hcbs_set_deadline(dl->pid, 10 * HCBS_NSEC_PER_MSEC,
				50 * HCBS_NSEC_PER_MSEC, 50 * HCBS_NSEC_PER_MSEC);
	ASSERT_EQ(0, err) TH_LOG("SCHED_DEADLINE 10/50 ms: %s", errname(err));
	pids[1] = dl->pid;
	hcbs_sleep_ms(300);
	hcbs_note("window %u ms: group 30/100 ms on CPU %d, SCHED_DEADLINE 10/50 ms busy loop on any CPU",
		  window_ms, HCBS_LOAD_CPU);
	ASSERT_EQ(0, hcbs_measure_shares(pids, 2, window_ms, share));
	hcbs_check_share(_metadata, "group 30/100", share[0], 0.3, TOL);
	hcbs_check_share(_metadata, "SCHED_DEADLINE 10/50", share[1], 0.2, TOL);
}

/*
 * A deadline task's bandwidth stays reserved until its 0-lag time after it
 * exits or leaves SCHED_DEADLINE.  A rebuild of the root domains in that
 * window (on 6.12 any access to sched_rt_runtime_us is one) must keep it,
 * and its release must not then take it away a second time: either would
 * leave the root domain's total_bw below what is really reserved, and
 * admission would overbook every CPU by that much.
 */
TEST_F_TIMEOUT(coexist, dl_bw_across_rebuild, 90)
{
	static const char *sysctl = "/proc/sys/kernel/sched_rt_runtime_us";
	/* 40/100 ms: killed while it runs, its 0-lag time is ahead. */
	const uint64_t q = 40 * HCBS_NSEC_PER_MSEC, p = 100 * HCBS_NSEC_PER_MSEC;
	const long long task_bw = (long long)((q << HCBS_BW_SHIFT) / p);
	const int rounds = 12;
	int round, cpu, held = 0, bad = 0;
	long long v, b0, b1, bw[HCBS_MAX_CPUS];
	struct hcbs_hog *dl;

	if (!self->env.nr_bw)
		SKIP(return, "no dl_bw->total_bw in /sys/kernel/debug/sched/debug");
	for (round = 0; round < 2 * rounds; round++) {
		bool by_exit = round % 2 == 0;
		const char *how = by_exit ? "exited" : "left SCHED_DEADLINE";

		dl = hcbs_hog(_metadata, &self->env, NULL, -1, SCHED_OTHER, 0);
		ASSERT_EQ(0, hcbs_set_deadline(dl->pid, q, p, p));
		/* Vary the phase in the task's period. */
		hcbs_sleep_ms(30 + round * 17 % 100);
		if (by_exit)
			hcbs_hog_stop(dl);
		else
			ASSERT_EQ(0, hcbs_set_policy(dl->pid, SCHED_OTHER, 0));
		/* Rebuild at once, while the release may still be pending. */
		ASSERT_EQ(0, hcbs_read_long(sysctl, &v));
		/* Still held after the rebuild: it kept the bandwidth. */
		if (hcbs_dl_total_bw(bw, HCBS_MAX_CPUS) > 0 &&
		    bw[0] == self->env.bw0[0] + task_bw)
			held++;
		cpu = hcbs_env_bw_leak(&self->env, 1000, &b0, &b1);
		if (cpu >= 0) {
			hcbs_note("round %d: task %s: CPU %d total_bw %lld, expected %lld (%+.4f of a task)",
				  round, how, cpu, b1, b0, (double)(b1 - b0) / task_bw);
			bad++;
			/* The next rebuild recomputes it: no carry-over. */
		}
		hcbs_hog_stop(dl);
	}
	hcbs_note("%d rounds (task exited / left the class in turn): bandwidth kept across the rebuild in %d, wrong after it in %d",
		  2 * rounds, held, bad);
	EXPECT_EQ(0, bad);
	/* Otherwise no rebuild came while a release was pending. */
	EXPECT_GT(held + bad, 0);
	/* The last rebuild above already restored total_bw on a bad kernel. */
	ASSERT_EQ(0, hcbs_read_long(sysctl, &v));
}

/* Root FIFO tasks have no reservation but still get the leftover. */
TEST_F_TIMEOUT(coexist, root_fifo_gets_leftover, 60)
{
	unsigned int window_ms = hcbs_window_ms(3000);
	double share[2];
	char g[PATHLEN];
	pid_t pids[2];

	hcbs_group(_metadata, &self->env, "g", 30000, 100000, g, sizeof(g));
	pids[0] = hcbs_hog(_metadata, &self->env, g, HCBS_LOAD_CPU, SCHED_FIFO,
			   HCBS_PRIO_GROUP)->pid;
	pids[1] = hcbs_hog(_metadata, &self->env, NULL, HCBS_LOAD_CPU, SCHED_FIFO,
			   HCBS_PRIO_ROOT_HOG)->pid;
	hcbs_sleep_ms(300);
	hcbs_note("window %u ms on CPU %d: group 30/100 ms FIFO hog, root FIFO %d hog, no CFS load",
		  window_ms, HCBS_LOAD_CPU, HCBS_PRIO_ROOT_HOG);
	ASSERT_EQ(0, hcbs_measure_shares(pids, 2, window_ms, share));
	hcbs_check_share(_metadata, "group 30/100", share[0], 0.3, TOL);
	hcbs_note("root FIFO hog: share %.4f (expected >= 0.60: 0.70 minus what CFS needs)",
		  share[1]);
	EXPECT_GE(share[1], 0.60);
}

/* Inside a group, a higher-priority FIFO task starves a lower one. */
TEST_F_TIMEOUT(coexist, fifo_priority_in_group, 60)
{
	unsigned int window_ms = hcbs_window_ms(3000);
	struct hcbs_hog *hi, *lo;
	double share[2];
	char g[PATHLEN];
	pid_t pids[2];

	hcbs_group(_metadata, &self->env, "g", 30000, 100000, g, sizeof(g));
	lo = hcbs_hog(_metadata, &self->env, g, HCBS_LOAD_CPU, SCHED_FIFO, 10);
	hi = hcbs_hog(_metadata, &self->env, g, HCBS_LOAD_CPU, SCHED_FIFO, 20);
	hcbs_hog(_metadata, &self->env, NULL, HCBS_LOAD_CPU, SCHED_FIFO,
		 HCBS_PRIO_ROOT_HOG);
	pids[0] = hi->pid;
	pids[1] = lo->pid;
	hcbs_sleep_ms(300);
	hcbs_note("window %u ms on CPU %d: group 30/100 ms with FIFO 20 and FIFO 10 hogs, root FIFO %d hog",
		  window_ms, HCBS_LOAD_CPU, HCBS_PRIO_ROOT_HOG);
	ASSERT_EQ(0, hcbs_measure_shares(pids, 2, window_ms, share));
	hcbs_check_share(_metadata, "FIFO 20 in group 30/100", share[0], 0.3, TOL);
	hcbs_check_share(_metadata, "FIFO 10 in group 30/100", share[1], 0.0, 0.005);

	/* With the high one gone, the low one gets the whole budget. */
	hcbs_hog_stop(hi);
	hcbs_sleep_ms(300);
	ASSERT_EQ(0, hcbs_measure_shares(&pids[1], 1, window_ms, &share[1]));
	hcbs_check_share(_metadata, "FIFO 10 alone in group 30/100", share[1], 0.3, TOL);
}

/* SCHED_RR tasks of one priority share the group's budget. */
TEST_F_TIMEOUT(coexist, rr_in_group, 60)
{
	unsigned int window_ms = hcbs_window_ms(6000);
	double share[2];
	char g[PATHLEN];
	pid_t pids[2];

	hcbs_group(_metadata, &self->env, "g", 30000, 100000, g, sizeof(g));
	pids[0] = hcbs_hog(_metadata, &self->env, g, HCBS_LOAD_CPU, SCHED_RR, 10)->pid;
	pids[1] = hcbs_hog(_metadata, &self->env, g, HCBS_LOAD_CPU, SCHED_RR, 10)->pid;
	hcbs_hog(_metadata, &self->env, NULL, HCBS_LOAD_CPU, SCHED_FIFO,
		 HCBS_PRIO_ROOT_HOG);
	hcbs_sleep_ms(300);
	hcbs_note("window %u ms on CPU %d: group 30/100 ms with two SCHED_RR 10 hogs (100 ms slices)",
		  window_ms, HCBS_LOAD_CPU);
	ASSERT_EQ(0, hcbs_measure_shares(pids, 2, window_ms, share));
	/* Each gets whole 100 ms slices: +- one slice over the window. */
	hcbs_check_share(_metadata, "RR task 1", share[0], 0.15, 0.03);
	hcbs_check_share(_metadata, "RR task 2", share[1], 0.15, 0.03);
	hcbs_check_share(_metadata, "both RR tasks", share[0] + share[1], 0.3, TOL);
}

HCBS_TEST_MAIN
