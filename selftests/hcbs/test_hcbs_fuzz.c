// SPDX-License-Identifier: GPL-2.0
/*
 * A seeded random writer of the HCBS cgroup interface, run against a model
 * of what the kernel must do.  For HCBS_FUZZ_WRITES writes (default 10^5)
 * it picks, at random:
 *
 *   - cpu.rt.max of a group (69 % of the operations): well-formed and
 *     malformed values (every form: "Q P", "Q", "max", "max P"; blanks,
 *     signs, overflowing numbers, periods at and beyond the limits, runtimes
 *     of 0, 1 us, = P, > P; random bytes);
 *   - cpu.rt_runtime_us / cpu.rt_period_us (17 %; the two-file form, whose
 *     numbers the cgroup core reads with kstrtoll/kstrtoull, base 0);
 *   - cpuset.cpus of a group (10 %): lists the kernel takes ("", "0", "1",
 *     "0-1", "0,1", "N", "all", "0-1:1/2", ...), malformed ones ("2-0",
 *     "x", "0-", "-1", "0-1:2/1", ...), CPUs the machine does not have
 *     ("2", "99", numbers past an unsigned int), random bytes; blanks
 *     around them.  The cpu and cpuset controllers are enabled together
 *     in the test's top group and every inner group;
 *   - cgroup.procs of a group (2 %): one of four SCHED_FIFO tasks, pinned
 *     to CPU 1, that run a little (100 us) every 2-5 ms, moved to another
 *     group, then pinned to CPU 1 again (sched_setaffinity());
 *   - mkdir of a nested group (1 %; depth <= 4, inner groups with +cpu
 *     +cpuset in cgroup.subtree_control, leaves without), rmdir of one (1 %).
 *
 * It asserts:
 *   - every failed write failed with an errno of its class:
 *       cpu.rt.max: EINVAL exactly when the kernel's grammar and limits
 *         (period within sched_deadline_period_{min,max}_us, runtime 0 or
 *         >= 1024 ns and <= period) refuse the value, as modelled below;
 *         otherwise only EBUSY (admission: the hierarchy or the global
 *         limit would over-commit on some CPU, or RT tasks would be left
 *         without runtime);
 *       the two files: EINVAL or ERANGE (kstrto*: malformed, overflow)
 *         exactly as modelled, else EBUSY;
 *       cpuset.cpus: EINVAL, ERANGE (a CPU >= nr_cpu_ids) or EOVERFLOW (a
 *         number past an unsigned int) exactly as the kernel's list
 *         grammar (strstrip() + bitmap_parselist(), modelled below) says;
 *         a list it takes: success if it is the group's cpuset.cpus
 *         already, else success or EBUSY (admission: a reservation would
 *         not fit on a CPU it newly covers, or RT tasks would be left
 *         without runtime); an empty list on a group whose subtree holds a
 *         task and whose cpuset.cpus is not empty only EBUSY or ENOSPC,
 *         never success (cgroup v2 keeps CPUs in a populated cpuset);
 *         CPUs outside the parent's are not an error on cgroup v2 (the
 *         group then has its parent's);
 *       cgroup.procs: EINVAL (the group forbids RT: runtime 0 on it or on
 *         the reservation it runs in, or its servers have no runtime left
 *         on some of its CPUs),
 *         EBUSY (cgroup v2's no-internal-process rule: the group has
 *         controllers in cgroup.subtree_control and populated children) or
 *         EOPNOTSUPP (cgroup v2: a domain group below a group that holds
 *         processes with the threaded cpu and cpuset controllers enabled is
 *         invalid); a group with only threaded controllers in its
 *         subtree_control and no populated children may take a task;
 *       sched_setaffinity(CPU 1) of a moved task: EINVAL exactly when its
 *         group's cpuset does not have CPU 1, else success;
 *       rmdir: EBUSY exactly when the group has children or tasks;
 *       mkdir: never fails; +cpu +cpuset in a new group's subtree_control
 *         only with EOPNOTSUPP (its parent became a thread root, see above).
 *     EPERM is not accepted: the test runs as root (CAP_SYS_NICE), for
 *     which the kernel has no other reason to refuse.
 *   - the files always read back what was accepted: after every accepted
 *     write (and one failed write in four) cpu.rt.max is the model's state;
 *     after a cpuset.cpus write that changed the CPUs, the group's
 *     cpuset.cpus and the cpu.rt.cpus of the group and of every group
 *     below it are the model's, and after one that changed nothing
 *     (always when admission refused it, one in four refused by the parser
 *     or writing the same CPUs again) the group's cpuset.cpus and
 *     cpu.rt.cpus are as before; at every check all three rt files,
 *     cpuset.cpus, cpu.rt.cpus and cpuset.cpus.effective of every group
 *     say the same (a failed write changed nothing).  cpu.rt.cpus is modelled exactly: the group's
 *     cpuset.cpus within its parent's CPUs, the parent's if that leaves
 *     none, every possible CPU at the top.  A moved task is in its new
 *     group (/proc/PID/cgroup), or in its old one if the move failed; the
 *     affinity of a task is CPU 1 where its group's CPUs have it, else
 *     those CPUs (the kernel applies the mask asked for again when the
 *     cpuset allows it), after every move and every accepted cpuset write
 *     above it and at every check;
 *   - admission never over-commits: every 2048 writes and at the end, over
 *     the whole cgroup tree, CPU by CPU (a reserved group counts on the CPUs
 *     of its cpu.rt.cpus) and in the kernel's fixed point (to_ratio(), 2^-20
 *     units), the reserved groups nearest below the root sum on every
 *     online CPU to at most sched_rt_runtime_us / sched_rt_period_us minus
 *     that CPU's fair server's bandwidth, and on every CPU the reserved
 *     groups nearest below a reserved group fit in it; each CPU's
 *     rt_groups_bw in debugfs is that CPU's sum (with the root's share
 *     unset; a removed group's bandwidth is waited for up to 2 s, as its
 *     cpu css goes offline after rmdir() returns);
 *   - no splat (scripts/vm-run checks the console), no leaked bandwidth
 *     (the fixture's teardown).
 *
 * The seed is printed; HCBS_FUZZ_SEED=N reproduces a run (the sequence of
 * operations depends only on the seed and on the kernel's answers).  The
 * run stops at HCBS_FUZZ_SECONDS (default 150) if it has not made its
 * writes by then, and fails if that leaves fewer than HCBS_FUZZ_WRITES;
 * under TCG (lockdep on) it took about 60 s here before it wrote
 * cpuset.cpus, and takes about 1.2 times as long with it (80 s beside
 * another guest on a 2-core host, where the old mix took 65-92 s).  The
 * budget was 85 s until a CI run beside another guest made only 96512
 * writes of the old mix in it: the writes are the point, not their
 * speed, and a budget tighter than twice a quiet run fails on load.  The
 * harness allows 1000 s (scripts/soak gives KASAN kernels 900 s); in a
 * CI run, run-guest's timeout bounds it.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "hcbs_ksft.h"

#define NGROUPS		24
#define NTASKS		4
#define MAXDEPTH	4
#define PATHLEN		512
#define RT_MAX		UINT64_MAX	/* model: runtime "max" */
#define HISTORY		24

enum gfile { F_MAX, F_RUNTIME, F_PERIOD, F_PROCS, F_CPUS, F_RTCPUS, F_EFFECTIVE, F_NFILES };
static const char *const gfile_name[] = {
	"cpu.rt.max", "cpu.rt_runtime_us", "cpu.rt_period_us", "cgroup.procs",
	"cpuset.cpus", "cpu.rt.cpus", "cpuset.cpus.effective",
};

struct group {
	bool live;
	bool inner;		/* +cpu +cpuset in cgroup.subtree_control */
	int parent;		/* -1: the test's top group */
	int depth;
	char path[PATHLEN];
	uint64_t runtime;	/* us, RT_MAX for max */
	uint64_t period;	/* us */
	uint64_t cpuset;	/* cpuset.cpus (cpus_allowed), a CPU mask; 0: empty */
	/*
	 * Open files of the group, by enum gfile: a write(2) or pread(2) on an
	 * open cgroup file is one call into the kernel's handler, where
	 * open+write+close would be three (and under TCG the writes must be
	 * cheap to make 10^5 of them in time).
	 */
	int fd[F_NFILES];
};

struct fuzz {
	struct __test_metadata *md;
	struct hcbs_env *env;
	uint64_t rng, seed;
	struct group g[NGROUPS];
	pid_t task[NTASKS];
	int task_group[NTASKS], ntasks;
	uint64_t pmin, pmax;	/* sched_deadline_period_{min,max}_us */
	char hist[HISTORY][160];
	unsigned int nhist;
	unsigned long writes, ok, einval, ebusy, erange, moves, mkdirs, rmdirs;
	/* cpuset.cpus writes; EINVAL, ERANGE and EOVERFLOW of the parser */
	unsigned long cpus_writes, cpus_ok, cpus_einval, cpus_erange, cpus_ebusy, cpus_enospc;
	unsigned long repins, repins_refused;
	unsigned long checks, bw_waits;
	uint64_t fair_bw;	/* the largest fair server's, fixed point */
	uint64_t fair[HCBS_MAX_CPUS];	/* each CPU's fair server, fixed point */
	int nr_cpus;		/* online */
	unsigned int nr_cpu_ids;	/* the last possible CPU + 1: cpulist_parse()'s width */
	uint64_t possible, online;	/* CPU masks */
	volatile uint64_t op_start_ns;	/* 0: between operations */
	volatile bool done;
	/* time spent (ns) and count per kind of operation, for the report */
	uint64_t t_ns[8], n_op[8];
};

/* ------------------------------------------------------------ randomness */
static uint64_t rnd(struct fuzz *f)
{
	/* xorshift64* */
	f->rng ^= f->rng >> 12;
	f->rng ^= f->rng << 25;
	f->rng ^= f->rng >> 27;
	return f->rng * 2685821657736338717ULL;
}

static uint64_t below(struct fuzz *f, uint64_t n)
{
	return n ? rnd(f) % n : 0;
}

static bool chance(struct fuzz *f, unsigned int pct)
{
	return below(f, 100) < pct;
}

static void remember(struct fuzz *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->hist[f->nhist++ % HISTORY], sizeof(f->hist[0]), fmt, ap);
	va_end(ap);
}

/* The last operations, on a failure. */
static void history(struct fuzz *f)
{
	unsigned int i = f->nhist > HISTORY ? f->nhist - HISTORY : 0;

	hcbs_note("the last %u operations (HCBS_FUZZ_SEED=%" PRIu64 " reproduces them):",
		  f->nhist - i, f->seed);
	for (; i < f->nhist; i++)
		hcbs_note("  %u: %s", i, f->hist[i % HISTORY]);
}

#define FUZZ_FAIL(f, ...) do {						\
	history(f);							\
	struct __test_metadata *_metadata = (f)->md;			\
	TH_LOG(__VA_ARGS__);						\
	ASSERT_TRUE(0);							\
} while (0)

/* --------------------------------------------------- the kernel's parsers */
/* lib/ctype.c: isspace() is true for 9-13, 32 and 160 (Latin-1's no-break space) */
static bool k_isspace(char c)
{
	unsigned char u = (unsigned char)c;

	return u == ' ' || (u >= '\t' && u <= '\r') || u == 0xa0;
}

/* lib/kstrtox.c: _kstrtoull() */
static int k_strtoull_raw(const char *s, unsigned int base, uint64_t *res)
{
	uint64_t r = 0;
	unsigned int n = 0;
	bool over = false;

	if (base == 0) {
		if (s[0] == '0')
			base = (tolower((unsigned char)s[1]) == 'x' && isxdigit((unsigned char)s[2])) ? 16 : 8;
		else
			base = 10;
	}
	if (base == 16 && s[0] == '0' && tolower((unsigned char)s[1]) == 'x')
		s += 2;
	for (;; s++, n++) {
		unsigned int c = (unsigned char)*s, lc = tolower(c), v;

		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (lc >= 'a' && lc <= 'f')
			v = lc - 'a' + 10;
		else
			break;
		if (v >= base)
			break;
		if ((r & (~0ULL << 60)) && r > (UINT64_MAX - v) / base)
			over = true;
		r = r * base + v;
	}
	if (over)
		return -ERANGE;
	if (!n)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*res = r;
	return 0;
}

static int k_strtoull(const char *s, unsigned int base, uint64_t *res)
{
	if (s[0] == '+')
		s++;
	return k_strtoull_raw(s, base, res);
}

static int k_strtoll(const char *s, unsigned int base, int64_t *res)
{
	uint64_t t;
	int r;

	if (s[0] == '-') {
		r = k_strtoull_raw(s + 1, base, &t);
		if (r)
			return r;
		if ((int64_t)-t > 0)
			return -ERANGE;
		*res = (int64_t)-t;
		return 0;
	}
	r = k_strtoull(s, base, &t);
	if (r)
		return r;
	if ((int64_t)t < 0)
		return -ERANGE;
	*res = (int64_t)t;
	return 0;
}

/* dl_server_params_valid(), in us */
static bool params_valid(struct fuzz *f, uint64_t runtime, uint64_t period)
{
	uint64_t q = runtime == RT_MAX ? 0 : runtime;

	if (period < f->pmin || period > f->pmax)
		return false;
	if (q && q * 1000 < 1024)
		return false;
	return q <= period;
}

/*
 * cpu_rt_max_parse() + the checks of sched_group_set_rt_bandwidth() that
 * come before admission: 0 and the new state, or -EINVAL.
 */
static int model_rt_max(struct fuzz *f, const struct group *g, const char *in,
			uint64_t *runtime, uint64_t *period)
{
	char buf[256], *s = buf, *e, *tok;
	uint64_t q = 0, p = g->period;
	bool inf = false;

	snprintf(buf, sizeof(buf), "%s", in);
	while (k_isspace(*s))
		s++;
	e = s + strlen(s);
	while (e > s && k_isspace(e[-1]))
		*--e = '\0';
	tok = strsep(&s, " \t");
	if (!tok || !*tok)
		return -EINVAL;
	if (!strcmp(tok, "max"))
		inf = true;
	else if (k_strtoull(tok, 10, &q))
		return -EINVAL;
	if (s) {
		while (k_isspace(*s))
			s++;
		if (k_strtoull(s, 10, &p))
			return -EINVAL;
	}
	if (p > UINT64_MAX / 1000 || (!inf && q > UINT64_MAX / 1000))
		return -EINVAL;
	*runtime = inf ? RT_MAX : q;
	*period = p;
	return params_valid(f, *runtime, *period) ? 0 : -EINVAL;
}

/* cpu.rt_runtime_us: kstrtoll(buf, 0), negative = max */
static int model_rt_runtime(struct fuzz *f, const struct group *g, const char *in,
			    uint64_t *runtime)
{
	int64_t v;
	int r = k_strtoll(in, 0, &v);

	if (r)
		return r;
	if (v < 0)
		*runtime = RT_MAX;
	else if ((uint64_t)v > UINT64_MAX / 1000)
		return -EINVAL;
	else
		*runtime = (uint64_t)v;
	return params_valid(f, *runtime, g->period) ? 0 : -EINVAL;
}

/* cpu.rt_period_us: kstrtoull(buf, 0) */
static int model_rt_period(struct fuzz *f, const struct group *g, const char *in,
			   uint64_t *period)
{
	int r = k_strtoull(in, 0, period);

	if (r)
		return r;
	if (*period > UINT64_MAX / 1000)
		return -EINVAL;
	return params_valid(f, g->runtime, *period) ? 0 : -EINVAL;
}

/* lib/bitmap-str.c: bitmap_getnum() */
static const char *k_getnum(const char *s, unsigned int *num, unsigned int lastbit, int *err)
{
	uint64_t n = 0;
	unsigned int len = 0;
	bool over = false;

	if (s[0] == 'N') {
		*num = lastbit;
		return s + 1;
	}
	/* _parse_integer(s, 10): hex letters end the number too */
	for (; *s >= '0' && *s <= '9'; s++, len++) {
		unsigned int v = (unsigned int)(*s - '0');

		if ((n & (~0ULL << 60)) && n > (UINT64_MAX - v) / 10)
			over = true;
		n = n * 10 + v;
	}
	if (!len)
		*err = -EINVAL;
	else if (over || n > UINT_MAX)
		*err = -EOVERFLOW;
	*num = (unsigned int)n;
	return s;
}

/*
 * cpuset_write_resmask() + update_cpumask() up to the CPUs: strstrip(),
 * an empty list, else cpulist_parse() (bitmap_parselist(): regions
 * "A", "A-B", "A-B:U/G", "all", "N" for the last bit, separated by commas
 * or blanks, a newline ending the list) over @nbits bits.  0 and the mask,
 * or -EINVAL, -ERANGE (a CPU >= nr_cpu_ids), -EOVERFLOW (a number beyond
 * an unsigned int).
 */
static int k_cpulist(const char *in, unsigned int nbits, uint64_t *mask)
{
	char buf[256], *e;
	const char *s = buf;
	unsigned int lastbit = nbits - 1;

	*mask = 0;
	snprintf(buf, sizeof(buf), "%s", in);
	e = buf + strlen(buf);
	while (e > buf && k_isspace(e[-1]))
		*--e = '\0';
	while (k_isspace(*s))
		s++;
	while (s) {
		unsigned int start, end, off, glen;
		int err = 0;

		while (*s == ',' || k_isspace(*s))	/* bitmap_find_region() */
			s++;
		if (!*s || *s == '\n')
			return 0;
		if (!strncasecmp(s, "all", 3)) {
			start = 0;
			end = lastbit;
			s += 3;
		} else {
			s = k_getnum(s, &start, lastbit, &err);
			if (err)
				return err;
			if (!*s || *s == ',' || k_isspace(*s)) {
				end = start;
				goto no_pattern;
			}
			if (*s != '-')
				return -EINVAL;
			s = k_getnum(s + 1, &end, lastbit, &err);
			if (err)
				return err;
		}
		if (!*s || *s == ',' || k_isspace(*s))
			goto no_pattern;
		if (*s != ':')
			return -EINVAL;
		s = k_getnum(s + 1, &off, lastbit, &err);
		if (err)
			return err;
		if (*s != '/')
			return -EINVAL;
		s = k_getnum(s + 1, &glen, lastbit, &err);
		if (err)
			return err;
		goto check;
no_pattern:
		off = end + 1;
		glen = end + 1;
		if (!*s || *s == '\n')
			s = NULL;
check:					/* bitmap_check_region() */
		if (start > end || !glen || off > glen)
			return -EINVAL;
		if (end >= nbits)
			return -ERANGE;
		/*
		 * bitmap_set_region(), without its unsigned int wrap-around:
		 * the kernel's loop takes "1-1:1/4294967295" for CPUs 0-1
		 * (start + group length wraps to 0), a value not generated
		 * here.
		 */
		for (uint64_t b = start; b <= end; b += glen)
			for (uint64_t i = b; i < b + off && i <= end; i++)
				*mask |= 1ULL << i;
	}
	return 0;
}

/* A CPU mask as the kernel prints one ("%*pbl"): "0-2,5"; "" for none. */
static void fmt_cpus(uint64_t mask, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (int c = 0; c < 64 && n < len; c++) {
		int e = c;

		if (!(mask >> c & 1))
			continue;
		while (e < 63 && (mask >> (e + 1) & 1))
			e++;
		n += (size_t)snprintf(out + n, len - n, e > c ? "%s%d-%d" : "%s%d", n ? "," : "", c,
				      e);
		c = e;
	}
}

/* -------------------------------------------------------------- inputs */
static uint64_t some_period(struct fuzz *f)
{
	static const uint64_t p[] = { 0, 1, 99, 100, 101, 1000, 10000, 18000, 100000,
				      1000000, 4194303, 4194304, 4194305, 1ULL << 40 };

	/*
	 * Mostly 10 ms .. 1 s: a server with a period of 100 us that has a
	 * task fires its timers 10^4 times a second, which under TCG slows
	 * the whole guest down.  The limits and beyond are still written.
	 */
	if (chance(f, 85))
		return 10000 + below(f, 990000);
	return p[below(f, sizeof(p) / sizeof(p[0]))];
}

static uint64_t some_runtime(struct fuzz *f, uint64_t period)
{
	switch (below(f, 10)) {
	case 0: return 0;
	case 1: return below(f, 3);		/* 1 us: below 1024 ns */
	case 2: return period;
	case 3: return period + 1;
	case 4: return UINT64_MAX / 1000 + below(f, 2);
	default:				/* up to 30 % of the period */
		return 2 + below(f, period / 3 + 1);
	}
}

static void blanks(struct fuzz *f, char *out, size_t len)
{
	static const char *b[] = { "", " ", "  ", "\t", "\n", " \t ", "\v" };

	snprintf(out, len, "%s", chance(f, 80) ? "" : b[below(f, 7)]);
}

static void gen_rt_max(struct fuzz *f, const struct group *g, char *out, size_t len)
{
	char a[8], m[8], z[8], num[32];
	uint64_t p = chance(f, 50) ? g->period : some_period(f);
	uint64_t q = some_runtime(f, p);

	blanks(f, a, sizeof(a));
	snprintf(m, sizeof(m), "%s", chance(f, 85) ? " " : (chance(f, 50) ? "\t" : "  "));
	blanks(f, z, sizeof(z));
	snprintf(num, sizeof(num), "%s%" PRIu64, chance(f, 5) ? "+" : (chance(f, 3) ? "-" : ""), q);
	switch (below(f, 12)) {
	case 0: case 1: case 2:
		snprintf(out, len, "%s%s%s%" PRIu64 "%s", a, num, m, p, z);
		break;
	case 5:
		snprintf(out, len, "%s%s%s", a, num, z);
		break;
	case 6:
		snprintf(out, len, "%smax%s", a, z);
		break;
	case 7:
		snprintf(out, len, "%smax%s%" PRIu64 "%s", a, m, p, z);
		break;
	case 3: case 4:
	case 8: {			/* random bytes of a small alphabet */
		static const char al[] = "0123456789 max\t\n+-x0abcdef.";
		size_t n = 1 + below(f, 20);	/* a 0-byte write reaches no handler */

		for (size_t i = 0; i < n && i + 1 < len; i++)
			out[i] = al[below(f, sizeof(al) - 1)];
		out[n < len ? n : len - 1] = '\0';
		break;
	}
	case 9:
		snprintf(out, len, "%s%" PRIu64 "%s%s%s", num, p, m, z, chance(f, 50) ? "x" : " 5");
		break;
	case 10:
		snprintf(out, len, "%s 18446744073709551616", chance(f, 50) ? "max" : num);
		break;
	default:
		snprintf(out, len, "%s%s0x%" PRIx64 "%s", a, chance(f, 50) ? "max " : "", p, z);
		break;
	}
}

static void gen_number(struct fuzz *f, uint64_t v, char *out, size_t len)
{
	static const char *pre[] = { "", "", "", "", "+", "-", "0x", "0", " ", "-+" };
	static const char *post[] = { "", "", "", "\n", "\n", " ", "x", "\n\n" };
	const char *p = pre[below(f, 10)];

	if (!strcmp(p, "0x"))
		snprintf(out, len, "0x%" PRIx64 "%s", v, post[below(f, 8)]);
	else if (!strcmp(p, "0"))
		snprintf(out, len, "0%" PRIo64 "%s", v, post[below(f, 8)]);
	else if (chance(f, 3))
		snprintf(out, len, "%s99999999999999999999%s", p, post[below(f, 8)]);
	else
		snprintf(out, len, "%s%" PRIu64 "%s", p, v, post[below(f, 8)]);
}

/*
 * A value for cpuset.cpus: a list the kernel takes (most of them), a
 * malformed one, one with CPUs the machine does not have, or random bytes;
 * with blanks around it (stripped by the kernel) and a newline or not.
 */
static void gen_cpus(struct fuzz *f, char *out, size_t len)
{
	static const char *const good[] = {
		"", "0", "1", "0-1", "0,1", "1,0", "0-0", "1-1", "N", "0-N", "all", "ALL",
		"0-1:1/2", "all:1/2", "1-1:1/1", ",0", "0,", ",", "0 1", "0\n1", "1\n\n",
	};
	static const char *const bad[] = {
		"2-0", "1-0", "N-0", "x", "99", "2", "0-2", "-1", "0-", "-", "0--1", "0 - 1",
		"0-1:2/1", "0-1:1/0", "0-1:1", "0:1/2", "0-1:", "0-1:1/", "0-1/2", "1,,x", "1a",
		"0x1", "0.5", "+1", "NN", "al", "4294967295", "4294967296",
		"99999999999999999999", "0-4294967296", "1-1:1/4294967296",
	};
	static const char al[] = "01N29-,:/ \t\nxa\xa0";
	char a[8], z[8], v[40];
	const char *nl = chance(f, 50) ? "\n" : "";

	blanks(f, a, sizeof(a));
	blanks(f, z, sizeof(z));
	switch (below(f, 20)) {
	case 0: case 1: case 2: case 3: case 4:
	case 5: case 6: case 7: case 8: case 9:
		snprintf(v, sizeof(v), "%s", good[below(f, sizeof(good) / sizeof(good[0]))]);
		break;
	case 10: case 11: case 12: case 13: case 14: case 15: case 16:
		snprintf(v, sizeof(v), "%s", bad[below(f, sizeof(bad) / sizeof(bad[0]))]);
		break;
	default: {			/* random bytes of a small alphabet */
		size_t n = 1 + below(f, 12);

		for (size_t i = 0; i < n; i++)
			v[i] = al[below(f, sizeof(al) - 1)];
		v[n] = '\0';
		break;
	}
	}
	snprintf(out, len, "%s%s%s%s", a, v, z, nl);
	if (!*out)			/* a 0-byte write reaches no handler */
		snprintf(out, len, "\n");
}

/* ----------------------------------------------------------- the model */
static const char *errname(int err)
{
	const char *n = err ? strerrorname_np(err < 0 ? -err : err) : NULL;

	return err ? (n ? n : "unknown errno") : "ok";
}

static int gfd(struct group *g, enum gfile k)
{
	char path[PATHLEN + 32];

	if (g->fd[k] < 0) {
		snprintf(path, sizeof(path), "%s/%s", g->path, gfile_name[k]);
		g->fd[k] = open(path, (k == F_PROCS ? O_WRONLY :
				       k >= F_RTCPUS ? O_RDONLY : O_RDWR) | O_CLOEXEC);
		if (g->fd[k] < 0)
			return -errno;
	}
	return g->fd[k];
}

static void gclose(struct group *g)
{
	for (int k = 0; k < F_NFILES; k++) {
		if (g->fd[k] >= 0)
			close(g->fd[k]);
		g->fd[k] = -1;
	}
}

/* One write(2) of @val to the group's file @k: 0 or -errno. */
static int gwrite(struct group *g, enum gfile k, const char *val)
{
	int fd = gfd(g, k);
	size_t n = strlen(val);
	ssize_t r;

	if (fd < 0)
		return fd;
	r = write(fd, val, n);
	if (r < 0)
		return -errno;
	return (size_t)r == n ? 0 : -EIO;
}

/* The file @k read afresh from offset 0, trailing newline removed. */
static int gread(struct group *g, enum gfile k, char *buf, size_t len)
{
	int fd = gfd(g, k);
	ssize_t r;

	if (fd < 0)
		return fd;
	r = pread(fd, buf, len - 1, 0);
	if (r < 0)
		return -errno;
	buf[r] = '\0';
	if (r && buf[r - 1] == '\n')
		buf[r - 1] = '\0';
	return 0;
}

static void fmt_state(uint64_t runtime, uint64_t period, char *out, size_t len)
{
	if (runtime == RT_MAX)
		snprintf(out, len, "max %" PRIu64, period);
	else
		snprintf(out, len, "%" PRIu64 " %" PRIu64, runtime, period);
}

/*
 * The CPUs of group @i's reservation (cpu.rt.cpus) and of its cpuset
 * (cpuset.cpus.effective), which are the same as long as no CPU is offline
 * and there are no partitions: its cpuset.cpus within its parent's, the
 * parent's if that leaves none (cpuset_rt_group_cpus(), and how cgroup v2
 * computes the effective CPUs).  The test's top group has no cpuset.cpus:
 * all possible CPUs.
 */
static uint64_t model_cpus(const struct fuzz *f, int i)
{
	const struct group *g = &f->g[i];
	uint64_t parent = g->parent < 0 ? f->possible : model_cpus(f, g->parent);

	return g->cpuset & parent ? g->cpuset & parent : parent;
}

/* Is group @j group @i or below it? */
static bool in_subtree(const struct fuzz *f, int j, int i)
{
	for (; j >= 0; j = f->g[j].parent)
		if (j == i)
			return true;
	return false;
}

/* Does group @i or a group below it hold one of the RT tasks? */
static bool populated(const struct fuzz *f, int i)
{
	for (int t = 0; t < f->ntasks; t++)
		if (in_subtree(f, f->task_group[t], i))
			return true;
	return false;
}

/* Does file @k of group @i read @want? */
static void expect_file(struct fuzz *f, int i, enum gfile k, const char *want)
{
	char got[256];
	int err = gread(&f->g[i], k, got, sizeof(got));

	if (err || strcmp(got, want))
		FUZZ_FAIL(f, "%s/%s reads '%s' (%s), the model says '%s'", f->g[i].path,
			  gfile_name[k], err ? "" : got, errname(err), want);
}

/*
 * The affinity of RT task @t: pinned to the load CPU by the test (its
 * user-requested mask), within its cpuset's CPUs; the cpuset's CPUs where
 * they do not have the load CPU (the scheduler keeps the requested mask
 * and applies it again when the cpuset allows it).
 */
static void check_affinity(struct fuzz *f, int t)
{
	uint64_t cpus = model_cpus(f, f->task_group[t]), load = 1ULL << HCBS_LOAD_CPU;
	uint64_t want = cpus & load ? load : cpus, got = 0;
	char w[64], g[64];
	cpu_set_t set;

	if (sched_getaffinity(f->task[t], sizeof(set), &set))
		FUZZ_FAIL(f, "sched_getaffinity of RT task %d: %s", t, errname(errno));
	for (unsigned int c = 0; c < f->nr_cpu_ids && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			got |= 1ULL << c;
	if (got != want) {
		fmt_cpus(got, g, sizeof(g));
		fmt_cpus(want, w, sizeof(w));
		FUZZ_FAIL(f, "RT task %d in g%d: affinity %s, the model says %s", t,
			  f->task_group[t], g, w);
	}
}

/*
 * After a write of cpuset.cpus of group @i: its cpuset.cpus and
 * cpu.rt.cpus are the model's, and if @subtree those of every group below
 * it too, and the affinity of every RT task there.
 */
static void check_cpus(struct fuzz *f, int i, bool subtree)
{
	char want[64];

	fmt_cpus(f->g[i].cpuset, want, sizeof(want));
	expect_file(f, i, F_CPUS, want);
	for (int j = 0; j < NGROUPS; j++) {
		if (!f->g[j].live || (j != i && !(subtree && in_subtree(f, j, i))))
			continue;
		fmt_cpus(model_cpus(f, j), want, sizeof(want));
		expect_file(f, j, F_RTCPUS, want);
	}
	for (int t = 0; subtree && t < f->ntasks; t++)
		if (in_subtree(f, f->task_group[t], i))
			check_affinity(f, t);
}

/*
 * What was accepted is what reads back: cpu.rt.max, and with @all the
 * two-file form, cpuset.cpus, cpu.rt.cpus and cpuset.cpus.effective.
 */
static void check_readback(struct fuzz *f, int i, bool all)
{
	struct group *g = &f->g[i];
	char want[64], got[128], rt[64];
	int err;

	fmt_state(g->runtime, g->period, want, sizeof(want));
	err = gread(g, F_MAX, got, sizeof(got));
	if (err || strcmp(got, want))
		FUZZ_FAIL(f, "%s/cpu.rt.max reads '%s' (%s), the accepted state is '%s'",
			  g->path, got, errname(err), want);
	if (!all)
		return;
	f->checks++;
	snprintf(rt, sizeof(rt), "%lld", g->runtime == RT_MAX ? -1LL : (long long)g->runtime);
	err = gread(g, F_RUNTIME, got, sizeof(got));
	if (err || strcmp(got, rt))
		FUZZ_FAIL(f, "%s/cpu.rt_runtime_us reads '%s' (%s), want '%s'", g->path, got,
			  errname(err), rt);
	snprintf(rt, sizeof(rt), "%" PRIu64, g->period);
	err = gread(g, F_PERIOD, got, sizeof(got));
	if (err || strcmp(got, rt))
		FUZZ_FAIL(f, "%s/cpu.rt_period_us reads '%s' (%s), want '%s'", g->path, got,
			  errname(err), rt);
	fmt_cpus(g->cpuset, want, sizeof(want));
	expect_file(f, i, F_CPUS, want);
	fmt_cpus(model_cpus(f, i), want, sizeof(want));
	expect_file(f, i, F_RTCPUS, want);
	expect_file(f, i, F_EFFECTIVE, want);
}

static int pick_group(struct fuzz *f)
{
	for (int tries = 0; tries < 64; tries++) {
		int i = below(f, NGROUPS);

		if (f->g[i].live)
			return i;
	}
	return 0;	/* the home group, always there */
}

/* @val for the history and messages: one line, control bytes as '~'. */
static void shown_value(const char *val, char *out, size_t len)
{
	snprintf(out, len, "%s", val);
	for (char *c = out; *c; c++)
		if ((unsigned char)*c < ' ' || (unsigned char)*c >= 0x7f)
			*c = '~';
}

static void write_rt(struct fuzz *f)
{
	int i = pick_group(f), which = below(f, 10), err, want;
	struct group *g = &f->g[i];
	uint64_t q = g->runtime, p = g->period;
	enum gfile k;
	const char *file;
	char val[96], shown[200];
	uint64_t t0;

	if (which < 8) {
		k = F_MAX;
		gen_rt_max(f, g, val, sizeof(val));
		want = model_rt_max(f, g, val, &q, &p);
	} else if (which < 9) {
		k = F_RUNTIME;
		gen_number(f, some_runtime(f, g->period), val, sizeof(val));
		want = model_rt_runtime(f, g, val, &q);
	} else {
		k = F_PERIOD;
		gen_number(f, some_period(f), val, sizeof(val));
		want = model_rt_period(f, g, val, &p);
	}
	file = gfile_name[k];
	t0 = hcbs_now_ns();
	err = gwrite(g, k, val);
	f->t_ns[5] += want ? 0 : hcbs_now_ns() - t0;
	f->n_op[5] += !want;
	f->writes++;
	shown_value(val, shown, sizeof(shown));
	remember(f, "g%d %s <- '%s': %s (model: %s)", i, file, shown, errname(err), errname(want));
	if (want) {
		/* refused by the grammar or the limits: exactly that errno */
		if (err != want)
			FUZZ_FAIL(f, "write '%s' to g%d/%s: %s, the kernel's grammar and limits say %s",
				  shown, i, file, errname(err), errname(want));
		if (want == -ERANGE)
			f->erange++;
		else
			f->einval++;
	} else if (err == -EBUSY) {
		f->ebusy++;		/* admission */
	} else if (err) {
		FUZZ_FAIL(f, "write '%s' to g%d/%s: %s; a valid value may only be refused with EBUSY",
			  shown, i, file, errname(err));
	} else {
		f->ok++;
		g->runtime = q;
		g->period = p;
	}
	/*
	 * Every accepted write is read back at once, one refused write in
	 * four (each is also covered by the periodic check of every group's
	 * three files).
	 */
	if (!err || chance(f, 25))
		check_readback(f, i, false);
}

/*
 * cpuset.cpus of a group.  The kernel's list grammar is modelled exactly;
 * a list it takes is refused only by our admission (EBUSY: a reservation
 * would not fit on a CPU it newly covers, or RT tasks would be left
 * without runtime) or, for an empty list on a populated cpuset that has
 * CPUs, ENOSPC (cgroup v2 never empties such a cpuset; our admission,
 * checked first, may say EBUSY instead); a list equal to the current one
 * always succeeds (update_cpumask() returns before any check).
 */
static void write_cpus(struct fuzz *f)
{
	int i = pick_group(f), err, want;
	struct group *g = &f->g[i];
	uint64_t mask, old = g->cpuset, t0;
	char val[64], shown[160], was[64];
	bool emptying;

	gen_cpus(f, val, sizeof(val));
	want = k_cpulist(val, f->nr_cpu_ids, &mask);
	if (!want && (mask & ~f->possible))
		want = -EINVAL;		/* not a subset of top_cpuset.cpus_allowed */
	emptying = !want && !mask && old && populated(f, i);
	t0 = hcbs_now_ns();
	err = gwrite(g, F_CPUS, val);
	f->t_ns[7] += want ? hcbs_now_ns() - t0 : 0;
	f->n_op[7] += !!want;
	f->writes++;
	f->cpus_writes++;
	shown_value(val, shown, sizeof(shown));
	fmt_cpus(old, was, sizeof(was));
	remember(f, "g%d cpuset.cpus <- '%s' (was '%s'%s): %s (model: %s)", i, shown, was,
		 emptying ? ", populated" : "", errname(err), errname(want));
	if (want) {
		/* refused by the list's grammar: exactly that errno */
		if (err != want)
			FUZZ_FAIL(f, "write '%s' to g%d/cpuset.cpus: %s, the kernel's cpulist grammar says %s",
				  shown, i, errname(err), errname(want));
		if (want == -EINVAL)
			f->cpus_einval++;
		else
			f->cpus_erange++;
	} else if (mask == old) {
		if (err)
			FUZZ_FAIL(f, "write '%s' to g%d/cpuset.cpus: %s; the same CPUs again cannot fail",
				  shown, i, errname(err));
		f->cpus_ok++;
	} else if (err == -EBUSY) {
		f->cpus_ebusy++;	/* admission */
	} else if (err == -ENOSPC && emptying) {
		f->cpus_enospc++;
	} else if (err) {
		FUZZ_FAIL(f, "write '%s' to g%d/cpuset.cpus: %s; accepted: EBUSY%s",
			  shown, i, errname(err), emptying ? ", ENOSPC" : "");
	} else if (emptying) {
		FUZZ_FAIL(f, "write '%s' to g%d/cpuset.cpus emptied the cpuset of a populated group",
			  shown, i);
	} else {
		f->cpus_ok++;
		g->cpuset = mask;
	}
	/*
	 * A write that changed the CPUs moves the reservations and tasks of
	 * the whole subtree: all read back at once.  One that changed
	 * nothing must leave the cpuset and cpu.rt.cpus as they were:
	 * always checked when the kernel's admission refused it, one in four
	 * refused by the parser or writing the same CPUs again.
	 */
	if (!err && mask != old)
		check_cpus(f, i, true);
	else if ((err && !want) || chance(f, 25))
		check_cpus(f, i, false);
}

static void move_task(struct fuzz *f)
{
	int t = below(f, f->ntasks), i = pick_group(f), err, want, from = f->task_group[t];
	char cg[PATHLEN], pid[16];

	if (!f->ntasks)
		return;

	snprintf(pid, sizeof(pid), "%d", f->task[t]);
	err = gwrite(&f->g[i], F_PROCS, pid);
	f->writes++;
	f->moves++;
	remember(f, "task %d: g%d -> g%d%s: %s", t, from, i, f->g[i].inner ? " (inner)" : "",
		 errname(err));
	if (err && err != -EINVAL && err != -EBUSY && err != -EOPNOTSUPP)
		FUZZ_FAIL(f, "moving RT task %d to g%d: %s (accepted: EINVAL, EBUSY, EOPNOTSUPP)", t, i,
			  errname(err));
	if (!err)
		f->task_group[t] = i;
	if (hcbs_task_cgroup(f->task[t], cg, sizeof(cg)))
		FUZZ_FAIL(f, "RT task %d (pid %d) is gone", t, f->task[t]);
	if (strcmp(cg, f->g[f->task_group[t]].path))
		FUZZ_FAIL(f, "RT task %d is in %s, expected g%d (%s) after a move that said %s", t, cg,
			  f->task_group[t], f->g[f->task_group[t]].path, errname(err));
	check_affinity(f, t);
	/*
	 * Pin it to the load CPU again: refused with EINVAL exactly when its
	 * cpuset does not have that CPU (the mask would be empty), which
	 * changes nothing.
	 */
	want = model_cpus(f, f->task_group[t]) & (1ULL << HCBS_LOAD_CPU) ? 0 : -EINVAL;
	err = hcbs_pin_cpu(f->task[t], HCBS_LOAD_CPU);
	f->repins++;
	f->repins_refused += !!err;
	remember(f, "task %d in g%d: sched_setaffinity(CPU %d): %s (model: %s)", t,
		 f->task_group[t], HCBS_LOAD_CPU, errname(err), errname(want));
	if (err != want)
		FUZZ_FAIL(f, "pinning RT task %d in g%d to CPU %d: %s, expected %s", t,
			  f->task_group[t], HCBS_LOAD_CPU, errname(err), errname(want));
	check_affinity(f, t);
}

static void make_group(struct fuzz *f)
{
	int slot = -1, parent, n = 0, cand[NGROUPS + 1], err;
	struct group *g;
	const char *ppath;

	for (int i = 0; i < NGROUPS; i++)
		if (!f->g[i].live) {
			slot = i;
			break;
		}
	if (slot < 0)
		return;
	cand[n++] = -1;
	for (int i = 0; i < NGROUPS; i++)
		if (f->g[i].live && f->g[i].inner && f->g[i].depth < MAXDEPTH)
			cand[n++] = i;
	parent = cand[below(f, n)];
	ppath = parent < 0 ? f->env->top : f->g[parent].path;
	g = &f->g[slot];
	memset(g, 0, sizeof(*g));
	for (int k = 0; k < F_NFILES; k++)
		g->fd[k] = -1;
	if (snprintf(g->path, sizeof(g->path), "%s/g%d", ppath, slot) >= (int)sizeof(g->path))
		FUZZ_FAIL(f, "path of g%d too long", slot);
	err = hcbs_cg_create(g->path);
	f->writes++;
	f->mkdirs++;
	remember(f, "mkdir g%d under %s%d: %s", slot, parent < 0 ? "top" : "g", parent, errname(err));
	if (err)
		FUZZ_FAIL(f, "mkdir %s: %s", g->path, errname(err));
	g->live = true;
	g->parent = parent;
	g->depth = parent < 0 ? 1 : f->g[parent].depth + 1;
	g->runtime = RT_MAX;
	g->period = 100000;
	if (g->depth < MAXDEPTH && chance(f, 50)) {
		/*
		 * EOPNOTSUPP: the parent holds tasks with cpu and cpuset
		 * (threaded controllers) enabled, which makes it a thread
		 * root and this new group an invalid domain; it stays a
		 * leaf.
		 */
		err = hcbs_cg_write(g->path, "cgroup.subtree_control", "+cpu +cpuset");
		f->writes++;
		remember(f, "+cpu +cpuset in g%d/cgroup.subtree_control: %s", slot, errname(err));
		if (err && err != -EOPNOTSUPP)
			FUZZ_FAIL(f, "+cpu +cpuset in %s/cgroup.subtree_control: %s", g->path,
				  errname(err));
		g->inner = !err;
	}
	check_readback(f, slot, true);
}

static void remove_group(struct fuzz *f)
{
	int i = pick_group(f), err, want = 0;

	if (i == 0)
		return;		/* home stays */
	for (int j = 0; j < NGROUPS; j++)
		if (f->g[j].live && f->g[j].parent == i)
			want = -EBUSY;
	for (int t = 0; t < NTASKS; t++)
		if (f->task_group[t] == i)
			want = -EBUSY;
	gclose(&f->g[i]);
	err = rmdir(f->g[i].path) ? -errno : 0;
	f->writes++;
	f->rmdirs++;
	remember(f, "rmdir g%d: %s (model: %s)", i, errname(err), errname(want));
	if (err != want)
		FUZZ_FAIL(f, "rmdir %s: %s, expected %s", f->g[i].path, errname(err), errname(want));
	if (!err)
		f->g[i].live = false;
}

/* ---------------------------------------------------- admission, whole tree */
/* The kernel's to_ratio(): bandwidth in fixed point, 1.0 = 1 << 20, floored. */
static uint64_t to_ratio(uint64_t period, uint64_t runtime)
{
	return period ? (runtime << HCBS_BW_SHIFT) / period : 0;
}

/*
 * Walk @dir: adds to @sum[c], for each CPU c, the bandwidth (fixed point,
 * as the kernel sums it) of the reserved groups nearest below @dir whose
 * reservation covers c (cpu.rt.cpus), and fails the test where, on some
 * CPU, the reserved groups nearest below a reserved group do not fit in
 * it.
 */
static void walk(struct fuzz *f, const char *dir, uint64_t *sum)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		uint64_t bw, cpus, below_sum[HCBS_MAX_CPUS] = { 0 };
		char sub[PATHLEN], v[64], c[64];
		unsigned long long q, p;

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int)sizeof(sub))
			continue;
		if (hcbs_cg_read(sub, "cpu.rt.max", v, sizeof(v)) ||
		    sscanf(v, "%llu %llu", &q, &p) != 2 || !p) {
			/* max (or no cpu controller): its children count here */
			walk(f, sub, sum);
			continue;
		}
		bw = to_ratio(p * 1000, q * 1000);
		if (hcbs_cg_read(sub, "cpu.rt.cpus", c, sizeof(c))) {
			cpus = f->possible;	/* a kernel without it: every CPU */
		} else if (k_cpulist(c, f->nr_cpu_ids, &cpus) || !cpus) {
			closedir(d);
			FUZZ_FAIL(f, "%s/cpu.rt.cpus reads '%s', not a list of CPUs", sub, c);
		}
		for (unsigned int cpu = 0; cpu < f->nr_cpu_ids; cpu++)
			if (cpus >> cpu & 1)
				sum[cpu] += bw;
		walk(f, sub, below_sum);
		for (unsigned int cpu = 0; cpu < f->nr_cpu_ids; cpu++) {
			if (below_sum[cpu] <= bw)
				continue;
			closedir(d);
			FUZZ_FAIL(f, "over-commit on CPU %u: the reserved groups below %s (%s, bandwidth %" PRIu64 "/2^20) take %" PRIu64 "/2^20 there",
				  cpu, sub, v, bw, below_sum[cpu]);
		}
	}
	closedir(d);
}

/*
 * What the RT groups reserve on each CPU is what the kernel counts for the
 * deadline class (rt_groups_bw in debugfs), once the groups removed lately
 * have given theirs back (their cpu css goes offline after rmdir()
 * returns).  Not with the root's share set: then it is the share.
 */
static void check_groups_bw(struct fuzz *f, const uint64_t *sum)
{
	long long total[HCBS_MAX_CPUS], groups[HCBS_MAX_CPUS];
	char root[64];

	if (hcbs_cg_read(hcbs_cg_root(), "cpu.rt.max", root, sizeof(root)) ||
	    strncmp(root, "max", 3))
		return;
	for (int tries = 0;; tries++) {
		int n = hcbs_dl_bw(total, groups, HCBS_MAX_CPUS), bad = -1;

		if (n <= 0 || groups[0] < 0)
			return;		/* no debugfs, or no rt_groups_bw in it */
		for (int cpu = 0; cpu < n && bad < 0; cpu++)
			if ((f->online >> cpu & 1) && groups[cpu] != (long long)sum[cpu])
				bad = cpu;
		if (bad < 0) {
			f->bw_waits += tries > 0;
			return;
		}
		if (tries == 100)
			FUZZ_FAIL(f, "CPU %d: rt_groups_bw is %lld/2^20, the reserved groups nearest below the root take %" PRIu64 "/2^20 there",
				  bad, groups[bad], sum[bad]);
		hcbs_sleep_ms(20);
	}
}

static void check_admission(struct fuzz *f)
{
	long long rt = -1, per = 0;
	uint64_t sum[HCBS_MAX_CPUS] = { 0 }, global;

	walk(f, hcbs_cg_root(), sum);
	if (!hcbs_read_long("/proc/sys/kernel/sched_rt_runtime_us", &rt) && rt >= 0 &&
	    !hcbs_read_long("/proc/sys/kernel/sched_rt_period_us", &per) && per > 0) {
		global = to_ratio((uint64_t)per * 1000, (uint64_t)rt * 1000);
		for (unsigned int c = 0; c < f->nr_cpu_ids; c++) {
			if (!(f->online >> c & 1) || sum[c] + f->fair[c] <= global)
				continue;
			FUZZ_FAIL(f, "over-commit on CPU %u: the top-level reservations there take %" PRIu64 "/2^20; with its fair server's %" PRIu64 " that exceeds the global limit %" PRIu64 " (%lld/%lld)",
				  c, sum[c], f->fair[c], global, rt, per);
		}
	}
	check_groups_bw(f, sum);
	for (int i = 0; i < NGROUPS; i++)
		if (f->g[i].live)
			check_readback(f, i, true);
	for (int t = 0; t < f->ntasks; t++)
		check_affinity(f, t);
}

/* ------------------------------------------------------------ RT tasks */
/*
 * Runs 100 us of wall time (CLOCK_MONOTONIC: the vDSO, no system call)
 * every 2-5 ms; every 20-50 ms on the control CPU (sched_getcpu(): rseq,
 * no system call either), where a cpuset without the load CPU puts it and
 * where each of its wakeups takes from the writer (under TCG the writes
 * took half as long again with the tasks waking as often there).
 *
 * Not the thread's CPU clock: clock_gettime() of a CPU clock is a system
 * call that spends its time in an RCU read-side section
 * (posix_cpu_clock_get), and a task throttled there by a reservation of a
 * few us every few seconds holds up every RCU grace period until it gets
 * enough runtime to leave it: found by this test, an RCU stall after 60 s
 * (CONFIG_RCU_BOOST is off), a problem of its own, not of the interface
 * this test fuzzes.  HCBS_FUZZ_CPUCLOCK=1 brings that loop back.
 */
static void rt_task(bool cpuclock)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		uint64_t t0 = cpuclock ? hcbs_thread_cputime_ns() : hcbs_now_ns();
		unsigned int ms = 2 + (unsigned int)(t0 / 1000 % 4);

		while ((cpuclock ? hcbs_thread_cputime_ns() : hcbs_now_ns()) - t0 < 100 * 1000ULL)
			;
		hcbs_sleep_ms(sched_getcpu() == HCBS_CTL_CPU ? 10 * ms : ms);
	}
}

/*
 * An operation that does not return within 20 s (a write waiting for an
 * RCU grace period that an RT task, preempted in a read-side section and
 * starved in its reservation, holds up): print the model's groups and
 * where each RT task is, once, for the report.
 */
static void *watchdog(void *arg)
{
	struct fuzz *f = arg;
	bool dumped = false;

	while (!f->done) {
		uint64_t t = f->op_start_ns;

		sleep(1);
		if (dumped || !t || t != f->op_start_ns || hcbs_now_ns() - t < 20 * HCBS_NSEC_PER_SEC)
			continue;
		dumped = true;
		hcbs_note("watchdog: an operation has not returned for 20 s; the state:");
		history(f);
		for (int i = 0; i < NGROUPS; i++) {
			char st[64], cs[64], rc[64];

			if (!f->g[i].live)
				continue;
			fmt_state(f->g[i].runtime, f->g[i].period, st, sizeof(st));
			fmt_cpus(f->g[i].cpuset, cs, sizeof(cs));
			fmt_cpus(model_cpus(f, i), rc, sizeof(rc));
			hcbs_note("  g%d %s%s: %s, cpuset.cpus '%s', CPUs %s", i, f->g[i].path,
				  f->g[i].inner ? " (inner)" : "", st, cs, rc);
		}
		for (int t = 0; t < f->ntasks; t++) {
			char path[64], buf[512];

			snprintf(path, sizeof(path), "/proc/%d/stat", f->task[t]);
			if (hcbs_read_file(path, buf, sizeof(buf)))
				snprintf(buf, sizeof(buf), "(gone)");
			hcbs_note("  RT task %d in g%d: %s", t, f->task_group[t], buf);
		}
	}
	return NULL;
}

FIXTURE(fuzz) {
	struct hcbs_env env;
	bool root_cpuset_enabled;	/* we wrote +cpuset at the root */
};

FIXTURE_SETUP(fuzz)
{
	HCBS_ENV_SETUP(&self->env, "fuzz");
	hcbs_cpuset_enable(_metadata, &self->env, &self->root_cpuset_enabled);
}

FIXTURE_TEARDOWN_PARENT(fuzz)
{
	HCBS_ENV_TEARDOWN(&self->env);
	hcbs_cpuset_restore(self->root_cpuset_enabled);
}

TEST_F_TIMEOUT(fuzz, cgroup_interface, 1000)
{
	static struct fuzz fz;
	struct fuzz *f = &fz;
	const char *s = getenv("HCBS_FUZZ_SEED"), *w = getenv("HCBS_FUZZ_WRITES");
	const char *secs = getenv("HCBS_FUZZ_SECONDS");
	unsigned long nwrites = w ? strtoul(w, NULL, 10) : 100000;
	double budget = secs ? atof(secs) : 150;
	char cpus[64], want[64];
	long long v;
	uint64_t seed, t0, tend, next_check, ts;
	pthread_t wd;
	int ntasks;

	int err;

	memset(f, 0, sizeof(*f));
	f->md = _metadata;
	f->env = &self->env;
	seed = s ? strtoull(s, NULL, 0) : ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
	f->seed = seed;
	f->rng = seed ? seed : 1;
	hcbs_note("seed %" PRIu64 " (reproduce: HCBS_FUZZ_SEED=%" PRIu64 "), %lu writes, at most %.0f s",
		  seed, seed, nwrites, budget);
	ASSERT_EQ(0, hcbs_read_long("/proc/sys/kernel/sched_deadline_period_min_us", &v));
	f->pmin = (uint64_t)v;
	ASSERT_EQ(0, hcbs_read_long("/proc/sys/kernel/sched_deadline_period_max_us", &v));
	f->pmax = (uint64_t)v;
	f->nr_cpus = hcbs_nr_cpus();
	ASSERT_EQ(0, hcbs_read_file("/sys/devices/system/cpu/possible", cpus, sizeof(cpus)));
	ASSERT_EQ(0, k_cpulist(cpus, HCBS_MAX_CPUS, &f->possible)) TH_LOG("possible: %s", cpus);
	ASSERT_EQ(0, hcbs_read_file("/sys/devices/system/cpu/online", cpus, sizeof(cpus)));
	ASSERT_EQ(0, k_cpulist(cpus, HCBS_MAX_CPUS, &f->online)) TH_LOG("online: %s", cpus);
	ASSERT_NE(0, f->online & (1ULL << HCBS_LOAD_CPU));
	for (f->nr_cpu_ids = 0; f->possible >> f->nr_cpu_ids; f->nr_cpu_ids++)
		;
	for (unsigned int c = 0; c < f->nr_cpu_ids; c++) {
		long long frt, fper;

		if (!(f->online >> c & 1))
			continue;
		hcbs_fair_server((int)c, &frt, &fper);
		f->fair[c] = to_ratio((uint64_t)fper, (uint64_t)frt);
		if (f->fair[c] > f->fair_bw)
			f->fair_bw = f->fair[c];
	}
	hcbs_note("periods %" PRIu64 "..%" PRIu64 " us, global limit %.4f, fair server %.4f, CPUs %s",
		  f->pmin, f->pmax, hcbs_rt_global_bw(), (double)f->fair_bw / HCBS_BW_UNIT, cpus);
	/* The model's root of the CPUs: the top group reserves on every possible CPU. */
	fmt_cpus(f->possible, want, sizeof(want));
	ASSERT_EQ(0, hcbs_cg_read(self->env.top, "cpu.rt.cpus", cpus, sizeof(cpus)));
	ASSERT_STREQ(want, cpus) TH_LOG("%s/cpu.rt.cpus", self->env.top);

	/* g0, "home": a leaf at max where the RT tasks start */
	f->g[0] = (struct group){ .live = true, .parent = -1, .depth = 1,
				  .runtime = RT_MAX, .period = 100000 };
	for (int k = 0; k < F_NFILES; k++)
		f->g[0].fd[k] = -1;
	ASSERT_GT((int)sizeof(f->g[0].path), snprintf(f->g[0].path, sizeof(f->g[0].path), "%s/g0", self->env.top));
	ASSERT_EQ(0, hcbs_cg_create(f->g[0].path));
	ntasks = getenv("HCBS_FUZZ_TASKS") ? atoi(getenv("HCBS_FUZZ_TASKS")) : NTASKS;
	f->ntasks = ntasks < 0 ? 0 : ntasks > NTASKS ? NTASKS : ntasks;
	for (int t = 0; t < f->ntasks; t++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (!pid)
			rt_task(getenv("HCBS_FUZZ_CPUCLOCK") && atoi(getenv("HCBS_FUZZ_CPUCLOCK")));
		f->task[t] = pid;
		self->env.hogs[t].pid = pid;	/* the teardown kills it */
		self->env.hogs[t].owner = getpid();
		/*
		 * On the load CPU, away from the writer's control CPU; a
		 * cpuset without it moves the task to CPU 0 (the kernel
		 * keeps the mask asked for here and applies it again when
		 * the cpuset allows: check_affinity()).
		 */
		ASSERT_EQ(0, hcbs_pin_cpu(pid, HCBS_LOAD_CPU));
		ASSERT_EQ(0, hcbs_cg_attach(f->g[0].path, pid));
		err = hcbs_set_policy(pid, SCHED_FIFO, 5 + t);
		ASSERT_EQ(0, err) TH_LOG("SCHED_FIFO for task %d: %s", t, strerror(-err));
	}

	ASSERT_EQ(0, pthread_create(&wd, NULL, watchdog, f));
	t0 = hcbs_now_ns();
	tend = t0 + (uint64_t)(budget * 1e9);
	next_check = 256;
	while (f->writes < nwrites) {
		unsigned int op = below(f, 100), k;

		ts = hcbs_now_ns();
		f->op_start_ns = ts;

		/*
		 * Under TCG a write that the kernel's parser refuses costs
		 * ~0.3 ms, one it admits or refuses for admission ~1 ms, a
		 * move ~4 ms, mkdir ~5 ms (with +cpu and the read-back): the
		 * mix makes 10^5 writes in about 70 s.  A cpuset.cpus write
		 * costs 0.4-1 ms even when the parser refuses it (the kernel
		 * applies every group's reservation again after every write
		 * of the file), 1-2.5 ms when it changes the CPUs: with as
		 * many as the two-file form gets (16 %) the run took 1.26-1.41
		 * times as long as without them, with 8 % 1.18 times; 10 %
		 * keeps it within HCBS_FUZZ_SECONDS.
		 */
		if (op < 86)
			write_rt(f), k = 0;
		else if (op < 96)
			write_cpus(f), k = 6;
		else if (op < 98)
			move_task(f), k = 1;
		else if (op < 99)
			make_group(f), k = 2;
		else
			remove_group(f), k = 3;
		f->op_start_ns = 0;
		f->t_ns[k] += hcbs_now_ns() - ts;
		f->n_op[k]++;
		if (f->writes >= next_check) {
			next_check += 2048;
			ts = hcbs_now_ns();
			check_admission(f);
			f->t_ns[4] += hcbs_now_ns() - ts;
			f->n_op[4]++;
			if (hcbs_now_ns() > tend)
				break;
		}
	}
	ts = hcbs_now_ns();
	check_admission(f);
	f->t_ns[4] += hcbs_now_ns() - ts;
	f->n_op[4]++;
	f->done = true;
	pthread_join(wd, NULL);
	/*
	 * Bring the RT tasks back to g0 (unreserved) and reap them here: a
	 * task killed in a group of 2 us every few seconds takes minutes to
	 * run its exit, and keeps the group (and its bandwidth) alive.  g0
	 * is set back to max first (it may be "0 P" now, which forbids RT).
	 */
	err = gwrite(&f->g[0], F_MAX, "max");
	EXPECT_EQ(0, err) TH_LOG("g0/cpu.rt.max <- max: %s", errname(err));
	for (int t = 0; t < f->ntasks; t++) {
		char pid[16];

		snprintf(pid, sizeof(pid), "%d", f->task[t]);
		err = gwrite(&f->g[0], F_PROCS, pid);
		EXPECT_EQ(0, err) TH_LOG("moving RT task %d back to g0: %s", t, errname(err));
		kill(f->task[t], SIGKILL);
		waitpid(f->task[t], NULL, 0);
		self->env.hogs[t].pid = 0;
	}
	/* The first three lines go into scripts/soak's report. */
	hcbs_note("%lu writes in %.1f s; %lu task moves, %lu mkdir, %lu rmdir, %lu full read-backs, %lu whole-tree checks (%lu waited for a removed group's bandwidth)",
		  f->writes, (hcbs_now_ns() - t0) / 1e9, f->moves, f->mkdirs, f->rmdirs, f->checks,
		  f->n_op[4], f->bw_waits);
	hcbs_note("  rt files: %lu writes, %lu accepted, %lu EINVAL, %lu ERANGE, %lu EBUSY",
		  f->ok + f->einval + f->erange + f->ebusy, f->ok, f->einval, f->erange, f->ebusy);
	hcbs_note("  cpuset.cpus: %lu writes, %lu accepted, %lu EINVAL, %lu ERANGE/EOVERFLOW, %lu EBUSY, %lu ENOSPC; tasks pinned again %lu times, %lu refused (EINVAL)",
		  f->cpus_writes, f->cpus_ok, f->cpus_einval, f->cpus_erange, f->cpus_ebusy,
		  f->cpus_enospc, f->repins, f->repins_refused);
	hcbs_note("time per operation: rt files %.0f us, cpuset.cpus %.0f us, moves %.0f us, mkdir %.0f us, rmdir %.0f us, whole-tree checks %.0f us; a valid rt write alone %.0f us, a cpuset.cpus write the parser refuses alone %.0f us",
		  f->t_ns[0] / 1e3 / (f->n_op[0] ?: 1), f->t_ns[6] / 1e3 / (f->n_op[6] ?: 1),
		  f->t_ns[1] / 1e3 / (f->n_op[1] ?: 1), f->t_ns[2] / 1e3 / (f->n_op[2] ?: 1),
		  f->t_ns[3] / 1e3 / (f->n_op[3] ?: 1), f->t_ns[4] / 1e3 / (f->n_op[4] ?: 1),
		  f->t_ns[5] / 1e3 / (f->n_op[5] ?: 1), f->t_ns[7] / 1e3 / (f->n_op[7] ?: 1));
	EXPECT_GE(f->writes, nwrites) TH_LOG("only %lu of %lu writes within %.0f s (HCBS_FUZZ_SECONDS)",
					     f->writes, nwrites, budget);
	EXPECT_LT(0, f->ok) TH_LOG("no write was accepted: the generator tests nothing");
	EXPECT_LT(0, f->ebusy) TH_LOG("no write was refused by admission: the generator tests nothing");
	EXPECT_LT(0, f->cpus_ok)
		TH_LOG("no cpuset.cpus write was accepted: the generator tests nothing");
	EXPECT_LT(0, f->cpus_einval)
		TH_LOG("no cpuset.cpus write was malformed: the generator tests nothing");
	EXPECT_LT(0, f->cpus_ebusy)
		TH_LOG("no cpuset.cpus write was refused by admission: the generator tests nothing");
}

TEST_HARNESS_MAIN
