// SPDX-License-Identifier: GPL-2.0
/*
 * The hcbs kernel's RT bandwidth files, and the bandwidth bookkeeping that
 * hcbsctl shows to operators (what is reserved, what is still free).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hcbs.h"
#include "hcbs-rt.h"

const char *hcbs_rt_abi_name(enum hcbs_rt_abi abi)
{
	switch (abi) {
	case HCBS_ABI_RT_MAX:
		return "cpu.rt.max";
	case HCBS_ABI_TWO_FILES:
		return "cpu.rt_runtime_us+cpu.rt_period_us";
	case HCBS_ABI_LEGACY:
		return "legacy RT_GROUP_SCHED";
	default:
		return "none";
	}
}

/* @dir/@name into @buf; false (and an empty @buf) when it does not fit. */
static bool join(char *buf, size_t len, const char *dir, const char *name)
{
	if ((size_t)snprintf(buf, len, "%s/%s", dir, name) < len)
		return true;
	buf[0] = '\0';
	return false;
}

static bool has_file(const char *dir, const char *name)
{
	return hcbs_cgroup_has(dir, name);
}

/*
 * The stock RT_GROUP_SCHED and HCBS both have cpu.rt_runtime_us and
 * cpu.rt_period_us (on cgroup v1).  HCBS is recognised by cpu.rt.stat
 * next to them, or, where it shows only the two files, by its
 * sched_hcbs_server_* tracepoints.
 */
static bool hcbs_tracepoints(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing/events/sched",
		"/sys/kernel/debug/tracing/events/sched",
	};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char p[PATH_MAX];

		if (join(p, sizeof(p), dirs[i], "sched_hcbs_server_start") && !access(p, F_OK))
			return true;
	}
	return false;
}

enum hcbs_rt_abi hcbs_rt_detect(const char *dir)
{
	enum hcbs_rt_abi abi = HCBS_ABI_NONE;
	int dfd = hcbs_cgroup_open(dir, NULL, 0);

	if (dfd < 0)
		return abi;
	if (hcbs_cgroup_has_at(dfd, "cpu.rt.max"))
		abi = HCBS_ABI_RT_MAX;
	else if (hcbs_cgroup_has_at(dfd, "cpu.rt_runtime_us") &&
		 hcbs_cgroup_has_at(dfd, "cpu.rt_period_us"))
		abi = hcbs_cgroup_has_at(dfd, "cpu.rt.stat") || hcbs_tracepoints() ?
		      HCBS_ABI_TWO_FILES : HCBS_ABI_LEGACY;
	close(dfd);
	return abi;
}

static int read_file(const char *dir, const char *name, char **text,
		     char *err, size_t errlen)
{
	return hcbs_cgroup_read(dir, name, text, err, errlen);
}

/* A whole unsigned decimal number, optionally followed by a newline. */
static int parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -ERANGE;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	while (*p == '\n' || *p == ' ')
		p++;
	if (*p)
		return -EINVAL;
	*v = x;
	return 0;
}

int hcbs_rt_parse_max(const char *text, struct hcbs_rt *rt)
{
	char q[32], p[32], extra;
	uint64_t period;

	if (sscanf(text, "%31s %31s %c", q, p, &extra) != 2)
		return -EINVAL;
	if (parse_u64(p, &period) || !period)
		return -EINVAL;
	if (!strcmp(q, "max"))
		rt->runtime_us = HCBS_RT_MAX;
	else if (parse_u64(q, &rt->runtime_us))
		return -EINVAL;
	rt->period_us = period;
	return 0;
}

int hcbs_rt_read(const char *dir, enum hcbs_rt_abi abi, struct hcbs_rt *rt,
		 char *err, size_t errlen)
{
	int dfd = hcbs_cgroup_open(dir, err, errlen), ret;

	if (dfd < 0)
		return dfd;
	ret = hcbs_rt_read_at(dfd, dir, abi, rt, err, errlen);
	close(dfd);
	return ret;
}

int hcbs_rt_read_at(int dfd, const char *dir, enum hcbs_rt_abi abi, struct hcbs_rt *rt,
		    char *err, size_t errlen)
{
	char *a = NULL, *b = NULL;
	int ret;

	if (abi == HCBS_ABI_RT_MAX) {
		ret = hcbs_cgroup_read_at(dfd, dir, "cpu.rt.max", &a, err, errlen);
		if (ret)
			return ret;
		ret = hcbs_rt_parse_max(a, rt);
		if (ret)
			hcbs_seterr(err, errlen, "%s/cpu.rt.max: unexpected content", dir);
		free(a);
		return ret;
	}
	if (abi != HCBS_ABI_TWO_FILES && abi != HCBS_ABI_LEGACY) {
		hcbs_seterr(err, errlen, "%s: no RT bandwidth interface", dir);
		return -EOPNOTSUPP;
	}
	ret = hcbs_cgroup_read_at(dfd, dir, "cpu.rt_runtime_us", &a, err, errlen);
	if (!ret)
		ret = hcbs_cgroup_read_at(dfd, dir, "cpu.rt_period_us", &b, err, errlen);
	if (!ret) {
		if (!strcmp(a, "-1\n") || !strcmp(a, "-1"))
			rt->runtime_us = HCBS_RT_MAX;
		else
			ret = parse_u64(a, &rt->runtime_us);
		if (!ret)
			ret = parse_u64(b, &rt->period_us);
		if (ret)
			hcbs_seterr(err, errlen, "%s: unexpected content in cpu.rt_*_us", dir);
	}
	free(a);
	free(b);
	return ret;
}

int hcbs_rt_read_stat(const char *dir, struct hcbs_rt_stat *st,
		      char *err, size_t errlen)
{
	char *text = NULL, *save = NULL, *line;
	int ret;

	memset(st, 0, sizeof(*st));
	ret = read_file(dir, "cpu.rt.stat", &text, err, errlen);
	if (ret)
		return ret;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char key[64];
		unsigned long long v;

		if (sscanf(line, "%63s %llu", key, &v) != 2)
			continue;
		if (!strcmp(key, "usage_usec"))
			st->usage_usec = v;
		else if (!strcmp(key, "nr_periods"))
			st->nr_periods = v;
		else if (!strcmp(key, "nr_throttled"))
			st->nr_throttled = v;
		else if (!strcmp(key, "throttled_usec"))
			st->throttled_usec = v;
		else if (!strcmp(key, "nr_lagged"))
			st->nr_lagged = v;
		else if (!strcmp(key, "lagged_usec"))
			st->lagged_usec = v;
	}
	free(text);
	st->valid = true;
	return 0;
}

/* ---- the root group's share ---- */

/* The first line of @text, at most 40 printable characters, to quote it. */
static const char *quote(const char *text, char *buf, size_t len)
{
	size_t n = 0;

	for (; *text && *text != '\n' && n + 1 < len && n < 40; text++)
		buf[n++] = *text >= ' ' && *text <= '~' ? *text : '?';
	buf[n] = '\0';
	return buf;
}

static int read_share_rt_max(const char *root, struct hcbs_rt *rt,
			     char *err, size_t errlen)
{
	char *text = NULL, q[48];
	int ret = read_file(root, "cpu.rt.max", &text, err, errlen);

	if (ret)
		return ret;
	if (hcbs_rt_parse_max(text, rt) ||
	    (rt->runtime_us != HCBS_RT_MAX && rt->runtime_us > rt->period_us)) {
		hcbs_seterr(err, errlen, "%s/cpu.rt.max: unexpected content '%s': expected 'max PERIOD' or 'RUNTIME PERIOD' in microseconds, RUNTIME <= PERIOD",
			    root, quote(text, q, sizeof(q)));
		ret = -EINVAL;
	}
	free(text);
	return ret;
}

static int read_share_two_files(const char *root, struct hcbs_rt *rt,
				char *err, size_t errlen)
{
	char *a = NULL, *b = NULL, qa[48], qb[48];
	int ret = read_file(root, "cpu.rt_runtime_us", &a, err, errlen);

	if (!ret)
		ret = read_file(root, "cpu.rt_period_us", &b, err, errlen);
	if (ret)
		goto out;
	if (!strcmp(a, "-1\n") || !strcmp(a, "-1"))
		rt->runtime_us = HCBS_RT_MAX;
	else if (parse_u64(a, &rt->runtime_us))
		ret = -EINVAL;
	if (!ret && (parse_u64(b, &rt->period_us) || !rt->period_us ||
		     (rt->runtime_us != HCBS_RT_MAX && rt->runtime_us > rt->period_us)))
		ret = -EINVAL;
	if (ret)
		hcbs_seterr(err, errlen, "%s/cpu.rt_runtime_us, cpu.rt_period_us: unexpected content '%s', '%s': expected -1 or RUNTIME, and PERIOD, in microseconds, RUNTIME <= PERIOD",
			    root, quote(a, qa, sizeof(qa)), quote(b, qb, sizeof(qb)));
out:
	free(a);
	free(b);
	return ret;
}

int hcbs_root_share_read(const char *root, struct hcbs_root_share *s,
			 char *err, size_t errlen)
{
	int ret = 0;

	s->abi = HCBS_ABI_NONE;
	s->rt.runtime_us = HCBS_RT_MAX;
	s->rt.period_us = 0;
	/* The kernel shows both forms on the root; cpu.rt.max is atomic. */
	if (has_file(root, "cpu.rt.max")) {
		s->abi = HCBS_ABI_RT_MAX;
		ret = read_share_rt_max(root, &s->rt, err, errlen);
	} else if (has_file(root, "cpu.rt_runtime_us") &&
		   has_file(root, "cpu.rt_period_us")) {
		s->abi = HCBS_ABI_TWO_FILES;
		ret = read_share_two_files(root, &s->rt, err, errlen);
	}
	if (ret) {
		/* Never half-read: callers that go on see "not set". */
		s->rt.runtime_us = HCBS_RT_MAX;
		s->rt.period_us = 0;
	}
	return ret;
}

bool hcbs_tree_has_hcbs(const char *root)
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

		if (e->d_name[0] == '.' || !join(sub, sizeof(sub), root, e->d_name))
			continue;
		abi = hcbs_rt_detect(sub);
		found = abi == HCBS_ABI_RT_MAX || abi == HCBS_ABI_TWO_FILES;
	}
	closedir(d);
	return found;
}

const char *hcbs_rt_format(const struct hcbs_rt *rt, char *buf, size_t len)
{
	char q[32], p[32];

	hcbs_format_duration(rt->period_us * 1000, p, sizeof(p));
	if (rt->runtime_us == HCBS_RT_MAX)
		snprintf(buf, len, "max/%s", p);
	else
		snprintf(buf, len, "%s/%s",
			 hcbs_format_duration(rt->runtime_us * 1000, q, sizeof(q)), p);
	return buf;
}

double hcbs_rt_bw(const struct hcbs_rt *rt)
{
	if (rt->runtime_us == HCBS_RT_MAX || !rt->period_us)
		return 0.0;
	return (double)rt->runtime_us / (double)rt->period_us;
}

/* ---- the write plan ---- */

typedef unsigned __int128 u128;

static void format_value(const char *file, const struct hcbs_rt *s,
			 char *buf, size_t len)
{
	if (!strcmp(file, "cpu.rt.max")) {
		if (s->runtime_us == HCBS_RT_MAX)
			snprintf(buf, len, "max %" PRIu64, s->period_us);
		else
			snprintf(buf, len, "%" PRIu64 " %" PRIu64, s->runtime_us, s->period_us);
	} else if (!strcmp(file, "cpu.rt_runtime_us")) {
		if (s->runtime_us == HCBS_RT_MAX)
			snprintf(buf, len, "-1");
		else
			snprintf(buf, len, "%" PRIu64, s->runtime_us);
	} else {
		snprintf(buf, len, "%" PRIu64, s->period_us);
	}
}

struct plan {
	struct hcbs_rt_step *steps;
	int n, max;
	struct hcbs_rt cur;
};

static int emit(struct plan *pl, const char *file, uint64_t q, uint64_t p)
{
	struct hcbs_rt_step *s;

	if (pl->n >= pl->max)
		return -E2BIG;
	s = &pl->steps[pl->n++];
	s->file = file;
	s->before = pl->cur;
	pl->cur.runtime_us = q;
	pl->cur.period_us = p;
	s->after = pl->cur;
	format_value(file, &s->after, s->value, sizeof(s->value));
	return 0;
}

static int finish(const struct plan *pl, int ret)
{
	return ret ? ret : pl->n;
}

/* Largest runtime at period @p whose bandwidth is <= max(b0, b1). */
static uint64_t max_q(const struct hcbs_rt *a, const struct hcbs_rt *b, uint64_t p)
{
	uint64_t x = (uint64_t)((u128)a->runtime_us * p / a->period_us);
	uint64_t y = (uint64_t)((u128)b->runtime_us * p / b->period_us);

	x = x > y ? x : y;
	return x < p ? x : p;
}

/* Smallest runtime at period @p whose bandwidth is >= @f. */
static uint64_t min_q(double f, uint64_t p)
{
	double v = ceil(f * (double)p - 1e-6);

	return v <= 0 ? 0 : (uint64_t)v;
}

/* Runtimes valid at both periods @p and @pn: [lo, hi]; false if none. */
static bool window(const struct hcbs_rt *a, const struct hcbs_rt *b, double f,
		   uint64_t p, uint64_t pn, uint64_t *lo, uint64_t *hi)
{
	uint64_t small = p < pn ? p : pn, big = p < pn ? pn : p;

	*lo = min_q(f, big);
	*hi = max_q(a, b, small);
	return *lo <= *hi;
}

int hcbs_rt_plan(enum hcbs_rt_abi abi, const struct hcbs_rt *from,
		 const struct hcbs_rt *to, double floor_bw,
		 struct hcbs_rt_step *steps, int max_steps)
{
	struct plan pl = { steps, 0, max_steps, *from };
	uint64_t q1 = to->runtime_us, p1 = to->period_us;
	int ret = 0;

	if (!to->period_us || !from->period_us ||
	    (q1 != HCBS_RT_MAX && q1 > p1))
		return -EINVAL;
	if (abi == HCBS_ABI_RT_MAX)
		return finish(&pl, emit(&pl, "cpu.rt.max", q1, p1));

	/* "max" has no bandwidth: any period is fine around it. */
	if (q1 == HCBS_RT_MAX) {
		if (from->runtime_us != HCBS_RT_MAX)
			ret = emit(&pl, "cpu.rt_runtime_us", HCBS_RT_MAX, from->period_us);
		if (!ret && p1 != from->period_us)
			ret = emit(&pl, "cpu.rt_period_us", HCBS_RT_MAX, p1);
		return finish(&pl, ret);
	}
	if (from->runtime_us == HCBS_RT_MAX) {
		if (p1 != from->period_us)
			ret = emit(&pl, "cpu.rt_period_us", HCBS_RT_MAX, p1);
		if (!ret)
			ret = emit(&pl, "cpu.rt_runtime_us", q1, p1);
		return finish(&pl, ret);
	}

	/* Never ask more of the children than either end gives them. */
	double f = floor_bw;

	if (f > hcbs_rt_bw(from))
		f = hcbs_rt_bw(from);
	if (f > hcbs_rt_bw(to))
		f = hcbs_rt_bw(to);
	if (f < 0)
		f = 0;

	while (pl.cur.period_us != p1) {
		uint64_t p = pl.cur.period_us, q = pl.cur.runtime_us;
		uint64_t lo, hi, pn = p1, x;

		if (!window(from, to, f, p, p1, &lo, &hi)) {
			/* Binary search the farthest reachable period. */
			uint64_t good = p, bad = p1;

			while (good + 1 < bad || bad + 1 < good) {
				uint64_t mid = good < bad ? good + (bad - good) / 2 :
							    bad + (good - bad + 1) / 2;

				if (window(from, to, f, p, mid, &lo, &hi))
					good = mid;
				else
					bad = mid;
			}
			if (good == p)
				return -EDOM;
			pn = good;
			window(from, to, f, p, pn, &lo, &hi);
		}
		if (q >= lo && q <= hi)
			x = q;
		else if (pn == p1 && q1 >= lo && q1 <= hi)
			x = q1;
		else
			x = q < lo ? lo : hi;
		if (x != q && (ret = emit(&pl, "cpu.rt_runtime_us", x, p)))
			return ret;
		if ((ret = emit(&pl, "cpu.rt_period_us", x, pn)))
			return ret;
	}
	if (pl.cur.runtime_us != q1 &&
	    (ret = emit(&pl, "cpu.rt_runtime_us", q1, p1)))
		return ret;
	return pl.n;
}

int hcbs_rt_apply(int dfd, const struct hcbs_rt_step *steps, int n,
		  int *failed_step, bool *rolled_back)
{
	*failed_step = -1;
	*rolled_back = true;
	for (int i = 0; i < n; i++) {
		int ret = hcbs_cgroup_write_at(dfd, steps[i].file, steps[i].value);

		if (!ret)
			continue;
		*failed_step = i;
		for (int k = i - 1; k >= 0; k--) {
			char v[48];

			format_value(steps[k].file, &steps[k].before, v, sizeof(v));
			if (hcbs_cgroup_write_at(dfd, steps[k].file, v))
				*rolled_back = false;
		}
		return ret;
	}
	return 0;
}

/* ---- global limits, fair servers, reserved bandwidth ---- */

static int read_i64(const char *path, int64_t *v)
{
	char *t = NULL;
	long long x;
	char end;
	int ret = hcbs_read_text(path, &t, NULL, 0);

	if (ret)
		return ret;
	if (sscanf(t, "%lld%c", &x, &end) < 1)
		ret = -EINVAL;
	else
		*v = x;
	free(t);
	return ret;
}

int hcbs_global_read(const char *sysctl_dir, struct hcbs_global *g,
		     char *err, size_t errlen)
{
	char p[PATH_MAX];
	int64_t rt, per;
	int ret;

	if (!sysctl_dir)
		sysctl_dir = "/proc/sys/kernel";
	snprintf(p, sizeof(p), "%s/sched_rt_runtime_us", sysctl_dir);
	ret = read_i64(p, &rt);
	if (!ret) {
		snprintf(p, sizeof(p), "%s/sched_rt_period_us", sysctl_dir);
		ret = read_i64(p, &per);
	}
	if (ret) {
		hcbs_seterr(err, errlen, "%s: %s", p, strerror(-ret));
		return ret;
	}
	if (per <= 0) {
		hcbs_seterr(err, errlen, "%s: unexpected period %lld", p, (long long)per);
		return -EINVAL;
	}
	g->rt_runtime_us = rt;
	g->rt_period_us = (uint64_t)per;
	g->ratio = rt < 0 ? 1.0 : (double)rt / (double)per;
	return 0;
}

double hcbs_fair_server_bw(const char *fs_dir, int cpu, bool *assumed)
{
	char p[PATH_MAX];
	int64_t rt, per;

	if (!fs_dir)
		fs_dir = "/sys/kernel/debug/sched/fair_server";
	snprintf(p, sizeof(p), "%s/cpu%d/runtime", fs_dir, cpu);
	if (!read_i64(p, &rt)) {
		snprintf(p, sizeof(p), "%s/cpu%d/period", fs_dir, cpu);
		if (!read_i64(p, &per) && per > 0 && rt >= 0) {
			*assumed = false;
			return (double)rt / (double)per;
		}
	}
	*assumed = true;
	return 50000000.0 / 1000000000.0;	/* kernel default: 50ms every 1s */
}

static bool is_cgroup_dir(const char *dir)
{
	return has_file(dir, "cgroup.procs");
}

int hcbs_rt_cpus(const char *dir, int *cpus, int max)
{
	char *text = NULL;
	int n;

	if (read_file(dir, "cpu.rt.cpus", &text, NULL, 0))
		return -ENOENT;
	n = hcbs_parse_cpulist(text, cpus, max);
	free(text);
	return n;
}

bool hcbs_rt_on_cpu(const char *dir, int cpu)
{
	char *text = NULL;
	bool on = true;	/* no cpu.rt.cpus: every CPU */
	int n, *cpus;

	if (read_file(dir, "cpu.rt.cpus", &text, NULL, 0))
		return on;
	/* One read: count, then list the CPUs of the same text. */
	n = hcbs_parse_cpulist(text, NULL, 0);
	cpus = n > 0 ? calloc((size_t)n, sizeof(*cpus)) : NULL;
	if (cpus) {
		n = hcbs_parse_cpulist(text, cpus, n);
		on = false;
		for (int i = 0; i < n && !on; i++)
			on = cpus[i] == cpu;
	} else if (!n) {
		on = false;	/* an empty list: no CPU */
	}
	/* else malformed or no memory: count it, never report room that is not there */
	free(cpus);
	free(text);
	return on;
}

double hcbs_reserved_below(const char *under, const char *skip, int *count)
{
	return hcbs_reserved_below_cpu(under, skip, -1, count);
}

double hcbs_reserved_below_cpu(const char *under, const char *skip, int cpu,
			       int *count)
{
	DIR *d = opendir(under);
	struct dirent *e;
	double sum = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char sub[PATH_MAX];
		struct hcbs_rt rt;
		enum hcbs_rt_abi abi;

		if (e->d_name[0] == '.' && (!e->d_name[1] ||
		    (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		if (!join(sub, sizeof(sub), under, e->d_name))
			continue;
		if (!is_cgroup_dir(sub) || (skip && !strcmp(sub, skip)))
			continue;
		abi = hcbs_rt_detect(sub);
		if ((abi == HCBS_ABI_RT_MAX || abi == HCBS_ABI_TWO_FILES) && !hcbs_rt_read(sub, abi, &rt, NULL, 0) &&
		    rt.runtime_us != HCBS_RT_MAX) {
			if (cpu < 0 || hcbs_rt_on_cpu(sub, cpu)) {
				sum += hcbs_rt_bw(&rt);
				(*count)++;
			}
		} else {
			sum += hcbs_reserved_below_cpu(sub, skip, cpu, count);
		}
	}
	closedir(d);
	return sum;
}

bool hcbs_reserved_ancestor(const char *dir, const char *root, char *anc,
			    size_t len, struct hcbs_rt *rt)
{
	char cur[PATH_MAX];

	snprintf(cur, sizeof(cur), "%s", dir);
	for (;;) {
		char *s = strrchr(cur, '/');
		enum hcbs_rt_abi abi;

		if (!s || s == cur)
			return false;
		*s = '\0';
		if (!strcmp(cur, root) || strlen(cur) < strlen(root))
			return false;
		abi = hcbs_rt_detect(cur);
		if ((abi == HCBS_ABI_RT_MAX || abi == HCBS_ABI_TWO_FILES) && !hcbs_rt_read(cur, abi, rt, NULL, 0) &&
		    rt->runtime_us != HCBS_RT_MAX) {
			snprintf(anc, len, "%s", cur);
			return true;
		}
	}
}

void hcbs_cgroup_top(const char *dir, char *top, size_t len)
{
	char cur[PATH_MAX];

	snprintf(cur, sizeof(cur), "%s", dir);
	snprintf(top, len, "%s", cur);
	for (;;) {
		char *s = strrchr(cur, '/');

		if (!s || s == cur)
			return;
		*s = '\0';
		if (!is_cgroup_dir(cur))
			return;
		snprintf(top, len, "%s", cur);
	}
}

bool hcbs_cgroup_is_top(const char *dir)
{
	char top[PATH_MAX];

	hcbs_cgroup_top(dir, top, sizeof(top));
	return !strcmp(top, dir);
}

int hcbs_cpu_cgroup_root(char *path, size_t len, int *version,
			 char *err, size_t errlen)
{
	const char *proc = hcbs_test_env("HCBS_TEST_PROC");
	char *cg = NULL, *mi = NULL, *save = NULL, *line;
	char synth[4096] = "", file[4096];
	size_t used = 0;
	int ret;

	snprintf(file, sizeof(file), "%s/self/cgroup", proc ? proc : "/proc");
	ret = hcbs_read_text(file, &cg, err, errlen);
	if (ret)
		return ret;
	for (line = strtok_r(cg, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		c2[1] = '\0';
		used += (size_t)snprintf(synth + used, used < sizeof(synth) ?
					 sizeof(synth) - used : 0, "%s/\n", line);
	}
	free(cg);
	if (used >= sizeof(synth)) {
		hcbs_seterr(err, errlen, "/proc/self/cgroup too long");
		return -E2BIG;
	}
	snprintf(file, sizeof(file), "%s/self/mountinfo", proc ? proc : "/proc");
	ret = hcbs_read_text(file, &mi, err, errlen);
	if (!ret)
		ret = hcbs_cgroup_resolve(synth, mi, path, len, version, err, errlen);
	free(mi);
	return ret;
}

int hcbs_cpu_hierarchy_check(char *err, size_t errlen)
{
	const char *proc = hcbs_test_env("HCBS_TEST_PROC");
	char file[4096], *mi = NULL;
	bool mounted;

	snprintf(file, sizeof(file), "%s/self/mountinfo", proc ? proc : "/proc");
	if (hcbs_read_text(file, &mi, NULL, 0))
		return HCBS_EXIT_OK;	/* cannot tell: the caller's own error stands */
	mounted = hcbs_mountinfo_has_cpu_hierarchy(mi);
	free(mi);
	if (mounted)
		return HCBS_EXIT_OK;
	hcbs_seterr(err, errlen, "no cpu cgroup hierarchy is mounted (none in /proc/self/mountinfo): expected cgroup2, or cgroup v1 with the cpu controller");
	return HCBS_EXIT_NOHCBS;
}
