// SPDX-License-Identifier: GPL-2.0
/*
 * Schedulability of a task set inside one periodic resource Γ(Π, Θ).
 *
 * Supply: Shin & Lee's supply bound function.  In the worst case the
 * server's budget arrives as early as possible in one period and as late
 * as possible in the next, so a window can see no supply for up to the
 * blackout 2(Π - Θ), and then Θ every Π.
 *
 * Fixed priorities (SCHED_FIFO inside the container): task i meets its
 * deadline iff some t in (0, D_i] has rbf_i(t) <= sbf(t), with
 * rbf_i(t) = C_i + sum over interfering j of ceil(t / T_j) C_j.  The least
 * such t is the task's worst-case response-time bound R_i; it is found by
 * iterating t = sbf^-1(rbf_i(t)), which costs a few steps per task
 * instead of one check per multiple of every interfering period.  Tasks
 * of equal priority interfere with each other (FIFO order among equals is
 * not something to count on).
 *
 * EDF: schedulable iff dbf(t) <= sbf(t) for all t > 0; dbf only steps at
 * t = D_i + k T_i, so only those points are checked, up to the bound past
 * which the linear lower bound of sbf, α(t - 2(Π - Θ)), exceeds the linear
 * upper bound of dbf, U t + Σ U_i (T_i - D_i) (α = Θ/Π > U needed).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hcbs.h"
#include "hcbs-analysis.h"
#include "hcbs-rt.h"

/* ---- supply and demand ---- */

uint64_t hcbs_sbf(uint64_t runtime, uint64_t period, uint64_t t)
{
	uint64_t blackout, n, rest;

	if (runtime >= period)
		return t;
	blackout = period - runtime;
	if (t <= blackout)
		return 0;
	n = (t - blackout) / period;			/* full periods */
	rest = t - blackout - n * period;		/* in [0, Π) */
	return n * runtime + (rest > blackout ? rest - blackout : 0);
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

/*
 * Sort key: lower runs first.  Unsigned: periods and deadlines above 2^63
 * must not turn into negative keys (and the highest priority).
 */
static uint64_t prio_key(const struct hcbs_task *t, enum hcbs_prio_order o)
{
	switch (o) {
	case HCBS_ORDER_FILE:
		return (uint64_t)(1000 - t->prio);	/* prio is 1..99 */
	case HCBS_ORDER_DM:
		return t->deadline;
	default:
		return t->period;
	}
}

static bool interferes(const struct hcbs_taskset *ts, enum hcbs_prio_order o,
		       int j, int i)
{
	return j != i && prio_key(&ts->t[j], o) <= prio_key(&ts->t[i], o);
}

uint64_t hcbs_rbf(const struct hcbs_taskset *ts, enum hcbs_prio_order o,
		  int i, uint64_t t)
{
	uint64_t d = ts->t[i].wcet;

	for (int j = 0; j < ts->n; j++)
		if (interferes(ts, o, j, i))
			d = hcbs_add_sat(d, hcbs_mul_sat(ceil_div(t, ts->t[j].period), ts->t[j].wcet));
	return d;
}

uint64_t hcbs_dbf(const struct hcbs_taskset *ts, uint64_t t)
{
	uint64_t d = 0;

	for (int i = 0; i < ts->n; i++)
		if (t >= ts->t[i].deadline)
			d = hcbs_add_sat(d, hcbs_mul_sat((t - ts->t[i].deadline) / ts->t[i].period + 1,
					       ts->t[i].wcet));
	return d;
}

double hcbs_utilization(const struct hcbs_taskset *ts)
{
	double u = 0;

	for (int i = 0; i < ts->n; i++)
		u += (double)ts->t[i].wcet / (double)ts->t[i].period;
	return u;
}

enum hcbs_prio_order hcbs_default_order(const struct hcbs_taskset *ts)
{
	if (ts->has_prio)
		return HCBS_ORDER_FILE;
	return ts->has_deadline ? HCBS_ORDER_DM : HCBS_ORDER_RM;
}

const char *hcbs_order_name(enum hcbs_prio_order o)
{
	switch (o) {
	case HCBS_ORDER_FILE:
		return "file";
	case HCBS_ORDER_DM:
		return "dm";
	default:
		return "rm";
	}
}

/* ---- the tests ---- */

static int64_t slack(const struct hcbs_point *p)
{
	return (int64_t)p->supply - (int64_t)p->demand;
}

/* Keep @cand if it is tighter than @best (ties: the earlier point). */
static void keep_tightest(struct hcbs_point *best, const struct hcbs_point *cand)
{
	if (!best->valid || slack(cand) < slack(best) ||
	    (slack(cand) == slack(best) && cand->t < best->t))
		*best = *cand;
}

uint64_t hcbs_sbf_inverse(uint64_t runtime, uint64_t period, uint64_t demand)
{
	uint64_t k, r, t;

	if (!demand)
		return 0;
	if (runtime >= period)
		return demand;
	if (!runtime)
		return UINT64_MAX;
	/* k budget chunks, the last one r long: t = 2(Π - Θ) + (k - 1)Π + r. */
	k = ceil_div(demand, runtime);
	r = demand - (k - 1) * runtime;
	t = hcbs_add_sat(hcbs_mul_sat(k - 1, period), r);
	return hcbs_add_sat(t, hcbs_mul_sat(2, period - runtime));
}

int hcbs_fp_test(const struct hcbs_taskset *ts, enum hcbs_prio_order o,
		 uint64_t runtime, uint64_t period, struct hcbs_fp_result *r)
{
	uint64_t least = UINT64_MAX;

	if (!period || runtime > period || ts->n > HCBS_MAX_TASKS)
		return -EINVAL;
	r->schedulable = true;
	r->binding = -1;
	for (int i = 0; i < ts->n; i++) {
		struct hcbs_fp_task *ti = &r->task[i];
		uint64_t d = ts->t[i].deadline, t, demand;

		/*
		 * The least t with rbf_i(t) <= sbf(t), by fixed-point iteration
		 * t = sbf^-1(rbf_i(t)) from below: both are non-decreasing, so
		 * the iteration climbs to the least such t (the response-time
		 * bound) without overshooting it.
		 */
		demand = hcbs_rbf(ts, o, i, 1);
		t = hcbs_sbf_inverse(runtime, period, demand);
		while (t <= d && t != UINT64_MAX) {
			uint64_t next;

			demand = hcbs_rbf(ts, o, i, t);
			next = hcbs_sbf_inverse(runtime, period, demand);
			if (next <= t)
				break;
			t = next;
		}
		memset(ti, 0, sizeof(*ti));
		/*
		 * UINT64_MAX is where the arithmetic saturated (a demand or a
		 * supply beyond 64 bits) or sbf^-1 found no t: the real t is
		 * beyond every deadline, so it is a failure even when the
		 * deadline is UINT64_MAX itself, never a pass.
		 */
		ti->schedulable = t <= d && t != UINT64_MAX && demand != UINT64_MAX;
		if (!ti->schedulable)
			t = d;		/* show the shortfall at the deadline */
		ti->at = (struct hcbs_point){ t, hcbs_sbf(runtime, period, t),
					      hcbs_rbf(ts, o, i, t), true };
		if (!ti->schedulable) {
			if (r->schedulable) {
				r->schedulable = false;
				r->binding = i;
			}
		} else if (r->schedulable && d - t < least) {
			/* binding: the least laxity D - R */
			least = d - t;
			r->binding = i;
		}
	}
	return 0;
}

int hcbs_edf_test(const struct hcbs_taskset *ts, uint64_t runtime,
		  uint64_t period, struct hcbs_edf_result *r)
{
	double u = hcbs_utilization(ts), alpha, lin = 0, bound;
	uint64_t points = 0, maxd = 0;

	if (!period || runtime > period)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	alpha = (double)runtime / (double)period;
	for (int i = 0; i < ts->n; i++) {
		lin += (double)ts->t[i].wcet / (double)ts->t[i].period *
		       (double)(ts->t[i].period - ts->t[i].deadline);
		if (ts->t[i].deadline > maxd)
			maxd = ts->t[i].deadline;
	}
	if (u > alpha * (1 + 1e-12) ||
	    (runtime < period && u >= alpha * (1 - 1e-12))) {
		/*
		 * sbf(t) <= α (t - (Π - Θ)) < α t, while dbf(k H) = U k H for
		 * constrained deadlines: the demand overtakes the supply.
		 */
		r->over_utilized = true;
		return 0;
	}
	if (u < alpha * (1 - 1e-12)) {
		bound = (lin + 2.0 * alpha * (double)(period - runtime)) / (alpha - u);
		bound = bound * (1 + 1e-9) + 1;		/* round up generously */
	} else {
		/*
		 * U == α == 1 as far as doubles tell: a dedicated CPU.  Decide
		 * U <= 1 exactly, in integers over the hyperperiod H (U H =
		 * Σ C_i H / T_i), then check one hyperperiod.
		 */
		uint64_t h = 1, uh = 0;

		for (int i = 0; i < ts->n; i++) {
			uint64_t a = h, b = ts->t[i].period;

			while (b) {
				uint64_t tmp = a % b;

				a = b;
				b = tmp;
			}
			h = hcbs_mul_sat(h / a, ts->t[i].period);
		}
		for (int i = 0; i < ts->n && h != UINT64_MAX; i++)
			uh = hcbs_add_sat(uh, hcbs_mul_sat(ts->t[i].wcet, h / ts->t[i].period));
		if (h == UINT64_MAX || uh == UINT64_MAX) {
			r->inconclusive = true;
			return 0;
		}
		if (uh > h) {
			r->over_utilized = true;
			return 0;
		}
		bound = (double)hcbs_add_sat(h, maxd);
	}
	if (bound < (double)maxd)
		bound = (double)maxd;
	if (bound >= 1.8e19) {
		r->inconclusive = true;
		return 0;
	}
	r->bound = (uint64_t)bound;
	for (int i = 0; i < ts->n; i++)
		if (r->bound >= ts->t[i].deadline)
			points += (r->bound - ts->t[i].deadline) / ts->t[i].period + 1;
	if (points > HCBS_EDF_MAX_WORK / (uint64_t)ts->n) {
		r->inconclusive = true;
		return 0;
	}
	r->schedulable = true;
	for (int i = 0; i < ts->n; i++) {
		for (uint64_t t = ts->t[i].deadline; t <= r->bound; t += ts->t[i].period) {
			struct hcbs_point pt = { t, hcbs_sbf(runtime, period, t),
						 hcbs_dbf(ts, t), true };

			if (pt.demand > pt.supply) {
				if (r->schedulable || t < r->at.t)
					r->at = pt;
				r->schedulable = false;
			} else if (r->schedulable) {
				keep_tightest(&r->at, &pt);
			}
			if (t > UINT64_MAX - ts->t[i].period)
				break;
		}
	}
	return 0;
}

/*
 * ---- m servers: global and partitioned fixed priorities ----
 *
 * Global FP (Bertogna & Cirinei, RTSS 2007, on m periodic resources).  Let
 * job J of task k be released at r and unfinished at r + t (t >= C_k),
 * having run E < C_k.  Each server supplies at least sbf(t) in
 * [r, r + t], m sbf(t) in all.  Where J waits (t - E of the window), every
 * server that supplies runs a task that interferes with J (global FP is
 * work-conserving among the servers that have budget), and task i runs
 * there at most min(W_i(t), t - E): Bertogna & Cirinei's workload bound
 * (every job of i runs C_i between its release and release + R_i,
 * R_i <= D_i <= T_i) and one CPU at a time.  Where J runs, the servers
 * supply at most m E.  So
 *
 *	m sbf(t) <= f(E) = m E + Σ_i min(W_i(t), t - E),  for some E < C_k.
 *
 * f is concave and piecewise linear (slope m - #{i : t - W_i < E}), so
 * its largest value on [0, C_k] is at E = C_k or at the m-th or (m+1)-th
 * smallest of the b_i = t - W_i (clamped to [0, C_k]).  All are integers;
 * J is done by r + t if m sbf(t) >= load(t), with
 *
 *	load(t) = max(f(C_k), 1 + f(E) for those E < C_k),
 *
 * the "+ 1" because E < C_k strictly.  (With fewer than m interfering
 * tasks load = f(C_k) = m C_k + Σ min(W_i, t - C_k), the form of Bertogna
 * & Cirinei's own test on m dedicated processors.)
 */

/*
 * Bertogna & Cirinei's workload of task i (C, T, response bound R) in a
 * window @l.  *@lin: for how much longer a window the workload grows as
 * fast as the window (the last job's part, rest < C), 0 if it does not.
 */
static uint64_t gfp_workload(uint64_t c, uint64_t t, uint64_t r, uint64_t l, uint64_t *lin)
{
	uint64_t x = hcbs_add_sat(l, r - c), n, rest;

	*lin = 0;
	if (x == UINT64_MAX)
		return UINT64_MAX;		/* beyond 64 bits: no bound but l */
	n = x / t;
	rest = x - n * t;
	if (rest < c)
		*lin = c - rest;
	return hcbs_add_sat(hcbs_mul_sat(n, c), rest < c ? rest : c);
}

struct gfp_ctx {
	const struct hcbs_taskset *ts;
	enum hcbs_prio_order o;
	unsigned int m;
	uint64_t *resp;		/* bounds found so far (deadlines until then) */
	uint64_t *w, *b, *lin_of;	/* scratch: W_i(t), b_i and lin of the interfering tasks */
	/* from the last gfp_load(): how many W_i grow as fast as t, for how long */
	unsigned int nlin;
	uint64_t lin, eskip;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* f(E) = m E + Σ min(W_i, t - E), saturating; E <= t. */
static uint64_t gfp_f(const struct gfp_ctx *g, int h, uint64_t t, uint64_t e)
{
	uint64_t f = hcbs_mul_sat(g->m, e);

	for (int i = 0; i < h; i++)
		f = hcbs_add_sat(f, g->w[i] < t - e ? g->w[i] : t - e);
	return f;
}

/* load(t) of task @k (above); UINT64_MAX when it saturates, or t < C_k. */
static uint64_t gfp_load(struct gfp_ctx *g, int k, uint64_t t)
{
	const struct hcbs_taskset *ts = g->ts;
	uint64_t c = ts->t[k].wcet, load, e;
	int h = 0;

	g->nlin = 0;
	g->lin = UINT64_MAX;
	g->eskip = 0;
	if (t < c)
		return UINT64_MAX;
	for (int j = 0; j < ts->n; j++) {
		uint64_t w;

		if (!interferes(ts, g->o, j, k))
			continue;
		/* A bound found for a task of equal priority counted on k's deadline: not used. */
		w = gfp_workload(ts->t[j].wcet, ts->t[j].period,
				 prio_key(&ts->t[j], g->o) < prio_key(&ts->t[k], g->o) ? g->resp[j] :
				 ts->t[j].deadline, t, &g->lin_of[h]);
		g->w[h] = w;
		g->b[h] = w >= t ? 0 : t - w < c ? t - w : c;
		h++;
	}
	e = c;
	load = gfp_f(g, h, t, c);
	if ((unsigned int)h >= g->m) {
		qsort(g->b, (size_t)h, sizeof(*g->b), cmp_u64);
		for (unsigned int i = g->m - 1; i <= g->m && i < (unsigned int)h; i++) {
			uint64_t f;

			if (g->b[i] >= c)
				continue;
			f = hcbs_add_sat(gfp_f(g, h, t, g->b[i]), 1);
			if (f > load) {
				load = f;
				e = g->b[i];
			}
		}
	}
	/*
	 * For the climb.  Binding at E < C_k: f_{t+δ}(E + δ) = f_t(E) + m δ
	 * (every min(W_i, t - E) keeps its value or grows), for E + δ < C_k.
	 * At the binding E, the terms min(W_i, t - E) that grow
	 * as fast as t (W_i in its last job's part, or t - E < W_i), and for
	 * how long at least.
	 */
	for (int i = 0; i < h; i++) {
		uint64_t lin = g->lin_of[i] ? g->lin_of[i] :
			       t - e < g->w[i] ? g->w[i] - (t - e) : 0;

		if (lin) {
			g->nlin++;
			if (lin < g->lin)
				g->lin = lin;
		}
	}
	if (e < c)
		g->eskip = c - 1 - e;
	return load;
}

/* Task indices by priority, highest first; ties in file order. */
static void prio_sort(const struct hcbs_taskset *ts, enum hcbs_prio_order o, int *idx)
{
	for (int i = 0; i < ts->n; i++) {
		int k = i;

		while (k > 0 && prio_key(&ts->t[idx[k - 1]], o) > prio_key(&ts->t[i], o)) {
			idx[k] = idx[k - 1];
			k--;
		}
		idx[k] = i;
	}
}

int hcbs_gfp_test(const struct hcbs_taskset *ts, enum hcbs_prio_order o, unsigned int cpus,
		  uint64_t runtime, uint64_t period, struct hcbs_gfp_result *r)
{
	struct gfp_ctx g = { .ts = ts, .o = o, .m = cpus };
	uint64_t least = UINT64_MAX, fail_key = UINT64_MAX;
	int *idx, ret = 0;

	if (!period || runtime > period || ts->n > HCBS_MAX_TASKS || !cpus ||
	    cpus > HCBS_ANALYSIS_MAX_CPUS)
		return -EINVAL;
	g.resp = calloc(4 * ((size_t)ts->n + 1), sizeof(*g.resp));
	idx = calloc((size_t)ts->n + 1, sizeof(*idx));
	if (!g.resp || !idx) {
		ret = -ENOMEM;
		goto out;
	}
	g.w = g.resp + ts->n + 1;
	g.b = g.w + ts->n + 1;
	g.lin_of = g.b + ts->n + 1;
	/* Until a task's bound is known: its deadline (always, for equal priorities). */
	for (int i = 0; i < ts->n; i++)
		g.resp[i] = ts->t[i].deadline;
	prio_sort(ts, o, idx);
	r->schedulable = true;
	r->binding = -1;
	r->cpus = cpus;
	for (int n = 0; n < ts->n; n++) {
		int k = idx[n];
		struct hcbs_fp_task *tk = &r->task[k];
		uint64_t d = ts->t[k].deadline, t;
		long steps = 0;

		/* The least t with load(t) <= m sbf(t): climb t = sbf^-1(ceil(load(t) / m)). */
		t = hcbs_sbf_inverse(runtime, period, ts->t[k].wcet);
		while (t <= d && t != UINT64_MAX && ++steps <= HCBS_GFP_MAX_STEPS) {
			uint64_t load = gfp_load(&g, k, t), next;

			if (load == UINT64_MAX) {
				t = UINT64_MAX;
				break;
			}
			next = hcbs_sbf_inverse(runtime, period, ceil_div(load, cpus));
			if (next <= t)
				break;
			/*
			 * m sbf(t) < load(t) here.  While nlin >= m terms of f
			 * at the binding E grow as fast as t, load(t + δ) >=
			 * load(t) + nlin δ for δ <= lin, and m sbf(t + δ) <=
			 * m sbf(t) + m δ: no t in [t, t + lin] fits.  Skip it,
			 * rather than climb 1 ns at a time ...
			 */
			if (g.nlin >= cpus && next < hcbs_add_sat(t, g.lin))
				next = hcbs_add_sat(t, g.lin);
			/* ... and load(t + δ) >= load(t) + m δ while the binding E + δ < C_k. */
			if (next < hcbs_add_sat(t, g.eskip))
				next = hcbs_add_sat(t, g.eskip);
			t = next;
		}
		memset(tk, 0, sizeof(*tk));
		/* Saturation, no t, or too many steps: not schedulable, never a pass. */
		tk->schedulable = t <= d && t != UINT64_MAX && steps <= HCBS_GFP_MAX_STEPS;
		if (tk->schedulable && prio_key(&ts->t[k], o) < fail_key) {
			g.resp[k] = t;		/* valid for the tasks below k */
		} else {
			tk->schedulable = false;
			t = d;
			if (fail_key == UINT64_MAX)
				fail_key = prio_key(&ts->t[k], o);
		}
		tk->at = (struct hcbs_point){ t, hcbs_mul_sat(cpus, hcbs_sbf(runtime, period, t)),
					      gfp_load(&g, k, t), true };
	}
	/*
	 * A task that fails voids the bounds of the tasks of its priority
	 * (they counted on its deadline) and of every lower one.
	 */
	for (int n = 0; n < ts->n; n++) {
		int k = idx[n];
		struct hcbs_fp_task *tk = &r->task[k];

		if (tk->schedulable && prio_key(&ts->t[k], o) >= fail_key) {
			tk->schedulable = false;
			tk->at.t = ts->t[k].deadline;
			tk->at.supply = hcbs_mul_sat(cpus, hcbs_sbf(runtime, period, tk->at.t));
			tk->at.demand = gfp_load(&g, k, tk->at.t);
		}
		if (!tk->schedulable) {
			if (r->schedulable) {
				r->schedulable = false;
				r->binding = k;
			}
		} else if (r->schedulable && ts->t[k].deadline - tk->at.t < least) {
			least = ts->t[k].deadline - tk->at.t;
			r->binding = k;
		}
	}
out:
	free(g.resp);
	free(idx);
	return ret;
}

int hcbs_part_test(const struct hcbs_taskset *ts, enum hcbs_prio_order o, unsigned int cpus,
		   uint64_t runtime, uint64_t period, struct hcbs_part_result *r)
{
	struct hcbs_taskset sub = { 0 };
	struct hcbs_fp_result *fr;
	int *idx, ret = 0;

	if (!period || runtime > period || ts->n > HCBS_MAX_TASKS || !cpus ||
	    cpus > HCBS_ANALYSIS_MAX_CPUS)
		return -EINVAL;
	sub.t = calloc((size_t)ts->n + 1, sizeof(*sub.t));
	idx = calloc((size_t)ts->n + 1, sizeof(*idx));
	fr = malloc(sizeof(*fr));
	if (!sub.t || !idx || !fr) {
		ret = -ENOMEM;
		goto out;
	}
	sub.has_prio = ts->has_prio;
	prio_sort(ts, o, idx);
	r->schedulable = true;
	r->failed = -1;
	r->cpus = cpus;
	r->used = 0;
	for (int i = 0; i < ts->n; i++)
		r->cpu[i] = -1;
	for (int n = 0; n < ts->n && r->schedulable; n++) {
		int k = idx[n];

		/* Every empty CPU is alike: try the used ones and one empty. */
		for (unsigned int c = 0; c < cpus && c <= r->used; c++) {
			sub.n = 0;
			for (int i = 0; i < ts->n; i++)
				if (r->cpu[i] == (int)c)
					sub.t[sub.n++] = ts->t[i];
			sub.t[sub.n++] = ts->t[k];
			if (hcbs_fp_test(&sub, o, runtime, period, fr)) {
				ret = -EINVAL;
				goto out;
			}
			if (fr->schedulable) {
				r->cpu[k] = (int)c;
				if (c == r->used)
					r->used++;
				break;
			}
		}
		if (r->cpu[k] < 0) {
			r->schedulable = false;
			r->failed = k;
		}
	}
out:
	free(sub.t);
	free(idx);
	free(fr);
	return ret;
}

static bool test_at(const struct hcbs_taskset *ts, enum hcbs_test_kind kind,
		    enum hcbs_prio_order o, unsigned int cpus, uint64_t q, uint64_t p)
{
	bool ok = false;

	switch (kind) {
	case HCBS_TEST_FP: {
		struct hcbs_fp_result *r = malloc(sizeof(*r));

		ok = r && !hcbs_fp_test(ts, o, q, p, r) && r->schedulable;
		free(r);
		break;
	}
	case HCBS_TEST_GFP: {
		struct hcbs_gfp_result *r = malloc(sizeof(*r));

		ok = r && !hcbs_gfp_test(ts, o, cpus, q, p, r) && r->schedulable;
		free(r);
		break;
	}
	case HCBS_TEST_PART: {
		struct hcbs_part_result *r = malloc(sizeof(*r));

		ok = r && !hcbs_part_test(ts, o, cpus, q, p, r) && r->schedulable;
		free(r);
		break;
	}
	default: {
		struct hcbs_edf_result e;

		ok = !hcbs_edf_test(ts, q, p, &e) && e.schedulable;
		break;
	}
	}
	return ok;
}

int hcbs_min_runtime_test(const struct hcbs_taskset *ts, enum hcbs_test_kind kind,
			  enum hcbs_prio_order o, unsigned int cpus, uint64_t period,
			  uint64_t gran, uint64_t *runtime)
{
	uint64_t lo, hi;

	if (!gran || !period || period % gran || !cpus || cpus > HCBS_ANALYSIS_MAX_CPUS)
		return -EINVAL;
	/* In units of @gran: lo is known to fail (or 0), hi to succeed. */
	hi = period / gran;
	if (!test_at(ts, kind, o, cpus, period, period))
		return -ENOSPC;
	if (test_at(ts, kind, o, cpus, 0, period)) {
		*runtime = 0;
		return 0;
	}
	lo = 0;
	while (lo + 1 < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (test_at(ts, kind, o, cpus, mid * gran, period))
			hi = mid;
		else
			lo = mid;
	}
	*runtime = hi * gran;
	return 0;
}

int hcbs_min_runtime(const struct hcbs_taskset *ts, bool fp,
		     enum hcbs_prio_order o, uint64_t period, uint64_t gran,
		     uint64_t *runtime)
{
	return hcbs_min_runtime_test(ts, fp ? HCBS_TEST_FP : HCBS_TEST_EDF, o, 1, period,
				     gran, runtime);
}

/* ---- task set parsing ---- */

void hcbs_taskset_free(struct hcbs_taskset *ts)
{
	free(ts->t);
	ts->t = NULL;
	ts->n = 0;
}

static int add_task(struct hcbs_taskset *ts, const struct hcbs_task *t,
		    bool prio, int *nprio, char *err, size_t errlen)
{
	char where[32] = "";

	if (t->line)
		snprintf(where, sizeof(where), "line %d: ", t->line);
	else
		snprintf(where, sizeof(where), "task %d: ", ts->n + 1);
	if (ts->n >= HCBS_MAX_TASKS) {
		hcbs_seterr(err, errlen, "%stoo many tasks (at most %d)", where, HCBS_MAX_TASKS);
		return -E2BIG;
	}
	if (!t->wcet || !t->period || !t->deadline) {
		hcbs_seterr(err, errlen, "%sWCET, period and deadline must be greater than 0", where);
		return -EINVAL;
	}
	if (t->deadline > t->period) {
		hcbs_seterr(err, errlen, "%sthe deadline exceeds the period (only constrained deadlines, D <= T, are analysed)",
			    where);
		return -EINVAL;
	}
	if (prio && (t->prio < 1 || t->prio > 99)) {
		hcbs_seterr(err, errlen, "%spriority %d out of range (SCHED_FIFO: 1..99)", where, t->prio);
		return -EINVAL;
	}
	ts->t[ts->n++] = *t;
	if (prio)
		(*nprio)++;
	if (t->deadline != t->period)
		ts->has_deadline = true;
	return 0;
}

static int parse_prio(const char *s, int *v)
{
	char *end;
	long x;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	x = strtol(s, &end, 10);
	if (errno || *end || x > 1000)
		return -EINVAL;
	*v = (int)x;
	return 0;
}

static int parse_text(char *text, struct hcbs_taskset *ts, int *nprio,
		      char *err, size_t errlen)
{
	char *save = NULL, *line;
	int lineno = 0;

	for (line = text; line; line = save) {
		char *nl = strchr(line, '\n'), *f[5], *tsave = NULL, e[HCBS_ERRLEN];
		struct hcbs_task t = { 0 };
		int n = 0, ret;

		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		if (strchr(line, '#'))
			*strchr(line, '#') = '\0';
		for (char *tok = strtok_r(line, " \t\r\f\v", &tsave); tok;
		     tok = strtok_r(NULL, " \t\r\f\v", &tsave)) {
			if (n == 4) {
				hcbs_seterr(err, errlen, "line %d: too many fields: expected WCET PERIOD [DEADLINE [PRIORITY]]",
					    lineno);
				return -EINVAL;
			}
			f[n++] = tok;
		}
		if (!n)
			continue;
		if (n < 2) {
			hcbs_seterr(err, errlen, "line %d: expected WCET PERIOD [DEADLINE [PRIORITY]]", lineno);
			return -EINVAL;
		}
		t.line = lineno;
		ret = hcbs_parse_duration(f[0], &t.wcet, e, sizeof(e));
		if (!ret)
			ret = hcbs_parse_duration(f[1], &t.period, e, sizeof(e));
		t.deadline = t.period;
		if (!ret && n >= 3 && strcmp(f[2], "-"))
			ret = hcbs_parse_duration(f[2], &t.deadline, e, sizeof(e));
		if (ret) {
			hcbs_seterr(err, errlen, "line %d: %s", lineno, e);
			return ret;
		}
		if (n == 4 && parse_prio(f[3], &t.prio)) {
			hcbs_seterr(err, errlen, "line %d: invalid priority '%s' (SCHED_FIFO: 1..99)", lineno, f[3]);
			return -EINVAL;
		}
		ret = add_task(ts, &t, n == 4, nprio, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/* -- JSON task sets, read by jansson -- */

/* A duration member: "8ms" (the one grammar) or an integer number of ns. */
static int jduration(json_t *v, int task, const char *key, uint64_t *ns,
		     char *err, size_t errlen)
{
	char e[HCBS_ERRLEN];

	if (json_is_string(v)) {
		if (!hcbs_parse_duration(json_string_value(v), ns, e, sizeof(e)))
			return 0;
		/* The grammar's message says what is accepted. */
		hcbs_seterr(err, errlen, "JSON task set, task %d, \"%s\": %s", task, key, e);
		return -EINVAL;
	} else if (json_is_integer(v)) {
		json_int_t x = json_integer_value(v);

		if (x < 0)
			snprintf(e, sizeof(e), "%lld is negative", (long long)x);
		else if (!hcbs_check_duration((uint64_t)x, 0, e, sizeof(e))) {
			*ns = (uint64_t)x;
			return 0;
		}
	} else {
		snprintf(e, sizeof(e), "a JSON %s is not a duration",
			 json_is_real(v) ? "fraction" : json_is_object(v) ? "object" :
			 json_is_array(v) ? "array" : json_is_boolean(v) ? "boolean" : "null");
	}
	hcbs_seterr(err, errlen, "JSON task set, task %d, \"%s\": %s; expected a duration string (\"8ms\") or an integer number of ns",
		    task, key, e);
	return -EINVAL;
}

static int jtask(json_t *obj, int task, struct hcbs_taskset *ts, int *nprio,
		 char *err, size_t errlen)
{
	struct hcbs_task t = { 0 };
	bool have_w = false, have_p = false, have_d = false, have_prio = false;
	const char *key;
	json_t *v;
	int ret;

	if (!json_is_object(obj)) {
		hcbs_seterr(err, errlen, "JSON task set, task %d: expected a task object {\"wcet\": ..., \"period\": ...}",
			    task);
		return -EINVAL;
	}
	json_object_foreach(obj, key, v) {
		if (!strcmp(key, "priority")) {
			json_int_t x = json_is_integer(v) ? json_integer_value(v) : 0;

			if (x < 1 || x > 99) {
				hcbs_seterr(err, errlen, "JSON task set, task %d, \"priority\": expected an integer 1..99 (SCHED_FIFO)",
					    task);
				return -EINVAL;
			}
			t.prio = (int)x;
			have_prio = true;
			continue;
		}
		if (strcmp(key, "wcet") && strcmp(key, "period") && strcmp(key, "deadline")) {
			hcbs_seterr(err, errlen, "JSON task set, task %d: unknown key \"%.64s\" (accepted: wcet, period, deadline, priority)",
				    task, key);
			return -EINVAL;
		}
		ret = jduration(v, task, key, !strcmp(key, "wcet") ? &t.wcet :
				!strcmp(key, "period") ? &t.period : &t.deadline, err, errlen);
		if (ret)
			return ret;
		if (!strcmp(key, "wcet"))
			have_w = true;
		else if (!strcmp(key, "period"))
			have_p = true;
		else
			have_d = true;
	}
	if (!have_w || !have_p) {
		hcbs_seterr(err, errlen, "JSON task set, task %d: a task needs \"wcet\" and \"period\"", task);
		return -EINVAL;
	}
	if (!have_d)
		t.deadline = t.period;
	return add_task(ts, &t, have_prio, nprio, err, errlen);
}

static int parse_json(const char *text, struct hcbs_taskset *ts, int *nprio,
		      char *err, size_t errlen)
{
	json_error_t je;
	json_t *root, *tasks;
	size_t i;
	int ret = 0;

	/* RFC 8259 as jansson reads it; a key twice is an error, not "last wins". */
	root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		hcbs_seterr(err, errlen, "JSON task set, line %d, column %d: %s",
			    je.line, je.column, je.text);
		return -EINVAL;
	}
	tasks = root;
	if (json_is_object(root)) {
		const char *key;
		json_t *v;

		json_object_foreach(root, key, v) {
			if (strcmp(key, "tasks")) {
				hcbs_seterr(err, errlen, "JSON task set: unknown key \"%.64s\" at the top (accepted: \"tasks\")",
					    key);
				ret = -EINVAL;
				goto out;
			}
		}
		tasks = json_object_get(root, "tasks");
	}
	if (!tasks || !json_is_array(tasks)) {
		hcbs_seterr(err, errlen, "JSON task set: expected an array of tasks, or {\"tasks\": [...]}");
		ret = -EINVAL;
		goto out;
	}
	for (i = 0; i < json_array_size(tasks) && !ret; i++)
		ret = jtask(json_array_get(tasks, i), (int)i + 1, ts, nprio, err, errlen);
out:
	json_decref(root);
	return ret;
}

int hcbs_taskset_parse(const char *text, struct hcbs_taskset *ts,
		       char *err, size_t errlen)
{
	const char *p = text;
	int nprio = 0, ret;
	char *copy;

	memset(ts, 0, sizeof(*ts));
	ts->t = calloc(HCBS_MAX_TASKS, sizeof(*ts->t));
	if (!ts->t)
		return -ENOMEM;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '[' || *p == '{') {
		ret = parse_json(text, ts, &nprio, err, errlen);
	} else {
		copy = strdup(text);
		if (!copy) {
			hcbs_taskset_free(ts);
			return -ENOMEM;
		}
		ret = parse_text(copy, ts, &nprio, err, errlen);
		free(copy);
	}
	if (!ret && !ts->n) {
		hcbs_seterr(err, errlen, "the task set is empty");
		ret = -EINVAL;
	}
	if (!ret && nprio && nprio != ts->n) {
		hcbs_seterr(err, errlen, "give a priority to every task or to none (%d of %d have one)",
			    nprio, ts->n);
		ret = -EINVAL;
	}
	if (ret) {
		hcbs_taskset_free(ts);
		return ret;
	}
	ts->has_prio = nprio > 0;
	return 0;
}

/* ---- from a task set file to a reservation ---- */

/* Task sets are small: 1024 tasks of one line each. */
#define TASKSET_READ_MAX	(1u << 20)

int hcbs_taskset_load(const char *file, struct hcbs_taskset *ts, char *err, size_t errlen)
{
	char *text = NULL, e[HCBS_ERRLEN];
	int ret;

	memset(ts, 0, sizeof(*ts));
	ret = hcbs_read_text_max(file, TASKSET_READ_MAX, &text, e, sizeof(e));
	if (ret) {
		hcbs_seterr(err, errlen, "task set %s", e);
		return ret == -ENOENT ? HCBS_EXIT_NOTFOUND :
		       ret == -EACCES || ret == -EPERM ? HCBS_EXIT_PERM : HCBS_EXIT_USAGE;
	}
	ret = hcbs_taskset_parse(text, ts, e, sizeof(e));
	free(text);
	if (ret) {
		hcbs_seterr(err, errlen, "task set %s: %s", file, e);
		return ret == -ENOMEM ? HCBS_EXIT_SYSTEM : HCBS_EXIT_USAGE;
	}
	return HCBS_EXIT_OK;
}

int hcbs_parse_order(const char *s, const struct hcbs_taskset *ts,
		     enum hcbs_prio_order *o, char *err, size_t errlen)
{
	if (!s)
		*o = hcbs_default_order(ts);
	else if (!strcmp(s, "rm"))
		*o = HCBS_ORDER_RM;
	else if (!strcmp(s, "dm"))
		*o = HCBS_ORDER_DM;
	else if (!strcmp(s, "file") && ts->has_prio)
		*o = HCBS_ORDER_FILE;
	else {
		hcbs_seterr(err, errlen, "--order %s: expected rm, dm, or file (file needs a priority on every task)",
			    s);
		return -EINVAL;
	}
	return 0;
}

int hcbs_taskset_min_reservation(const struct hcbs_taskset *ts, enum hcbs_prio_order o,
				 const char *name, uint64_t period_ns, struct hcbs_rt *to,
				 char *err, size_t errlen)
{
	char d[32], e[HCBS_ERRLEN];
	uint64_t q;
	int ret;

	if (hcbs_check_duration(period_ns, HCBS_DUR_NONZERO | HCBS_DUR_WHOLE_US, e, sizeof(e))) {
		hcbs_seterr(err, errlen, "--period: %s", e);
		return HCBS_EXIT_USAGE;
	}
	/* The kernel takes whole microseconds: the least whole-us runtime. */
	ret = hcbs_min_runtime(ts, true, o, period_ns, 1000, &q);
	if (ret == -ENOSPC) {
		hcbs_format_duration(period_ns, d, sizeof(d));
		hcbs_seterr(err, errlen, "task set %s: not schedulable with period %s even with the whole CPU (runtime = period); try a shorter period (hcbsctl analyze %s --period 1ms..%s)",
			    name, d, name, d);
		return HCBS_EXIT_UNSCHED;
	}
	if (ret) {
		hcbs_seterr(err, errlen, "task set %s: analysis failed: %s", name, strerror(-ret));
		return HCBS_EXIT_SYSTEM;
	}
	to->runtime_us = q / 1000;
	to->period_us = period_ns / 1000;
	return HCBS_EXIT_OK;
}

int hcbs_parse_overhead(const char *s, struct hcbs_overhead *ov, char *err, size_t errlen)
{
	size_t len = s ? strlen(s) : 0;
	char e[HCBS_ERRLEN];

	memset(ov, 0, sizeof(*ov));
	if (s && !strcmp(s, "auto")) {
		ov->automatic = true;
		return 0;
	}
	if (len && s[len - 1] == '%') {
		uint64_t whole = 0, frac = 0;
		size_t i = 0, digits = 0, decimals = 0;

		for (; i < len - 1 && s[i] >= '0' && s[i] <= '9'; i++, digits++)
			whole = whole * 10 + (uint64_t)(s[i] - '0');
		if (i < len - 1 && s[i] == '.')
			for (i++; i < len - 1 && s[i] >= '0' && s[i] <= '9'; i++, decimals++)
				frac = frac * 10 + (uint64_t)(s[i] - '0');
		if (i != len - 1 || !digits || digits > 4 || decimals > 2 ||
		    (s[digits] == '.' && !decimals))
			goto bad_percent;
		if (decimals == 1)
			frac *= 10;
		if (whole * 100 + frac > HCBS_OVERHEAD_MAX_PERCENT * 100)
			goto bad_percent;
		ov->centi_percent = (uint32_t)(whole * 100 + frac);
		return 0;
	}
	if (hcbs_parse_duration_flags(s ? s : "", 0, &ov->per_job, e, sizeof(e))) {
		hcbs_seterr(err, errlen, "--overhead %s: %s; or a percentage of each WCET, e.g. 12%%, or auto (measure it here)",
			    s ? s : "", e);
		return -EINVAL;
	}
	return 0;
bad_percent:
	hcbs_seterr(err, errlen, "--overhead %s: expected a percentage from 0%% to %d%% with at most two decimals (e.g. 12%% or 12.5%%), a time per job (e.g. 80us) or auto",
		    s, HCBS_OVERHEAD_MAX_PERCENT);
	return -EINVAL;
}

int hcbs_overhead_check(const struct hcbs_overhead *ov, uint64_t period, char *err,
			size_t errlen)
{
	char d1[32], d2[32];

	if (ov->per_job < period)
		return 0;
	hcbs_seterr(err, errlen, "--overhead %s per job is not less than the period %s: expected what one job costs its server, a part of one period (e.g. 80us), or a percentage of each WCET (e.g. 12%%)",
		    hcbs_format_duration(ov->per_job, d1, sizeof(d1)),
		    hcbs_format_duration(period, d2, sizeof(d2)));
	return -EINVAL;
}

const char *hcbs_format_overhead(const struct hcbs_overhead *ov, char *buf, size_t len)
{
	char d[32];

	if (ov->centi_percent && ov->per_job)
		snprintf(buf, len, "+%s per job +%u.%02u%% of each WCET",
			 hcbs_format_duration(ov->per_job, d, sizeof(d)),
			 ov->centi_percent / 100, ov->centi_percent % 100);
	else if (ov->centi_percent)
		snprintf(buf, len, "+%u.%02u%% of each WCET", ov->centi_percent / 100,
			 ov->centi_percent % 100);
	else
		snprintf(buf, len, "+%s per job", hcbs_format_duration(ov->per_job, d, sizeof(d)));
	return buf;
}

int hcbs_taskset_inflate(struct hcbs_taskset *ts, const struct hcbs_overhead *ov)
{
	uint64_t *c = calloc(ts->n ? ts->n : 1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	for (int i = 0; i < ts->n; i++) {
		unsigned __int128 w = ts->t[i].wcet;

		w += (w * ov->centi_percent + 9999) / 10000;
		w += ov->per_job;
		if (w > UINT64_MAX) {
			free(c);
			return -ERANGE;
		}
		c[i] = (uint64_t)w;
	}
	for (int i = 0; i < ts->n; i++)
		ts->t[i].wcet = c[i];
	free(c);
	return 0;
}

int hcbs_taskset_reservation(const char *file, const char *period, const char *order,
			     const char *overhead, const struct hcbs_overhead *measured,
			     struct hcbs_rt *to, char *err, size_t errlen)
{
	struct hcbs_overhead ov;
	struct hcbs_taskset ts;
	enum hcbs_prio_order o;
	char e[HCBS_ERRLEN];
	uint64_t p;
	int ret;

	/* The arguments first, then the file: a bad option wins. */
	if (!period) {
		hcbs_seterr(err, errlen, "--taskset needs --period P (e.g. --period 18ms)");
		return HCBS_EXIT_USAGE;
	}
	if (hcbs_parse_duration_flags(period, HCBS_DUR_NONZERO | HCBS_DUR_WHOLE_US, &p,
				      e, sizeof(e))) {
		hcbs_seterr(err, errlen, "--period: %s", e);
		return HCBS_EXIT_USAGE;
	}
	if (overhead && hcbs_parse_overhead(overhead, &ov, err, errlen))
		return HCBS_EXIT_USAGE;
	ret = hcbs_taskset_load(file, &ts, err, errlen);
	if (ret)
		return ret;
	if (hcbs_parse_order(order, &ts, &o, err, errlen)) {
		ret = HCBS_EXIT_USAGE;
	} else if (overhead && ov.automatic && !measured) {
		hcbs_seterr(err, errlen, "--overhead auto: not measured here; give the overhead, e.g. --overhead 80us");
		ret = HCBS_EXIT_USAGE;
	} else if (overhead &&
		   hcbs_overhead_check(ov.automatic ? measured : &ov, p, err, errlen)) {
		ret = HCBS_EXIT_USAGE;
	} else if (overhead && hcbs_taskset_inflate(&ts, ov.automatic ? measured : &ov)) {
		hcbs_seterr(err, errlen, "task set %s: --overhead %s makes a WCET overflow 64 bits",
			    file, overhead);
		ret = HCBS_EXIT_USAGE;
	} else {
		ret = hcbs_taskset_min_reservation(&ts, o, file, p, to, err, errlen);
	}
	hcbs_taskset_free(&ts);
	return ret;
}
