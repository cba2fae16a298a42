// SPDX-License-Identifier: GPL-2.0
/*
 * hcbsctl overhead [CPU]: measure what a job costs its server on this
 * machine beyond its own CPU time (tools/lib/overhead.c), for
 * --overhead auto and for the operator who wants the figure.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hcbsctl.h"

int overhead_cpu(const char *arg, int *cpu, char *err, size_t errlen)
{
	int cpus[HCBS_ANALYSIS_MAX_CPUS], n, i;
	char *end;
	long v;

	n = hcbs_online_cpus(cpus, HCBS_ANALYSIS_MAX_CPUS);
	if (n <= 0) {
		snprintf(err, errlen, "cannot read the online CPUs (/sys/devices/system/cpu/online)");
		return HCBS_EXIT_SYSTEM;
	}
	if (!arg) {
		/* the last one: where RT work is usually isolated */
		*cpu = hcbs_overhead_default_cpu();
		return HCBS_EXIT_OK;
	}
	v = strtol(arg, &end, 10);
	if (end == arg || *end || v < 0 || v > INT_MAX) {
		snprintf(err, errlen, "CPU '%s': expected the number of an online CPU, e.g. 1", arg);
		return HCBS_EXIT_USAGE;
	}
	for (i = 0; i < n && i < HCBS_ANALYSIS_MAX_CPUS; i++)
		if (cpus[i] == v)
			break;
	if (i == n || i == HCBS_ANALYSIS_MAX_CPUS) {
		snprintf(err, errlen, "CPU %ld is not online", v);
		return HCBS_EXIT_USAGE;
	}
	*cpu = (int)v;
	return HCBS_EXIT_OK;
}

const char *overhead_warning(const struct hcbs_overhead_measurement *m, char *buf, size_t len)
{
	if (!m->reserved_groups)
		return NULL;
	snprintf(buf, len, "%d reserved group%s on this machine, %d of them on CPU %d: their servers ran beside the measurement and change what it finds; measure where nothing is reserved for this machine's own figure",
		 m->reserved_groups, m->reserved_groups == 1 ? "" : "s", m->reserved_on_cpu, m->cpu);
	return buf;
}

void print_overhead_measurement(const struct hcbs_overhead_measurement *m, const char *indent)
{
	char b1[32], b2[32], b3[32], b4[32], ob[96];

	printf("%smeasured on CPU %d, in a temporary cgroup reserved 40ms/100ms %s (removed):\n",
	       indent, m->cpu, m->cpuset ? "on that CPU alone (its cpuset)" :
	       "on every CPU (no cpuset controller to hold it to one)");
	for (int r = 0; r < HCBS_OVERHEAD_RUNS; r++) {
		const struct hcbs_overhead_run *x = &m->run[r];
		uint64_t per = x->charged / x->jobs;

		printf("%s  %u jobs of %s every %s: server charged %s, %s per job (%s more)\n",
		       indent, x->jobs, hcbs_format_duration(x->work, b1, sizeof(b1)),
		       hcbs_format_duration(x->period, b2, sizeof(b2)),
		       hcbs_format_duration(x->charged, b3, sizeof(b3)),
		       hcbs_format_duration(per, b4, sizeof(b4)),
		       per > x->work ? hcbs_format_duration(per - x->work, b1, sizeof(b1)) : "none");
	}
	printf("%sper job: %s\n", indent, hcbs_format_overhead(&m->fit, ob, sizeof(ob)));
}

void json_overhead_measurement(struct hcbs_json *j, const struct hcbs_overhead_measurement *m)
{
	char w[512];
	const char *warning = overhead_warning(m, w, sizeof(w));

	hcbs_json_object_begin(j);
	hcbs_json_key(j, "cpu");
	hcbs_json_int(j, m->cpu);
	hcbs_json_key(j, "cpuset");
	hcbs_json_bool(j, m->cpuset);
	hcbs_json_key(j, "reserved_groups");
	hcbs_json_int(j, m->reserved_groups);
	hcbs_json_key(j, "reserved_on_cpu");
	hcbs_json_int(j, m->reserved_on_cpu);
	hcbs_json_key(j, "warning");
	if (warning)
		hcbs_json_string(j, warning);
	else
		hcbs_json_null(j);
	hcbs_json_key(j, "runs");
	hcbs_json_array_begin(j);
	for (int r = 0; r < HCBS_OVERHEAD_RUNS; r++) {
		hcbs_json_object_begin(j);
		hcbs_json_key(j, "work_ns");
		hcbs_json_uint(j, m->run[r].work);
		hcbs_json_key(j, "period_ns");
		hcbs_json_uint(j, m->run[r].period);
		hcbs_json_key(j, "jobs");
		hcbs_json_uint(j, m->run[r].jobs);
		hcbs_json_key(j, "charged_ns");
		hcbs_json_uint(j, m->run[r].charged);
		hcbs_json_object_end(j);
	}
	hcbs_json_array_end(j);
	hcbs_json_object_end(j);
}

int measure_overhead(const char *cpu_arg, struct hcbs_overhead_measurement *m, char *err,
		     size_t errlen)
{
	int cpu, ret;

	char w[512];

	ret = overhead_cpu(cpu_arg, &cpu, err, errlen);
	if (ret)
		return ret;
	ret = hcbs_overhead_measure(cpu, m, err, errlen);
	if (m->signal) {
		/* Everything is undone: say so, then die of the signal. */
		err_line("%s", err);
		fflush(NULL);
		signal(m->signal, SIG_DFL);
		raise(m->signal);
		_exit(128 + m->signal);
	}
	if (!ret && overhead_warning(m, w, sizeof(w)))
		warn_line("%s", w);
	return ret;
}

int cmd_overhead(struct opts *o)
{
	struct hcbs_overhead_measurement m;
	char err[HCBS_ERRLEN + 64];
	struct hcbs_json *j;
	int ret;

	ret = measure_overhead(o->nargs ? o->args[0] : NULL, &m, err, sizeof(err));
	if (ret) {
		die_line(o, NULL, "%s", err);
		return ret;
	}
	if (!o->json) {
		print_overhead_measurement(&m, "");
		printf("use: hcbsctl analyze FILE --period P --overhead auto, or --overhead with the figures above\n");
		return HCBS_EXIT_OK;
	}
	j = json_open();
	if (!j)
		return HCBS_EXIT_SYSTEM;
	hcbs_json_object_begin(j);
	json_header(j, "overhead");
	hcbs_json_key(j, "measurement");
	json_overhead_measurement(j, &m);
	hcbs_json_key(j, "overhead");
	hcbs_json_object_begin(j);
	hcbs_json_key(j, "per_job_ns");
	hcbs_json_uint(j, m.fit.per_job);
	hcbs_json_key(j, "percent");
	hcbs_json_double(j, m.fit.centi_percent / 100.0);
	hcbs_json_object_end(j);
	hcbs_json_object_end(j);
	return json_close(j);
}
