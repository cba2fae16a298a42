// SPDX-License-Identifier: GPL-2.0
/*
 * hcbsctl list: every LXC container, its state, reservation and usage; then
 * every cgroup with a reservation of its own, whoever made it (an LXC or OCI
 * container, a systemd unit, a hand-made cgroup), with its owner.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hcbsctl.h"

/* ---------------------------------------------------- reserved cgroups */
struct cg_row {
	char path[PATH_MAX];
	struct hcbs_owner owner;
	bool owned;
	struct hcbs_rt rt;
	struct hcbs_rt_stat st;
	int ncpus;
	char cpus[256];
};

struct cg_rows {
	struct cg_row *r;
	int n, cap;
	bool oom;
};

/* Append every cgroup below @dir that has a reservation of its own. */
static void walk_reserved(const char *dir, int depth, struct cg_rows *rows)
{
	struct dirent *e;
	DIR *d;

	if (depth > 32 || rows->oom || !(d = opendir(dir)))
		return;
	while ((e = readdir(d)) && !rows->oom) {
		char sub[PATH_MAX];
		enum hcbs_rt_abi abi;
		struct hcbs_rt rt;
		struct stat st;

		if (e->d_name[0] == '.' ||
		    (size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= sizeof(sub) ||
		    stat(sub, &st) || !S_ISDIR(st.st_mode) || !hcbs_is_cgroup_dir(sub))
			continue;
		abi = hcbs_rt_detect(sub);
		if ((abi == HCBS_ABI_RT_MAX || abi == HCBS_ABI_TWO_FILES) &&
		    !hcbs_rt_read(sub, abi, &rt, NULL, 0) && rt.runtime_us != HCBS_RT_MAX) {
			struct cg_row *r;

			if (rows->n == rows->cap) {
				struct cg_row *nr = realloc(rows->r, sizeof(*nr) * (size_t)(rows->cap + 16));

				if (!nr) {
					rows->oom = true;
					break;
				}
				rows->r = nr;
				rows->cap += 16;
			}
			r = &rows->r[rows->n++];
			memset(r, 0, sizeof(*r));
			snprintf(r->path, sizeof(r->path), "%s", sub);
			r->owned = hcbs_cgroup_owner(sub, &r->owner);
			r->rt = rt;
			hcbs_rt_read_stat(sub, &r->st, NULL, 0);
			r->ncpus = reservation_cpus(sub, r->cpus, sizeof(r->cpus));
		}
		walk_reserved(sub, depth + 1, rows);
	}
	closedir(d);
}

static int cg_row_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cg_row *)a)->path, ((const struct cg_row *)b)->path);
}

static void owner_text(const struct cg_row *r, char *buf, size_t len)
{
	if (!r->owned)
		snprintf(buf, len, "-");
	else if (!strcmp(r->owner.kind, "oci"))
		snprintf(buf, len, "oci %s %.12s", r->owner.engine, r->owner.name);
	else
		snprintf(buf, len, "%s %s", r->owner.kind, r->owner.name);
}

static void json_cgroups(struct hcbs_json *j, const char *root, const struct cg_rows *rows)
{
	hcbs_json_key(j, "cgroup_root");
	hcbs_json_string(j, root);
	hcbs_json_key(j, "cgroups");
	hcbs_json_array_begin(j);
	for (int i = 0; i < rows->n; i++) {
		const struct cg_row *r = &rows->r[i];

		hcbs_json_object_begin(j);
		hcbs_json_key(j, "cgroup");
		hcbs_json_string(j, r->path);
		hcbs_json_key(j, "owner");
		if (r->owned) {
			hcbs_json_object_begin(j);
			hcbs_json_key(j, "kind");
			hcbs_json_string(j, r->owner.kind);
			hcbs_json_key(j, "engine");
			hcbs_json_string(j, r->owner.engine[0] ? r->owner.engine : NULL);
			hcbs_json_key(j, "name");
			hcbs_json_string(j, r->owner.name);
			hcbs_json_object_end(j);
		} else {
			hcbs_json_null(j);
		}
		hcbs_json_key(j, "reservation");
		json_reservation(j, &r->rt, r->ncpus, r->cpus);
		hcbs_json_key(j, "stat");
		json_stat(j, &r->st);
		hcbs_json_object_end(j);
	}
	hcbs_json_array_end(j);
}

/*
 * A cgroup or container name for the table: a directory name may hold
 * any byte but '/', and a newline or an escape sequence in it must not
 * forge a row or drive the terminal (hcbs_printable(), as in messages).
 */
static const char *cell(const char *s, char *buf, size_t len)
{
	return hcbs_printable(s, SIZE_MAX, buf, len);
}

static void print_cgroups(const char *root, const struct cg_rows *rows)
{
	static char path[PATH_MAX * 4];
	int w = 16;

	if (!rows->n) {
		printf("no cgroup below %s has a reservation of its own\n",
		       cell(root, path, sizeof(path)));
		return;
	}
	for (int i = 0; i < rows->n; i++) {
		int l = (int)strlen(cell(rows->r[i].path, path, sizeof(path)));

		w = l > w ? l : w;
	}
	printf("%-*s %-28s %-16s %-8s %-10s %s\n", w, "RESERVED CGROUP", "OWNER", "RESERVATION",
	       "BW/CPU", "CPUS", "USAGE(us)");
	for (int i = 0; i < rows->n; i++) {
		const struct cg_row *r = &rows->r[i];
		char own[300], owner[1200], rt[64], use[24] = "-";

		owner_text(r, own, sizeof(own));
		if (r->st.valid)
			snprintf(use, sizeof(use), "%llu", (unsigned long long)r->st.usage_usec);
		printf("%-*s %-28s %-16s %-8.3f %-10s %s\n", w, cell(r->path, path, sizeof(path)),
		       cell(own, owner, sizeof(owner)), fmt_rt(&r->rt, rt, sizeof(rt)),
		       hcbs_rt_bw(&r->rt), r->cpus, use);
	}
}

/*
 * The reserved cgroups below @root (the cpu hierarchy's root unless
 * --cgroup), sorted by path; 0 or an exit code (the message printed).
 */
static int find_reserved(const struct opts *o, char *root, size_t len, struct cg_rows *rows)
{
	char e[HCBS_ERRLEN];
	int ret;

	ret = cgroup_root(o, root, len);
	if (ret)
		return ret;
	if (o->cgroup && !hcbs_is_cgroup_dir(root)) {
		die_line(o, NULL, "--cgroup %s: not a cgroup directory (no cgroup.procs)", root);
		return HCBS_EXIT_NOTFOUND;
	}
	/* As free and get: an empty table would say "nothing reserved". */
	ret = require_hcbs(root, e, sizeof(e));
	if (ret) {
		die_line(o, NULL, "%s", e);
		return ret;
	}
	walk_reserved(root, 0, rows);
	if (rows->oom) {
		die_line(o, NULL, "out of memory listing the cgroups below %s", root);
		return HCBS_EXIT_SYSTEM;
	}
	if (rows->n)
		qsort(rows->r, (size_t)rows->n, sizeof(*rows->r), cg_row_cmp);
	return HCBS_EXIT_OK;
}

/* list --cgroup PATH, or without liblxc: the reserved cgroups alone. */
static int list_cgroups(struct opts *o)
{
	char root[PATH_MAX];
	struct cg_rows rows = { 0 };
	int ret = find_reserved(o, root, sizeof(root), &rows);

	if (!ret && o->json) {
		struct hcbs_json *j = json_open();

		if (!j) {
			ret = HCBS_EXIT_SYSTEM;
		} else {
			hcbs_json_object_begin(j);
			json_header(j, "list");
			hcbs_json_key(j, "lxcpath");
			hcbs_json_null(j);
			hcbs_json_key(j, "containers");
			hcbs_json_array_begin(j);
			hcbs_json_array_end(j);
			json_cgroups(j, root, &rows);
			hcbs_json_object_end(j);
			ret = json_close(j);
		}
	} else if (!ret) {
		print_cgroups(root, &rows);
	}
	free(rows.r);
	return ret;
}

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
	struct cg_rows cgs = { 0 };
	char **names = NULL, root[PATH_MAX];
	struct row *rows = NULL;
	int n, ret = HCBS_EXIT_OK;

	char e[HCBS_ERRLEN];

	if (o->cgroup)
		return list_cgroups(o);

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
	ret = find_reserved(o, root, sizeof(root), &cgs);
	if (ret)
		goto out;
	for (int i = 0; i < n; i++) {
		rows[i].name = names[i];
		fill(o, cs[i], &rows[i]);
	}
	if (o->json) {
		struct hcbs_json *j = json_open();

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
		json_cgroups(j, root, &cgs);
		hcbs_json_object_end(j);
		ret = json_close(j);
	} else {
		printf("%-20s %-8s %-16s %-8s %-10s %-12s %s\n", "NAME", "STATE", "RESERVATION",
		       "BW/CPU", "CPUS", "USAGE(us)", "THROTTLED");
		for (int i = 0; i < n; i++) {
			struct row *r = &rows[i];
			char buf[64] = "-", bw[16] = "-", use[24] = "-", thr[48] = "-";
			char name[1024], err[4 * HCBS_ERRLEN];
			const char *cpus = "-";

			if (r->have_rt) {
				fmt_rt(&r->rt, buf, sizeof(buf));
				snprintf(bw, sizeof(bw), "%.3f", hcbs_rt_bw(&r->rt));
				cpus = r->cpus;
			} else if (r->error[0]) {
				snprintf(buf, sizeof(buf), "(%s)", cell(r->error, err, sizeof(err)));
			}
			if (r->st.valid) {
				snprintf(use, sizeof(use), "%llu", (unsigned long long)r->st.usage_usec);
				snprintf(thr, sizeof(thr), "%llu/%llu periods",
					 (unsigned long long)r->st.nr_throttled,
					 (unsigned long long)r->st.nr_periods);
			}
			printf("%-20s %-8s %-16s %-8s %-10s %-12s %s\n", cell(r->name, name, sizeof(name)),
			       r->state, buf, bw, cpus, use, thr);
		}
		printf("\n");
		print_cgroups(root, &cgs);
	}
out:
	free(cgs.r);
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
	/* No containers to list: the reserved cgroups are all there is. */
	return list_cgroups(o);
}

#endif
