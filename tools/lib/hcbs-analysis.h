/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compositional schedulability analysis of a container's task set inside
 * one HCBS reservation, with the periodic resource model Γ(Π, Θ) of Shin
 * and Lee ("Periodic Resource Model for Compositional Real-Time
 * Guarantees", RTSS 2003): a reservation of runtime Θ every period Π
 * supplies at least sbf(t) in any window of length t.
 *
 * hcbs_fp_test/hcbs_edf_test cover the tasks that share one CPU's
 * reservation; HCBS gives the same (Θ, Π) on every CPU, and a container on
 * m CPUs is analysed partitioned (hcbs_part_test: first fit, each CPU with
 * hcbs_fp_test) or global (hcbs_gfp_test: tasks migrate between the m
 * servers).  All times are nanoseconds.
 */
#ifndef HCBS_ANALYSIS_H
#define HCBS_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hcbs_rt;		/* hcbs-rt.h */

#define HCBS_MAX_TASKS 1024

struct hcbs_task {
	uint64_t wcet, period, deadline;
	int prio;		/* SCHED_FIFO priority, higher runs first */
	int line;		/* where it was read (1-based), 0 if unknown */
};

enum hcbs_prio_order {
	HCBS_ORDER_RM,		/* rate monotonic: shorter period first */
	HCBS_ORDER_DM,		/* deadline monotonic: shorter deadline first */
	HCBS_ORDER_FILE,	/* the priorities given in the task set */
};

struct hcbs_taskset {
	struct hcbs_task *t;
	int n;
	bool has_prio;		/* every task has a priority */
	bool has_deadline;	/* some task has D != T */
};

/*
 * Parse a task set: text (one task per line, "WCET PERIOD [DEADLINE
 * [PRIORITY]]", durations in the one grammar of hcbs.h, "-" for DEADLINE =
 * PERIOD, '#' comments) or JSON, read by jansson (RFC 8259; a duplicate key
 * is an error with its line and column): an array of task objects, or
 * {"tasks": [...]}, each {"wcet", "period", ["deadline"], ["priority"]}
 * with durations as strings with units or integers in ns.  Deadlines must
 * not exceed periods.
 */
int hcbs_taskset_parse(const char *text, struct hcbs_taskset *ts,
		       char *err, size_t errlen);
void hcbs_taskset_free(struct hcbs_taskset *ts);

/* The order used when none is asked for: FILE, else DM if D != T, else RM. */
enum hcbs_prio_order hcbs_default_order(const struct hcbs_taskset *ts);
const char *hcbs_order_name(enum hcbs_prio_order o);

double hcbs_utilization(const struct hcbs_taskset *ts);

/* Supply bound function of Γ(Π = @period, Θ = @runtime), Shin & Lee. */
uint64_t hcbs_sbf(uint64_t runtime, uint64_t period, uint64_t t);

/* The least t with sbf(t) >= @demand (UINT64_MAX if never). */
uint64_t hcbs_sbf_inverse(uint64_t runtime, uint64_t period, uint64_t demand);

/* Demand of task @i and its interferers in [0, t] under FP (request bound). */
uint64_t hcbs_rbf(const struct hcbs_taskset *ts, enum hcbs_prio_order o,
		  int i, uint64_t t);
/* EDF demand bound function of the whole set. */
uint64_t hcbs_dbf(const struct hcbs_taskset *ts, uint64_t t);

/* One supply/demand comparison. */
struct hcbs_point {
	uint64_t t, supply, demand;
	bool valid;
};

struct hcbs_fp_task {
	bool schedulable;
	/*
	 * Schedulable: at the response-time bound R (the least t with
	 * demand <= supply).  Not: at the deadline, where supply < demand.
	 */
	struct hcbs_point at;
};

struct hcbs_fp_result {
	bool schedulable;
	int binding;		/* least laxity D - R (or the first to fail) */
	struct hcbs_fp_task task[HCBS_MAX_TASKS];
};

struct hcbs_edf_result {
	bool schedulable;
	bool inconclusive;	/* too many points to check: reported unschedulable */
	bool over_utilized;	/* U > Θ/Π (or = with blackouts): no point needed */
	uint64_t bound;		/* every step of dbf up to here was checked */
	struct hcbs_point at;	/* first violation, or the least slack */
};

/*
 * Limit on the work of one EDF test: points to check times tasks (each
 * dbf(t) costs one pass over the tasks); beyond it the test is
 * inconclusive and reported as not schedulable (the safe side).
 */
#define HCBS_EDF_MAX_WORK 200000000ULL

int hcbs_fp_test(const struct hcbs_taskset *ts, enum hcbs_prio_order o,
		 uint64_t runtime, uint64_t period, struct hcbs_fp_result *r);
int hcbs_edf_test(const struct hcbs_taskset *ts, uint64_t runtime,
		  uint64_t period, struct hcbs_edf_result *r);

/*
 * Smallest runtime (a multiple of @gran ns, normally 1000: the kernel takes
 * microseconds) that makes the set schedulable with @period; -ENOSPC when
 * even runtime = period is not enough.  @fp selects FP (else EDF).
 */
int hcbs_min_runtime(const struct hcbs_taskset *ts, bool fp,
		     enum hcbs_prio_order o, uint64_t period, uint64_t gran,
		     uint64_t *runtime);

/*
 * m servers: the container's tasks on m CPUs, each CPU with its own
 * periodic resource Γ(Π, Θ) (HCBS gives every CPU of the group the same
 * (Q, P)).
 */
#define HCBS_ANALYSIS_MAX_CPUS 4096

/*
 * Global fixed priority over the m servers (the kernel migrates a group's
 * tasks between its servers): the response-time test of Bertogna and
 * Cirinei ("Response-Time Analysis for Globally Scheduled Symmetric
 * Multiprocessor Platforms", RTSS 2007) with its workload bound W_i, the
 * supply of the m processors replaced by m periodic resources of Shin and
 * Lee, each supplying at least sbf(t) in any window t.  Task k is
 * schedulable if some t in [C_k, D_k] has m sbf(t) >= load(t),
 *
 *	load(t) = max(f(C_k), 1 + f(E) at the maxima of f with E < C_k),
 *	f(E) = m E + Σ_{i interferes with k} min(W_i(t), t - E),
 *	W_i(t) = N C_i + min(C_i, t + R_i - C_i - N T_i),
 *	N = floor((t + R_i - C_i) / T_i),
 *
 * R_i being the bound found for a higher-priority task (D_i for a task of
 * equal priority).  Sufficient, not necessary; the derivation is in
 * docs/hcbsctl.md and analysis.c.  Per task: .at = { R_k (or D_k if it
 * fails), m sbf(t), load(t) }.
 */
#define HCBS_GFP_TEST_NAME "Bertogna & Cirinei, \"Response-Time Analysis for Globally Scheduled Symmetric Multiprocessor Platforms\", RTSS 2007 (global FP response-time test, workload bound W_i), with the supply of each of the m CPUs bounded by the periodic resource sbf of Shin & Lee, \"Periodic Resource Model for Compositional Real-Time Guarantees\", RTSS 2003"

/* A task's bound takes at most this many fixed-point steps; more: not schedulable. */
#define HCBS_GFP_MAX_STEPS 1000000

struct hcbs_gfp_result {
	bool schedulable;
	int binding;		/* least laxity D - R (or the first to fail) */
	unsigned int cpus;
	struct hcbs_fp_task task[HCBS_MAX_TASKS];
};

int hcbs_gfp_test(const struct hcbs_taskset *ts, enum hcbs_prio_order o, unsigned int cpus,
		  uint64_t runtime, uint64_t period, struct hcbs_gfp_result *r);

/*
 * Partitioned fixed priority on m servers: tasks in priority order (ties in
 * file order), each to the first CPU on which the uniprocessor FP test
 * (hcbs_fp_test) still holds with the tasks already there.  @cpu[i] is task
 * i's CPU (0-based), -1 for the task that found none (and those after it).
 */
struct hcbs_part_result {
	bool schedulable;
	int failed;		/* the first task that fits nowhere, or -1 */
	unsigned int cpus, used;
	int cpu[HCBS_MAX_TASKS];
};

int hcbs_part_test(const struct hcbs_taskset *ts, enum hcbs_prio_order o, unsigned int cpus,
		   uint64_t runtime, uint64_t period, struct hcbs_part_result *r);

enum hcbs_test_kind {
	HCBS_TEST_FP,		/* one CPU, fixed priorities */
	HCBS_TEST_EDF,		/* one CPU, EDF */
	HCBS_TEST_GFP,		/* m CPUs, global fixed priorities */
	HCBS_TEST_PART,		/* m CPUs, first-fit partitioned fixed priorities */
};

/*
 * hcbs_min_runtime() for any test, on @cpus CPUs (FP and EDF: 1).  The
 * least multiple of @gran for GFP, FP and EDF (their verdicts are monotone
 * in the runtime); for PART, where first-fit packing need not be monotone,
 * the bisection's answer: a runtime that works, perhaps not the least.
 */
int hcbs_min_runtime_test(const struct hcbs_taskset *ts, enum hcbs_test_kind kind,
			  enum hcbs_prio_order o, unsigned int cpus, uint64_t period,
			  uint64_t gran, uint64_t *runtime);

/*
 * Read and parse the task set file @file ("-": stdin), at most 1 MiB.
 * Returns an hcbs_exit code: NOTFOUND (no such file), PERM, USAGE (not a
 * task set), SYSTEM; the message in @err names the file.
 */
int hcbs_taskset_load(const char *file, struct hcbs_taskset *ts, char *err, size_t errlen);

/* --order: NULL for the default (hcbs_default_order()); -EINVAL if unknown. */
int hcbs_parse_order(const char *s, const struct hcbs_taskset *ts,
		     enum hcbs_prio_order *o, char *err, size_t errlen);

/*
 * The reservation a task set needs at period @period_ns under fixed
 * priorities: the least runtime in whole microseconds (what the kernel
 * takes), @period_ns itself a whole number of microseconds.  @name is the
 * task set's name for messages.  Returns an hcbs_exit code: USAGE (period),
 * UNSCHED (not even runtime = period is enough).
 */
int hcbs_taskset_min_reservation(const struct hcbs_taskset *ts, enum hcbs_prio_order o,
				 const char *name, uint64_t period_ns, struct hcbs_rt *to,
				 char *err, size_t errlen);

/*
 * What each job costs its server on this machine beyond its WCET (the
 * wakeup, the context switches, the timer and other interrupts charged to
 * it): a time per job, plus a percentage of every WCET in hundredths of a
 * percent (1250 = 12.5 %).  --overhead gives one of the two; a measurement
 * (hcbs_overhead_measure) gives both.  @automatic: "auto" was asked, the
 * caller measures (the two fields are then zero until it does).
 */
struct hcbs_overhead {
	uint64_t per_job;	/* ns */
	uint32_t centi_percent;
	bool automatic;
};

#define HCBS_OVERHEAD_MAX_PERCENT 1000

/*
 * --overhead: "80us" (the duration grammar of hcbs.h, 0 allowed), "12%",
 * "12.5%" (0 to HCBS_OVERHEAD_MAX_PERCENT, at most two decimals) or
 * "auto".  -EINVAL with one line in @err saying what is accepted.
 */
int hcbs_parse_overhead(const char *s, struct hcbs_overhead *ov, char *err, size_t errlen);
/*
 * A time per job is a part of one period of the server: 0, or -EINVAL
 * with one line when @ov->per_job is not less than @period (the shortest
 * server period the command uses, ns).
 */
int hcbs_overhead_check(const struct hcbs_overhead *ov, uint64_t period, char *err,
			size_t errlen);
/* "+80us per job", "+12.50% of each WCET", "+38us per job +4.20% of each WCET". */
const char *hcbs_format_overhead(const struct hcbs_overhead *ov, char *buf, size_t len);
/*
 * Add @ov to every WCET of @ts: per_job, and the percentage of the WCET
 * rounded up to the next ns.  -ERANGE (nothing changed) if a WCET would
 * not fit in 64 bits.
 */
int hcbs_taskset_inflate(struct hcbs_taskset *ts, const struct hcbs_overhead *ov);

/*
 * Measuring the overhead (overhead.c): a SCHED_FIFO process alone in a
 * temporary cgroup reserved 40ms/100ms, on one CPU, runs HCBS_OVERHEAD_RUNS
 * series of periodic jobs, each spinning @work of its own CPU time; the
 * group's cpu.rt.stat usage over a series is what it was @charged.  Per
 * job, charged = per_job + (1 + percent / 100) work, fitted from the two
 * series (each part at least 0, the percentage rounded up).
 */
#define HCBS_OVERHEAD_RUNS 2

struct hcbs_overhead_run {
	uint64_t work, period;	/* ns */
	unsigned int jobs;
	uint64_t charged;	/* ns, over the whole series */
};

struct hcbs_overhead_measurement {
	int cpu;
	char cgroup[4096];	/* the temporary group (removed again) */
	bool cpuset;		/* the group's cpuset held @cpu alone */
	int reserved_groups;	/* top-level reserved groups found beside it */
	int reserved_on_cpu;	/* ... of them, those whose servers run on @cpu */
	int signal;		/* SIGINT, SIGTERM or SIGHUP that stopped it, or 0 */
	struct hcbs_overhead_run run[HCBS_OVERHEAD_RUNS];
	struct hcbs_overhead fit;
};

void hcbs_overhead_fit(const struct hcbs_overhead_run run[HCBS_OVERHEAD_RUNS],
		       struct hcbs_overhead *ov);
/*
 * Measure on @cpu (about 2 s; root, cgroup v2, the hcbs kernel, 0.4 of the
 * CPU free for groups).  The temporary group's cpuset holds @cpu alone
 * when the cpuset controller is available (m->cpuset), so that its
 * reservation takes bandwidth on that CPU only.  Returns an enum hcbs_exit
 * code, with one line in @err on failure; leaves nothing behind.
 *
 * SIGINT, SIGTERM and SIGHUP (unless ignored) are held while the group
 * exists: one arriving stops the measurement, the measured process is
 * killed and reaped, the group removed, and the signal is returned in
 * m->signal (with HCBS_EXIT_SYSTEM and "interrupted by SIG..." in @err)
 * for the caller to die of once it has said so.
 */
int hcbs_overhead_measure(int cpu, struct hcbs_overhead_measurement *m, char *err,
			  size_t errlen);
/*
 * The top-level reserved groups below @root: all of them into *@all, those
 * whose reservation covers @cpu into *@on_cpu.  Their servers run beside
 * a measurement and change what it finds.
 */
void hcbs_overhead_count_reserved(const char *root, int cpu, int *all, int *on_cpu);
/* The CPU measured by default: the last online one (-1 if unreadable). */
int hcbs_overhead_default_cpu(void);

/*
 * "--taskset FILE --period P [--order O] [--overhead X]" to a reservation,
 * for hcbsctl set and the LXC and OCI hooks alike: the period in the
 * duration grammar (whole us, > 0), the overhead (NULL: none; "auto": the
 * caller's measurement @measured, refused when that is NULL), then the
 * file, then hcbs_taskset_min_reservation() on the WCETs with the
 * overhead added.  Returns an hcbs_exit code with one line in @err.
 */
int hcbs_taskset_reservation(const char *file, const char *period, const char *order,
			     const char *overhead, const struct hcbs_overhead *measured,
			     struct hcbs_rt *to, char *err, size_t errlen);

#endif /* HCBS_ANALYSIS_H */
