// SPDX-License-Identifier: GPL-2.0
/*
 * hcbsctl analyze: is a task set schedulable inside a reservation (Q, P),
 * under fixed priorities (what SCHED_FIFO does inside the container) and
 * under EDF, what is the smallest Q for a period P, and which P in a range
 * needs the least bandwidth; and on m CPUs (--cpus), with global and with
 * partitioned fixed priorities.  The theory is in tools/lib/analysis.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcbsctl.h"

struct analysis {
	struct hcbs_taskset ts;
	enum hcbs_prio_order order;
	double u;
	bool have_overhead;		/* --overhead: the WCETs in ts include it */
	struct hcbs_overhead overhead;
	struct hcbs_overhead_measurement *measured;	/* --overhead auto */
	uint64_t *declared;		/* the WCETs of the file, with --overhead */
};

/* @period: the shortest server period analysed, for --overhead. */
static int load(const struct opts *o, const char *file, uint64_t period, struct analysis *a,
		char *err, size_t errlen)
{
	int ret;

	a->have_overhead = o->overhead != NULL;
	a->declared = NULL;
	a->measured = NULL;
	if (o->overhead && hcbs_parse_overhead(o->overhead, &a->overhead, err, errlen))
		return HCBS_EXIT_USAGE;
	ret = hcbs_taskset_load(file, &a->ts, err, errlen);
	if (ret)
		return ret;
	if (hcbs_parse_order(o->order, &a->ts, &a->order, err, errlen)) {
		hcbs_taskset_free(&a->ts);
		return HCBS_EXIT_USAGE;
	}
	if (a->have_overhead && a->overhead.automatic) {
		char e[HCBS_ERRLEN + 64];

		a->measured = calloc(1, sizeof(*a->measured));
		if (!a->measured) {
			hcbs_taskset_free(&a->ts);
			snprintf(err, errlen, "out of memory");
			return HCBS_EXIT_SYSTEM;
		}
		ret = measure_overhead(NULL, a->measured, e, sizeof(e));
		if (ret) {
			free(a->measured);
			a->measured = NULL;
			hcbs_taskset_free(&a->ts);
			snprintf(err, errlen, "--overhead auto: %.170s (or give the overhead, e.g. --overhead 80us)",
				 e);
			return ret;
		}
		a->overhead = a->measured->fit;
		a->overhead.automatic = true;
	}
	if (a->have_overhead && hcbs_overhead_check(&a->overhead, period, err, errlen)) {
		free(a->measured);
		hcbs_taskset_free(&a->ts);
		return HCBS_EXIT_USAGE;
	}
	if (a->have_overhead) {
		a->declared = calloc(a->ts.n, sizeof(*a->declared));
		if (!a->declared) {
			free(a->measured);
			hcbs_taskset_free(&a->ts);
			snprintf(err, errlen, "out of memory");
			return HCBS_EXIT_SYSTEM;
		}
		for (int i = 0; i < a->ts.n; i++)
			a->declared[i] = a->ts.t[i].wcet;
		if (hcbs_taskset_inflate(&a->ts, &a->overhead)) {
			free(a->measured);
			free(a->declared);
			hcbs_taskset_free(&a->ts);
			snprintf(err, errlen, "--overhead %s makes a WCET overflow 64 bits", o->overhead);
			return HCBS_EXIT_USAGE;
		}
	}
	a->u = hcbs_utilization(&a->ts);
	return 0;
}

static void unload(struct analysis *a)
{
	free(a->measured);
	free(a->declared);
	hcbs_taskset_free(&a->ts);
}

/* ---- output ---- */

static const char *dur(uint64_t ns, char *buf, size_t len)
{
	return hcbs_format_duration(ns, buf, len);
}

static void json_point(struct hcbs_json *j, const struct hcbs_point *p)
{
	if (!p->valid) {
		hcbs_json_null(j);
		return;
	}
	hcbs_json_object_begin(j);
	hcbs_json_key(j, "t_ns");
	hcbs_json_uint(j, p->t);
	hcbs_json_key(j, "supply_ns");
	hcbs_json_uint(j, p->supply);
	hcbs_json_key(j, "demand_ns");
	hcbs_json_uint(j, p->demand);
	hcbs_json_object_end(j);
}

static void json_opt_uint(struct hcbs_json *j, bool have, uint64_t v)
{
	if (have)
		hcbs_json_uint(j, v);
	else
		hcbs_json_null(j);
}

/*
 * Whose verdict decides: one CPU (m = 1), or on m > 1 threads that
 * migrate between the servers (global) or are pinned (partitioned).
 */
enum model { MODEL_UNI, MODEL_GLOBAL, MODEL_PART };
static const char *const model_names[] = { "uniprocessor", "global", "partitioned" };

struct answer {
	enum model model;
	bool model_given;		/* --model, else the default for m */
	bool have_res;			/* a reservation was given */
	uint64_t q, p;			/* the one checked (given, or min Q at P) */
	bool have_check;		/* q/p valid */
	uint64_t period;		/* for min runtime */
	bool fp_min_ok, edf_min_ok;
	uint64_t fp_min, edf_min;
	struct hcbs_fp_result *fp;
	struct hcbs_edf_result edf;
	bool range;
	uint64_t pmin, pmax, step;
	bool best_fp_ok, best_edf_ok;
	uint64_t best_fp_p, best_fp_q, best_edf_p, best_edf_q;
	/* m CPUs: global and partitioned (first-fit) fixed priorities */
	unsigned int cpus;
	bool cpus_given;		/* --cpus, else the default 1 */
	bool gfp_min_ok, part_min_ok, gfp_check, part_check;
	uint64_t gfp_min, part_min, gfp_q, part_q;	/* checked at gfp_q, part_q */
	uint64_t cperiod;				/* ... and this period */
	struct hcbs_gfp_result *gfp;
	struct hcbs_part_result *part;
	bool best_gfp_ok, best_part_ok;
	uint64_t best_gfp_p, best_gfp_q, best_part_p, best_part_q;
};

/*
 * The verdict of the declared model, which alone sets the exit status:
 * the reservation checked, else the least runtime at the period, else
 * the best period of the range.
 */
static bool model_fits(const struct answer *r)
{
	const bool res[] = { r->fp->schedulable, r->gfp->schedulable, r->part->schedulable };
	const bool best[] = { r->best_fp_ok, r->best_gfp_ok, r->best_part_ok };
	const bool min[] = { r->fp_min_ok, r->gfp_min_ok, r->part_min_ok };

	return r->have_res ? res[r->model] : r->range ? best[r->model] : min[r->model];
}

/* The head of a verdict: "schedulable", "min_runtime_ns", "checked_runtime_ns". */
static void json_verdict(struct hcbs_json *j, bool have_res, bool sched, bool min_ok,
			 uint64_t min, bool checked, uint64_t q)
{
	hcbs_json_key(j, "schedulable");
	if (have_res)
		hcbs_json_bool(j, sched);
	else
		hcbs_json_null(j);
	hcbs_json_key(j, "min_runtime_ns");
	json_opt_uint(j, min_ok, min);
	hcbs_json_key(j, "checked_runtime_ns");
	json_opt_uint(j, checked, q);
}

/* A fixed-priority verdict per task (one CPU or global on m). */
static void json_fp_tasks(struct hcbs_json *j, bool have, int n, const struct hcbs_fp_task *t,
			  int binding)
{
	hcbs_json_key(j, "binding_task");
	if (have && binding >= 0)
		hcbs_json_int(j, binding + 1);
	else
		hcbs_json_null(j);
	hcbs_json_key(j, "check");
	if (have && binding >= 0)
		json_point(j, &t[binding].at);
	else
		hcbs_json_null(j);
	hcbs_json_key(j, "tasks");
	hcbs_json_array_begin(j);
	for (int i = 0; have && i < n; i++) {
		hcbs_json_object_begin(j);
		hcbs_json_key(j, "task");
		hcbs_json_int(j, i + 1);
		hcbs_json_key(j, "schedulable");
		hcbs_json_bool(j, t[i].schedulable);
		hcbs_json_key(j, "check");
		json_point(j, &t[i].at);
		hcbs_json_object_end(j);
	}
	hcbs_json_array_end(j);
}

static void json_choice(struct hcbs_json *j, bool ok, uint64_t p, uint64_t q)
{
	if (!ok) {
		hcbs_json_null(j);
		return;
	}
	hcbs_json_object_begin(j);
	hcbs_json_key(j, "period_ns");
	hcbs_json_uint(j, p);
	hcbs_json_key(j, "runtime_ns");
	hcbs_json_uint(j, q);
	hcbs_json_key(j, "bandwidth");
	hcbs_json_double(j, (double)q / (double)p);
	hcbs_json_object_end(j);
}

static void json_multi(struct hcbs_json *j, const struct analysis *a, const struct answer *r)
{
	hcbs_json_key(j, "cpus");
	hcbs_json_object_begin(j);
	hcbs_json_key(j, "count");
	hcbs_json_uint(j, r->cpus);
	hcbs_json_key(j, "source");
	hcbs_json_string(j, r->cpus_given ? "option" : "default");
	hcbs_json_object_end(j);

	hcbs_json_key(j, "global_fp");
	hcbs_json_object_begin(j);
	hcbs_json_key(j, "test");
	hcbs_json_string(j, HCBS_GFP_TEST_NAME);
	json_verdict(j, r->have_res, r->gfp->schedulable, r->gfp_min_ok, r->gfp_min, r->gfp_check, r->gfp_q);
	json_fp_tasks(j, r->gfp_check, a->ts.n, r->gfp->task, r->gfp->binding);
	hcbs_json_object_end(j);

	hcbs_json_key(j, "partitioned_fp");
	hcbs_json_object_begin(j);
	json_verdict(j, r->have_res, r->part->schedulable, r->part_min_ok, r->part_min, r->part_check, r->part_q);
	hcbs_json_key(j, "cpus_used");
	json_opt_uint(j, r->part_check, r->part->used);
	hcbs_json_key(j, "failed_task");
	if (r->part_check && r->part->failed >= 0)
		hcbs_json_int(j, r->part->failed + 1);
	else
		hcbs_json_null(j);
	hcbs_json_key(j, "cpu_of_task");
	hcbs_json_array_begin(j);
	for (int i = 0; r->part_check && i < a->ts.n; i++) {
		if (r->part->cpu[i] >= 0)
			hcbs_json_int(j, r->part->cpu[i]);
		else
			hcbs_json_null(j);
	}
	hcbs_json_array_end(j);
	hcbs_json_object_end(j);
}

static int print_json(const char *file, const struct analysis *a,
		      const struct answer *r)
{
	struct hcbs_json *j = json_open();

	if (!j)
		return -ENOMEM;
	hcbs_json_object_begin(j);
	json_header(j, "analyze");
	hcbs_json_key(j, "taskset");
	hcbs_json_object_begin(j);
	hcbs_json_key(j, "file");
	hcbs_json_string(j, file);
	hcbs_json_key(j, "utilization");
	hcbs_json_double(j, a->u);
	hcbs_json_key(j, "tasks");
	hcbs_json_array_begin(j);
	for (int i = 0; i < a->ts.n; i++) {
		const struct hcbs_task *t = &a->ts.t[i];

		hcbs_json_object_begin(j);
		hcbs_json_key(j, "wcet_ns");
		hcbs_json_uint(j, t->wcet);
		hcbs_json_key(j, "declared_wcet_ns");
		hcbs_json_uint(j, a->have_overhead ? a->declared[i] : t->wcet);
		hcbs_json_key(j, "period_ns");
		hcbs_json_uint(j, t->period);
		hcbs_json_key(j, "deadline_ns");
		hcbs_json_uint(j, t->deadline);
		hcbs_json_key(j, "priority");
		if (a->ts.has_prio)
			hcbs_json_int(j, t->prio);
		else
			hcbs_json_null(j);
		hcbs_json_object_end(j);
	}
	hcbs_json_array_end(j);
	hcbs_json_object_end(j);
	hcbs_json_key(j, "overhead");
	if (a->have_overhead) {
		hcbs_json_object_begin(j);
		hcbs_json_key(j, "per_job_ns");
		hcbs_json_uint(j, a->overhead.per_job);
		hcbs_json_key(j, "percent");
		hcbs_json_double(j, a->overhead.centi_percent / 100.0);
		hcbs_json_key(j, "measured");
		if (a->measured)
			json_overhead_measurement(j, a->measured);
		else
			hcbs_json_null(j);
		hcbs_json_object_end(j);
	} else {
		hcbs_json_null(j);
	}
	hcbs_json_key(j, "fp_order");
	hcbs_json_string(j, hcbs_order_name(a->order));
	hcbs_json_key(j, "reservation");
	if (r->have_res) {
		hcbs_json_object_begin(j);
		hcbs_json_key(j, "runtime_ns");
		hcbs_json_uint(j, r->q);
		hcbs_json_key(j, "period_ns");
		hcbs_json_uint(j, r->p);
		hcbs_json_key(j, "bandwidth");
		hcbs_json_double(j, (double)r->q / (double)r->p);
		hcbs_json_object_end(j);
	} else {
		hcbs_json_null(j);
	}
	hcbs_json_key(j, "period_ns");
	json_opt_uint(j, r->period, r->period);

	/* fp */
	hcbs_json_key(j, "fp");
	hcbs_json_object_begin(j);
	json_verdict(j, r->have_res, r->fp->schedulable, r->fp_min_ok, r->fp_min, r->have_check, r->q);
	json_fp_tasks(j, r->have_check, a->ts.n, r->fp->task, r->fp->binding);
	hcbs_json_object_end(j);

	/* edf */
	hcbs_json_key(j, "edf");
	hcbs_json_object_begin(j);
	json_verdict(j, r->have_res, r->edf.schedulable, r->edf_min_ok, r->edf_min, r->have_check, r->q);
	hcbs_json_key(j, "check");
	if (r->have_check)
		json_point(j, &r->edf.at);
	else
		hcbs_json_null(j);
	hcbs_json_key(j, "bound_ns");
	json_opt_uint(j, r->have_check && r->edf.bound, r->edf.bound);
	hcbs_json_key(j, "over_utilized");
	hcbs_json_bool(j, r->have_check && r->edf.over_utilized);
	hcbs_json_key(j, "inconclusive");
	hcbs_json_bool(j, r->have_check && r->edf.inconclusive);
	hcbs_json_object_end(j);

	hcbs_json_key(j, "best_period");
	if (r->range) {
		hcbs_json_object_begin(j);
		hcbs_json_key(j, "min_ns");
		hcbs_json_uint(j, r->pmin);
		hcbs_json_key(j, "max_ns");
		hcbs_json_uint(j, r->pmax);
		hcbs_json_key(j, "step_ns");
		hcbs_json_uint(j, r->step);
		hcbs_json_key(j, "fp");
		json_choice(j, r->best_fp_ok, r->best_fp_p, r->best_fp_q);
		hcbs_json_key(j, "edf");
		json_choice(j, r->best_edf_ok, r->best_edf_p, r->best_edf_q);
		hcbs_json_key(j, "global_fp");
		json_choice(j, r->best_gfp_ok, r->best_gfp_p, r->best_gfp_q);
		hcbs_json_key(j, "partitioned_fp");
		json_choice(j, r->best_part_ok, r->best_part_p, r->best_part_q);
		hcbs_json_object_end(j);
	} else {
		hcbs_json_null(j);
	}
	hcbs_json_key(j, "model");
	hcbs_json_object_begin(j);
	hcbs_json_key(j, "name");
	hcbs_json_string(j, model_names[r->model]);
	hcbs_json_key(j, "source");
	hcbs_json_string(j, r->model_given ? "option" : "default");
	hcbs_json_key(j, "schedulable");
	hcbs_json_bool(j, model_fits(r));
	hcbs_json_object_end(j);
	json_multi(j, a, r);
	hcbs_json_object_end(j);
	return json_close(j);
}

/* Global and partitioned fixed priorities on the m CPUs. */
static void print_multi(const struct analysis *a, const struct answer *r)
{
	char b1[32], b2[32], b3[32], b4[32];

	if (r->gfp_check && r->model == MODEL_GLOBAL) {
		const struct hcbs_gfp_result *g = r->gfp;

		printf("\nglobal fixed priorities on %u CPU%s, %s/%s each (tasks migrate between the servers): %s\n",
		       r->cpus, r->cpus == 1 ? "" : "s", dur(r->gfp_q, b1, sizeof(b1)),
		       dur(r->cperiod, b2, sizeof(b2)),
		       g->schedulable ? "SCHEDULABLE" : "NOT guaranteed");
		printf("  sufficient test: %s\n", HCBS_GFP_TEST_NAME);
		printf("  task k passes at the least t <= D_k with m C_k + sum over higher/equal-priority i of min(W_i(t), t) <= m sbf(t)\n");
		printf("  %-4s %-4s %-10s %-10s %s\n", "TASK", "OK", "t*", "m*sbf(t*)", "load(t*)");
		for (int i = 0; i < a->ts.n; i++) {
			const struct hcbs_fp_task *t = &g->task[i];

			printf("  %-4d %-4s %-10s %-10s %s\n", i + 1, t->schedulable ? "yes" : "NO",
			       dur(t->at.t, b1, sizeof(b1)), dur(t->at.supply, b2, sizeof(b2)),
			       dur(t->at.demand, b3, sizeof(b3)));
		}
		if (g->binding >= 0) {
			const struct hcbs_point *pt = &g->task[g->binding].at;

			if (g->schedulable)
				printf("  tightest: task %d: response-time bound %s (deadline %s)\n", g->binding + 1,
				       dur(pt->t, b1, sizeof(b1)),
				       dur(a->ts.t[g->binding].deadline, b2, sizeof(b2)));
			else
				printf("  fails: task %d: at no t up to its deadline does m sbf(t) cover the load; at its deadline %s: %s < %s\n",
				       g->binding + 1, dur(pt->t, b1, sizeof(b1)),
				       dur(pt->supply, b2, sizeof(b2)), dur(pt->demand, b3, sizeof(b3)));
		}
	}
	if (r->part_check && r->model == MODEL_PART) {
		const struct hcbs_part_result *p = r->part;

		printf("\npartitioned fixed priorities on %u CPU%s, %s/%s each (first-fit by priority, each CPU as one reservation above): %s\n",
		       r->cpus, r->cpus == 1 ? "" : "s", dur(r->part_q, b1, sizeof(b1)),
		       dur(r->cperiod, b2, sizeof(b2)),
		       p->schedulable ? "SCHEDULABLE" : "NOT schedulable");
		printf("  CPU of each task:");
		for (int i = 0; i < a->ts.n; i++) {
			if (p->cpu[i] >= 0)
				printf(" %d:%d", i + 1, p->cpu[i]);
			else
				printf(" %d:-", i + 1);
		}
		printf(" (%u CPU%s used)\n", p->used, p->used == 1 ? "" : "s");
		if (!p->schedulable)
			printf("  fails: task %d (WCET %s) fits on none of the %u CPU%s\n", p->failed + 1,
			       dur(a->ts.t[p->failed].wcet, b4, sizeof(b4)), r->cpus, r->cpus == 1 ? "" : "s");
	}
}

static void print_text(const char *file, const struct analysis *a,
		       const struct answer *r)
{
	char b1[32], b2[32], b3[32], b4[32];

	printf("task set %s: %d task%s, utilization %.4f\n", file, a->ts.n,
	       a->ts.n == 1 ? "" : "s", a->u);
	if (a->have_overhead) {
		char ob[96];

		if (a->measured)
			print_overhead_measurement(a->measured, "");
		printf("overhead %s (--overhead%s): every WCET below includes it; the file's:",
		       hcbs_format_overhead(&a->overhead, ob, sizeof(ob)),
		       a->measured ? " auto" : "");
		for (int i = 0; i < a->ts.n; i++)
			printf(" %s", dur(a->declared[i], b1, sizeof(b1)));
		printf("\n");
	}
	printf("m = %u CPU%s, each with its own server (Q, P): %s\n", r->cpus, r->cpus == 1 ? "" : "s",
	       r->cpus_given ? "from --cpus" :
	       "the default, as analyze is given no container (--cpus N for a container on N CPUs)");
	if (r->model == MODEL_UNI)
		printf("model: one CPU, the fixed-priority verdict below sets the exit status\n");
	else
		printf("model: %s fixed priorities on the %u CPUs (%s), whose verdict alone sets the exit status; the fixed-priority and EDF sections below are one CPU's reservation holding every task\n",
		       model_names[r->model], r->cpus,
		       r->model_given ? "--model" :
		       "the default for --cpus > 1: threads migrate between the servers; --model partitioned for threads pinned one CPU each");
	if (r->have_check) {
		uint64_t bo = r->p > r->q ? 2 * (r->p - r->q) : 0;

		printf("\n%s %s/%s, bandwidth %.4f: in the worst case no supply for %s, then %s every %s (periodic resource, Shin & Lee)\n",
		       r->have_res ? "reservation" : "at the minimum runtime,",
		       dur(r->q, b1, sizeof(b1)), dur(r->p, b2, sizeof(b2)),
		       (double)r->q / (double)r->p, dur(bo, b3, sizeof(b3)), b1, b2);

		printf("\nfixed priorities (%s, as SCHED_FIFO): %s\n",
		       a->order == HCBS_ORDER_FILE ? "priorities from the file" :
		       a->order == HCBS_ORDER_DM ? "deadline monotonic" : "rate monotonic",
		       r->fp->schedulable ? "SCHEDULABLE" : "NOT schedulable");
		printf("  %-4s %-10s %-10s %-10s %-5s %-4s %-10s %-10s %s\n", "TASK", "WCET",
		       "PERIOD", "DEADLINE", "PRIO", "OK", "t*", "sbf(t*)", "demand(t*)");
		printf("  (t* = the response-time bound R, the first t at which the guaranteed supply covers the task and its interference; for a failing task, its deadline)\n");
		for (int i = 0; i < a->ts.n; i++) {
			const struct hcbs_task *t = &a->ts.t[i];
			const struct hcbs_fp_task *ft = &r->fp->task[i];
			char p[8] = "-", c1[32], c2[32], c3[32];

			if (a->ts.has_prio)
				snprintf(p, sizeof(p), "%d", t->prio);
			printf("  %-4d %-10s %-10s %-10s %-5s %-4s %-10s %-10s %s\n", i + 1,
			       dur(t->wcet, b1, sizeof(b1)), dur(t->period, b2, sizeof(b2)),
			       dur(t->deadline, b3, sizeof(b3)), p,
			       ft->schedulable ? "yes" : "NO", dur(ft->at.t, c1, sizeof(c1)),
			       dur(ft->at.supply, c2, sizeof(c2)), dur(ft->at.demand, c3, sizeof(c3)));
		}
		if (r->fp->binding >= 0) {
			const struct hcbs_point *pt = &r->fp->task[r->fp->binding].at;

			if (r->fp->schedulable)
				printf("  tightest: task %d: by t* = %s (deadline %s) the reservation supplies at least %s, which covers the %s the task needs with the interference of higher (and equal) priority tasks\n",
				       r->fp->binding + 1, dur(pt->t, b1, sizeof(b1)),
				       dur(a->ts.t[r->fp->binding].deadline, b4, sizeof(b4)),
				       dur(pt->supply, b2, sizeof(b2)), dur(pt->demand, b3, sizeof(b3)));
			else
				printf("  fails: task %d: at no t up to its deadline does the supply cover the demand; at its deadline %s: supply %s < demand %s\n",
				       r->fp->binding + 1, dur(pt->t, b1, sizeof(b1)),
				       dur(pt->supply, b2, sizeof(b2)), dur(pt->demand, b3, sizeof(b3)));
		}

		printf("\nEDF: ");
		if (r->edf.over_utilized)
			printf("NOT schedulable: utilization %.4f is not below the bandwidth %.4f, and the server has blackouts\n",
			       a->u, (double)r->q / (double)r->p);
		else if (r->edf.inconclusive)
			printf("NOT guaranteed: too many points to check (bandwidth too close to the utilization); treated as not schedulable\n");
		else if (r->edf.schedulable)
			printf("SCHEDULABLE: dbf(t) <= sbf(t) at every step of dbf up to %s; tightest at t = %s: supply %s >= demand %s\n",
			       dur(r->edf.bound, b1, sizeof(b1)), dur(r->edf.at.t, b2, sizeof(b2)),
			       dur(r->edf.at.supply, b3, sizeof(b3)), dur(r->edf.at.demand, b4, sizeof(b4)));
		else
			printf("NOT schedulable: first at t = %s: supply %s < demand %s\n",
			       dur(r->edf.at.t, b2, sizeof(b2)), dur(r->edf.at.supply, b3, sizeof(b3)),
			       dur(r->edf.at.demand, b4, sizeof(b4)));
	}
	print_multi(a, r);
	if (r->period) {
		printf("\nminimum runtime at period %s (to the microsecond):\n", dur(r->period, b1, sizeof(b1)));
		if (r->fp_min_ok)
			printf("  fixed priorities: %s (bandwidth %.4f)\n", dur(r->fp_min, b2, sizeof(b2)),
			       (double)r->fp_min / (double)r->period);
		else
			printf("  fixed priorities: none (not schedulable even with the whole CPU)\n");
		if (r->edf_min_ok)
			printf("  EDF:              %s (bandwidth %.4f)\n", dur(r->edf_min, b2, sizeof(b2)),
			       (double)r->edf_min / (double)r->period);
		else
			printf("  EDF:              none (not schedulable even with the whole CPU)\n");
		if (r->model == MODEL_GLOBAL && r->gfp_min_ok)
			printf("  global FP on %u CPU%s: %s on each (bandwidth %.4f per CPU)\n", r->cpus,
			       r->cpus == 1 ? "" : "s", dur(r->gfp_min, b2, sizeof(b2)),
			       (double)r->gfp_min / (double)r->period);
		else if (r->model == MODEL_GLOBAL)
			printf("  global FP on %u CPU%s: none (not guaranteed even with whole CPUs)\n", r->cpus,
			       r->cpus == 1 ? "" : "s");
		if (r->model == MODEL_PART && r->part_min_ok)
			printf("  partitioned FP on %u CPU%s (first-fit): %s on each (bandwidth %.4f per CPU; found by bisection, first-fit need not be monotone in Q)\n",
			       r->cpus, r->cpus == 1 ? "" : "s", dur(r->part_min, b2, sizeof(b2)),
			       (double)r->part_min / (double)r->period);
		else if (r->model == MODEL_PART)
			printf("  partitioned FP on %u CPU%s (first-fit): none (not schedulable even with whole CPUs)\n",
			       r->cpus, r->cpus == 1 ? "" : "s");
	}
	if (r->range) {
		printf("\nleast bandwidth for a period in %s..%s (step %s):\n", dur(r->pmin, b1, sizeof(b1)),
		       dur(r->pmax, b2, sizeof(b2)), dur(r->step, b3, sizeof(b3)));
		if (r->best_fp_ok)
			printf("  fixed priorities: %s/%s (bandwidth %.4f)  ->  hcbsctl set NAME %s/%s\n",
			       dur(r->best_fp_q, b1, sizeof(b1)), dur(r->best_fp_p, b2, sizeof(b2)),
			       (double)r->best_fp_q / (double)r->best_fp_p, b1, b2);
		else
			printf("  fixed priorities: no period in the range works\n");
		if (r->best_edf_ok)
			printf("  EDF:              %s/%s (bandwidth %.4f)\n",
			       dur(r->best_edf_q, b1, sizeof(b1)), dur(r->best_edf_p, b2, sizeof(b2)),
			       (double)r->best_edf_q / (double)r->best_edf_p);
		else
			printf("  EDF:              no period in the range works\n");
		if (r->model != MODEL_UNI) {
			bool ok = r->model == MODEL_GLOBAL ? r->best_gfp_ok : r->best_part_ok;
			uint64_t q = r->model == MODEL_GLOBAL ? r->best_gfp_q : r->best_part_q;
			uint64_t p = r->model == MODEL_GLOBAL ? r->best_gfp_p : r->best_part_p;

			if (ok)
				printf("  %s FP on %u CPUs: %s/%s (bandwidth %.4f per CPU)\n",
				       model_names[r->model], r->cpus, dur(q, b1, sizeof(b1)),
				       dur(p, b2, sizeof(b2)), (double)q / (double)p);
			else
				printf("  %s FP on %u CPUs: no period in the range works\n",
				       model_names[r->model], r->cpus);
		}
	}
	if (r->model == MODEL_UNI)
		printf("\nLinux schedules SCHED_FIFO/RR inside a reservation: the fixed-priority answer is the one that applies; EDF is shown for comparison.\n");
	else
		printf("\nLinux schedules SCHED_FIFO/RR inside a reservation: the %s fixed-priority answer on the %u CPUs is the one that applies; EDF is shown for comparison.\n",
		       model_names[r->model], r->cpus);
}

/* Periods in the one grammar, whole microseconds and > 0, as for set. */
#define PERIOD_FLAGS (HCBS_DUR_NONZERO | HCBS_DUR_WHOLE_US)

static int parse_range(const struct opts *o, const char *file, struct answer *r)
{
	const char *dots = strstr(o->period, "..");
	char lo[64], e[HCBS_ERRLEN];

	if (!dots) {
		if (hcbs_parse_duration_flags(o->period, PERIOD_FLAGS, &r->period, e, sizeof(e))) {
			die_line(o, file, "--period: %s", e);
			return HCBS_EXIT_USAGE;
		}
		return 0;
	}
	if ((size_t)(dots - o->period) >= sizeof(lo)) {
		die_line(o, file, "--period: range too long");
		return HCBS_EXIT_USAGE;
	}
	memcpy(lo, o->period, (size_t)(dots - o->period));
	lo[dots - o->period] = '\0';
	r->step = 100000;
	if (hcbs_parse_duration_flags(lo, PERIOD_FLAGS, &r->pmin, e, sizeof(e)) ||
	    hcbs_parse_duration_flags(dots + 2, PERIOD_FLAGS, &r->pmax, e, sizeof(e))) {
		die_line(o, file, "--period PMIN..PMAX: %s", e);
		return HCBS_EXIT_USAGE;
	}
	if (o->step && hcbs_parse_duration_flags(o->step, PERIOD_FLAGS, &r->step, e, sizeof(e))) {
		die_line(o, file, "--step: %s", e);
		return HCBS_EXIT_USAGE;
	}
	if (r->pmin > r->pmax) {
		die_line(o, file, "--period %s: expected PMIN <= PMAX", o->period);
		return HCBS_EXIT_USAGE;
	}
	if ((r->pmax - r->pmin) / r->step > 100000) {
		die_line(o, file, "--period %s: more than 100000 periods to try; use a larger --step", o->period);
		return HCBS_EXIT_USAGE;
	}
	r->range = true;
	return 0;
}

/* The shortest server period analysed: the reservation's, P or PMIN. */
static uint64_t shortest_period(const struct answer *r)
{
	uint64_t p = r->range ? r->pmin : r->period;

	if (r->have_res && (!p || r->p < p))
		p = r->p;
	return p;
}

int cmd_analyze(struct opts *o)
{
	const char *file = o->args[0];
	struct answer r = { 0 };
	struct analysis a;
	char e[HCBS_ERRLEN];
	int ret;

	if (!o->reservation && !o->period) {
		die_line(o, file, "give --reservation Q/P and/or --period P (or a range PMIN..PMAX)");
		return HCBS_EXIT_USAGE;
	}
	if (o->step && (!o->period || !strstr(o->period, ".."))) {
		die_line(o, file, "--step goes with a period range (--period PMIN..PMAX)");
		return HCBS_EXIT_USAGE;
	}
	if (o->reservation &&
	    hcbs_parse_reservation(o->reservation, &r.q, &r.p, e, sizeof(e))) {
		die_line(o, file, "--reservation: %s", e);
		return HCBS_EXIT_USAGE;
	}
	r.have_res = o->reservation != NULL;
	if (o->period && (ret = parse_range(o, file, &r)))
		return ret;
	if (r.have_res && !r.period && !r.range)
		r.period = r.p;
	r.cpus = 1;
	if (o->cpus) {
		char *end;
		unsigned long m;

		errno = 0;
		m = strtoul(o->cpus, &end, 10);
		if (o->cpus[0] < '0' || o->cpus[0] > '9' || *end || errno || !m ||
		    m > HCBS_ANALYSIS_MAX_CPUS) {
			die_line(o, file, "--cpus %s: expected a whole number of CPUs from 1 to %d",
				 o->cpus, HCBS_ANALYSIS_MAX_CPUS);
			return HCBS_EXIT_USAGE;
		}
		r.cpus = (unsigned int)m;
		r.cpus_given = true;
	}
	if (o->model && strcmp(o->model, "global") && strcmp(o->model, "partitioned")) {
		die_line(o, file, "--model %s: expected global (threads migrate between the servers) or partitioned (threads pinned one CPU each)",
			 o->model);
		return HCBS_EXIT_USAGE;
	}
	/* One CPU: the models are the one-CPU analysis, whose test is exact. */
	r.model_given = o->model != NULL;
	r.model = r.cpus == 1 ? MODEL_UNI :
		  o->model && !strcmp(o->model, "partitioned") ? MODEL_PART : MODEL_GLOBAL;
	ret = load(o, file, shortest_period(&r), &a, e, sizeof(e));
	if (ret) {
		err_line("analyze: %s", e);
		return ret;
	}
	r.fp = calloc(1, sizeof(*r.fp));
	r.gfp = calloc(1, sizeof(*r.gfp));
	r.part = calloc(1, sizeof(*r.part));
	if (!r.fp || !r.gfp || !r.part) {
		err_line("analyze: %s: out of memory", file);
		ret = HCBS_EXIT_SYSTEM;
		goto out;
	}

	if (r.period) {
		r.fp_min_ok = !hcbs_min_runtime(&a.ts, true, a.order, r.period, 1000, &r.fp_min);
		r.edf_min_ok = !hcbs_min_runtime(&a.ts, false, a.order, r.period, 1000, &r.edf_min);
		r.gfp_min_ok = !hcbs_min_runtime_test(&a.ts, HCBS_TEST_GFP, a.order, r.cpus, r.period,
						      1000, &r.gfp_min);
		r.part_min_ok = !hcbs_min_runtime_test(&a.ts, HCBS_TEST_PART, a.order, r.cpus, r.period,
						       1000, &r.part_min);
	}
	if (r.have_res) {
		r.have_check = true;
	} else if (r.period && r.fp_min_ok) {
		/* Show the check at the minimum runtime: where it binds. */
		r.have_check = true;
		r.q = r.fp_min;
		r.p = r.period;
	}
	if (r.have_check) {
		hcbs_fp_test(&a.ts, a.order, r.q, r.p, r.fp);
		hcbs_edf_test(&a.ts, r.q, r.p, &r.edf);
	}
	/* Global and partitioned on m CPUs: at the reservation, else at their own minimum. */
	r.cperiod = r.have_res ? r.p : r.period;
	r.gfp_check = r.have_res || (r.period && !r.range && r.gfp_min_ok);
	r.gfp_q = r.have_res ? r.q : r.gfp_min;
	r.part_check = r.have_res || (r.period && !r.range && r.part_min_ok);
	r.part_q = r.have_res ? r.q : r.part_min;
	if (r.gfp_check && hcbs_gfp_test(&a.ts, a.order, r.cpus, r.gfp_q, r.cperiod, r.gfp))
		r.gfp_check = false;
	if (r.part_check && hcbs_part_test(&a.ts, a.order, r.cpus, r.part_q, r.cperiod, r.part))
		r.part_check = false;
	if (r.range) {
		for (uint64_t p = r.pmin; p <= r.pmax; p += r.step) {
			uint64_t q;

			if (!hcbs_min_runtime(&a.ts, true, a.order, p, 1000, &q) &&
			    (!r.best_fp_ok || (double)q / (double)p < (double)r.best_fp_q / (double)r.best_fp_p)) {
				r.best_fp_ok = true;
				r.best_fp_p = p;
				r.best_fp_q = q;
			}
			if (!hcbs_min_runtime(&a.ts, false, a.order, p, 1000, &q) &&
			    (!r.best_edf_ok || (double)q / (double)p < (double)r.best_edf_q / (double)r.best_edf_p)) {
				r.best_edf_ok = true;
				r.best_edf_p = p;
				r.best_edf_q = q;
			}
			if (!hcbs_min_runtime_test(&a.ts, HCBS_TEST_GFP, a.order, r.cpus, p, 1000, &q) &&
			    (!r.best_gfp_ok || (double)q / (double)p < (double)r.best_gfp_q / (double)r.best_gfp_p)) {
				r.best_gfp_ok = true;
				r.best_gfp_p = p;
				r.best_gfp_q = q;
			}
			if (r.cpus > 1 &&
			    !hcbs_min_runtime_test(&a.ts, HCBS_TEST_PART, a.order, r.cpus, p, 1000, &q) &&
			    (!r.best_part_ok || (double)q / (double)p < (double)r.best_part_q / (double)r.best_part_p)) {
				r.best_part_ok = true;
				r.best_part_p = p;
				r.best_part_q = q;
			}
			if (p > UINT64_MAX - r.step)
				break;
		}
	}

	ret = HCBS_EXIT_OK;
	if (o->json) {
		if (print_json(file, &a, &r))
			ret = HCBS_EXIT_SYSTEM;
	} else if (verbosity != VERBOSITY_QUIET) {
		/* -q: the exit status is the verdict. */
		print_text(file, &a, &r);
	}

	/*
	 * The exit status follows the declared model alone (fixed
	 * priorities, what Linux runs): `analyze && set` must not accept
	 * what only another model guarantees.
	 */
	if (ret == HCBS_EXIT_OK && !model_fits(&r))
		ret = HCBS_EXIT_UNSCHED;
out:
	free(r.fp);
	free(r.gfp);
	free(r.part);
	unload(&a);
	return ret;
}
