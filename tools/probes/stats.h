/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcbstrace: the arithmetic of the user side, free of BPF and I/O so that
 * the host unit tests can check it.
 */
#ifndef HCBSTRACE_STATS_H
#define HCBSTRACE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "hcbstrace.h"

/* [lower, upper) in ns of log-linear slot @i (see hcbstrace.h). */
uint64_t hist_slot_lower(unsigned int i);
uint64_t hist_slot_upper(unsigned int i);
/* The slot of @ns, as the BPF side computes it. */
unsigned int hist_slot_of(uint64_t ns);

/* A histogram summed over intervals and keys on the user side. */
struct uhist {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t min_ns;
	uint64_t max_ns;
	uint32_t max_tid;
	uint64_t slots[HCBS_NSLOTS];
};

void uhist_add(struct uhist *dst, const struct hcbs_hist *src);
/*
 * Add the @n copies @src[] of one BPF histogram (one per CPU for a
 * per-CPU map) to @dst, and copy into @comm (HCBS_COMM_LEN bytes) the
 * thread name of the copy with the most samples, if any copy has one.
 */
void uhist_add_copies(struct uhist *dst, char *comm, const struct hcbs_hist *src, size_t n);
void uhist_merge(struct uhist *dst, const struct uhist *src);
/*
 * The @p quantile (0 < p <= 1): the upper bound of the slot that holds the
 * ceil(p * count)-th sample, but never more than the maximum seen.  So it
 * is exact to the slot width (6.25%) and never below the true value.
 */
uint64_t uhist_percentile(const struct uhist *h, double p);

/* Median of @n values (n > 0); @v is sorted in place. */
uint64_t median_u64(uint64_t *v, size_t n);
/* Quantile of sorted doubles, nearest rank: v[ceil(p * n) - 1]. */
double quantile_sorted(const double *v, size_t n, double p);
void sort_doubles(double *v, size_t n);

/*
 * The period of a thread inferred from its release times (ascending):
 * the median gap between consecutive releases; 0 if n < 2.
 */
uint64_t infer_period(const uint64_t *releases, size_t n);

/* One job, with T and D known. */
struct job_result {
	uint64_t response_ns;	/* end - release */
	double lateness;	/* (r - D) / T */
	bool miss;		/* r > D */
	bool late_start;	/* start - release > D: started after its deadline */
};

void job_evaluate(uint64_t release, uint64_t start, uint64_t end,
		  uint64_t period_ns, uint64_t deadline_ns, struct job_result *res);

/* Is @path the directory @dir or below it?  Both without a trailing '/'. */
bool path_within(const char *path, const char *dir);

/* CSV field: quoted if it holds a comma, quote or newline. */
void csv_field(char *buf, size_t len, const char *s);

#endif /* HCBSTRACE_STATS_H */
