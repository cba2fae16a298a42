// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler's work for a reserved group's task does not grow with the
 * number of reserved groups.  Two unpinned SCHED_FIFO tasks of one group
 * hand a token back and forth over pipes (each hand-off a wake-up, a
 * switch-out and the push/pull checks of global fixed priority inside the
 * group), beside 0, 15 and 255 other reserved groups; the CPU time the
 * pair spends per round trip, kernel time included, must stay flat.
 * A balancer that walks the groups on a wake-up or a switch (the series'
 * earlier irq_work one did, at every preemption and throttle) shows up
 * here as a cost that grows with them.
 *
 * On the virtual clock one guest instruction is one nanosecond, so the
 * figure is the instructions a round trip executes and no cache or host
 * noise moves it; on the host's clock under TCG the test skips
 * (KSFT_MACHINE_SLOW), on hardware it runs with a wider allowance.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "kselftest_harness.h"
#include "hcbs_ksft.h"

#define PATHLEN		512
#define ROUNDS		10000
#define REPEAT		5
#define VICTIM_RUN_US	200
#define VICTIM_SLEEP_US	300
#define IDLE_MAX	255
#define NPOINTS		3

/* The idle groups: 100 us every 100 ms, 0.255 of each CPU for 255. */
#define IDLE_Q_US	100
#define IDLE_P_US	100000

FIXTURE(scale) {
	struct hcbs_env env;
};

FIXTURE_SETUP(scale)
{
	if (hcbs_machine_slow())
		SKIP(return, "KSFT_MACHINE_SLOW: a cost measured on the host's clock under TCG moves with the host's load");
	HCBS_ENV_SETUP(&self->env, "scale");
}

FIXTURE_TEARDOWN_PARENT(scale)
{
	HCBS_ENV_TEARDOWN(&self->env);
}

/*
 * One side of the pair: read a byte from @in, write it to @out, @rounds
 * times (the starter writes first).  Exits 0, or 1 on a short read/write.
 */
static void __attribute__((noreturn)) player(int in, int out, bool starts,
					     int rounds)
{
	char c = 'x';
	int i;

	for (i = 0; i < rounds; i++) {
		if (starts && write(out, &c, 1) != 1)
			_exit(1);
		if (read(in, &c, 1) != 1)
			_exit(1);
		if (!starts && write(out, &c, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

/*
 * Run the pair in @cg: both forked SCHED_FIFO 50 into @cg, unpinned,
 * released together; *@per_round = their CPU time over the rounds.
 */
static int pingpong(const char *cg, int rounds, double *per_round_ns,
		    double *elapsed_s)
{
	int ab[2], ba[2], go[2], i, status, err = 0;
	uint64_t t0, t1, cpu = 0;
	pid_t pid[2], victim;
	char c;

	if (pipe(ab) || pipe(ba) || pipe(go))
		return -errno;
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			return -errno;
		if (pid[i] == 0) {
			struct sched_param sp = { .sched_priority = 50 };

			if (hcbs_cg_attach(cg, getpid()) || hcbs_unpin(0) ||
			    sched_setscheduler(0, SCHED_FIFO, &sp))
				_exit(2);
			close(go[1]);
			if (read(go[0], &c, 1) != 0)
				_exit(3);
			if (i == 0)
				player(ba[0], ab[1], true, rounds);
			player(ab[0], ba[1], false, rounds);
		}
	}
	/* the group's lower-priority task, which the pair's wake-ups preempt */
	victim = fork();
	if (victim < 0)
		return -errno;
	if (victim == 0) {
		struct sched_param sp = { .sched_priority = 10 };

		/* the pair starts when the last writer of go[] closes it */
		close(go[0]); close(go[1]);
		close(ab[0]); close(ab[1]); close(ba[0]); close(ba[1]);

		if (hcbs_cg_attach(cg, getpid()) || hcbs_unpin(0) ||
		    sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(2);
		for (;;) {
			uint64_t end = hcbs_now_ns() + VICTIM_RUN_US * 1000;

			while (hcbs_now_ns() < end)
				;
			usleep(VICTIM_SLEEP_US);
		}
	}
	close(go[0]);
	close(ab[0]); close(ab[1]); close(ba[0]); close(ba[1]);
	hcbs_sleep_ms(50);
	t0 = hcbs_now_ns();
	close(go[1]);			/* both start */
	for (i = 0; i < 2; i++) {
		struct rusage ru;

		if (wait4(pid[i], &status, 0, &ru) != pid[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			err = err ?: -ECHILD;
			continue;
		}
		/* user + system: the task's whole runtime, to the microsecond */
		cpu += (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
	}
	t1 = hcbs_now_ns();
	kill(victim, SIGKILL);
	waitpid(victim, NULL, 0);
	*per_round_ns = (double)cpu / rounds;
	*elapsed_s = (t1 - t0) / 1e9;
	return err;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

TEST_F_TIMEOUT(scale, wakeup_cost_flat, 600)
{
	static const int idle[NPOINTS] = { 0, 15, IDLE_MAX };
	double cost[NPOINTS] = { 0 }, run[REPEAT], elapsed = 0;
	double allow = hcbs_clock_virtual() ? 0.15 : 0.30;
	char g[PATHLEN], name[32];
	int i, r, n = 0, err;

	/* 6 ms every 10 ms on each CPU: the three tasks seldom exhaust it */
	hcbs_group(_metadata, &self->env, "pp", 6000, 10000, g, sizeof(g));
	for (i = 0; i < NPOINTS; i++) {
		for (; n < idle[i]; n++) {
			char cg[PATHLEN];

			snprintf(name, sizeof(name), "idle%d", n);
			hcbs_group(_metadata, &self->env, name, IDLE_Q_US,
				   IDLE_P_US, cg, sizeof(cg));
		}
		for (r = 0; r < REPEAT; r++) {
			err = pingpong(g, ROUNDS, &run[r], &elapsed);
			ASSERT_EQ(0, err) TH_LOG("ping-pong beside %d groups: %s",
						 idle[i], strerror(-err));
		}
		qsort(run, REPEAT, sizeof(run[0]), cmp_double);
		cost[i] = run[0];
		hcbs_note("%d reserved groups beside it: %.0f ns of the pair's CPU time a round trip, the least of %.0f %.0f %.0f %.0f %.0f (%d round trips each, the last in %.2f s)",
			  idle[i], cost[i], run[0], run[1], run[2], run[3], run[4], ROUNDS, elapsed);
	}
	hcbs_note("allowance: %.0f %% (%s)", allow * 100,
		  hcbs_clock_virtual() ?
		  "virtual clock: the least of 5 runs, as a run costs up to 30 % more when the pair lands on one CPU"
		  : "hardware: that, and caches and the idle groups' memory");
	for (i = 1; i < NPOINTS; i++) {
		double limit = cost[0] * (1 + allow);

		EXPECT_LE(cost[i], limit)
			TH_LOG("a round trip costs %.0f ns beside %d groups, %.0f ns alone: the scheduler's work grows with the groups",
			       cost[i], idle[i], cost[0]);
	}
}

HCBS_TEST_MAIN
