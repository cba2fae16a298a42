// SPDX-License-Identifier: GPL-2.0
/* hcbstrace latency: wakeup-to-run latency histograms per container/thread. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_setup.h"
#include "cgroups.h"
#include "latency.h"
#include "latency.skel.h"
#include "opts.h"
#include "output.h"
#include "stats.h"
#include "subcommands.h"
#include "trace_clock.h"

/* --help: above the options, then (after \v) below them. */
static const char doc[] =
"Wakeup-to-run latency: from the moment a task is woken (or preempted\n"
"while runnable) until it runs, as histograms per container (cgroup) and,\n"
"with --threads, per thread, with p50, p90, p99, p99.9 and max.\n"
"\v"
"interval is a duration (1s, 500ms, 1m): print and reset every interval.\n"
"Percentiles are exact to the histogram slot width (6.25%).\n"
"\n"
"Examples:\n"
"  hcbstrace latency -d 10s                 # all tasks, per top-level cgroup\n"
"  hcbstrace latency -c vbbu1 -c vbbu2 1s   # two containers, every second\n"
"  hcbstrace latency -g /sys/fs/cgroup/rt -T --json -d 30s\n"
"  hcbstrace latency -c vbbu1 --max-latency 500us\n";

static const struct argp_option opts[] = {
	HCBS_OPT_TASK_FILTERS("tasks"),
	HCBS_OPT_GROUP_LEVEL("default 1: top-level cgroups; -1: none"),
	{ "threads", 'T', NULL, 0, "also per thread", 0 },
	{ "max-latency", OPT_MAX_LATENCY, "DUR", 0,
	  "stop, exit 2, when a latency exceeds DUR (500us)", 0 },
	HCBS_OPT_COMMON
};


struct lat_entry {
	struct hcbs_key key;
	char comm[HCBS_COMM_LEN];
	struct uhist total;
	struct uhist interval;
};

struct lat_table {
	struct lat_entry *e;
	size_t n, cap;
};

static struct lat_entry *lat_find(struct lat_table *t, const struct hcbs_key *k)
{
	struct lat_entry *ne;

	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].key.cgid == k->cgid && t->e[i].key.tid == k->tid)
			return &t->e[i];
	ne = hcbs_grow(t->e, t->n, &t->cap, sizeof(*ne), 64);
	if (!ne)
		return NULL;
	t->e = ne;
	memset(&t->e[t->n], 0, sizeof(t->e[0]));
	t->e[t->n].key = *k;
	return &t->e[t->n++];
}

/* The histogram map in use: one value per key, or one per CPU. */
struct lat_hists {
	int fd;
	size_t ncopies;
	struct hcbs_hist *h;	/* ncopies of them */
};

_Static_assert(sizeof(struct hcbs_hist) % 8 == 0,
	       "per-CPU values are 8-byte aligned: hcbs_hist must be a multiple of 8");

/* Move the BPF histograms into @t. */
static int drain(const struct lat_hists *m, struct lat_table *t)
{
	struct hcbs_key key, next;
	void *prev = NULL;

	while (!bpf_map_get_next_key(m->fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_and_delete_elem(m->fd, &key, m->h)) {
			if (bpf_map_lookup_elem(m->fd, &key, m->h))
				continue;
			bpf_map_delete_elem(m->fd, &key);
		}
		struct lat_entry *e = lat_find(t, &key);
		struct uhist sum = {};

		if (!e)
			return -ENOMEM;
		/* Sum the CPUs' copies once, then count it in both. */
		uhist_add_copies(&sum, e->comm, m->h, m->ncopies);
		uhist_merge(&e->interval, &sum);
		uhist_merge(&e->total, &sum);
		/* the key is gone: restart the walk */
		prev = NULL;
	}
	return 0;
}

/* Columns: one per container, with its threads' histograms summed. */
static struct uhist *build_columns(const struct hcbs_opts *o, const struct lat_table *t,
				   bool total, struct hcbs_cols *cols)
{
	struct uhist *h = hcbs_cols_init(cols, o, t->n, true, sizeof(*h));

	for (size_t i = 0; h && i < t->n; i++)
		uhist_merge(&h[hcbs_cols_find(cols, o, t->e[i].key.cgid)],
			    total ? &t->e[i].total : &t->e[i].interval);
	return h;
}

#define NROWS 40

static unsigned int us_row(uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned int r = 0;

	while (us > 1 && r < NROWS - 1) {
		us >>= 1;
		r++;
	}
	return r;
}

static void print_stat_row(const char *label, const struct uhist *h, size_t n, int w,
			   double p)
{
	char buf[32];

	printf("%-14s", label);
	for (size_t i = 0; i < n; i++) {
		uint64_t v;

		if (!h[i].count) {
			printf(" %*s", w, "-");
			continue;
		}
		if (p < 0)
			v = p == -1 ? h[i].min_ns : p == -2 ? h[i].max_ns : h[i].sum_ns / h[i].count;
		else
			v = uhist_percentile(&h[i], p);
		printf(" %*s", w, hcbs_fmt_us(v, buf, sizeof(buf)));
	}
	putchar('\n');
}

static void print_threads(const struct hcbs_opts *o, const struct lat_table *t, bool total)
{
	char b[8][32];

	printf("\n%-16s %8s %-16s %9s %9s %9s %9s %9s %9s %9s\n", "CONTAINER", "TID",
	       "COMM", "COUNT", "MIN", "AVG", "P50", "P99", "P99.9", "MAX");
	for (size_t i = 0; i < t->n; i++) {
		const struct lat_entry *e = &t->e[i];
		const struct uhist *h = total ? &e->total : &e->interval;

		if (!h->count)
			continue;
		printf("%-16s %8u %-16s %9llu %9s %9s %9s %9s %9s %9s\n",
		       hcbs_cgroup_name(o, e->key.cgid), e->key.tid, e->comm,
		       (unsigned long long)h->count,
		       hcbs_fmt_us(h->min_ns, b[0], 32),
		       hcbs_fmt_us(h->sum_ns / h->count, b[1], 32),
		       hcbs_fmt_us(uhist_percentile(h, 0.5), b[2], 32),
		       hcbs_fmt_us(uhist_percentile(h, 0.99), b[3], 32),
		       hcbs_fmt_us(uhist_percentile(h, 0.999), b[4], 32),
		       hcbs_fmt_us(h->max_ns, b[5], 32));
	}
}

static void print_text(const struct hcbs_opts *o, const struct hcbs_clock *clk,
		       const struct lat_table *t, bool total, const struct lat_drops *d)
{
	struct hcbs_cols cols;
	struct uhist *h;
	uint64_t (*rows)[NROWS];
	int w, lo = NROWS, hi = -1;
	char label[32];

	h = build_columns(o, t, total, &cols);
	if (!h)
		return;
	rows = calloc(cols.n ? cols.n : 1, sizeof(*rows));
	if (!rows)
		goto out;
	for (size_t i = 0; i < cols.n; i++)
		for (unsigned int s = 0; s < HCBS_NSLOTS; s++) {
			uint64_t mid;
			unsigned int r;

			if (!h[i].slots[s])
				continue;
			mid = s < HCBS_SUB ? s : hist_slot_lower(s) / 2 + hist_slot_upper(s) / 2;
			if (s == HCBS_NSLOTS - 1)
				mid = hist_slot_lower(s);
			r = us_row(mid);
			rows[i][r] += h[i].slots[s];
			if ((int)r < lo)
				lo = (int)r;
			if ((int)r > hi)
				hi = (int)r;
		}

	hcbs_print_header(o, clk, "wakeup-to-run latency", !total);
	printf("# Time unit is microseconds (us); log2 rows\n");
	w = hcbs_print_names("us", 14, &cols);
	for (int r = lo; r <= hi; r++) {
		uint64_t a = r ? 1ull << r : 0, b = (2ull << r) - 1;

		snprintf(label, sizeof(label), "%llu-%llu", (unsigned long long)a,
			 (unsigned long long)b);
		hcbs_print_row(label, 14, w, &rows[0][r], sizeof(rows[0]), cols.n);
	}
	hcbs_print_row("count:", 14, w, &h[0].count, sizeof(h[0]), cols.n);
	print_stat_row("min:", h, cols.n, w, -1);
	print_stat_row("avg:", h, cols.n, w, -3);
	print_stat_row("p50:", h, cols.n, w, 0.50);
	print_stat_row("p90:", h, cols.n, w, 0.90);
	print_stat_row("p99:", h, cols.n, w, 0.99);
	print_stat_row("p99.9:", h, cols.n, w, 0.999);
	print_stat_row("max:", h, cols.n, w, -2);
	if (o->threads && t->n)
		print_threads(o, t, total);
	printf("# dropped: %llu wakeups (pending map full), %llu samples (histogram map full)\n",
	       (unsigned long long)d->pending_full, (unsigned long long)d->hists_full);
	fflush(stdout);
	free(rows);
out:
	hcbs_cols_free(&cols);
}

static void json_hist(struct hcbs_json *j, const struct uhist *h)
{
	HCBS_JSON_U64S(j, { "count", h->count }, { "min_ns", h->min_ns },
		       { "avg_ns", h->count ? h->sum_ns / h->count : 0 },
		       { "p50_ns", uhist_percentile(h, 0.50) },
		       { "p90_ns", uhist_percentile(h, 0.90) },
		       { "p99_ns", uhist_percentile(h, 0.99) },
		       { "p999_ns", uhist_percentile(h, 0.999) }, { "max_ns", h->max_ns });
	hcbs_json_key(j, "histogram");
	hcbs_json_array_begin(j);
	for (unsigned int s = 0; s < HCBS_NSLOTS; s++) {
		if (!h->slots[s])
			continue;
		hcbs_json_array_begin(j);
		hcbs_json_uint(j, hist_slot_lower(s));
		if (s == HCBS_NSLOTS - 1)
			hcbs_json_null(j);
		else
			hcbs_json_uint(j, hist_slot_upper(s));
		hcbs_json_uint(j, h->slots[s]);
		hcbs_json_array_end(j);
	}
	hcbs_json_array_end(j);
}

static void print_json(const struct hcbs_opts *o, const struct hcbs_clock *clk,
		       const struct lat_table *t, const struct lat_drops *d,
		       const char *reason, const char *cause)
{
	struct hcbs_cols cols;
	struct uhist *h = build_columns(o, t, true, &cols);	/* no columns if NULL */
	struct hcbs_json *j = hcbs_json_begin(o, clk, reason, cause);

	hcbs_json_key(j, "unit");
	hcbs_json_string(j, "ns");
	HCBS_JSON_DROPS(j, { "pending_full", d->pending_full }, { "hists_full", d->hists_full });
	hcbs_json_key(j, "containers");
	hcbs_json_array_begin(j);
	for (size_t i = 0; i < cols.n; i++) {
		hcbs_json_object_begin(j);
		hcbs_json_cgroup(j, "name", cols.c[i].name, cols.c[i].cgid);
		json_hist(j, &h[i]);
		hcbs_json_object_end(j);
	}
	hcbs_json_array_end(j);
	hcbs_json_key(j, "threads");
	hcbs_json_array_begin(j);
	for (size_t i = 0; o->threads && i < t->n; i++) {
		hcbs_json_object_begin(j);
		hcbs_json_key(j, "tid");
		hcbs_json_uint(j, t->e[i].key.tid);
		hcbs_json_key(j, "comm");
		hcbs_json_string(j, t->e[i].comm);
		hcbs_json_cgroup(j, "container", hcbs_cgroup_name(o, t->e[i].key.cgid),
				 t->e[i].key.cgid);
		json_hist(j, &t->e[i].total);
		hcbs_json_object_end(j);
	}
	hcbs_json_array_end(j);
	hcbs_json_end(j);
	hcbs_cols_free(&cols);
}

int cmd_latency(int argc, char **argv)
{
	struct lat_hists hists = { .ncopies = 1 };
	const char *reason = "interrupted";
	struct latency_bpf *obj = NULL;
	struct lat_table table = {};
	struct hcbs_bpf bpf = {};
	struct hcbs_clock clk;
	char cause[256] = "";
	struct hcbs_opts o;
	int ncpus, rc;

	rc = hcbs_setup(&o, "latency", opts, doc, argc, argv);
	if (rc)
		goto cleanup;
	rc = EXIT_ERROR;

	obj = latency_bpf__open();
	if (hcbs_bpf_open_failed(&o, obj))
		goto cleanup;
	HCBS_SET_FILTERS(obj->rodata, &o);
	obj->rodata->per_thread = o.threads;
	obj->rodata->max_latency_ns = o.max_latency_ns;
	/* Only one of the two histogram maps is used: the other gets one entry. */
	if (o.threads) {
		bpf_map__set_max_entries(obj->maps.hists, 1);
	} else {
		bpf_map__set_max_entries(obj->maps.thread_hists, 1);
		ncpus = libbpf_num_possible_cpus();
		if (ncpus < 1) {
			hcbs_err(&o, "cannot count the possible CPUs: %s", strerror(-ncpus));
			goto cleanup;
		}
		hists.ncopies = ncpus;
	}
	hists.h = calloc(hists.ncopies, sizeof(*hists.h));
	if (!hists.h) {
		hcbs_err(&o, "%s", strerror(ENOMEM));
		goto cleanup;
	}
	if (hcbs_bpf_load(&bpf, &o, obj->skeleton) || hcbs_bpf_attach(&bpf, &o, obj->skeleton))
		goto cleanup;
	hists.fd = bpf_map__fd(o.threads ? obj->maps.thread_hists : obj->maps.hists);

	hcbs_trace_start(&clk, &o, &bpf);
	rc = EXIT_OK;
	while (hcbs_trace_wait(&clk, &o, &reason, NULL) > 0) {
		if (obj->bss->breach.ns) {
			const struct lat_breach *b = &obj->bss->breach;
			char a[32], m[32];

			snprintf(cause, sizeof(cause),
				 "latency %sus > --max-latency %s: tid %u (%.16s) in %s",
				 hcbs_fmt_us(b->ns, a, sizeof(a)),
				 hcbs_format_duration(o.max_latency_ns, m, sizeof(m)), b->tid, b->comm,
				 hcbs_cgroup_name(&o, b->cgid));
			reason = "threshold";
			rc = EXIT_THRESHOLD;
			break;
		}
		if (hcbs_clock_tick(&clk, &o)) {
			if (drain(&hists, &table))
				break;
			if (!o.json)
				print_text(&o, &clk, &table, false, &obj->bss->drops);
			for (size_t i = 0; i < table.n; i++)
				memset(&table.e[i].interval, 0, sizeof(table.e[i].interval));
		}
	}
	drain(&hists, &table);
	if (o.json)
		print_json(&o, &clk, &table, &obj->bss->drops, reason, cause[0] ? cause : NULL);
	else
		print_text(&o, &clk, &table, true, &obj->bss->drops);
	if (cause[0])
		hcbs_err(&o, "%s", cause);

cleanup:
	hcbs_bpf_detach(&bpf);
	latency_bpf__destroy(obj);
	free(table.e);
	free(hists.h);
	hcbs_cgroup_names_free();
	return rc;
}
