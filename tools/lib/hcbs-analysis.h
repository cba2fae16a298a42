/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compositional schedulability analysis of a container's task set inside
 * one HCBS reservation, with the periodic resource model Γ(Π, Θ) of Shin
 * and Lee ("Periodic Resource Model for Compositional Real-Time
 * Guarantees", RTSS 2003): a reservation of runtime Θ every period Π
 * supplies at least sbf(t) in any window of length t.
 *
 * The analysis is uniprocessor: it covers the tasks that share one CPU's
 * reservation (HCBS gives the same (Θ, Π) on every CPU; a multi-CPU
 * container is analysed per CPU, with its tasks partitioned by affinity).
 * All times are nanoseconds.
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
 * "--taskset FILE --period P [--order O]" to a reservation, for hcbsctl set
 * and the LXC hook alike: the period in the duration grammar (whole us, >
 * 0), then the file, then hcbs_taskset_min_reservation().  Returns an
 * hcbs_exit code with one line in @err.
 */
int hcbs_taskset_reservation(const char *file, const char *period, const char *order,
			     struct hcbs_rt *to, char *err, size_t errlen);

#endif /* HCBS_ANALYSIS_H */
