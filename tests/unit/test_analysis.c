// SPDX-License-Identifier: GPL-2.0
/*
 * The schedulability analysis against values computed by hand (the
 * arithmetic is in the comments), against an independent form of Shin &
 * Lee's sbf, and the task-set parser's accept/reject paths and fuzzing.
 * Times in the comments are in ms unless marked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hcbs.h"
#include "hcbs-analysis.h"
#include "tap.h"

#define MS 1000000ULL
#define US 1000ULL

static struct hcbs_taskset ts_of(const char *text)
{
	struct hcbs_taskset ts;
	char err[HCBS_ERRLEN];

	if (hcbs_taskset_parse(text, &ts, err, sizeof(err))) {
		tap_diag("parse failed: %s", err);
		exit(1);
	}
	return ts;
}

typedef unsigned __int128 u128;
typedef __int128 i128;

/*
 * Shin & Lee's own form, in 128 bits (no saturation anywhere): k =
 * max(ceil((t - (Π - Θ)) / Π), 1); sbf = t - (k + 1)(Π - Θ) if t in
 * [(k + 1)Π - 2Θ, (k + 1)Π - Θ], else (k - 1)Θ.  (The library uses the
 * full-periods form.)
 */
static u128 sbf128(u128 q, u128 p, u128 t)
{
	i128 k, lo, hi, Q = (i128)q, P = (i128)p, T = (i128)t;

	if (q >= p)
		return t;
	k = T - (P - Q) <= 0 ? 1 : (T - (P - Q) + P - 1) / P;
	if (k < 1)
		k = 1;
	lo = (k + 1) * P - 2 * Q;
	hi = (k + 1) * P - Q;
	if (T >= lo && T <= hi)
		return (u128)(T - (k + 1) * (P - Q));
	return (u128)((k - 1) * Q);
}

static uint64_t sbf_ref(int64_t q, int64_t p, int64_t t)
{
	return (uint64_t)sbf128((u128)q, (u128)p, (u128)t);
}

static void sbf_by_hand(void)
{
	/*
	 * Γ(Π = 10, Θ = 4): blackout 2(Π - Θ) = 12, then 4 every 10:
	 * sbf(6) = 0, sbf(12) = 0, sbf(13) = 1, sbf(16) = 4, sbf(20) = 4,
	 * sbf(23) = 5, sbf(26) = 8, sbf(30) = 8, sbf(36) = 12.
	 */
	static const uint64_t t[] = { 0, 6, 12, 13, 16, 20, 23, 26, 30, 36 };
	static const uint64_t want[] = { 0, 0, 0, 1, 4, 4, 5, 8, 8, 12 };
	int ok = 1;

	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++)
		ok &= hcbs_sbf(4 * MS, 10 * MS, t[i] * MS) == want[i] * MS;
	tap_ok(ok, "sbf of Γ(10ms, 4ms) at 0,6,12,13,16,20,23,26,30,36ms = 0,0,0,1,4,4,5,8,8,12ms");
	tap_ok(hcbs_sbf(10 * MS, 10 * MS, 7 * MS) == 7 * MS, "sbf of a full CPU is t");
	tap_ok(hcbs_sbf(0, 10 * MS, 1000 * MS) == 0, "sbf of a zero budget is 0");

	uint64_t s = 12345;
	int bad = 0;

	for (int i = 0; i < 200000; i++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		int64_t p = (int64_t)(s >> 40) % 5000 + 1;
		int64_t q = (int64_t)(s >> 20) % (p + 1);
		int64_t tt = (int64_t)(s >> 8) % 100000;

		if (hcbs_sbf((uint64_t)q, (uint64_t)p, (uint64_t)tt) != sbf_ref(q, p, tt))
			bad++;
	}
	tap_ok(!bad, "sbf agrees with Shin & Lee's k-form on 200000 random (Θ, Π, t)");
}

static void fp_by_hand(void)
{
	struct hcbs_taskset ts = ts_of("1ms 10ms\n2ms 20ms\n");
	struct hcbs_fp_result *r = calloc(1, sizeof(*r));
	uint64_t q = 0;

	/*
	 * Γ(Π = 5, Θ = 2): blackout 6.  sbf(t) = 2n + max(0, rest - 3) with
	 * n = (t - 3) div 5, rest = t - 3 - 5n; its inverse for a demand d is
	 * t = 6 + 5(k - 1) + r with k = ceil(d / 2), r = d - 2(k - 1).
	 * τ1 (RM: highest): demand 1 -> k = 1, r = 1 -> t = 7; rbf1(7) = 1:
	 *   R1 = 7, sbf(7) = 1 (n = 0, rest = 4).  Laxity 10 - 7 = 3.
	 * τ2: rbf2(0+) = 2 + 1 = 3 -> k = 2, r = 1 -> t = 12;
	 *   rbf2(12) = 2 + ceil(12/10) = 4 -> k = 2, r = 2 -> t = 13;
	 *   rbf2(13) = 4: R2 = 13, sbf(13) = 4 (n = 2, rest 0).  Laxity 7.
	 * Tightest (least laxity): τ1.
	 */
	hcbs_fp_test(&ts, HCBS_ORDER_RM, 2 * MS, 5 * MS, r);
	tap_ok(r->schedulable, "FP: {(1,10),(2,20)} in Γ(5ms, 2ms) is schedulable");
	tap_ok(r->task[0].at.t == 7 * MS && r->task[0].at.supply == 1 * MS &&
	       r->task[0].at.demand == 1 * MS, "FP: τ1's response-time bound is 7ms (supply = demand = 1ms)");
	tap_ok(r->task[1].at.t == 13 * MS && r->task[1].at.supply == 4 * MS &&
	       r->task[1].at.demand == 4 * MS, "FP: τ2's response-time bound is 13ms (supply = demand = 4ms)");
	tap_ok(r->binding == 0, "FP: the tightest task is τ1 (laxity 3ms < 7ms)");
	tap_ok(hcbs_sbf_inverse(2 * MS, 5 * MS, 4 * MS) == 13 * MS &&
	       hcbs_sbf(2 * MS, 5 * MS, 13 * MS) == 4 * MS &&
	       hcbs_sbf(2 * MS, 5 * MS, 13 * MS - 1) < 4 * MS,
	       "sbf^-1(4ms) = 13ms, the least t with sbf(t) >= 4ms");

	/*
	 * Minimum Θ at Π = 5: with B = 5 - Θ and Θ < 2.5,
	 *   sbf(10) = Θ, sbf(20) = 3Θ (n = 3, rest = Θ).
	 * τ1 needs Θ >= 1; τ2 needs 3Θ >= 4 (sbf(10) = Θ >= 3 is impossible
	 * below 2.5) -> Θ >= 1333.33us -> 1334us.
	 * EDF: dbf(10k) = k + 2 floor(k/2), sbf(10k) = (2k - 1)Θ; k = 2 binds:
	 *   3Θ >= 4 -> 1334us too.
	 */
	int ret = hcbs_min_runtime(&ts, true, HCBS_ORDER_RM, 5 * MS, US, &q);

	tap_ok(!ret && q == 1334 * US, "FP: minimum runtime at 5ms is 1334us (got %lluns)",
	       (unsigned long long)q);
	ret = hcbs_min_runtime(&ts, false, HCBS_ORDER_RM, 5 * MS, US, &q);
	tap_ok(!ret && q == 1334 * US, "EDF: minimum runtime at 5ms is 1334us (got %lluns)",
	       (unsigned long long)q);
	hcbs_taskset_free(&ts);

	/*
	 * One task (1, 10) at Π = 4: sbf(10) with Θ = 1: B = 3, n = 1,
	 * rest = 3 -> 1 + 0 = 1 >= 1; with Θ = 0.999: B = 3.001, n = 1,
	 * rest = 2.999 -> 0.999 < 1.  Minimum exactly 1ms.
	 */
	ts = ts_of("1ms 10ms");
	tap_ok(!hcbs_min_runtime(&ts, true, HCBS_ORDER_RM, 4 * MS, US, &q) && q == 1 * MS,
	       "single task (1,10) at Π=4ms needs exactly 1ms");
	hcbs_taskset_free(&ts);

	/*
	 * RM is not optimal: τ1 = (2, 5), τ2 = (4, 7) on a whole CPU.
	 * τ2: rbf(5) = 4 + 2 = 6 > 5, rbf(7) = 4 + 2*2 = 8 > 7 -> misses.
	 * EDF: U = 0.4 + 0.571 = 0.971 <= 1 with implicit deadlines -> fine.
	 */
	ts = ts_of("2ms 5ms\n4ms 7ms\n");
	struct hcbs_edf_result e;

	hcbs_fp_test(&ts, HCBS_ORDER_RM, 10 * MS, 10 * MS, r);
	hcbs_edf_test(&ts, 10 * MS, 10 * MS, &e);
	tap_ok(!r->schedulable && r->binding == 1 && !r->task[1].schedulable,
	       "FP: (2,5),(4,7) on a whole CPU: τ2 misses (rbf(7)=8 > 7)");
	tap_ok(e.schedulable, "EDF: (2,5),(4,7) on a whole CPU is schedulable (U=0.971)");
	hcbs_taskset_free(&ts);

	/* Equal priorities interfere both ways: (5,10),(5,10): rbf(10) = 10. */
	ts = ts_of("5ms 10ms\n5ms 10ms\n");
	hcbs_fp_test(&ts, HCBS_ORDER_RM, 10 * MS, 10 * MS, r);
	tap_ok(r->schedulable && r->task[1].at.demand == 10 * MS,
	       "FP: equal periods interfere both ways (demand 10ms at t=10ms)");
	hcbs_fp_test(&ts, HCBS_ORDER_RM, 9 * MS, 10 * MS, r);
	tap_ok(!r->schedulable, "FP: ... and do not fit in 9ms/10ms");
	hcbs_edf_test(&ts, 10 * MS, 10 * MS, &e);
	tap_ok(e.schedulable && e.bound == 20 * MS,
	       "EDF: U = 1 on a whole CPU: checked up to H + max D = 20ms");
	hcbs_taskset_free(&ts);

	/* Over-utilized: U = 0.5 > Θ/Π = 0.25. */
	ts = ts_of("1ms 2ms");
	hcbs_edf_test(&ts, 1 * MS, 4 * MS, &e);
	tap_ok(!e.schedulable && e.over_utilized, "EDF: U=0.5 in a 0.25 reservation is over-utilized");
	/* U == α with blackouts is not schedulable either (sbf(t) < αt). */
	hcbs_edf_test(&ts, 2 * MS, 4 * MS, &e);
	tap_ok(!e.schedulable && e.over_utilized, "EDF: U = Θ/Π < 1 is not schedulable");
	/*
	 * FP, (1, 2) at Π = 4: only point t = 2.  B = 4 - Θ; for Θ <= 2,
	 * sbf(2) = 0.  For Θ > 2: n = (2 - B) div 4 = 0, rest = Θ - 2,
	 * sbf(2) = max(0, rest - B) = max(0, 2Θ - 6) >= 1 -> Θ >= 3.5ms.
	 */
	tap_ok(hcbs_min_runtime(&ts, true, HCBS_ORDER_RM, 4 * MS, US, &q) == 0 && q == 3500 * US,
	       "FP: (1,2) at Π=4ms needs 3.5ms (sbf(2) = 2Θ - 6 >= 1)");
	hcbs_taskset_free(&ts);
	free(r);
}

static void paper(void)
{
	/*
	 * The task set of the paper (Section IV), RM, µs:
	 * (4879, 30000), (561, 36000), (10427, 104000), (4408, 109000),
	 * (20271, 250000); U = .1626 + .0156 + .1003 + .0404 + .0811 = 0.400.
	 */
	struct hcbs_taskset ts = ts_of(
		"# paper, Section IV\n4879us 30ms\n561us 36ms\n10427us 104ms\n"
		"4408us 109ms\n20271us 250ms\n");
	struct hcbs_fp_result *r = calloc(1, sizeof(*r));
	struct hcbs_edf_result e;

	tap_ok(ts.n == 5 && hcbs_default_order(&ts) == HCBS_ORDER_RM, "paper: 5 tasks, RM");
	/*
	 * (Q, P) = (8, 18): blackout 20; sbf^-1(d) = 20 + 18(k - 1) + r,
	 * k = ceil(d / 8), r = d - 8(k - 1).
	 * τ1: d = 4.879 -> R1 = 24.879 (laxity 5.121).
	 * τ5: rbf5(0+) = 40.546 -> t = 20 + 90 + 0.546 = 110.546;
	 *   rbf5 = 20.271 + 4*4.879 + 4*0.561 + 2*10.427 + 2*4.408 = 71.701
	 *   -> t = 20 + 144 + 7.701 = 171.701; rbf5 = 20.271 + 6*4.879
	 *   + 5*0.561 + 20.854 + 8.816 = 82.020 -> t = 20 + 180 + 2.020 =
	 *   202.020; rbf5 = 20.271 + 7*4.879 + 6*0.561 + 20.854 + 8.816 =
	 *   87.460 -> t = 207.460; rbf5(207.46) = 87.460: R5 = 207.46.
	 * Laxities: τ1 5.121, τ2 10.56 (R2 = 25.44), τ3 27.25, τ4 27.85,
	 * τ5 42.54: the tightest is τ1.
	 */
	hcbs_fp_test(&ts, HCBS_ORDER_RM, 8 * MS, 18 * MS, r);
	tap_ok(r->schedulable, "paper: schedulable in (8ms, 18ms) under RM (as the paper says)");
	tap_ok(r->task[4].at.t == 207460 * US && r->task[4].at.supply == 87460 * US &&
	       r->task[4].at.demand == 87460 * US,
	       "paper: τ5's response-time bound is 207.46ms (supply = rbf = 87.46ms)");
	tap_ok(r->task[0].at.t == 24879 * US && r->task[1].at.t == 25440 * US && r->binding == 0,
	       "paper: R1 = 24.879ms, R2 = 25.44ms, tightest τ1");
	/* (16, 36) and (32, 72): blackouts of 40 and 80 > D1 = 30: sbf(30) = 0. */
	hcbs_fp_test(&ts, HCBS_ORDER_RM, 16 * MS, 36 * MS, r);
	tap_ok(!r->schedulable && r->binding == 0 && r->task[0].at.t == 30 * MS &&
	       r->task[0].at.supply == 0,
	       "paper: (16ms, 36ms) not guaranteed: τ1 sees no supply by its deadline 30ms");
	hcbs_fp_test(&ts, HCBS_ORDER_RM, 32 * MS, 72 * MS, r);
	tap_ok(!r->schedulable, "paper: (32ms, 72ms) not guaranteed");
	hcbs_edf_test(&ts, 16 * MS, 36 * MS, &e);
	tap_ok(!e.schedulable && e.at.t == 30 * MS && e.at.supply == 0 && e.at.demand == 4879 * US,
	       "paper: EDF in (16ms, 36ms) fails first at 30ms: supply 0 < demand 4879us");
	hcbs_edf_test(&ts, 8 * MS, 18 * MS, &e);
	tap_ok(e.schedulable, "paper: EDF in (8ms, 18ms) schedulable");

	/* The minimum runtimes, and that they are tight to the µs. */
	uint64_t qf, qe;

	hcbs_min_runtime(&ts, true, HCBS_ORDER_RM, 18 * MS, US, &qf);
	hcbs_min_runtime(&ts, false, HCBS_ORDER_RM, 18 * MS, US, &qe);
	tap_diag("paper: min runtime at 18ms: fp %lluus, edf %lluus",
		 (unsigned long long)(qf / US), (unsigned long long)(qe / US));
	hcbs_fp_test(&ts, HCBS_ORDER_RM, qf, 18 * MS, r);
	bool ok = r->schedulable;

	hcbs_fp_test(&ts, HCBS_ORDER_RM, qf - US, 18 * MS, r);
	tap_ok(ok && !r->schedulable && qf <= 8 * MS,
	       "paper: FP minimum at 18ms (%lluus) is tight to the microsecond and <= 8ms",
	       (unsigned long long)(qf / US));
	hcbs_edf_test(&ts, qe, 18 * MS, &e);
	ok = e.schedulable;
	hcbs_edf_test(&ts, qe - US, 18 * MS, &e);
	/* EDF can never need less than U * P = 7.2ms. */
	tap_ok(ok && !e.schedulable && qe >= 7200 * US && qe <= qf,
	       "paper: EDF minimum (%lluus) is tight, >= U*P = 7200us and <= FP's",
	       (unsigned long long)(qe / US));
	hcbs_taskset_free(&ts);
	free(r);
}

/*
 * Reference for the FP test: the scheduling-points form, task i fits iff
 * rbf_i(t) <= sbf(t) at some t in {k T_j < D_i : j interferes} ∪ {D_i}.
 */
static bool fp_ref(const struct hcbs_taskset *ts, int i, uint64_t q, uint64_t p, uint64_t *first)
{
	uint64_t d = ts->t[i].deadline, best = UINT64_MAX;

	if (hcbs_rbf(ts, HCBS_ORDER_RM, i, d) <= hcbs_sbf(q, p, d))
		best = d;
	for (int j = 0; j < ts->n; j++) {
		if (j == i || ts->t[j].period > ts->t[i].period)
			continue;
		for (uint64_t t = ts->t[j].period; t < d; t += ts->t[j].period)
			if (t < best && hcbs_rbf(ts, HCBS_ORDER_RM, i, t) <= hcbs_sbf(q, p, t))
				best = t;
	}
	*first = best;
	return best != UINT64_MAX;
}

static void fp_against_reference(void)
{
	struct hcbs_fp_result *r = calloc(1, sizeof(*r));
	struct hcbs_taskset ts = { calloc(8, sizeof(struct hcbs_task)), 0, false, false };
	uint64_t s = 4242;
	int bad = 0, sched = 0, cases = 0;

	for (int it = 0; it < 3000; it++) {
		ts.n = 1 + it % 6;
		for (int i = 0; i < ts.n; i++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			ts.t[i].period = (1 + (s >> 33) % 50) * MS;
			ts.t[i].wcet = 1 + (s >> 13) % (ts.t[i].period / 4);
			ts.t[i].deadline = ts.t[i].period - (s >> 7) % (ts.t[i].period / 2);
		}
		uint64_t p = (1 + (s >> 40) % 20) * MS, q = (s >> 3) % (p + 1);

		hcbs_fp_test(&ts, HCBS_ORDER_RM, q, p, r);
		for (int i = 0; i < ts.n; i++) {
			uint64_t first;
			bool ok = fp_ref(&ts, i, q, p, &first);

			cases++;
			sched += ok;
			/* same verdict; R is at most the first fitting point */
			if (ok != r->task[i].schedulable || (ok && r->task[i].at.t > first) ||
			    (ok && r->task[i].at.demand > r->task[i].at.supply))
				bad++;
		}
	}
	tap_diag("FP reference: %d task checks, %d schedulable", cases, sched);
	tap_ok(!bad && sched > 100 && sched < cases,
	       "FP response-time iteration agrees with the scheduling-points test on random sets");
	free(ts.t);
	free(r);
}

/* ---- the extremes, against an independent computation in 128 bits ---- */

/* RM request bound in 128 bits (equal periods interfere both ways). */
static u128 rbf128(const struct hcbs_taskset *ts, int i, u128 t)
{
	u128 d = ts->t[i].wcet;

	for (int j = 0; j < ts->n; j++)
		if (j != i && ts->t[j].period <= ts->t[i].period)
			d += (t + ts->t[j].period - 1) / ts->t[j].period * ts->t[j].wcet;
	return d;
}

/*
 * Scheduling points: task i fits iff rbf(t) <= sbf(t) for some t in
 * {k T_j < D_i} ∪ {D_i}.  A response time of 2^64 - 1 ns or more counts
 * as a miss (the library's documented edge: UINT64_MAX is saturation).
 */
static bool fp_ref128(const struct hcbs_taskset *ts, int i, uint64_t q, uint64_t p)
{
	u128 d = ts->t[i].deadline;

	if (d < UINT64_MAX && rbf128(ts, i, d) <= sbf128(q, p, d))
		return true;
	for (int j = 0; j < ts->n; j++) {
		if (j == i || ts->t[j].period > ts->t[i].period)
			continue;
		for (u128 t = ts->t[j].period; t < d; t += ts->t[j].period)
			if (rbf128(ts, i, t) <= sbf128(q, p, t))
				return true;
	}
	return false;
}

static void extremes(void)
{
	/* Scales: tiny, the kernel's range, the duration bound, the top of 64 bits. */
	static const uint64_t scales[] = {
		1, 1000, 1000000, 31536000000000000ULL / 20, UINT64_MAX / 64,
		UINT64_MAX / 21, (UINT64_MAX >> 1) / 20 + 7,
	};
	struct hcbs_fp_result *r = calloc(1, sizeof(*r));
	struct hcbs_taskset ts = { calloc(8, sizeof(struct hcbs_task)), 0, false, false };
	struct hcbs_edf_result e;
	uint64_t s = 777, q;
	int bad = 0, sched = 0, cases = 0, overu = 0, badu = 0;

	for (int it = 0; it < 7000; it++) {
		uint64_t k = scales[it % 7], pp, qq;
		double u = 0;

		ts.n = 1 + it % 4;
		for (int i = 0; i < ts.n; i++) {
			uint64_t per, c, d;

			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			per = 1 + (s >> 33) % 20;
			c = 1 + (s >> 17) % per;		/* WCET = period included */
			d = c + (s >> 45) % (per - c + 1);
			ts.t[i].period = per * k;
			ts.t[i].deadline = d * k;
			/* an offset below the scale: not all values multiples of k */
			ts.t[i].wcet = c * k - (k > 1 ? (s >> 7) % (k / 2) : 0);
			u += (double)ts.t[i].wcet / (double)ts.t[i].period;
		}
		pp = (1 + (s >> 50) % 20) * k;
		qq = (it % 5 == 0) ? pp : (u128)pp * ((s >> 3) % 1001) / 1000;
		hcbs_fp_test(&ts, HCBS_ORDER_RM, qq, pp, r);
		for (int i = 0; i < ts.n; i++) {
			bool ok = fp_ref128(&ts, i, qq, pp);

			cases++;
			sched += ok;
			if (ok != r->task[i].schedulable) {
				if (bad++ < 3) {
					tap_diag("extremes: scale %llu task %d: library %d, reference %d; Q %llu P %llu",
						 (unsigned long long)k, i, r->task[i].schedulable, ok,
						 (unsigned long long)qq, (unsigned long long)pp);
					for (int j = 0; j < ts.n; j++)
						tap_diag("  C %llu T %llu D %llu", (unsigned long long)ts.t[j].wcet,
							 (unsigned long long)ts.t[j].period,
							 (unsigned long long)ts.t[j].deadline);
				}
			}
		}
		/* Utilization >= the bandwidth (with blackouts) or > 1: never schedulable. */
		if (u > 1.0 + 1e-9 || (qq < pp && u >= (double)qq / (double)pp)) {
			overu++;
			hcbs_edf_test(&ts, qq, pp, &e);
			if (r->schedulable || e.schedulable)
				badu++;
			if (u > 1.0 + 1e-9 &&
			    hcbs_min_runtime(&ts, true, HCBS_ORDER_RM, pp, 1, &q) != -ENOSPC)
				badu++;
		}
	}
	tap_diag("extremes: %d task checks at 7 scales up to 2^64, %d schedulable; %d over-utilized sets",
		 cases, sched, overu);
	tap_ok(!bad && sched > 100 && sched < cases,
	       "FP at the extremes agrees with a 128-bit scheduling-points reference");
	tap_ok(!badu && overu > 100,
	       "utilization > 1, or >= the bandwidth with blackouts: never schedulable, no least runtime");

	/* WCET = period = deadline: only the whole CPU, at every scale. */
	static const uint64_t tops[] = { 1, 1000, 18 * MS, 31536000000000000ULL,
					 UINT64_MAX / 2, UINT64_MAX - 1 };
	int badw = 0;

	ts.n = 1;
	for (size_t i = 0; i < sizeof(tops) / sizeof(*tops); i++) {
		uint64_t t = tops[i];

		ts.t[0] = (struct hcbs_task){ t, t, t, 0, 0 };
		hcbs_fp_test(&ts, HCBS_ORDER_RM, t, t, r);
		badw += !r->schedulable;
		hcbs_edf_test(&ts, t, t, &e);
		/* EDF checks up to H + D: past 2^64 it says inconclusive (not a pass). */
		badw += 10 * !(e.schedulable || (e.inconclusive && t >= UINT64_MAX / 2));
		if (t > 1) {
			hcbs_fp_test(&ts, HCBS_ORDER_RM, t - 1, t, r);
			badw += 100 * r->schedulable;
			hcbs_edf_test(&ts, t - 1, t, &e);
			badw += 1000 * e.schedulable;
		}
		badw += hcbs_min_runtime(&ts, true, HCBS_ORDER_RM, t, 1, &q) || q != t;
	}
	tap_ok(!badw, "WCET = period: schedulable with runtime = period only, from 1ns to 2^64-2 ns");

	/*
	 * The case: C = T = D = 2^64 - 1 ns in 8ms/18ms.  sbf^-1 of
	 * the demand saturates at the deadline; that is not a pass.
	 */
	ts.t[0] = (struct hcbs_task){ UINT64_MAX, UINT64_MAX, UINT64_MAX, 0, 0 };
	hcbs_fp_test(&ts, HCBS_ORDER_RM, 8 * MS, 18 * MS, r);
	tap_ok(!r->schedulable && !r->task[0].schedulable,
	       "C = T = D = 2^64-1 ns in 8ms/18ms: NOT schedulable (was SCHEDULABLE)");
	tap_ok(hcbs_min_runtime(&ts, true, HCBS_ORDER_RM, 18 * MS, US, &q) == -ENOSPC,
	       "... and no least runtime at 18ms (was 0)");
	hcbs_fp_test(&ts, HCBS_ORDER_RM, UINT64_MAX, UINT64_MAX, r);
	tap_ok(!r->schedulable, "... nor a pass at the saturated 2^64-1 in (2^64-1)/(2^64-1)");
	/* Two tasks whose demand overflows 64 bits before any deadline. */
	ts.n = 2;
	ts.t[0] = (struct hcbs_task){ UINT64_MAX / 2 + 1, UINT64_MAX - 1, UINT64_MAX - 1, 0, 0 };
	ts.t[1] = (struct hcbs_task){ UINT64_MAX / 2 + 1, UINT64_MAX - 1, UINT64_MAX - 1, 0, 0 };
	hcbs_fp_test(&ts, HCBS_ORDER_RM, UINT64_MAX - 1, UINT64_MAX - 1, r);
	hcbs_edf_test(&ts, UINT64_MAX - 1, UINT64_MAX - 1, &e);
	tap_ok(!r->schedulable && !e.schedulable,
	       "a demand beyond 2^64 (U > 1 at the top of the range): not schedulable, FP and EDF");
	free(ts.t);
	free(r);
}

static void order(void)
{
	struct hcbs_taskset ts = ts_of("1ms 10ms 3ms\n2ms 5ms\n");

	tap_ok(hcbs_default_order(&ts) == HCBS_ORDER_DM, "deadlines given: deadline monotonic");
	/* DM: τ1 (D=3) first: its rbf(3) = 1; under RM τ2 first: rbf1(3) = 1 + 2 = 3. */
	tap_ok(hcbs_rbf(&ts, HCBS_ORDER_DM, 0, 3 * MS) == 1 * MS &&
	       hcbs_rbf(&ts, HCBS_ORDER_RM, 0, 3 * MS) == 3 * MS, "rbf follows the priority order");
	hcbs_taskset_free(&ts);
	ts = ts_of("1ms 10ms - 10\n2ms 5ms 5ms 20\n");
	tap_ok(ts.has_prio && hcbs_default_order(&ts) == HCBS_ORDER_FILE &&
	       hcbs_rbf(&ts, HCBS_ORDER_FILE, 0, 10 * MS) == 5 * MS,
	       "file priorities: 20 runs before 10 (rbf1(10) = 1 + 2*2)");
	hcbs_taskset_free(&ts);
}

static void parser(void)
{
	static const struct { const char *text; const char *want; } bad[] = {
		{ "", "empty" },
		{ "# only a comment\n\n", "empty" },
		{ "1ms", "line 1: expected WCET PERIOD" },
		{ "1ms 10ms 5ms 3 9", "line 1: too many fields" },
		{ "\n1ms 10xs", "line 2: " },
		{ "1ms 10ms 11ms", "exceeds the period" },
		{ "0ms 10ms", "greater than 0" },
		{ "1ms 10ms - 0", "priority 0 out of range" },
		{ "1ms 10ms - 100", "out of range" },
		{ "1ms 10ms - x", "invalid priority" },
		{ "1ms 10ms - 5\n1ms 10ms", "every task or to none" },
		{ "[]", "empty" },
		{ "[{\"wcet\": \"1ms\"}]", "needs \"wcet\" and \"period\"" },
		{ "[{\"wcet\": \"1ms\", \"period\": \"10ms\", \"prio\": 3}]", "unknown key" },
		{ "[{\"wcet\": 1.5, \"period\": 10}]", "a JSON fraction is not a duration" },
		{ "[{\"wcet\": \"1ms\", \"period\": \"10ms\"}] x", "line 1, column" },
		{ "[{\"wcet\": \"1ms, \"period\": \"10ms\"}]", "JSON task set" },
		{ "{\"task\": []}", "\"tasks\"" },
		{ "[{\"wcet\": \"1ms\", \"period\": \"10ms\", \"priority\": 0}]", "1..99" },
		{ "[{\"wcet\": \"1ms\", \"period\": \"10ms\"}", "line 1, column" },
		/* the hostile JSON: */
		{ "[{\"wcet\": +5, \"period\": 10}]", "line 1, column 11: invalid token" },
		{ "[{\"wcet\": 05, \"period\": 10}]", "line 1, column" },
		{ "[{\"wcet\": \"1ms\",\n \"period\": \"10ms\",\n \"wcet\": \"2ms\"}]",
		  "line 3, column 7: duplicate object key" },
		{ "{\"tasks\": [], \"tasks\": []}", "duplicate object key" },
		{ "[{\"wcet\": \"1ms\", \"period\": \"10ms\", \"foo\": \"1ms\"}]",
		  "task 1: unknown key \"foo\" (accepted: wcet, period, deadline, priority)" },
		{ "{\"tasks\": [], \"x\": 1}", "unknown key \"x\" at the top" },
		{ "[{\"wcet\": -5, \"period\": 10}]", "-5 is negative" },
		{ "[{\"wcet\": 18446744073709551615, \"period\": 10}]", "too big integer" },
		{ "[{\"wcet\": 31536000000000001, \"period\": 10}]", "too large: at most 8760h" },
		{ "[{\"wcet\": \"18446744073709551615ns\", \"period\": \"1s\"}]", "too large" },
		{ "[{\"wcet\": \"0x2ms\", \"period\": \"1s\"}]", "\"wcet\": duration '0x2ms' has an unknown unit" },
		{ "[{\"wcet\": \"1ms\", \"period\": \"1s\", \"priority\": \"5\"}]", "1..99" },
		{ "[{\"wcet\": \"1\\u0000ms\", \"period\": \"1s\"}]", "line 1" },
		{ "[{\"wcet\": true, \"period\": \"1s\"}]", "a JSON boolean is not a duration" },
		{ "[1]", "task 1: expected a task object" },
		{ "18446744073709551615ns 18446744073709551615ns", "line 1: duration" },
		{ "1e1ms 10ms", "line 1: " },
	};
	struct hcbs_taskset ts;
	char err[HCBS_ERRLEN];

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		int ret = hcbs_taskset_parse(bad[i].text, &ts, err, sizeof(err));

		tap_ok(ret && strstr(err, bad[i].want) && !ts.t,
		       "task set rejected: \"%s\" -> %s", bad[i].want, err);
	}

	/* 1025 tasks */
	char *big = malloc(1025 * 12 + 1), *p = big;

	for (int i = 0; i < 1025; i++)
		p += sprintf(p, "1ms 10ms\n");
	tap_ok(hcbs_taskset_parse(big, &ts, err, sizeof(err)) == -E2BIG, "1025 tasks: %s", err);
	free(big);

	tap_ok(!hcbs_taskset_parse("  4879us 30ms # τ1\n\t561us\t36ms\r\n", &ts, err, sizeof(err)) &&
	       ts.n == 2 && ts.t[1].period == 36 * MS && ts.t[0].line == 1,
	       "text: comments, tabs, CRLF");
	hcbs_taskset_free(&ts);
	tap_ok(!hcbs_taskset_parse("{\"tasks\": [{\"wcet\": \"1ms\", \"period\": 10000000, "
				   "\"deadline\": \"5ms\", \"priority\": 50}, {\"wcet\": 2000000, "
				   "\"period\": \"20ms\", \"priority\": 40}]}", &ts, err, sizeof(err)) &&
	       ts.n == 2 && ts.t[0].period == 10 * MS && ts.t[0].deadline == 5 * MS &&
	       ts.t[1].wcet == 2 * MS && ts.t[1].deadline == 20 * MS && ts.has_prio,
	       "JSON: {\"tasks\": [...]}, strings and integer ns, priorities");
	hcbs_taskset_free(&ts);
	tap_ok(!hcbs_taskset_parse("[{\"wcet\": \"\\u0031ms\", \"period\": \"1\\u0030ms\"}]",
				   &ts, err, sizeof(err)) && ts.n == 1 && ts.t[0].wcet == 1 * MS &&
	       ts.t[0].period == 10 * MS, "JSON: \\u escapes are read (\\u0031ms = 1ms)");
	hcbs_taskset_free(&ts);

	/* Fuzz: mutations must never crash, and what parses must be valid. */
	static const char *seeds[] = {
		"4879us 30ms\n561us 36ms 30ms 5\n",
		"[{\"wcet\": \"1ms\", \"period\": \"10ms\", \"priority\": 5}]",
		"{\"tasks\": [{\"wcet\": 1000, \"period\": 2000}]}",
	};
	uint64_t s = 99;
	int invalid = 0, parsed = 0;

	for (int it = 0; it < 100000; it++) {
		char buf[128];
		size_t l;

		snprintf(buf, sizeof(buf), "%s", seeds[it % 3]);
		l = strlen(buf);
		for (int m = 0; m < 3; m++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			buf[(s >> 33) % l] = "0123456789 \n#.,:{}[]\"-smun"[(s >> 17) % 26];
		}
		if (!hcbs_taskset_parse(buf, &ts, err, sizeof(err))) {
			parsed++;
			for (int i = 0; i < ts.n; i++)
				if (!ts.t[i].wcet || !ts.t[i].period ||
				    ts.t[i].deadline > ts.t[i].period || !ts.t[i].deadline)
					invalid++;
			hcbs_taskset_free(&ts);
		} else if (!err[0] || strchr(err, '\n')) {
			invalid++;
		}
	}
	tap_diag("parser fuzz: 100000 mutated inputs, %d parsed", parsed);
	tap_ok(!invalid, "parser fuzz: no crash, every accepted task valid, every error one line");
}

/* --overhead: "auto", the fit of a measurement, both parts added and printed. */
static void overhead(void)
{
	struct hcbs_overhead_run run[HCBS_OVERHEAD_RUNS] = {
		{ .work = 100000, .period = 1000000, .jobs = 1000 },
		{ .work = 2000000, .period = 10000000, .jobs = 100 },
	};
	struct hcbs_task t[2] = {
		{ .wcet = 1000000, .period = 10000000, .deadline = 10000000 },
		{ .wcet = 1, .period = 10000000, .deadline = 10000000 },
	};
	struct hcbs_taskset ts = { .t = t, .n = 2 };
	struct hcbs_overhead ov;
	char buf[96], err[HCBS_ERRLEN];
	int ret;

	/* charged = 40 us + 1.03 W per job */
	run[0].charged = 1000ULL * (100000 + 40000 + 3000);
	run[1].charged = 100ULL * (2000000 + 40000 + 60000);
	hcbs_overhead_fit(run, &ov);
	tap_ok(ov.per_job == 40000 && ov.centi_percent == 300 && !ov.automatic,
	       "fit: 40us + 3%% of W per job -> %llu ns, %u/100 %%",
	       (unsigned long long)ov.per_job, ov.centi_percent);
	tap_ok(!strcmp(hcbs_format_overhead(&ov, buf, sizeof(buf)),
		       "+40us per job +3.00% of each WCET"), "both parts printed: %s", buf);
	ret = hcbs_taskset_inflate(&ts, &ov);
	tap_ok(!ret && t[0].wcet == 1070000 && t[1].wcet == 40002,
	       "both parts added: 1ms -> %llu ns, 1ns -> %llu ns (3%% of 1ns rounded up to 1ns)",
	       (unsigned long long)t[0].wcet, (unsigned long long)t[1].wcet);

	/* the long jobs cost less per ns than the short ones: no negative share */
	run[0].charged = 1000ULL * (100000 + 50000);
	run[1].charged = 100ULL * (2000000 + 20000);
	hcbs_overhead_fit(run, &ov);
	tap_ok(ov.centi_percent == 0 && ov.per_job == 50000,
	       "fit: a negative share is 0, the time per job the short series' (%llu ns, %u)",
	       (unsigned long long)ov.per_job, ov.centi_percent);
	/* charged less than the work (a broken counter): nothing negative */
	run[0].charged = 1000ULL * 90000;
	run[1].charged = 100ULL * 2500000;
	hcbs_overhead_fit(run, &ov);
	tap_ok(ov.per_job == 0 && ov.centi_percent > 0,
	       "fit: a negative time per job is 0 (%llu ns, %u)",
	       (unsigned long long)ov.per_job, ov.centi_percent);
	/* a huge share is capped at the parser's maximum */
	run[1].charged = 100ULL * 2000000 * 50;
	hcbs_overhead_fit(run, &ov);
	tap_ok(ov.centi_percent == HCBS_OVERHEAD_MAX_PERCENT * 100,
	       "fit: the share is capped at %d%%", HCBS_OVERHEAD_MAX_PERCENT);

	tap_ok(!hcbs_parse_overhead("auto", &ov, err, sizeof(err)) && ov.automatic &&
	       !ov.per_job && !ov.centi_percent, "\"auto\" parses as a measurement to make");
	tap_ok(hcbs_parse_overhead("Auto", &ov, err, sizeof(err)) == -EINVAL &&
	       strstr(err, "or auto"), "\"Auto\" refused: %s", err);
	tap_ok(!hcbs_parse_overhead("80us", &ov, err, sizeof(err)) && !ov.automatic &&
	       ov.per_job == 80000, "80us: a time per job, not auto");

	/* Issue 39: a time per job is less than the period. */
	tap_ok(!hcbs_overhead_check(&ov, 18000000, err, sizeof(err)) &&
	       !hcbs_overhead_check(&ov, 80001, err, sizeof(err)),
	       "80us per job: accepted at 18ms and at 80.001us");
	tap_ok(hcbs_overhead_check(&ov, 80000, err, sizeof(err)) == -EINVAL &&
	       strstr(err, "80us per job is not less than the period 80us") && !strchr(err, '\n'),
	       "80us per job at 80us: refused: %s", err);
	ov = (struct hcbs_overhead){ .per_job = 20000000, .centi_percent = 1000 };
	tap_ok(hcbs_overhead_check(&ov, 18000000, err, sizeof(err)) == -EINVAL,
	       "20ms per job at 18ms: refused: %s", err);
	ov = (struct hcbs_overhead){ .centi_percent = HCBS_OVERHEAD_MAX_PERCENT * 100 };
	tap_ok(!hcbs_overhead_check(&ov, 100000, err, sizeof(err)),
	       "a percentage alone has no time to compare");
}

int main(void)
{
	sbf_by_hand();
	fp_by_hand();
	paper();
	fp_against_reference();
	extremes();
	order();
	parser();
	overhead();
	return tap_done();
}
