// SPDX-License-Identifier: GPL-2.0
/*
 * hcbstrace lateness: per-job release, start and completion of periodic
 * real-time threads, without help from the application.
 *
 * A job of a thread is modelled as
 *   release    the expiry of the hrtimer the thread slept on at the end of
 *              its previous job (its clock_nanosleep() timer); when it was
 *              woken by something else, the wake-up time;
 *   start      the first switch-in after the release;
 *   completion the switch-out while not runnable (and not preempted).  Once a thread has been
 *              seen sleeping on a timer, only blocking after it armed its
 *              next timer ends a job, so a job that blocks on a lock midway
 *              stays one job.
 * A thread that overran may find its next release already past when it
 * arms the timer, and be woken before it ever leaves the CPU: then the
 * job completes when it armed the timer, and the next one starts when it
 * is woken (JOB_F_NO_SWITCH).  Each completed job goes to user space
 * through a ring buffer, which computes response times and lateness.
 */
#include "common.bpf.h"
#include "lateness.h"

#define SCHED_FIFO	1
#define SCHED_RR	2
#define SCHED_DEADLINE	6
#define PF_EXITING	0x00000004

/* Follow SCHED_OTHER threads too (--all-policies). */
const volatile bool all_policies = false;

enum job_phase { PH_IDLE, PH_RELEASED, PH_RUNNING };

struct thread_state {
	__u64 cgid;
	__u64 armed_expiry;	/* CLOCK_MONOTONIC expiry of its sleep timer */
	__u64 sleep_ts;		/* when it armed that timer, in a job */
	__u64 release;
	__u64 wakeup;
	__u64 start;
	__u64 last_in;		/* last switch-in, for run_ns */
	__u64 run_ns;
	__u32 preemptions;
	__u8 phase;		/* enum job_phase */
	__u8 timer_mode;	/* has slept on a timer */
	__u8 release_src;
	__u8 flags;
};

/* Per thread (see task_value()). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct thread_state);
} threads SEC(".maps");

/* The same for the raw_tp programs, by tid; allocated only if used. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, JOB_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct thread_state);
} threads_raw SEC(".maps");

/* max_entries is set by user space (--ringbuf-size). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, JOB_RINGBUF_SIZE);
} events SEC(".maps");

struct job_drops drops = {};

/* Resolved from kallsyms; 0 if it cannot be. */
extern const void hrtimer_wakeup __ksym __weak;

static __always_inline bool policy_selected(bool btf, struct task_struct *p)
{
	unsigned int policy;

	if (all_policies)
		return true;
	policy = KREAD(btf, p, policy);
	return policy == SCHED_FIFO || policy == SCHED_RR || policy == SCHED_DEADLINE;
}

/*
 * The state of thread @p, created if @create and @p is selected.  A
 * thread keeps its state when it stops being real-time, so the lookup
 * comes before the policy check; it is cheap for the tasks without state,
 * which mostly have no task storage at all (see task_value()).
 */
static __always_inline struct thread_state *thread_of(bool btf, struct task_struct *p,
						      bool create)
{
	struct thread_state zero = {}, *st;

	st = task_value(btf, &threads, &threads_raw, p);
	if (st || !create)
		return st;
	if (!policy_selected(btf, p) || !KREAD(btf, p, pid))
		return NULL;
	/* An exiting thread blocks on the way out: those are not jobs. */
	if (KREAD(btf, p, flags) & PF_EXITING)
		return NULL;
	if (!task_selected(btf, p, &zero.cgid))
		return NULL;
	return task_value_make(btf, &threads, &threads_raw, p, &zero, &drops.threads_full);
}

static __always_inline void emit_job(bool btf, struct thread_state *st, struct task_struct *p,
				     __u64 end)
{
	struct job_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&drops.ringbuf_full, 1);
		return;
	}
	e->cgid = st->cgid;
	e->release = st->release;
	e->wakeup = st->wakeup;
	e->start = st->start;
	e->end = end;
	e->sleep = st->sleep_ts;
	e->run_ns = st->run_ns;
	e->pid = KREAD(btf, p, tgid);
	e->tid = KREAD(btf, p, pid);
	e->preemptions = st->preemptions;
	e->cpu = bpf_get_smp_processor_id();
	e->release_src = st->release_src;
	e->flags = st->flags;
	bpf_probe_read_kernel_str(e->comm, sizeof(e->comm), &p->comm);
	bpf_ringbuf_submit(e, 0);
}

static __always_inline void new_job(struct thread_state *st, __u64 now)
{
	if (st->armed_expiry && st->armed_expiry <= now) {
		st->release = st->armed_expiry;
		st->release_src = JOB_REL_TIMER;
	} else {
		st->release = now;
		st->release_src = JOB_REL_WAKEUP;
	}
	st->armed_expiry = 0;
	st->sleep_ts = 0;
	st->wakeup = now;
	st->run_ns = 0;
	st->preemptions = 0;
	st->flags = 0;
}

/* current started an hrtimer: is it the timer it is going to sleep on? */
static __always_inline int on_timer_start(bool btf, struct hrtimer *timer)
{
	struct hrtimer_sleeper *sl = container_of(timer, struct hrtimer_sleeper, timer);
	struct hrtimer_clock_base *base;
	struct thread_state *st;
	struct task_struct *cur;
	__u64 soft;

	if (&hrtimer_wakeup && KREAD(btf, timer, function) != (void *)&hrtimer_wakeup)
		return 0;
	cur = btf ? bpf_get_current_task_btf() : (struct task_struct *)bpf_get_current_task();
	/* The verifier types sl as the hrtimer it contains: read it with a helper. */
	if (BPF_CORE_READ(sl, task) != cur)
		return 0;
	st = thread_of(btf, cur, true);
	if (!st)
		return 0;
	/* softexpires is in the timer's clock; offset converts to monotonic. */
	/*
	 * Arming a timer while idle, with the last one expired: the thread
	 * ran a job whose wakeup and switch-in were both missed (a program
	 * skipped, e.g. for recursion into the tracepoint).
	 */
	if (st->phase == PH_IDLE && st->armed_expiry && st->armed_expiry <= bpf_ktime_get_ns())
		__sync_fetch_and_add(&drops.jobs_unseen, 1);
	soft = KREAD(btf, timer, _softexpires);
	base = KREAD(btf, timer, base);
	st->armed_expiry = soft - KREAD(btf, base, offset);
	st->timer_mode = 1;
	if (st->phase == PH_RUNNING && !st->sleep_ts)
		st->sleep_ts = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int on_wakeup(bool btf, struct task_struct *p)
{
	struct thread_state *st = thread_of(btf, p, true);
	__u64 now;

	if (!st)
		return 0;
	now = bpf_ktime_get_ns();
	if (st->phase == PH_IDLE) {
		new_job(st, now);
		st->phase = PH_RELEASED;
	} else if (st->phase == PH_RUNNING && st->sleep_ts) {
		/* Woken before it left the CPU: see the comment on top. */
		st->run_ns += st->sleep_ts > st->last_in ? st->sleep_ts - st->last_in : 0;
		emit_job(btf, st, p, st->sleep_ts);
		new_job(st, now);
		st->start = now;
		st->last_in = now;
		st->flags = JOB_F_NO_SWITCH;
	}
	return 0;
}

static __always_inline int on_switch(bool btf, bool preempt, struct task_struct *prev,
				     struct task_struct *next)
{
	struct thread_state *st;
	__u64 now = bpf_ktime_get_ns();

	st = thread_of(btf, prev, false);
	if (st && st->phase == PH_RUNNING) {
		st->run_ns += now - st->last_in;
		/* Preempted on its way to sleep is still preempted. */
		if (preempt || task_state(btf, prev) == TASK_RUNNING) {
			st->preemptions++;
		} else if (!st->timer_mode || st->sleep_ts) {
			emit_job(btf, st, prev, now);
			st->phase = PH_IDLE;
			st->sleep_ts = 0;
		}
	}

	st = thread_of(btf, next, false);
	if (st) {
		if (st->phase == PH_IDLE && st->timer_mode && st->armed_expiry &&
		    st->armed_expiry <= now) {
			/* Its wakeup went unseen: start the job from the timer. */
			__sync_fetch_and_add(&drops.wakeups_missed, 1);
			new_job(st, now);
			st->phase = PH_RELEASED;
		}
		if (st->phase == PH_RELEASED) {
			st->start = now;
			st->phase = PH_RUNNING;
		}
		st->last_in = now;
	}
	return 0;
}

/* Gone before it blocks on its way out: that is no job. */
static __always_inline int on_exit(bool btf, struct task_struct *p)
{
	task_value_delete(btf, &threads, &threads_raw, p);
	return 0;
}

HCBS_TP_PROGS(hrtimer_start, job_timer_start, on_timer_start(btf, timer), struct hrtimer *timer)
HCBS_TP_PROGS(sched_wakeup, job_wakeup, on_wakeup(btf, p), struct task_struct *p)
HCBS_TP_PROGS(sched_switch, job_switch, on_switch(btf, preempt, prev, next),
	      bool preempt, struct task_struct *prev, struct task_struct *next)
HCBS_TP_PROGS(sched_process_exit, job_exit, on_exit(btf, p), struct task_struct *p)

char LICENSE[] SEC("license") = "GPL";
