// SPDX-License-Identifier: GPL-2.0
/*
 * The task set of the HCBS paper's Section IV (Abeni et al., "Container-
 * based real-time scheduling in the Linux kernel"):
 *
 *   (C, T) = (4879, 30000) (561, 36000) (10427, 104000) (4408, 109000)
 *            (20271, 250000) us,  U = 0.40
 *
 * periodic SCHED_FIFO threads with Rate Monotonic priorities, in one group
 * at P = 18 ms with the least Q that the compositional analysis of
 * hcbsctl (the periodic resource model, tools/lib/analysis.c) finds
 * enough under fixed priorities: 7955 us, which the paper rounds to 8 ms.
 * All threads are pinned to CPU 1, released together (the critical
 * instant) and beside a competing group's hog and a higher-priority root
 * FIFO hog.  Each job spins until it has consumed its WCET of its own
 * thread CPU time, so the work is exact whatever the speed of the
 * machine.  No deadline may be missed over the run: the analysis
 * predicts, the kernel must deliver.
 *
 * Under emulation (TCG) the work a job makes the server pay is larger
 * than its thread CPU time: context switches, timer interrupts and the
 * scheduler itself run slowly and are charged to the running group
 * (measured: +5.6% to +20.1% over 12 s runs; the test prints it).
 * There the
 * budget is the analysis' answer for the task set with every WCET scaled
 * by 1.3, which covers that overhead, and host stalls of the vCPU (also
 * charged to the server) may cost a task at most 1% of its jobs, none by
 * more than T/2.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "hcbs_ksft.h"
#include "hcbs-analysis.h"

#define PATHLEN 512
#define NR_TASKS 5

static const struct {
	unsigned int c_us, t_us;
} taskset[NR_TASKS] = {
	{ 4879, 30000 }, { 561, 36000 }, { 10427, 104000 }, { 4408, 109000 },
	{ 20271, 250000 },
};

/* Rate Monotonic: the shorter the period, the higher the priority. */
#define PRIO_TOP 50
#define PERIOD_US 18000
/* WCET scale for the analysis under emulation, in percent (see above). */
#define TCG_WCET_SCALE 130

/*
 * The least budget (us) at PERIOD_US with which the task set, its WCETs
 * scaled by @scale percent, is schedulable under rate-monotonic fixed
 * priorities; negative errno on failure.
 */
static long long least_budget_us(unsigned int scale)
{
	struct hcbs_task t[NR_TASKS];
	struct hcbs_taskset ts = { .t = t, .n = NR_TASKS };
	uint64_t q;
	int i, err;

	for (i = 0; i < NR_TASKS; i++) {
		t[i] = (struct hcbs_task){
			.wcet = taskset[i].c_us * HCBS_NSEC_PER_USEC * scale / 100,
			.period = taskset[i].t_us * HCBS_NSEC_PER_USEC,
			.deadline = taskset[i].t_us * HCBS_NSEC_PER_USEC,
			.line = i + 1,
		};
	}
	err = hcbs_min_runtime(&ts, true, HCBS_ORDER_RM,
			       PERIOD_US * HCBS_NSEC_PER_USEC, 1000, &q);
	return err ? err : (long long)(q / HCBS_NSEC_PER_USEC);
}

struct task_result {
	uint64_t jobs, misses;
	uint64_t max_resp_ns;
	uint64_t max_stall_ns;	/* longest step of a job charged at once */
	uint64_t max_wake_ns;	/* longest time from a release to its job's start */
	int err;		/* errno of a setup step in the thread */
};

struct taskset_shm {
	uint64_t run_ns;	/* length of the run, set by the parent */
	uint64_t t0_ns;		/* first (common) release */
	uint64_t end_ns;	/* no release at or after this */
	int go;			/* t0_ns and end_ns are set */
	struct task_result res[NR_TASKS];
};

struct task_arg {
	struct taskset_shm *shm;
	int i;
};

static void *task_thread(void *p)
{
	struct task_arg *a = p;
	struct task_result *r = &a->shm->res[a->i];
	uint64_t period = taskset[a->i].t_us * HCBS_NSEC_PER_USEC;
	uint64_t wcet = taskset[a->i].c_us * HCBS_NSEC_PER_USEC;
	uint64_t release, start, c0, c, c1, resp;

	/*
	 * Wait, asleep, until every thread exists: the process creating them
	 * is SCHED_OTHER beside a root FIFO hog, so it gets only the fair
	 * server's 5% of the CPU, and under emulation creating five threads
	 * can take longer than any fixed head start.  A thread that began
	 * after its first releases would count a backlog of jobs as misses.
	 */
	while (!__atomic_load_n(&a->shm->go, __ATOMIC_ACQUIRE))
		hcbs_sleep_ms(1);
	for (release = a->shm->t0_ns; release < a->shm->end_ns; release += period) {
		hcbs_sleep_until_ns(release);
		start = hcbs_now_ns() - release;
		if (start > r->max_wake_ns)
			r->max_wake_ns = start;
		/*
		 * A step of the loop charged more than a few hundred us is the
		 * machine stalling (or a long interrupt), not the job's code.
		 */
		c0 = hcbs_thread_cputime_ns();
		for (c = c0; c - c0 < wcet; c = c1) {
			c1 = hcbs_thread_cputime_ns();
			if (c1 - c > HCBS_STALL_STEP_NS && c1 - c > r->max_stall_ns)
				r->max_stall_ns = c1 - c;
		}
		resp = hcbs_now_ns() - release;
		r->jobs++;
		if (resp > period)
			r->misses++;
		if (resp > r->max_resp_ns)
			r->max_resp_ns = resp;
	}
	return NULL;
}

/* The task-set process: already in its group and pinned; start the threads. */
static int __attribute__((noreturn)) taskset_main(struct taskset_shm *shm)
{
	struct task_arg args[NR_TASKS];
	pthread_t th[NR_TASKS];
	pthread_attr_t attr;
	struct sched_param sp;
	int i, err, started = 0;

	for (i = 0; i < NR_TASKS; i++) {
		args[i].shm = shm;
		args[i].i = i;
		pthread_attr_init(&attr);
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		sp.sched_priority = PRIO_TOP - i;
		pthread_attr_setschedparam(&attr, &sp);
		err = pthread_create(&th[i], &attr, task_thread, &args[i]);
		pthread_attr_destroy(&attr);
		if (err) {
			shm->res[i].err = err;
			break;
		}
		started++;
	}
	/* The first release is 200 ms after the last thread was created. */
	shm->t0_ns = hcbs_now_ns() + 200 * HCBS_NSEC_PER_MSEC;
	shm->end_ns = started == NR_TASKS ? shm->t0_ns + shm->run_ns : 0;
	__atomic_store_n(&shm->go, 1, __ATOMIC_RELEASE);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	_exit(started == NR_TASKS ? 0 : 1);
}

FIXTURE(taskset) {
	struct hcbs_env env;
	struct taskset_shm *shm;
	pid_t pid;
};

FIXTURE_SETUP(taskset)
{
	HCBS_ENV_SETUP(&self->env, "taskset");
	self->shm = mmap(NULL, sizeof(*self->shm), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->shm);
}

FIXTURE_TEARDOWN_PARENT(taskset)
{
	/*
	 * This runs in the harness's parent process (self is shared): the
	 * task-set process is not our child here, and the shared results
	 * mapping goes away with the test's own process.
	 */
	if (self->pid > 0)
		kill(self->pid, SIGKILL);
	HCBS_ENV_TEARDOWN(&self->env);
}

TEST_F_TIMEOUT(taskset, paper_8_18, 120)
{
	unsigned int run_ms = hcbs_window_ms(12000);
	unsigned int scale = hcbs_machine_slow() ? TCG_WCET_SCALE : 100;
	char rt[PATHLEN], other[PATHLEN];
	uint64_t misses = 0, expected_jobs, stall_ns = 0;
	double max_lateness = -1.0, u = 0, stall_late, work_us = 0;
	long long usage_us, periods, throttled;
	struct hcbs_hog *hogs[2];
	int pfd[2], status, i;
	pid_t parent = getpid(), child;
	long long q_us;
	char c = 'g';

	if (run_ms < 10000)
		run_ms = 10000;
	/* The paper's figure, to the microsecond: a check of the analysis. */
	ASSERT_EQ(7955, least_budget_us(100));
	q_us = least_budget_us(scale);
	ASSERT_GT(q_us, 0) TH_LOG("no budget at %u us for WCETs x %u%%: %s",
				  PERIOD_US, scale, strerror((int)-q_us));
	hcbs_group(_metadata, &self->env, "rt", q_us, PERIOD_US, rt, sizeof(rt));
	hcbs_group(_metadata, &self->env, "other", 30000, 100000, other, sizeof(other));
	hogs[0] = hcbs_hog(_metadata, &self->env, other, HCBS_LOAD_CPU, SCHED_FIFO,
			   PRIO_TOP + 10);
	hogs[1] = hcbs_hog(_metadata, &self->env, NULL, HCBS_LOAD_CPU, SCHED_FIFO,
			   HCBS_PRIO_ROOT_HOG);

	ASSERT_EQ(0, pipe(pfd));
	fflush(stdout);
	/*
	 * self is shared with the harness's parent (for the teardown): the
	 * child must not write it, or its "0" can land after the parent's
	 * pid and the parent then waits for any child.
	 */
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		close(pfd[1]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent || read(pfd[0], &c, 1) != 1)
			_exit(1);
		taskset_main(self->shm);
	}
	self->pid = child;
	close(pfd[0]);
	ASSERT_EQ(0, hcbs_pin_cpu(self->pid, HCBS_LOAD_CPU));
	ASSERT_EQ(0, hcbs_cg_attach(rt, self->pid));
	self->shm->run_ns = run_ms * HCBS_NSEC_PER_MSEC;
	ASSERT_EQ(1, write(pfd[1], &c, 1));
	close(pfd[1]);
	for (i = 0; i < 2; i++)
		hcbs_hog_reset_gap(hogs[i]);

	hcbs_note("task set of the paper, Section IV, in a group at (%lld us, %u us) on CPU %d for %u ms:",
		  q_us, PERIOD_US, HCBS_LOAD_CPU, run_ms);
	hcbs_note("the least budget the analysis accepts for WCETs x %u%%%s,",
		  scale, scale != 100 ? " (emulation overhead)" : "");
	hcbs_note("beside a 30/100 ms group's FIFO hog and a root FIFO %d hog",
		  HCBS_PRIO_ROOT_HOG);
	ASSERT_EQ(self->pid, waitpid(self->pid, &status, 0));
	self->pid = 0;
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("task-set process failed (status 0x%x)", status);

	/*
	 * CPU 1 is never idle here (the root hog), so whatever stall of the
	 * machine hit it was charged in one step to a job or to a hog.
	 */
	stall_ns = hcbs_hogs_max_stall_ns(hogs, 2);
	for (i = 0; i < NR_TASKS; i++)
		if (self->shm->res[i].max_stall_ns > stall_ns)
			stall_ns = self->shm->res[i].max_stall_ns;
	/*
	 * What the server paid beside the jobs' own work (wake-ups, context
	 * switches, timers): the emulation overhead the budget has to cover.
	 */
	for (i = 0; i < NR_TASKS; i++)
		work_us += (double)self->shm->res[i].jobs * taskset[i].c_us;
	ASSERT_EQ(0, hcbs_cg_read_key(rt, "cpu.rt.stat", "usage_usec", &usage_us));
	ASSERT_EQ(0, hcbs_cg_read_key(rt, "cpu.rt.stat", "nr_periods", &periods));
	ASSERT_EQ(0, hcbs_cg_read_key(rt, "cpu.rt.stat", "nr_throttled", &throttled));
	hcbs_note("server: %.1f ms used for %.1f ms of jobs' work (%+.1f%%), throttled in %lld of %lld periods",
		  usage_us / 1e3, work_us / 1e3,
		  work_us > 0 ? 100.0 * (usage_us - work_us) / work_us : 0.0,
		  throttled, periods);
	stall_late = hcbs_stall_delay_ns(stall_ns, q_us * HCBS_NSEC_PER_USEC,
					 PERIOD_US * HCBS_NSEC_PER_USEC);
	hcbs_note("longest stall of the machine seen on CPU %d: %.3f ms",
		  HCBS_LOAD_CPU, stall_ns / 1e6);

	for (i = 0; i < NR_TASKS; i++) {
		struct task_result *r = &self->shm->res[i];
		double t = taskset[i].t_us * 1000.0;
		double lateness = (r->max_resp_ns - t) / t;

		EXPECT_EQ(0, r->err) TH_LOG("task %d: pthread_create: %s", i + 1,
					    strerror(r->err));
		u += (double)taskset[i].c_us / taskset[i].t_us;
		hcbs_note("task %d (C %u us, T %u us, FIFO %d): %llu jobs, %llu missed, max response %.3f ms = %.3f T, max start %.3f ms",
			  i + 1, taskset[i].c_us, taskset[i].t_us, PRIO_TOP - i,
			  (unsigned long long)r->jobs, (unsigned long long)r->misses,
			  r->max_resp_ns / 1e6, r->max_resp_ns / t, r->max_wake_ns / 1e6);
		misses += r->misses;
		/*
		 * Under TCG the host can stall a vCPU for milliseconds and the
		 * guest charges that to the running server; a full run of the
		 * suites saw 1-2 such misses in tasks 1-2 (up to 1.34 T).  What
		 * an under-provisioned or misbehaving server does is different:
		 * at 8/18 ms task 5 missed 7 of its 48 jobs.  So there: no task
		 * may miss more than 1% of its jobs, nor by more than half a T
		 * plus what the longest stall seen explains.
		 */
		if (hcbs_machine_slow()) {
			EXPECT_LE(r->misses * 100, r->jobs)
				TH_LOG("task %d missed %llu of %llu jobs (under TCG at most 1%%)",
				       i + 1, (unsigned long long)r->misses,
				       (unsigned long long)r->jobs);
			EXPECT_LE(lateness, 0.5 + stall_late / t)
				TH_LOG("task %d: max normalized lateness %.3f (under TCG at most %.3f: 0.5 and a stall of %.3f ms)",
				       i + 1, lateness, 0.5 + stall_late / t, stall_ns / 1e6);
		}
		if (lateness > max_lateness)
			max_lateness = lateness;
		/* every release before the end, give or take the last one */
		expected_jobs = (uint64_t)run_ms * 1000 / taskset[i].t_us;
		EXPECT_GE(r->jobs, expected_jobs) TH_LOG("task %d ran %llu jobs, expected %llu",
			i + 1, (unsigned long long)r->jobs, (unsigned long long)expected_jobs);
	}
	hcbs_note("U = %.4f, Q/P = %.4f; deadline misses %llu; max normalized lateness %.4f",
		  u, (double)q_us / PERIOD_US, (unsigned long long)misses, max_lateness);
	/* On KVM or hardware: the analysis holds, not one miss. */
	if (!hcbs_machine_slow())
		EXPECT_EQ(0, misses);
}

HCBS_TEST_MAIN
