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
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common.h"
#include "lateness.h"
#include "lateness.skel.h"
#include "stats.h"
#include "subcommands.h"

static const char help[] =
"Usage: hcbstrace lateness [options] [interval [count]]\n"
"\n"
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
"\n"
"Options:\n"
"  -c, --container NAME   only threads of this LXC container (repeatable)\n"
"  -P, --lxcpath PATH     LXC path for --container\n"
"  -g, --cgroup PATH      only threads in this cgroup or below (repeatable)\n"
"  -p, --pid PID          only the threads of this process\n"
"  -C, --comm NAME        only threads with this name\n"
"      --group-level N    without filters, fold cgroups into their ancestor\n"
"                         at level N (default 1; -1: the thread's own)\n"
"      --period DUR       the period T of every thread (default: inferred)\n"
"      --deadline DUR     the relative deadline D (default: T)\n"
"      --all-policies     follow SCHED_OTHER threads too\n"
"      --csv FILE         one row per job (for plot-lateness-cdf)\n"
"      --max-lateness L   stop, exit 2, when a job's lateness exceeds L\n"
"      --ringbuf-size N   job ring buffer, a power of two (default 1M)\n"
"  -d, --duration DUR     stop after DUR (10s, 2m, 1h)\n"
"  -j, --json             print JSON (schema hcbstrace/1) instead of text\n"
"  -q, --quiet            no progress messages\n"
"  -v, --verbose          print the libbpf log\n"
"  -h, --help             this help\n"
"\n"
"Examples:\n"
"  hcbstrace lateness -c vbbu1 -d 60s --csv vbbu1.csv\n"
"  hcbstrace lateness -p $(pidof l1app) --period 1ms --max-lateness 0\n"
"  hcbstrace lateness -g /sys/fs/cgroup/rt --json 10 6\n"
"  tools/probes/plot-lateness-cdf vbbu1.csv vbbu1.png\n";

/* Releases used to infer a period: 16 gaps. */
#define INFER_N		17
#define LBINS		40	/* -1.0 .. 1.0 in 0.05 steps, then "over" */

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
	double *lat;
	size_t nlat, caplat, istart;
	uint64_t jobs, misses, late, timer_rel, sum_r, max_r, unevaluated;
	uint64_t ijobs, imisses, ilate, imax_r;
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
	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].tid == e->tid && s->t[i].cgid == e->cgid)
			return &s->t[i];
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 32;
		struct thr *nt = realloc(s->t, nc * sizeof(*nt));

		if (!nt)
			return NULL;
		s->t = nt;
		s->cap = nc;
	}
	memset(&s->t[s->n], 0, sizeof(s->t[0]));
	s->t[s->n].tid = e->tid;
	s->t[s->n].pid = e->pid;
	s->t[s->n].cgid = e->cgid;
	return &s->t[s->n++];
}

static int push_lat(struct thr *t, double l)
{
	if (t->nlat == t->caplat) {
		size_t nc = t->caplat ? t->caplat * 2 : 256;
		double *nl = realloc(t->lat, nc * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		t->lat = nl;
		t->caplat = nc;
	}
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

	job_evaluate(e->release, e->start, e->end, t->period, D, &r);
	t->jobs++;
	t->ijobs++;
	t->misses += r.miss;
	t->imisses += r.miss;
	t->late += r.late_start;
	t->ilate += r.late_start;
	t->timer_rel += e->release_src == JOB_REL_TIMER;
	t->sum_r += r.response_ns;
	if (r.response_ns > t->max_r)
		t->max_r = r.response_ns;
	if (r.response_ns > t->imax_r)
		t->imax_r = r.response_ns;
	if (push_lat(t, r.lateness))
		s->err = -ENOMEM;
	if (s->csv) {
		char name[300];

		csv_field(name, sizeof(name), hcbs_cgroup_name(o, t->cgid));
		fprintf(s->csv, "%s,%llu,%u,%u,", name, (unsigned long long)t->cgid, e->pid, e->tid);
		csv_field(name, sizeof(name), t->comm);
		fprintf(s->csv, "%s,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.6f,%d,%d,%s,%llu,%u,%d,%llu\n",
			name, (unsigned long long)t->jobs,
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
			 (unsigned long long)t->jobs, hcbs_fmt_us(r.response_ns, a, sizeof(a)),
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
	if (t->npend == t->cappend) {
		size_t nc = t->cappend ? t->cappend * 2 : INFER_N;
		struct job_event *np = realloc(t->pend, nc * sizeof(*np));

		if (!np) {
			s->err = -ENOMEM;
			return -ENOMEM;
		}
		t->pend = np;
		t->cappend = nc;
	}
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

struct lcol {
	uint64_t cgid;
	const char *name;
	double *lat;
	size_t nlat;
	uint64_t jobs, misses, late, max_r, threads, bins[LBINS + 1];
};

static size_t build_cols(struct state *s, bool total, struct lcol **out)
{
	const struct hcbs_opts *o = s->o;
	struct lcol *c = calloc(s->n + (size_t)o->nr_cg + 1, sizeof(*c));
	size_t n = 0;

	if (!c)
		return 0;
	for (int i = 0; i < o->nr_cg; i++) {
		c[n].cgid = o->cg[i].id;
		c[n].name = o->cg[i].name;
		n++;
	}
	for (size_t i = 0; i < s->n; i++) {
		struct thr *t = &s->t[i];
		size_t j, from = total ? 0 : t->istart;

		for (j = 0; j < n && c[j].cgid != t->cgid; j++)
			;
		if (j == n) {
			c[n].cgid = t->cgid;
			c[n].name = hcbs_cgroup_name(o, t->cgid);
			n++;
		}
		c[j].threads++;
		c[j].jobs += total ? t->jobs : t->ijobs;
		c[j].misses += total ? t->misses : t->imisses;
		c[j].late += total ? t->late : t->ilate;
		if ((total ? t->max_r : t->imax_r) > c[j].max_r)
			c[j].max_r = total ? t->max_r : t->imax_r;
		if (t->nlat > from) {
			double *nl = realloc(c[j].lat, (c[j].nlat + t->nlat - from) * sizeof(*nl));

			if (nl) {
				memcpy(nl + c[j].nlat, t->lat + from, (t->nlat - from) * sizeof(*nl));
				c[j].lat = nl;
				c[j].nlat += t->nlat - from;
			}
		}
	}
	for (size_t j = 0; j < n; j++) {
		sort_doubles(c[j].lat, c[j].nlat);
		for (size_t k = 0; k < c[j].nlat; k++) {
			double l = c[j].lat[k];
			int b = l >= 1.0 ? LBINS : (int)floor((l + 1.0) / 0.05);

			c[j].bins[b < 0 ? 0 : b > LBINS ? LBINS : b]++;
		}
	}
	*out = c;
	return n;
}

static void free_cols(struct lcol *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(c[i].lat);
	free(c);
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

static void print_text(struct state *s, const struct hcbs_clock *clk, bool total,
		       const struct job_drops *d)
{
	const struct hcbs_opts *o = s->o;
	struct lcol *c = NULL;
	size_t n = build_cols(s, total, &c);
	int w = 10, lo = LBINS + 1, hi = -1;
	char buf[32];

	for (size_t i = 0; i < n; i++) {
		if ((int)strlen(c[i].name) > w)
			w = (int)strlen(c[i].name);
		for (int b = 0; b <= LBINS; b++)
			if (c[i].bins[b]) {
				lo = b < lo ? b : lo;
				hi = b > hi ? b : hi;
			}
	}
	hcbs_print_header(o, clk, total ? "normalized lateness l = (r - D) / T" :
			  "normalized lateness l = (r - D) / T (interval)");
	printf("# rows: l in steps of 0.05; l > 0 is a deadline miss\n");
	printf("%-12s", "l");
	for (size_t i = 0; i < n; i++)
		printf(" %*s", w, c[i].name);
	putchar('\n');
	for (int b = lo; b <= hi; b++) {
		char label[32];

		if (b == LBINS)
			snprintf(label, sizeof(label), "over:");
		else
			snprintf(label, sizeof(label), "%+.2f", -1.0 + 0.05 * b);
		printf("%-12s", label);
		for (size_t i = 0; i < n; i++)
			printf(" %*llu", w, (unsigned long long)c[i].bins[b]);
		putchar('\n');
	}
#define COUNT_ROW(label, field) do {					\
		printf("%-12s", label);						\
		for (size_t i = 0; i < n; i++)					\
			printf(" %*llu", w, (unsigned long long)c[i].field);	\
		putchar('\n');							\
	} while (0)
	COUNT_ROW("threads:", threads);
	COUNT_ROW("jobs:", jobs);
	COUNT_ROW("misses:", misses);
	COUNT_ROW("late-starts:", late);
	lat_row("l-min:", c, n, w, 0);
	lat_row("l-p50:", c, n, w, 0.5);
	lat_row("l-p90:", c, n, w, 0.9);
	lat_row("l-p99:", c, n, w, 0.99);
	lat_row("l-p99.9:", c, n, w, 0.999);
	lat_row("l-max:", c, n, w, 1.0);
	printf("%-12s", "r-max(us):");
	for (size_t i = 0; i < n; i++)
		printf(" %*s", w, c[i].jobs ? hcbs_fmt_us(c[i].max_r, buf, sizeof(buf)) : "-");
	putchar('\n');

	if (s->n) {
		printf("\n%-16s %8s %-16s %11s %9s %7s %7s %8s %8s %8s %11s\n", "CONTAINER", "TID",
		       "COMM", "PERIOD(us)", "JOBS", "MISSES", "LATE", "L-P50", "L-P99", "L-MAX",
		       "R-MAX(us)");
		for (size_t i = 0; i < s->n; i++) {
			struct thr *t = &s->t[i];
			size_t from = total ? 0 : t->istart, k = t->nlat - from;
			double *v = k ? malloc(k * sizeof(*v)) : NULL;
			char per[32];

			if (!(total ? t->jobs : t->ijobs) || !v) {
				free(v);
				continue;
			}
			memcpy(v, t->lat + from, k * sizeof(*v));
			sort_doubles(v, k);
			snprintf(per, sizeof(per), "%s%s", hcbs_fmt_us(t->period, buf, sizeof(buf)),
				 t->inferred ? "*" : "");
			printf("%-16s %8u %-16s %11s %9llu %7llu %7llu %8.3f %8.3f %8.3f %11s\n",
			       hcbs_cgroup_name(o, t->cgid), t->tid, t->comm, per,
			       (unsigned long long)(total ? t->jobs : t->ijobs),
			       (unsigned long long)(total ? t->misses : t->imisses),
			       (unsigned long long)(total ? t->late : t->ilate),
			       quantile_sorted(v, k, 0.5), quantile_sorted(v, k, 0.99), v[k - 1],
			       hcbs_fmt_us(total ? t->max_r : t->imax_r, buf, sizeof(buf)));
			free(v);
		}
		printf("# PERIOD with * is inferred (median time between releases)\n");
	}
	printf("# dropped: %llu jobs (ring buffer full), %llu jobs (events not seen), "
	       "%llu threads (state map full); %llu unseen wakeups recovered\n",
	       (unsigned long long)d->ringbuf_full, (unsigned long long)d->jobs_unseen,
	       (unsigned long long)d->threads_full, (unsigned long long)d->wakeups_missed);
	fflush(stdout);
	free_cols(c, n);
}

static void json_lateness(struct hcbs_json *j, const double *v, size_t n)
{
	static const struct { const char *k; double p; } q[] = {
		{ "min", 0 }, { "p50", 0.5 }, { "p90", 0.9 }, { "p99", 0.99 },
		{ "p999", 0.999 }, { "max", 1.0 },
	};

	hcbs_json_key(j, "lateness");
	hcbs_json_object_begin(j);
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		hcbs_json_key(j, q[i].k);
		if (n)
			hcbs_json_double(j, quantile_sorted(v, n, q[i].p));
		else
			hcbs_json_null(j);
	}
	hcbs_json_object_end(j);
}

static void print_json(struct state *s, const struct hcbs_clock *clk,
		       const struct job_drops *d, const char *reason)
{
	const struct hcbs_opts *o = s->o;
	struct hcbs_json *j = hcbs_json_new(stdout);
	struct lcol *c = NULL;
	size_t n = build_cols(s, true, &c);
	uint64_t unevaluated = 0;

	for (size_t i = 0; i < s->n; i++)
		unevaluated += s->t[i].unevaluated;
	hcbs_json_object_begin(j);
	hcbs_json_preamble(j, o, clk, reason, s->cause[0] ? s->cause : NULL);
	hcbs_json_key(j, "drops");
	hcbs_json_object_begin(j);
	hcbs_json_key(j, "ringbuf_full");
	hcbs_json_uint(j, d->ringbuf_full);
	hcbs_json_key(j, "threads_full");
	hcbs_json_uint(j, d->threads_full);
	hcbs_json_key(j, "jobs_unseen");
	hcbs_json_uint(j, d->jobs_unseen);
	hcbs_json_key(j, "wakeups_missed");
	hcbs_json_uint(j, d->wakeups_missed);
	hcbs_json_object_end(j);
	hcbs_json_key(j, "unevaluated_jobs");
	hcbs_json_uint(j, unevaluated);
	hcbs_json_key(j, "containers");
	hcbs_json_array_begin(j);
	for (size_t i = 0; i < n; i++) {
		hcbs_json_object_begin(j);
		hcbs_json_key(j, "name");
		hcbs_json_string(j, c[i].name);
		hcbs_json_key(j, "cgroup_id");
		hcbs_json_uint(j, c[i].cgid);
		hcbs_json_key(j, "threads");
		hcbs_json_uint(j, c[i].threads);
		hcbs_json_key(j, "jobs");
		hcbs_json_uint(j, c[i].jobs);
		hcbs_json_key(j, "misses");
		hcbs_json_uint(j, c[i].misses);
		hcbs_json_key(j, "late_starts");
		hcbs_json_uint(j, c[i].late);
		hcbs_json_key(j, "response_max_ns");
		hcbs_json_uint(j, c[i].max_r);
		json_lateness(j, c[i].lat, c[i].nlat);
		hcbs_json_object_end(j);
	}
	hcbs_json_array_end(j);
	hcbs_json_key(j, "threads");
	hcbs_json_array_begin(j);
	for (size_t i = 0; i < s->n; i++) {
		struct thr *t = &s->t[i];
		double *v = t->nlat ? malloc(t->nlat * sizeof(*v)) : NULL;

		if (v) {
			memcpy(v, t->lat, t->nlat * sizeof(*v));
			sort_doubles(v, t->nlat);
		}
		hcbs_json_object_begin(j);
		hcbs_json_key(j, "tid");
		hcbs_json_uint(j, t->tid);
		hcbs_json_key(j, "pid");
		hcbs_json_uint(j, t->pid);
		hcbs_json_key(j, "comm");
		hcbs_json_string(j, t->comm);
		hcbs_json_key(j, "container");
		hcbs_json_string(j, hcbs_cgroup_name(o, t->cgid));
		hcbs_json_key(j, "cgroup_id");
		hcbs_json_uint(j, t->cgid);
		hcbs_json_key(j, "period_ns");
		hcbs_json_uint(j, t->period);
		hcbs_json_key(j, "period_source");
		hcbs_json_string(j, t->inferred ? "inferred" : "given");
		hcbs_json_key(j, "deadline_ns");
		hcbs_json_uint(j, o->deadline_ns ? o->deadline_ns : t->period);
		hcbs_json_key(j, "jobs");
		hcbs_json_uint(j, t->jobs);
		hcbs_json_key(j, "misses");
		hcbs_json_uint(j, t->misses);
		hcbs_json_key(j, "late_starts");
		hcbs_json_uint(j, t->late);
		hcbs_json_key(j, "timer_releases");
		hcbs_json_uint(j, t->timer_rel);
		hcbs_json_key(j, "response_avg_ns");
		hcbs_json_uint(j, t->jobs ? t->sum_r / t->jobs : 0);
		hcbs_json_key(j, "response_max_ns");
		hcbs_json_uint(j, t->max_r);
		json_lateness(j, v, v ? t->nlat : 0);
		hcbs_json_object_end(j);
		free(v);
	}
	hcbs_json_array_end(j);
	hcbs_json_object_end(j);
	fputc('\n', stdout);
	hcbs_json_free(j);
	fflush(stdout);
	free_cols(c, n);
}

int cmd_lateness(int argc, char **argv)
{
	struct lateness_bpf *obj = NULL;
	struct ring_buffer *rb = NULL;
	struct hcbs_bpf bpf = {};
	struct state s = {};
	struct hcbs_clock clk;
	struct hcbs_opts o;
	const char *reason = "interrupted";
	int err, rc = EXIT_ERROR;

	if (hcbs_parse_opts(&o, "lateness", OPT_LATENESS | OPT_TASK_FILTER, help, argc, argv))
		return EXIT_ERROR;
	s.o = &o;
	if (hcbs_check_env(&o))
		return EXIT_ERROR;
	hcbs_setup_libbpf(&o);
	if (o.csv) {
		s.csv = fopen(o.csv, "we");
		if (!s.csv) {
			hcbs_err(&o, "--csv %s: %s", o.csv, strerror(errno));
			return EXIT_ERROR;
		}
		csv_header(s.csv);
	}

	obj = lateness_bpf__open();
	if (!obj) {
		hcbs_explain_bpf_error(&o, "opening the BPF object", errno);
		goto cleanup;
	}
	HCBS_SET_FILTERS(obj->rodata, &o);
	obj->rodata->all_policies = o.all_policies;
	if (o.ringbuf_size)
		bpf_map__set_max_entries(obj->maps.events, (uint32_t)o.ringbuf_size);

	if (hcbs_bpf_load(&bpf, &o, obj->skeleton))
		goto cleanup;
	rb = ring_buffer__new(bpf_map__fd(obj->maps.events), on_event, &s, NULL);
	if (!rb) {
		hcbs_explain_bpf_error(&o, "ring buffer", errno);
		goto cleanup;
	}

	hcbs_install_signals();
	hcbs_clock_start(&clk, &o);
	if (!o.quiet)
		fprintf(stderr, "hcbstrace: lateness: tracing (%s)... Ctrl-C to end\n",
			bpf.use_btf ? "tp_btf" : "raw_tp");
	rc = EXIT_OK;
	while (!hcbs_exiting) {
		err = ring_buffer__poll(rb, 100);
		if (err < 0 && err != -EINTR) {
			hcbs_err(&o, "polling the ring buffer: %s", strerror(-err));
			rc = EXIT_ERROR;
			break;
		}
		if (s.err) {
			hcbs_err(&o, "%s", strerror(-s.err));
			rc = EXIT_ERROR;
			break;
		}
		if (s.cause[0]) {
			reason = "threshold";
			rc = EXIT_THRESHOLD;
			break;
		}
		if (hcbs_clock_tick(&clk, &o)) {
			if (!o.json)
				print_text(&s, &clk, false, &obj->bss->drops);
			for (size_t i = 0; i < s.n; i++) {
				s.t[i].istart = s.t[i].nlat;
				s.t[i].ijobs = s.t[i].imisses = s.t[i].ilate = s.t[i].imax_r = 0;
			}
		}
		if (hcbs_clock_done(&clk, &o)) {
			reason = o.count && clk.ticks >= o.count ? "count" : "duration";
			break;
		}
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
