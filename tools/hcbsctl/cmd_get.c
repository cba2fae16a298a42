// SPDX-License-Identifier: GPL-2.0
/* hcbsctl get: one container's (or cgroup's) reservation and usage. */
#include <stdio.h>
#include <string.h>

#include "hcbsctl.h"

static void print_text(const struct target *t, const struct hcbs_rt *rt,
		       const struct hcbs_rt_stat *st, int ncpus, const char *cpus)
{
	char buf[64], top[PATH_MAX], anc[PATH_MAX];
	struct hcbs_rt a;

	if (hcbs_cgroup_is_top(t->path)) {
		if (rt->runtime_us == HCBS_RT_MAX)
			printf("%s: max (the root group's share is not set: top-level groups take from the global limit)\n",
			       t->label);
		else
			printf("%s: %s (the root group's share: %.3f CPU kept for the RT groups on each of %d CPUs)\n",
			       t->label, fmt_rt(rt, buf, sizeof(buf)), hcbs_rt_bw(rt), ncpus);
	} else if (rt->runtime_us == HCBS_RT_MAX) {
		hcbs_cgroup_top(t->path, top, sizeof(top));
		if (hcbs_reserved_ancestor(t->path, top, anc, sizeof(anc), &a))
			printf("%s: max (no own reservation: its RT tasks run in %s's %s)\n",
			       t->label, anc, fmt_rt(&a, buf, sizeof(buf)));
		else
			printf("%s: max (no own reservation, and none above it: its RT tasks run on the root runqueue)\n",
			       t->label);
	} else if (rt->runtime_us == 0) {
		printf("%s: %s (RT tasks forbidden)\n", t->label, fmt_rt(rt, buf, sizeof(buf)));
	} else {
		printf("%s: %s (%.3f CPU on each of %d CPUs (%s), %.3f in total)\n", t->label,
		       fmt_rt(rt, buf, sizeof(buf)), hcbs_rt_bw(rt), ncpus, cpus,
		       hcbs_rt_bw(rt) * ncpus);
	}
	printf("  cgroup:     %s", t->path);
	if (t->version)
		printf(" (cgroup v%d)", t->version);
	printf("\n  interface:  %s\n", hcbs_rt_abi_name(t->abi));
	if (st->valid) {
		printf("  usage:      %llu us in %llu periods; throttled %llu times, %llu us\n",
		       (unsigned long long)st->usage_usec, (unsigned long long)st->nr_periods,
		       (unsigned long long)st->nr_throttled,
		       (unsigned long long)st->throttled_usec);
		if (st->nr_lagged)
			printf("  lagged:     %llu times, %llu us in all: the servers fell more than a period behind and forfeited it (see sched-hcbs.rst)\n",
			       (unsigned long long)st->nr_lagged,
			       (unsigned long long)st->lagged_usec);
	} else {
		printf("  usage:      (no cpu.rt.stat)\n");
	}
}

int cmd_get(struct opts *o)
{
	const char *label = o->cgroup ? o->cgroup : o->args[0];
	char err[HCBS_ERRLEN];
	struct hcbs_rt_stat st;
	struct hcbs_rt rt;
	struct target t;
	char cpus[256];
	int ret, ncpus;

	ret = resolve_target(o, label, &t);
	if (!ret)
		ret = check_interface(o, &t);
	if (ret)
		return ret;
	if (hcbs_rt_read(t.path, t.abi, &rt, err, sizeof(err))) {
		die_line(o, t.label, "%s", err);
		return HCBS_EXIT_SYSTEM;
	}
	hcbs_rt_read_stat(t.path, &st, NULL, 0);
	/* The root's share is kept on every CPU. */
	ncpus = reservation_cpus(hcbs_cgroup_is_top(t.path) ? NULL : t.path, cpus,
				 sizeof(cpus));
	if (!o->json) {
		print_text(&t, &rt, &st, ncpus, cpus);
		return HCBS_EXIT_OK;
	}

	struct hcbs_json *j = json_open();

	if (!j)
		return HCBS_EXIT_SYSTEM;
	hcbs_json_object_begin(j);
	json_header(j, "get");
	hcbs_json_key(j, "name");
	if (o->cgroup)
		hcbs_json_null(j);
	else
		hcbs_json_string(j, t.label);
	hcbs_json_key(j, "cgroup");
	hcbs_json_string(j, t.path);
	hcbs_json_key(j, "cgroup_version");
	if (t.version)
		hcbs_json_int(j, t.version);
	else
		hcbs_json_null(j);
	hcbs_json_key(j, "interface");
	hcbs_json_string(j, hcbs_rt_abi_name(t.abi));
	hcbs_json_key(j, "reservation");
	json_reservation(j, &rt, ncpus, cpus);
	hcbs_json_key(j, "stat");
	json_stat(j, &st);
	hcbs_json_object_end(j);
	return json_close(j);
}
