// SPDX-License-Identifier: GPL-2.0
/*
 * hcbstrace latency: wakeup-to-run latency of the selected tasks.
 *
 * A task's wait starts when it is woken, or when it is preempted while
 * still runnable, and ends when it is switched in.  The samples go into
 * log-linear histograms keyed by column (container, and thread with
 * --threads) which user space drains every interval.
 */
#include "common.bpf.h"
#include "latency.h"

const volatile bool per_thread = false;
const volatile __u64 max_latency_ns = 0;

/* When each waiting task began to wait: per task (see task_value()). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct lat_pending);
} pending SEC(".maps");

/* The same for the raw_tp programs, by tid; allocated only if used. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, LAT_MAX_PENDING);
	__type(key, __u32);
	__type(value, struct lat_pending);
} pending_raw SEC(".maps");

/*
 * The histograms.  One per container is updated from every CPU, so each
 * CPU has its own copy and adds without atomics; user space sums them.
 * With --threads there is one per thread instead, only ever updated where
 * that thread is switched in, so by one CPU at a time: a single copy,
 * which keeps the map's size from growing with the number of CPUs.  User
 * space sets the size of the one in use and shrinks the other.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, LAT_MAX_HISTS);
	__type(key, struct hcbs_key);
	__type(value, struct hcbs_hist);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LAT_MAX_HISTS_THREADS);
	__type(key, struct hcbs_key);
	__type(value, struct hcbs_hist);
} thread_hists SEC(".maps");

struct lat_drops drops = {};
struct lat_breach breach = {};
static const struct hcbs_hist new_hist = {};

static __always_inline int enqueue(bool btf, struct task_struct *p)
{
	struct lat_pending v = {}, *pv;
	__u32 tid;

	if (!task_selected(btf, p, &v.cgid))
		return 0;
	tid = KREAD(btf, p, pid);
	if (!tid)	/* the idle tasks */
		return 0;
	v.ts = bpf_ktime_get_ns();
	if (!btf) {
		/* Its entry went when it last ran: one update makes it anew. */
		if (bpf_map_update_elem(&pending_raw, &tid, &v, BPF_ANY))
			__sync_fetch_and_add(&drops.pending_full, 1);
		return 0;
	}
	pv = task_value_make(btf, &pending, &pending_raw, p, &v, &drops.pending_full);
	if (pv)
		*pv = v;
	return 0;
}

static __always_inline int switch_in(bool btf, bool preempt, struct task_struct *prev,
				     struct task_struct *next)
{
	struct hcbs_key key = {};
	struct lat_pending *v;
	struct hcbs_hist *h;
	__u64 delta;
	__u32 tid, slot;

	/* Still runnable: it waits again from now. */
	if (preempt || task_state(btf, prev) == TASK_RUNNING)
		enqueue(btf, prev);

	v = task_value(btf, &pending, &pending_raw, next);
	if (!v || !v->ts)
		return 0;
	delta = bpf_ktime_get_ns() - v->ts;
	key.cgid = v->cgid;
	tid = KREAD(btf, next, pid);
	/* Waiting no more: the storage stays with the task, the hash entry goes. */
	if (btf)
		v->ts = 0;
	else
		bpf_map_delete_elem(&pending_raw, &tid);
	if ((__s64)delta < 0)
		return 0;
	if (per_thread)
		key.tid = tid;
	if (max_latency_ns && delta > max_latency_ns && !breach.ns) {
		breach.ns = delta;
		breach.cgid = key.cgid;
		breach.tid = tid;
		bpf_probe_read_kernel_str(breach.comm, sizeof(breach.comm), &next->comm);
	}

	if (per_thread)
		h = map_lookup_or_init(&thread_hists, &key, &new_hist, &drops.hists_full);
	else
		h = map_lookup_or_init(&hists, &key, &new_hist, &drops.hists_full);
	if (!h)
		return 0;
	/* the name at the last sample: threads rename themselves once started */
	if (per_thread)
		bpf_probe_read_kernel_str(h->comm, sizeof(h->comm), &next->comm);
	slot = hist_slot(delta);
	if (slot >= HCBS_NSLOTS)
		return 0;
	/* A per-CPU copy made by another CPU starts all zero. */
	if (!h->count || delta < h->min_ns)
		h->min_ns = delta;
	if (delta > h->max_ns) {
		h->max_ns = delta;
		h->max_tid = tid;
	}
	h->slots[slot]++;
	h->count++;
	h->sum_ns += delta;
	return 0;
}

HCBS_TP_PROGS(sched_wakeup, lat_wakeup, enqueue(btf, p), struct task_struct *p)
HCBS_TP_PROGS(sched_wakeup_new, lat_wakeup_new, enqueue(btf, p), struct task_struct *p)
HCBS_TP_PROGS(sched_switch, lat_switch, switch_in(btf, preempt, prev, next),
	      bool preempt, struct task_struct *prev, struct task_struct *next)

char LICENSE[] SEC("license") = "GPL";
