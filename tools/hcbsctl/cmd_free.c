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

	if (o->json) {
		struct hcbs_json *j = hcbs_json_new(stdout);

		if (!j)
			return HCBS_EXIT_SYSTEM;
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
		hcbs_json_object_begin(j);
		hcbs_json_key(j, "cpus");
		hcbs_json_string(j, list);
		hcbs_json_key(j, "free");
		hcbs_json_double(j, total);
		hcbs_json_object_end(j);
		hcbs_json_array_end(j);
		hcbs_json_object_end(j);
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
	printf("\nroot domain %s: %.3f CPU free in total\n", list, total);
	printf("\nA new top-level reservation Q/P fits if Q/P <= the smallest FREE above.\n");
	if (assumed)
		printf("note: fair server bandwidth assumed 50ms/1s (no /sys/kernel/debug/sched/fair_server).\n");
	printf("note: SCHED_DEADLINE tasks take from the same pool and are not counted here: these are upper bounds.\n");
	printf("note: one root domain is assumed (cpuset partitions are not taken into account).\n");
	return HCBS_EXIT_OK;
}
