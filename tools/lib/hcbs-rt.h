/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RT bandwidth interface of the hcbs kernel, as seen from user space:
 * detection, reading and writing a group's reservation, cpu.rt.stat, the
 * global limits, and the bandwidth still admissible per CPU.
 *
 * All times in the kernel files are microseconds; this API takes and
 * returns microseconds too, with HCBS_RT_MAX for "max" (no own
 * reservation: the group's tasks run in the nearest reserved ancestor's
 * servers).  Functions return 0 or -errno and fill an error buffer with one
 * line, as in hcbs.h.
 */
#ifndef HCBS_RT_H
#define HCBS_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hcbs.h"

#define HCBS_RT_MAX UINT64_MAX	/* runtime "max" (or -1 on the two-file ABI) */

enum hcbs_rt_abi {
	HCBS_ABI_NONE = 0,	/* no RT bandwidth files at all */
	HCBS_ABI_RT_MAX,	/* cpu.rt.max "RUNTIME PERIOD" (atomic) */
	HCBS_ABI_TWO_FILES,	/* cpu.rt_runtime_us + cpu.rt_period_us */
	HCBS_ABI_LEGACY,	/* two files, no cpu.rt.stat, no HCBS tracepoints:
				 * the stock RT_GROUP_SCHED */
};

const char *hcbs_rt_abi_name(enum hcbs_rt_abi abi);

struct hcbs_rt {
	uint64_t runtime_us;	/* HCBS_RT_MAX for max */
	uint64_t period_us;
};

struct hcbs_rt_stat {
	uint64_t usage_usec, nr_periods, nr_throttled, throttled_usec;
	uint64_t nr_lagged, lagged_usec;	/* 0 on kernels without them */
	bool valid;
};

/* Which interface does the cgroup directory @dir offer? */
enum hcbs_rt_abi hcbs_rt_detect(const char *dir);

int hcbs_rt_read(const char *dir, enum hcbs_rt_abi abi, struct hcbs_rt *rt,
		 char *err, size_t errlen);
/* The same through the directory fd @dfd (@dir names it in messages). */
int hcbs_rt_read_at(int dfd, const char *dir, enum hcbs_rt_abi abi, struct hcbs_rt *rt,
		    char *err, size_t errlen);
int hcbs_rt_read_stat(const char *dir, struct hcbs_rt_stat *st,
		      char *err, size_t errlen);

/* Parse the contents of cpu.rt.max ("8000 18000\n", "max 1000000\n"). */
int hcbs_rt_parse_max(const char *text, struct hcbs_rt *rt);

/*
 * One write of a plan: the file ("cpu.rt.max", "cpu.rt_runtime_us" or
 * "cpu.rt_period_us") and the value written.
 */
struct hcbs_rt_step {
	const char *file;
	char value[48];
	struct hcbs_rt before;	/* the group's state before this write */
	struct hcbs_rt after;	/* the group's state once this write succeeded */
};

#define HCBS_RT_MAX_STEPS 64

/*
 * The writes that take a group from @from to @to.  cpu.rt.max is one
 * atomic write.  On the two-file ABI every intermediate state keeps
 * runtime <= period and a bandwidth within [@floor_bw, max(from, to)],
 * where @floor_bw is what the group's reserved children need (0 for a
 * leaf): so if both ends are admissible, so is every step.  Returns the
 * number of steps, or -EDOM when no such path exists (children need as
 * much as the group has and the period changes).
 */
int hcbs_rt_plan(enum hcbs_rt_abi abi, const struct hcbs_rt *from,
		 const struct hcbs_rt *to, double floor_bw,
		 struct hcbs_rt_step *steps, int max_steps);

/*
 * Apply a plan to the cgroup directory @dfd (hcbs_cgroup_open()).  On
 * failure the writes already done are undone in reverse (best effort;
 * *@rolled_back tells whether that worked), *@failed_step is the index of
 * the refused write, and the write's -errno is returned.
 */
int hcbs_rt_apply(int dfd, const struct hcbs_rt_step *steps, int n,
		  int *failed_step, bool *rolled_back);

/* "8ms/18ms", "max/1s", "0/18ms": the reservation with units. */
const char *hcbs_rt_format(const struct hcbs_rt *rt, char *buf, size_t len);

/* Bandwidth of a reservation as a fraction of one CPU (0 for max). */
double hcbs_rt_bw(const struct hcbs_rt *rt);

/* ---- global limits and the free bandwidth ---- */

struct hcbs_global {
	int64_t rt_runtime_us;	/* -1: admission control is off */
	uint64_t rt_period_us;
	double ratio;		/* runtime/period, 1.0 when off */
};

/*
 * Reads sched_rt_runtime_us/sched_rt_period_us from @sysctl_dir
 * (default /proc/sys/kernel when NULL).
 */
int hcbs_global_read(const char *sysctl_dir, struct hcbs_global *g,
		     char *err, size_t errlen);

/*
 * The fair server's bandwidth on @cpu, from @fs_dir/cpuN/{runtime,period}
 * (ns; default dir /sys/kernel/debug/sched/fair_server).  Without debugfs
 * the kernel default 50ms/1s is assumed and *@assumed set.
 */
double hcbs_fair_server_bw(const char *fs_dir, int cpu, bool *assumed);

/* ---- the root group's share ---- */

/*
 * The root group's share: cpu.rt.max on the root cgroup (or its two-file
 * form), the upstream HCBS RFC's root runtime.  "max" (the default) keeps
 * nothing aside: the top-level reserved groups take from the global limit
 * beside the fair servers and the SCHED_DEADLINE tasks.  Set to Q/P, Q/P
 * of every CPU is kept for the RT groups whether they use it or not
 * (deadline tasks cannot take it), and the top-level groups must fit in it.
 */
struct hcbs_root_share {
	enum hcbs_rt_abi abi;	/* HCBS_ABI_NONE: the kernel shows no root files */
	struct hcbs_rt rt;	/* runtime HCBS_RT_MAX when not set */
};

static inline bool hcbs_root_share_set(const struct hcbs_root_share *s)
{
	return s->abi != HCBS_ABI_NONE && s->rt.runtime_us != HCBS_RT_MAX;
}

/*
 * Read the share of the root cgroup directory @root, on a kernel known to
 * have HCBS (hcbs_tree_has_hcbs(): on the stock RT_GROUP_SCHED, the root's
 * cpu.rt_runtime_us is the global limit, not a share).  No such file (a
 * kernel without the root share) is not an error: abi HCBS_ABI_NONE, not
 * set.  Content other than "max PERIOD" or "RUNTIME PERIOD" (two files:
 * -1 or RUNTIME, and PERIOD) with 0 < PERIOD and RUNTIME <= PERIOD is
 * -EINVAL, with one line in @err quoting it.
 */
int hcbs_root_share_read(const char *root, struct hcbs_root_share *s,
			 char *err, size_t errlen);

/*
 * Does the kernel show the HCBS files (cpu.rt.max, or the two files with
 * cpu.rt.stat or the HCBS tracepoints) in @root or one of its children?
 */
bool hcbs_tree_has_hcbs(const char *root);

/*
 * Sum of the bandwidths (per CPU) of the reserved groups whose nearest
 * reserved ancestor is @under, walking the cgroup tree below @root.  With
 * @under == @root: the top-level reservations.  @skip (may be NULL) is left
 * out of the sum, as if it were "max" (for "what could this group get").
 * *@count receives how many groups were summed.
 */
double hcbs_reserved_below(const char *under, const char *skip, int *count);
/*
 * The same, counting only the groups whose reservation covers CPU @cpu
 * (its cpu.rt.cpus); @cpu < 0: every group, as hcbs_reserved_below().
 */
double hcbs_reserved_below_cpu(const char *under, const char *skip, int cpu,
			       int *count);

/*
 * The CPUs on which the reservation of @dir is taken, from its cpu.rt.cpus
 * (the CPUs of its cpuset): how many, stored into @cpus (at most @max;
 * may be NULL), -ENOENT on a kernel without the file (every CPU), or
 * -EINVAL.
 */
int hcbs_rt_cpus(const char *dir, int *cpus, int max);
/* Is CPU @cpu one of them?  True without cpu.rt.cpus. */
bool hcbs_rt_on_cpu(const char *dir, int cpu);

/*
 * Nearest reserved proper ancestor of @dir, up to (excluding) @root.
 * Copies it into @anc and returns true, or returns false when it is @root.
 */
bool hcbs_reserved_ancestor(const char *dir, const char *root, char *anc,
			    size_t len, struct hcbs_rt *rt);

/*
 * Root of the cgroup hierarchy containing @dir: the highest ancestor that
 * still is a cgroup directory (holds cgroup.procs).
 */
void hcbs_cgroup_top(const char *dir, char *top, size_t len);

/* Is @dir that root itself (where the root group's share is set)? */
bool hcbs_cgroup_is_top(const char *dir);

/*
 * Root of the cpu hierarchy mounted here (cgroup2, or cgroup v1 with cpu).
 */
int hcbs_cpu_cgroup_root(char *path, size_t len, int *version,
			 char *err, size_t errlen);

/*
 * Is a cpu hierarchy mounted here (a cgroup2 mount, or cgroup v1 with the
 * cpu controller, in /proc/self/mountinfo: a test build's fake /proc)?
 * HCBS_EXIT_OK (also when mountinfo cannot be read: no diagnosis), or
 * HCBS_EXIT_NOHCBS with "no cpu cgroup hierarchy is mounted (...):
 * expected cgroup2, or cgroup v1 with the cpu controller" in @err, the
 * status and line of every hcbsctl command and of both hooks for that
 * cause, so that it is not taken for a container that does not exist.
 */
int hcbs_cpu_hierarchy_check(char *err, size_t errlen);

/* ---- applying a reservation, with the messages an operator needs ---- */

/* Exit codes of hcbsctl and of the LXC hook (documented in hcbsctl(1)). */
enum hcbs_exit {
	HCBS_EXIT_OK = 0,
	HCBS_EXIT_USAGE = 1,		/* bad arguments or input; nothing changed */
	HCBS_EXIT_REFUSED = 2,		/* the kernel refused (admission, EINVAL) */
	HCBS_EXIT_NOTFOUND = 3,		/* no such container/cgroup, not running */
	HCBS_EXIT_NOHCBS = 4,		/* kernel without the HCBS interface */
	HCBS_EXIT_PERM = 5,		/* permission denied */
	HCBS_EXIT_UNSCHED = 6,		/* the task set does not fit */
	HCBS_EXIT_SYSTEM = 7,		/* any other system error */
};

struct hcbs_avail {
	double bw;		/* per CPU, for this group, at most */
	bool under_root;	/* a top-level group: no reserved ancestor */
	bool root_share;	/* under_root, limited by the root group's share
				 * (@share), not by the global limit */
	bool share_unreadable;	/* under_root, and the root's share file holds
				 * what hcbs_root_share_read() refuses: @bw is
				 * the global limit's, and may be wrong */
	struct hcbs_rt share;	/* the root group's share when root_share */
	char parent[4096];	/* the reserved ancestor when !under_root */
};

/*
 * What the group @dir could be given at most (per CPU), with its own
 * current reservation left out: the nearest reserved ancestor's bandwidth
 * minus its other reserved descendants; for a top-level group, the root
 * group's share minus the other top-level groups when the share is set,
 * else the global limit minus the fair server minus the other top-level
 * groups.  Without a share SCHED_DEADLINE tasks (not visible) take from
 * the same pool, so this is an upper bound.  A root share that cannot be
 * read counts as not set, and says so in @share_unreadable.
 */
void hcbs_available(const char *dir, const char *sysctl_dir, const char *fs_dir,
		    struct hcbs_avail *av);

/*
 * Is @dir a cgroup with the HCBS interface?  Returns HCBS_EXIT_OK and the
 * ABI in *@abi, or with one line in @err: HCBS_EXIT_NOTFOUND (no such
 * directory, or not a cgroup at all), HCBS_EXIT_NOHCBS (a cgroup without
 * the cpu controller's files, or a kernel without HCBS; on the root
 * cgroup, a kernel without the root group's share).  The one diagnosis of
 * hcbsctl (every command) and the LXC hook.
 */
int hcbs_rt_check(const char *dir, enum hcbs_rt_abi *abi, char *err, size_t errlen);

/*
 * Check and write @to (runtime in us or HCBS_RT_MAX, period in us) into
 * the cgroup @dir.  Refuses before writing anything when the kernel has no
 * HCBS interface, the caller may not write, or the values cannot be
 * represented; on a kernel refusal undoes partial writes.  Returns an
 * enum hcbs_exit and, on failure, one line in @err such as
 * "cpu.rt.max: admission refused (EBUSY): requested 0.444 CPU per CPU,
 * available 0.300; accepted: RUNTIME/PERIOD with RUNTIME/PERIOD <= 0.300,
 * e.g. 5400us/18ms".  Warnings (admission off) go to @warn (may be empty).
 */
int hcbs_reserve(const char *dir, const struct hcbs_rt *to,
		 const char *sysctl_dir, const char *fs_dir,
		 char *err, size_t errlen, char *warn, size_t warnlen);

/*
 * What a hook does with the cgroup @cg of the container's process @pid:
 * refuse it (HCBS_EXIT_NOTFOUND, nothing read or written) unless it is
 * the own cgroup of container @name (hcbs_own_cgroup_check()), then
 * hcbs_reserve() it with the kernel's sysctls and fair servers (a test
 * build's fake ones).  An hcbs_exit; on failure one line in @err that
 * names the cgroup.
 */
int hcbs_hook_reserve(pid_t pid, const struct hcbs_proc_cgroup *cg, enum hcbs_engine kind,
		      const char *name, const struct hcbs_rt *to,
		      char *err, size_t errlen, char *warn, size_t warnlen);

#endif /* HCBS_RT_H */
