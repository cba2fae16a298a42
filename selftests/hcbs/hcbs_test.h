/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the in-guest HCBS selftests: cgroup v2 plumbing, pinned
 * busy-loop "hogs" in a given cgroup and scheduling class, CPU-time
 * measurement with the guest's own clocks, and the scheduler's reserved
 * deadline bandwidth as debugfs prints it.
 *
 * Nothing here depends on kselftest_harness.h, so that other suites (the
 * hcbsctl tests) can use it.  Functions return 0 or a negative errno and
 * never print, except hcbs_note(), which prints a "# " diagnostic line.
 */
#ifndef HCBS_TEST_H
#define HCBS_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HCBS_NO_HCBS_REASON "kernel without HCBS (no cpu.rt.max)"

/* Reserved bandwidth is kept in fixed point, 1.0 == 1 << 20 (BW_SHIFT). */
#define HCBS_BW_SHIFT	20
#define HCBS_BW_UNIT	(1ULL << HCBS_BW_SHIFT)

#define HCBS_NSEC_PER_SEC	1000000000ULL
#define HCBS_NSEC_PER_MSEC	1000000ULL
#define HCBS_NSEC_PER_USEC	1000ULL

/* @q / @p as the deadline class's fixed point (to_ratio()), floored. */
static inline long long hcbs_bw(long long q, long long p)
{
	return (long long)(((unsigned long long)q << HCBS_BW_SHIFT) / (unsigned long long)p);
}

/* A "# " diagnostic line on stdout, flushed at once (tests _exit()). */
void hcbs_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---------------------------------------------------------------- clocks */
uint64_t hcbs_now_ns(void);			/* CLOCK_MONOTONIC */
uint64_t hcbs_thread_cputime_ns(void);		/* CLOCK_THREAD_CPUTIME_ID */
void hcbs_sleep_until_ns(uint64_t mono_ns);
void hcbs_sleep_ms(unsigned int ms);
/* CPU time consumed so far by process @pid (clock_getcpuclockid). */
int hcbs_proc_cputime_ns(pid_t pid, uint64_t *ns);
/* First field of /proc/@pid/schedstat (time on CPU, ns). */
int hcbs_schedstat_ns(pid_t pid, uint64_t *run_ns);

/* |a - b| <= tol, for shares of a CPU and other measured figures. */
static inline bool hcbs_values_close(double a, double b, double tol)
{
	double d = a - b;

	return (d < 0 ? -d : d) <= tol;
}

/* ------------------------------------------------------------ cgroup v2 */
/* The cgroup v2 mount (default /sys/fs/cgroup, or $HCBS_CGROUP_ROOT). */
const char *hcbs_cg_root(void);
/* @out = @parent/@name; 0 or -ENAMETOOLONG. */
int hcbs_cg_path(char *out, size_t len, const char *parent, const char *name);
int hcbs_cg_create(const char *cg);
/*
 * Kill every process in @cg and its descendants, wait until they are gone,
 * and remove the directories bottom-up.  A missing @cg is not an error.
 */
int hcbs_cg_destroy(const char *cg);
/* Write @fmt... to @cg/@file in one write(2); 0 or -errno of that write. */
int hcbs_cg_write(const char *cg, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Read @cg/@file into @buf, trailing newline removed; 0 or -errno. */
int hcbs_cg_read(const char *cg, const char *file, char *buf, size_t len);
/* Value of "KEY N" line @key in @cg/@file (cpu.rt.stat, cpu.stat). */
int hcbs_cg_read_key(const char *cg, const char *file, const char *key,
		     long long *val);
bool hcbs_cg_has_file(const char *cg, const char *file);
/* Does @cg/@file contain the word @word (cgroup.controllers, ...)? */
bool hcbs_cg_has_word(const char *cg, const char *file, const char *word);
int hcbs_cg_attach(const char *cg, pid_t pid);
/* cgroup id as BPF and tracepoints see it (the kernfs inode number). */
/* The cgroup v2 directory of @pid below hcbs_cg_root(). */
int hcbs_task_cgroup(pid_t pid, char *out, size_t len);
int hcbs_cg_id(const char *cg, uint64_t *id);

/*
 * Enable the cpu controller in the root's cgroup.subtree_control if it is
 * not there; *@enabled_here tells whether this call did it, so that
 * hcbs_cg_root_cpu_restore() can undo it (and let a later cgroup v1 test
 * mount the cpu controller in the same boot).
 */
int hcbs_cg_root_cpu_enable(bool *enabled_here);
void hcbs_cg_root_cpu_restore(bool enabled_here);
/*
 * The cpu controller's line of /proc/cgroups: the id of the hierarchy it
 * is bound to (0: cgroup v2) and the number of cgroups in it.
 */
int hcbs_cpu_hierarchy(int *hierarchy, int *nr_cgroups);
/*
 * Unmount a cgroup v1 cpu hierarchy at @mnt whose groups were removed, so
 * that the controller really goes back to cgroup v2.  The kernel kills a
 * v1 hierarchy at umount only if its root has no child left, and a removed
 * group stays a child until its release work has run (RCU, a workqueue):
 * unmounting right after rmdir() can leave the hierarchy alive, unmounted,
 * with the cpu controller bound to it for the rest of the boot.  This waits
 * for the groups to be freed, unmounts, waits for the hierarchy to go and,
 * if it stayed, mounts and unmounts it once more.  0 or -errno.
 */
int hcbs_cg1_umount(const char *mnt, unsigned int timeout_ms);

/* ---------------------------------------------------------- hcbs state */
/*
 * Is this an HCBS kernel?  Creates a throw-away cgroup with the cpu
 * controller and looks for cpu.rt.max, leaving the root as it found it.
 * Returns 1 (yes), 0 (no, *@reason says why) or a negative errno.
 */
int hcbs_probe_kernel(const char **reason);
/*
 * $HCBS_SELFTEST_FORCE=1: run the tests even without HCBS, to exercise
 * their failure and cleanup paths on a stock kernel (they then fail).
 */
bool hcbs_force(void);
/* Does a cgroup with the cpu controller show cpu.rt.max? */
bool hcbs_cg_is_hcbs(const char *cg);
/* Set cpu.rt.max to "RUNTIME PERIOD" (µs); runtime < 0 means "max". */
int hcbs_set_rt_max(const char *cg, long long runtime_us, long long period_us);

/* -------------------------------------------------------- global state */
int hcbs_nr_cpus(void);			/* online CPUs */
int hcbs_read_long(const char *path, long long *val);
int hcbs_write_str(const char *path, const char *s);	/* 0 or -errno */
int hcbs_write_long(const char *path, long long val);	/* 0 or -errno */
/* Read a whole file into @buf (NUL-terminated, trailing newlines cut). */
int hcbs_read_file(const char *path, char *buf, size_t len);
/* sched_rt_runtime_us / sched_rt_period_us as a fraction; 1.0 if -1. */
double hcbs_rt_global_bw(void);

/*
 * .dl_bw->total_bw of every CPU's dl_rq in /sys/kernel/debug/sched/debug
 * (mounting debugfs if needed); returns the number of CPUs found or -errno.
 * On SMP this is the root domain's sum, in units of HCBS_BW_UNIT.
 */
int hcbs_dl_total_bw(long long *bw, int max_cpus);

/*
 * The field .@key of every CPU's dl_rq in /sys/kernel/debug/sched/debug
 * ("dl_bw->total_bw", "running_bw", ...) into @vals, -1 for a CPU without
 * it.  Returns one more than the highest CPU that has it (offline CPUs
 * are not listed), or -errno (-ENOENT: no CPU has it).
 */
int hcbs_dl_rq_field(const char *key, long long *vals, int max_cpus);

/*
 * The two parts of hcbs_dl_total_bw(): each CPU's .dl_bw->total_bw into
 * @total, and what the RT groups reserve on each CPU (.rt_groups_bw) into
 * @groups (-1 if the kernel has none).  Returns the CPUs found or -errno.
 */
int hcbs_dl_bw(long long *total, long long *groups, int max_cpus);

/* -------------------------------------------------------------- tasks */
/*
 * The stalls of the machine one spinning task saw, and each long one with
 * the time it saw it end, so that a test can tell whether a stall came
 * near a late job.  One writer (the task); n is published after its record.
 * Stalls shorter than HCBS_STALL_LOG_MIN_NS are only counted: under TCG
 * they come by the thousand (3062 over 0.2 ms in a 12 s run of
 * taskset.paper_8_18, 6 of 1 ms or more), and the overhead margins that
 * budgets under emulation have cover them.
 */
#define HCBS_STALL_LOG_LEN	128
#define HCBS_STALL_LOG_MIN_NS	(1000 * 1000ULL)
struct hcbs_stall {
	uint64_t end_ns;	/* CLOCK_MONOTONIC */
	uint64_t len_ns;
};

struct hcbs_stall_log {
	volatile uint32_t seen;	/* stalls longer than HCBS_STALL_STEP_NS */
	volatile uint32_t n;	/* of them, the long ones: past the array, lost */
	volatile uint64_t max_ns;	/* the longest */
	struct hcbs_stall rec[HCBS_STALL_LOG_LEN];
};

void hcbs_stall_log_add(struct hcbs_stall_log *log, uint64_t end_ns,
			uint64_t len_ns);

/* What a hog publishes to its parent (shared memory). */
struct hcbs_hog_shm {
	volatile uint64_t loops;
	/*
	 * CLOCK_MONOTONIC at the hog's latest step: when it last ran, to the
	 * step, where its CPU time read from outside (the scheduler's
	 * sum_exec_runtime) lags by up to a tick while it runs.
	 */
	volatile uint64_t last_ns;
	volatile uint64_t max_gap_ns;	/* longest time off the CPU seen */
	volatile uint64_t gap_reset;	/* set by the parent, cleared by the hog */
	/*
	 * Steps of the loop charged to the hog as CPU time for more than
	 * HCBS_STALL_STEP_NS: stalls of the whole machine (an emulator
	 * pausing its vCPUs) or long interrupts.  Its server pays for them as
	 * for any overrun.  Since the last reset.
	 */
	struct hcbs_stall_log stalls;
};

/*
 * A step of a busy loop charged more CPU time than this at once is the
 * machine stalling (an emulator pausing the vCPU) or a long interrupt.
 */
#define HCBS_STALL_STEP_NS	(200 * 1000ULL)

struct hcbs_hog {
	pid_t pid;
	pid_t owner;		/* the process that started it */
	struct hcbs_hog_shm *shm;
};

struct hcbs_hog_spec {
	const char *cgroup;	/* NULL: stay in the parent's cgroup */
	int cpu;		/* < 0: any CPU (not the parent's mask) */
	int policy;		/* SCHED_FIFO, SCHED_RR, SCHED_OTHER */
	int prio;		/* rt priority (ignored for SCHED_OTHER) */
	bool sleeper;		/* block in pause() instead of spinning */
	/*
	 * Spin without entering the kernel: no clock reads, so no gap or
	 * stall records.  The loop's thread-CPU-clock read after each long
	 * step (an interrupt, or a stall of an emulator) charges the hog's
	 * server there and then, which enforces a budget without any timer.
	 */
	bool quiet;
};

/*
 * Fork a busy loop, pin it, move it into spec->cgroup, then set its policy
 * (in that order: a group must accept the task before it turns RT).  On
 * failure the child is killed and reaped, and the -errno of the failing
 * step is returned; *@step names it ("cgroup", "policy", ...).
 */
int hcbs_hog_start(struct hcbs_hog *hog, const struct hcbs_hog_spec *spec,
		   const char **step);
/*
 * SIGKILL and reap; safe on a zeroed or already stopped hog, and from
 * another process than the owner (a teardown run by the harness's parent
 * process), which only kills: hogs die with their owner anyway
 * (PR_SET_PDEATHSIG).
 */
void hcbs_hog_stop(struct hcbs_hog *hog);
void hcbs_hog_reset_gap(struct hcbs_hog *hog);
/* The longest stall any of the @n hogs saw since its last reset. */
uint64_t hcbs_hogs_max_stall_ns(struct hcbs_hog *const *hogs, int n);
/*
 * How much later a server (Q every P) may serve its tasks after a stall of
 * the machine of @stall_ns on its CPU: the stall itself when another task
 * was charged with it; charged to the server, an overrun it pays back by
 * as much again and a whole period for every Q in it.
 */
uint64_t hcbs_stall_delay_ns(uint64_t stall_ns, uint64_t q_ns, uint64_t p_ns);
/*
 * The delay that the long stalls in the @n logs explain for a job released
 * at @release_ns and done at @done_ns, served by a server of @q_ns every
 * @p_ns: the sum of hcbs_stall_delay_ns() over every logged stall that
 * began before the job was done and whose delay reached past its release.
 * *@lost is set when a log lost records (a stall may have gone unseen).
 */
uint64_t hcbs_stall_explains_ns(const struct hcbs_stall_log *const *logs, int n,
				uint64_t release_ns, uint64_t done_ns,
				uint64_t q_ns, uint64_t p_ns, bool *lost);

/*
 * clone3(CLONE_INTO_CGROUP) into @cg from a child of ours set to @policy
 * (@prio): 0 if the fork went through, else -errno.
 */
int hcbs_clone_into(const char *cg, int policy, int prio);
int hcbs_set_policy(pid_t pid, int policy, int prio);
int hcbs_pin_cpu(pid_t pid, int cpu);
/* Allow every online CPU (SCHED_DEADLINE admission requires it). */
int hcbs_unpin(pid_t pid);

/* SCHED_DEADLINE via sched_setattr(2); 0 or -errno. */
int hcbs_set_deadline(pid_t pid, uint64_t runtime_ns, uint64_t deadline_ns,
		      uint64_t period_ns);
/* The same with sched_flags @flags (SCHED_FLAG_RECLAIM, ...). */
int hcbs_set_deadline_flags(pid_t pid, uint64_t flags, uint64_t runtime_ns,
			    uint64_t deadline_ns, uint64_t period_ns);

/*
 * Measure the CPU share of @n processes over a CLOCK_MONOTONIC window of
 * @window_ms, with each process's CPU-time clock: share[i] = consumed / window.
 * Returns 0 or the -errno of the first clock that could not be read.
 */
int hcbs_measure_shares(const pid_t *pids, int n, unsigned int window_ms,
			double *share);

/*
 * How many times @pid (a process's main thread) has moved between CPUs:
 * se.nr_migrations of /proc/PID/sched (CONFIG_SCHED_DEBUG).  0 or -errno
 * (-ENOENT when the kernel shows no such line).
 */
int hcbs_proc_migrations(pid_t pid, uint64_t *n);

/*
 * Measurement window (ms): $HCBS_WINDOW_MS if set, else @dflt.  Windows
 * are chosen as multiples of the hyperperiod of the servers measured, so
 * that the phase of the window cannot bias the share.
 */
unsigned int hcbs_window_ms(unsigned int dflt);
bool hcbs_machine_slow(void);
/*
 * The guest runs on QEMU's virtual clock (scripts/vm-run --clock virtual,
 * $HCBS_CLOCK): its time counts its own instructions, nothing outside
 * moves it, and a timing check may hold the kernel to its own accuracy.
 */
bool hcbs_clock_virtual(void);

/* Writable scratch directory: $HCBS_TMP, else /tmp. */
const char *hcbs_tmp_dir(void);

/* Mount tracefs if needed; returns its path or NULL. */
const char *hcbs_tracefs(void);

/* ------------------------------------------------------ test environment */
#define HCBS_MAX_CPUS	64
#define HCBS_MAX_HOGS	16

/*
 * What every HCBS test sets up and must undo, even when it fails: the cpu
 * controller enabled from the root down to a private top-level group
 * (left at "max"), the hogs it started, the global RT limit if it changed
 * it, and the reserved deadline bandwidth it found at the start.
 */
struct hcbs_env {
	char top[512];			/* <cgroup root>/hcbs-test-<suite> */
	bool root_cpu_enabled;		/* we wrote +cpu at the root */
	int nr_cpus;
	int nr_bw;			/* CPUs in bw0[], 0: no debugfs */
	long long bw0[HCBS_MAX_CPUS];	/* .dl_bw->total_bw at setup */
	long long rt_runtime0;		/* sched_rt_runtime_us at setup */
	struct hcbs_hog hogs[HCBS_MAX_HOGS];
	bool ready;
};

/*
 * Prepare @env for suite @suite: remove what a killed earlier run left,
 * pin the caller to @ctl_cpu, enable cpu, create the top group.  Returns
 * 0, or a negative errno with *@reason saying why; *@skip is set when the
 * reason is a missing feature (no HCBS, too few CPUs) rather than a bug.
 */
int hcbs_env_setup(struct hcbs_env *env, const char *suite, int min_cpus,
		   int ctl_cpu, bool *skip, const char **reason);
/* Remove every hcbs-test-* group below the cgroup root (and its tasks). */
void hcbs_remove_stale_groups(void);
/* Put the root group's cpu.rt.max back to "max" if it is set. */
void hcbs_reset_root_share(void);
/* Stop hogs, remove groups, restore global state.  Idempotent. */
void hcbs_env_teardown(struct hcbs_env *env);
/*
 * After teardown: wait (up to @timeout_ms; group removal is asynchronous)
 * until every CPU's total_bw is back to its value at setup.  Returns the
 * first CPU that differs (its values in *@before / *@after), or -1.
 */
int hcbs_env_bw_leak(struct hcbs_env *env, unsigned int timeout_ms,
		     long long *before, long long *after);
/* @out = env->top/@name, created; 0 or -errno. */
int hcbs_env_group(struct hcbs_env *env, const char *name, char *out,
		   size_t len);
/* Start a hog and remember it for teardown; NULL on failure (-errno in *@err). */
struct hcbs_hog *hcbs_env_hog(struct hcbs_env *env,
			      const struct hcbs_hog_spec *spec, int *err,
			      const char **step);
/*
 * Free per-CPU bandwidth for new group reservations, as the admission
 * test should see it: global limit minus what the root domain already
 * holds (fair servers, deadline tasks, groups), per CPU.  Negative if
 * debugfs is not there.
 */
double hcbs_env_free_bw(struct hcbs_env *env);
double hcbs_free_bw(int nr_cpus);
/* runtime / period of @cpu's fair server (debugfs); 0.05 if unknown. */
double hcbs_fair_server_bw(int cpu);
/* The runtime and period (ns) of @cpu's fair server; 50 ms / 1 s if unknown. */
void hcbs_fair_server(int cpu, long long *runtime_ns, long long *period_ns);

#endif /* HCBS_TEST_H */
