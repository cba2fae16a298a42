// SPDX-License-Identifier: GPL-2.0
/*
 * Baseline: reading debugfs' sched/debug while CFS runqueues change does
 * not corrupt them.
 *
 * Debian's 6.12.117 carries the stable backport of "sched/fair: Fix
 * zero_vruntime tracking", after which avg_vruntime() moves
 * cfs_rq->zero_vruntime and rewrites the weighted sum cfs_rq->avg_vruntime.
 * print_cfs_rq() calls it after it has dropped the runqueue lock, so a read
 * of /sys/kernel/debug/sched/debug races with enqueues and dequeues of that
 * cfs_rq on its own CPU and can lose one of their updates of the sum.  The
 * average is then wrong for good; once no entity of the cfs_rq looks
 * eligible, pick_eevdf() returns NULL and pick_task_fair() dereferences it
 * (the soak's crash, docs/testing.md).  Patch 0001 of the series computes
 * the average under the lock.
 *
 * The test makes that race as likely as it can: CFS tasks in several cpu
 * cgroups on every CPU sleep, wake and yield in a tight loop (enqueues and
 * dequeues of the groups' and the root cfs_rqs) while one reader per CPU
 * reads sched/debug as fast as it can.  On a kernel with the bug the guest
 * crashes (vm-run's splat scan fails the run, and the test never reports);
 * with the fix every read succeeds.  HCBS_DEBUG_READ_SECONDS sets the
 * duration (default 30 s; the harness allows an hour, run-guest's settings
 * bound a CI run).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define DEBUG_FILE	"/sys/kernel/debug/sched/debug"
#define CG_ROOT		"/sys/fs/cgroup"
#define CG_TOP		CG_ROOT "/hcbs-debug-read"
#define NR_GROUPS	4
#define TASKS_PER_CPU	3	/* per group and CPU */
#define MAX_CPUS	64
#define MAX_PROCS	(NR_GROUPS * TASKS_PER_CPU * MAX_CPUS + MAX_CPUS)

struct shared {
	unsigned long reads[MAX_CPUS];
	unsigned long read_errors[MAX_CPUS];
	int first_errno;
};

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int has_word(const char *path, const char *word)
{
	char buf[512], *tok, *save;
	FILE *f = fopen(path, "r");
	int found = 0;

	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
			found |= !strcmp(tok, word);
	fclose(f);
	return found;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Short bursts, sleeps and yields: enqueues and dequeues all the time. */
static void __attribute__((noreturn)) churn(int cpu, unsigned int seed)
{
	volatile unsigned long sink = 0;

	pin(cpu);
	for (;;) {
		unsigned int r = rand_r(&seed);
		struct timespec ts = { 0, (r % 200) * 1000 };
		unsigned long i, spin = 2000 + (r >> 8) % 20000;

		for (i = 0; i < spin; i++)
			sink += i;
		if (r & 1)
			sched_yield();
		else
			nanosleep(&ts, NULL);
	}
}

static void __attribute__((noreturn)) reader(int cpu, uint64_t until, struct shared *sh)
{
	static char buf[1 << 16];

	pin(cpu);
	while (now_ns() < until) {
		int fd = open(DEBUG_FILE, O_RDONLY | O_CLOEXEC);
		ssize_t n = 0;

		if (fd >= 0) {
			while ((n = read(fd, buf, sizeof(buf))) > 0)
				;
			close(fd);
		}
		if (fd < 0 || n < 0) {
			if (!sh->read_errors[cpu]++)
				__atomic_compare_exchange_n(&sh->first_errno, &(int){ 0 }, errno,
							    false, __ATOMIC_RELAXED,
							    __ATOMIC_RELAXED);
			continue;
		}
		sh->reads[cpu]++;
	}
	_exit(0);
}

FIXTURE(debug_read) {
	pid_t pids[MAX_PROCS];
	unsigned int nr_pids;
	bool cpu_enabled_here;
	struct shared *sh;
};

FIXTURE_SETUP(debug_read)
{
	self->nr_pids = 0;
	self->cpu_enabled_here = false;
	self->sh = MAP_FAILED;
}

static void remove_groups(void)
{
	char path[256];
	unsigned int g;

	for (g = 0; g < NR_GROUPS; g++) {
		snprintf(path, sizeof(path), CG_TOP "/g%u", g);
		rmdir(path);
	}
	rmdir(CG_TOP);
}

/* Whatever happened in the test: no churner left, no group, +cpu as found. */
FIXTURE_TEARDOWN(debug_read)
{
	unsigned int i;

	for (i = 0; i < self->nr_pids; i++) {
		if (self->pids[i] <= 0)
			continue;
		kill(self->pids[i], SIGKILL);
		waitpid(self->pids[i], NULL, 0);
	}
	remove_groups();
	if (self->cpu_enabled_here)
		write_str(CG_ROOT "/cgroup.subtree_control", "-cpu");
	if (self->sh != MAP_FAILED)
		munmap(self->sh, sizeof(*self->sh));
}

TEST_F_TIMEOUT(debug_read, under_cfs_churn, 3600)
{
	unsigned int seconds = 30, cpus, g, c, t, churners;
	unsigned long reads = 0, errors = 0;
	struct shared *sh;
	const char *env;
	char path[256];
	uint64_t until;
	int status;

	if (access(DEBUG_FILE, R_OK))
		SKIP(return, "no %s (CONFIG_SCHED_DEBUG, debugfs): %s", DEBUG_FILE,
		     strerror(errno));
	if (!has_word(CG_ROOT "/cgroup.controllers", "cpu"))
		SKIP(return, "no cpu controller on the cgroup v2 hierarchy at " CG_ROOT);
	env = getenv("HCBS_DEBUG_READ_SECONDS");
	if (env && atoi(env) > 0)
		seconds = atoi(env);
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus > MAX_CPUS)
		cpus = MAX_CPUS;

	if (!has_word(CG_ROOT "/cgroup.subtree_control", "cpu")) {
		ASSERT_EQ(0, write_str(CG_ROOT "/cgroup.subtree_control", "+cpu"));
		self->cpu_enabled_here = true;
	}
	remove_groups();
	ASSERT_EQ(0, mkdir(CG_TOP, 0755)) TH_LOG("mkdir %s: %s", CG_TOP, strerror(errno));
	ASSERT_EQ(0, write_str(CG_TOP "/cgroup.subtree_control", "+cpu"));

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	self->sh = sh;
	memset(sh, 0, sizeof(*sh));

	for (g = 0; g < NR_GROUPS; g++) {
		snprintf(path, sizeof(path), CG_TOP "/g%u", g);
		ASSERT_EQ(0, mkdir(path, 0755));
		/* different weights: reweights move the groups' entities too */
		snprintf(path, sizeof(path), CG_TOP "/g%u/cpu.weight", g);
		ASSERT_EQ(0, write_str(path, g & 1 ? "50" : "300"));
		for (c = 0; c < cpus; c++) {
			for (t = 0; t < TASKS_PER_CPU; t++) {
				pid_t pid = fork();

				ASSERT_LE(0, pid);
				if (!pid) {
					char p[256], me[32];

					snprintf(p, sizeof(p), CG_TOP "/g%u/cgroup.procs", g);
					snprintf(me, sizeof(me), "%d", getpid());
					if (write_str(p, me))
						_exit(3);
					churn(c, getpid());
				}
				self->pids[self->nr_pids++] = pid;
			}
		}
	}
	churners = self->nr_pids;
	until = now_ns() + seconds * 1000000000ULL;
	for (c = 0; c < cpus; c++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (!pid)
			reader(c, until, sh);
		self->pids[self->nr_pids++] = pid;
	}

	/* the readers end on their own; then the churners are stopped */
	for (c = 0; c < cpus; c++) {
		pid_t pid = self->pids[churners + c];

		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		self->pids[churners + c] = -1;
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	}
	for (t = 0; t < churners; t++) {
		kill(self->pids[t], SIGKILL);
		ASSERT_EQ(self->pids[t], waitpid(self->pids[t], &status, 0));
		/* a churner that could not join its group exits 3 */
		EXPECT_TRUE(WIFSIGNALED(status)) TH_LOG("churner %u exited %d", t,
							 WEXITSTATUS(status));
		self->pids[t] = -1;
	}
	for (g = 0; g < NR_GROUPS; g++) {
		snprintf(path, sizeof(path), CG_TOP "/g%u", g);
		EXPECT_EQ(0, rmdir(path)) TH_LOG("rmdir %s: %s", path, strerror(errno));
	}
	EXPECT_EQ(0, rmdir(CG_TOP));

	for (c = 0; c < cpus; c++) {
		reads += sh->reads[c];
		errors += sh->read_errors[c];
	}
	TH_LOG("%lu reads of sched/debug in %u s on %u CPUs beside %u CFS tasks that sleep, wake and yield in %d cpu cgroups; %lu failed",
	       reads, seconds, cpus, churners, NR_GROUPS, errors);
	EXPECT_EQ(0, errors) TH_LOG("first error: %s", strerror(sh->first_errno));
	/* the race needs many reads: readers that barely ran tested nothing */
	EXPECT_LE(10UL * seconds, reads);
}

TEST_HARNESS_MAIN
