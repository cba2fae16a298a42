// SPDX-License-Identifier: GPL-2.0
/*
 * hcbstrace servers: what the HCBS servers of each cgroup do: budget used
 * per period, throttles, replenishments, from the hcbs kernel's
 * sched_hcbs_server_* tracepoints.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common.h"
#include "servers.h"
#include "servers.skel.h"
#include "stats.h"
#include "subcommands.h"

static const char help[] =
"Usage: hcbstrace servers [options] [interval [count]]\n"
"\n"
"HCBS server activity per cgroup, summed over its per-CPU servers: the\n"
"budget used per period (from the drop of the remaining runtime between\n"
"events, a period ending when the server's deadline moves), throttles\n"
"(budget exhausted), replenishments, starts and stops.  Needs the hcbs\n"
"kernel (tracepoints sched:sched_hcbs_server_*).\n"
"\n"
"Options:\n"
"  -c, --container NAME   only this LXC container and its sub-cgroups (repeatable)\n"
"  -P, --lxcpath PATH     LXC path for --container\n"
"  -g, --cgroup PATH      only this cgroup and its descendants (repeatable)\n"
"  -d, --duration DUR     stop after DUR (10s, 2m, 1h)\n"
"  -j, --json             print JSON (schema hcbstrace/1) instead of text\n"
"  -q, --quiet            no progress messages\n"
"  -v, --verbose          print the libbpf log\n"
"  -h, --help             this help\n"
"\n"
"Examples:\n"
"  hcbstrace servers -d 10s\n"
"  hcbstrace servers -c vbbu1 -c vbbu2 1 10\n"
"  hcbstrace servers --json -d 30s > servers.json\n";

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

/*
 * Is cgroup @id one of the filters or below one?  By path too: a cgroup
 * made anew where a filter's was (a restarted container) has another id.
 */
static bool selected(const struct hcbs_opts *o, uint64_t id)
{
	char path[2 * PATH_MAX + 2];
	const char *rel;

	if (!o->nr_cg)
		return true;
	for (int i = 0; i < o->nr_cg; i++)
		if (o->cg[i].id == id)
			return true;
	rel = hcbs_cgroup_path(o, id);
	if (!rel)
		return false;
	snprintf(path, sizeof(path), "%s/%s", o->cg_mount, rel);
	for (int i = 0; i < o->nr_cg; i++)
		if (path_within(path, o->cg[i].path))
			return true;
	return false;
}

static int read_servers(int fd, const struct hcbs_opts *o, struct srv_table *t)
{
	struct srv_key key, *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &key)) {
		struct srv_stats st;
		size_t i;

		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &st) || !selected(o, key.cgid))
			continue;
		for (i = 0; i < t->n; i++)
			if (t->s[i].key.cgid == key.cgid && t->s[i].key.cpu == key.cpu)
				break;
		if (i == t->n) {
			if (t->n == t->cap) {
				size_t nc = t->cap ? t->cap * 2 : 64;
				struct srv *ns = realloc(t->s, nc * sizeof(*ns));

				if (!ns)
					return -ENOMEM;
				t->s = ns;
				t->cap = nc;
			}
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
	uint64_t cgid;
	unsigned int cpus;
	uint64_t q, p, events[SRV_NR_EVENTS], used, periods, used_max;
	int64_t min_runtime;
	uint64_t hist[SRV_USE_BUCKETS];
};

static size_t summarize(const struct srv_table *t, bool delta, struct srv_sum **out)
{
	struct srv_sum *c = calloc(t->n + 1, sizeof(*c));
	size_t n = 0;

	if (!c)
		return 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct srv_stats *a = &t->s[i].cur, *b = &t->s[i].prev;
		struct srv_sum *x;
		size_t j;

		for (j = 0; j < n && c[j].cgid != t->s[i].key.cgid; j++)
			;
		x = &c[j];
		if (j == n) {
			x->cgid = t->s[i].key.cgid;
			x->min_runtime = a->min_runtime;
			n++;
		}
		x->cpus++;
		x->q = a->dl_runtime;
		x->p = a->dl_period;
		for (int e = 0; e < SRV_NR_EVENTS; e++)
			x->events[e] += a->events[e] - (delta ? b->events[e] : 0);
		x->used += a->used_ns - (delta ? b->used_ns : 0);
		x->periods += a->periods - (delta ? b->periods : 0);
		if (a->period_used_max > x->used_max)
			x->used_max = a->period_used_max;
		if (a->min_runtime < x->min_runtime)
			x->min_runtime = a->min_runtime;
		for (int h = 0; h < SRV_USE_BUCKETS; h++)
			x->hist[h] += a->use_hist[h] - (delta ? b->use_hist[h] : 0);
	}
	*out = c;
	return n;
}

static void print_text(const struct hcbs_opts *o, const struct hcbs_clock *clk,
		       const struct srv_table *t, bool delta, uint64_t drops)
{
	struct srv_sum *c = NULL;
	size_t n = summarize(t, delta, &c);
	char b[6][32];

	hcbs_print_header(o, clk, delta ? "HCBS servers (interval)" : "HCBS servers");
	printf("%-16s %4s %9s %9s %8s %11s %6s %11s %8s %8s %8s %8s %10s\n",
	       "CONTAINER", "CPUS", "Q(us)", "P(us)", "PERIODS", "USED/P(us)", "%Q",
	       "MAXUSED(us)", "THROTTLE", "REPLEN", "STARTS", "STOPS", "MINRT(us)");
	for (size_t i = 0; i < n; i++) {
		struct srv_sum *x = &c[i];
		double avg = x->periods ? (double)x->used / (double)x->periods : 0;

		printf("%-16s %4u %9s %9s %8llu %11.1f %6.1f %11s %8llu %8llu %8llu %8llu %10.1f\n",
		       hcbs_cgroup_name(o, x->cgid), x->cpus,
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
	if (n) {
		printf("\n# budget used per period, %% of Q: periods per bucket\n%-10s", "%Q");
		for (size_t i = 0; i < n; i++)
			printf(" %12.12s", hcbs_cgroup_name(o, c[i].cgid));
		putchar('\n');
		for (int h = 0; h < SRV_USE_BUCKETS; h++) {
			bool any = false;
			char label[16];

			for (size_t i = 0; i < n; i++)
				any |= c[i].hist[h] != 0;
			if (!any)
				continue;
			if (h == SRV_USE_BUCKETS - 1)
				snprintf(label, sizeof(label), ">=100");
			else
				snprintf(label, sizeof(label), "%d-%d", h * 5, h * 5 + 5);
			printf("%-10s", label);
			for (size_t i = 0; i < n; i++)
				printf(" %12llu", (unsigned long long)c[i].hist[h]);
			putchar('\n');
		}
	}
	printf("# dropped: %llu servers (map full)\n", (unsigned long long)drops);
	fflush(stdout);
	free(c);
}

static void print_json(const struct hcbs_opts *o, const struct hcbs_clock *clk,
		       const struct srv_table *t, uint64_t drops, const char *reason)
{
	struct hcbs_json *j = hcbs_json_new(stdout);
	struct srv_sum *c = NULL;
	size_t n = summarize(t, false, &c);

	hcbs_json_object_begin(j);
	hcbs_json_preamble(j, o, clk, reason, NULL);
	hcbs_json_key(j, "drops");
	hcbs_json_object_begin(j);
	hcbs_json_key(j, "servers_full");
	hcbs_json_uint(j, drops);
	hcbs_json_object_end(j);
	hcbs_json_key(j, "containers");
	hcbs_json_array_begin(j);
	for (size_t i = 0; i < n; i++) {
		struct srv_sum *x = &c[i];

		hcbs_json_object_begin(j);
		hcbs_json_key(j, "name");
		hcbs_json_string(j, hcbs_cgroup_name(o, x->cgid));
		hcbs_json_key(j, "cgroup_id");
		hcbs_json_uint(j, x->cgid);
		hcbs_json_key(j, "cpus");
		hcbs_json_uint(j, x->cpus);
		hcbs_json_key(j, "runtime_ns");
		hcbs_json_uint(j, x->q);
		hcbs_json_key(j, "period_ns");
		hcbs_json_uint(j, x->p);
		hcbs_json_key(j, "periods");
		hcbs_json_uint(j, x->periods);
		hcbs_json_key(j, "used_ns");
		hcbs_json_uint(j, x->used);
		hcbs_json_key(j, "used_per_period_avg_ns");
		hcbs_json_uint(j, x->periods ? x->used / x->periods : 0);
		hcbs_json_key(j, "used_per_period_max_ns");
		hcbs_json_uint(j, x->used_max);
		hcbs_json_key(j, "min_runtime_ns");
		hcbs_json_int(j, x->min_runtime);
		hcbs_json_key(j, "starts");
		hcbs_json_uint(j, x->events[SRV_START]);
		hcbs_json_key(j, "stops");
		hcbs_json_uint(j, x->events[SRV_STOP]);
		hcbs_json_key(j, "replenishments");
		hcbs_json_uint(j, x->events[SRV_REPLENISH]);
		hcbs_json_key(j, "throttles");
		hcbs_json_uint(j, x->events[SRV_THROTTLE]);
		hcbs_json_key(j, "used_pct_of_q_histogram");
		hcbs_json_array_begin(j);
		for (int h = 0; h < SRV_USE_BUCKETS; h++)
			hcbs_json_uint(j, x->hist[h]);
		hcbs_json_array_end(j);
		hcbs_json_key(j, "per_cpu");
		hcbs_json_array_begin(j);
		for (size_t k = 0; k < t->n; k++) {
			const struct srv_stats *s = &t->s[k].cur;

			if (t->s[k].key.cgid != x->cgid)
				continue;
			hcbs_json_object_begin(j);
			hcbs_json_key(j, "cpu");
			hcbs_json_uint(j, t->s[k].key.cpu);
			hcbs_json_key(j, "periods");
			hcbs_json_uint(j, s->periods);
			hcbs_json_key(j, "used_ns");
			hcbs_json_uint(j, s->used_ns);
			hcbs_json_key(j, "throttles");
			hcbs_json_uint(j, s->events[SRV_THROTTLE]);
			hcbs_json_key(j, "replenishments");
			hcbs_json_uint(j, s->events[SRV_REPLENISH]);
			hcbs_json_object_end(j);
		}
		hcbs_json_array_end(j);
		hcbs_json_object_end(j);
	}
	hcbs_json_array_end(j);
	hcbs_json_object_end(j);
	fputc('\n', stdout);
	hcbs_json_free(j);
	fflush(stdout);
	free(c);
}

int cmd_servers(int argc, char **argv)
{
	struct servers_bpf *obj = NULL;
	struct hcbs_bpf bpf = {};
	struct srv_table table = {};
	struct hcbs_clock clk;
	struct hcbs_opts o;
	const char *reason = "interrupted";
	int rc = EXIT_ERROR;

	if (hcbs_parse_opts(&o, "servers", 0, help, argc, argv))
		return EXIT_ERROR;
	if (hcbs_check_env(&o))
		return EXIT_ERROR;
	for (int i = 0; i < 4; i++)
		if (!hcbs_have_tracepoint(tps[i])) {
			hcbs_err(&o, "this kernel has no HCBS tracepoints (sched:%s is missing): boot the hcbs kernel",
				 tps[i]);
			return EXIT_ERROR;
		}
	hcbs_setup_libbpf(&o);

	obj = servers_bpf__open();
	if (!obj) {
		hcbs_explain_bpf_error(&o, "opening the BPF object", errno);
		return EXIT_ERROR;
	}
	if (hcbs_bpf_load(&bpf, &o, obj->skeleton))
		goto cleanup;

	hcbs_install_signals();
	hcbs_clock_start(&clk, &o);
	if (!o.quiet)
		fprintf(stderr, "hcbstrace: servers: tracing (%s)... Ctrl-C to end\n",
			bpf.use_btf ? "tp_btf" : "raw_tp");
	rc = EXIT_OK;
	while (!hcbs_exiting) {
		usleep(100000);
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
		if (hcbs_clock_done(&clk, &o)) {
			reason = o.count && clk.ticks >= o.count ? "count" : "duration";
			break;
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
