// SPDX-License-Identifier: GPL-2.0
/* hcbsctl set / unset: give a container or cgroup a reservation, or drop it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcbsctl.h"

/*
 * Below this runtime a reservation is accepted but not exact per period: the
 * kernel arms the budget's hrtick at least 10us ahead (hrtick_start()) and
 * it fires with the timer interrupt's latency, so a period can overrun by
 * 10us or more; CBS pays an overrun back in the next periods, so the share
 * over many periods stays Q/P.
 */
#define HCBS_EXACT_RUNTIME_MIN_US 50

/* What set --taskset found, for the JSON document. */
struct from_taskset {
	const struct hcbs_rt *rt;
	const struct hcbs_overhead_measurement *m;	/* --overhead auto */
};

static int print_json(const struct opts *o, const struct target *t, const struct hcbs_rt *to,
		      const struct from_taskset *ts)
{
	struct hcbs_json *j = json_open();
	bool top = hcbs_cgroup_is_top(t->path);
	char cpus[256];
	int n = reservation_cpus(top ? NULL : t->path, cpus, sizeof(cpus));

	if (!j)
		return HCBS_EXIT_SYSTEM;
	hcbs_json_object_begin(j);
	json_header(j, o->cmd);
	hcbs_json_key(j, "name");
	hcbs_json_string(j, o->cgroup ? NULL : t->label);
	hcbs_json_key(j, "cgroup");
	hcbs_json_string(j, t->path);
	hcbs_json_key(j, "root_share");
	hcbs_json_bool(j, top);
	hcbs_json_key(j, "reservation");
	json_reservation(j, to, n, cpus);
	hcbs_json_key(j, "taskset");
	if (ts) {
		hcbs_json_object_begin(j);
		hcbs_json_key(j, "file");
		hcbs_json_string(j, o->taskset);
		hcbs_json_key(j, "runtime_ns");
		hcbs_json_uint(j, ts->rt->runtime_us * 1000);
		hcbs_json_key(j, "period_ns");
		hcbs_json_uint(j, ts->rt->period_us * 1000);
		hcbs_json_key(j, "overhead");
		hcbs_json_string(j, o->overhead);
		hcbs_json_key(j, "measurement");
		if (ts->m)
			json_overhead_measurement(j, ts->m);
		else
			hcbs_json_null(j);
		hcbs_json_object_end(j);
	} else {
		hcbs_json_null(j);
	}
	hcbs_json_object_end(j);
	return json_close(j);
}

static void print_text(const struct target *t, const struct hcbs_rt *to)
{
	char buf[64];

	if (hcbs_cgroup_is_top(t->path)) {
		int n = hcbs_online_cpus(NULL, 0);

		if (to->runtime_us == HCBS_RT_MAX)
			printf("%s: max (the root group's share is not set: top-level groups take from the global limit)\n",
			       t->label);
		else
			printf("%s: %s (the root group's share: %.3f CPU kept for the RT groups on each of %d CPUs)\n",
			       t->label, fmt_rt(to, buf, sizeof(buf)), hcbs_rt_bw(to), n);
	} else if (to->runtime_us == HCBS_RT_MAX) {
		printf("%s: max (no own reservation)\n", t->label);
	} else {
		char cpus[256];
		int n = reservation_cpus(t->path, cpus, sizeof(cpus));

		printf("%s: %s (%.3f CPU on each of %d CPUs (%s), %.3f in total)\n", t->label,
		       fmt_rt(to, buf, sizeof(buf)), hcbs_rt_bw(to), n, cpus,
		       hcbs_rt_bw(to) * n);
	}
}

static int apply(struct opts *o, const char *label, const struct hcbs_rt *to,
		 const struct from_taskset *ts)
{
	char err[8192], warn[HCBS_ERRLEN];
	struct target t;
	int ret;

	ret = resolve_target(o, label, &t);
	if (ret)
		return ret;
	ret = hcbs_reserve(t.path, to, o->sysctl_dir, o->fs_dir, err, sizeof(err),
			   warn, sizeof(warn));
	if (warn[0])
		warn_line("%s", warn);
	if (ret) {
		die_line(o, t.label, "%s", err);
		return ret;
	}
	/* 0 is no RT time at all, not an inexact budget */
	if (!hcbs_cgroup_is_top(t.path) && to->runtime_us != HCBS_RT_MAX && to->runtime_us &&
	    to->runtime_us < HCBS_EXACT_RUNTIME_MIN_US)
		warn_line("%s: a runtime of %lluus is set, but below %dus it is not exact per period: the budget's timer fires 10us or more late, an overrun the next periods pay back (the share stays Q/P)",
			  t.label, (unsigned long long)to->runtime_us,
			  HCBS_EXACT_RUNTIME_MIN_US);
	if (o->json)
		return print_json(o, &t, to, ts);
	/* -q: the exit status says it all. */
	if (verbosity != VERBOSITY_QUIET)
		print_text(&t, to);
	return HCBS_EXIT_OK;
}

int cmd_set(struct opts *o)
{
	const char *label = o->cgroup ? o->cgroup : o->args[0];
	char err[HCBS_ERRLEN], d1[32], d2[32];
	struct hcbs_rt to;
	uint64_t q, p;
	int ret;

	if (o->taskset) {
		struct hcbs_overhead_measurement *m = NULL;

		if (o->overhead && !strcmp(o->overhead, "auto")) {
			char e[HCBS_ERRLEN + 64];

			m = calloc(1, sizeof(*m));
			if (!m) {
				die_line(o, label, "out of memory");
				return HCBS_EXIT_SYSTEM;
			}
			ret = measure_overhead(NULL, m, e, sizeof(e));
			if (ret) {
				die_line(o, label, "--overhead auto: %s (or give the overhead, e.g. --overhead 80us)",
					 e);
				free(m);
				return ret;
			}
			if (!o->json && verbosity != VERBOSITY_QUIET)
				print_overhead_measurement(m, "");
		}
		/* The same function as the LXC hook's --taskset --period. */
		ret = hcbs_taskset_reservation(o->taskset, o->period, o->order, o->overhead,
					       m ? &m->fit : NULL, &to, err, sizeof(err));
		if (ret) {
			die_line(o, label, "%s", err);
			free(m);
			return ret;
		}
		if (!o->json && verbosity != VERBOSITY_QUIET)
			printf("%s: the task set needs %s every %s (fixed priorities, Shin & Lee periodic resource%s%s)\n",
			       label, hcbs_format_duration(to.runtime_us * 1000, d1, sizeof(d1)),
			       hcbs_format_duration(to.period_us * 1000, d2, sizeof(d2)),
			       o->overhead ? ", WCETs with --overhead " : "", o->overhead ? o->overhead : "");
		else
			note_line("%s: the task set needs %s every %s", label,
				  hcbs_format_duration(to.runtime_us * 1000, d1, sizeof(d1)),
				  hcbs_format_duration(to.period_us * 1000, d2, sizeof(d2)));
		struct from_taskset ts = { .rt = &to, .m = m };

		ret = apply(o, label, &to, &ts);
		free(m);
		return ret;
	}
	const char *spec = o->args[o->cgroup ? 0 : 1];

	if (o->period || o->order || o->overhead) {
		die_line(o, label, "%s is for --taskset; give RUNTIME/PERIOD instead",
			 o->period ? "--period" : o->order ? "--order" : "--overhead");
		return HCBS_EXIT_USAGE;
	}
	if (hcbs_parse_reservation(spec, &q, &p, err, sizeof(err))) {
		die_line(o, label, "%s", err);
		return HCBS_EXIT_USAGE;
	}
	to.runtime_us = q / 1000;
	to.period_us = p / 1000;
	return apply(o, label, &to, NULL);
}

int cmd_unset(struct opts *o)
{
	const char *label = o->cgroup ? o->cgroup : o->args[0];
	char err[HCBS_ERRLEN];
	struct hcbs_rt cur, to;
	struct target t;
	int ret;

	/* Keep the period: only the runtime goes back to max. */
	ret = resolve_target(o, label, &t);
	if (!ret)
		ret = check_interface(o, &t);
	if (ret)
		return ret;
	if (hcbs_rt_read(t.path, t.abi, &cur, err, sizeof(err))) {
		die_line(o, t.label, "%s", err);
		return HCBS_EXIT_SYSTEM;
	}
	to.runtime_us = HCBS_RT_MAX;
	to.period_us = cur.period_us;
	return apply(o, label, &to, NULL);
}
