// SPDX-License-Identifier: GPL-2.0
/*
 * Baseline: SCHED_DEADLINE admission control works on the hcbs kernel.
 *
 * The Hierarchical CBS builds on the deadline class's bandwidth accounting,
 * so before any HCBS change this must hold: a modest reservation is
 * admitted, and reservations beyond the root domain's limit
 * (sched_rt_runtime_us / sched_rt_period_us of every CPU, minus the fair
 * servers' share) are refused with EBUSY.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sched_attr.h"

#define MSEC 1000000ULL

static int set_deadline(uint64_t runtime, uint64_t deadline, uint64_t period)
{
	return hcbs_sched_setattr(0, SCHED_DEADLINE, runtime, deadline, period);
}

static int set_normal(void)
{
	return hcbs_sched_setattr(0, SCHED_OTHER, 0, 0, 0);
}

static long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* A 1 ms / 10 ms reservation (10 % of one CPU) is admitted and released. */
TEST(admit_1ms_10ms)
{
	int ret = set_deadline(1 * MSEC, 10 * MSEC, 10 * MSEC);

	if (ret == -EPERM)
		SKIP(return, "sched_setattr needs CAP_SYS_NICE");
	ASSERT_EQ(0, ret) TH_LOG("sched_setattr(1ms/10ms): %s", strerror(-ret));
	ASSERT_EQ(SCHED_DEADLINE, sched_getscheduler(0));
	ASSERT_EQ(0, set_normal());
	ASSERT_EQ(SCHED_OTHER, sched_getscheduler(0));
}

/* Parameters that break runtime <= deadline <= period are invalid, not busy. */
TEST(reject_runtime_over_period)
{
	int ret = set_deadline(11 * MSEC, 10 * MSEC, 10 * MSEC);

	if (ret == -EPERM)
		SKIP(return, "sched_setattr needs CAP_SYS_NICE");
	ASSERT_EQ(-EINVAL, ret);
}

/*
 * Children each reserve a whole CPU (10 ms / 10 ms) and then sleep, which
 * keeps their bandwidth allocated without using any CPU.  Admission must
 * stop with EBUSY before the total exceeds the root domain's limit.
 */
TEST(overcommit_refused_ebusy)
{
	long rt_runtime = read_long("/proc/sys/kernel/sched_rt_runtime_us");
	long rt_period = read_long("/proc/sys/kernel/sched_rt_period_us");
	int ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	int max_tasks = ncpus + 1, admitted = 0, err = 0, i;
	pid_t pids[64];
	int go[2];

	ASSERT_GT(ncpus, 0);
	ASSERT_LT(max_tasks, 64);
	ASSERT_GT(rt_period, 0);
	if (rt_runtime < 0)
		SKIP(return, "sched_rt_runtime_us is -1: admission control is off");
	printf("# %d CPUs, limit %ld/%ld us per CPU\n", ncpus, rt_runtime, rt_period);
	ASSERT_EQ(0, pipe(go));

	for (i = 0; i < max_tasks; i++) {
		int st[2], ret;

		ASSERT_EQ(0, pipe(st));
		pids[i] = fork();
		ASSERT_GE(pids[i], 0);
		if (pids[i] == 0) {
			char c;

			close(go[1]);
			ret = set_deadline(10 * MSEC, 10 * MSEC, 10 * MSEC);
			if (write(st[1], &ret, sizeof(ret)) != sizeof(ret))
				_exit(2);
			if (ret == 0)	/* hold the reservation until released */
				while (read(go[0], &c, 1) < 0 && errno == EINTR)
					;
			_exit(0);
		}
		close(st[1]);
		ASSERT_EQ(sizeof(ret), read(st[0], &ret, sizeof(ret)));
		close(st[0]);
		if (ret) {
			err = ret;
			waitpid(pids[i], NULL, 0);
			break;
		}
		admitted++;
	}
	close(go[1]);	/* release the holders */
	for (i = 0; i < admitted; i++)
		waitpid(pids[i], NULL, 0);
	close(go[0]);

	printf("# admitted %d reservations of 100%% of a CPU on %d CPUs, then %s\n",
	       admitted, ncpus, err ? strerror(-err) : "no refusal");
	if (err == -EPERM && admitted == 0)
		SKIP(return, "sched_setattr needs CAP_SYS_NICE");
	ASSERT_EQ(-EBUSY, err) TH_LOG("admission did not stop with EBUSY");
	/* Admitted bandwidth never exceeds the limit... */
	ASSERT_LE((long)admitted * rt_period, (long)ncpus * rt_runtime);
	/*
	 * ...and is not absurdly low: with the default 95 % limit (less the
	 * fair servers' 5 %) a whole CPU fits whenever there are two.
	 */
	if (ncpus >= 2 && rt_runtime * 20 >= rt_period * 19)
		ASSERT_GE(admitted, 1);

	/* The released bandwidth is available again. */
	ASSERT_EQ(0, set_deadline(1 * MSEC, 10 * MSEC, 10 * MSEC));
	ASSERT_EQ(0, set_normal());
}

TEST_HARNESS_MAIN
