// SPDX-License-Identifier: GPL-2.0
/*
 * hcbstrace servers: what the HCBS servers of each cgroup do: budget used
 * per period, throttles, replenishments, from the hcbs kernel's
 * sched_hcbs_server_* tracepoints.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_setup.h"
#include "cgroups.h"
#include "opts.h"
#include "output.h"
#include "servers.h"
#include "servers.skel.h"
#include "subcommands.h"
#include "trace_clock.h"

/* --help: above the options, then (after \v) below them. */
static const char doc[] =
"HCBS server activity per cgroup, summed over its per-CPU servers: the\n"
"budget used per period (from the drop of the remaining runtime between\n"
"events, a period ending when the server's deadline moves), throttles\n"
"(budget exhausted), replenishments, starts and stops.  Needs the hcbs\n"
"kernel (tracepoints sched:sched_hcbs_server_*).\n"
"\v"
"Examples:\n"
"  hcbstrace servers -d 10s\n"
"  hcbstrace servers -c vbbu1 -c vbbu2 1s 10\n"
"  hcbstrace servers --json -d 30s > servers.json\n";

static const struct argp_option opts[] = {
	{ "container", 'c', "NAME", 0,
	  "only this LXC container and its sub-cgroups (repeatable)", 0 },
	HCBS_OPT_LXCPATH,
	{ "cgroup", 'g', "PATH", 0, "only this cgroup and its descendants (repeatable)", 0 },
	/* Taken, as it always was, and without effect: no column is folded. */
	{ "group-level", OPT_GROUP_LEVEL, "N", OPTION_HIDDEN, NULL, 0 },
	HCBS_OPT_COMMON
};


static const char *const tps[] = {
	"sched_hcbs_server_start", "sched_hcbs_server_stop",
	"sched_hcbs_server_replenish", "sched_hcbs_server_throttle",
};

struct srv {
	struct srv_key key;
	struct srv_stats cur;	/* last read */
	struct srv_stats prev;	/* at the last interval */
};

struct srv_table {
	struct srv *s;
	size_t n, cap;
};

static int read_servers(int fd, const struct hcbs_opts *o, struct srv_table *t)
{
	struct srv_key key, *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &key)) {
		struct srv_stats st;
		size_t i;

		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &st) || !hcbs_cgroup_selected(o, key.cgid))
			continue;
		for (i = 0; i < t->n; i++)
			if (t->s[i].key.cgid == key.cgid && t->s[i].key.cpu == key.cpu)
				break;
		if (i == t->n) {
			struct srv *ns = hcbs_grow(t->s, t->n, &t->cap, sizeof(*ns), 64);

			if (!ns)
				return -ENOMEM;
			t->s = ns;
			memset(&t->s[i], 0, sizeof(t->s[i]));
			t->s[i].key = key;
			t->n++;
		}
		t->s[i].cur = st;
	}
	return 0;
}

/* A cgroup's servers summed; with @delta, since the last interval. */
struct srv_sum {
	unsigned int cpus;
	uint64_t q, p, events[SRV_NR_EVENTS], used, periods, used_max;
	int64_t min_runtime;
	uint64_t hist[SRV_USE_BUCKETS];
};

/* One column (row of the table) per cgroup that has servers. */
static struct srv_sum *summarize(const struct hcbs_opts *o, const struct srv_table *t,
				 bool delta, struct hcbs_cols *cols)
{
	struct srv_sum *c = hcbs_cols_init(cols, o, t->n, false, sizeof(*c));

	for (size_t i = 0; c && i < t->n; i++) {
		const struct srv_stats *a = &t->s[i].cur, *b = &t->s[i].prev;
		struct srv_sum *x = &c[hcbs_cols_find(cols, o, t->s[i].key.cgid)];

		if (!x->cpus || a->min_runtime < x->min_runtime)
			x->min_runtime = a->min_runtime;
		x->cpus++;
		x->q = a->dl_runtime;
		x->p = a->dl_period;
		for (int e = 0; e < SRV_NR_EVENTS; e++)
			x->events[e] += a->events[e] - (delta ? b->events[e] : 0);
		x->used += a->used_ns - (delta ? b->used_ns : 0);
		x->periods += a->periods - (delta ? b->periods : 0);
		if (a->period_used_max > x->used_max)
			x->used_max = a->period_used_max;
		for (int h = 0; h < SRV_USE_BUCKETS; h++)
			x->hist[h] += a->use_hist[h] - (delta ? b->use_hist[h] : 0);
	}
	return c;
}

static void print_text(const struct hcbs_opts *o, const struct hcbs_clock *clk,
		       const struct srv_table *t, bool delta, uint64_t drops)
{
	struct hcbs_cols cols;
	struct srv_sum *c;
	char b[6][32];

	c = summarize(o, t, delta, &cols);
	if (!c)
		return;
	hcbs_print_header(o, clk, "HCBS servers", delta);
	printf("%-16s %4s %9s %9s %8s %11s %6s %11s %8s %8s %8s %8s %10s\n",
	       "CONTAINER", "CPUS", "Q(us)", "P(us)", "PERIODS", "USED/P(us)", "%Q",
	       "MAXUSED(us)", "THROTTLE", "REPLEN", "STARTS", "STOPS", "MINRT(us)");
	for (size_t i = 0; i < cols.n; i++) {
		struct srv_sum *x = &c[i];
		double avg = x->periods ? (double)x->used / (double)x->periods : 0;

		printf("%-16s %4u %9s %9s %8llu %11.1f %6.1f %11s %8llu %8llu %8llu %8llu %10.1f\n",
		       cols.c[i].name, x->cpus,
		       hcbs_fmt_us(x->q, b[0], 32), hcbs_fmt_us(x->p, b[1], 32),
		       (unsigned long long)x->periods, avg / 1000.0,
		       x->q ? 100.0 * avg / (double)x->q : 0.0,
		       hcbs_fmt_us(x->used_max, b[2], 32),
		       (unsigned long long)x->events[SRV_THROTTLE],
		       (unsigned long long)x->events[SRV_REPLENISH],
		       (unsigned long long)x->events[SRV_START],
		       (unsigned long long)x->events[SRV_STOP],
		       (double)x->min_runtime / 1000.0);
	}
	if (cols.n) {
		printf("\n# budget used per period, %% of Q: periods per bucket\n%-10s", "%Q");
		for (size_t i = 0; i < cols.n; i++)
			printf(" %12.12s", cols.c[i].name);
		putchar('\n');
		for (int h = 0; h < SRV_USE_BUCKETS; h++) {
			bool any = false;
			char label[16];

			for (size_t i = 0; i < cols.n; i++)
				any |= c[i].hist[h] != 0;
			if (!any)
				continue;
			if (h == SRV_USE_BUCKETS - 1)
				snprintf(label, sizeof(label), ">=100");
			else
				snprintf(label, sizeof(label), "%d-%d", h * 5, h * 5 + 5);
			hcbs_print_row(label, 10, 12, &c[0].hist[h], sizeof(c[0]), cols.n);
		}
	}
	printf("# dropped: %llu servers (map full)\n", (unsigned long long)drops);
	fflush(stdout);
	hcbs_cols_free(&cols);
}

static void json_server(struct hcbs_json *j, const struct srv_table *t, uint64_t cgid,
			const struct srv_sum *x)
{
	HCBS_JSON_U64S(j, { "cpus", x->cpus }, { "runtime_ns", x->q }, { "period_ns", x->p },
		       { "periods", x->periods }, { "used_ns", x->used },
		       { "used_per_period_avg_ns", x->periods ? x->used / x->periods : 0 },
		       { "used_per_period_max_ns", x->used_max });
	hcbs_json_key(j, "min_runtime_ns");
	hcbs_json_int(j, x->min_runtime);
	HCBS_JSON_U64S(j, { "starts", x->events[SRV_START] }, { "stops", x->events[SRV_STOP] },
		       { "replenishments", x->events[SRV_REPLENISH] },
		       { "throttles", x->events[SRV_THROTTLE] });
	hcbs_json_key(j, "used_pct_of_q_histogram");
	hcbs_json_array_begin(j);
	for (int h = 0; h < SRV_USE_BUCKETS; h++)
		hcbs_json_uint(j, x->hist[h]);
	hcbs_json_array_end(j);
	hcbs_json_key(j, "per_cpu");
	hcbs_json_array_begin(j);
	for (size_t k = 0; k < t->n; k++) {
		const struct srv_stats *s = &t->s[k].cur;

		if (t->s[k].key.cgid != cgid)
			continue;
		hcbs_json_object_begin(j);
		HCBS_JSON_U64S(j, { "cpu", t->s[k].key.cpu }, { "periods", s->periods },
			       { "used_ns", s->used_ns }, { "throttles", s->events[SRV_THROTTLE] },
			       { "replenishments", s->events[SRV_REPLENISH] });
		hcbs_json_object_end(j);
	}
	hcbs_json_array_end(j);
}

static void print_json(const struct hcbs_opts *o, const struct hcbs_clock *clk,
		       const struct srv_table *t, uint64_t drops, const char *reason)
{
	struct hcbs_cols cols;
	struct srv_sum *c = summarize(o, t, false, &cols);	/* no columns if NULL */
	struct hcbs_json *j = hcbs_json_begin(o, clk, reason, NULL);

	HCBS_JSON_DROPS(j, { "servers_full", drops });
	hcbs_json_key(j, "containers");
	hcbs_json_array_begin(j);
	for (size_t i = 0; i < cols.n; i++) {
		hcbs_json_object_begin(j);
		hcbs_json_cgroup(j, "name", cols.c[i].name, cols.c[i].cgid);
		json_server(j, t, cols.c[i].cgid, &c[i]);
		hcbs_json_object_end(j);
	}
	hcbs_json_array_end(j);
	hcbs_json_end(j);
	hcbs_cols_free(&cols);
}

int cmd_servers(int argc, char **argv)
{
	const char *reason = "interrupted";
	struct servers_bpf *obj = NULL;
	struct srv_table table = {};
	struct hcbs_bpf bpf = {};
	struct hcbs_clock clk;
	struct hcbs_opts o;
	int rc;

	rc = hcbs_setup(&o, "servers", opts, doc, argc, argv);
	if (rc)
		goto cleanup;
	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++)
		if (!hcbs_have_tracepoint(tps[i])) {
			hcbs_err(&o, "this kernel has no HCBS tracepoints (sched:%s is missing): boot the hcbs kernel",
				 tps[i]);
			rc = EXIT_NOHCBS;
			goto cleanup;
		}
	rc = EXIT_ERROR;

	obj = servers_bpf__open();
	if (hcbs_bpf_open_failed(&o, obj))
		goto cleanup;
	if (hcbs_bpf_load(&bpf, &o, obj->skeleton) || hcbs_bpf_attach(&bpf, &o, obj->skeleton))
		goto cleanup;

	hcbs_trace_start(&clk, &o, &bpf);
	rc = EXIT_OK;
	while (hcbs_trace_wait(&clk, &o, &reason, NULL) > 0) {
		if (hcbs_clock_tick(&clk, &o)) {
			if (read_servers(bpf_map__fd(obj->maps.servers), &o, &table)) {
				hcbs_err(&o, "%s", strerror(ENOMEM));
				rc = EXIT_ERROR;
				break;
			}
			if (!o.json)
				print_text(&o, &clk, &table, true, obj->bss->drops_servers_full);
			for (size_t i = 0; i < table.n; i++)
				table.s[i].prev = table.s[i].cur;
		}
	}
	read_servers(bpf_map__fd(obj->maps.servers), &o, &table);
	if (o.json)
		print_json(&o, &clk, &table, obj->bss->drops_servers_full, reason);
	else
		print_text(&o, &clk, &table, false, obj->bss->drops_servers_full);

cleanup:
	hcbs_bpf_detach(&bpf);
	servers_bpf__destroy(obj);
	free(table.s);
	hcbs_cgroup_names_free();
	return rc;
}
