// SPDX-License-Identifier: GPL-2.0
/*
 * Migration stress of the HCBS kernel, and the workload of the soak
 * (scripts/soak).  For HCBS_STRESS_SECONDS (default 120) it runs at once:
 *
 *   - NWORKERS SCHED_FIFO/SCHED_RR processes of various priorities, mostly
 *     unpinned, in the groups below.  Each loops on: sleep 1-20 ms, spin
 *     50-1000 us (now and then 5-30 ms, which exhausts the small servers:
 *     push on throttle, pull on replenish) of wall time, so that a
 *     throttled burst ends anyway and no worker keeps the others of its
 *     group off its servers for long; change its own priority, FIFO <-> RR,
 *     its affinity (one CPU / all), sched_yield(); and now and then a
 *     section under one or two of NMUTEX PTHREAD_PRIO_INHERIT mutexes in
 *     shared memory, taken in index order (chains of owners and waiters
 *     across groups and CPUs form by themselves);
 *   - a controller (the test process, SCHED_OTHER, unpinned) that every
 *     2-12 ms, at random: changes a worker's priority, policy (FIFO, RR,
 *     OTHER and back), affinity, or moves it to another group; changes a
 *     group's cpu.rt.max (runtime and period), sets a group to max and
 *     back, sets a group to "0 P" and back; creates a group (at the top or
 *     nested), moves workers in, moves them out and removes it; creates
 *     and removes a chain of three nested groups the same way.
 *
 * The groups, below the test's top group (reservations in us):
 *
 *   a    20000/100000, +cpu   a/t  max: runs in a's reservation
 *                             a/c  5000/100000: reserved inside a
 *   b    10000/50000          z    10000/100000, sometimes 0 (forbids RT)
 *   u1   max (unreserved)     u2   max, +cpu, sometimes 0 or reserved
 *   e    dynamic: at the top or in u2; d1/d2/d3: a dynamic nested chain
 *
 * It asserts:
 *   - every operation's result, from a model of the groups and workers:
 *     a move is refused (EINVAL) exactly when an RT worker (or a boosted
 *     one) goes into a group whose reservation has no runtime;
 *     sched_setscheduler() to RT is refused (EPERM) exactly there;
 *     "0 P" is refused (EBUSY) exactly when an RT worker runs in that
 *     reservation or a reserved child would not fit;
 *     other cpu.rt.max writes only ever fail with EBUSY (admission); the
 *     rest (priority, affinity, moves elsewhere, mkdir) never fail; rmdir
 *     of an emptied group only with EBUSY (retried).  Any other errno
 *     (ENOMEM, EIO, ...) fails;
 *   - cpu.rt.max reads back what was accepted; a moved worker is in its
 *     new group;
 *   - nobody gets stuck: each worker bumps a heartbeat in shared memory
 *     (every loop, and while it spins); one that does not move for
 *     HCBS_STRESS_STALL_S (10 s; 30 s under TCG, where a vCPU can be
 *     stalled by the host for seconds and every system call of the loop
 *     is tens of times slower) fails the test, with a dump of its state.
 *     A worker never sleeps more than 20 ms and never waits more than 2 s
 *     for a mutex, and, the bursts being wall-clock bounded, a group's
 *     higher-priority workers cannot keep its lower ones off its servers
 *     for more than a period or so.  No controller operation may take
 *     longer either;
 *   - every ~2 s: debugfs's rt_groups_bw is the modelled sum of the
 *     reservations nearest below the root (kernel fixed point), and every
 *     CPU's dl_bw->total_bw is its value at setup (no deadline tasks here);
 *   - at the end, once the workers stopped and the groups are removed:
 *     every CPU's dl_bw->total_bw and rt_groups_bw back to their values at
 *     setup; and minimum counts of operations (scaled to the duration; a
 *     run that did nothing fails);
 *   - global fixed priority, from the trace (sched_switch, sched_wakeup,
 *     sched_migrate_task, sched_pi_setprio and the test's own markers of
 *     every change it makes) in windows of a few seconds: the longest time
 *     an RT worker of a reservation stayed runnable but not running while
 *     a lower-priority worker of the same reservation ran on a CPU the
 *     waiter may use.  Reported; a warning above a tick (4 ms, 20 ms under
 *     TCG where an IPI takes milliseconds); a failure only above one full
 *     period of that reservation plus 5 ms (20 ms under TCG): a waiter
 *     neither pushed nor pulled would at worst wait for its own server's
 *     replenishment.  Intervals that overlap a change of either task or of
 *     a reservation, or a priority-inheritance section, are not counted.
 *
 * HCBS_STRESS_SEED=N repeats the seed (printed); the controller's choices
 * depend on it and on what it finds (the kernel's answers, a worker busy
 * with its own change), each worker's on it alone; timing makes runs
 * differ.  HCBS_STRESS_TRACE=0 turns the trace windows off,
 * HCBS_STRESS_TRACE_KEEP=DIR keeps each window's text there.  Under TCG a
 * 120 s run takes about 165 s in all.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "hcbs_ksft.h"

#define NWORKERS	8
#define NMUTEX		3
#define PATHLEN		512
#define MAXCPUS		64
#define TRACE_INST	"hcbs-stress"

/* ------------------------------------------------------------ randomness */
static uint64_t xrnd(uint64_t *s)
{
	/* xorshift64* */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static uint64_t xbelow(uint64_t *s, uint64_t n)
{
	return n ? xrnd(s) % n : 0;
}

/* ---------------------------------------------------------------- groups */
enum { G_A, G_AT, G_AC, G_B, G_Z, G_U1, G_U2, G_E, G_D1, G_D2, G_D3, NGROUPS };

#define RT_MAX	(-1LL)		/* model: cpu.rt.max "max" */

struct group {
	const char *name;
	int parent;		/* group index, -1: the test's top group */
	bool inner;		/* +cpu in subtree_control, never holds tasks */
	bool dynamic;		/* created and removed during the run */
	bool can_max, can_zero, fixed;
	double bw_min, bw_max;	/* of a reservation the controller writes */
	long long periods[3];	/* us; 0 ends the list */
	/* state */
	bool live, draining;
	char path[PATHLEN];
	long long q, p;		/* us; q == RT_MAX: max */
	long long p_win;	/* longest period since the trace window began */
	unsigned int rmdir_busy;
};

static const struct group group_init[NGROUPS] = {
	[G_A]  = { "a",   -1,   true,  false, true,  false, false, 0.10, 0.35, { 50000, 100000, 200000 } },
	[G_AT] = { "t",   G_A,  false, false, false, false, true },
	[G_AC] = { "c",   G_A,  false, false, true,  false, false, 0.02, 0.05, { 20000, 100000 } },
	[G_B]  = { "b",   -1,   false, false, true,  false, false, 0.10, 0.25, { 20000, 50000, 100000 } },
	[G_Z]  = { "z",   -1,   false, false, true,  true,  false, 0.05, 0.10, { 100000 } },
	[G_U1] = { "u1",  -1,   false, false, false, false, true },
	[G_U2] = { "u2",  -1,   true,  false, true,  true,  false, 0.10, 0.15, { 100000 } },
	[G_E]  = { "e",   -1,   false, true,  true,  false, false, 0.03, 0.08, { 50000, 100000 } },
	[G_D1] = { "d1",  -1,   true,  true,  false, false, false, 0.05, 0.10, { 100000 } },
	[G_D2] = { "d2",  G_D1, true,  true,  false, false, true },
	[G_D3] = { "d3",  G_D2, false, true,  true,  false, false, 0.02, 0.04, { 20000, 100000 } },
};

/* --------------------------------------------------------- shared memory */
struct worker {
	pid_t pid;
	volatile uint64_t hb;		/* heartbeat */
	volatile int state;		/* enum wstate, for the dumps */
	volatile uint32_t pi_seq;	/* odd inside a mutex section */
	/*
	 * Serialises changes of policy, priority and affinity between the
	 * controller and the worker itself (both take it with trylock), so
	 * that the model below is exact.
	 */
	pthread_mutex_t lock;
	int policy, prio, cpu;		/* model, under lock; cpu -1: all */
	volatile int group, eff;	/* model, controller only */
	uint64_t rng;
	/* the worker's own counts */
	uint64_t n_sleep, n_burst, n_long, n_prio, n_policy, n_aff, n_yield, n_lockbusy;
	uint64_t n_pi, n_pi_nested, n_pi_contended, n_pi_timeout;
	volatile int bad_err;		/* first unexpected result, -errno */
	char bad_what[96];
};

enum wstate { W_RUN, W_SLEEP, W_BURST, W_SELF, W_PI_WAIT, W_PI_HOLD, W_DONE };
static const char *const wstate_name[] = {
	"loop", "sleeping", "spinning", "changing itself", "waiting for a mutex",
	"holding a mutex", "done",
};

struct shm {
	volatile int stop;
	volatile int tracing;		/* the workers write markers */
	volatile int marker_lost;
	int marker_fd;
	pthread_mutex_t pi[NMUTEX];
	struct worker w[NWORKERS];
};

/* --------------------------------------------------------------- the test */
enum {
	C_PRIO, C_POLICY, C_AFF, C_MOVE, C_MOVE_EINVAL, C_MOVE_EINVAL_BOOSTED,
	C_EPERM, C_RT, C_RT_EBUSY, C_MAX, C_MAX_EBUSY, C_UNMAX, C_ZERO,
	C_ZERO_EBUSY, C_ZERO_EBUSY_CHILD, C_ZERO_EBUSY_BOOSTED, C_UNZERO, C_MKDIR, C_RMDIR,
	C_RMDIR_EBUSY, C_LOCKED, C_BWCHECK, C_CYCLES, C_TRACE_WIN, NCOUNT
};
static const char *const count_name[NCOUNT] = {
	"priority changes", "policy changes", "affinity changes", "moves",
	"moves refused EINVAL (RT into a group without runtime)",
	"moves refused EINVAL (a boosted SCHED_OTHER worker)",
	"sched_setscheduler EPERM (RT in a group without runtime)",
	"runtime/period changes", "reservations refused EBUSY (admission)",
	"set to max", "max refused EBUSY", "max to a reservation",
	"set to 0", "0 refused EBUSY (RT tasks in it)",
	"0 refused EBUSY (a reserved child)",
	"0 refused EBUSY (a boosted SCHED_OTHER worker)", "0 to a reservation",
	"mkdir", "rmdir", "rmdir EBUSY (retried)",
	"worker busy with its own change (skipped)", "bandwidth checks",
	"dynamic group lifecycles", "trace windows analysed",
};

struct tstate {
	pid_t pid;
	bool runnable, running, known, inpi;
	int cpu, prio, eff, flux;
	unsigned int aff;
	uint64_t viol_start, wait_start;
	int viol_eff, viol_runner, viol_rprio, viol_rcpu, viol_wprio;
};

struct stress {
	struct __test_metadata *md;
	struct hcbs_env *env;
	struct shm *s;
	uint64_t seed, rng;
	struct group g[NGROUPS];
	unsigned long c[NCOUNT];
	int nr_cpus;
	long long groups_bw0;		/* rt_groups_bw at setup */
	long long total_bw0[MAXCPUS];	/* raw dl_bw->total_bw at setup */
	uint64_t stall_ns;
	uint64_t last_hb[NWORKERS], last_hb_t[NWORKERS];
	uint64_t op_start_ns, longest_op_ns;
	char op_name[160];
	bool slow;
	/* tracing */
	char trace_dir[PATHLEN];
	bool trace;
	unsigned int win_ms;
	uint64_t fp_max_ns[NGROUPS], fp_n[NGROUPS], fp_over_warn[NGROUPS];
	long long fp_p[NGROUPS];
	char fp_what[NGROUPS][128];
	struct tstate *ts;		/* the window being replayed */
	uint64_t fp_events;
	uint64_t wait_ns, wait_max_ns, nwait;	/* all waits, for scale */
	volatile bool done;
	char hist[16][200];
	unsigned int nhist;
};

static struct stress st;

static void remember(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st.hist[st.nhist++ % 16], sizeof(st.hist[0]), fmt, ap);
	va_end(ap);
}

static void history(void)
{
	unsigned int i = st.nhist > 16 ? st.nhist - 16 : 0;

	hcbs_note("the last %u operations (HCBS_STRESS_SEED=%" PRIu64 "):", st.nhist - i, st.seed);
	for (; i < st.nhist; i++)
		hcbs_note("  %u: %s", i, st.hist[i % 16]);
}

#define STRESS_FAIL(...) do {						\
	struct __test_metadata *_metadata = st.md;			\
	history();							\
	TH_LOG(__VA_ARGS__);						\
	ASSERT_TRUE(0);							\
} while (0)

static const char *errname(int err)
{
	const char *n = err ? strerrorname_np(err < 0 ? -err : err) : NULL;

	return err ? (n ? n : "unknown errno") : "ok";
}

static const char *polname(int policy)
{
	return policy == SCHED_FIFO ? "FIFO" : policy == SCHED_RR ? "RR" : "OTHER";
}

static bool rt_policy(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

/* The kernel's prio of a policy and rt priority (sched_switch's prio). */
static int kprio(int policy, int prio)
{
	return rt_policy(policy) ? 99 - prio : 120;
}

/* --------------------------------------------------------------- markers */
/* A line in the trace window (the workers' and the controller's changes). */
static void marker(const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int n;

	if (!st.s || !st.s->tracing || st.s->marker_fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/*
	 * A marker that cannot be written while the window is open makes it
	 * unreliable; one that races with its end (the ring buffer is off:
	 * EBADF) does not matter.
	 */
	if (n > 0 && write(st.s->marker_fd, buf, n) < 0 && st.s->tracing)
		st.s->marker_lost = 1;
}

/* ------------------------------------------------------------ the model */
static bool reserved(const struct group *g)
{
	return g->q != RT_MAX;
}

/* to_ratio(): bandwidth in fixed point, 1.0 = 1 << 20, floored. */
static uint64_t to_ratio(long long p_us, long long q_us)
{
	return p_us ? ((uint64_t)q_us * 1000 << HCBS_BW_SHIFT) / ((uint64_t)p_us * 1000) : 0;
}

/* The reservation a group's RT tasks run in: a group index, -1 the root. */
static int eff_of(int gi)
{
	for (int i = gi; i >= 0; i = st.g[i].parent)
		if (reserved(&st.g[i]))
			return i;
	return -1;
}

/* Bandwidth of the reserved groups nearest below @gi (-1: the root). */
static uint64_t children_bw(int gi)
{
	uint64_t sum = 0;

	for (int i = 0; i < NGROUPS; i++) {
		const struct group *g = &st.g[i];
		int r;

		if (!g->live || !reserved(g) || i == gi)
			continue;
		/* nearest reserved ancestor of i, not counting i */
		r = g->parent;
		while (r >= 0 && !reserved(&st.g[r]))
			r = st.g[r].parent;
		if (r == gi)
			sum += to_ratio(g->p, g->q);
	}
	return sum;
}

/* Does the reservation of group @gi forbid RT tasks (no runtime left)? */
static bool forbids_rt(int gi)
{
	int r = eff_of(gi);

	if (r < 0)
		return false;
	return to_ratio(st.g[r].p, st.g[r].q) <= children_bw(r);
}

static void fmt_max(const struct group *g, char *out, size_t len)
{
	if (reserved(g))
		snprintf(out, len, "%lld %lld", g->q, g->p);
	else
		snprintf(out, len, "max %lld", g->p);
}

/* ------------------------------------------------------------- debugfs */
/*
 * Per CPU, the root domain's dl_bw->total_bw as debugfs prints it (without
 * the groups), and rt_groups_bw.  Returns the number of CPUs or -errno.
 */
/*
 * rt_groups_bw is the modelled sum of the reservations nearest below the
 * root, every CPU's total_bw its value at setup.  A removed group's
 * bandwidth goes when its css is freed (after RCU): wait up to 3 s.
 */
static void check_bw(void)
{
	long long total[MAXCPUS], groups[MAXCPUS];
	long long want = st.groups_bw0 + (long long)children_bw(-1);
	uint64_t end = hcbs_now_ns() + 3 * HCBS_NSEC_PER_SEC;
	int n, bad;

	for (;;) {
		n = hcbs_dl_bw(total, groups, MAXCPUS);
		if (n < 0)
			STRESS_FAIL("cannot read /sys/kernel/debug/sched/debug: %s", errname(n));
		bad = -1;
		for (int cpu = 0; cpu < n && bad < 0; cpu++)
			if (groups[cpu] != want)
				bad = MAXCPUS + cpu;
		for (int cpu = 0; cpu < n && bad < 0; cpu++)
			if (total[cpu] != st.total_bw0[cpu])
				bad = cpu;
		if (bad < 0 || hcbs_now_ns() > end)
			break;
		hcbs_sleep_ms(50);
	}
	st.c[C_BWCHECK]++;
	if (bad >= MAXCPUS)
		STRESS_FAIL("CPU %d: rt_groups_bw is %lld, the groups reserve %lld (%lld at setup + %" PRIu64 " in the test's groups)",
			    bad - MAXCPUS, groups[bad - MAXCPUS], want, st.groups_bw0,
			    children_bw(-1));
	if (bad >= 0)
		STRESS_FAIL("CPU %d: dl_bw->total_bw %lld, %lld at setup (the test has no deadline task)",
			    bad, total[bad], st.total_bw0[bad]);
}

/* ------------------------------------------------------------- workers */
static void wfail(struct worker *w, int err, const char *fmt, ...)
{
	va_list ap;

	if (w->bad_err)
		return;
	va_start(ap, fmt);
	vsnprintf(w->bad_what, sizeof(w->bad_what), fmt, ap);
	va_end(ap);
	__atomic_store_n(&w->bad_err, err ? err : -EPROTO, __ATOMIC_RELEASE);
}

static void spin_us(struct worker *w, uint64_t us)
{
	uint64_t end = hcbs_now_ns() + us * HCBS_NSEC_PER_USEC;

	/* CLOCK_MONOTONIC is the vDSO: no system call, no RCU section */
	while (hcbs_now_ns() < end)
		w->hb++;
}

static void sleep_us(uint64_t us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

static void affinity_set(int cpu, cpu_set_t *set)
{
	CPU_ZERO(set);
	if (cpu >= 0) {
		CPU_SET(cpu, set);
		return;
	}
	for (int c = 0; c < st.nr_cpus && c < CPU_SETSIZE; c++)
		CPU_SET(c, set);
}

static unsigned int aff_mask(int cpu)
{
	return cpu >= 0 ? 1u << cpu : (1u << st.nr_cpus) - 1;
}

/* A change of the worker's own policy, priority or affinity. */
static void worker_self(struct worker *w, unsigned int what)
{
	struct sched_param sp;
	cpu_set_t set;
	int policy, prio, cpu;

	if (pthread_mutex_trylock(&w->lock)) {
		w->n_lockbusy++;
		return;
	}
	w->state = W_SELF;
	marker("hcbs B %d", w->pid);
	if (what == 2) {
		cpu = xbelow(&w->rng, 10) < 6 ? -1 : (int)xbelow(&w->rng, st.nr_cpus);
		affinity_set(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			wfail(w, -errno, "own affinity to %d", cpu);
		else
			w->cpu = cpu;
		w->n_aff++;
		marker("hcbs A %d %u", w->pid, aff_mask(w->cpu));
	} else if (rt_policy(w->policy)) {
		/* only within RT: the controller alone changes the class */
		policy = w->policy;
		if (what == 1)
			policy = policy == SCHED_FIFO ? SCHED_RR : SCHED_FIFO;
		prio = what == 0 ? 1 + (int)xbelow(&w->rng, 60) : w->prio;
		sp.sched_priority = prio;
		if (sched_setscheduler(0, policy, &sp)) {
			wfail(w, -errno, "own %s %d -> %s %d", polname(w->policy), w->prio,
			      polname(policy), prio);
		} else {
			w->policy = policy;
			w->prio = prio;
		}
		if (what == 0)
			w->n_prio++;
		else
			w->n_policy++;
		marker("hcbs P %d %d", w->pid, kprio(w->policy, w->prio));
	}
	marker("hcbs E %d", w->pid);
	pthread_mutex_unlock(&w->lock);
}

static int pi_lock(struct shm *s, struct worker *w, int k)
{
	struct timespec ts;
	int err = pthread_mutex_trylock(&s->pi[k]);

	if (err != EBUSY)
		return err;
	w->n_pi_contended++;
	w->state = W_PI_WAIT;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 2;
	err = pthread_mutex_timedlock(&s->pi[k], &ts);
	if (err == ETIMEDOUT)
		w->n_pi_timeout++;
	return err;
}

/*
 * A section under mutex k (and k + 1, nested, now and then): index order,
 * so no deadlock; chains of owners and waiters form across groups and
 * CPUs as the workers move.
 */
static void worker_pi(struct shm *s, struct worker *w)
{
	int k = (int)xbelow(&w->rng, NMUTEX), err;
	bool nested = k + 1 < NMUTEX && xbelow(&w->rng, 10) < 4;

	w->pi_seq++;
	marker("hcbs L %d 1", w->pid);
	err = pi_lock(s, w, k);
	if (err == ETIMEDOUT)
		goto out;
	if (err) {
		wfail(w, -err, "lock PI mutex %d", k);
		goto out;
	}
	w->state = W_PI_HOLD;
	w->n_pi++;
	if (nested) {
		err = pi_lock(s, w, k + 1);
		if (!err) {
			w->state = W_PI_HOLD;
			w->n_pi_nested++;
			spin_us(w, 100 + xbelow(&w->rng, 900));
			pthread_mutex_unlock(&s->pi[k + 1]);
		} else if (err != ETIMEDOUT) {
			wfail(w, -err, "lock PI mutex %d holding %d", k + 1, k);
		}
	} else {
		spin_us(w, 100 + xbelow(&w->rng, 900));
	}
	pthread_mutex_unlock(&s->pi[k]);
out:
	marker("hcbs L %d 0", w->pid);
	w->pi_seq++;
}

static void __attribute__((noreturn)) worker_main(struct shm *s, int i, int go)
{
	struct worker *w = &s->w[i];
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (read(go, &c, 1) != 1)
		_exit(1);
	close(go);
	while (!s->stop) {
		unsigned int r = (unsigned int)xbelow(&w->rng, 100);

		w->hb++;
		w->state = W_RUN;
		if (r < 45) {
			w->state = W_SLEEP;
			w->n_sleep++;
			sleep_us(1000 + xbelow(&w->rng, 19000));
		} else if (r < 77) {
			w->state = W_BURST;
			w->n_burst++;
			spin_us(w, 50 + xbelow(&w->rng, 950));
		} else if (r < 80) {
			/* long enough to exhaust the small servers: push, pull */
			w->state = W_BURST;
			w->n_long++;
			spin_us(w, 5000 + xbelow(&w->rng, 25000));
		} else if (r < 87) {
			worker_self(w, 0);
		} else if (r < 90) {
			worker_self(w, 1);
		} else if (r < 94) {
			worker_self(w, 2);
		} else if (r < 96) {
			w->n_yield++;
			sched_yield();
		} else {
			worker_pi(s, w);
		}
	}
	w->state = W_DONE;
	_exit(0);
}

/* ------------------------------------------------------------- controller */
static void op_begin(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st.op_name, sizeof(st.op_name), fmt, ap);
	va_end(ap);
	__atomic_store_n(&st.op_start_ns, hcbs_now_ns(), __ATOMIC_RELEASE);
}

static void op_end(void)
{
	uint64_t d = hcbs_now_ns() - st.op_start_ns;

	__atomic_store_n(&st.op_start_ns, 0, __ATOMIC_RELEASE);
	if (d > st.longest_op_ns)
		st.longest_op_ns = d;
	if (d > st.stall_ns)
		STRESS_FAIL("'%s' took %.1f s (allowed: %.0f s)", st.op_name, d / 1e9,
			    st.stall_ns / 1e9);
}

/* The errnos every write may fail with in this test: the rest fail it. */
static void err_class(int err, const char *what)
{
	if (err && err != -EINVAL && err != -EBUSY && err != -EPERM && err != -ENOSPC)
		STRESS_FAIL("%s: %s (only EINVAL, EBUSY, EPERM, ENOSPC are ever expected)",
			    what, errname(err));
}

static int pick_worker(void)
{
	return (int)xbelow(&st.rng, NWORKERS);
}

/* Set worker @i's group model, and tell the trace. */
static void set_worker_group(int i, int gi)
{
	struct worker *w = &st.s->w[i];

	w->group = gi;
	w->eff = eff_of(gi);
	marker("hcbs G %d %d", w->pid, w->eff);
}

/* Reservations changed: every worker's effective one again. */
static void reeval_effs(void)
{
	if (!st.s)
		return;
	for (int i = 0; i < NWORKERS; i++)
		set_worker_group(i, st.s->w[i].group);
}

static void ctl_prio(void)
{
	int i = pick_worker(), prio, err;
	struct worker *w = &st.s->w[i];

	if (pthread_mutex_trylock(&w->lock)) {
		st.c[C_LOCKED]++;
		return;
	}
	if (rt_policy(w->policy)) {
		prio = 1 + (int)xbelow(&st.rng, 60);
		op_begin("w%d %s %d -> %d", i, polname(w->policy), w->prio, prio);
		marker("hcbs B %d", w->pid);
		err = hcbs_set_policy(w->pid, w->policy, prio);
		remember("%s: %s", st.op_name, errname(err));
		if (err) {
			pthread_mutex_unlock(&w->lock);
			STRESS_FAIL("%s: %s; a priority change within RT never fails", st.op_name,
				    errname(err));
		}
		w->prio = prio;
		st.c[C_PRIO]++;
		marker("hcbs P %d %d", w->pid, kprio(w->policy, w->prio));
		marker("hcbs E %d", w->pid);
		op_end();
	}
	pthread_mutex_unlock(&w->lock);
}

static void ctl_policy(void)
{
	static const int pols[] = { SCHED_FIFO, SCHED_RR, SCHED_OTHER };
	int i = pick_worker(), policy, prio, err, want;
	struct worker *w;

	/* now and then a SCHED_OTHER worker where RT is forbidden, if any */
	if (xbelow(&st.rng, 4) == 0) {
		for (int k = 0, j = i; k < NWORKERS; k++, j = (j + 1) % NWORKERS)
			if (!rt_policy(st.s->w[j].policy) && forbids_rt(st.s->w[j].group)) {
				i = j;
				break;
			}
	}
	w = &st.s->w[i];

	if (pthread_mutex_trylock(&w->lock)) {
		st.c[C_LOCKED]++;
		return;
	}
	do
		policy = pols[xbelow(&st.rng, 3)];
	while (policy == w->policy);
	prio = rt_policy(policy) ? 1 + (int)xbelow(&st.rng, 60) : 0;
	/* RT in a group without runtime: refused by design */
	want = rt_policy(policy) && forbids_rt(w->group) ? -EPERM : 0;
	op_begin("w%d in %s: %s %d -> %s %d", i, st.g[w->group].name, polname(w->policy),
		 w->prio, polname(policy), prio);
	marker("hcbs B %d", w->pid);
	err = hcbs_set_policy(w->pid, policy, prio);
	remember("%s: %s (model: %s)", st.op_name, errname(err), errname(want));
	if (err != want) {
		pthread_mutex_unlock(&w->lock);
		STRESS_FAIL("%s: %s, expected %s", st.op_name, errname(err), errname(want));
	}
	if (err) {
		st.c[C_EPERM]++;
	} else {
		w->policy = policy;
		w->prio = prio;
		st.c[C_POLICY]++;
	}
	marker("hcbs P %d %d", w->pid, kprio(w->policy, w->prio));
	marker("hcbs E %d", w->pid);
	op_end();
	pthread_mutex_unlock(&w->lock);
}

static void ctl_affinity(void)
{
	int i = pick_worker(), cpu, err;
	struct worker *w = &st.s->w[i];

	if (pthread_mutex_trylock(&w->lock)) {
		st.c[C_LOCKED]++;
		return;
	}
	cpu = xbelow(&st.rng, 10) < 6 ? -1 : (int)xbelow(&st.rng, st.nr_cpus);
	op_begin("w%d affinity %d -> %d", i, w->cpu, cpu);
	marker("hcbs B %d", w->pid);
	err = cpu < 0 ? hcbs_unpin(w->pid) : hcbs_pin_cpu(w->pid, cpu);
	remember("%s: %s", st.op_name, errname(err));
	if (err) {
		pthread_mutex_unlock(&w->lock);
		STRESS_FAIL("%s: %s; affinity changes never fail here", st.op_name, errname(err));
	}
	w->cpu = cpu;
	st.c[C_AFF]++;
	marker("hcbs A %d %u", w->pid, aff_mask(cpu));
	marker("hcbs E %d", w->pid);
	op_end();
	pthread_mutex_unlock(&w->lock);
}

/* Move worker @i to group @to; the expected result from the model. */
static void move_worker(int i, int to)
{
	struct worker *w = &st.s->w[i];
	int from = w->group, err;
	uint32_t seq0 = w->pi_seq, seq1;
	bool rt = rt_policy(w->policy), boosted;
	char cg[PATHLEN];

	op_begin("w%d (%s %d) %s -> %s", i, polname(w->policy), w->prio, st.g[from].name,
		 st.g[to].name);
	marker("hcbs B %d", w->pid);
	err = hcbs_cg_attach(st.g[to].path, w->pid);
	seq1 = w->pi_seq;
	/* in a mutex section: maybe boosted to RT by a waiter */
	boosted = (seq0 & 1) || seq0 != seq1;
	remember("%s%s: %s (forbids RT: %d)", st.op_name, boosted ? " (in a PI section)" : "",
		 errname(err), forbids_rt(to));
	err_class(err, st.op_name);
	if (!err) {
		if (rt && forbids_rt(to))
			STRESS_FAIL("%s: accepted, but %s forbids RT tasks (no runtime)",
				    st.op_name, st.g[to].path);
		set_worker_group(i, to);
		st.c[C_MOVE]++;
	} else if (err == -EINVAL && forbids_rt(to) && rt) {
		st.c[C_MOVE_EINVAL]++;
	} else if (err == -EINVAL && forbids_rt(to) && boosted) {
		st.c[C_MOVE_EINVAL_BOOSTED]++;
	} else {
		STRESS_FAIL("%s: %s; %s %s RT tasks", st.op_name, errname(err), st.g[to].path,
			    forbids_rt(to) ? "forbids" : "accepts");
	}
	marker("hcbs E %d", w->pid);
	if (hcbs_task_cgroup(w->pid, cg, sizeof(cg)))
		STRESS_FAIL("worker %d (pid %d) is gone", i, w->pid);
	if (strcmp(cg, st.g[w->group].path))
		STRESS_FAIL("worker %d is in %s, expected %s after '%s': %s", i, cg,
			    st.g[w->group].path, st.op_name, errname(err));
	op_end();
}

static bool leaf_ok(int gi)
{
	const struct group *g = &st.g[gi];

	return g->live && !g->inner && !g->draining;
}

static void ctl_move(void)
{
	int i = pick_worker(), to;

	do
		to = (int)xbelow(&st.rng, NGROUPS);
	while (!leaf_ok(to));
	if (to != st.s->w[i].group)
		move_worker(i, to);
}

/* Write cpu.rt.max of @gi; 0 or -errno, the model updated if accepted. */
static int write_max(int gi, long long q, long long p)
{
	struct group *g = &st.g[gi];
	char val[64], got[64], want[64];
	int err;

	if (q == RT_MAX)
		snprintf(val, sizeof(val), "max");
	else
		snprintf(val, sizeof(val), "%lld %lld", q, p);
	fmt_max(g, got, sizeof(got));
	op_begin("%s/cpu.rt.max: %s -> %s", g->name, got, val);
	marker("hcbs X B");
	err = hcbs_cg_write(g->path, "cpu.rt.max", "%s", val);
	remember("%s: %s", st.op_name, errname(err));
	err_class(err, st.op_name);
	if (!err) {
		g->q = q;
		if (q != RT_MAX)
			g->p = p;
		if (g->p > g->p_win)
			g->p_win = g->p;
		reeval_effs();
	}
	marker("hcbs X E");
	fmt_max(g, want, sizeof(want));
	err = hcbs_cg_read(g->path, "cpu.rt.max", got, sizeof(got)) ?: err;
	if (strcmp(got, want))
		STRESS_FAIL("%s/cpu.rt.max reads '%s' after '%s' (%s), expected '%s'", g->path,
			    got, val, errname(err), want);
	op_end();
	return err;
}

static void some_reservation(int gi, long long *q, long long *p)
{
	const struct group *g = &st.g[gi];
	int np = 0;
	double bw;

	while (np < 3 && g->periods[np])
		np++;
	*p = g->periods[xbelow(&st.rng, np)];
	bw = g->bw_min + (g->bw_max - g->bw_min) * (double)xbelow(&st.rng, 1001) / 1000;
	*q = (long long)(bw * *p);
}

static int pick_group(bool (*fit)(const struct group *))
{
	int cand[NGROUPS], n = 0;

	for (int i = 0; i < NGROUPS; i++)
		if (st.g[i].live && !st.g[i].fixed && fit(&st.g[i]))
			cand[n++] = i;
	return n ? cand[xbelow(&st.rng, n)] : -1;
}

static bool fit_any(const struct group *g) { return true; }
static bool fit_max(const struct group *g) { return g->can_max; }
static bool fit_zero(const struct group *g) { return g->can_zero; }

/* A new reservation (runtime and period) for a group. */
static void ctl_runtime(void)
{
	int gi = pick_group(fit_any), err;
	long long q, p;

	if (gi < 0)
		return;
	some_reservation(gi, &q, &p);
	err = write_max(gi, q, p);
	if (err == -EBUSY)
		st.c[C_RT_EBUSY]++;
	else if (err)
		STRESS_FAIL("%s: %s; a valid reservation is only refused with EBUSY", st.op_name,
			    errname(err));
	else
		st.c[C_RT]++;
}

/* A group to max, or from max back to a reservation. */
static void ctl_max(void)
{
	int gi = pick_group(fit_max), err;
	long long q, p;

	if (gi < 0)
		return;
	if (reserved(&st.g[gi])) {
		err = write_max(gi, RT_MAX, 0);
		/* EBUSY: its tasks would fall into a reservation without runtime */
		if (err && err != -EBUSY)
			STRESS_FAIL("%s: %s", st.op_name, errname(err));
		st.c[err ? C_MAX_EBUSY : C_MAX]++;
		return;
	}
	some_reservation(gi, &q, &p);
	err = write_max(gi, q, p);
	if (err && err != -EBUSY)
		STRESS_FAIL("%s: %s", st.op_name, errname(err));
	st.c[err ? C_RT_EBUSY : C_UNMAX]++;
}

/*
 * Would a task of group @wg run in @gi's own reservation were @gi reserved
 * (no reserved group between them)?
 */
static bool in_domain_of(int wg, int gi)
{
	for (int i = wg; i >= 0; i = st.g[i].parent) {
		if (i == gi)
			return true;
		if (reserved(&st.g[i]))
			return false;
	}
	return false;
}

/* The reserved groups with runtime nearest below @gi, were @gi reserved. */
static bool reserved_children(int gi)
{
	for (int i = 0; i < NGROUPS; i++)
		if (st.g[i].live && i != gi && reserved(&st.g[i]) && st.g[i].q > 0 &&
		    st.g[i].parent >= 0 && in_domain_of(st.g[i].parent, gi))
			return true;
	return false;
}

/* "0 P" (forbids RT), or from it back to a reservation or max. */
static void ctl_zero(void)
{
	int gi = pick_group(fit_zero), err;
	long long q, p;
	uint32_t seq[NWORKERS];
	bool rt = false, kids, boosted = false;

	if (gi < 0)
		return;
	if (reserved(&st.g[gi]) && st.g[gi].q == 0) {
		if (xbelow(&st.rng, 2)) {
			some_reservation(gi, &q, &p);
		} else {
			q = RT_MAX;
			p = st.g[gi].p;
		}
		err = write_max(gi, q, p);
		if (err && err != -EBUSY)
			STRESS_FAIL("%s: %s", st.op_name, errname(err));
		st.c[err ? C_RT_EBUSY : C_UNZERO]++;
		return;
	}
	/*
	 * Refused (EBUSY) if an RT worker would be left without runtime (one
	 * in the group or in a max group below it), or if a reserved child
	 * would not fit; a SCHED_OTHER worker in a mutex section may count
	 * as RT (boosted).
	 */
	for (int i = 0; i < NWORKERS; i++) {
		seq[i] = st.s->w[i].pi_seq;
		if (in_domain_of(st.s->w[i].group, gi) && rt_policy(st.s->w[i].policy))
			rt = true;
	}
	kids = reserved_children(gi);
	err = write_max(gi, 0, 100000);
	for (int i = 0; i < NWORKERS; i++)
		if (in_domain_of(st.s->w[i].group, gi) &&
		    ((seq[i] & 1) || seq[i] != st.s->w[i].pi_seq))
			boosted = true;
	if (!err && (rt || kids))
		STRESS_FAIL("%s: accepted, with %s", st.op_name,
			    rt ? "an RT worker in its reservation" : "a reserved child");
	if (err == -EBUSY && rt)
		st.c[C_ZERO_EBUSY]++;
	else if (err == -EBUSY && kids)
		st.c[C_ZERO_EBUSY_CHILD]++;
	else if (err == -EBUSY && boosted)
		st.c[C_ZERO_EBUSY_BOOSTED]++;
	else if (err)
		STRESS_FAIL("%s: %s, with no RT worker and no reserved child in it", st.op_name,
			    errname(err));
	else
		st.c[C_ZERO]++;
}

/* mkdir @gi below its parent (or @parent for e), +cpu if inner. */
static void make_group(int gi, int parent)
{
	struct group *g = &st.g[gi];
	const char *ppath = parent < 0 ? st.env->top : st.g[parent].path;
	int err;

	g->parent = parent;
	if (snprintf(g->path, sizeof(g->path), "%s/%s", ppath, g->name) >= (int)sizeof(g->path))
		STRESS_FAIL("path of %s too long", g->name);
	op_begin("mkdir %s", g->path);
	err = hcbs_cg_create(g->path);
	remember("%s: %s", st.op_name, errname(err));
	if (err)
		STRESS_FAIL("%s: %s", st.op_name, errname(err));
	g->live = true;
	g->draining = false;
	g->q = RT_MAX;
	g->p = 100000;
	g->rmdir_busy = 0;
	st.c[C_MKDIR]++;
	if (g->inner) {
		err = hcbs_cg_write(g->path, "cgroup.subtree_control", "+cpu");
		if (err)
			STRESS_FAIL("+cpu in %s/cgroup.subtree_control: %s", g->path, errname(err));
	}
	op_end();
}

/* rmdir @gi; false if it is still busy (EBUSY: retried later). */
static bool remove_group(int gi)
{
	struct group *g = &st.g[gi];
	int err;

	op_begin("rmdir %s", g->path);
	marker("hcbs X B");
	err = rmdir(g->path) ? -errno : 0;
	marker("hcbs X E");
	remember("%s: %s", st.op_name, errname(err));
	op_end();
	if (err == -EBUSY) {
		st.c[C_RMDIR_EBUSY]++;
		if (++g->rmdir_busy > 100)
			STRESS_FAIL("rmdir %s: still EBUSY after %u tries, with no task in it",
				    g->path, g->rmdir_busy);
		return false;
	}
	if (err)
		STRESS_FAIL("rmdir %s: %s", g->path, errname(err));
	g->live = false;
	g->draining = false;
	st.c[C_RMDIR]++;
	return true;
}

/* Move the workers of group @gi out (into u1, which always takes them). */
static bool drain_group(int gi)
{
	for (int i = 0; i < NWORKERS; i++)
		if (st.s->w[i].group == gi) {
			move_worker(i, G_U1);
			return false;
		}
	return true;
}

/*
 * One step of the life of the dynamic groups: e (at the top or in u2,
 * reserved or max) and the chain d1/d2/d3 (d1 reserved, d2 max, d3
 * reserved or max): create, fill (the ordinary moves pick them), drain,
 * remove.
 */
static void ctl_dynamic(void)
{
	bool chain = xbelow(&st.rng, 2);
	int leaf = chain ? G_D3 : G_E;
	long long q, p;

	if (!st.g[leaf].live) {
		if (chain) {
			make_group(G_D1, -1);
			make_group(G_D2, G_D1);
			make_group(G_D3, G_D2);
			some_reservation(G_D1, &q, &p);
			if (write_max(G_D1, q, p))
				st.c[C_RT_EBUSY]++;
		} else {
			make_group(G_E, xbelow(&st.rng, 2) ? -1 : G_U2);
		}
		if (xbelow(&st.rng, 3)) {
			some_reservation(leaf, &q, &p);
			if (write_max(leaf, q, p))
				st.c[C_RT_EBUSY]++;
		}
		/* one worker in at once */
		move_worker(pick_worker(), leaf);
		return;
	}
	if (!st.g[leaf].draining) {
		if (xbelow(&st.rng, 3) == 0)
			st.g[leaf].draining = true;
		return;
	}
	if (!drain_group(leaf))
		return;
	if (!remove_group(leaf))
		return;
	if (chain) {
		while (!remove_group(G_D2))
			hcbs_sleep_ms(10);
		while (!remove_group(G_D1))
			hcbs_sleep_ms(10);
	}
	st.c[C_CYCLES]++;
	check_bw();
}

/* ------------------------------------------------------------- watching */
static void dump_worker(int i)
{
	struct worker *w = &st.s->w[i];
	char path[64], buf[1024], max[64], cpus[16];

	fmt_max(&st.g[w->group], max, sizeof(max));
	snprintf(cpus, sizeof(cpus), w->cpu < 0 ? "all" : "%d", w->cpu);
	hcbs_note("  w%d pid %d: %s %d, CPUs %s, in %s (%s), runs in %s; %s, heartbeat %" PRIu64,
		  i, w->pid, polname(w->policy), w->prio, cpus,
		  st.g[w->group].name, max, w->eff < 0 ? "the root" : st.g[w->eff].name,
		  wstate_name[w->state], w->hb);
	snprintf(path, sizeof(path), "/proc/%d/stat", w->pid);
	if (!hcbs_read_file(path, buf, sizeof(buf)))
		hcbs_note("    stat: %s", buf);
	snprintf(path, sizeof(path), "/proc/%d/stack", w->pid);
	if (!hcbs_read_file(path, buf, sizeof(buf))) {
		for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
			hcbs_note("    %s", l);
	}
}

static void dump_state(const char *why)
{
	static bool sysrq;

	hcbs_note("%s; the state:", why);
	history();
	for (int i = 0; i < NGROUPS; i++) {
		char max[64];

		if (!st.g[i].live)
			continue;
		fmt_max(&st.g[i], max, sizeof(max));
		hcbs_note("  group %s: %s%s", st.g[i].path, max,
			  forbids_rt(i) ? " (forbids RT)" : "");
	}
	for (int i = 0; i < NWORKERS; i++)
		dump_worker(i);
	if (!sysrq) {
		/* blocked tasks and every CPU's backtrace on the console */
		sysrq = true;
		hcbs_write_str("/proc/sysrq-trigger", "w");
		hcbs_write_str("/proc/sysrq-trigger", "l");
	}
}

/* A controller operation that has not returned: print what it was, once. */
static void *watchdog(void *arg)
{
	bool dumped = false;

	(void)arg;
	while (!st.done) {
		uint64_t t = __atomic_load_n(&st.op_start_ns, __ATOMIC_ACQUIRE);

		sleep(1);
		if (dumped || !t || t != st.op_start_ns || hcbs_now_ns() - t < st.stall_ns)
			continue;
		dumped = true;
		dump_state("watchdog: the controller's operation has not returned");
	}
	return NULL;
}

static void check_workers(void)
{
	uint64_t now = hcbs_now_ns();

	for (int i = 0; i < NWORKERS; i++) {
		struct worker *w = &st.s->w[i];
		int err = __atomic_load_n(&w->bad_err, __ATOMIC_ACQUIRE);

		if (err)
			STRESS_FAIL("worker %d: %s: %s", i, w->bad_what, errname(err));
		if (w->hb != st.last_hb[i]) {
			st.last_hb[i] = w->hb;
			st.last_hb_t[i] = now;
			continue;
		}
		if (now - st.last_hb_t[i] > st.stall_ns) {
			char why[128];

			snprintf(why, sizeof(why), "worker %d has not moved for %.1f s", i,
				 (now - st.last_hb_t[i]) / 1e9);
			dump_state(why);
			STRESS_FAIL("%s (allowed: %.0f s); see the dump above and the console",
				    why, st.stall_ns / 1e9);
		}
	}
}

static void worker_totals(uint64_t *t)
{
	memset(t, 0, 11 * sizeof(*t));
	for (int i = 0; i < NWORKERS; i++) {
		struct worker *w = &st.s->w[i];

		t[0] += w->n_sleep;
		t[1] += w->n_burst;
		t[2] += w->n_prio;
		t[3] += w->n_policy;
		t[4] += w->n_aff;
		t[5] += w->n_yield;
		t[6] += w->n_pi;
		t[7] += w->n_pi_nested;
		t[8] += w->n_pi_contended;
		t[9] += w->n_pi_timeout;
		t[10] += w->n_long;
	}
}

static void progress(uint64_t t0)
{
	uint64_t t[11];

	worker_totals(t);
	hcbs_note("%.0f s: %lu moves (%lu EINVAL), %lu runtime changes (%lu EBUSY), %lu + %" PRIu64 " priority changes, %lu + %" PRIu64 " policy, %lu + %" PRIu64 " affinity, %" PRIu64 " PI sections (%" PRIu64 " contended), %lu group lifecycles; longest operation %.1f ms",
		  (hcbs_now_ns() - t0) / 1e9, st.c[C_MOVE], st.c[C_MOVE_EINVAL],
		  st.c[C_RT], st.c[C_RT_EBUSY], st.c[C_PRIO], t[2], st.c[C_POLICY], t[3],
		  st.c[C_AFF], t[4], t[6], t[8], st.c[C_CYCLES], st.longest_op_ns / 1e6);
}

/* ------------------------------------------------- global fixed priority */

static struct tstate *tfind(struct tstate *ts, pid_t pid)
{
	for (int i = 0; i < NWORKERS; i++)
		if (ts[i].pid == pid)
			return &ts[i];
	return NULL;
}

static int tracefs_write(const char *file, const char *val)
{
	char path[PATHLEN + 160];

	if (snprintf(path, sizeof(path), "%s/%s", st.trace_dir, file) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return hcbs_write_str(path, val);
}

/* The trace instance, its events filtered to the workers' pids. */
static int trace_setup(void)
{
	static const char *const ev[] = {
		"sched/sched_switch", "sched/sched_wakeup", "sched/sched_wakeup_new",
		"sched/sched_migrate_task", "sched/sched_pi_setprio",
	};
	const char *tfs = hcbs_tracefs();
	char filt[1024], f2[1024], file[128];
	size_t n = 0, n2 = 0;
	int err;

	if (!tfs)
		return -ENOENT;
	snprintf(st.trace_dir, sizeof(st.trace_dir), "%s/instances/" TRACE_INST, tfs);
	if (mkdir(st.trace_dir, 0755) && errno != EEXIST)
		return -errno;
	if ((err = tracefs_write("tracing_on", "0")) ||
	    (err = tracefs_write("trace_clock", "mono")) ||
	    (err = tracefs_write("buffer_size_kb", "4096")) ||
	    (err = tracefs_write("options/overwrite", "0")))
		return err;
	for (int i = 0; i < NWORKERS; i++) {
		n += snprintf(filt + n, sizeof(filt) - n, "%spid == %d", i ? " || " : "",
			      st.s->w[i].pid);
		n2 += snprintf(f2 + n2, sizeof(f2) - n2, "%sprev_pid == %d || next_pid == %d",
			       i ? " || " : "", st.s->w[i].pid, st.s->w[i].pid);
	}
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		snprintf(file, sizeof(file), "events/%s/filter", ev[i]);
		err = tracefs_write(file, i == 0 ? f2 : filt);
		if (err)
			return err;
		snprintf(file, sizeof(file), "events/%s/enable", ev[i]);
		err = tracefs_write(file, "1");
		if (err)
			return err;
	}
	return 0;
}

static void trace_remove(void)
{
	if (!st.trace_dir[0])
		return;
	tracefs_write("tracing_on", "0");
	tracefs_write("events/enable", "0");
	rmdir(st.trace_dir);
}

/* Empty the instance's buffer (an open of "trace" with O_TRUNC does). */
static int trace_clear(void)
{
	char path[PATHLEN + 16];
	int fd;

	snprintf(path, sizeof(path), "%s/trace", st.trace_dir);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static void trace_start(void)
{
	int err = trace_clear();

	if (!err)
		err = tracefs_write("tracing_on", "1");
	if (err) {
		hcbs_note("trace window: cannot start: %s; no more windows", errname(err));
		st.trace = false;
		return;
	}
	st.s->tracing = 1;
	for (int i = 0; i < NGROUPS; i++)
		st.g[i].p_win = st.g[i].p;
	/* the state as the window begins */
	for (int i = 0; i < NWORKERS; i++) {
		struct worker *w = &st.s->w[i];

		marker("hcbs I %d %d %u %d", w->pid, w->eff, aff_mask(w->cpu),
		       kprio(w->policy, w->prio));
	}
}

/*
 * Is waiter @w held up by a lower-priority task of its reservation that
 * runs on a CPU @w may use?
 */
static struct tstate *held_up(struct tstate *ts, struct tstate *w)
{
	if (!w->known || !w->runnable || w->running || w->flux || w->inpi ||
	    w->eff < 0 || w->prio >= 100)
		return NULL;
	for (int i = 0; i < NWORKERS; i++) {
		struct tstate *r = &ts[i];

		if (r == w || !r->running || r->flux || r->inpi || r->eff != w->eff ||
		    r->prio >= 100 || r->prio <= w->prio)
			continue;
		if (w->aff & (1u << r->cpu))
			return r;
	}
	return NULL;
}

static void close_viol(struct tstate *w, uint64_t t, bool count)
{
	uint64_t d, start = w->viol_start;
	int g = w->viol_eff;

	if (!start)
		return;
	d = t - start;
	if (!count || g < 0)
		return;
	st.fp_n[g]++;
	if (d > st.fp_max_ns[g]) {
		st.fp_max_ns[g] = d;
		st.fp_p[g] = st.g[g].p_win;
		snprintf(st.fp_what[g], sizeof(st.fp_what[g]),
			 "w%d (prio %d, CPUs %#x) from %.6f s, while w%d (prio %d) ran on CPU %d",
			 (int)(w - st.ts), w->viol_wprio, w->aff, w->viol_start / 1e9,
			 w->viol_runner, w->viol_rprio, w->viol_rcpu);
	}
	if (d > (st.slow ? 20 : 4) * HCBS_NSEC_PER_MSEC)
		st.fp_over_warn[g]++;
	w->viol_start = 0;
}

static void evaluate(struct tstate *ts, uint64_t t)
{
	for (int i = 0; i < NWORKERS; i++) {
		struct tstate *w = &ts[i];
		struct tstate *h = held_up(ts, w);
		bool waits = w->known && w->runnable && !w->running && w->prio < 100 && w->eff >= 0;

		/* every wait of an RT worker of a reservation, whatever its cause */
		if (waits && !w->wait_start) {
			w->wait_start = t;
		} else if (!waits && w->wait_start) {
			st.wait_ns += t - w->wait_start;
			st.nwait++;
			if (t - w->wait_start > st.wait_max_ns)
				st.wait_max_ns = t - w->wait_start;
			w->wait_start = 0;
		}

		if (h && !w->viol_start) {
			w->viol_start = t;
			w->viol_eff = w->eff;
			w->viol_wprio = w->prio;
			w->viol_runner = (int)(h - ts);
			w->viol_rprio = h->prio;
			w->viol_rcpu = h->cpu;
		} else if (!h && w->viol_start) {
			close_viol(w, t, true);
		}
	}
}

static int field(const char *s, const char *key, long long *v)
{
	const char *p = strstr(s, key);

	return p && sscanf(p + strlen(key), "%lld", v) == 1 ? 0 : -1;
}

/* One line of the trace: the event applied to @ts; false if unparsable. */
static void trace_line(struct tstate *ts, char *line)
{
	char *b = strchr(line, '['), *p, *ev;
	unsigned long long sec, usec;
	long long v, v2, v3;
	struct tstate *w;
	uint64_t t;
	int cpu;

	if (!b || sscanf(b + 1, "%d", &cpu) != 1 || !(p = strchr(b, ']')))
		return;
	/* flags (irq-info), then "SEC.USEC: event: args" */
	for (p++; *p; ) {
		while (*p == ' ')
			p++;
		if (sscanf(p, "%llu.%llu:", &sec, &usec) == 2 && strchr(p, ':') &&
		    strchr(p, ':') < strchr(p, ' '))
			break;
		while (*p && *p != ' ')
			p++;
	}
	if (!*p)
		return;
	t = sec * HCBS_NSEC_PER_SEC + usec * HCBS_NSEC_PER_USEC;
	ev = strchr(p, ' ');
	if (!ev)
		return;
	ev++;
	st.fp_events++;
	if (!strncmp(ev, "sched_switch:", 13)) {
		char *next = strstr(ev, "==>");
		char state[8] = "";

		if (!next)
			return;
		*next = '\0';
		if (!field(ev, "prev_pid=", &v) && (w = tfind(ts, v))) {
			p = strstr(ev, "prev_state=");
			if (p)
				sscanf(p + 11, "%7s", state);
			if (!field(ev, "prev_prio=", &v2))
				w->prio = (int)v2;
			w->running = false;
			w->runnable = state[0] == 'R';
			w->known = true;
		}
		if (!field(next + 3, "next_pid=", &v) && (w = tfind(ts, v))) {
			if (!field(next + 3, "next_prio=", &v2))
				w->prio = (int)v2;
			w->running = true;
			w->runnable = true;
			w->cpu = cpu;
			w->known = true;
			close_viol(w, t, true);
		}
	} else if (!strncmp(ev, "sched_wakeup", 12)) {
		if (!field(ev, " pid=", &v) && (w = tfind(ts, v))) {
			if (!field(ev, "prio=", &v2))
				w->prio = (int)v2;
			if (!w->running)
				w->runnable = true;
			w->known = true;
		}
	} else if (!strncmp(ev, "sched_pi_setprio:", 17)) {
		if (!field(ev, " pid=", &v) && (w = tfind(ts, v)) && !field(ev, "newprio=", &v2))
			w->prio = (int)v2;
	} else if (!strncmp(ev, "sched_migrate_task:", 19)) {
		/* where it is queued does not matter, only where it runs */
	} else if ((p = strstr(ev, "hcbs "))) {
		char kind;

		p += 5;
		kind = *p;
		if (kind == 'X') {
			/* a reservation changes: cut every interval */
			for (int i = 0; i < NWORKERS; i++) {
				close_viol(&ts[i], t, false);
				ts[i].flux += p[2] == 'B' ? 1 : -1;
				if (ts[i].flux < 0)
					ts[i].flux = 0;
			}
		} else if (sscanf(p + 2, "%lld", &v) == 1 && (w = tfind(ts, v))) {
			char *a = strchr(p + 2, ' ');

			switch (kind) {
			case 'B':
				close_viol(w, t, false);
				w->flux++;
				break;
			case 'E':
				w->flux = w->flux > 0 ? w->flux - 1 : 0;
				break;
			case 'P':
				if (a && sscanf(a, "%lld", &v2) == 1)
					w->prio = (int)v2;
				break;
			case 'A':
				if (a && sscanf(a, "%lld", &v2) == 1)
					w->aff = (unsigned int)v2;
				break;
			case 'G':
				if (a && sscanf(a, "%lld", &v2) == 1)
					w->eff = (int)v2;
				break;
			case 'L':
				close_viol(w, t, false);
				if (a && sscanf(a, "%lld", &v2) == 1)
					w->inpi = v2;
				break;
			case 'I':
				if (a && sscanf(a, "%lld %lld %lld", &v2, &v3, &v) == 3) {
					w->eff = (int)v2;
					w->aff = (unsigned int)v3;
					w->prio = (int)v;
				}
				break;
			}
		}
	}
	evaluate(ts, t);
}

static bool trace_dropped(void)
{
	char path[PATHLEN + 64], buf[1024];
	long long v;

	for (int cpu = 0; cpu < st.nr_cpus; cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", st.trace_dir, cpu);
		if (hcbs_read_file(path, buf, sizeof(buf)))
			return true;
		if ((!field(buf, "dropped events:", &v) && v) || (!field(buf, "overrun:", &v) && v))
			return true;
	}
	return false;
}

/* Stop the window and replay it. */
static void trace_stop_and_analyse(void)
{
	struct tstate ts[NWORKERS];
	char path[PATHLEN + 16], *line, *save = NULL, *buf;
	const char *keep;
	size_t len = 0, cap = 1 << 20;
	uint64_t t0 = hcbs_now_ns(), ev0 = st.fp_events;
	ssize_t r;
	int fd;

	st.s->tracing = 0;
	tracefs_write("tracing_on", "0");
	if (st.s->marker_lost) {
		st.s->marker_lost = 0;
		hcbs_note("trace window of %u ms: a marker could not be written; discarded", st.win_ms);
		return;
	}
	if (trace_dropped()) {
		hcbs_note("trace window of %u ms: events dropped (buffer full); discarded, the next one half as long",
			  st.win_ms);
		st.win_ms = st.win_ms / 2 < 500 ? 500 : st.win_ms / 2;
		return;
	}
	snprintf(path, sizeof(path), "%s/trace", st.trace_dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	buf = malloc(cap);
	if (fd < 0 || !buf) {
		hcbs_note("trace window: cannot read %s", path);
		if (fd >= 0)
			close(fd);
		free(buf);
		return;
	}
	while ((r = read(fd, buf + len, cap - len - 1)) > 0) {
		len += r;
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	buf[len] = '\0';
	keep = getenv("HCBS_STRESS_TRACE_KEEP");
	if (keep && *keep) {
		char kp[PATHLEN];
		FILE *kf;

		snprintf(kp, sizeof(kp), "%s/stress-trace-%lu.txt", keep, st.c[C_TRACE_WIN] + 1);
		kf = fopen(kp, "we");
		if (kf) {
			fwrite(buf, 1, len, kf);
			fclose(kf);
			hcbs_note("trace window kept in %s", kp);
		}
	}
	memset(ts, 0, sizeof(ts));
	st.ts = ts;
	for (int i = 0; i < NWORKERS; i++) {
		ts[i].pid = st.s->w[i].pid;
		ts[i].eff = -1;
		ts[i].prio = 120;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#')
			trace_line(ts, line);
	free(buf);
	st.c[C_TRACE_WIN]++;
	if (st.c[C_TRACE_WIN] == 1)
		hcbs_note("trace window of %u ms: %" PRIu64 " events, %zu bytes, replayed in %.2f s",
			  st.win_ms, st.fp_events - ev0, len, (hcbs_now_ns() - t0) / 1e9);
}

/* ------------------------------------------------------------- fixture */
FIXTURE(stress) {
	struct hcbs_env env;
};

FIXTURE_SETUP(stress)
{
	HCBS_ENV_SETUP(&self->env, "stress");
}

FIXTURE_TEARDOWN_PARENT(stress)
{
	const char *tfs = hcbs_tracefs();
	char path[PATHLEN];

	HCBS_ENV_TEARDOWN(&self->env);
	/* the trace instance, if the test stopped in the middle of a window */
	if (tfs) {
		snprintf(path, sizeof(path), "%s/instances/" TRACE_INST "/tracing_on", tfs);
		if (!hcbs_write_str(path, "0")) {
			snprintf(path, sizeof(path), "%s/instances/" TRACE_INST, tfs);
			rmdir(path);
		}
	}
}

static unsigned int stress_seconds(void)
{
	const char *e = getenv("HCBS_STRESS_SECONDS");
	long v = e ? strtol(e, NULL, 10) : 0;

	return v > 0 ? (unsigned int)v : 120;
}

static void start_worker(struct __test_metadata *_metadata, struct hcbs_env *env, int i,
			 int gi, int policy, int prio)
{
	struct worker *w = &st.s->w[i];
	int go[2], err;
	pid_t pid;

	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	fflush(stdout);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(go[1]);
		worker_main(st.s, i, go[0]);
	}
	close(go[0]);
	w->pid = pid;
	env->hogs[i].pid = pid;		/* the teardown kills it */
	env->hogs[i].owner = getpid();
	ASSERT_EQ(0, hcbs_unpin(pid));
	w->cpu = -1;
	err = hcbs_cg_attach(st.g[gi].path, pid);
	ASSERT_EQ(0, err) TH_LOG("worker %d into %s: %s", i, st.g[gi].path, errname(err));
	set_worker_group(i, gi);
	err = hcbs_set_policy(pid, policy, prio);
	ASSERT_EQ(0, err) TH_LOG("worker %d %s %d: %s", i, polname(policy), prio, errname(err));
	w->policy = policy;
	w->prio = prio;
	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
}

TEST_F_TIMEOUT(stress, migration, 360)
{
	static const struct { int group, policy, prio; } init[NWORKERS] = {
		{ G_AT, SCHED_FIFO, 30 }, { G_AT, SCHED_RR, 20 }, { G_AC, SCHED_FIFO, 25 },
		{ G_B, SCHED_FIFO, 40 }, { G_B, SCHED_RR, 10 }, { G_Z, SCHED_FIFO, 15 },
		{ G_U1, SCHED_RR, 35 }, { G_U1, SCHED_FIFO, 5 },
	};
	const char *s = getenv("HCBS_STRESS_SEED"), *e;
	unsigned int secs = stress_seconds(), report_s;
	uint64_t t0, tend, next_check, next_report, next_win, win_end = 0, t[11];
	double scale;
	pthread_mutexattr_t ma;
	pthread_t wd;
	int err, n;

	memset(&st, 0, sizeof(st));
	st.md = _metadata;
	st.env = &self->env;
	st.nr_cpus = self->env.nr_cpus;
	st.slow = hcbs_machine_slow();
	ASSERT_GE(MAXCPUS, st.nr_cpus);
	ASSERT_GT(31, st.nr_cpus);
	st.seed = s ? strtoull(s, NULL, 0) : ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
	st.rng = st.seed ? st.seed : 1;
	e = getenv("HCBS_STRESS_STALL_S");
	st.stall_ns = (e ? strtoull(e, NULL, 10) : (st.slow ? 30 : 10)) * HCBS_NSEC_PER_SEC;
	e = getenv("HCBS_STRESS_TRACE");
	st.trace = !e || strcmp(e, "0");
	report_s = secs > 600 ? 300 : 30;
	hcbs_note("seed %" PRIu64 " (reproduce: HCBS_STRESS_SEED=%" PRIu64 "), %u s, %d workers, stall limit %.0f s%s",
		  st.seed, st.seed, secs, NWORKERS, st.stall_ns / 1e9,
		  st.slow ? " (TCG)" : "");

	{
		long long groups[MAXCPUS];

		n = hcbs_dl_bw(st.total_bw0, groups, MAXCPUS);
		ASSERT_LT(0, n) TH_LOG("no dl_bw->total_bw in /sys/kernel/debug/sched/debug: %s",
				       errname(n));
		/* The test's groups have no cpuset: the same on every CPU. */
		st.groups_bw0 = groups[0];
		for (int cpu = 1; cpu < n; cpu++) {
			ASSERT_EQ(st.groups_bw0, groups[cpu])
				TH_LOG("rt_groups_bw differs between CPU 0 and CPU %d at setup", cpu);
		}
	}
	ASSERT_LE(0, st.groups_bw0) TH_LOG("no rt_groups_bw in /sys/kernel/debug/sched/debug");
	hcbs_note("at setup: rt_groups_bw %lld, CPU 0 dl_bw->total_bw %lld", st.groups_bw0,
		  st.total_bw0[0]);

	/* the groups */
	memcpy(st.g, group_init, sizeof(st.g));
	for (int i = 0; i < NGROUPS; i++) {
		st.g[i].q = RT_MAX;
		st.g[i].p = 100000;
	}
	for (int i = 0; i < NGROUPS; i++) {
		static const long long q0[NGROUPS] = {
			[G_A] = 20000, [G_AC] = 5000, [G_B] = 10000, [G_Z] = 10000,
		};
		static const long long p0[NGROUPS] = {
			[G_A] = 100000, [G_AC] = 100000, [G_B] = 50000, [G_Z] = 100000,
		};

		if (st.g[i].dynamic)
			continue;
		make_group(i, st.g[i].parent);
		if (q0[i]) {
			err = write_max(i, q0[i], p0[i]);
			ASSERT_EQ(0, err) TH_LOG("%s: cpu.rt.max = %lld %lld: %s", st.g[i].path,
						 q0[i], p0[i], errname(err));
		}
	}
	check_bw();

	/* the workers and the mutexes, in shared memory */
	st.s = mmap(NULL, sizeof(*st.s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, st.s);
	memset(st.s, 0, sizeof(*st.s));
	st.s->marker_fd = -1;
	ASSERT_EQ(0, pthread_mutexattr_init(&ma));
	ASSERT_EQ(0, pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED));
	ASSERT_EQ(0, pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT));
	for (int k = 0; k < NMUTEX; k++)
		ASSERT_EQ(0, pthread_mutex_init(&st.s->pi[k], &ma));
	pthread_mutexattr_destroy(&ma);
	ASSERT_EQ(0, pthread_mutexattr_init(&ma));
	ASSERT_EQ(0, pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED));
	for (int i = 0; i < NWORKERS; i++) {
		st.s->w[i].rng = st.seed ^ ((uint64_t)(i + 1) * 0x9e3779b97f4a7c15ULL);
		if (!st.s->w[i].rng)
			st.s->w[i].rng = 1;
		st.s->w[i].cpu = -1;
		ASSERT_EQ(0, pthread_mutex_init(&st.s->w[i].lock, &ma));
	}
	pthread_mutexattr_destroy(&ma);
	if (st.trace) {
		/* the marker file is open before the workers fork: they write it too */
		char path[PATHLEN + 32];
		const char *tfs = hcbs_tracefs();

		snprintf(path, sizeof(path), "%s/instances/" TRACE_INST, tfs ? tfs : "/nonexistent");
		if (tfs && (!mkdir(path, 0755) || errno == EEXIST)) {
			strcat(path, "/trace_marker");
			st.s->marker_fd = open(path, O_WRONLY | O_CLOEXEC);
		}
	}
	for (int i = 0; i < NWORKERS; i++)
		start_worker(_metadata, &self->env, i, init[i].group, init[i].policy, init[i].prio);
	if (st.trace) {
		err = st.s->marker_fd < 0 ? -ENOENT : trace_setup();
		if (err) {
			hcbs_note("no trace windows (tracefs instance: %s): global fixed priority not checked",
				  errname(err));
			st.trace = false;
		}
	}
	/* the controller may run anywhere too */
	ASSERT_EQ(0, hcbs_unpin(0));

	ASSERT_EQ(0, pthread_create(&wd, NULL, watchdog, NULL));
	st.win_ms = 5000;
	t0 = hcbs_now_ns();
	tend = t0 + secs * HCBS_NSEC_PER_SEC;
	next_check = t0 + 2 * HCBS_NSEC_PER_SEC;
	next_report = t0 + report_s * HCBS_NSEC_PER_SEC;
	next_win = t0 + 10 * HCBS_NSEC_PER_SEC;
	for (int i = 0; i < NWORKERS; i++)
		st.last_hb_t[i] = t0;
	while (hcbs_now_ns() < tend) {
		unsigned int op = (unsigned int)xbelow(&st.rng, 100);
		uint64_t now;

		if (op < 30)
			ctl_prio();
		else if (op < 40)
			ctl_policy();
		else if (op < 55)
			ctl_affinity();
		else if (op < 72)
			ctl_move();
		else if (op < 86)
			ctl_runtime();
		else if (op < 90)
			ctl_max();
		else if (op < 94)
			ctl_zero();
		else
			ctl_dynamic();
		hcbs_sleep_ms(2 + (unsigned int)xbelow(&st.rng, 11));
		now = hcbs_now_ns();
		check_workers();
		if (now > next_check) {
			check_bw();
			next_check = now + 2 * HCBS_NSEC_PER_SEC;
		}
		if (st.trace && !win_end && now > next_win && now + st.win_ms * HCBS_NSEC_PER_MSEC < tend) {
			trace_start();
			win_end = now + st.win_ms * HCBS_NSEC_PER_MSEC;
		} else if (win_end && now > win_end) {
			trace_stop_and_analyse();
			win_end = 0;
			next_win = hcbs_now_ns() + 25 * HCBS_NSEC_PER_SEC;
		}
		if (now > next_report && now + HCBS_NSEC_PER_SEC < tend) {
			progress(t0);
			next_report = now + report_s * HCBS_NSEC_PER_SEC;
		}
	}
	if (win_end)
		trace_stop_and_analyse();
	progress(t0);

	/* stop: the workers leave their loops by themselves */
	st.s->stop = 1;
	{
		uint64_t until = hcbs_now_ns() + st.stall_ns;
		int left = NWORKERS;

		while (left && hcbs_now_ns() < until) {
			left = 0;
			for (int i = 0; i < NWORKERS; i++) {
				int status;

				if (!self->env.hogs[i].pid)
					continue;
				if (waitpid(self->env.hogs[i].pid, &status, WNOHANG) == self->env.hogs[i].pid) {
					EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
						TH_LOG("worker %d ended with status %#x", i, status);
					self->env.hogs[i].pid = 0;
				} else {
					left++;
				}
			}
			hcbs_sleep_ms(20);
		}
		if (left)
			dump_state("workers still running after the stop");
		EXPECT_EQ(0, left) TH_LOG("%d workers did not stop within %.0f s", left,
					  st.stall_ns / 1e9);
		for (int i = 0; i < NWORKERS; i++)
			hcbs_hog_stop(&self->env.hogs[i]);
	}
	st.done = true;
	pthread_join(wd, NULL);
	trace_remove();
	if (st.s->marker_fd >= 0)
		close(st.s->marker_fd);

	/* how hard the servers were worked */
	for (int i = 0; i < NGROUPS; i++) {
		long long per = 0, thr = 0, use = 0;

		if (!st.g[i].live ||
		    hcbs_cg_read_key(st.g[i].path, "cpu.rt.stat", "nr_periods", &per) ||
		    hcbs_cg_read_key(st.g[i].path, "cpu.rt.stat", "nr_throttled", &thr) ||
		    hcbs_cg_read_key(st.g[i].path, "cpu.rt.stat", "usage_usec", &use))
			continue;
		hcbs_note("group %s: %lld periods, %lld throttled, %.1f s used", st.g[i].name, per,
			  thr, use / 1e6);
	}

	/* remove the groups: the bandwidth comes back */
	for (int i = 0; i < NGROUPS; i++) {
		if (st.g[i].live && st.g[i].parent < 0) {
			err = hcbs_cg_destroy(st.g[i].path);
			EXPECT_EQ(0, err) TH_LOG("remove %s: %s", st.g[i].path, errname(err));
		}
	}
	for (int i = 0; i < NGROUPS; i++)
		st.g[i].live = false;
	{
		long long total[MAXCPUS], groups[MAXCPUS], b0 = 0, b1 = 0;
		uint64_t until = hcbs_now_ns() + 5 * HCBS_NSEC_PER_SEC;
		int cpu, n, off;

		for (;;) {
			n = hcbs_dl_bw(total, groups, MAXCPUS);
			for (off = 0; off < n && groups[off] == st.groups_bw0; off++)
				;
			if (n <= 0 || off == n || hcbs_now_ns() >= until)
				break;
			hcbs_sleep_ms(50);
		}
		off = off < n ? off : 0;
		hcbs_note("after removing the groups: rt_groups_bw %lld on CPU %d (%lld at setup)",
			  groups[off], off, st.groups_bw0);
		EXPECT_EQ(st.groups_bw0, groups[off])
			TH_LOG("rt_groups_bw %lld on CPU %d after the groups were removed, %lld at setup",
			       groups[off], off, st.groups_bw0);
		cpu = hcbs_env_bw_leak(&self->env, 5000, &b0, &b1);
		EXPECT_EQ(-1, cpu) TH_LOG("CPU %d: dl_bw->total_bw %lld at setup, %lld after the run",
					  cpu, b0, b1);
	}

	/* what was done */
	worker_totals(t);
	hcbs_note("controller, in %.0f s:", (hcbs_now_ns() - t0) / 1e9);
	for (int i = 0; i < NCOUNT; i++)
		hcbs_note("  %-58s %lu", count_name[i], st.c[i]);
	hcbs_note("workers: %" PRIu64 " sleeps, %" PRIu64 " bursts (%" PRIu64 " of 5-30 ms), %" PRIu64 " own priority changes, %" PRIu64 " own FIFO<->RR, %" PRIu64 " own affinity changes, %" PRIu64 " yields",
		  t[0], t[1] + t[10], t[10], t[2], t[3], t[4], t[5]);
	hcbs_note("PI mutexes: %" PRIu64 " sections (%" PRIu64 " nested), %" PRIu64 " contended, %" PRIu64 " timed out (2 s)",
		  t[6], t[7], t[8], t[9]);
	hcbs_note("longest controller operation %.1f ms", st.longest_op_ns / 1e6);
	if (st.c[C_TRACE_WIN]) {
		hcbs_note("global fixed priority, %lu trace windows, %" PRIu64 " events: RT workers of reservations waited (runnable, not running) %" PRIu64 " times, %.1f ms in all, at most %.1f ms (throttled servers, higher priorities, wake-up latency);",
			  st.c[C_TRACE_WIN], st.fp_events, st.nwait, st.wait_ns / 1e6,
			  st.wait_max_ns / 1e6);
		hcbs_note("of that, the longest while a lower-priority worker of the same reservation ran on a CPU the waiter may use:");
		for (int g = 0; g < NGROUPS; g++) {
			uint64_t allow = st.fp_p[g] * HCBS_NSEC_PER_USEC +
					 (st.slow ? 20 : 5) * HCBS_NSEC_PER_MSEC;

			if (!st.fp_n[g])
				continue;
			hcbs_note("  %-3s %.3f ms (%" PRIu64 " intervals, %" PRIu64 " over %d ms; fails above its period %lld ms + %d ms): %s",
				  st.g[g].name, st.fp_max_ns[g] / 1e6, st.fp_n[g], st.fp_over_warn[g],
				  st.slow ? 20 : 4, st.fp_p[g] / 1000, st.slow ? 20 : 5, st.fp_what[g]);
			if (st.fp_over_warn[g])
				hcbs_note("  warning: %s: a waiter held up for more than a tick %" PRIu64 " times (push/pull late)",
					  st.g[g].name, st.fp_over_warn[g]);
			EXPECT_LE(st.fp_max_ns[g], allow)
				TH_LOG("%s: a runnable worker waited %.1f ms beside a lower-priority one of its reservation, over a period (%lld ms) + %d ms",
				       st.g[g].name, st.fp_max_ns[g] / 1e6, st.fp_p[g] / 1000,
				       st.slow ? 20 : 5);
		}
	}

	/* a run that did nothing fails: minimums for 120 s, scaled */
	scale = secs / 120.0;
	EXPECT_GE(st.c[C_MOVE], (unsigned long)(100 * scale));
	EXPECT_GE(st.c[C_RT], (unsigned long)(100 * scale));
	EXPECT_GE(st.c[C_PRIO] + t[2], (uint64_t)(1000 * scale));
	EXPECT_GE(st.c[C_POLICY], (unsigned long)(50 * scale));
	EXPECT_GE(st.c[C_AFF] + t[4], (uint64_t)(100 * scale));
	EXPECT_GE(t[6], (uint64_t)(100 * scale));
	if (secs >= 60) {
		EXPECT_LT(0, st.c[C_CYCLES]);
		EXPECT_LT(0, st.c[C_MOVE_EINVAL]);
		EXPECT_LT(0, st.c[C_EPERM]);
		EXPECT_LT(0, st.c[C_ZERO] + st.c[C_ZERO_EBUSY]);
		EXPECT_LT(0, t[8]) TH_LOG("no PI mutex was ever contended");
	}
	munmap(st.s, sizeof(*st.s));
	st.s = NULL;
}

/* HCBS_TEST_MAIN, with the test's timeout set from its duration. */
int main(int argc, char **argv)
{
	const char *reason = "";
	int i;

	_stress_migration_object->timeout = (int)stress_seconds() + 240;
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-l") || !strcmp(argv[i], "-h"))
			return test_harness_run(argc, argv);
	if (!hcbs_force() && hcbs_probe_kernel(&reason) == 0) {
		ksft_print_header();
		ksft_exit_skip("%s\n", reason);
	}
	return test_harness_run(argc, argv);
}
