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
 * by 1.3, which covers that overhead.  Host stalls of the vCPU (also
 * charged to the server) may make a job late by what the stalls seen
 * around it explain, and cost a task at most 1% of its jobs besides, none
 * by more than T/2: see check_task().
 *
 * taskset.migration_only runs a set that no partition of its tasks over
 * the group's servers can schedule, and that global fixed priorities
 * inside the group (the kernel moving the tasks between the servers)
 * do: see the comment above that test.
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
#define MAX_TASKS 5

/* A periodic task: WCET and period (= deadline) in us, its CPU or -1 (any). */
struct rt_task {
	unsigned int c_us, t_us;
	int cpu;
};

/* The paper's set, Rate Monotonic order (the table's order is the priority's). */
#define PAPER_TASKS 5
static const struct rt_task paper[PAPER_TASKS] = {
	{ 4879, 30000, HCBS_LOAD_CPU }, { 561, 36000, HCBS_LOAD_CPU },
	{ 10427, 104000, HCBS_LOAD_CPU }, { 4408, 109000, HCBS_LOAD_CPU },
	{ 20271, 250000, HCBS_LOAD_CPU },
};

/* The shorter the period, the higher the priority: task i runs at PRIO_TOP - i. */
#define PRIO_TOP 50
#define PERIOD_US 18000
/* WCET scale for the analysis under emulation, in percent (see above). */
#define TCG_WCET_SCALE 130

/* @n tasks of @set as the library's task set, WCETs scaled by @scale %. */
static void to_taskset(const struct rt_task *set, int n, unsigned int scale,
		       struct hcbs_task *t, struct hcbs_taskset *ts)
{
	int i;

	for (i = 0; i < n; i++) {
		t[i] = (struct hcbs_task){
			.wcet = set[i].c_us * HCBS_NSEC_PER_USEC * scale / 100,
			.period = set[i].t_us * HCBS_NSEC_PER_USEC,
			.deadline = set[i].t_us * HCBS_NSEC_PER_USEC,
			.line = i + 1,
		};
	}
	*ts = (struct hcbs_taskset){ .t = t, .n = n };
}

/*
 * The least budget (us) at PERIOD_US with which the paper's task set, its
 * WCETs scaled by @scale percent, is schedulable under rate-monotonic
 * fixed priorities; negative errno on failure.
 */
static long long least_budget_us(unsigned int scale)
{
	struct hcbs_task t[PAPER_TASKS];
	struct hcbs_taskset ts;
	uint64_t q;
	int err;

	to_taskset(paper, PAPER_TASKS, scale, t, &ts);
	err = hcbs_min_runtime(&ts, true, HCBS_ORDER_RM,
			       PERIOD_US * HCBS_NSEC_PER_USEC, 1000, &q);
	return err ? err : (long long)(q / HCBS_NSEC_PER_USEC);
}

/* The first misses of a task: enough for the allowance of check_task(). */
#define MISS_LOG 32

struct task_result {
	uint64_t jobs, misses;
	struct {
		uint64_t release_ns, resp_ns;
	} miss[MISS_LOG];
	uint64_t migrated;	/* jobs that ran on more than one CPU */
	uint64_t max_resp_ns;
	uint64_t max_wake_ns;	/* longest time from a release to its job's start */
	int err;		/* errno of a setup step in the thread */
	struct hcbs_stall_log stalls;	/* the stalls its jobs saw */
};

struct taskset_shm {
	struct rt_task task[MAX_TASKS];
	int n;
	uint64_t run_ns;	/* length of the run, set by the parent */
	uint64_t t0_ns;		/* first (common) release */
	uint64_t end_ns;	/* no release at or after this */
	int go;			/* t0_ns and end_ns are set */
	struct task_result res[MAX_TASKS];
};

struct task_arg {
	struct taskset_shm *shm;
	int i;
};

static void *task_thread(void *p)
{
	struct task_arg *a = p;
	struct task_result *r = &a->shm->res[a->i];
	const struct rt_task *task = &a->shm->task[a->i];
	uint64_t period = task->t_us * HCBS_NSEC_PER_USEC;
	uint64_t wcet = task->c_us * HCBS_NSEC_PER_USEC;
	uint64_t release, start, c0, c, c1, resp;
	int cpu0, cpu, moved;
	cpu_set_t set;

	if (task->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(task->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			r->err = errno;
			return NULL;
		}
	}
	/*
	 * Wait, asleep, until every thread exists: the process creating them
	 * is SCHED_OTHER beside root FIFO hogs, so it gets only the fair
	 * server's 5% of the CPU, and under emulation creating the threads
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
		cpu0 = sched_getcpu();
		moved = 0;
		c0 = hcbs_thread_cputime_ns();
		for (c = c0; c - c0 < wcet; c = c1) {
			c1 = hcbs_thread_cputime_ns();
			if (c1 - c > HCBS_STALL_STEP_NS)
				hcbs_stall_log_add(&r->stalls, hcbs_now_ns(), c1 - c);
			cpu = sched_getcpu();
			if (cpu != cpu0)
				moved = 1;
		}
		resp = hcbs_now_ns() - release;
		r->jobs++;
		r->migrated += moved;
		if (resp > period) {
			if (r->misses < MISS_LOG) {
				r->miss[r->misses].release_ns = release;
				r->miss[r->misses].resp_ns = resp;
			}
			r->misses++;
		}
		if (resp > r->max_resp_ns)
			r->max_resp_ns = resp;
	}
	return NULL;
}

/* The task-set process: already in its group; start the threads. */
static int __attribute__((noreturn)) taskset_main(struct taskset_shm *shm)
{
	struct task_arg args[MAX_TASKS];
	pthread_t th[MAX_TASKS];
	pthread_attr_t attr;
	struct sched_param sp;
	int i, err, started = 0;

	for (i = 0; i < shm->n; i++) {
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
	shm->end_ns = started == shm->n ? shm->t0_ns + shm->run_ns : 0;
	__atomic_store_n(&shm->go, 1, __ATOMIC_RELEASE);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	_exit(started == shm->n ? 0 : 1);
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

/*
 * Run @n tasks of @set in group @cg for @run_ms (the process may use every
 * CPU; a task with a CPU pins itself), released together, and wait for the
 * end.  Results in self->shm->res[].
 */
static void run_set(struct __test_metadata *_metadata,
		    FIXTURE_DATA(taskset) *self, const char *cg,
		    const struct rt_task *set, int n, unsigned int run_ms,
		    struct hcbs_hog **hogs, int nr_hogs)
{
	pid_t parent = getpid(), child;
	int pfd[2], status, i;
	char c = 'g';

	memset(self->shm, 0, sizeof(*self->shm));
	memcpy(self->shm->task, set, n * sizeof(*set));
	self->shm->n = n;
	self->shm->run_ns = run_ms * HCBS_NSEC_PER_MSEC;
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
	ASSERT_EQ(0, hcbs_unpin(self->pid));
	ASSERT_EQ(0, hcbs_cg_attach(cg, self->pid));
	ASSERT_EQ(1, write(pfd[1], &c, 1));
	close(pfd[1]);
	for (i = 0; i < nr_hogs; i++)
		hcbs_hog_reset_gap(hogs[i]);
	ASSERT_EQ(self->pid, waitpid(self->pid, &status, 0));
	self->pid = 0;
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("task-set process failed (status 0x%x)", status);
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, self->shm->res[i].err)
			TH_LOG("task %d: thread setup: %s", i + 1,
			       strerror(self->shm->res[i].err));
}

/* Print the server's usage beside the jobs' own work (emulation overhead). */
static void note_server(struct __test_metadata *_metadata, const char *cg,
			const struct taskset_shm *shm)
{
	long long usage_us, periods, throttled;
	double work_us = 0;
	int i;

	for (i = 0; i < shm->n; i++)
		work_us += (double)shm->res[i].jobs * shm->task[i].c_us;
	ASSERT_EQ(0, hcbs_cg_read_key(cg, "cpu.rt.stat", "usage_usec", &usage_us));
	ASSERT_EQ(0, hcbs_cg_read_key(cg, "cpu.rt.stat", "nr_periods", &periods));
	ASSERT_EQ(0, hcbs_cg_read_key(cg, "cpu.rt.stat", "nr_throttled", &throttled));
	hcbs_note("server: %.1f ms used for %.1f ms of jobs' work (%+.1f%%), throttled in %lld of %lld periods",
		  usage_us / 1e3, work_us / 1e3,
		  work_us > 0 ? 100.0 * (usage_us - work_us) / work_us : 0.0,
		  throttled, periods);
}

/* The stall logs of the tasks and of at most MAX_LOGS - MAX_TASKS hogs. */
#define MAX_LOGS (MAX_TASKS + 4)

static int stall_logs(const struct taskset_shm *shm, struct hcbs_hog *const *hogs,
		      int nr_hogs, const struct hcbs_stall_log **logs)
{
	int i, n = 0;

	for (i = 0; i < shm->n; i++)
		logs[n++] = &shm->res[i].stalls;
	for (i = 0; i < nr_hogs && n < MAX_LOGS; i++)
		if (hogs[i]->shm)
			logs[n++] = &hogs[i]->shm->stalls;
	return n;
}

/*
 * Check task @i's deadlines, its group's servers giving @q_ns every @p_ns:
 * none missed on KVM or hardware.  Under TCG the host can stall a vCPU for
 * milliseconds and the guest charges that to the running server: a miss is
 * the emulator's when the stalls that the test's spinning tasks and @hogs
 * saw around the job explain its lateness (hcbs_stall_explains_ns()).  Of
 * the others (a stall that hits the kernel between two loops goes unseen,
 * and one seen elsewhere may have delayed the job through the server), at
 * most 1% of the jobs may miss, none by more than T/2 and the delay the
 * longest stall seen explains.  Returns the task's max normalized lateness.
 */
static double check_task(struct __test_metadata *_metadata,
			 const struct taskset_shm *shm, int i,
			 struct hcbs_hog *const *hogs, int nr_hogs,
			 uint64_t q_ns, uint64_t p_ns)
{
	const struct hcbs_stall_log *logs[MAX_LOGS];
	const struct task_result *r = &shm->res[i];
	double t = shm->task[i].t_us * 1000.0;
	double lateness = (r->max_resp_ns - t) / t, worst = 0, bound;
	uint64_t k, late, why, unexplained = r->misses, longest = 0;
	int n = stall_logs(shm, hogs, nr_hogs, logs), j;
	bool lost = false;

	hcbs_note("task %d (C %u us, T %u us, FIFO %d, %s): %llu jobs (%llu ran on two CPUs), %llu missed, max response %.3f ms = %.3f T, max start %.3f ms",
		  i + 1, shm->task[i].c_us, shm->task[i].t_us, PRIO_TOP - i,
		  shm->task[i].cpu < 0 ? "any CPU" : shm->task[i].cpu ? "CPU 1" : "CPU 0",
		  (unsigned long long)r->jobs, (unsigned long long)r->migrated,
		  (unsigned long long)r->misses, r->max_resp_ns / 1e6,
		  r->max_resp_ns / t, r->max_wake_ns / 1e6);
	if (!hcbs_machine_slow()) {
		EXPECT_EQ(0, r->misses)
			TH_LOG("task %d missed %llu of %llu jobs", i + 1,
			       (unsigned long long)r->misses,
			       (unsigned long long)r->jobs);
		return lateness;
	}
	for (k = 0; k < r->misses && k < MISS_LOG; k++) {
		late = r->miss[k].resp_ns - shm->task[i].t_us * HCBS_NSEC_PER_USEC;
		why = hcbs_stall_explains_ns(logs, n, r->miss[k].release_ns,
					     r->miss[k].release_ns + r->miss[k].resp_ns,
					     q_ns, p_ns, &lost);
		if (!lost && late <= why) {
			unexplained--;
			hcbs_note("task %d: the job released at %.3f s was %.3f ms late; stalls of the machine around it explain %.3f ms (emulation)",
				  i + 1, (r->miss[k].release_ns - shm->t0_ns) / 1e9,
				  late / 1e6, why / 1e6);
		} else if (late / t > worst) {
			worst = late / t;
		}
	}
	if (r->misses > MISS_LOG)
		worst = lateness;
	/* Stalls that come every few ms would explain anything: none is taken. */
	if (lost)
		hcbs_note("task %d: the machine stalled for %.0f ms or more more often than the logs hold (%u stalls a log): no miss is put down to a stall",
			  i + 1, HCBS_STALL_LOG_MIN_NS / 1e6, HCBS_STALL_LOG_LEN);
	for (j = 0; j < n; j++)
		if (logs[j]->max_ns > longest)
			longest = logs[j]->max_ns;
	bound = 0.5 + hcbs_stall_delay_ns(longest, q_ns, p_ns) / t;
	EXPECT_LE(unexplained * 100, r->jobs)
		TH_LOG("task %d missed %llu of %llu jobs that no stall explains (under TCG at most 1%%)",
		       i + 1, (unsigned long long)unexplained,
		       (unsigned long long)r->jobs);
	EXPECT_LE(worst, bound)
		TH_LOG("task %d: a miss no stall explains was %.3f T late (under TCG at most %.3f T: 0.5 and a stall of %.3f ms)",
		       i + 1, worst, bound, longest / 1e6);
	return lateness;
}

/* What stalls of the machine the tasks and @hogs saw during the run. */
static void note_stalls(struct __test_metadata *_metadata,
			const struct taskset_shm *shm, struct hcbs_hog *const *hogs,
			int nr_hogs)
{
	const struct hcbs_stall_log *logs[MAX_LOGS];
	int n = stall_logs(shm, hogs, nr_hogs, logs), i;
	unsigned int seen = 0, long_ones = 0;
	uint64_t longest = 0;

	for (i = 0; i < n; i++) {
		seen += logs[i]->seen;
		long_ones += logs[i]->n;
		if (logs[i]->max_ns > longest)
			longest = logs[i]->max_ns;
	}
	hcbs_note("stalls of the machine seen by the spinning tasks: %u over %.1f ms, %u of %.0f ms or more (the longest %.3f ms)",
		  seen, HCBS_STALL_STEP_NS / 1e6, long_ones,
		  HCBS_STALL_LOG_MIN_NS / 1e6, longest / 1e6);
}

TEST_F_TIMEOUT(taskset, paper_8_18, 120)
{
	unsigned int run_ms = hcbs_window_ms(12000);
	unsigned int scale = hcbs_machine_slow() ? TCG_WCET_SCALE : 100;
	char rt[PATHLEN], other[PATHLEN];
	uint64_t misses = 0, expected_jobs;
	double max_lateness = -1.0, u = 0, lateness;
	struct hcbs_hog *hogs[2];
	long long q_us;
	int i;

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

	hcbs_note("task set of the paper, Section IV, in a group at (%lld us, %u us) on CPU %d for %u ms:",
		  q_us, PERIOD_US, HCBS_LOAD_CPU, run_ms);
	hcbs_note("the least budget the analysis accepts for WCETs x %u%%%s,",
		  scale, scale != 100 ? " (emulation overhead)" : "");
	hcbs_note("beside a 30/100 ms group's FIFO hog and a root FIFO %d hog",
		  HCBS_PRIO_ROOT_HOG);
	run_set(_metadata, self, rt, paper, PAPER_TASKS, run_ms, hogs, 2);

	/*
	 * CPU 1 is never idle here (the root hog), so a stall of the machine
	 * that hit it while a job or a hog spun was charged to it in one step.
	 */
	note_server(_metadata, rt, self->shm);
	note_stalls(_metadata, self->shm, hogs, 2);

	/*
	 * Under TCG the host can stall a vCPU for milliseconds and the guest
	 * charges that to the running server; a full run of the suites saw
	 * 1-2 such misses in tasks 1-2 (up to 1.34 T), and a CI run with a
	 * 15.2 ms stall one of task 5's 48 jobs.  What an under-provisioned
	 * or misbehaving server does is different: at 8/18 ms task 5 missed 7
	 * of its 48 jobs.  Hence check_task()'s allowance: the misses that
	 * stalls seen around them explain, and 1% of the jobs besides.
	 */
	for (i = 0; i < PAPER_TASKS; i++) {
		const struct task_result *r = &self->shm->res[i];

		u += (double)paper[i].c_us / paper[i].t_us;
		lateness = check_task(_metadata, self->shm, i, hogs, 2,
				      q_us * HCBS_NSEC_PER_USEC,
				      PERIOD_US * HCBS_NSEC_PER_USEC);
		if (lateness > max_lateness)
			max_lateness = lateness;
		misses += r->misses;
		/* every release before the end, give or take the last one */
		expected_jobs = (uint64_t)run_ms * 1000 / paper[i].t_us;
		EXPECT_GE(r->jobs, expected_jobs) TH_LOG("task %d ran %llu jobs, expected %llu",
			i + 1, (unsigned long long)r->jobs, (unsigned long long)expected_jobs);
	}
	hcbs_note("U = %.4f, Q/P = %.4f; deadline misses %llu; max normalized lateness %.4f",
		  u, (double)q_us / PERIOD_US, (unsigned long long)misses, max_lateness);
}

/*
 * A task set schedulable only with migration, in one group at Q/P = 9/10 ms
 * on both CPUs (0.90, the most a CPU gives groups beside its 5% fair server):
 *
 *   t1 = (14.4 ms, 30 ms), t2 = (69 ms, 150 ms), t3 = (69 ms, 150 ms),
 *   Rate Monotonic, FIFO 50/49/48;  U = 0.48 + 0.46 + 0.46 = 1.40 of 1.80.
 *
 * Partitioned, two of the three tasks share a server, and every pair needs
 * more than it supplies in the long run (0.94 or 0.92 > 0.90): whatever
 * the partition and whatever the analysis, that server's backlog grows
 * without bound.  Global FP inside the group schedules it: released
 * together, on servers that supply 9 ms in every 10 (about a speed-0.9
 * CPU), t1 keeps one server busy 16 ms in every 30 and t2 runs on the
 * other until 76.7; t3 fills the first server's idle parts of t1's
 * periods (14 ms each), then runs on the second server from 76.7 and
 * ends at 124.7, 25 ms before its deadline.  A fluid simulation of this
 * schedule meets every deadline until each job costs its server 18% more
 * than its WCET: room for the server overhead that emulation adds (2% was
 * measured).  The periods are 1.5 times those of a 20/100 ms design: at
 * 20/100 ms a run under TCG had 3 of 300 jobs of t3 late by up to 0.14 T,
 * the emulator's stalls (9 ms) and its milliseconds-late reschedule IPIs
 * (a pull waits for one) taking a larger part of a shorter period.
 *
 * hcbsctl analyze rejects this set both ways (the test prints the verdicts
 * and checks the partitioned one), and no sufficient test of its kind can
 * accept it: its global test (Bertogna & Cirinei on m sbf) is proven never
 * to accept a set that its first-fit partitioning rejects (docs/hcbsctl.md,
 * "What the global verdict can and cannot add"), because m independent
 * periodic resources may supply in lock step, which the test must assume.
 * The test checks that verdict, then measures: 45 s of releases, 2100
 * jobs, each spinning its WCET in thread CPU time, unpinned, beside a root
 * FIFO 90 hog on each CPU; no miss (the TCG allowance of paper_8_18: host
 * stalls are charged to the server; with both vCPUs busy under TCG the
 * machine stalls for 1 ms or more some 4000 times in 45 s, more than the
 * stall logs hold, so here no miss is put down to a stall: 1% at most).  Then the control: the same set
 * partitioned (t1 and t2 on CPU 0, t3 on CPU 1) for 4.5 s must miss most of
 * t2's deadlines, so that the first run's success is the migration's doing.
 */
#define MIG_TASKS 3
#define MIG_Q_US 9000
#define MIG_P_US 10000

TEST_F_TIMEOUT(taskset, migration_only, 150)
{
	static const struct rt_task global[MIG_TASKS] = {
		{ 14400, 30000, -1 }, { 69000, 150000, -1 }, { 69000, 150000, -1 },
	};
	static const struct rt_task parted[MIG_TASKS] = {
		{ 14400, 30000, 0 }, { 69000, 150000, 0 }, { 69000, 150000, 1 },
	};
	unsigned int run_ms = 45000, ctl_ms = 4500;
	struct hcbs_gfp_result *gfp;
	struct hcbs_part_result part;
	struct hcbs_task t[MIG_TASKS];
	struct hcbs_taskset ts;
	struct hcbs_hog *hogs[2];
	uint64_t jobs = 0, misses = 0, migrated = 0;
	double u, u_pair_min = 2.0;
	char rt[PATHLEN];
	int i, j;

	/* No partition: every pair of tasks overloads a server in the long run. */
	for (i = 0; i < MIG_TASKS; i++)
		for (j = i + 1; j < MIG_TASKS; j++) {
			u = (double)global[i].c_us / global[i].t_us +
			    (double)global[j].c_us / global[j].t_us;
			if (u < u_pair_min)
				u_pair_min = u;
		}
	ASSERT_GT(u_pair_min, (double)MIG_Q_US / MIG_P_US);
	/* hcbsctl analyze's verdicts: partitioned no, and global no as well. */
	to_taskset(global, MIG_TASKS, 100, t, &ts);
	gfp = calloc(1, sizeof(*gfp));
	ASSERT_NE(NULL, gfp);
	ASSERT_EQ(0, hcbs_part_test(&ts, HCBS_ORDER_RM, 2, MIG_Q_US * HCBS_NSEC_PER_USEC,
				    MIG_P_US * HCBS_NSEC_PER_USEC, &part));
	EXPECT_FALSE(part.schedulable);
	ASSERT_EQ(0, hcbs_gfp_test(&ts, HCBS_ORDER_RM, 2, MIG_Q_US * HCBS_NSEC_PER_USEC,
				   MIG_P_US * HCBS_NSEC_PER_USEC, gfp));
	hcbs_note("t1 (14.4, 30) t2 (69, 150) t3 (69, 150) ms, RM, in one group at %d/%d us on CPUs 0-1:",
		  MIG_Q_US, MIG_P_US);
	hcbs_note("every pair needs %.3f or more of a server giving %.3f: no partition holds;",
		  u_pair_min, (double)MIG_Q_US / MIG_P_US);
	hcbs_note("hcbsctl analyze: partitioned %s, global %s (docs/hcbsctl.md: its global test cannot accept a set first fit rejects)",
		  part.schedulable ? "accepts" : "rejects",
		  gfp->schedulable ? "accepts" : "rejects");
	free(gfp);

	hcbs_group(_metadata, &self->env, "rt", MIG_Q_US, MIG_P_US, rt, sizeof(rt));
	hogs[0] = hcbs_hog(_metadata, &self->env, NULL, 0, SCHED_FIFO, HCBS_PRIO_ROOT_HOG);
	hogs[1] = hcbs_hog(_metadata, &self->env, NULL, 1, SCHED_FIFO, HCBS_PRIO_ROOT_HOG);

	hcbs_note("unpinned for %u ms beside a root FIFO %d hog on each CPU:", run_ms,
		  HCBS_PRIO_ROOT_HOG);
	run_set(_metadata, self, rt, global, MIG_TASKS, run_ms, hogs, 2);
	note_server(_metadata, rt, self->shm);
	note_stalls(_metadata, self->shm, hogs, 2);
	for (i = 0; i < MIG_TASKS; i++) {
		check_task(_metadata, self->shm, i, hogs, 2, MIG_Q_US * HCBS_NSEC_PER_USEC,
			   MIG_P_US * HCBS_NSEC_PER_USEC);
		jobs += self->shm->res[i].jobs;
		misses += self->shm->res[i].misses;
		migrated += self->shm->res[i].migrated;
	}
	hcbs_note("%llu jobs, %llu missed, %llu ran on both CPUs",
		  (unsigned long long)jobs, (unsigned long long)misses,
		  (unsigned long long)migrated);
	EXPECT_GE(jobs, 2000);
	/* t3 cannot meet its deadlines without moving (see above). */
	EXPECT_GT(self->shm->res[2].migrated, 0);

	/* The control: partitioned, t2 must miss. */
	hcbs_note("control, partitioned for %u ms: t1 and t2 on CPU 0, t3 on CPU 1:", ctl_ms);
	run_set(_metadata, self, rt, parted, MIG_TASKS, ctl_ms, hogs, 2);
	for (i = 0; i < MIG_TASKS; i++) {
		const struct task_result *r = &self->shm->res[i];

		hcbs_note("task %d: %llu jobs, %llu missed, max response %.3f T", i + 1,
			  (unsigned long long)r->jobs, (unsigned long long)r->misses,
			  r->max_resp_ns / (self->shm->task[i].t_us * 1000.0));
	}
	EXPECT_GE(self->shm->res[1].misses * 2, self->shm->res[1].jobs)
		TH_LOG("partitioned, t2 missed only %llu of %llu jobs: then the set does not need migration",
		       (unsigned long long)self->shm->res[1].misses,
		       (unsigned long long)self->shm->res[1].jobs);
	EXPECT_GT(self->shm->res[1].jobs, 0);
}

HCBS_TEST_MAIN
