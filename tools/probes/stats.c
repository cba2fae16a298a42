// SPDX-License-Identifier: GPL-2.0
/* hcbstrace: histogram, percentile and lateness arithmetic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"

uint64_t hist_slot_lower(unsigned int i)
{
	unsigned int msb;

	if (i < HCBS_SUB)
		return i;
	msb = i / HCBS_SUB + HCBS_SUB_BITS - 1;
	return (uint64_t)(HCBS_SUB + i % HCBS_SUB) << (msb - HCBS_SUB_BITS);
}

uint64_t hist_slot_upper(unsigned int i)
{
	if (i >= HCBS_NSLOTS - 1)
		return UINT64_MAX;
	return hist_slot_lower(i + 1);
}

unsigned int hist_slot_of(uint64_t ns)
{
	int msb;

	if (ns < HCBS_SUB)
		return ns;
	msb = 63 - __builtin_clzll(ns);
	if (msb > HCBS_MAX_MSB)
		return HCBS_NSLOTS - 1;
	return (msb - HCBS_SUB_BITS + 1) * HCBS_SUB +
	       ((ns >> (msb - HCBS_SUB_BITS)) & (HCBS_SUB - 1));
}

void uhist_add(struct uhist *dst, const struct hcbs_hist *src)
{
	struct uhist h = {
		.count = src->count, .sum_ns = src->sum_ns, .min_ns = src->min_ns,
		.max_ns = src->max_ns, .max_tid = src->max_tid,
	};

	for (int i = 0; i < HCBS_NSLOTS; i++)
		h.slots[i] = src->slots[i];
	uhist_merge(dst, &h);
}

void uhist_add_copies(struct uhist *dst, char *comm, const struct hcbs_hist *src, size_t n)
{
	uint64_t most = 0;
	bool named = false;

	/*
	 * Each copy holds the name the thread had at its last sample on that
	 * CPU: a thread that renamed itself (pthread_setname_np after
	 * pthread_create, as OAI's threads do) has its new name in the copies
	 * with most samples.
	 */
	for (size_t i = 0; i < n; i++) {
		if (src[i].comm[0] && (!named || src[i].count > most)) {
			memcpy(comm, src[i].comm, HCBS_COMM_LEN);
			most = src[i].count;
			named = true;
		}
		uhist_add(dst, &src[i]);
	}
}

void uhist_merge(struct uhist *dst, const struct uhist *src)
{
	if (!src->count)
		return;
	if (!dst->count || src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns >= dst->max_ns) {
		dst->max_ns = src->max_ns;
		dst->max_tid = src->max_tid;
	}
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	for (int i = 0; i < HCBS_NSLOTS; i++)
		dst->slots[i] += src->slots[i];
}

uint64_t uhist_percentile(const struct uhist *h, double p)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	rank = (uint64_t)ceil(p * (double)h->count);
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	for (unsigned int i = 0; i < HCBS_NSLOTS; i++) {
		seen += h->slots[i];
		if (seen >= rank) {
			/* Slots below 16 ns hold one value each: exact. */
			uint64_t v = i < HCBS_SUB ? i : hist_slot_upper(i);

			if (v > h->max_ns)
				v = h->max_ns;
			if (v < h->min_ns)
				v = h->min_ns;
			return v;
		}
	}
	return h->max_ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

uint64_t median_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	if (n % 2)
		return v[n / 2];
	/* Mean of the middle two, without overflow. */
	return v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

void sort_doubles(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

double quantile_sorted(const double *v, size_t n, double p)
{
	size_t rank;

	if (!n)
		return NAN;
	rank = (size_t)ceil(p * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

uint64_t infer_period(const uint64_t *releases, size_t n)
{
	uint64_t *gaps, T;

	if (n < 2)
		return 0;
	gaps = malloc((n - 1) * sizeof(*gaps));
	if (!gaps)
		return 0;
	for (size_t i = 1; i < n; i++)
		gaps[i - 1] = releases[i] - releases[i - 1];
	T = median_u64(gaps, n - 1);
	free(gaps);
	return T;
}

void job_evaluate(uint64_t release, uint64_t start, uint64_t end,
		  uint64_t period_ns, uint64_t deadline_ns, struct job_result *res)
{
	uint64_t D = deadline_ns ? deadline_ns : period_ns;

	res->response_ns = end > release ? end - release : 0;
	res->lateness = period_ns ?
		((double)res->response_ns - (double)D) / (double)period_ns : NAN;
	res->miss = res->response_ns > D;
	res->late_start = start > release && start - release > D;
}

bool path_within(const char *path, const char *dir)
{
	size_t l = strlen(dir);

	return !strncmp(path, dir, l) && (path[l] == '\0' || path[l] == '/');
}

void csv_field(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	if (!len)
		return;
	if (!strpbrk(s, ",\"\n\r")) {
		snprintf(buf, len, "%s", s);
		return;
	}
	buf[o++] = '"';
	for (; *s && o + 3 < len; s++) {
		if (*s == '"')
			buf[o++] = '"';
		buf[o++] = *s;
	}
	buf[o++] = '"';
	buf[o] = '\0';
}
