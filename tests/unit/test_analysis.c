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

/*
 * Shin & Lee's own form: k = max(ceil((t - (Π - Θ)) / Π), 1);
 * sbf = t - (k + 1)(Π - Θ) if t in [(k + 1)Π - 2Θ, (k + 1)Π - Θ],
 * else (k - 1)Θ.  (The library uses the full-periods form.)
 */
static uint64_t sbf_ref(int64_t q, int64_t p, int64_t t)
{
	int64_t k, lo, hi;

	if (q >= p)
		return (uint64_t)t;
	k = t - (p - q) <= 0 ? 1 : (t - (p - q) + p - 1) / p;
	if (k < 1)
		k = 1;
	lo = (k + 1) * p - 2 * q;
	hi = (k + 1) * p - q;
	if (t >= lo && t <= hi)
		return (uint64_t)(t - (k + 1) * (p - q));
	return (uint64_t)((k - 1) * q);
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
		{ "[{\"wcet\": 1.5, \"period\": 10}]", "integers" },
		{ "[{\"wcet\": \"1ms\", \"period\": \"10ms\"}] x", "trailing" },
		{ "[{\"wcet\": \"1ms, \"period\": \"10ms\"}]", "JSON task set" },
		{ "{\"task\": []}", "\"tasks\"" },
		{ "[{\"wcet\": \"1ms\", \"period\": \"10ms\", \"priority\": 0}]", "1..99" },
		{ "[{\"wcet\": \"1ms\", \"period\": \"10ms\"}", "expected ',' or ']'" },
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

int main(void)
{
	sbf_by_hand();
	fp_by_hand();
	paper();
	fp_against_reference();
	order();
	parser();
	return tap_done();
}
