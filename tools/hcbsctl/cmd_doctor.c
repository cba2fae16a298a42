// SPDX-License-Identifier: GPL-2.0
/*
 * hcbsctl doctor: is this machine ready for reservations, and if not, why.
 *
 * One check per line, each ok, warn or fail with what was found and the
 * fix, as lxc-checkconfig and podman info do.  Nothing is written.  The
 * exit status is the worst finding: 0 all ok, 8 warnings (reservations
 * work, something weakens them), 9 a failure (they do not work here).
 *
 * Every file is read at its absolute path under a root that is "/" in
 * hcbsctl itself; a test build takes it from $HCBSCTL_DOCTOR_ROOT (a fake
 * /proc, /sys, /boot and /etc) with the cgroup tree named by the fake
 * mountinfo.
 */
#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

#include "hcbsctl.h"

#ifndef HCBS_LIBEXECDIR
#define HCBS_LIBEXECDIR "/usr/libexec"
#endif
#ifndef HCBS_OCI_HOOKS_DIR
#define HCBS_OCI_HOOKS_DIR "/usr/share/containers/oci/hooks.d"
#endif
#define OCI_POLICY_FILE "/etc/hcbs/oci-hook.conf"

#define PF_KTHREAD 0x00200000u

enum status { ST_OK, ST_WARN, ST_FAIL };
static const char *const status_name[] = { "ok", "warn", "fail" };

struct check {
	const char *name;
	enum status st;
	char found[1024];
	char fix[512];		/* "" when there is nothing to do */
};

#define NCHECKS 16

struct doctor {
	const struct opts *o;
	const char *prefix;		/* "" in hcbsctl itself */
	char release[128];		/* uname -r, "" if unreadable */
	char cgroot[PATH_MAX];		/* the cpu hierarchy, "" if none */
	int cgversion;			/* 2, or 1: a cgroup v1 cpu hierarchy */
	char v1[PATH_MAX];		/* a cgroup v1 mount with cpu, "" if none */
	char v2[PATH_MAX];		/* the cgroup2 mount, "" if none */
	bool hcbs;			/* the HCBS files are there */
	int free_ret;			/* free_figures()'s exit code */
	char free_err[HCBS_ERRLEN];
	struct free_figures f;
	char *cmdline;			/* /proc/cmdline, "" if unreadable */
	int hrtick;			/* HRTICK_RT_GROUP: 1 on, 0 off, -1 absent, -2 unreadable */
	bool oci_hook;			/* the OCI hook is installed */
	struct check c[NCHECKS];
	int n;
};

static void report(struct doctor *d, const char *name, enum status st, const char *fix,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void report(struct doctor *d, const char *name, enum status st, const char *fix,
		   const char *fmt, ...)
{
	struct check *c = &d->c[d->n++];
	va_list ap;

	c->name = name;
	c->st = st;
	va_start(ap, fmt);
	vsnprintf(c->found, sizeof(c->found), fmt, ap);
	va_end(ap);
	snprintf(c->fix, sizeof(c->fix), "%s", fix ? fix : "");
}

/* @path (absolute) under the root. */
static const char *at_root(const struct doctor *d, const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", d->prefix, path);
	return buf;
}

/* A whole file under the root, NULL (errno set) if unreadable. */
static char *slurp(const struct doctor *d, const char *path)
{
	char p[PATH_MAX], *text = NULL;
	int ret = hcbs_read_text(at_root(d, path, p, sizeof(p)), &text, NULL, 0);

	if (ret) {
		errno = -ret;
		return NULL;
	}
	return text;
}

/* The first line of a file under the root into @buf; false if unreadable. */
static bool read_line(const struct doctor *d, const char *path, char *buf, size_t len)
{
	char *text = slurp(d, path);

	if (!text)
		return false;
	text[strcspn(text, "\n")] = '\0';
	snprintf(buf, len, "%s", text);
	free(text);
	return true;
}

/* Is @word one of the blank-separated words of @text? */
static bool has_word(const char *text, const char *word)
{
	size_t l = strlen(word);

	for (const char *p = text; (p = strstr(p, word)); p += l) {
		if ((p == text || isspace((unsigned char)p[-1])) &&
		    (!p[l] || isspace((unsigned char)p[l])))
			return true;
	}
	return false;
}

/* The value of kernel parameter @name= on the command line, into @buf. */
static bool cmdline_param(const struct doctor *d, const char *name, char *buf, size_t len)
{
	size_t l = strlen(name);

	for (const char *p = d->cmdline; *p; ) {
		size_t w;

		while (isspace((unsigned char)*p))
			p++;
		w = strcspn(p, " \t\n");
		if (w > l && !strncmp(p, name, l) && p[l] == '=') {
			snprintf(buf, len, "%.*s", (int)(w - l - 1), p + l + 1);
			return true;
		}
		p += w;
	}
	return false;
}

/* ---- the kernel and the cgroup tree ---- */

/*
 * The cpu hierarchy from mountinfo: a cgroup v1 mount with cpu holds the
 * controller where there is one (a hybrid layout: cgroup v2 has no cpu
 * then), else cgroup v2.
 */
static void find_cgroup_root(struct doctor *d)
{
	char *mi = slurp(d, "/proc/self/mountinfo"), *save = NULL;

	if (!mi)
		return;
	for (char *line = strtok_r(mi, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char mnt[PATH_MAX], fstype[32], opts[512], *sep = strstr(line, " - ");

		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(sep + 3, "%31s %*s %511s", fstype, opts) != 2)
			continue;
		if (!strcmp(fstype, "cgroup2") && !d->v2[0]) {
			snprintf(d->v2, sizeof(d->v2), "%s", mnt);
		} else if (!strcmp(fstype, "cgroup") && !d->v1[0]) {
			for (char *o = opts, *s2 = NULL, *t; (t = strtok_r(o, ",", &s2)); o = NULL)
				if (!strcmp(t, "cpu"))
					snprintf(d->v1, sizeof(d->v1), "%s", mnt);
		}
	}
	free(mi);
	d->cgversion = d->v1[0] ? 1 : d->v2[0] ? 2 : 0;
	snprintf(d->cgroot, sizeof(d->cgroot), "%s", d->v1[0] ? d->v1 : d->v2);
}

static void check_kernel(struct doctor *d)
{
	static const char fix[] = "boot the hcbs kernel (its linux-image package, or scripts/build-kernel)";
	bool named = strstr(d->release, "-hcbs") != NULL;
	enum hcbs_rt_abi abi;

	if (!d->cgroot[0]) {
		report(d, "kernel", ST_FAIL, fix, "%s: no cpu cgroup hierarchy to look for the HCBS files in (see cgroup)",
		       d->release[0] ? d->release : "release unknown");
		return;
	}
	if (!d->hcbs) {
		abi = hcbs_rt_detect(d->cgroot);
		report(d, "kernel", ST_FAIL, fix, "%s: %s in %s or its children",
		       d->release[0] ? d->release : "release unknown",
		       abi == HCBS_ABI_LEGACY ? "the old RT_GROUP_SCHED files, no cpu.rt.stat" :
		       "no cpu.rt.max nor cpu.rt.stat", d->cgroot);
		return;
	}
	abi = hcbs_rt_detect(d->cgroot);
	report(d, "kernel", ST_OK, NULL, "%s%s: HCBS (%s in %s)",
	       d->release[0] ? d->release : "release unknown",
	       named ? ", the hcbs series" : "", abi == HCBS_ABI_NONE ? "cpu.rt.max" :
	       hcbs_rt_abi_name(abi), d->cgroot);
}

static void check_cgroup(struct doctor *d)
{
	static const char fix[] = "boot with systemd.unified_cgroup_hierarchy=1 (cgroup v2 only)";

	if (d->cgversion == 2)
		report(d, "cgroup", ST_OK, NULL, "cgroup v2 at %s", d->cgroot);
	else if (d->cgversion == 1)
		report(d, "cgroup", ST_WARN, fix,
		       "the cpu controller is on cgroup v1 at %s%s%s%s: reservations work there, but OCI engines and the CPUs of a reservation (cpu.rt.cpus) expect cgroup v2",
		       d->v1, d->v2[0] ? " (cgroup v2 without it at " : "", d->v2,
		       d->v2[0] ? ")" : "");
	else
		report(d, "cgroup", ST_FAIL, "mount -t cgroup2 none /sys/fs/cgroup",
		       "no cgroup2 mount (nor a cgroup v1 one with cpu) in /proc/self/mountinfo");
}

/* Where LXC, podman (cgroupfs) and systemd (machined) put containers. */
static const char *const container_parents[] = { "lxc.payload", "machine.slice", "libpod_parent" };

static void check_cpu_controller(struct doctor *d)
{
	char fix[PATH_MAX + 224], found[768] = "", *text = NULL;
	size_t used = 0;
	bool missing = false;

	if (d->cgversion != 2) {
		report(d, "cpu-controller", d->cgversion ? ST_OK : ST_FAIL, d->cgversion ? NULL :
		       "mount cgroup v2 (see cgroup)", d->cgversion ?
		       "cgroup v1: every group of the cpu hierarchy has the cpu files" :
		       "no cpu cgroup hierarchy");
		return;
	}
	if (hcbs_cgroup_read(d->cgroot, "cgroup.controllers", &text, NULL, 0) ||
	    !has_word(text, "cpu")) {
		free(text);
		report(d, "cpu-controller", ST_FAIL,
		       "unmount the cgroup v1 hierarchy that holds cpu, or boot with cgroup_no_v1=all",
		       "cpu is not in %s/cgroup.controllers: the cpu controller is not on cgroup v2",
		       d->cgroot);
		return;
	}
	free(text);
	text = NULL;
	if (hcbs_cgroup_read(d->cgroot, "cgroup.subtree_control", &text, NULL, 0) ||
	    !has_word(text, "cpu")) {
		free(text);
		/* systemd disables a controller no unit asks for (docs/install.md) */
		snprintf(fix, sizeof(fix),
			 "echo +cpu > %s/cgroup.subtree_control; under systemd, which takes that away, install hcbs-tools' system.slice.d/hcbs-cpu-controller.conf and run systemctl daemon-reload",
			 d->cgroot);
		report(d, "cpu-controller", ST_FAIL, fix,
		       "cpu is not in %s/cgroup.subtree_control: no group below the root has cpu.rt.max",
		       d->cgroot);
		return;
	}
	free(text);
	used += (size_t)snprintf(found, sizeof(found), "enabled in %s/cgroup.subtree_control",
				 d->cgroot);
	for (size_t i = 0; i < sizeof(container_parents) / sizeof(container_parents[0]); i++) {
		char dir[PATH_MAX + 32];
		bool on;

		snprintf(dir, sizeof(dir), "%s/%s", d->cgroot, container_parents[i]);
		if (hcbs_cgroup_dir_check(dir, NULL, 0))
			continue;
		text = NULL;
		on = !hcbs_cgroup_read(dir, "cgroup.subtree_control", &text, NULL, 0) &&
		     has_word(text, "cpu");
		free(text);
		if (used < sizeof(found))
			used += (size_t)snprintf(found + used, sizeof(found) - used, "%s %s%s",
						 on ? "; and in" : "; NOT in", container_parents[i],
						 on ? "" : "/cgroup.subtree_control");
		if (!on && !missing) {
			snprintf(fix, sizeof(fix), "echo +cpu > %s/cgroup.subtree_control", dir);
			missing = true;
		}
	}
	report(d, "cpu-controller", missing ? ST_WARN : ST_OK, missing ? fix : NULL, "%s%s",
	       found, missing ? ": containers created below it get no reservation" : "");
}

static void check_root_share(struct doctor *d)
{
	char fix[PATH_MAX + 160], buf[64];
	const struct hcbs_root_share *s = &d->f.share;

	snprintf(fix, sizeof(fix), "hcbsctl --cgroup %s set 500ms/1s (the containers' share; keep it across reboots with a boot-time unit)",
		 d->cgroot);
	if (d->free_ret == HCBS_EXIT_NOHCBS) {
		report(d, "root-share", ST_WARN, "boot the hcbs kernel (see kernel)",
		       "cannot check: no HCBS kernel");
	} else if (d->free_ret) {
		report(d, "root-share", ST_FAIL, "write a valid share: hcbsctl --cgroup ROOT set Q/P, or unset",
		       "%s", d->free_err);
	} else if (s->abi == HCBS_ABI_NONE) {
		report(d, "root-share", ST_WARN, "boot an hcbs kernel with the root share (patch 0026)",
		       "this kernel has no cpu.rt.max on the root: top-level reservations take from the global limit");
	} else if (!d->f.share_set) {
		report(d, "root-share", ST_WARN, fix,
		       "not set (max): top-level reservations take from the global limit beside the fair servers and SCHED_DEADLINE tasks");
	} else if (!s->rt.runtime_us) {
		report(d, "root-share", ST_WARN, fix, "0: no top-level reservation is admitted");
	} else {
		report(d, "root-share", ST_OK, NULL, "%s (%.3f per CPU) kept for the RT groups on every CPU",
		       hcbs_rt_format(&s->rt, buf, sizeof(buf)), d->f.share_bw);
	}
}

static void check_free(struct doctor *d)
{
	int least = -1, most = -1, none[FREE_MAX_CPUS], nnone = 0;
	char list[256];

	if (d->free_ret) {
		report(d, "free", ST_WARN, d->free_ret == HCBS_EXIT_NOHCBS ?
		       "boot the hcbs kernel (see kernel)" : "see root-share",
		       "cannot check: %s", d->free_ret == HCBS_EXIT_NOHCBS ? "no HCBS kernel" : d->free_err);
		return;
	}
	if (d->f.g.rt_runtime_us < 0) {
		report(d, "free", ST_WARN, "sysctl -w kernel.sched_rt_runtime_us=950000 (tuned's realtime profile sets -1)",
		       "kernel.sched_rt_runtime_us is -1: admission control is off, no reservation is guaranteed");
		return;
	}
	for (int i = 0; i < d->f.ncpu; i++) {
		double fr = free_on_cpu(&d->f, i);

		if (least < 0 || fr < free_on_cpu(&d->f, least))
			least = i;
		if (most < 0 || fr > free_on_cpu(&d->f, most))
			most = i;
		if (fr < 0.0005)
			none[nnone++] = d->f.cpus[i];
	}
	if (least < 0) {
		report(d, "free", ST_WARN, NULL, "cannot check: no online CPU found");
		return;
	}
	if (nnone) {
		format_cpu_list(none, nnone, list, sizeof(list));
		report(d, "free", ST_WARN, "hcbsctl list, then shrink or unset a reservation, or raise the root share",
		       "nothing free on CPU %s: no new top-level reservation fits there (%d top-level group(s) reserved)",
		       list, d->f.groups);
		return;
	}
	report(d, "free", ST_OK, NULL, "%.3f to %.3f per CPU (least on CPU %d, most on CPU %d; %d top-level group(s) reserved)%s",
	       free_on_cpu(&d->f, least), free_on_cpu(&d->f, most), d->f.cpus[least],
	       d->f.cpus[most], d->f.groups,
	       d->f.share_set ? "" : ", upper bounds: SCHED_DEADLINE tasks not counted (hcbsctl free)");
}

/* ---- RCU ---- */

/* The kernel's configuration: /boot/config-RELEASE, else /proc/config.gz. */
static char *kernel_config(const struct doctor *d, char *from, size_t len)
{
	char path[160], p[PATH_MAX + 128];
	char *text;

	snprintf(path, sizeof(path), "/boot/config-%s", d->release);
	if (d->release[0] && (text = slurp(d, path))) {
		snprintf(from, len, "%s", path);
		return text;
	}
#ifdef HAVE_ZLIB
	{
		gzFile gz = gzopen(at_root(d, "/proc/config.gz", p, sizeof(p)), "rb");
		size_t cap = 1 << 20, n = 0;
		int r;

		if (!gz)
			return NULL;
		text = malloc(cap + 1);
		while (text && (r = gzread(gz, text + n, (unsigned int)(cap - n))) > 0) {
			n += (size_t)r;
			if (n == cap && cap < HCBS_READ_MAX) {
				char *t = realloc(text, cap * 2 + 1);

				if (!t) {
					free(text);
					text = NULL;
					break;
				}
				text = t;
				cap *= 2;
			}
		}
		if (gzclose(gz) != Z_OK && text) {
			free(text);
			return NULL;
		}
		if (text) {
			text[n] = '\0';
			snprintf(from, len, "/proc/config.gz");
		}
		return text;
	}
#else
	(void)p;
	return NULL;
#endif
}

/* The value of CONFIG_@name in @config: "y", a number, or "" when not set. */
static void config_value(const char *config, const char *name, char *buf, size_t len)
{
	char key[128];
	size_t kl = (size_t)snprintf(key, sizeof(key), "\nCONFIG_%s=", name);
	const char *p = strstr(config, key);

	if (!p && !strncmp(config, key + 1, kl - 1))
		p = config - 1;
	buf[0] = '\0';
	if (p)
		snprintf(buf, len, "%.*s", (int)strcspn(p + kl, "\n"), p + kl);
}

static void check_rcu_boost(struct doctor *d)
{
	char from[160], boost[16], delay[32];
	char *config = kernel_config(d, from, sizeof(from));

	if (!config) {
		report(d, "rcu-boost", ST_WARN, "load the configs module (modprobe configs) or install /boot/config-RELEASE",
		       "cannot check CONFIG_RCU_BOOST: no readable /boot/config-%s nor /proc/config.gz",
		       d->release);
		return;
	}
	config_value(config, "RCU_BOOST", boost, sizeof(boost));
	config_value(config, "RCU_BOOST_DELAY", delay, sizeof(delay));
	free(config);
	if (strcmp(boost, "y"))
		report(d, "rcu-boost", ST_FAIL, "build the kernel with CONFIG_RCU_BOOST=y (the series' Kconfig.fragment sets it)",
		       "CONFIG_RCU_BOOST is not set (%s): an RCU reader throttled by its server holds up every grace period until its server's next period",
		       from);
	else
		report(d, "rcu-boost", ST_OK, NULL, "CONFIG_RCU_BOOST=y (%s), boost delay %s ms",
		       from, delay[0] ? delay : "?");
}

/* The highest-priority FIFO/RR task outside every reservation. */
struct rt_top {
	int prio, pid;
	char comm[32];
};

/*
 * The path of @pid's cgroup in the cpu hierarchy, from /proc/PID/cgroup:
 * the line of the v1 hierarchy with cpu, or the v2 line "0::PATH".
 */
static bool task_cgroup(const struct doctor *d, const char *pid, char *cg, size_t len)
{
	char path[300], *text, *save = NULL;
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%s/cgroup", pid);
	text = slurp(d, path);
	if (!text)
		return false;
	for (char *l = strtok_r(text, "\n", &save); l && !found; l = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c2 = '\0';
		for (char *c = c1 + 1; *c; c++)
			if (*c == ',')
				*c = ' ';
		if (d->cgversion == 2 ? c2 == c1 + 1 : has_word(c1 + 1, "cpu")) {
			snprintf(cg, len, "%s", c2 + 1);
			found = true;
		}
	}
	free(text);
	return found;
}

/* Does the task @pid run at root level: its cgroup has no reserved ancestor? */
static bool root_level(const struct doctor *d, const char *pid)
{
	char cg[PATH_MAX], dir[2 * PATH_MAX], anc[PATH_MAX];
	struct hcbs_rt rt;
	enum hcbs_rt_abi abi;

	if (!d->hcbs || !task_cgroup(d, pid, cg, sizeof(cg)) || !strcmp(cg, "/"))
		return true;
	snprintf(dir, sizeof(dir), "%s%s", d->cgroot, cg);
	abi = hcbs_rt_detect(dir);
	if (abi != HCBS_ABI_NONE && !hcbs_rt_read(dir, abi, &rt, NULL, 0) &&
	    rt.runtime_us != HCBS_RT_MAX)
		return false;
	return !hcbs_reserved_ancestor(dir, d->cgroot, anc, sizeof(anc), &rt);
}

/*
 * Scan /proc/PID/stat: the root-level FIFO/RR tasks, user space in @user,
 * kernel threads in @kthread (not migration/N, which is the stop class, nor
 * RCU's own threads, which run at kthread_prio).
 */
static void scan_rt_tasks(const struct doctor *d, struct rt_top *user, struct rt_top *kthread)
{
	char p[PATH_MAX];
	struct dirent *e;
	DIR *dir = opendir(at_root(d, "/proc", p, sizeof(p)));

	user->prio = kthread->prio = 0;
	if (!dir)
		return;
	while ((e = readdir(dir))) {
		unsigned long flags = 0;
		unsigned int rtprio = 0, policy = 0;
		char path[300], comm[32] = "", *text, *end, *tok, *save = NULL;
		struct rt_top *top;
		int field = 3;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		text = slurp(d, path);
		if (!text)
			continue;
		end = strrchr(text, ')');
		if (end && strchr(text, '('))
			snprintf(comm, sizeof(comm), "%.*s", (int)(end - strchr(text, '(') - 1),
				 strchr(text, '(') + 1);
		for (tok = end ? strtok_r(end + 1, " ", &save) : NULL; tok;
		     tok = strtok_r(NULL, " ", &save), field++) {
			if (field == 9)
				flags = strtoul(tok, NULL, 10);
			else if (field == 40)
				rtprio = (unsigned int)strtoul(tok, NULL, 10);
			else if (field == 41)
				policy = (unsigned int)strtoul(tok, NULL, 10);
		}
		free(text);
		if ((policy != 1 && policy != 2) || !rtprio)
			continue;
		if ((flags & PF_KTHREAD) &&
		    (!strncmp(comm, "migration/", 10) || !strncmp(comm, "rcu", 3)))
			continue;
		top = flags & PF_KTHREAD ? kthread : user;
		if ((int)rtprio <= top->prio || !root_level(d, e->d_name))
			continue;
		top->prio = (int)rtprio;
		top->pid = atoi(e->d_name);
		snprintf(top->comm, sizeof(top->comm), "%s", comm);
	}
	closedir(dir);
}

static void check_kthread_prio(struct doctor *d)
{
	char val[32], fix[128], kt[128] = "";
	struct rt_top user, kthread;
	const char *from = "/sys/module/rcutree/parameters/kthread_prio";
	int prio;

	if (!read_line(d, from, val, sizeof(val))) {
		from = "the kernel command line";
		if (!cmdline_param(d, "rcutree.kthread_prio", val, sizeof(val))) {
			report(d, "rcu-kthread-prio", ST_WARN, "boot with rcutree.kthread_prio above your root RT tasks, e.g. 91",
			       "cannot check: no /sys/module/rcutree/parameters/kthread_prio nor rcutree.kthread_prio on the command line");
			return;
		}
	}
	prio = atoi(val);
	scan_rt_tasks(d, &user, &kthread);
	if (kthread.prio)
		snprintf(kt, sizeof(kt), "; kernel threads up to FIFO %d (%s)", kthread.prio,
			 kthread.comm);
	if (!user.prio) {
		report(d, "rcu-kthread-prio", ST_OK, NULL, "%d (%s); no user-space RT task runs outside the reservations%s",
		       prio, from, kt);
		return;
	}
	if (prio <= user.prio) {
		snprintf(fix, sizeof(fix), "boot with rcutree.kthread_prio=%d (above every root RT task)",
			 user.prio < 99 ? user.prio + 1 : 99);
		report(d, "rcu-kthread-prio", ST_WARN, fix,
		       "%d (%s), not above %s (pid %d) at RT priority %d outside the reservations: a boosted RCU reader waits behind it, and every grace period with it%s",
		       prio, from, user.comm, user.pid, user.prio, kt);
		return;
	}
	report(d, "rcu-kthread-prio", ST_OK, NULL, "%d (%s), above %s (pid %d) at %d, the highest RT task outside the reservations%s",
	       prio, from, user.comm, user.pid, user.prio, kt);
}

/* ---- timing ---- */

static void read_hrtick(struct doctor *d)
{
	char *text = slurp(d, "/sys/kernel/debug/sched/features");

	if (!text)
		d->hrtick = -2;
	else if (has_word(text, "HRTICK_RT_GROUP"))
		d->hrtick = 1;
	else if (has_word(text, "NO_HRTICK_RT_GROUP"))
		d->hrtick = 0;
	else
		d->hrtick = -1;
	free(text);
}

static void check_hrtick(struct doctor *d)
{
	switch (d->hrtick) {
	case 1:
		report(d, "hrtick", ST_OK, NULL, "HRTICK_RT_GROUP: a budget ends on time, not at the next tick");
		break;
	case 0:
		report(d, "hrtick", ST_WARN, "echo HRTICK_RT_GROUP > /sys/kernel/debug/sched/features",
		       "NO_HRTICK_RT_GROUP: a budget overruns until the next tick (up to 1/HZ)");
		break;
	case -1:
		report(d, "hrtick", ST_WARN, "boot the hcbs kernel (see kernel)",
		       "no HRTICK_RT_GROUP in /sys/kernel/debug/sched/features: budgets end at the tick");
		break;
	default:
		report(d, "hrtick", ST_WARN, "as root: mount -t debugfs none /sys/kernel/debug",
		       "cannot check: /sys/kernel/debug/sched/features unreadable (debugfs not mounted, or not root)");
	}
}

static void check_clocksource(struct doctor *d)
{
	char cs[64];

	if (!read_line(d, "/sys/devices/system/clocksource/clocksource0/current_clocksource",
		       cs, sizeof(cs)))
		report(d, "clocksource", ST_WARN, NULL,
		       "cannot check: /sys/devices/system/clocksource/clocksource0/current_clocksource unreadable");
	else if (!strcmp(cs, "tsc") || !strcmp(cs, "arch_sys_counter"))
		report(d, "clocksource", ST_OK, NULL, "%s", cs);
	else
		report(d, "clocksource", ST_WARN,
		       "look for 'Marking clocksource tsc as unstable' in dmesg; where the TSC is known good, boot with tsc=reliable",
		       "%s, not tsc: every budget is charged by reading the clock, and a slow or emulated one (hpet, acpi_pm) makes each charge cost microseconds",
		       cs);
}

/* A CPU list from sysfs (absent, empty or "(null)": none) into @cpus. */
static int sys_cpulist(const struct doctor *d, const char *path, int *cpus, int max,
		       char *list, size_t len)
{
	int n = 0;

	list[0] = '\0';
	if (!read_line(d, path, list, len) || !isdigit((unsigned char)list[0]))
		return 0;
	n = hcbs_parse_cpulist(list, cpus, max);
	return n < 0 ? 0 : n;
}

/* How many reserved top-level groups cover a CPU of @cpus. */
static int groups_on(const struct doctor *d, const int *cpus, int n)
{
	int most = 0;

	for (int i = 0; d->hcbs && i < n && i < FREE_MAX_CPUS; i++) {
		int count = 0;

		hcbs_reserved_below_cpu(d->cgroot, NULL, cpus[i], &count);
		if (count > most)
			most = count;
	}
	return most;
}

static void check_nohz(struct doctor *d)
{
	static int nohz[FREE_MAX_CPUS], iso[FREE_MAX_CPUS];
	char nlist[256], ilist[256], arg[256], found[768] = "";
	int nn = sys_cpulist(d, "/sys/devices/system/cpu/nohz_full", nohz, FREE_MAX_CPUS,
			     nlist, sizeof(nlist));
	int ni = sys_cpulist(d, "/sys/devices/system/cpu/isolated", iso, FREE_MAX_CPUS,
			     ilist, sizeof(ilist));
	size_t used = 0;

	if (!nn && cmdline_param(d, "nohz_full", arg, sizeof(arg)))
		used += (size_t)snprintf(found, sizeof(found), "nohz_full=%s on the command line but no nohz_full CPU (CONFIG_NO_HZ_FULL off?); ",
					 arg);
	if (!nn && !ni) {
		report(d, "nohz-isolation", ST_OK, NULL, "%sno nohz_full and no isolated CPU", found);
		return;
	}
	if (nn && used < sizeof(found))
		used += (size_t)snprintf(found + used, sizeof(found) - used,
					 "nohz_full CPU %s (%d reserved group(s) there): the tick may stop there, so a budget ends only by the budget hrtick, armed at every pick; ",
					 nlist, groups_on(d, nohz, nn));
	if (ni && used < sizeof(found))
		used += (size_t)snprintf(found + used, sizeof(found) - used,
					 "isolated CPU %s (%d reserved group(s) there): no load balancing onto them, a reservation there serves only a container whose cpuset holds them; ",
					 ilist, groups_on(d, iso, ni));
	if (used >= 2 && used < sizeof(found))
		found[used - 2] = '\0';
	if (nn && d->hrtick != 1)
		report(d, "nohz-isolation", ST_WARN, "enable HRTICK_RT_GROUP (see hrtick)",
		       "%s; and HRTICK_RT_GROUP is %s: a budget may run on until a tick that does not come",
		       found, d->hrtick == 0 ? "off" : "not known to be on");
	else
		report(d, "nohz-isolation", ST_OK, NULL, "%s", found);
}

/* ---- the hooks ---- */

/* The first of @paths (NULL-terminated) executable under the root. */
static const char *find_exec(const struct doctor *d, const char *const *paths)
{
	char p[PATH_MAX];

	for (; *paths; paths++)
		if (!access(at_root(d, *paths, p, sizeof(p)), X_OK))
			return *paths;
	return NULL;
}

static void check_lxc_hook(struct doctor *d)
{
	static const char *const paths[] = {
		HCBS_LIBEXECDIR "/hcbs/hcbs-hook", "/usr/libexec/hcbs/hcbs-hook",
		"/usr/local/libexec/hcbs/hcbs-hook", NULL,
	};
	const char *hook = find_exec(d, paths);

	if (hook)
		report(d, "lxc-hook", ST_OK, NULL, "%s: a container's config runs it with lxc.hook.start-host = %s --reserve Q/P",
		       hook, hook);
	else
		report(d, "lxc-hook", ST_WARN, "install hcbs-tools (or meson install), and see lxc-hooks/example.conf",
		       "not installed (%s): an LXC container gets a reservation only from hcbsctl set once started",
		       paths[0]);
}

/*
 * The hook podman and CRI-O would run: hcbs.json in the hooks
 * directories, where a file in /etc masks the same name in /usr/share
 * (oci-hooks(5)), and the directory we were installed to (another
 * prefix) last.  Their hook loader refuses a file that is not JSON, not
 * version 1.0.0, or without a stage; jansson and Go both keep the last of
 * duplicate keys, so a duplicate runs but is reported as the typo it is.
 */
static void check_oci_hook(struct doctor *d)
{
	static const char *const dirs[] = {
		"/etc/containers/oci/hooks.d", "/usr/share/containers/oci/hooks.d",
		HCBS_OCI_HOOKS_DIR,
	};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char file[PATH_MAX], p[PATH_MAX + 16], *text;
		const char *hook, *version;
		json_error_t err;
		json_t *root, *stages, *strict = NULL;

		snprintf(file, sizeof(file), "%s/hcbs.json", dirs[i]);
		text = slurp(d, file);
		if (!text)
			continue;
		root = json_loads(text, 0, &err);
		if (!root) {
			free(text);
			report(d, "oci-hook", ST_FAIL, "reinstall hcbs-tools, or fix the file",
			       "%s is not JSON (line %d: %s): podman and CRI-O cannot load the hook",
			       file, err.line, err.text);
			return;
		}
		hook = json_string_value(json_object_get(json_object_get(root, "hook"), "path"));
		version = json_string_value(json_object_get(root, "version"));
		stages = json_object_get(root, "stages");
		if (!version || strcmp(version, "1.0.0")) {
			report(d, "oci-hook", ST_FAIL, "reinstall hcbs-tools",
			       "%s has version %s, not \"1.0.0\": podman and CRI-O cannot load the hook",
			       file, version ? version : "(none)");
		} else if (!hook) {
			report(d, "oci-hook", ST_FAIL, "reinstall hcbs-tools",
			       "%s has no hook.path: podman and CRI-O cannot run the hook", file);
		} else if (access(at_root(d, hook, p, sizeof(p)), X_OK)) {
			report(d, "oci-hook", ST_FAIL, "reinstall hcbs-tools, or fix hook.path",
			       "%s runs %s, which is not an executable file: podman and CRI-O refuse annotated containers",
			       file, hook);
		} else if (!json_is_array(stages) || !json_array_size(stages)) {
			report(d, "oci-hook", ST_FAIL, "reinstall hcbs-tools",
			       "%s names no stage (\"stages\": [\"createRuntime\"]): the hook never runs", file);
		} else if (!(strict = json_loads(text, JSON_REJECT_DUPLICATES, &err))) {
			d->oci_hook = true;
			report(d, "oci-hook", ST_WARN, "remove the duplicate key",
			       "%s: line %d: %s: podman and CRI-O keep the last one", file, err.line, err.text);
		} else {
			d->oci_hook = true;
			report(d, "oci-hook", ST_OK, NULL, "%s runs %s for containers annotated hcbs.reservation or hcbs.taskset",
			       file, hook);
		}
		free(text);
		json_decref(strict);
		json_decref(root);
		return;
	}
	report(d, "oci-hook", ST_WARN, "install hcbs-tools (or meson install -Doci_hooks_dir=/etc/containers/oci/hooks.d)",
	       "not installed (no hcbs.json in /etc/containers/oci/hooks.d, /usr/share/containers/oci/hooks.d or %s): podman and CRI-O ignore hcbs annotations",
	       dirs[2]);
}

static void check_oci_policy(struct doctor *d)
{
	char p[PATH_MAX];

	if (!access(at_root(d, OCI_POLICY_FILE, p, sizeof(p)), F_OK))
		report(d, "oci-policy", ST_OK, NULL, "%s present", OCI_POLICY_FILE);
	else if (!d->oci_hook)
		report(d, "oci-policy", ST_OK, NULL, "%s absent (no OCI hook installed)", OCI_POLICY_FILE);
	else
		report(d, "oci-policy", ST_WARN, "write the node policy (see hcbs-oci-hook(1))",
		       "%s absent: the OCI hook has no node policy", OCI_POLICY_FILE);
}

/* ---- the CPUs ---- */

struct governed {
	int cpu;
	char gov[32];
};

static int by_cpu(const void *a, const void *b)
{
	return ((const struct governed *)a)->cpu - ((const struct governed *)b)->cpu;
}

static void check_governor(struct doctor *d)
{
	static struct governed g[FREE_MAX_CPUS];
	static int cpus[FREE_MAX_CPUS];
	char pattern[PATH_MAX], found[768] = "";
	size_t plen = strlen(d->prefix), used = 0;
	int n = 0, slow = 0;
	glob_t gl;

	snprintf(pattern, sizeof(pattern), "%s/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor",
		 d->prefix);
	if (glob(pattern, 0, NULL, &gl)) {
		report(d, "governor", ST_OK, NULL, "no cpufreq: Linux does not scale the clock here (check the firmware's power profile)");
		return;
	}
	for (size_t i = 0; i < gl.gl_pathc && n < FREE_MAX_CPUS; i++) {
		const char *path = gl.gl_pathv[i] + plen;

		if (sscanf(path, "/sys/devices/system/cpu/cpu%d/", &g[n].cpu) == 1 &&
		    read_line(d, path, g[n].gov, sizeof(g[n].gov)))
			slow += strcmp(g[n++].gov, "performance") != 0;
	}
	globfree(&gl);
	if (!slow) {
		report(d, "governor", ST_OK, NULL, "performance on all %d CPUs", n);
		return;
	}
	qsort(g, (size_t)n, sizeof(g[0]), by_cpu);
	/* The CPUs of each governor other than performance, in order. */
	for (int i = 0; i < n; i++) {
		char list[256];
		int m = 0;

		if (!strcmp(g[i].gov, "performance") || (i && !strcmp(g[i].gov, "?")))
			continue;
		for (int k = i; k < n; k++) {
			if (strcmp(g[k].gov, g[i].gov) || (k > i && !strcmp(g[k].gov, "?")))
				continue;
			cpus[m++] = g[k].cpu;
			if (k > i)
				snprintf(g[k].gov, sizeof(g[k].gov), "?");
		}
		format_cpu_list(cpus, m, list, sizeof(list));
		if (used < sizeof(found))
			used += (size_t)snprintf(found + used, sizeof(found) - used, "%s%s on CPU %s",
						 used ? ", " : "", g[i].gov, list);
	}
	report(d, "governor", ST_WARN,
	       "cpupower frequency-set -g performance (or tuned-adm profile realtime)",
	       "%s: reservations are time budgets, and a governor that lowers the clock stretches every job inside them",
	       found);
}

static void check_smt(struct doctor *d)
{
	char active[16];

	if (!read_line(d, "/sys/devices/system/cpu/smt/active", active, sizeof(active)))
		report(d, "smt", ST_OK, NULL, "no SMT control: one thread per core");
	else if (!strcmp(active, "1"))
		report(d, "smt", ST_WARN,
		       "boot with nosmt, or echo off > /sys/devices/system/cpu/smt/control, or keep the siblings of reserved CPUs idle",
		       "SMT on: sibling threads share a core, so what a reservation gets done in its budget depends on its sibling's load");
	else
		report(d, "smt", ST_OK, NULL, "SMT off");
}

/* ---- output ---- */

static int print_json(const struct doctor *d, enum status worst, const int *count)
{
	struct hcbs_json *j = json_open();

	if (!j)
		return HCBS_EXIT_SYSTEM;
	hcbs_json_object_begin(j);
	json_header(j, "doctor");
	hcbs_json_key(j, "ready");
	hcbs_json_bool(j, worst != ST_FAIL);
	hcbs_json_key(j, "status");
	hcbs_json_string(j, status_name[worst]);
	hcbs_json_key(j, "counts");
	hcbs_json_object_begin(j);
	for (int s = ST_OK; s <= ST_FAIL; s++) {
		hcbs_json_key(j, status_name[s]);
		hcbs_json_int(j, count[s]);
	}
	hcbs_json_object_end(j);
	hcbs_json_key(j, "kernel_release");
	hcbs_json_string(j, d->release[0] ? d->release : NULL);
	hcbs_json_key(j, "cgroup_root");
	hcbs_json_string(j, d->cgroot[0] ? d->cgroot : NULL);
	hcbs_json_key(j, "checks");
	hcbs_json_array_begin(j);
	for (int i = 0; i < d->n; i++) {
		hcbs_json_object_begin(j);
		hcbs_json_key(j, "name");
		hcbs_json_string(j, d->c[i].name);
		hcbs_json_key(j, "status");
		hcbs_json_string(j, status_name[d->c[i].st]);
		hcbs_json_key(j, "found");
		hcbs_json_string(j, d->c[i].found);
		hcbs_json_key(j, "fix");
		hcbs_json_string(j, d->c[i].fix[0] ? d->c[i].fix : NULL);
		hcbs_json_object_end(j);
	}
	hcbs_json_array_end(j);
	hcbs_json_object_end(j);
	return json_close(j);
}

static void print_text(const struct doctor *d, enum status worst, const int *count)
{
	for (int i = 0; i < d->n; i++) {
		const struct check *c = &d->c[i];

		/* -q: what needs doing, and nothing when nothing does. */
		if (verbosity == VERBOSITY_QUIET && c->st == ST_OK)
			continue;
		printf("%-5s %-17s %s", status_name[c->st], c->name, c->found);
		if (c->fix[0])
			printf("; fix: %s", c->fix);
		putchar('\n');
	}
	if (verbosity == VERBOSITY_QUIET)
		return;
	printf("\n%s: %d ok, %d warn, %d fail\n",
	       worst == ST_FAIL ? "not ready for reservations" :
	       worst == ST_WARN ? "ready for reservations, with warnings" :
	       "ready for reservations", count[ST_OK], count[ST_WARN], count[ST_FAIL]);
}

int cmd_doctor(struct opts *o)
{
	static struct doctor d;
	int count[3] = { 0 }, ret;
	enum status worst = ST_OK;
	const char *prefix = hcbs_test_env("HCBSCTL_DOCTOR_ROOT");

	memset(&d, 0, sizeof(d));
	d.o = o;
	d.prefix = prefix ? prefix : "";
	read_line(&d, "/proc/sys/kernel/osrelease", d.release, sizeof(d.release));
	d.cmdline = slurp(&d, "/proc/cmdline");
	if (!d.cmdline)
		d.cmdline = strdup("");
	if (!d.cmdline) {
		die_line(o, NULL, "out of memory");
		return HCBS_EXIT_SYSTEM;
	}
	find_cgroup_root(&d);
	d.hcbs = d.cgroot[0] && hcbs_tree_has_hcbs(d.cgroot);
	if (d.cgroot[0])
		d.free_ret = free_figures(o, d.cgroot, &d.f, d.free_err, sizeof(d.free_err));
	else
		d.free_ret = HCBS_EXIT_NOHCBS;
	read_hrtick(&d);

	check_kernel(&d);
	check_cgroup(&d);
	check_cpu_controller(&d);
	check_root_share(&d);
	check_free(&d);
	check_rcu_boost(&d);
	check_kthread_prio(&d);
	check_hrtick(&d);
	check_clocksource(&d);
	check_nohz(&d);
	check_lxc_hook(&d);
	check_oci_hook(&d);
	check_oci_policy(&d);
	check_governor(&d);
	check_smt(&d);
	free(d.cmdline);

	for (int i = 0; i < d.n; i++) {
		count[d.c[i].st]++;
		if (d.c[i].st > worst)
			worst = d.c[i].st;
	}
	if (o->json) {
		ret = print_json(&d, worst, count);
		if (ret)
			return ret;
	} else {
		print_text(&d, worst, count);
	}
	return worst == ST_FAIL ? HCBSCTL_EXIT_NOT_READY :
	       worst == ST_WARN ? HCBSCTL_EXIT_WARNINGS : HCBS_EXIT_OK;
}
