// SPDX-License-Identifier: GPL-2.0
/* hcbstrace: the output's columns, text tables and JSON document. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "cgroups.h"
#include "output.h"

void *hcbs_cols_init(struct hcbs_cols *cols, const struct hcbs_opts *o, size_t extra,
		     bool filters, size_t size)
{
	cols->n = 0;
	cols->cap = (size_t)o->nr_cg + extra + 1;
	cols->c = calloc(cols->cap, sizeof(*cols->c));
	cols->data = calloc(cols->cap, size);
	if (!cols->c || !cols->data) {
		hcbs_cols_free(cols);
		return NULL;
	}
	for (int i = 0; filters && i < o->nr_cg; i++) {
		cols->c[cols->n].cgid = o->cg[i].id;
		cols->c[cols->n].name = o->cg[i].name;
		cols->n++;
	}
	return cols->data;
}

size_t hcbs_cols_find(struct hcbs_cols *cols, const struct hcbs_opts *o, uint64_t cgid)
{
	struct hcbs_col *c;

	for (size_t i = 0; i < cols->n; i++)
		if (cols->c[i].cgid == cgid)
			return i;
	if (cols->n == cols->cap)	/* more cgroups than the caller counted */
		abort();
	c = &cols->c[cols->n];
	c->cgid = cgid;
	c->name = hcbs_cgroup_known_name(o, cgid);
	if (!c->name)
		c->name = hcbs_cgroup_unknown_name(c->unknown, sizeof(c->unknown), cgid);
	return cols->n++;
}

void hcbs_cols_free(struct hcbs_cols *cols)
{
	free(cols->c);
	free(cols->data);
	cols->c = NULL;
	cols->data = NULL;
	cols->n = cols->cap = 0;
}

/* ---- output ---- */

char *hcbs_fmt_us(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f", (double)ns / 1000.0);
	return buf;
}

void hcbs_print_header(const struct hcbs_opts *o, const struct hcbs_clock *c,
		       const char *what, bool interval)
{
	char when[64];
	struct tm tm;
	time_t now = time(NULL);

	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	printf("# hcbstrace %s: %s%s\n", o->cmd, what, interval ? " (interval)" : "");
	printf("# %s, %.1f s traced\n", when,
	       (double)(hcbs_now_ns() - c->start_ns) / 1e9);
}

int hcbs_print_names(const char *label, int lw, const struct hcbs_cols *cols)
{
	int w = 10;

	for (size_t i = 0; i < cols->n; i++)
		if ((int)strlen(cols->c[i].name) > w)
			w = (int)strlen(cols->c[i].name);
	printf("%-*s", lw, label);
	for (size_t i = 0; i < cols->n; i++)
		printf(" %*s", w, cols->c[i].name);
	putchar('\n');
	return w;
}

void hcbs_print_row(const char *label, int lw, int w, const void *first, size_t stride,
		    size_t n)
{
	printf("%-*s", lw, label);
	for (size_t i = 0; i < n; i++) {
		const uint64_t *v = (const void *)((const char *)first + i * stride);

		printf(" %*llu", w, (unsigned long long)*v);
	}
	putchar('\n');
}

struct hcbs_json *hcbs_json_begin(const struct hcbs_opts *o, const struct hcbs_clock *c,
				  const char *stop_reason, const char *threshold_cause)
{
	struct hcbs_json *j = hcbs_json_new(stdout);
	char buf[4096], when[64];
	struct utsname u;
	struct tm tm;
	size_t off = 0;

	hcbs_json_object_begin(j);
	hcbs_json_key(j, "schema");
	hcbs_json_string(j, HCBSTRACE_SCHEMA);
	hcbs_json_key(j, "command");
	hcbs_json_string(j, o->cmd);
	for (int i = 0; i < o->argc && off < sizeof(buf); i++)
		off += snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? " " : "", o->argv[i]);
	hcbs_json_key(j, "cmdline");
	hcbs_json_string(j, buf);
	uname(&u);
	hcbs_json_key(j, "kernel");
	hcbs_json_string(j, u.release);
	gmtime_r(&c->start_wall, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	hcbs_json_key(j, "start_time");
	hcbs_json_string(j, when);
	hcbs_json_key(j, "duration_s");
	hcbs_json_double(j, (double)(hcbs_now_ns() - c->start_ns) / 1e9);
	hcbs_json_key(j, "stop_reason");
	hcbs_json_string(j, stop_reason);
	hcbs_json_key(j, "threshold");
	hcbs_json_string(j, threshold_cause);	/* null without one */
	hcbs_json_key(j, "cgroup_version");
	hcbs_json_int(j, o->cg_version);
	return j;
}

void hcbs_json_end(struct hcbs_json *j)
{
	hcbs_json_object_end(j);
	fputc('\n', stdout);
	hcbs_json_free(j);
	fflush(stdout);
}

void hcbs_json_cgroup(struct hcbs_json *j, const char *key, const char *name,
		      uint64_t cgid)
{
	hcbs_json_key(j, key);
	hcbs_json_string(j, name);
	hcbs_json_key(j, "cgroup_id");
	hcbs_json_uint(j, cgid);
}

void hcbs_json_u64s(struct hcbs_json *j, const struct hcbs_json_u64 *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		hcbs_json_key(j, m[i].key);
		hcbs_json_uint(j, m[i].v);
	}
}
