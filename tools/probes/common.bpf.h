/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcbstrace: BPF-side helpers shared by the programs: which tasks are
 * selected (set from user space before load, so the verifier drops the
 * branches that are off), which column a task counts in, the histogram
 * slot of a duration, map entries made on first use, per-task values,
 * and the tp_btf and raw_tp flavours of each program.
 *
 * Most helpers take @btf, true in tp_btf programs and false in raw_tp
 * ones (see HCBS_TP_PROGS()).  It is a constant in each program, so the
 * compiler keeps only that flavour's code.
 */
#ifndef HCBSTRACE_COMMON_BPF_H
#define HCBSTRACE_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "hcbstrace.h"

#define TASK_RUNNING	0

/* Filters.  A zero or empty value means "no filter". */
const volatile __u32 targ_tgid = 0;
/*
 * hcbstrace itself, never traced: with lateness --all-policies its reader
 * thread's every sleep ended a "job" whose record woke it up again.
 */
const volatile __u32 self_tgid = 0;
const volatile bool filter_comm = false;
const volatile char targ_comm[HCBS_COMM_LEN] = {};
const volatile __u32 nr_targ_cg = 0;
const volatile __u64 targ_cgid[HCBS_MAX_CGROUPS] = {};
const volatile __s32 targ_cglevel[HCBS_MAX_CGROUPS] = {};
/* Take the cgroup from the v1 cpu hierarchy instead of the v2 one. */
const volatile bool cg_v1 = false;
/*
 * Without cgroup filters, a task is counted in its ancestor cgroup at this
 * level (1: the top-level cgroups such as lxc.payload.NAME), so nested
 * cgroups inside a container fold into it.  Negative: the task's own.
 */
const volatile __s32 group_level = 1;

/*
 * Field @f of the kernel object @p.  A tp_btf program knows the types of
 * its tracepoint's arguments, and the verifier turns a plain load through
 * them (or through pointers loaded from them) into one that cannot fault;
 * a raw_tp program sees numbers and needs a bpf_probe_read_kernel() call
 * for each field, several times the cost.
 */
#define KREAD(btf, p, f)	((btf) ? (p)->f : BPF_CORE_READ(p, f))

/* Before 5.14 task_struct::__state was called state. */
struct task_struct___o {
	volatile long state;
} __attribute__((preserve_access_index));

static __always_inline long task_state(bool btf, struct task_struct *p)
{
	if (bpf_core_field_exists(p->__state))
		return KREAD(btf, p, __state);
	return KREAD(btf, (struct task_struct___o *)p, state);
}

static __always_inline struct cgroup *task_cgroup(bool btf, struct task_struct *p)
{
	struct css_set *cset = KREAD(btf, p, cgroups);
	struct cgroup_subsys_state *css = NULL;
	int id;

	if (!cg_v1)
		return KREAD(btf, cset, dfl_cgrp);
	/* subsys[] is indexed by an enum whose values depend on the config. */
	id = bpf_core_enum_value(enum cgroup_subsys_id, cpu_cgrp_id);
	if (id < 0 || id >= 16)
		return NULL;
	if (btf)
		css = cset->subsys[id];
	else
		bpf_probe_read_kernel(&css, sizeof(css),
				      (void *)cset + bpf_core_field_offset(struct css_set, subsys) +
				      id * sizeof(css));
	return KREAD(btf, css, cgroup);
}

static __always_inline __u64 cgroup_id(bool btf, struct cgroup *cg)
{
	struct kernfs_node *kn = KREAD(btf, cg, kn);

	return KREAD(btf, kn, id);
}

/*
 * The id of the ancestor at @level (0 = root) of @cg, which is at
 * @cg_level >= @level.  cgroup::ancestors[] holds pointers since 6.1 (ids
 * before: not supported); the verifier does not let a program index it,
 * so an ancestor above @cg is read with helpers.
 */
static __always_inline __u64 cgroup_ancestor_id(bool btf, struct cgroup *cg, int cg_level,
						 int level)
{
	struct cgroup *anc = NULL;

	if (level == cg_level)
		return cgroup_id(btf, cg);
	if (level < 0 || level > 255)
		return 0;
	bpf_probe_read_kernel(&anc, sizeof(anc),
			      (void *)cg + bpf_core_field_offset(struct cgroup, ancestors) +
			      level * sizeof(anc));
	return cgroup_id(false, anc);
}

static __always_inline bool comm_matches(struct task_struct *p)
{
	char comm[HCBS_COMM_LEN];

	bpf_probe_read_kernel(comm, sizeof(comm), &p->comm);
	for (int i = 0; i < HCBS_COMM_LEN; i++) {
		if (comm[i] != targ_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/*
 * Is @p selected by the filters?  If so, *@cgid is the column it counts
 * in.  This looks at @p itself, never at current: in sched_wakeup current
 * is the waker and in sched_switch it is prev.
 */
static __always_inline bool task_selected(bool btf, struct task_struct *p, __u64 *cgid)
{
	struct cgroup *cg;
	int level;
	__u32 tgid;

	tgid = KREAD(btf, p, tgid);
	if ((targ_tgid && tgid != targ_tgid) || tgid == self_tgid)
		return false;
	if (filter_comm && !comm_matches(p))
		return false;
	cg = task_cgroup(btf, p);
	if (!cg)
		return false;
	level = KREAD(btf, cg, level);
	if (nr_targ_cg) {
		for (int i = 0; i < HCBS_MAX_CGROUPS; i++) {
			if (i >= nr_targ_cg)
				break;
			if (level < targ_cglevel[i])
				continue;
			if (cgroup_ancestor_id(btf, cg, level, targ_cglevel[i]) == targ_cgid[i]) {
				*cgid = targ_cgid[i];
				return true;
			}
		}
		return false;
	}
	if (group_level < 0 || level <= group_level)
		*cgid = cgroup_id(btf, cg);
	else
		*cgid = cgroup_ancestor_id(btf, cg, level, group_level);
	return true;
}

/* Index of the most significant set bit; @v != 0. */
static __always_inline int msb64(__u64 v)
{
	int r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) r += 1;
	return r;
}

/* The log-linear histogram slot of @ns; the inverse is in stats.c. */
static __always_inline __u32 hist_slot(__u64 ns)
{
	int msb;

	if (ns < HCBS_SUB)
		return ns;
	msb = msb64(ns);
	if (msb > HCBS_MAX_MSB)
		return HCBS_NSLOTS - 1;
	return (msb - HCBS_SUB_BITS + 1) * HCBS_SUB +
	       ((ns >> (msb - HCBS_SUB_BITS)) & (HCBS_SUB - 1));
}

/*
 * The value of @key in hash map @map, inserted as *@init when absent.
 * NULL when the map is full: counted in *@full.
 */
static __always_inline void *map_lookup_or_init(void *map, const void *key,
						const void *init, __u64 *full)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	if (bpf_map_update_elem(map, key, init, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(map, key)) {
		__sync_fetch_and_add(full, 1);
		return NULL;
	}
	return bpf_map_lookup_elem(map, key);
}

/*
 * Values kept per task.  tp_btf programs keep them in task local storage
 * @store: found in a few loads from the task, without hashing or locks,
 * and freed with the task.  raw_tp programs cannot hand their task
 * pointers to bpf_task_storage_get(), so they keep them in the hash map
 * @hash keyed by tid, and must delete what they no longer need.
 */

/* The value of @p, or NULL. */
static __always_inline void *task_value(bool btf, void *store, void *hash,
					struct task_struct *p)
{
	__u32 tid;

	if (btf) {
		/* Most tasks have no storage at all: spare them the call. */
		if (bpf_core_field_exists(p->bpf_storage) && !p->bpf_storage)
			return NULL;
		return bpf_task_storage_get(store, p, NULL, 0);
	}
	tid = BPF_CORE_READ(p, pid);
	return bpf_map_lookup_elem(hash, &tid);
}

/*
 * The value of @p, made as *@init if it has none.  NULL when it cannot be
 * made (task storage out of memory or in use on this CPU, the hash map
 * full): counted in *@full.
 */
static __always_inline void *task_value_make(bool btf, void *store, void *hash,
					     struct task_struct *p, void *init, __u64 *full)
{
	void *v;
	__u32 tid;

	if (!btf) {
		tid = BPF_CORE_READ(p, pid);
		return map_lookup_or_init(hash, &tid, init, full);
	}
	v = bpf_task_storage_get(store, p, init, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!v)
		__sync_fetch_and_add(full, 1);
	return v;
}

static __always_inline void task_value_delete(bool btf, void *store, void *hash,
					      struct task_struct *p)
{
	__u32 tid;

	if (btf) {
		bpf_task_storage_delete(store, p);
		return;
	}
	tid = BPF_CORE_READ(p, pid);
	bpf_map_delete_elem(hash, &tid);
}

/*
 * Two programs on tracepoint @tp that return @call: @name as tp_btf and
 * @name##_raw as raw_tp, for kernels that do not take tp_btf programs
 * there.  User space loads one of the two (hcbs_bpf_load()).  The
 * arguments (...) are the tracepoint's, as in BPF_PROG(); @call may use
 * them and btf, true in the tp_btf program and false in the raw_tp one.
 */
#define HCBS_TP_PROGS(tp, name, call, ...)					\
SEC("tp_btf/" #tp)								\
int BPF_PROG(name, __VA_ARGS__)							\
{										\
	const bool btf __attribute__((unused)) = true;				\
										\
	return call;								\
}										\
SEC("raw_tp/" #tp)								\
int BPF_PROG(name##_raw, __VA_ARGS__)						\
{										\
	const bool btf __attribute__((unused)) = false;				\
										\
	return call;								\
}

#endif /* HCBSTRACE_COMMON_BPF_H */
