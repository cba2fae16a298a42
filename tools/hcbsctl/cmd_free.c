// SPDX-License-Identifier: GPL-2.0
/*
 * hcbsctl free: the bandwidth a new top-level reservation could still get.
 *
 * Per CPU, when the root group's share is not set (cpu.rt.max "max" on the
 * root, the default, or a kernel without it): the global limit
 * (sched_rt_runtime_us / sched_rt_period_us) minus the fair server of that
 * CPU minus the top-level reservations on that CPU (the reserved groups
 * whose nearest reserved ancestor is the root and whose cpuset has the CPU,
 * as cpu.rt.cpus shows; groups below them are inside their parent's
 * share).  SCHED_DEADLINE tasks also take from the same pool but
 * are not visible without walking every task, so the figures are upper
 * bounds, and say so.
 *
 * When the share is set to Q/P, the kernel keeps Q/P of every CPU for the
 * RT groups (deadline tasks cannot take it) and the top-level groups must
 * fit in it: free is Q/P minus the top-level reservations, exactly.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hcbsctl.h"

#define MAX_CPUS FREE_MAX_CPUS

/*
 * Root domains: SCHED_DEADLINE admission (and so HCBS admission) is per
 * root domain.  cgroup v2 cpuset partitions ("root", "isolated") split the
 * CPUs off the default domain; the innermost valid partition owns a CPU.
 */
struct partition {
	char path[PATH_MAX];
	char kind[16];
	int depth;
};

struct domains {
	struct partition *p;
	int n, cap;
	int owner[MAX_CPUS];	/* partition index, -1: default domain */
	int owner_depth[MAX_CPUS];
};

static void scan_partitions(const char *dir, int depth, struct domains *d)
{
	char *text = NULL;
	struct dirent *e;
	DIR *dd;

	if (depth > 0 && !hcbs_cgroup_read(dir, "cpuset.cpus.partition", &text, NULL, 0)) {
		bool valid = !strstr(text, "invalid");
		char kind[16] = "";

		sscanf(text, "%15s", kind);
		free(text);
		text = NULL;
		if (valid && (!strcmp(kind, "root") || !strcmp(kind, "isolated")) &&
		    !hcbs_cgroup_read(dir, "cpuset.cpus.effective", &text, NULL, 0)) {
			static int cpus[MAX_CPUS];
			int n = hcbs_parse_cpulist(text, cpus, MAX_CPUS);

			if (n > 0 && d->n < 256) {
				if (d->n == d->cap) {
					struct partition *np = realloc(d->p, sizeof(*np) * (size_t)(d->cap + 8));

					if (!np)
						goto out;
					d->p = np;
					d->cap += 8;
				}
				snprintf(d->p[d->n].path, sizeof(d->p[d->n].path), "%s", dir);
				snprintf(d->p[d->n].kind, sizeof(d->p[d->n].kind), "%s", kind);
				d->p[d->n].depth = depth;
				for (int i = 0; i < n && i < MAX_CPUS; i++) {
					if (cpus[i] < MAX_CPUS && depth > d->owner_depth[cpus[i]]) {
						d->owner[cpus[i]] = d->n;
						d->owner_depth[cpus[i]] = depth;
					}
				}
				d->n++;
			}
		}
	}
out:
	free(text);
	if (depth > 32 || !(dd = opendir(dir)))
		return;
	while ((e = readdir(dd))) {
		char sub[PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.' ||
		    (size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= sizeof(sub) ||
		    stat(sub, &st) || !S_ISDIR(st.st_mode))
			continue;
		scan_partitions(sub, depth + 1, d);
	}
	closedir(dd);
}

void format_cpu_list(const int *cpus, int n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && used < len; i++) {
		int j = i;

		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		if (j > i)
			used += (size_t)snprintf(buf + used, len - used, "%s%d-%d",
						 used ? "," : "", cpus[i], cpus[j]);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%d",
						 used ? "," : "", cpus[i]);
		i = j;
	}
}

/* What free found; the printers only print it. */
struct free_report {
	const char *root;
	struct free_figures f;		/* per CPU: limit, fair server, reserved */
	double total;			/* free summed over all CPUs */
	char list[256];			/* all CPUs */
	struct domains *dom;
	int ndom;			/* the default domain, then the partitions */
	double *dfree;
	char (*dlist)[256];
};

double free_on_cpu(const struct free_figures *f, int i)
{
	if (f->share_set)
		return f->share_bw - f->reserved[i];
	return f->g.ratio - f->fair[i] - f->reserved[i];
}

static double cpu_free(const struct free_report *r, int i)
{
	return free_on_cpu(&r->f, i);
}

static void json_share(struct hcbs_json *j, const struct free_report *r)
{
	const struct hcbs_root_share *sh = &r->f.share;

	if (sh->abi == HCBS_ABI_NONE) {
		hcbs_json_null(j);
		return;
	}
	hcbs_json_object_begin(j);
	hcbs_json_key(j, "set");
	hcbs_json_bool(j, r->f.share_set);
	hcbs_json_key(j, "runtime_us");
	if (r->f.share_set)
		hcbs_json_uint(j, sh->rt.runtime_us);
	else
		hcbs_json_null(j);
	hcbs_json_key(j, "period_us");
	hcbs_json_uint(j, sh->rt.period_us);
	hcbs_json_key(j, "bandwidth_per_cpu");
	if (r->f.share_set)
		hcbs_json_double(j, r->f.share_bw);
	else
		hcbs_json_null(j);
	hcbs_json_key(j, "interface");
	hcbs_json_string(j, hcbs_rt_abi_name(sh->abi));
	hcbs_json_object_end(j);
}

static int print_json(const struct free_report *r)
{
	struct hcbs_json *j = json_open();

	if (!j)
		return HCBS_EXIT_SYSTEM;
	hcbs_json_object_begin(j);
	json_header(j, "free");
	hcbs_json_key(j, "cgroup_root");
	hcbs_json_string(j, r->root);
	hcbs_json_key(j, "global");
	hcbs_json_object_begin(j);
	hcbs_json_key(j, "rt_runtime_us");
	hcbs_json_int(j, r->f.g.rt_runtime_us);
	hcbs_json_key(j, "rt_period_us");
	hcbs_json_uint(j, r->f.g.rt_period_us);
	hcbs_json_key(j, "ratio");
	hcbs_json_double(j, r->f.g.ratio);
	hcbs_json_key(j, "admission_control");
	hcbs_json_bool(j, r->f.g.rt_runtime_us >= 0);
	hcbs_json_object_end(j);
	hcbs_json_key(j, "root_share");
	json_share(j, r);
	hcbs_json_key(j, "free_limited_by");
	hcbs_json_string(j, r->f.share_set ? "root_share" : "global_limit");
	hcbs_json_key(j, "reserved_per_cpu");
	hcbs_json_double(j, r->f.reserved_most);
	hcbs_json_key(j, "reserved_groups");
	hcbs_json_int(j, r->f.groups);
	hcbs_json_key(j, "fair_server_assumed");
	hcbs_json_bool(j, r->f.assumed);
	hcbs_json_key(j, "deadline_tasks_counted");
	hcbs_json_bool(j, false);
	hcbs_json_key(j, "cpus");
	hcbs_json_array_begin(j);
	for (int i = 0; i < r->f.ncpu; i++) {
		hcbs_json_object_begin(j);
		hcbs_json_key(j, "cpu");
		hcbs_json_int(j, r->f.cpus[i]);
		hcbs_json_key(j, "limit");
		hcbs_json_double(j, r->f.g.ratio);
		hcbs_json_key(j, "fair_server");
		hcbs_json_double(j, r->f.fair[i]);
		hcbs_json_key(j, "reserved");
		hcbs_json_double(j, r->f.reserved[i]);
		hcbs_json_key(j, "free");
		hcbs_json_double(j, cpu_free(r, i));
		hcbs_json_object_end(j);
	}
	hcbs_json_array_end(j);
	hcbs_json_key(j, "root_domains");
	hcbs_json_array_begin(j);
	for (int k = 0; k < r->ndom; k++) {
		if (!r->dlist[k][0])
			continue;
		hcbs_json_object_begin(j);
		hcbs_json_key(j, "cpus");
		hcbs_json_string(j, r->dlist[k]);
		hcbs_json_key(j, "partition");
		hcbs_json_string(j, k ? r->dom->p[k - 1].path : NULL);
		hcbs_json_key(j, "kind");
		hcbs_json_string(j, k ? r->dom->p[k - 1].kind : "default");
		hcbs_json_key(j, "free");
		hcbs_json_double(j, r->dfree[k]);
		hcbs_json_object_end(j);
	}
	hcbs_json_array_end(j);
	hcbs_json_object_end(j);
	return json_close(j);
}

static void print_share(const struct free_report *r)
{
	const char *file = r->f.share.abi == HCBS_ABI_RT_MAX ? "cpu.rt.max" : "cpu.rt_runtime_us";
	char buf[64];

	if (r->f.share.abi == HCBS_ABI_NONE)
		printf("root share:   not set (this kernel has no cpu.rt.max on the root): top-level groups take from the global limit\n");
	else if (!r->f.share_set)
		printf("root share:   max (not set, %s/%s): top-level groups take from the global limit, beside the fair servers and SCHED_DEADLINE tasks\n",
		       r->root, file);
	else if (!r->f.share.rt.runtime_us)
		printf("root share:   0 (%s in %s/%s): no top-level reservation is admitted\n",
		       hcbs_rt_format(&r->f.share.rt, buf, sizeof(buf)), r->root, file);
	else
		printf("root share:   %.3f per CPU (%s in %s/%s): kept for the RT groups on every CPU, SCHED_DEADLINE tasks cannot take it\n",
		       r->f.share_bw, hcbs_rt_format(&r->f.share.rt, buf, sizeof(buf)), r->root, file);
}

static void print_text(const struct free_report *r)
{
	const struct hcbs_global *g = &r->f.g;

	printf("global limit: %.3f per CPU (kernel.sched_rt_runtime_us %lld / sched_rt_period_us %llu)%s\n",
	       g->ratio, (long long)g->rt_runtime_us, (unsigned long long)g->rt_period_us,
	       g->rt_runtime_us < 0 ? " -- admission control OFF" : "");
	print_share(r);
	printf("reserved:     %.3f per CPU at most, by %d top-level group(s) under %s, each on the CPUs of its cpuset\n",
	       r->f.reserved_most, r->f.groups, r->root);
	if (r->f.share_set) {
		printf("\n%-5s %-7s %-9s %s\n", "CPU", "SHARE", "RESERVED", "FREE");
		for (int i = 0; i < r->f.ncpu; i++)
			printf("%-5d %-7.3f %-9.3f %.3f\n", r->f.cpus[i], r->f.share_bw,
			       r->f.reserved[i], cpu_free(r, i));
	} else {
		printf("\n%-5s %-7s %-7s %-9s %s\n", "CPU", "LIMIT", "FAIR", "RESERVED", "FREE");
		for (int i = 0; i < r->f.ncpu; i++)
			printf("%-5d %-7.3f %-7.3f %-9.3f %.3f\n", r->f.cpus[i], g->ratio,
			       r->f.fair[i], r->f.reserved[i], cpu_free(r, i));
	}
	printf("\n");
	for (int k = 0; k < r->ndom; k++) {
		if (!r->dlist[k][0])
			continue;
		if (k)
			printf("root domain %s (%s partition %s): %.3f CPU free in total\n",
			       r->dlist[k], r->dom->p[k - 1].kind, r->dom->p[k - 1].path,
			       r->dfree[k]);
		else
			printf("root domain %s%s: %.3f CPU free in total\n", r->dlist[k],
			       r->ndom > 1 ? " (default)" : "", r->dfree[k]);
	}
	if (r->ndom > 1)
		printf("all CPUs %s: %.3f CPU free in total\n", r->list, r->total);
	if (r->f.share_set) {
		printf("\nA new top-level reservation Q/P fits if Q/P <= FREE on each CPU of its cpuset: the root group's share minus the top-level groups there.\n");
		printf("note: SCHED_DEADLINE tasks cannot take the share: these figures are exact.\n");
		return;
	}
	printf("\nA new top-level reservation Q/P fits if Q/P <= the smallest FREE on the CPUs of its cpuset.\n");
	if (r->f.assumed)
		printf("note: fair server bandwidth assumed 50ms/1s (no /sys/kernel/debug/sched/fair_server).\n");
	printf("note: SCHED_DEADLINE tasks take from the same pool and are not counted here: these are upper bounds.\n");
}

int free_figures(const struct opts *o, const char *root, struct free_figures *f,
		 char *err, size_t errlen)
{
	int ret;

	memset(f, 0, sizeof(*f));
	ret = require_hcbs(root, err, errlen);
	if (ret)
		return ret;
	if (hcbs_global_read(o->sysctl_dir, &f->g, err, errlen))
		return HCBS_EXIT_SYSTEM;
	/* A share misread would make every figure wrong: refuse instead. */
	if (hcbs_root_share_read(root, &f->share, err, errlen))
		return HCBS_EXIT_SYSTEM;
	f->share_set = hcbs_root_share_set(&f->share);
	f->share_bw = hcbs_rt_bw(&f->share.rt);
	f->ncpu = hcbs_online_cpus(f->cpus, FREE_MAX_CPUS);
	if (f->ncpu > FREE_MAX_CPUS)
		f->ncpu = FREE_MAX_CPUS;
	hcbs_reserved_below(root, NULL, &f->groups);
	for (int i = 0; i < f->ncpu; i++) {
		int count = 0;
		bool a;

		f->reserved[i] = hcbs_reserved_below_cpu(root, NULL, f->cpus[i], &count);
		if (f->reserved[i] > f->reserved_most)
			f->reserved_most = f->reserved[i];
		f->fair[i] = hcbs_fair_server_bw(o->fs_dir, f->cpus[i], &a);
		f->assumed |= a;
	}
	return HCBS_EXIT_OK;
}

int cmd_free(struct opts *o)
{
	char root[PATH_MAX], e[HCBS_ERRLEN];
	static int members[MAX_CPUS];
	static double dfree[257];
	static char dlist[257][256];
	static struct domains dom;
	static struct free_report r;
	int ret;

	r = (struct free_report){ .root = root, .dom = &dom, .dfree = dfree, .dlist = dlist };
	ret = cgroup_root(o, root, sizeof(root));
	if (ret)
		return ret;
	ret = free_figures(o, root, &r.f, e, sizeof(e));
	if (ret) {
		die_line(o, NULL, "%s", e);
		return ret;
	}
	if (r.f.g.rt_runtime_us < 0)
		warn_line("kernel.sched_rt_runtime_us is -1: admission control is off, nothing is guaranteed");
	for (int i = 0; i < r.f.ncpu; i++)
		r.total += cpu_free(&r, i);
	format_cpu_list(r.f.cpus, r.f.ncpu, r.list, sizeof(r.list));

	/* Domain -1 is the default one; then the partitions. */
	memset(&dom, 0, sizeof(dom));
	for (int c = 0; c < MAX_CPUS; c++)
		dom.owner[c] = -1;
	scan_partitions(root, 0, &dom);
	r.ndom = dom.n + 1;
	for (int k = -1; k < dom.n; k++) {
		int m = 0;

		dfree[k + 1] = 0;
		for (int i = 0; i < r.f.ncpu; i++) {
			if (r.f.cpus[i] >= MAX_CPUS || dom.owner[r.f.cpus[i]] != k)
				continue;
			members[m++] = r.f.cpus[i];
			dfree[k + 1] += cpu_free(&r, i);
		}
		format_cpu_list(members, m, dlist[k + 1], sizeof(dlist[k + 1]));
	}

	if (o->json) {
		ret = print_json(&r);
	} else {
		print_text(&r);
		ret = HCBS_EXIT_OK;
	}
	free(dom.p);
	return ret;
}
