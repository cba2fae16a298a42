// SPDX-License-Identifier: GPL-2.0
/* hcbsctl list: every container, its state, reservation and usage. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hcbsctl.h"

#ifdef HAVE_LXC
#include <lxc/lxccontainer.h>

struct row {
	const char *name;
	char state[16];
	char cgroup[PATH_MAX];
	char error[HCBS_ERRLEN];
	bool have_rt;
	struct hcbs_rt rt;
	int ncpus;
	char cpus[256];
	struct hcbs_rt_stat st;
};

static void fill(const struct opts *o, struct lxc_container *c, struct row *r)
{
	const char *state = c->state(c);
	enum hcbs_rt_abi abi;
	int v;

	snprintf(r->state, sizeof(r->state), "%s", state ? state : "UNKNOWN");
	if (strcmp(r->state, "RUNNING") && strcmp(r->state, "FROZEN"))
		return;
	if (hcbs_container_cgroup(r->name, o->lxcpath, r->cgroup, sizeof(r->cgroup),
				  &v, r->error, sizeof(r->error))) {
		r->cgroup[0] = '\0';
		return;
	}
	switch (hcbs_rt_check(r->cgroup, &abi, NULL, 0)) {
	case HCBS_EXIT_OK:
		break;
	case HCBS_EXIT_NOHCBS:
		snprintf(r->error, sizeof(r->error), "kernel without HCBS");
		return;
	default:
		snprintf(r->error, sizeof(r->error), "cgroup not found");
		return;
	}
	r->have_rt = !hcbs_rt_read(r->cgroup, abi, &r->rt, r->error, sizeof(r->error));
	r->ncpus = reservation_cpus(r->cgroup, r->cpus, sizeof(r->cpus));
	hcbs_rt_read_stat(r->cgroup, &r->st, NULL, 0);
}

int cmd_list(struct opts *o)
{
	const char *lxcpath = o->lxcpath ? o->lxcpath : lxc_get_global_config_item("lxc.lxcpath");
	struct lxc_container **cs = NULL;
	char **names = NULL;
	struct row *rows;
	int n, ret = HCBS_EXIT_OK;

	char e[HCBS_ERRLEN];

	/* The same cause, the same exit code as get NAME: no such LXC path is 3. */
	ret = hcbs_lxcpath_check(o->lxcpath, e, sizeof(e));
	if (ret) {
		die_line(o, NULL, "%s", e);
		return ret == -EACCES ? HCBS_EXIT_PERM : HCBS_EXIT_NOTFOUND;
	}
	hcbs_lxc_quiet();
	int mute = hcbs_stderr_mute();

	n = list_all_containers(lxcpath, &names, &cs);
	hcbs_stderr_restore(mute);
	if (n < 0) {
		if (geteuid()) {
			die_line(o, NULL, "cannot list containers in %s: permission denied (run as root)",
				 lxcpath);
			return HCBS_EXIT_PERM;
		}
		die_line(o, NULL, "cannot list containers in %s", lxcpath);
		return HCBS_EXIT_SYSTEM;
	}
	rows = calloc((size_t)n + 1, sizeof(*rows));
	if (!rows) {
		ret = HCBS_EXIT_SYSTEM;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		rows[i].name = names[i];
		fill(o, cs[i], &rows[i]);
	}
	if (o->json) {
		struct hcbs_json *j = hcbs_json_new(stdout);

		if (!j) {
			ret = HCBS_EXIT_SYSTEM;
			goto out;
		}
		hcbs_json_object_begin(j);
		json_header(j, "list");
		hcbs_json_key(j, "lxcpath");
		hcbs_json_string(j, lxcpath);
		hcbs_json_key(j, "containers");
		hcbs_json_array_begin(j);
		for (int i = 0; i < n; i++) {
			struct row *r = &rows[i];

			hcbs_json_object_begin(j);
			hcbs_json_key(j, "name");
			hcbs_json_string(j, r->name);
			hcbs_json_key(j, "state");
			hcbs_json_string(j, r->state);
			hcbs_json_key(j, "cgroup");
			hcbs_json_string(j, r->cgroup[0] ? r->cgroup : NULL);
			hcbs_json_key(j, "reservation");
			if (r->have_rt)
				json_reservation(j, &r->rt, r->ncpus, r->cpus);
			else
				hcbs_json_null(j);
			hcbs_json_key(j, "stat");
			json_stat(j, &r->st);
			hcbs_json_key(j, "error");
			hcbs_json_string(j, r->error[0] ? r->error : NULL);
			hcbs_json_object_end(j);
		}
		hcbs_json_array_end(j);
		hcbs_json_object_end(j);
		if (hcbs_json_free(j))
			ret = HCBS_EXIT_SYSTEM;
	} else {
		printf("%-20s %-8s %-16s %-8s %-10s %-12s %s\n", "NAME", "STATE", "RESERVATION",
		       "BW/CPU", "CPUS", "USAGE(us)", "THROTTLED");
		for (int i = 0; i < n; i++) {
			struct row *r = &rows[i];
			char buf[64] = "-", bw[16] = "-", use[24] = "-", thr[48] = "-";
			const char *cpus = "-";

			if (r->have_rt) {
				fmt_rt(&r->rt, buf, sizeof(buf));
				snprintf(bw, sizeof(bw), "%.3f", hcbs_rt_bw(&r->rt));
				cpus = r->cpus;
			} else if (r->error[0]) {
				snprintf(buf, sizeof(buf), "(%s)", r->error);
			}
			if (r->st.valid) {
				snprintf(use, sizeof(use), "%llu", (unsigned long long)r->st.usage_usec);
				snprintf(thr, sizeof(thr), "%llu/%llu periods",
					 (unsigned long long)r->st.nr_throttled,
					 (unsigned long long)r->st.nr_periods);
			}
			printf("%-20s %-8s %-16s %-8s %-10s %-12s %s\n", r->name, r->state, buf,
			       bw, cpus, use, thr);
		}
	}
out:
	for (int i = 0; i < n; i++) {
		free(names[i]);
		lxc_container_put(cs[i]);
	}
	free(names);
	free(cs);
	free(rows);
	return ret;
}

#else

int cmd_list(struct opts *o)
{
	die_line(o, NULL, "built without liblxc: list needs it");
	return HCBS_EXIT_USAGE;
}

#endif
