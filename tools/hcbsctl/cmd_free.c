// SPDX-License-Identifier: GPL-2.0
/*
 * hcbsctl free: the bandwidth a new top-level reservation could still get.
 *
 * Per CPU: the global limit (sched_rt_runtime_us / sched_rt_period_us)
 * minus the fair server of that CPU minus the top-level reservations (the
 * reserved groups whose nearest reserved ancestor is the root; groups
 * below them are inside their parent's share).  SCHED_DEADLINE tasks also
 * take from the same pool but are not visible without walking every task,
 * so the figures are upper bounds, and say so.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hcbsctl.h"

#define MAX_CPUS 1024

/* Does the kernel show the HCBS files in @root or one of its children? */
static bool has_hcbs(const char *root)
{
	enum hcbs_rt_abi abi = hcbs_rt_detect(root);
	struct dirent *e;
	bool found = false;
	DIR *d;

	if (abi == HCBS_ABI_RT_MAX || abi == HCBS_ABI_TWO_FILES)
		return true;
	d = opendir(root);
	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		char sub[PATH_MAX];

		if (e->d_name[0] == '.' ||
		    (size_t)snprintf(sub, sizeof(sub), "%s/%s", root, e->d_name) >= sizeof(sub))
			continue;
		abi = hcbs_rt_detect(sub);
		found = abi == HCBS_ABI_RT_MAX || abi == HCBS_ABI_TWO_FILES;
	}
	closedir(d);
	return found;
}

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
	char f[PATH_MAX], *text = NULL;
	struct dirent *e;
	DIR *dd;

	if (depth > 0 && (size_t)snprintf(f, sizeof(f), "%s/cpuset.cpus.partition", dir) < sizeof(f) &&
	    !hcbs_read_text(f, &text, NULL, 0)) {
		bool valid = !strstr(text, "invalid");
		char kind[16] = "";

		sscanf(text, "%15s", kind);
		free(text);
		text = NULL;
		if (valid && (!strcmp(kind, "root") || !strcmp(kind, "isolated")) &&
		    (size_t)snprintf(f, sizeof(f), "%s/cpuset.cpus.effective", dir) < sizeof(f) &&
		    !hcbs_read_text(f, &text, NULL, 0)) {
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

static void cpu_list(const int *cpus, int n, char *buf, size_t len)
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

int cmd_free(struct opts *o)
{
	char root[PATH_MAX], e[HCBS_ERRLEN], list[256];
	static int cpus[MAX_CPUS];
	static double fair[MAX_CPUS];
	bool assumed = false;
	struct hcbs_global g;
	double reserved, total = 0;
	int ncpu, groups = 0, v = 0;

	if (o->cgroup) {
		snprintf(root, sizeof(root), "%s", o->cgroup);
	} else if (hcbs_cpu_cgroup_root(root, sizeof(root), &v, e, sizeof(e))) {
		die_line(o, NULL, "cannot find the cpu cgroup hierarchy: %s", e);
		return HCBS_EXIT_NOTFOUND;
	}
	if (!has_hcbs(root)) {
		die_line(o, NULL, "kernel without HCBS: no cpu.rt.max nor cpu.rt.stat in %s or its children (boot the hcbs kernel)",
			 root);
		return HCBS_EXIT_NOHCBS;
	}
	if (hcbs_global_read(o->sysctl_dir, &g, e, sizeof(e))) {
		die_line(o, NULL, "%s", e);
		return HCBS_EXIT_SYSTEM;
	}
	if (g.rt_runtime_us < 0)
		warn_line("kernel.sched_rt_runtime_us is -1: admission control is off, nothing is guaranteed");
	ncpu = hcbs_online_cpus(cpus, MAX_CPUS);
	if (ncpu > MAX_CPUS)
		ncpu = MAX_CPUS;
	reserved = hcbs_reserved_below(root, NULL, &groups);
	for (int i = 0; i < ncpu; i++) {
		bool a;

		fair[i] = hcbs_fair_server_bw(o->fs_dir, cpus[i], &a);
		assumed |= a;
		total += g.ratio - fair[i] - reserved;
	}
	cpu_list(cpus, ncpu, list, sizeof(list));

	/* Domain -1 is the default one; then the partitions. */
	static struct domains dom;
	static int members[MAX_CPUS];
	static double dfree[257];
	static char dlist[257][256];
	int ndom;

	memset(&dom, 0, sizeof(dom));
	for (int c = 0; c < MAX_CPUS; c++)
		dom.owner[c] = -1;
	scan_partitions(root, 0, &dom);
	ndom = dom.n + 1;
	for (int k = -1; k < dom.n; k++) {
		int m = 0;

		dfree[k + 1] = 0;
		for (int i = 0; i < ncpu; i++) {
			if (cpus[i] >= MAX_CPUS || dom.owner[cpus[i]] != k)
				continue;
			members[m++] = cpus[i];
			dfree[k + 1] += g.ratio - fair[i] - reserved;
		}
		cpu_list(members, m, dlist[k + 1], sizeof(dlist[k + 1]));
	}

	if (o->json) {
		struct hcbs_json *j = hcbs_json_new(stdout);

		if (!j) {
			free(dom.p);
			return HCBS_EXIT_SYSTEM;
		}
		hcbs_json_object_begin(j);
		json_header(j, "free");
		hcbs_json_key(j, "cgroup_root");
		hcbs_json_string(j, root);
		hcbs_json_key(j, "global");
		hcbs_json_object_begin(j);
		hcbs_json_key(j, "rt_runtime_us");
		hcbs_json_int(j, g.rt_runtime_us);
		hcbs_json_key(j, "rt_period_us");
		hcbs_json_uint(j, g.rt_period_us);
		hcbs_json_key(j, "ratio");
		hcbs_json_double(j, g.ratio);
		hcbs_json_key(j, "admission_control");
		hcbs_json_bool(j, g.rt_runtime_us >= 0);
		hcbs_json_object_end(j);
		hcbs_json_key(j, "reserved_per_cpu");
		hcbs_json_double(j, reserved);
		hcbs_json_key(j, "reserved_groups");
		hcbs_json_int(j, groups);
		hcbs_json_key(j, "fair_server_assumed");
		hcbs_json_bool(j, assumed);
		hcbs_json_key(j, "deadline_tasks_counted");
		hcbs_json_bool(j, false);
		hcbs_json_key(j, "cpus");
		hcbs_json_array_begin(j);
		for (int i = 0; i < ncpu; i++) {
			hcbs_json_object_begin(j);
			hcbs_json_key(j, "cpu");
			hcbs_json_int(j, cpus[i]);
			hcbs_json_key(j, "limit");
			hcbs_json_double(j, g.ratio);
			hcbs_json_key(j, "fair_server");
			hcbs_json_double(j, fair[i]);
			hcbs_json_key(j, "reserved");
			hcbs_json_double(j, reserved);
			hcbs_json_key(j, "free");
			hcbs_json_double(j, g.ratio - fair[i] - reserved);
			hcbs_json_object_end(j);
		}
		hcbs_json_array_end(j);
		hcbs_json_key(j, "root_domains");
		hcbs_json_array_begin(j);
		for (int k = 0; k < ndom; k++) {
			if (!dlist[k][0])
				continue;
			hcbs_json_object_begin(j);
			hcbs_json_key(j, "cpus");
			hcbs_json_string(j, dlist[k]);
			hcbs_json_key(j, "partition");
			hcbs_json_string(j, k ? dom.p[k - 1].path : NULL);
			hcbs_json_key(j, "kind");
			hcbs_json_string(j, k ? dom.p[k - 1].kind : "default");
			hcbs_json_key(j, "free");
			hcbs_json_double(j, dfree[k]);
			hcbs_json_object_end(j);
		}
		hcbs_json_array_end(j);
		hcbs_json_object_end(j);
		free(dom.p);
		return hcbs_json_free(j) ? HCBS_EXIT_SYSTEM : HCBS_EXIT_OK;
	}

	printf("global limit: %.3f per CPU (kernel.sched_rt_runtime_us %lld / sched_rt_period_us %llu)%s\n",
	       g.ratio, (long long)g.rt_runtime_us, (unsigned long long)g.rt_period_us,
	       g.rt_runtime_us < 0 ? " -- admission control OFF" : "");
	printf("reserved:     %.3f per CPU by %d top-level group(s) under %s\n",
	       reserved, groups, root);
	printf("\n%-5s %-7s %-7s %-9s %s\n", "CPU", "LIMIT", "FAIR", "RESERVED", "FREE");
	for (int i = 0; i < ncpu; i++)
		printf("%-5d %-7.3f %-7.3f %-9.3f %.3f\n", cpus[i], g.ratio, fair[i],
		       reserved, g.ratio - fair[i] - reserved);
	printf("\n");
	for (int k = 0; k < ndom; k++) {
		if (!dlist[k][0])
			continue;
		if (k)
			printf("root domain %s (%s partition %s): %.3f CPU free in total\n",
			       dlist[k], dom.p[k - 1].kind, dom.p[k - 1].path, dfree[k]);
		else
			printf("root domain %s%s: %.3f CPU free in total\n", dlist[k],
			       ndom > 1 ? " (default)" : "", dfree[k]);
	}
	if (ndom > 1)
		printf("all CPUs %s: %.3f CPU free in total\n", list, total);
	printf("\nA new top-level reservation Q/P fits if Q/P <= the smallest FREE above.\n");
	if (assumed)
		printf("note: fair server bandwidth assumed 50ms/1s (no /sys/kernel/debug/sched/fair_server).\n");
	printf("note: SCHED_DEADLINE tasks take from the same pool and are not counted here: these are upper bounds.\n");
	free(dom.p);
	return HCBS_EXIT_OK;
}
