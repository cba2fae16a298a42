// SPDX-License-Identifier: GPL-2.0
/*
 * Measure what a job costs its server on this machine beyond the CPU time
 * of its own code (hcbsctl overhead, --overhead auto).
 *
 * A job's WCET is the time its code runs.  Its server pays more: the
 * wakeup, the return to user space, the sleep's system call and the
 * context switches around it run in the task's context and are charged to
 * the group, and so are, without CONFIG_IRQ_TIME_ACCOUNTING, interrupts
 * that land while it runs.  Nothing outside the task can split a real
 * job's time into "its code" and "the rest", so the cost is measured on a
 * job whose code time is known: a SCHED_FIFO process alone in a temporary
 * reserved cgroup runs two series of periodic jobs, each spinning a fixed
 * amount of its own CPU time (CLOCK_THREAD_CPUTIME_ID), and the group's
 * cpu.rt.stat usage over each series is what the server was charged.
 * Per job, charged = a + (1 + b) W: a is the cost of an activation, b the
 * share that grows with the job's length; two job lengths give both.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "hcbs.h"
#include "hcbs-analysis.h"
#include "hcbs-rt.h"

/* The measurement's own reservation and its two series of jobs. */
#define OV_RUNTIME_US	40000
#define OV_PERIOD_US	100000
#define OV_PRIO		50

static const struct hcbs_overhead_run ov_plan[HCBS_OVERHEAD_RUNS] = {
	{ .work = 100 * 1000ULL, .period = 1000 * 1000ULL, .jobs = 1000 },
	{ .work = 2000 * 1000ULL, .period = 10 * 1000 * 1000ULL, .jobs = 100 },
};

void hcbs_overhead_fit(const struct hcbs_overhead_run run[HCBS_OVERHEAD_RUNS],
		       struct hcbs_overhead *ov)
{
	double y0 = (double)run[0].charged / run[0].jobs;
	double y1 = (double)run[1].charged / run[1].jobs;
	double w0 = (double)run[0].work, w1 = (double)run[1].work;
	double b = (y1 - y0) / (w1 - w0) - 1.0, a;

	/*
	 * Noise can make either part come out negative: a machine cannot
	 * charge less than the job's own time, so no part is below zero.
	 */
	if (b < 0)
		b = 0;
	a = y0 - (1.0 + b) * w0;
	if (a < 0)
		a = 0;
	memset(ov, 0, sizeof(*ov));
	ov->per_job = (uint64_t)(a + 0.5);
	/*
	 * Up to the next hundredth of a percent: sizing errs on the safe
	 * side (less a rounding error of the division, so that an exact 3%
	 * stays 3.00%).
	 */
	b = ceil(b * 10000.0 - 1e-6);
	ov->centi_percent = b > HCBS_OVERHEAD_MAX_PERCENT * 100 ?
			    HCBS_OVERHEAD_MAX_PERCENT * 100 : (uint32_t)b;
}

/*
 * The signals that stop a measurement: held (blocked) while the temporary
 * group exists, let in only while the parent waits for a series, so that
 * whatever it was doing when one came is finished and undone in order.
 * A signal ignored when we start (nohup, a shell's background job) stays
 * ignored.
 */
static const int ov_stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define OV_NSIG (sizeof(ov_stop_signals) / sizeof(ov_stop_signals[0]))
static volatile sig_atomic_t ov_caught;

static void ov_handler(int sig)
{
	ov_caught = sig;
}

struct ov_signals {
	sigset_t held, old;
	struct sigaction act[OV_NSIG], pipe_act;
	bool installed[OV_NSIG];
};

static void ov_signals_hold(struct ov_signals *s)
{
	struct sigaction sa, ign;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ov_handler;	/* no SA_RESTART: the wait returns EINTR */
	sigemptyset(&sa.sa_mask);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	ov_caught = 0;
	sigemptyset(&s->held);
	for (size_t i = 0; i < OV_NSIG; i++) {
		s->installed[i] = false;
		if (sigaction(ov_stop_signals[i], NULL, &s->act[i]) ||
		    s->act[i].sa_handler == SIG_IGN)
			continue;
		sigaddset(&s->held, ov_stop_signals[i]);
	}
	sigprocmask(SIG_BLOCK, &s->held, &s->old);
	for (size_t i = 0; i < OV_NSIG; i++)
		if (sigismember(&s->held, ov_stop_signals[i]))
			s->installed[i] = !sigaction(ov_stop_signals[i], &sa, NULL);
	/* A measured process that died must not kill us through its pipe. */
	sigaction(SIGPIPE, &ign, &s->pipe_act);
}

/*
 * The caller's handlers and mask again; returns the stop signal that came
 * (caught, or still pending), or 0.  Pending ones are taken here, before
 * the caller's dispositions could act on them.
 */
static int ov_signals_release(struct ov_signals *s)
{
	const struct timespec zero = { 0, 0 };
	int sig = ov_caught, x;

	while ((x = sigtimedwait(&s->held, NULL, &zero)) > 0)
		if (!sig)
			sig = x;
	for (size_t i = 0; i < OV_NSIG; i++)
		if (s->installed[i])
			sigaction(ov_stop_signals[i], &s->act[i], NULL);
	sigaction(SIGPIPE, &s->pipe_act, NULL);
	sigprocmask(SIG_SETMASK, &s->old, NULL);
	return sig;
}

/*
 * Wait for the byte of a finished series on @fd, with the stop signals let
 * in.  1: read; 0: end of file or an error (the process is gone); -1: a
 * stop signal came.
 */
static int ov_wait(int fd, const sigset_t *mask)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	for (;;) {
		int n;

		if (ov_caught)
			return -1;
		n = ppoll(&p, 1, NULL, mask);
		if (ov_caught)
			return -1;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 0;
		return read(fd, &c, 1) == 1 ? 1 : 0;
	}
}

/*
 * The measured process: the caller's signal dispositions back, join @dir,
 * go to @cpu, turn SCHED_FIFO, then for each series wait for a byte on
 * @go, run its jobs and answer a byte on @done.  Exits 0, or the step that
 * failed (1 cgroup, 2 affinity, 3 policy).
 */
static void __attribute__((noreturn)) ov_child(const char *dir, int cpu, int go, int done,
					       const struct ov_signals *s, pid_t parent)
{
	struct sched_param sp = { .sched_priority = OV_PRIO };
	cpu_set_t set;
	char c;

	for (size_t i = 0; i < OV_NSIG; i++)
		if (s->installed[i])
			sigaction(ov_stop_signals[i], &s->act[i], NULL);
	sigaction(SIGPIPE, &s->pipe_act, NULL);
	sigprocmask(SIG_SETMASK, &s->old, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);	/* the parent is already gone: nothing to measure */
	if (hcbs_cgroup_write(dir, "cgroup.procs", "0"))
		_exit(1);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(2);
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		_exit(3);
	for (int r = 0; r < HCBS_OVERHEAD_RUNS; r++) {
		const struct hcbs_overhead_run *p = &ov_plan[r];
		uint64_t release;

		if (read(go, &c, 1) != 1)
			_exit(0);
		release = hcbs_clock_ns(CLOCK_MONOTONIC) + p->period;
		for (unsigned int j = 0; j < p->jobs; j++, release += p->period) {
			hcbs_sleep_until(release);
			hcbs_burn(p->work);
		}
		/* settle: the last job's sleep is charged before the reading */
		usleep(20000);
		if (write(done, "d", 1) != 1)
			_exit(0);
	}
	_exit(0);
}

static bool has_word(const char *dir, const char *file, const char *word)
{
	char *text = NULL;
	bool found = false;

	if (hcbs_cgroup_read(dir, file, &text, NULL, 0))
		return false;
	for (char *t = strtok(text, " \n"); t; t = strtok(NULL, " \n"))
		if (!strcmp(t, word))
			found = true;
	free(text);
	return found;
}

static int usage_ns(const char *dir, uint64_t *ns, char *err, size_t errlen)
{
	struct hcbs_rt_stat st;

	if (hcbs_rt_read_stat(dir, &st, err, errlen))
		return -EIO;
	if (!st.valid) {
		hcbs_seterr(err, errlen, "%s/cpu.rt.stat has no usage_usec", dir);
		return -EIO;
	}
	*ns = st.usage_usec * 1000ULL;
	return 0;
}

/* Enable @ctl in @root's subtree_control unless it is: *@enabled if we did. */
static int ov_enable(const char *root, const char *ctl, bool *enabled, char *err, size_t errlen)
{
	char plus[32];
	int ret;

	*enabled = false;
	if (has_word(root, "cgroup.subtree_control", ctl))
		return HCBS_EXIT_OK;
	snprintf(plus, sizeof(plus), "+%s", ctl);
	ret = hcbs_cgroup_write(root, "cgroup.subtree_control", plus);
	if (ret) {
		hcbs_seterr(err, errlen, "%s/cgroup.subtree_control: cannot enable %s: %s",
			    root, ctl, strerror(-ret));
		return ret == -EACCES || ret == -EPERM ? HCBS_EXIT_PERM : HCBS_EXIT_SYSTEM;
	}
	*enabled = true;
	return HCBS_EXIT_OK;
}

void hcbs_overhead_count_reserved(const char *root, int cpu, int *all, int *on_cpu)
{
	*all = *on_cpu = 0;
	hcbs_reserved_below(root, NULL, all);
	hcbs_reserved_below_cpu(root, NULL, cpu, on_cpu);
}

int hcbs_overhead_measure(int cpu, struct hcbs_overhead_measurement *m, char *err,
			  size_t errlen)
{
	int go[2] = { -1, -1 }, done[2] = { -1, -1 }, version = 0, status, ret, w_ret;
	char root[PATH_MAX], e[HCBS_ERRLEN], w[HCBS_ERRLEN], cpustr[16];
	bool enabled_cpu = false, enabled_cpuset = false, made = false;
	enum hcbs_rt_abi abi;
	struct hcbs_rt to = { .runtime_us = OV_RUNTIME_US, .period_us = OV_PERIOD_US };
	struct hcbs_overhead_run runs[HCBS_OVERHEAD_RUNS];
	struct ov_signals sig;
	pid_t pid = -1, self;

	memset(m, 0, sizeof(*m));
	m->cpu = cpu;
	if (hcbs_cpu_cgroup_root(root, sizeof(root), &version, e, sizeof(e))) {
		hcbs_seterr(err, errlen, "no cpu cgroup hierarchy: %s", e);
		return HCBS_EXIT_NOHCBS;
	}
	if (version != 2) {
		hcbs_seterr(err, errlen, "measuring needs cgroup v2 (the cpu controller is on v1 here, at %s)",
			    root);
		return HCBS_EXIT_NOHCBS;
	}
	/* Nothing is touched on a kernel without HCBS (the root's cpu.rt.max). */
	ret = hcbs_rt_check(root, &abi, e, sizeof(e));
	if (ret) {
		hcbs_seterr(err, errlen, "%s", e);
		return ret;
	}
	/* Other groups' servers run beside the measured one: the caller warns. */
	hcbs_overhead_count_reserved(root, cpu, &m->reserved_groups, &m->reserved_on_cpu);
	ov_signals_hold(&sig);
	ret = ov_enable(root, "cpu", &enabled_cpu, err, errlen);
	if (ret)
		goto out;
	/*
	 * The group's reservation is taken on the CPUs of its cpuset: on
	 * @cpu alone when the controller is there, else on every CPU.
	 */
	m->cpuset = has_word(root, "cgroup.controllers", "cpuset");
	if (m->cpuset) {
		ret = ov_enable(root, "cpuset", &enabled_cpuset, err, errlen);
		if (ret)
			goto out;
	}
	if (snprintf(m->cgroup, sizeof(m->cgroup), "%s/hcbs-overhead-%d", root,
		     (int)getpid()) >= (int)sizeof(m->cgroup)) {
		hcbs_seterr(err, errlen, "cgroup path under %s too long", root);
		ret = HCBS_EXIT_SYSTEM;
		goto out;
	}
	if (mkdir(m->cgroup, 0755)) {
		ret = errno;
		hcbs_seterr(err, errlen, "cannot create %s: %s", m->cgroup, strerror(ret));
		ret = ret == EACCES || ret == EPERM || ret == EROFS ? HCBS_EXIT_PERM : HCBS_EXIT_SYSTEM;
		goto out;
	}
	made = true;
	snprintf(cpustr, sizeof(cpustr), "%d", cpu);
	if (m->cpuset && (w_ret = hcbs_cgroup_write(m->cgroup, "cpuset.cpus", cpustr))) {
		hcbs_seterr(err, errlen, "%s/cpuset.cpus: cannot restrict the group to CPU %d: %s",
			    m->cgroup, cpu, strerror(-w_ret));
		ret = HCBS_EXIT_SYSTEM;
		goto out;
	}
	ret = hcbs_reserve(m->cgroup, &to, NULL, NULL, e, sizeof(e), w, sizeof(w));
	if (ret) {
		hcbs_seterr(err, errlen, "the measurement's own reservation (%uus/%uus): %s",
			    OV_RUNTIME_US, OV_PERIOD_US, e);
		goto out;
	}
	if (pipe2(go, O_CLOEXEC) || pipe2(done, O_CLOEXEC)) {
		hcbs_seterr(err, errlen, "pipe: %s", strerror(errno));
		ret = HCBS_EXIT_SYSTEM;
		goto out;
	}
	fflush(NULL);
	self = getpid();
	pid = fork();
	if (pid < 0) {
		hcbs_seterr(err, errlen, "fork: %s", strerror(errno));
		ret = HCBS_EXIT_SYSTEM;
		goto out;
	}
	if (pid == 0) {
		close(go[1]);
		close(done[0]);
		ov_child(m->cgroup, cpu, go[0], done[1], &sig, self);
	}
	close(go[0]);
	close(done[1]);
	go[0] = done[1] = -1;
	for (int r = 0; r < HCBS_OVERHEAD_RUNS; r++) {
		uint64_t u0, u1;

		m->run[r] = ov_plan[r];
		ret = HCBS_EXIT_SYSTEM;
		if (usage_ns(m->cgroup, &u0, err, errlen))
			goto out;
		if (write(go[1], "g", 1) != 1 || ov_wait(done[0], &sig.old) != 1)
			break;
		if (usage_ns(m->cgroup, &u1, err, errlen))
			goto out;
		m->run[r].charged = u1 - u0;
	}
	if (ov_caught)
		goto out;
	close(go[1]);
	go[1] = -1;
	if (waitpid(pid, &status, 0) != pid) {
		hcbs_seterr(err, errlen, "waitpid: %s", strerror(errno));
		goto out;
	}
	pid = -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		static const char *const step[] = {
			"ran", "could not join the cgroup", "could not move to the CPU",
			"could not turn SCHED_FIFO",
		};
		int s = WIFEXITED(status) ? WEXITSTATUS(status) : 0;

		hcbs_seterr(err, errlen, "the measured process on CPU %d %s (status 0x%x)", cpu,
			    s > 0 && s < 4 ? step[s] : "failed", status);
		ret = s == 3 ? HCBS_EXIT_PERM : HCBS_EXIT_SYSTEM;
		goto out;
	}
	for (int r = 0; r < HCBS_OVERHEAD_RUNS; r++) {
		if (m->run[r].charged < m->run[r].jobs * m->run[r].work / 2) {
			hcbs_seterr(err, errlen, "series %d: the group was charged %llu ns for %u jobs of %llu ns: cpu.rt.stat does not count this group's RT time",
				    r + 1, (unsigned long long)m->run[r].charged, m->run[r].jobs,
				    (unsigned long long)m->run[r].work);
			goto out;
		}
	}
	/* Through a copy: GCC 12's UBSan build misjudges the member's size. */
	memcpy(runs, m->run, sizeof(runs));
	hcbs_overhead_fit(runs, &m->fit);
	ret = HCBS_EXIT_OK;
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (done[i] >= 0)
			close(done[i]);
	}
	if (made) {
		/* the child's exit is asynchronous for the cgroup: retry a little */
		for (int i = 0; i < 100 && rmdir(m->cgroup) && errno == EBUSY; i++)
			usleep(10000);
	}
	if (enabled_cpuset)
		hcbs_cgroup_write(root, "cgroup.subtree_control", "-cpuset");
	if (enabled_cpu)
		hcbs_cgroup_write(root, "cgroup.subtree_control", "-cpu");
	m->signal = ov_signals_release(&sig);
	if (m->signal) {
		const char *name = m->signal == SIGINT ? "SIGINT" :
				   m->signal == SIGTERM ? "SIGTERM" : "SIGHUP";

		if (made && !access(m->cgroup, F_OK))
			hcbs_seterr(err, errlen, "interrupted by %s: the measured process was killed, but %s could not be removed: rmdir it",
				    name, m->cgroup);
		else if (made)
			hcbs_seterr(err, errlen, "interrupted by %s: the measured process was killed and %s removed",
				    name, m->cgroup);
		else
			hcbs_seterr(err, errlen, "interrupted by %s before the temporary group was made",
				    name);
		ret = HCBS_EXIT_SYSTEM;
	}
	return ret;
}

int hcbs_overhead_default_cpu(void)
{
	int cpus[HCBS_ANALYSIS_MAX_CPUS];
	int n = hcbs_online_cpus(cpus, HCBS_ANALYSIS_MAX_CPUS);

	if (n <= 0)
		return -1;
	return cpus[(n < HCBS_ANALYSIS_MAX_CPUS ? n : HCBS_ANALYSIS_MAX_CPUS) - 1];
}
