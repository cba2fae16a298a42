// SPDX-License-Identifier: GPL-2.0
/*
 * hcbstrace lateness: per-job response time and normalized lateness
 * l = (r - D) / T of periodic real-time threads (D = T unless --deadline),
 * deadline misses and late starts, per thread and per container.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_setup.h"
#include "cgroups.h"
#include "lateness.h"
#include "lateness.skel.h"
#include "opts.h"
#include "output.h"
#include "stats.h"
#include "subcommands.h"
#include "trace_clock.h"

/* --help: above the options, then (after \v) below them. */
static const char doc[] =
"Per-job timing of periodic real-time threads, with no change to them:\n"
"  release    expiry of the timer the thread slept on (clock_nanosleep),\n"
"             or its wake-up time when something else woke it\n"
"  start      first switch-in after the release\n"
"  completion switch-out while not runnable, after arming the next timer\n"
"Response time r = completion - release; normalized lateness\n"
"l = (r - D) / T, where T is --period or the median time between releases,\n"
"and D is --deadline or T.  l > 0 is a deadline miss; a start later than\n"
"release + D is a late start.  Only SCHED_FIFO/RR/DEADLINE threads unless\n"
"--all-policies.\n"
"\v"
"Examples:\n"
"  hcbstrace lateness -c vbbu1 -d 60s --csv vbbu1.csv\n"
"  hcbstrace lateness -p $(pidof l1app) --period 1ms --max-lateness 0\n"
"  hcbstrace lateness -g /sys/fs/cgroup/rt --json 10s 6\n"
"  plot-lateness-cdf vbbu1.csv vbbu1.png  # the CDF of l (gnuplot, python3)\n";

static const struct argp_option opts[] = {
	HCBS_OPT_TASK_FILTERS("threads"),
	HCBS_OPT_GROUP_LEVEL("default 1; -1: the thread's own"),
	{ "period", OPT_PERIOD, "DUR", 0, "the period T of every thread (default: inferred)", 0 },
	{ "deadline", OPT_DEADLINE, "DUR", 0, "the relative deadline D (default: T)", 0 },
	{ "all-policies", OPT_ALL_POLICIES, NULL, 0, "follow SCHED_OTHER threads too", 0 },
	{ "csv", OPT_CSV, "FILE", 0, "one row per job (for plot-lateness-cdf)", 0 },
	{ "max-lateness", OPT_MAX_LATENESS, "L", 0,
	  "stop, exit 2, when a job's lateness exceeds L", 0 },
	{ "ringbuf-size", OPT_RINGBUF_SIZE, "N", 0,
	  "job ring buffer, a power of two (default 1M)", 0 },
	HCBS_OPT_COMMON
};


/* Releases used to infer a period: 16 gaps. */
#define INFER_N		17
#define LBINS		40	/* -1.0 .. 1.0 in 0.05 steps, then "over" */

/* Jobs, deadline misses, late starts and the largest response time. */
struct counts {
	uint64_t jobs, misses, late, max_r;
};

static void counts_add(struct counts *c, const struct counts *a)
{
	c->jobs += a->jobs;
	c->misses += a->misses;
	c->late += a->late;
	if (a->max_r > c->max_r)
		c->max_r = a->max_r;
}

struct thr {
	uint32_t tid, pid;
	uint64_t cgid;
	char comm[HCBS_COMM_LEN];
	uint64_t period;
	bool inferred;
	uint64_t rel[INFER_N];
	size_t nrel;
	struct job_event *pend;
	size_t npend, cappend;
	double *lat;		/* the lateness of each job; this interval's from istart */
	size_t nlat, caplat, istart;
	struct counts all, iv;	/* in all, in this interval */
	uint64_t timer_rel, sum_r, unevaluated;
};

struct state {
	struct hcbs_opts *o;
	struct thr *t;
	size_t n, cap;
	FILE *csv;
	char cause[256];
	int err;
};

static struct thr *thr_find(struct state *s, const struct job_event *e)
{
	struct thr *nt;

	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].tid == e->tid && s->t[i].cgid == e->cgid)
			return &s->t[i];
	nt = hcbs_grow(s->t, s->n, &s->cap, sizeof(*nt), 32);
	if (!nt)
		return NULL;
	s->t = nt;
	memset(&s->t[s->n], 0, sizeof(s->t[0]));
	s->t[s->n].tid = e->tid;
	s->t[s->n].pid = e->pid;
	s->t[s->n].cgid = e->cgid;
	return &s->t[s->n++];
}

static int push_lat(struct thr *t, double l)
{
	double *nl = hcbs_grow(t->lat, t->nlat, &t->caplat, sizeof(*nl), 256);

	if (!nl)
		return -ENOMEM;
	t->lat = nl;
	t->lat[t->nlat++] = l;
	return 0;
}

static void csv_header(FILE *f)
{
	fprintf(f, "container,cgroup_id,pid,tid,comm,job,release_ns,wakeup_ns,start_ns,end_ns,"
		"response_ns,period_ns,deadline_ns,lateness,miss,late_start,release_src,"
		"run_ns,preemptions,no_switch,sleep_ns\n");
}

static void evaluate(struct state *s, struct thr *t, const struct job_event *e)
{
	const struct hcbs_opts *o = s->o;
	uint64_t D = o->deadline_ns ? o->deadline_ns : t->period;
	struct job_result r;
	struct counts job;

	job_evaluate(e->release, e->start, e->end, t->period, D, &r);
	job = (struct counts){ 1, r.miss, r.late_start, r.response_ns };
	counts_add(&t->all, &job);
	counts_add(&t->iv, &job);
	t->timer_rel += e->release_src == JOB_REL_TIMER;
	t->sum_r += r.response_ns;
	if (push_lat(t, r.lateness))
		s->err = -ENOMEM;
	if (s->csv) {
		char name[300];

		csv_field(name, sizeof(name), hcbs_cgroup_name(o, t->cgid));
		fprintf(s->csv, "%s,%llu,%u,%u,", name, (unsigned long long)t->cgid, e->pid, e->tid);
		csv_field(name, sizeof(name), t->comm);
		fprintf(s->csv, "%s,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.6f,%d,%d,%s,%llu,%u,%d,%llu\n",
			name, (unsigned long long)t->all.jobs,
			(unsigned long long)e->release, (unsigned long long)e->wakeup,
			(unsigned long long)e->start, (unsigned long long)e->end,
			(unsigned long long)r.response_ns, (unsigned long long)t->period,
			(unsigned long long)D, r.lateness, r.miss, r.late_start,
			e->release_src == JOB_REL_TIMER ? "timer" : "wakeup",
			(unsigned long long)e->run_ns, e->preemptions,
			!!(e->flags & JOB_F_NO_SWITCH), (unsigned long long)e->sleep);
	}
	if (o->has_max_lateness && r.lateness > o->max_lateness && !s->cause[0]) {
		char a[32], b[32];

		snprintf(s->cause, sizeof(s->cause),
			 "lateness %.3f > --max-lateness %g: tid %u (%.16s) in %s, job %llu (r=%sus, T=%sus)",
			 r.lateness, o->max_lateness, e->tid, t->comm, hcbs_cgroup_name(o, t->cgid),
			 (unsigned long long)t->all.jobs, hcbs_fmt_us(r.response_ns, a, sizeof(a)),
			 hcbs_fmt_us(t->period, b, sizeof(b)));
	}
}

/* The period of @t is known now: evaluate the jobs that waited for it. */
static void flush_pending(struct state *s, struct thr *t)
{
	for (size_t i = 0; i < t->npend; i++)
		evaluate(s, t, &t->pend[i]);
	free(t->pend);
	t->pend = NULL;
	t->npend = t->cappend = 0;
}

static int on_event(void *ctx, void *data, size_t len)
{
	struct state *s = ctx;
	const struct job_event *e = data;
	struct job_event *np;
	struct thr *t;

	if (len < sizeof(*e))
		return 0;
	t = thr_find(s, e);
	if (!t) {
		s->err = -ENOMEM;
		return -ENOMEM;
	}
	memcpy(t->comm, e->comm, sizeof(t->comm));
	if (!t->period && s->o->period_ns)
		t->period = s->o->period_ns;
	if (t->period) {
		evaluate(s, t, e);
		return s->cause[0] ? 1 : 0;
	}
	if (t->nrel < INFER_N)
		t->rel[t->nrel++] = e->release;
	np = hcbs_grow(t->pend, t->npend, &t->cappend, sizeof(*np), INFER_N);
	if (!np) {
		s->err = -ENOMEM;
		return -ENOMEM;
	}
	t->pend = np;
	t->pend[t->npend++] = *e;
	if (t->nrel == INFER_N) {
		t->period = infer_period(t->rel, t->nrel);
		t->inferred = true;
		flush_pending(s, t);
	}
	return s->cause[0] ? 1 : 0;
}

/* At the end: infer from what there is, or give up on the thread. */
static void finish_pending(struct state *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct thr *t = &s->t[i];

		if (!t->npend)
			continue;
		t->period = infer_period(t->rel, t->nrel);
		t->inferred = true;
		if (t->period) {
			flush_pending(s, t);
		} else {
			t->unevaluated += t->npend;
			free(t->pend);
			t->pend = NULL;
			t->npend = 0;
		}
	}
}

/* ---- output ---- */

/* A column: its threads' jobs, and their lateness sorted and in bins. */
struct lcol {
	double *lat;
	size_t nlat;
	struct counts n;
	uint64_t threads, bins[LBINS + 1];
};

/* The lateness of @t's jobs from the @from-th on, sorted, in *@k values. */
static double *sorted_lat(const struct thr *t, size_t from, size_t *k)
{
	double *v;

	*k = t->nlat - from;
	v = *k ? malloc(*k * sizeof(*v)) : NULL;
	if (v) {
		memcpy(v, t->lat + from, *k * sizeof(*v));
		sort_doubles(v, *k);
	}
	return v;
}

static struct lcol *build_cols(struct state *s, bool total, struct hcbs_cols *cols)
{
	struct lcol *c = hcbs_cols_init(cols, s->o, s->n, true, sizeof(*c));

	for (size_t i = 0; c && i < s->n; i++) {
		struct thr *t = &s->t[i];
		struct lcol *x = &c[hcbs_cols_find(cols, s->o, t->cgid)];
		size_t from = total ? 0 : t->istart;

		x->threads++;
		counts_add(&x->n, total ? &t->all : &t->iv);
		if (t->nlat > from) {
			double *nl = realloc(x->lat, (x->nlat + t->nlat - from) * sizeof(*nl));

			if (nl) {
				memcpy(nl + x->nlat, t->lat + from, (t->nlat - from) * sizeof(*nl));
				x->lat = nl;
				x->nlat += t->nlat - from;
			}
		}
	}
	for (size_t j = 0; c && j < cols->n; j++) {
		sort_doubles(c[j].lat, c[j].nlat);
		for (size_t k = 0; k < c[j].nlat; k++) {
			double l = c[j].lat[k];
			int b = l >= 1.0 ? LBINS : (int)floor((l + 1.0) / 0.05);

			c[j].bins[b < 0 ? 0 : b > LBINS ? LBINS : b]++;
		}
	}
	return c;
}

static void free_cols(struct hcbs_cols *cols, struct lcol *c)
{
	for (size_t i = 0; i < cols->n; i++)
		free(c[i].lat);
	hcbs_cols_free(cols);
}

static void lat_row(const char *label, const struct lcol *c, size_t n, int w, double p)
{
	printf("%-12s", label);
	for (size_t i = 0; i < n; i++) {
		if (!c[i].nlat)
			printf(" %*s", w, "-");
		else
			printf(" %*.3f", w, quantile_sorted(c[i].lat, c[i].nlat, p));
	}
	putchar('\n');
}

static void print_threads(struct state *s, bool total)
{
	char buf[32], per[32];

	printf("\n%-16s %8s %-16s %11s %9s %7s %7s %8s %8s %8s %11s\n", "CONTAINER", "TID",
	       "COMM", "PERIOD(us)", "JOBS", "MISSES", "LATE", "L-P50", "L-P99", "L-MAX",
	       "R-MAX(us)");
	for (size_t i = 0; i < s->n; i++) {
		const struct thr *t = &s->t[i];
		const struct counts *n = total ? &t->all : &t->iv;
		size_t k;
		double *v = sorted_lat(t, total ? 0 : t->istart, &k);

		if (!n->jobs || !v) {
			free(v);
			continue;
		}
		snprintf(per, sizeof(per), "%s%s", hcbs_fmt_us(t->period, buf, sizeof(buf)),
			 t->inferred ? "*" : "");
		printf("%-16s %8u %-16s %11s %9llu %7llu %7llu %8.3f %8.3f %8.3f %11s\n",
		       hcbs_cgroup_name(s->o, t->cgid), t->tid, t->comm, per,
		       (unsigned long long)n->jobs, (unsigned long long)n->misses,
		       (unsigned long long)n->late,
		       quantile_sorted(v, k, 0.5), quantile_sorted(v, k, 0.99), v[k - 1],
		       hcbs_fmt_us(n->max_r, buf, sizeof(buf)));
		free(v);
	}
	printf("# PERIOD with * is inferred (median time between releases)\n");
}

static void print_text(struct state *s, const struct hcbs_clock *clk, bool total,
		       const struct job_drops *d)
{
	struct hcbs_cols cols;
	struct lcol *c;
	int w, lo = LBINS + 1, hi = -1;
	char label[32];

	c = build_cols(s, total, &cols);
	if (!c)
		return;
	for (size_t i = 0; i < cols.n; i++)
		for (int b = 0; b <= LBINS; b++)
			if (c[i].bins[b]) {
				lo = b < lo ? b : lo;
				hi = b > hi ? b : hi;
			}
	hcbs_print_header(s->o, clk, "normalized lateness l = (r - D) / T", !total);
	printf("# rows: l in steps of 0.05; l > 0 is a deadline miss\n");
	w = hcbs_print_names("l", 12, &cols);
	for (int b = lo; b <= hi; b++) {
		if (b == LBINS)
			snprintf(label, sizeof(label), "over:");
		else
			snprintf(label, sizeof(label), "%+.2f", -1.0 + 0.05 * b);
		hcbs_print_row(label, 12, w, &c[0].bins[b], sizeof(c[0]), cols.n);
	}
	hcbs_print_row("threads:", 12, w, &c[0].threads, sizeof(c[0]), cols.n);
	hcbs_print_row("jobs:", 12, w, &c[0].n.jobs, sizeof(c[0]), cols.n);
	hcbs_print_row("misses:", 12, w, &c[0].n.misses, sizeof(c[0]), cols.n);
	hcbs_print_row("late-starts:", 12, w, &c[0].n.late, sizeof(c[0]), cols.n);
	lat_row("l-min:", c, cols.n, w, 0);
	lat_row("l-p50:", c, cols.n, w, 0.5);
	lat_row("l-p90:", c, cols.n, w, 0.9);
	lat_row("l-p99:", c, cols.n, w, 0.99);
	lat_row("l-p99.9:", c, cols.n, w, 0.999);
	lat_row("l-max:", c, cols.n, w, 1.0);
	printf("%-12s", "r-max(us):");
	for (size_t i = 0; i < cols.n; i++)
		printf(" %*s", w, c[i].n.jobs ? hcbs_fmt_us(c[i].n.max_r, label, sizeof(label)) : "-");
	putchar('\n');
	if (s->n)
		print_threads(s, total);
	printf("# dropped: %llu jobs (ring buffer full), %llu jobs (events not seen), "
	       "%llu threads (state map full); %llu unseen wakeups recovered\n",
	       (unsigned long long)d->ringbuf_full, (unsigned long long)d->jobs_unseen,
	       (unsigned long long)d->threads_full, (unsigned long long)d->wakeups_missed);
	fflush(stdout);
	free_cols(&cols, c);
}

static void json_lateness(struct hcbs_json *j, const double *v, size_t k)
{
	static const struct { const char *k; double p; } q[] = {
		{ "min", 0 }, { "p50", 0.5 }, { "p90", 0.9 }, { "p99", 0.99 },
		{ "p999", 0.999 }, { "max", 1.0 },
	};

	hcbs_json_key(j, "lateness");
	hcbs_json_object_begin(j);
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		hcbs_json_key(j, q[i].k);
		if (k)
			hcbs_json_double(j, quantile_sorted(v, k, q[i].p));
		else
			hcbs_json_null(j);
	}
	hcbs_json_object_end(j);
}

static void print_json(struct state *s, const struct hcbs_clock *clk,
		       const struct job_drops *d, const char *reason)
{
	const struct hcbs_opts *o = s->o;
	struct hcbs_cols cols;
	struct lcol *c = build_cols(s, true, &cols);	/* no columns if NULL */
	struct hcbs_json *j = hcbs_json_begin(o, clk, reason, s->cause[0] ? s->cause : NULL);
	uint64_t unevaluated = 0;

	for (size_t i = 0; i < s->n; i++)
		unevaluated += s->t[i].unevaluated;
	HCBS_JSON_DROPS(j, { "ringbuf_full", d->ringbuf_full }, { "threads_full", d->threads_full },
			{ "jobs_unseen", d->jobs_unseen }, { "wakeups_missed", d->wakeups_missed });
	hcbs_json_key(j, "unevaluated_jobs");
	hcbs_json_uint(j, unevaluated);
	hcbs_json_key(j, "containers");
	hcbs_json_array_begin(j);
	for (size_t i = 0; i < cols.n; i++) {
		hcbs_json_object_begin(j);
		hcbs_json_cgroup(j, "name", cols.c[i].name, cols.c[i].cgid);
		HCBS_JSON_U64S(j, { "threads", c[i].threads }, { "jobs", c[i].n.jobs },
			       { "misses", c[i].n.misses }, { "late_starts", c[i].n.late },
			       { "response_max_ns", c[i].n.max_r });
		json_lateness(j, c[i].lat, c[i].nlat);
		hcbs_json_object_end(j);
	}
	hcbs_json_array_end(j);
	hcbs_json_key(j, "threads");
	hcbs_json_array_begin(j);
	for (size_t i = 0; i < s->n; i++) {
		const struct thr *t = &s->t[i];
		size_t k;
		double *v = sorted_lat(t, 0, &k);

		hcbs_json_object_begin(j);
		HCBS_JSON_U64S(j, { "tid", t->tid }, { "pid", t->pid });
		hcbs_json_key(j, "comm");
		hcbs_json_string(j, t->comm);
		hcbs_json_cgroup(j, "container", hcbs_cgroup_name(o, t->cgid), t->cgid);
		hcbs_json_key(j, "period_ns");
		hcbs_json_uint(j, t->period);
		hcbs_json_key(j, "period_source");
		hcbs_json_string(j, t->inferred ? "inferred" : "given");
		HCBS_JSON_U64S(j, { "deadline_ns", o->deadline_ns ? o->deadline_ns : t->period },
			       { "jobs", t->all.jobs }, { "misses", t->all.misses },
			       { "late_starts", t->all.late }, { "timer_releases", t->timer_rel },
			       { "response_avg_ns", t->all.jobs ? t->sum_r / t->all.jobs : 0 },
			       { "response_max_ns", t->all.max_r });
		json_lateness(j, v, v ? k : 0);
		hcbs_json_object_end(j);
		free(v);
	}
	hcbs_json_array_end(j);
	hcbs_json_end(j);
	free_cols(&cols, c);
}

int cmd_lateness(int argc, char **argv)
{
	const char *reason = "interrupted";
	struct lateness_bpf *obj = NULL;
	struct ring_buffer *rb = NULL;
	struct hcbs_bpf bpf = {};
	struct hcbs_clock clk;
	struct state s = {};
	struct hcbs_opts o;
	int err, rc;

	rc = hcbs_setup(&o, "lateness", opts, doc, argc, argv);
	if (rc)
		goto cleanup;
	rc = EXIT_ERROR;
	s.o = &o;
	if (o.csv) {
		s.csv = fopen(o.csv, "we");
		if (!s.csv) {
			hcbs_err(&o, "--csv %s: %s", o.csv, strerror(errno));
			goto cleanup;
		}
		csv_header(s.csv);
	}

	obj = lateness_bpf__open();
	if (hcbs_bpf_open_failed(&o, obj))
		goto cleanup;
	HCBS_SET_FILTERS(obj->rodata, &o);
	obj->rodata->all_policies = o.all_policies;
	if (o.ringbuf_size)
		bpf_map__set_max_entries(obj->maps.events, (uint32_t)o.ringbuf_size);
	if (hcbs_bpf_load(&bpf, &o, obj->skeleton) || hcbs_bpf_attach(&bpf, &o, obj->skeleton))
		goto cleanup;
	rb = ring_buffer__new(bpf_map__fd(obj->maps.events), on_event, &s, NULL);
	if (!rb) {
		hcbs_explain_bpf_error(&o, "ring buffer", errno);
		goto cleanup;
	}

	hcbs_trace_start(&clk, &o, &bpf);
	rc = EXIT_OK;
	while ((err = hcbs_trace_wait(&clk, &o, &reason, rb)) > 0) {
		if (s.err) {
			hcbs_err(&o, "%s", strerror(-s.err));
			rc = EXIT_ERROR;
			break;
		}
		if (s.cause[0])
			break;
		if (hcbs_clock_tick(&clk, &o)) {
			if (!o.json)
				print_text(&s, &clk, false, &obj->bss->drops);
			for (size_t i = 0; i < s.n; i++) {
				s.t[i].istart = s.t[i].nlat;
				memset(&s.t[i].iv, 0, sizeof(s.t[i].iv));
			}
		}
	}
	if (err < 0) {
		hcbs_err(&o, "polling the ring buffer: %s", strerror(-err));
		rc = EXIT_ERROR;
	}
	/* What is still in the ring buffer belongs to the run. */
	if (!s.cause[0])
		ring_buffer__consume(rb);
	finish_pending(&s);
	if (s.cause[0]) {
		reason = "threshold";
		rc = EXIT_THRESHOLD;
	}
	if (o.json)
		print_json(&s, &clk, &obj->bss->drops, reason);
	else
		print_text(&s, &clk, true, &obj->bss->drops);
	if (s.cause[0])
		hcbs_err(&o, "%s", s.cause);

cleanup:
	ring_buffer__free(rb);
	hcbs_bpf_detach(&bpf);
	lateness_bpf__destroy(obj);
	if (s.csv && fclose(s.csv) && rc == EXIT_OK) {
		hcbs_err(&o, "--csv %s: %s", o.csv, strerror(errno));
		rc = EXIT_ERROR;
	}
	for (size_t i = 0; i < s.n; i++) {
		free(s.t[i].pend);
		free(s.t[i].lat);
	}
	free(s.t);
	hcbs_cgroup_names_free();
	return rc;
}
