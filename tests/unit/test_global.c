// SPDX-License-Identifier: GPL-2.0
/*
 * Global and partitioned fixed priorities on m servers (hcbs_gfp_test,
 * hcbs_part_test, hcbs_min_runtime_test) against computations written here
 * from the formulas, not with the library's functions: 128-bit arithmetic,
 * the supply as its chunks, the least t found by scanning every t (small
 * scales) or by bisection on the inequality itself (the paper's scale).
 *
 * The test (docs/hcbsctl.md): task k passes if some t in [C_k, D_k] has
 *	m sbf(t) >= load(t) = max(f(C_k), 1 + max over 0 <= E < C_k of f(E)),
 *	f(E) = m E + Σ_{T_i <= T_k, i != k} min(W_i(t), t - E),
 *	W_i(t) = N C_i + min(C_i, t + R_i - C_i - N T_i),
 *	N = floor((t + R_i - C_i) / T_i),
 * R_i the bound of a shorter-period task, D_i for an equal period; a task
 * that fails fails every task of its period and longer.  A load or a t
 * of 2^64 - 1 ns or more counts as a miss (the library's saturation rule).
 * The maximum over E is taken over every integer E (small scales) or at
 * E = 0 and every breakpoint t - W_i (f is piecewise linear in E): the
 * library takes it at two order statistics instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hcbs.h"
#include "hcbs-analysis.h"
#include "tap.h"

#define MS 1000000ULL
#define US 1000ULL
#define NMAX 8

typedef unsigned __int128 u128;

static const u128 TOP = UINT64_MAX;	/* from here on: a miss */

/*
 * Worst-case supply of (Q, P) as its chunks: nothing for B = 2(P - Q),
 * then Q at the start of every P: sbf(t) = floor(x / P) Q + min(x mod P, Q),
 * x = t - B.
 */
static u128 supply(u128 q, u128 p, u128 t)
{
	u128 b = 2 * (p - q), x;

	if (q >= p)
		return t;
	if (t <= b)
		return 0;
	x = t - b;
	return x / p * q + (x % p < q ? x % p : q);
}

static u128 work(u128 c, u128 T, u128 r, u128 l)
{
	u128 n = (l + r - c) / T, tail = l + r - c - n * T;

	return n * c + (tail < c ? tail : c);
}

struct ref {
	bool ok[NMAX], all;
	u128 r[NMAX];
};

struct sys {
	int n;
	u128 c[NMAX], t[NMAX], d[NMAX];
};

static struct sys sys_of(const struct hcbs_taskset *ts)
{
	struct sys s = { .n = ts->n };

	for (int i = 0; i < ts->n; i++) {
		s.c[i] = ts->t[i].wcet;
		s.t[i] = ts->t[i].period;
		s.d[i] = ts->t[i].deadline;
	}
	return s;
}

static u128 f_of(const struct sys *s, const struct ref *g, unsigned m, int k, u128 t, u128 e)
{
	u128 l = (u128)m * e;

	for (int j = 0; j < s->n; j++) {
		u128 w;

		if (j == k || s->t[j] > s->t[k])
			continue;
		w = work(s->c[j], s->t[j], s->t[j] < s->t[k] ? g->r[j] : s->d[j], t);
		l += w < t - e ? w : t - e;
	}
	return l;
}

/* load(t), t >= C_k; @every: every integer E, else 0 and the breakpoints. */
static u128 load(const struct sys *s, const struct ref *g, unsigned m, int k, u128 t, bool every)
{
	u128 c = s->c[k], l = f_of(s, g, m, k, t, c);

	if (every) {
		for (u128 e = 0; e < c; e++) {
			u128 f = f_of(s, g, m, k, t, e) + 1;

			l = f > l ? f : l;
		}
		return l;
	}
	for (int j = -1; j < s->n; j++) {
		u128 e = 0, f;

		if (j >= 0) {
			u128 w;

			if (j == k || s->t[j] > s->t[k])
				continue;
			w = work(s->c[j], s->t[j], s->t[j] < s->t[k] ? g->r[j] : s->d[j], t);
			if (w >= t || t - w >= c)
				continue;
			e = t - w;
		}
		f = f_of(s, g, m, k, t, e) + 1;
		l = f > l ? f : l;
	}
	return l;
}

/* The least t with m sbf(t) >= @l, by bisection over [0, 2^66]. */
static u128 least_supply(unsigned m, u128 q, u128 p, u128 l)
{
	u128 lo = 0, hi = (u128)1 << 66;

	if ((u128)m * supply(q, p, hi) < l)
		return hi;
	while (lo < hi) {
		u128 mid = lo + (hi - lo) / 2;

		if ((u128)m * supply(q, p, mid) >= l)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * The reference verdict, in priority (period) order.  @scan: try every t
 * from C_k to D_k, with load() over every E (2) or the breakpoints (1);
 * 0: climb t = least_supply(load(t)).
 */
static void gfp_ref(const struct sys *s, unsigned m, u128 q, u128 p, int scan, struct ref *g)
{
	u128 failp = 0;
	bool failed = false;
	int done[NMAX] = { 0 };

	for (int i = 0; i < s->n; i++)
		g->r[i] = s->d[i];
	for (int round = 0; round < s->n; round++) {
		int k = -1;
		u128 t = 0;
		bool ok = false;

		for (int i = 0; i < s->n; i++)
			if (!done[i] && (k < 0 || s->t[i] < s->t[k]))
				k = i;
		done[k] = 1;
		if (scan) {
			for (t = s->c[k]; t <= s->d[k]; t++) {
				u128 l = load(s, g, m, k, t, scan == 2);

				if (l >= TOP)
					break;
				if ((u128)m * supply(q, p, t) >= l) {
					ok = true;
					break;
				}
			}
		} else {
			t = least_supply(m, q, p, (u128)m * s->c[k]);
			for (;;) {
				u128 l, next;

				if (t > s->d[k] || t >= TOP)
					break;
				l = load(s, g, m, k, t, false);
				if (l >= TOP)
					break;
				next = least_supply(m, q, p, l);
				if (next == t) {
					ok = true;
					break;
				}
				t = next;
			}
		}
		if (ok && (!failed || s->t[k] < failp)) {
			g->ok[k] = true;
			g->r[k] = t;
		} else {
			g->ok[k] = false;
			if (!failed)
				failp = s->t[k];
			failed = true;
		}
	}
	g->all = true;
	for (int i = 0; i < s->n; i++) {
		if (failed && s->t[i] >= failp)
			g->ok[i] = false;
		g->all &= g->ok[i];
	}
}

/* The exact one-CPU RM test by scanning t (rbf of every period <= T_k). */
static bool uni_ref(const struct sys *s, const bool *in, u128 q, u128 p)
{
	for (int k = 0; k < s->n; k++) {
		bool ok = false;

		if (!in[k])
			continue;
		for (u128 t = 1; t <= s->d[k] && !ok; t++) {
			u128 rbf = s->c[k];

			for (int j = 0; j < s->n; j++)
				if (in[j] && j != k && s->t[j] <= s->t[k])
					rbf += (t + s->t[j] - 1) / s->t[j] * s->c[j];
			ok = rbf <= supply(q, p, t);
		}
		if (!ok)
			return false;
	}
	return true;
}

static uint64_t rng = 20091201;

static uint64_t rnd(uint64_t n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (rng >> 17) % n;
}

static bool same(const struct hcbs_gfp_result *r, const struct ref *g, int n)
{
	if (r->schedulable != g->all)
		return false;
	for (int i = 0; i < n; i++) {
		const struct hcbs_point *pt = &r->task[i].at;

		if (r->task[i].schedulable != g->ok[i])
			return false;
		if (g->ok[i] && (pt->t != (uint64_t)g->r[i] || pt->demand > pt->supply))
			return false;
	}
	return true;
}

static bool gfp(const struct hcbs_taskset *ts, unsigned m, uint64_t q, uint64_t p,
		struct hcbs_gfp_result *r)
{
	return !hcbs_gfp_test(ts, HCBS_ORDER_RM, m, q, p, r) && r->schedulable;
}

/* ---- small scales: every t scanned ---- */

static void small_random(void)
{
	struct hcbs_gfp_result *r = calloc(1, sizeof(*r));
	struct hcbs_taskset ts = { calloc(NMAX, sizeof(struct hcbs_task)), 0, false, false };
	int bad = 0, sched = 0, cases = 0, uni_bad = 0, over = 0, over_bad = 0;
	int mono_m = 0, mono_q = 0, sat_uni = 0;

	for (int it = 0; it < 20000; it++) {
		unsigned m = 1 + (unsigned)rnd(4);
		uint64_t p = 2 + rnd(19), q = rnd(p + 1);
		struct ref g;
		struct sys s;
		bool all[NMAX];
		u128 lhs = 0, rhs;

		ts.n = 1 + (int)rnd(6);
		for (int i = 0; i < ts.n; i++) {
			ts.t[i].period = 4 + rnd(57);
			ts.t[i].wcet = 1 + rnd(ts.t[i].period / 2 + (it % 3 ? 0 : ts.t[i].period / 2));
			ts.t[i].deadline = ts.t[i].period - rnd(ts.t[i].period / 2);
			if (ts.t[i].wcet > ts.t[i].deadline)
				ts.t[i].wcet = ts.t[i].deadline;
			all[i] = true;
		}
		s = sys_of(&ts);
		gfp_ref(&s, m, q, p, 2, &g);
		hcbs_gfp_test(&ts, HCBS_ORDER_RM, m, q, p, r);
		cases++;
		sched += g.all;
		if (!same(r, &g, ts.n) && !bad++) {
			tap_diag("first mismatch: m %u, Q/P %llu/%llu:", m, (unsigned long long)q,
				 (unsigned long long)p);
			for (int i = 0; i < ts.n; i++)
				tap_diag("  C %llu T %llu D %llu: library %d R %llu, reference %d R %llu",
					 (unsigned long long)ts.t[i].wcet, (unsigned long long)ts.t[i].period,
					 (unsigned long long)ts.t[i].deadline, r->task[i].schedulable,
					 (unsigned long long)r->task[i].at.t, g.ok[i], (unsigned long long)g.r[i]);
		}
		/* m = 1: never more than the exact uniprocessor test accepts */
		if (m == 1 && g.all) {
			sat_uni++;
			uni_bad += !uni_ref(&s, all, q, p);
		}
		/* U > m Q / P: Σ C_i Π_{j != i} T_j P > m Q Π T_j, exactly */
		rhs = (u128)m * q;
		for (int i = 0; i < ts.n; i++) {
			u128 term = (u128)ts.t[i].wcet * p;

			for (int j = 0; j < ts.n; j++)
				if (j != i)
					term *= ts.t[j].period;
			lhs += term;
			rhs *= ts.t[i].period;
		}
		if (lhs > rhs) {
			over++;
			over_bad += r->schedulable;
		}
		/* more CPUs, or more runtime, never turn a pass into a fail */
		if (r->schedulable && m < HCBS_ANALYSIS_MAX_CPUS) {
			struct ref g2;

			gfp_ref(&s, m + 1, q, p, 2, &g2);
			mono_m += !g2.all;
			if (q < p) {
				gfp_ref(&s, m, q + 1, p, 2, &g2);
				mono_q += !g2.all;
			}
		}
	}
	tap_diag("small scales: %d sets, %d schedulable, %d over-utilized, %d m = 1 passes",
		 cases, sched, over, sat_uni);
	tap_ok(!bad && sched > 1000 && sched < cases - 1000,
	       "global FP: verdicts and response-time bounds equal the reference scanning every t");
	tap_ok(!uni_bad && sat_uni > 100,
	       "global FP at m = 1 never accepts what the exact one-CPU test (scanned) rejects");
	tap_ok(!over_bad && over > 500, "global FP: utilization > m Q/P is never schedulable (%d sets)",
	       over);
	tap_ok(!mono_m, "global FP: one more CPU at the same (Q, P) keeps every schedulable set schedulable");
	tap_ok(!mono_q, "global FP: 1 ns more runtime keeps every schedulable set schedulable");
	free(ts.t);
	free(r);
}

/* Partitioned: every CPU's share passes the exact one-CPU test; first fit. */
static void partitioned_random(void)
{
	struct hcbs_part_result *r = calloc(1, sizeof(*r));
	struct hcbs_taskset ts = { calloc(NMAX, sizeof(struct hcbs_task)), 0, false, false };
	int bad = 0, sched = 0, cases = 0;

	for (int it = 0; it < 5000; it++) {
		unsigned m = 1 + (unsigned)rnd(4);
		uint64_t p = 2 + rnd(19), q = rnd(p + 1);
		struct sys s;
		int order[NMAX], placed = 0;

		ts.n = 1 + (int)rnd(6);
		for (int i = 0; i < ts.n; i++) {
			ts.t[i].period = 4 + rnd(57);
			ts.t[i].wcet = 1 + rnd(ts.t[i].period / 2);
			ts.t[i].deadline = ts.t[i].period - rnd(ts.t[i].period / 3);
		}
		s = sys_of(&ts);
		hcbs_part_test(&ts, HCBS_ORDER_RM, m, q, p, r);
		cases++;
		sched += r->schedulable;
		/* RM order, ties in file order (stable) */
		for (int i = 0; i < ts.n; i++) {
			int k = i;

			while (k > 0 && ts.t[order[k - 1]].period > ts.t[i].period) {
				order[k] = order[k - 1];
				k--;
			}
			order[k] = i;
		}
		for (int n = 0; n < ts.n; n++) {
			int k = order[n], want = -1;

			/* first fit by the reference, given the earlier placements */
			for (unsigned c = 0; c < m && want < 0; c++) {
				bool in[NMAX];

				for (int i = 0; i < ts.n; i++)
					in[i] = i == k || r->cpu[i] == (int)c;
				if (uni_ref(&s, in, q, p))
					want = (int)c;
			}
			if (r->cpu[k] != want)
				bad++;
			if (want < 0) {
				if (r->failed != k || r->schedulable)
					bad++;
				break;
			}
			placed++;
		}
		if (r->schedulable != (placed == ts.n))
			bad++;
	}
	tap_diag("partitioned: %d sets, %d schedulable", cases, sched);
	tap_ok(!bad && sched > 500 && sched < cases - 500,
	       "partitioned FP: first fit by priority, each CPU checked by the exact one-CPU test");
	free(ts.t);
	free(r);
}

/*
 * What the global test accepts, first fit accepts too (distinct
 * priorities, Q < P): a task k the global test passes at t has
 * m sbf(t) >= f(C_k) = m C_k + sum_i min(W_i(t), t - C_k).  If c >= m
 * terms are clamped at t - C_k, f(C_k) >= m t > m sbf(t): it cannot pass.
 * Else (m - c) C_k + sum of the unclamped W_i <= m sbf(t) - c t <=
 * (m - c) sbf(t), and of the >= m - c CPUs without a clamped task, the
 * least loaded holds at most 1/(m - c) of the unclamped tasks:
 * C_k + sum_{i there} W_i(t) <= sbf(t).  W_i(t) >= floor(t/T_i) C_i +
 * min(C_i, t mod T_i), and moving t down over each part-job (sbf loses at
 * most what the demand loses) ends at a t' <= D_k where the one-CPU
 * demand C_k + sum ceil(t'/T_i) C_i fits sbf(t'): k fits on that CPU.
 * So a task set schedulable only with migration is never *guaranteed* by
 * this test (docs/hcbsctl.md); this checks the library agrees.
 */
static void global_implies_partitioned(void)
{
	struct hcbs_gfp_result *g = calloc(1, sizeof(*g));
	struct hcbs_part_result *r = calloc(1, sizeof(*r));
	struct hcbs_taskset ts = { calloc(NMAX, sizeof(struct hcbs_task)), 0, false, false };
	int bad = 0, global = 0, cases = 0;

	for (int it = 0; it < 20000; it++) {
		unsigned m = 1 + (unsigned)rnd(4);
		uint64_t p = 2 + rnd(19), q = 1 + rnd(p - 1);

		ts.n = 1 + (int)rnd(7);
		for (int i = 0; i < ts.n; i++) {
			bool dup;

			do {	/* distinct periods: distinct RM priorities */
				ts.t[i].period = 4 + rnd(97);
				dup = false;
				for (int j = 0; j < i; j++)
					dup |= ts.t[j].period == ts.t[i].period;
			} while (dup);
			ts.t[i].wcet = 1 + rnd(ts.t[i].period * 2 / 3);
			ts.t[i].deadline = ts.t[i].period;
		}
		if (hcbs_gfp_test(&ts, HCBS_ORDER_RM, m, q, p, g) ||
		    hcbs_part_test(&ts, HCBS_ORDER_RM, m, q, p, r)) {
			bad++;
			continue;
		}
		cases++;
		if (!g->schedulable)
			continue;
		global++;
		if (!r->schedulable) {
			bad++;
			tap_diag("global accepts, first fit rejects: m %u, %lu/%lu, %d tasks", m,
				 (unsigned long)q, (unsigned long)p, ts.n);
		}
	}
	tap_diag("global implies partitioned: %d sets, %d accepted by the global test", cases,
		 global);
	tap_ok(!bad && global > 1000,
	       "global FP accepts nothing first-fit partitioning rejects (distinct priorities, Q < P)");
	free(ts.t);
	free(r);
	free(g);
}

/*
 * Random sets against the reference.  Medium scales (@ms false): every t
 * scanned, Q = P in half the sets, long last-job parts of W_i, where the
 * library skips ahead instead of climbing 1 ns at a time (a skip too far
 * would show as a larger R, or a fail, here).  The paper's scale (@ms):
 * the reference's own climb, in 128 bits.
 */
static void random_sets(bool ms, int sets, const char *what)
{
	struct hcbs_gfp_result *r = calloc(1, sizeof(*r));
	struct hcbs_taskset ts = { calloc(NMAX, sizeof(struct hcbs_task)), 0, false, false };
	int bad = 0, sched = 0, cases = 0;

	for (int it = 0; it < sets; it++) {
		unsigned m = 1 + (unsigned)rnd(ms ? 8 : 6);
		uint64_t p = ms ? (1 + rnd(40)) * MS : 5 + rnd(60);
		uint64_t q = ms ? rnd(p + 1) : it % 2 ? p : p - rnd(p / 3 + 1);
		struct ref g;
		struct sys s;

		ts.n = 1 + (int)rnd(NMAX);
		for (int i = 0; i < ts.n; i++) {
			struct hcbs_task *t = &ts.t[i];

			t->period = ms ? (1 + rnd(300)) * MS + rnd(1000) * US : 50 + rnd(400);
			t->wcet = 1 + rnd(ms ? t->period / 3 : t->period * 3 / 4);
			t->deadline = t->period - rnd(t->period / (ms ? 2 : 4));
			if (t->wcet > t->deadline)
				t->wcet = t->deadline;
		}
		s = sys_of(&ts);
		gfp_ref(&s, m, q, p, ms ? 0 : 1, &g);
		hcbs_gfp_test(&ts, HCBS_ORDER_RM, m, q, p, r);
		cases++;
		sched += g.all;
		if (!same(r, &g, ts.n))
			bad++;
	}
	tap_diag("%s: %d sets, %d schedulable", what, cases, sched);
	tap_ok(!bad && sched > sets / 10 && sched < cases - sets / 10,
	       "global FP: verdicts and bounds equal the reference on random sets, %s", what);
	free(ts.t);
	free(r);
}

/* The task set of the HCBS paper, Section IV (selftests/hcbs/test_hcbs_taskset.c). */
static void paper(void)
{
	static const uint64_t c[5] = { 4879, 561, 10427, 4408, 20271 };
	static const uint64_t t[5] = { 30000, 36000, 104000, 109000, 250000 };
	/*
	 * Verdicts at (8ms, 18ms) and the least Q at 18ms, as the reference
	 * here computes them (and the library must): m = 1 is more pessimistic
	 * than the one-CPU test (7955us): W_i counts a carried-in job.  m = 4
	 * reaches the floor of τ1 alone: 2(18 - Q) + 4.879 <= 30, Q >= 5440us.
	 */
	static const struct {
		unsigned m;
		bool at_8_18;
		uint64_t qmin_us;
	} want[] = { { 1, false, 9440 }, { 2, true, 5631 }, { 4, true, 5440 } };
	struct hcbs_task tasks[5];
	struct hcbs_taskset ts = { tasks, 5, false, false };
	struct hcbs_gfp_result *r = calloc(1, sizeof(*r));
	struct sys s;

	for (int i = 0; i < 5; i++)
		tasks[i] = (struct hcbs_task){ c[i] * US, t[i] * US, t[i] * US, 0, i + 1 };
	s = sys_of(&ts);
	for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
		unsigned m = want[w].m;
		struct ref g, below;
		uint64_t q = 0;
		int ret;

		gfp_ref(&s, m, 8 * MS, 18 * MS, 0, &g);
		hcbs_gfp_test(&ts, HCBS_ORDER_RM, m, 8 * MS, 18 * MS, r);
		tap_ok(same(r, &g, 5) && g.all == want[w].at_8_18,
		       "paper, m = %u, (8ms, 18ms): global FP %s, as the reference (R1 = %lluus, R5 = %lluus)",
		       m, g.all ? "schedulable" : "not guaranteed",
		       (unsigned long long)(r->task[0].at.t / US), (unsigned long long)(r->task[4].at.t / US));
		ret = hcbs_min_runtime_test(&ts, HCBS_TEST_GFP, HCBS_ORDER_RM, m, 18 * MS, US, &q);
		gfp_ref(&s, m, q, 18 * MS, 0, &g);
		gfp_ref(&s, m, q - US, 18 * MS, 0, &below);
		tap_ok(!ret && g.all && !below.all && q == want[w].qmin_us * US,
		       "paper, m = %u: least Q at 18ms for global FP is %lluus (reference: passes there, fails 1us below)",
		       m, (unsigned long long)(q / US));
	}
	/* Partitioned at m = 1 is the one-CPU test: 7955us. */
	uint64_t q1 = 0, qp = 0;

	hcbs_min_runtime(&ts, true, HCBS_ORDER_RM, 18 * MS, US, &q1);
	hcbs_min_runtime_test(&ts, HCBS_TEST_PART, HCBS_ORDER_RM, 1, 18 * MS, US, &qp);
	tap_ok(q1 == 7955 * US && qp == q1, "paper: partitioned on 1 CPU needs what one CPU needs, 7955us");
	/* (16ms, 36ms): the 40ms blackout exceeds D1 = 30ms on any number of CPUs. */
	tap_ok(!gfp(&ts, 64, 16 * MS, 36 * MS, r) && r->binding == 0 && r->task[0].at.t == 30 * MS &&
	       r->task[0].at.supply == 0, "paper: (16ms, 36ms) not guaranteed even on 64 CPUs: τ1 sees no supply by 30ms");
	free(r);
}

/* ---- 64-bit edges: saturation is a miss, never a pass ---- */

static void extremes(void)
{
	struct hcbs_gfp_result *r = calloc(1, sizeof(*r));
	struct hcbs_task tk[3];
	struct hcbs_taskset ts = { tk, 1, false, false };
	const uint64_t top = UINT64_MAX;
	struct ref g;
	struct sys s;

	/* One task C = D = T = 2^64 - 2 on one dedicated CPU: fits exactly. */
	tk[0] = (struct hcbs_task){ top - 1, top - 1, top - 1, 0, 1 };
	tap_ok(gfp(&ts, 1, 1000, 1000, r) && r->task[0].at.t == top - 1,
	       "extremes: C = T = 2^64 - 2 on a dedicated CPU: R = C");
	/* On 2 CPUs m C_k is beyond 64 bits: saturated, so not schedulable. */
	tap_ok(!gfp(&ts, 2, 1000, 1000, r) && !r->task[0].schedulable,
	       "extremes: m C_k beyond 64 bits is a miss, never a pass");
	/* Full utilization at the top of 64 bits, two tasks, every scale of m. */
	ts.n = 2;
	tk[0] = (struct hcbs_task){ top / 4, top / 2 - (1ULL << 40), top / 2 - (1ULL << 40), 0, 1 };
	tk[1] = (struct hcbs_task){ top / 4, top / 2, top / 2, 0, 2 };
	s = sys_of(&ts);
	for (unsigned m = 1; m <= 4; m++) {
		hcbs_gfp_test(&ts, HCBS_ORDER_RM, m, 999, 1000, r);
		gfp_ref(&s, m, 999, 1000, 0, &g);
		tap_ok(same(r, &g, 2), "extremes: two tasks of 2^62 ns, m = %u: %s, as the 128-bit reference",
		       m, g.all ? "schedulable" : "not guaranteed");
	}
	/* Utilization 1 per task on 2 CPUs with Q/P < 1: never. */
	tk[0] = (struct hcbs_task){ top / 2, top / 2, top / 2, 0, 1 };
	tk[1] = (struct hcbs_task){ top / 2, top / 2, top / 2, 0, 2 };
	tap_ok(!gfp(&ts, 2, 999999, 1000000, r) && !gfp(&ts, 4096, 999999, 1000000, r),
	       "extremes: U = 2 at 2^63 ns with Q < P: not schedulable on 2 or 4096 CPUs");
	/* Q = 0: no supply. */
	tap_ok(!gfp(&ts, 4, 0, 1000, r), "extremes: Q = 0 is never schedulable");
	free(r);
}

/* ---- error paths ---- */

static void errors(void)
{
	struct hcbs_gfp_result *g = calloc(1, sizeof(*g));
	struct hcbs_part_result *p = calloc(1, sizeof(*p));
	struct hcbs_task tk = { MS, 10 * MS, 10 * MS, 0, 1 };
	struct hcbs_taskset ts = { &tk, 1, false, false };
	uint64_t q = 42;

	tap_ok(hcbs_gfp_test(&ts, HCBS_ORDER_RM, 0, MS, 2 * MS, g) == -EINVAL &&
	       hcbs_gfp_test(&ts, HCBS_ORDER_RM, HCBS_ANALYSIS_MAX_CPUS + 1, MS, 2 * MS, g) == -EINVAL &&
	       hcbs_gfp_test(&ts, HCBS_ORDER_RM, 2, 3 * MS, 2 * MS, g) == -EINVAL &&
	       hcbs_gfp_test(&ts, HCBS_ORDER_RM, 2, 0, 0, g) == -EINVAL,
	       "errors: global test refuses 0 or too many CPUs, Q > P, P = 0");
	tap_ok(hcbs_part_test(&ts, HCBS_ORDER_RM, 0, MS, 2 * MS, p) == -EINVAL &&
	       hcbs_part_test(&ts, HCBS_ORDER_RM, 2, 3 * MS, 2 * MS, p) == -EINVAL,
	       "errors: partitioned test refuses 0 CPUs, Q > P");
	tap_ok(hcbs_min_runtime_test(&ts, HCBS_TEST_GFP, HCBS_ORDER_RM, 0, 2 * MS, US, &q) == -EINVAL &&
	       hcbs_min_runtime_test(&ts, HCBS_TEST_GFP, HCBS_ORDER_RM, 2, 2 * MS + 1, US, &q) == -EINVAL &&
	       hcbs_min_runtime_test(&ts, HCBS_TEST_GFP, HCBS_ORDER_RM, 2, 2 * MS, 0, &q) == -EINVAL &&
	       q == 42, "errors: least runtime refuses 0 CPUs, a period not a multiple of the grain, grain 0");
	/* Two tasks of utilization 1 on one CPU: no runtime fits. */
	struct hcbs_task two[2] = { { 10 * MS, 10 * MS, 10 * MS, 0, 1 }, { 10 * MS, 10 * MS, 10 * MS, 0, 2 } };
	struct hcbs_taskset ts2 = { two, 2, false, false };

	tap_ok(hcbs_min_runtime_test(&ts2, HCBS_TEST_GFP, HCBS_ORDER_RM, 1, 5 * MS, US, &q) == -ENOSPC &&
	       hcbs_min_runtime_test(&ts2, HCBS_TEST_PART, HCBS_ORDER_RM, 1, 5 * MS, US, &q) == -ENOSPC &&
	       q == 42, "errors: U = 2 on one CPU: no runtime fits (-ENOSPC), nothing written");
	free(g);
	free(p);
}

int main(void)
{
	small_random();
	random_sets(false, 1500, "medium scales, every t scanned (long linear stretches)");
	partitioned_random();
	global_implies_partitioned();
	random_sets(true, 3000, "ms scales, the reference's climb in 128 bits");
	paper();
	extremes();
	errors();
	return tap_done();
}
