// SPDX-License-Identifier: GPL-2.0
/*
 * Give a cgroup a reservation, the way hcbsctl and the LXC hook both do
 * it: refuse what cannot work before touching anything, write in an order
 * that never passes through an invalid state, undo partial writes when
 * the kernel says no, and explain a refusal with the numbers.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hcbs.h"
#include "hcbs-rt.h"

/*
 * What the top-level groups may take in all, per CPU, without a root
 * share: the global limit minus the largest fair server.
 */
static double root_limit(const char *sysctl_dir, const char *fs_dir)
{
	struct hcbs_global g = { .ratio = 1.0 };
	int cpus[1024], n = hcbs_online_cpus(cpus, 1024);
	double worst = 1.0;

	hcbs_global_read(sysctl_dir, &g, NULL, 0);
	for (int i = 0; i < n && i < 1024; i++) {
		bool assumed;
		double fs = hcbs_fair_server_bw(fs_dir, cpus[i], &assumed);

		if (g.ratio - fs < worst)
			worst = g.ratio - fs;
	}
	if (!n)
		worst = g.ratio - 0.05;
	return worst;
}

/*
 * What @dir could get below @under whose reservations may take @limit per
 * CPU: on each CPU of @dir's reservation (cpu.rt.cpus), @limit less what
 * the other groups below @under reserve there; the least of them.
 */
static double least_left(const char *under, const char *dir, double limit)
{
	int n = hcbs_rt_cpus(dir, NULL, 0), count = 0, *cpus;
	double least = limit;

	if (n <= 0 || !(cpus = calloc((size_t)n, sizeof(*cpus))))
		return limit - hcbs_reserved_below(under, dir, &count);
	n = hcbs_rt_cpus(dir, cpus, n);
	for (int i = 0; i < n; i++) {
		double left = limit - hcbs_reserved_below_cpu(under, dir, cpus[i], &count);

		if (left < least)
			least = left;
	}
	free(cpus);
	return least;
}

void hcbs_available(const char *dir, const char *sysctl_dir, const char *fs_dir,
		    struct hcbs_avail *av)
{
	char top[PATH_MAX];
	struct hcbs_rt anc;

	hcbs_cgroup_top(dir, top, sizeof(top));
	if (hcbs_reserved_ancestor(dir, top, av->parent, sizeof(av->parent), &anc)) {
		av->under_root = false;
		av->root_share = false;
		av->share_unreadable = false;
		av->share = (struct hcbs_rt){ .runtime_us = HCBS_RT_MAX };
		av->bw = least_left(av->parent, dir, hcbs_rt_bw(&anc));
		return;
	}
	struct hcbs_root_share share;

	av->under_root = true;
	av->parent[0] = '\0';
	av->share_unreadable = hcbs_root_share_read(top, &share, NULL, 0) != 0;
	/* Set, the share bounds the top-level groups (and only it does). */
	av->root_share = hcbs_root_share_set(&share);
	av->share = share.rt;
	av->bw = least_left(top, dir, av->root_share ? hcbs_rt_bw(&share.rt) :
			    root_limit(sysctl_dir, fs_dir));
}

static int errno_exit(int err)
{
	switch (err) {
	case -EBUSY:
	case -EINVAL:
	case -ENOSPC:
	case -ERANGE:
		return HCBS_EXIT_REFUSED;
	case -EACCES:
	case -EPERM:
	case -EROFS:
		return HCBS_EXIT_PERM;
	case -ENOENT:
	case -ENODEV:
	case -ELOOP:		/* a symbolic link where a cgroup file should be */
	case -EMEDIUMTYPE:	/* not on a cgroup file system */
		return HCBS_EXIT_NOTFOUND;
	default:
		return HCBS_EXIT_SYSTEM;
	}
}

static const char *errno_name(int err)
{
	switch (err) {
	case -EBUSY: return "EBUSY";
	case -EINVAL: return "EINVAL";
	case -ENOSPC: return "ENOSPC";
	case -ERANGE: return "ERANGE";
	case -EACCES: return "EACCES";
	case -EPERM: return "EPERM";
	default: return "error";
	}
}

static void admission_message(const char *file, int ret, const struct hcbs_rt *to,
			      const struct hcbs_avail *av, char *err, size_t errlen)
{
	char where[4200], eg[64] = "", d1[32], d2[32], sh[64];
	double req = hcbs_rt_bw(to);

	if (av->root_share)
		snprintf(where, sizeof(where), "under the root group's share (%s)",
			 hcbs_rt_format(&av->share, sh, sizeof(sh)));
	else if (av->under_root)
		snprintf(where, sizeof(where), "under the global limit");
	else
		snprintf(where, sizeof(where), "under %s", av->parent);
	if (av->share_unreadable) {
		hcbs_seterr(err, errlen,
			    "%s: admission refused (%s): requested %.3f CPU per CPU; what is available is unknown: the root group's share cannot be read (hcbsctl free says why)",
			    file, errno_name(ret), req);
	} else if (av->root_share && av->share.runtime_us == 0) {
		hcbs_seterr(err, errlen,
			    "%s: admission refused (%s): requested %.3f CPU per CPU, available 0.000 %s; accepted: nothing at the top level while the root group's share is 0 (see hcbsctl free)",
			    file, errno_name(ret), req, where);
	} else if (av->bw > 0) {
		uint64_t q = (uint64_t)(av->bw * (double)to->period_us + 1e-6);

		if (q)
			snprintf(eg, sizeof(eg), ", e.g. %s/%s",
				 hcbs_format_duration(q * 1000, d1, sizeof(d1)),
				 hcbs_format_duration(to->period_us * 1000, d2, sizeof(d2)));
		hcbs_seterr(err, errlen,
			    "%s: admission refused (%s): requested %.3f CPU per CPU, available %.3f %s; accepted: RUNTIME/PERIOD <= %.3f%s",
			    file, errno_name(ret), req, av->bw, where, av->bw, eg);
	} else {
		hcbs_seterr(err, errlen,
			    "%s: admission refused (%s): requested %.3f CPU per CPU, available 0.000 %s; accepted: nothing until another reservation shrinks%s (see hcbsctl free)",
			    file, errno_name(ret), req, where,
			    av->root_share ? " or the root group's share grows" : "");
	}
}

/*
 * A refused root group's share.  The kernel says EBUSY when the share is
 * above the global limit, below what the top-level groups hold, or more
 * than the fair servers and SCHED_DEADLINE tasks leave on a root domain;
 * only the last cannot be seen from here.
 */
static void share_message(const char *file, int ret, const struct hcbs_rt *to,
			  double held, int groups, double limit, char *err, size_t errlen)
{
	double req = hcbs_rt_bw(to);
	char why[128];

	if (req + 1e-9 < held)
		snprintf(why, sizeof(why), "below what the %d top-level group(s) hold (%.3f per CPU)",
			 groups, held);
	else if (req > limit + 1e-9)
		snprintf(why, sizeof(why), "above the global limit minus the fair server (%.3f per CPU)",
			 limit);
	else
		snprintf(why, sizeof(why), "more than SCHED_DEADLINE tasks leave on some root domain (hcbsctl cannot see them)");
	hcbs_seterr(err, errlen,
		    "%s: the root group's share refused (%s): requested %.3f CPU per CPU, %s; accepted: max, or RUNTIME/PERIOD >= %.3f and <= %.3f minus what SCHED_DEADLINE tasks hold",
		    file, errno_name(ret), req, why, held, limit);
}

static bool read_sysctl_u64(const char *sysctl_dir, const char *name, uint64_t *v)
{
	char p[PATH_MAX], *t = NULL;
	unsigned long long x;
	bool ok;

	snprintf(p, sizeof(p), "%s/%s", sysctl_dir ? sysctl_dir : "/proc/sys/kernel", name);
	if (hcbs_read_text(p, &t, NULL, 0))
		return false;
	ok = sscanf(t, "%llu", &x) == 1;
	if (ok)
		*v = x;
	free(t);
	return ok;
}

int hcbs_rt_check(const char *dir, enum hcbs_rt_abi *abi, char *err, size_t errlen)
{
	int ret = hcbs_cgroup_dir_check(dir, err, errlen);

	if (ret)
		return ret == -EACCES || ret == -EPERM ? HCBS_EXIT_PERM : HCBS_EXIT_NOTFOUND;
	*abi = hcbs_rt_detect(dir);
	if (hcbs_cgroup_is_top(dir)) {
		/*
		 * The stock RT_GROUP_SCHED (v1) shows the two files on the root
		 * too; HCBS is recognised by its files in a child group then.
		 */
		if (*abi == HCBS_ABI_LEGACY && hcbs_tree_has_hcbs(dir))
			*abi = HCBS_ABI_TWO_FILES;
		if (*abi == HCBS_ABI_NONE) {
			hcbs_seterr(err, errlen, "kernel without the root group's share: %s (the root cgroup) has no cpu.rt.max (boot an hcbs kernel that has it)",
				    dir);
			return HCBS_EXIT_NOHCBS;
		}
	}
	if (*abi == HCBS_ABI_NONE) {
		if (!hcbs_cgroup_has(dir, "cpu.weight") && !hcbs_cgroup_has(dir, "cpu.shares"))
			hcbs_seterr(err, errlen, "%s: no cpu controller files here (enable it: echo +cpu > PARENT/cgroup.subtree_control)",
				    dir);
		else
			hcbs_seterr(err, errlen, "kernel without HCBS: %s has no cpu.rt.max nor cpu.rt_runtime_us (boot the hcbs kernel)",
				    dir);
		return HCBS_EXIT_NOHCBS;
	}
	if (*abi == HCBS_ABI_LEGACY) {
		hcbs_seterr(err, errlen, "kernel without HCBS: %s has the old RT_GROUP_SCHED files but no cpu.rt.stat (boot the hcbs kernel)",
			    dir);
		return HCBS_EXIT_NOHCBS;
	}
	return HCBS_EXIT_OK;
}

/*
 * Every file of @steps a regular file of the directory @dfd (not a
 * symbolic link) that the caller may write: else an exit code and one line.
 */
static int check_writable(int dfd, const char *dir, const struct hcbs_rt_step *steps, int n,
			  char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		struct stat st;
		int e = fstatat(dfd, steps[i].file, &st, AT_SYMLINK_NOFOLLOW) ? errno : 0;

		if (e || !S_ISREG(st.st_mode)) {
			hcbs_seterr(err, errlen, "%s/%s: %s: refused", dir, steps[i].file,
				    e ? strerror(e) : S_ISLNK(st.st_mode) ?
				    "a symbolic link, which no cgroup file is" :
				    "not a regular file, which every cgroup file is");
			return HCBS_EXIT_NOTFOUND;
		}
		if (faccessat(dfd, steps[i].file, W_OK, 0)) {
			hcbs_seterr(err, errlen, "%s: permission denied (%s): run as root",
				    steps[i].file, strerror(errno));
			return HCBS_EXIT_PERM;
		}
	}
	return HCBS_EXIT_OK;
}

static int reserve_at(int dfd, const char *dir, enum hcbs_rt_abi abi,
		      const struct hcbs_rt *to, const char *sysctl_dir, const char *fs_dir,
		      char *err, size_t errlen, char *warn, size_t warnlen);

/*
 * For hcbs_notef(): what the group asks, what it had, and what admission
 * control has for it (the figures of a refusal, before the write).
 */
static void note_admission(const char *dir, const struct hcbs_rt *cur, const struct hcbs_rt *to,
			   double floor_bw, int children, const char *sysctl_dir,
			   const char *fs_dir)
{
	char b1[64], b2[64], where[4200];
	struct hcbs_avail av = { 0 };

	hcbs_notef("%s: from %s to %s", dir, hcbs_rt_format(cur, b1, sizeof(b1)),
		   hcbs_rt_format(to, b2, sizeof(b2)));
	if (children)
		hcbs_notef("%s: its %d reserved child group(s) hold %.3f CPU per CPU", dir,
			   children, floor_bw);
	if (to->runtime_us == HCBS_RT_MAX)
		return;		/* giving back needs no admission */
	if (hcbs_cgroup_is_top(dir)) {
		hcbs_notef("admission: the root group's share may be from %.3f (the top-level groups) to %.3f (the global limit minus the fair server) per CPU",
			  floor_bw, root_limit(sysctl_dir, fs_dir));
		return;
	}
	hcbs_available(dir, sysctl_dir, fs_dir, &av);
	if (av.root_share)
		snprintf(where, sizeof(where), "under the root group's share (%s)",
			 hcbs_rt_format(&av.share, b1, sizeof(b1)));
	else if (av.under_root)
		snprintf(where, sizeof(where), "under the global limit%s",
			 av.share_unreadable ? " (the root group's share is unreadable)" : "");
	else
		snprintf(where, sizeof(where), "under %s", av.parent);
	hcbs_notef("admission: %.3f CPU per CPU available %s, on the least free CPU of the group's cpuset; %.3f requested",
		  av.bw > 0 ? av.bw : 0.0, where, hcbs_rt_bw(to));
}

int hcbs_reserve(const char *dir, const struct hcbs_rt *to,
		 const char *sysctl_dir, const char *fs_dir,
		 char *err, size_t errlen, char *warn, size_t warnlen)
{
	enum hcbs_rt_abi abi;
	int dfd, ret;

	if (warn && warnlen)
		warn[0] = '\0';
	ret = hcbs_rt_check(dir, &abi, err, errlen);
	if (ret)
		return ret;
	/* From here on, every read and write goes through this one fd. */
	dfd = hcbs_cgroup_open(dir, err, errlen);
	if (dfd < 0)
		return errno_exit(dfd);
	ret = reserve_at(dfd, dir, abi, to, sysctl_dir, fs_dir, err, errlen, warn, warnlen);
	close(dfd);
	return ret;
}

static int reserve_at(int dfd, const char *dir, enum hcbs_rt_abi abi,
		      const struct hcbs_rt *to, const char *sysctl_dir, const char *fs_dir,
		      char *err, size_t errlen, char *warn, size_t warnlen)
{
	struct hcbs_rt_step steps[HCBS_RT_MAX_STEPS];
	struct hcbs_global g;
	struct hcbs_rt cur;
	char e[HCBS_ERRLEN];
	uint64_t pmin = 0, pmax = 0;
	int n, ret, failed, children = 0;
	bool rolled_back;
	double floor_bw;

	if (!hcbs_global_read(sysctl_dir, &g, NULL, 0) && g.rt_runtime_us < 0)
		hcbs_seterr(warn, warnlen, "kernel.sched_rt_runtime_us is -1: admission control is off, reservations are not guaranteed (tuned's realtime profile sets this; restore e.g. 950000)");

	if (to->runtime_us != HCBS_RT_MAX && to->runtime_us > to->period_us) {
		hcbs_seterr(err, errlen, "runtime %llu us exceeds period %llu us",
			    (unsigned long long)to->runtime_us, (unsigned long long)to->period_us);
		return HCBS_EXIT_USAGE;
	}
	if (read_sysctl_u64(sysctl_dir, "sched_deadline_period_min_us", &pmin) &&
	    read_sysctl_u64(sysctl_dir, "sched_deadline_period_max_us", &pmax) &&
	    (to->period_us < pmin || to->period_us > pmax)) {
		hcbs_seterr(err, errlen, "period %llu us is outside the kernel's SCHED_DEADLINE range [%llu, %llu] us (kernel.sched_deadline_period_{min,max}_us)",
			    (unsigned long long)to->period_us, (unsigned long long)pmin,
			    (unsigned long long)pmax);
		return HCBS_EXIT_USAGE;
	}
	ret = hcbs_rt_read_at(dfd, dir, abi, &cur, e, sizeof(e));
	if (ret) {
		hcbs_seterr(err, errlen, "%s", e);
		return errno_exit(ret);
	}
	if (cur.runtime_us == to->runtime_us && cur.period_us == to->period_us) {
		hcbs_notef("%s: already %s: nothing written", dir,
			  hcbs_rt_format(&cur, e, sizeof(e)));
		return HCBS_EXIT_OK;
	}

	floor_bw = hcbs_reserved_below(dir, NULL, &children);
	n = hcbs_rt_plan(abi, &cur, to, floor_bw, steps, HCBS_RT_MAX_STEPS);
	if (n == -EDOM || n == -E2BIG) {
		hcbs_seterr(err, errlen, "cannot change the period from %llu to %llu us without going below what the %d reserved child group(s) need (%.3f per CPU); shrink them first",
			    (unsigned long long)cur.period_us, (unsigned long long)to->period_us,
			    children, floor_bw);
		return HCBS_EXIT_REFUSED;
	}
	if (n < 0) {
		hcbs_seterr(err, errlen, "invalid reservation");
		return HCBS_EXIT_USAGE;
	}
	ret = check_writable(dfd, dir, steps, n, err, errlen);
	if (ret)
		return ret;
	if (hcbs_notes_on())
		note_admission(dir, &cur, to, floor_bw, children, sysctl_dir, fs_dir);

	ret = hcbs_rt_apply(dfd, steps, n, &failed, &rolled_back);
	for (int i = 0; i < (ret ? failed : n); i++)
		hcbs_notef("wrote '%s' to %s/%s", steps[i].value, dir, steps[i].file);
	if (ret)
		hcbs_notef("writing '%s' to %s/%s failed: %s; %s", steps[failed].value, dir,
			  steps[failed].file, strerror(-ret),
			  !failed ? "nothing was changed" : rolled_back ?
			  "the writes before it were undone" : "the writes before it could not be undone");
	if (!ret)
		return HCBS_EXIT_OK;

	const char *file = steps[failed].file;
	bool root = hcbs_cgroup_is_top(dir);
	struct hcbs_avail av = { 0 };
	size_t l;

	if (!root)
		hcbs_available(dir, sysctl_dir, fs_dir, &av);
	if (root && (ret == -EBUSY || ret == -ENOSPC))
		share_message(file, ret, to, floor_bw, children,
			      root_limit(sysctl_dir, fs_dir), err, errlen);
	else if (root && ret == -EPERM)
		hcbs_seterr(err, errlen, "%s: permission denied (EPERM): the root group's share needs CAP_SYS_NICE; run as root",
			    file);
	else if (ret == -EBUSY && to->runtime_us == 0)
		hcbs_seterr(err, errlen, "%s: refused (EBUSY): the group holds RT tasks, so its runtime cannot be 0; move them out or give it a runtime > 0",
			    file);
	else if (!root && (ret == -EBUSY || ret == -ENOSPC ||
			   (ret == -EINVAL && hcbs_rt_bw(to) > av.bw + 1e-9)))
		admission_message(file, ret, to, &av, err, errlen);
	else if (ret == -EPERM)
		hcbs_seterr(err, errlen, "%s: permission denied (EPERM): reserving more of the root's RT bandwidth needs CAP_SYS_NICE; run as root, or reserve below a group that has a reservation",
			    file);
	else if (errno_exit(ret) == HCBS_EXIT_PERM)
		hcbs_seterr(err, errlen, "%s: permission denied (%s): run as root", file,
			    errno_name(ret));
	else if (ret == -EINVAL)
		hcbs_seterr(err, errlen, "%s: the kernel rejected '%s' (EINVAL): RUNTIME <= PERIOD, PERIOD within kernel.sched_deadline_period_{min,max}_us",
			    file, steps[failed].value);
	else
		hcbs_seterr(err, errlen, "%s: write '%s' failed: %s", file,
			    steps[failed].value, strerror(-ret));
	l = err ? strlen(err) : 0;
	if (!rolled_back && err && l < errlen)
		snprintf(err + l, errlen - l, "; WARNING: the previous reservation could not be restored");
	return errno_exit(ret);
}

int hcbs_hook_reserve(pid_t pid, const struct hcbs_proc_cgroup *cg, enum hcbs_engine kind,
		      const char *name, const struct hcbs_rt *to,
		      char *err, size_t errlen, char *warn, size_t warnlen)
{
	char e[HCBS_ERRLEN];
	size_t l;
	int ret;

	if (warn && warnlen)
		warn[0] = '\0';
	if (hcbs_own_cgroup_check(cg->path, kind, name, e, sizeof(e))) {
		hcbs_seterr(err, errlen, "pid %d: %s", (int)pid, e);
		return HCBS_EXIT_NOTFOUND;
	}
	ret = hcbs_reserve(cg->dir, to, hcbs_test_env("HCBSCTL_SYSCTL_DIR"),
			   hcbs_test_env("HCBSCTL_FAIR_SERVER_DIR"), err, errlen, warn, warnlen);
	/* Name the cgroup, which the engine chose, unless the reason did. */
	l = err ? strlen(err) : 0;
	if (ret && err && !strstr(err, cg->dir) && l < errlen)
		snprintf(err + l, errlen - l, " (cgroup %s)", cg->dir);
	return ret;
}
