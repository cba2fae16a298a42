// SPDX-License-Identifier: GPL-2.0
/*
 * hcbs-hook: an LXC hook that gives a container its HCBS reservation
 * before the container's init runs, and releases it when it stops.
 *
 *   lxc.hook.start-host = /usr/libexec/hcbs/hcbs-hook --reserve 8ms/18ms
 *   lxc.hook.stop       = /usr/libexec/hcbs/hcbs-hook
 *
 * start-host runs in the monitor, after LXC has created the container's
 * cgroup, moved init into it and written lxc.cgroup*.* limits, and before
 * init execs: no task of the container can be RT yet.  We find the cgroup
 * from $LXC_PID (/proc/PID/cgroup + mountinfo), never through liblxc calls
 * that talk to the monitor: the monitor is busy running this hook and would
 * never answer.  It must be the container's own, lxc.payload.$LXC_NAME (or
 * lxc/$LXC_NAME on cgroup v1; hcbs_own_cgroup_check()): the root, another
 * top-level cgroup or another container's is refused, and so is a cgroup
 * that cannot be found.  A failure exits non-zero, which aborts the start.
 *
 * stop runs after the container's tasks are gone and before LXC removes
 * the cgroup.  Removing the cgroup frees the reservation anyway; we set it
 * back to max first so that the bandwidth returns to the pool even when
 * LXC cannot remove the cgroup (e.g. a lingering process).  The cgroup
 * path is remembered from start-host in a small state file, because
 * $LXC_PID is dead by then.  stop never fails the container's stop.
 *
 * lxc.hook.version 0 appends "NAME lxc HOOKTYPE [extra]" to our own
 * arguments; version 1 appends nothing and sets LXC_HOOK_TYPE.  LXC_NAME
 * and LXC_PID are set in both.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "hcbs.h"
#include "hcbs-analysis.h"
#include "hcbs-rt.h"

#define DEFAULT_STATE_DIR "/run/hcbs/lxc"

static const char *g_name = "?", *g_type = "?";

/* One line on stderr (LXC logs it) and in syslog (operators look there). */
static void say(int prio, const char *fmt, ...)
{
	char ctx[PATH_MAX];
	va_list ap;

	snprintf(ctx, sizeof(ctx), "%s: %s", g_name, g_type);
	va_start(ap, fmt);
	hcbs_hook_vsay("hcbs-hook", ctx, prio, fmt, ap);
	va_end(ap);
}

static void usage(FILE *f)
{
	fputs(
"Usage: hcbs-hook [--reserve RUNTIME/PERIOD | --taskset FILE --period P]\n"
"                 [--state-dir DIR] [NAME SECTION HOOKTYPE ...]\n"
"\n"
"An LXC hook (lxc.hook.version 0 or 1) that applies an HCBS reservation to\n"
"the container's cgroup before its init runs (start-host) and releases it\n"
"when it stops (stop).  Other hook types are accepted and do nothing;\n"
"pre-start only checks the arguments.\n"
"\n"
"  --reserve Q/P        e.g. 8ms/18ms: Q every P on each CPU\n"
"  --taskset FILE       reserve the minimum runtime the task set needs ...\n"
"  --period P           ... at this period (see hcbsctl analyze)\n"
"  --state-dir DIR      where start-host remembers the cgroup for stop\n"
"                       (default " DEFAULT_STATE_DIR ")\n"
"  -h, --help           this help\n"
"  -V, --version        print the version (hcbs-hook " HCBS_VERSION ") and exit\n"
"\n"
"Example container configuration:\n"
"  lxc.hook.version = 1\n"
"  lxc.hook.start-host = /usr/libexec/hcbs/hcbs-hook --reserve 8ms/18ms\n"
"  lxc.hook.stop = /usr/libexec/hcbs/hcbs-hook\n"
"\n"
"Exit status as hcbsctl(1): 0 ok, 1 bad arguments, 2 refused by the kernel,\n"
"3 cgroup not found, 4 kernel without HCBS or no cpu cgroup hierarchy mounted,\n"
"5 permission denied, 6 task set not schedulable, 7 other error.  Non-zero\n"
"aborts the container's start.\n", f);
}

/*
 * State file name: the container's config path, which is unique, with
 * '%' and '/' written as "%25" and "%2F", so that two paths never share a
 * name.  ('/' as '%' alone made "/lxc/a%b/config" and "/lxc/a/b/config"
 * one file: stopping one container released the other's reservation.)
 */
static int state_path(const char *dir, const char *name, char *buf, size_t len)
{
	const char *cfg = getenv("LXC_CONFIG_FILE"), *p = cfg && *cfg ? cfg : name;
	char key[NAME_MAX + 1];
	size_t k = 0;

	for (; *p && k + 3 < sizeof(key); p++) {
		if (*p == '%' || *p == '/')
			k += (size_t)snprintf(key + k, sizeof(key) - k, "%%%02X", (unsigned char)*p);
		else
			key[k++] = *p;
	}
	key[k] = '\0';
	if (*p || (size_t)snprintf(buf, len, "%s/%s", dir, key) >= len)
		return -ENAMETOOLONG;
	return 0;
}

static int mkdir_p(const char *dir)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", dir);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/*
 * With lxc.cgroup.dir.container.inner, init runs in an inner child of the
 * cgroup LXC puts limits on.  Read the key from the container's config
 * file (lxc.include files are not followed).
 */
static int inner_components(void)
{
	const char *cfg = getenv("LXC_CONFIG_FILE");
	char *text = NULL, *save = NULL, *line;
	int n = 0;

	/* Bounded, text only: a config that never ends cannot hang the start. */
	if (!cfg || hcbs_read_text(cfg, &text, NULL, 0))
		return 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *p = line, *v;

		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, "lxc.cgroup.dir.container.inner", 30))
			continue;
		p += 30;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '=')
			continue;
		n = 0;
		for (v = p + 1; *v; v++)
			if (*v != '/' && *v != ' ' && *v != '\t' &&
			    (v == p + 1 || v[-1] == '/' || v[-1] == ' ' || v[-1] == '\t'))
				n++;
	}
	free(text);
	return n;
}

static int start_host(const struct hcbs_rt *to, const char *state_dir)
{
	const char *pidstr = getenv("LXC_PID");
	char err[8192], warn[HCBS_ERRLEN], sp[PATH_MAX], buf[64];
	static struct hcbs_proc_cgroup cg;
	const char *dir = cg.dir;
	int ret, strip;
	pid_t pid;

	if (!pidstr || !*pidstr) {
		say(LOG_ERR, "LXC_PID is not set: use this hook as lxc.hook.start-host");
		return HCBS_EXIT_USAGE;
	}
	if (hcbs_parse_pid(pidstr, &pid, NULL, 0)) {
		say(LOG_ERR, "LXC_PID '%s' is not a pid", pidstr);
		return HCBS_EXIT_USAGE;
	}
	if (!strcmp(g_name, "?")) {
		say(LOG_ERR, "LXC_NAME is not set: the container's cgroup cannot be told (use this hook as lxc.hook.start-host)");
		return HCBS_EXIT_USAGE;
	}
	/* A fake /proc in the test build only. */
	ret = hcbs_proc_cgroup(hcbs_test_env("HCBS_TEST_PROC"), pid, &cg, err, sizeof(err));
	if (ret) {
		/* No hierarchy mounted: exit 4, as hcbsctl; else no such cgroup. */
		char why[HCBS_ERRLEN + 128];

		ret = hcbs_cpu_hierarchy_check(why, sizeof(why));
		if (ret) {
			say(LOG_ERR, "%s", why);
			return ret;
		}
		say(LOG_ERR, "cannot find the cgroup of init (pid %d): %s", (int)pid, err);
		return HCBS_EXIT_NOTFOUND;
	}
	strip = inner_components();
	hcbs_path_up(cg.dir, strip);
	hcbs_path_up(cg.path, strip);
	ret = hcbs_hook_reserve(pid, &cg, HCBS_ENGINE_LXC, g_name, to, err, sizeof(err),
				warn, sizeof(warn));
	if (warn[0])
		say(LOG_WARNING, "%s", warn);
	if (ret) {
		say(LOG_ERR, "%s", err);
		return ret;
	}
	say(LOG_INFO, "reserved %s (%.3f CPU on each CPU) in %s",
	    hcbs_rt_format(to, buf, sizeof(buf)), hcbs_rt_bw(to), dir);

	/* Remember the cgroup for the stop hook; a failure here is not fatal. */
	if (state_path(state_dir, g_name, sp, sizeof(sp)) || mkdir_p(state_dir)) {
		say(LOG_WARNING, "cannot create %s: the stop hook will not release the reservation (the cgroup's removal still does)",
		    state_dir);
		return 0;
	}
	FILE *f = fopen(sp, "we");

	if (!f || fprintf(f, "%s\n", dir) < 0 || fclose(f)) {
		say(LOG_WARNING, "cannot write %s: %s", sp, strerror(errno));
		return 0;
	}
	return 0;
}

static int stop(const char *state_dir)
{
	char sp[PATH_MAX], dir[PATH_MAX], err[8192], warn[HCBS_ERRLEN];
	struct hcbs_owner own;
	struct hcbs_rt cur, to;
	enum hcbs_rt_abi abi;
	FILE *f;
	int ret;

	if (state_path(state_dir, g_name, sp, sizeof(sp)))
		return 0;
	f = fopen(sp, "re");
	if (!f)
		return 0;	/* nothing reserved by us */
	if (!fgets(dir, sizeof(dir), f)) {
		fclose(f);
		unlink(sp);
		return 0;
	}
	fclose(f);
	dir[strcspn(dir, "\n")] = '\0';
	unlink(sp);
	/* What start-host recorded was checked then; a state file is not trusted. */
	if (!hcbs_cgroup_owner(dir, &own) || strcmp(own.kind, "lxc") || strcmp(own.name, g_name)) {
		say(LOG_WARNING, "%s does not name this container's cgroup (lxc.payload.%s): left alone",
		    sp, g_name);
		return 0;
	}
	abi = hcbs_rt_detect(dir);
	if (abi == HCBS_ABI_NONE || hcbs_rt_read(dir, abi, &cur, NULL, 0))
		return 0;	/* cgroup already gone */
	to.runtime_us = HCBS_RT_MAX;
	to.period_us = cur.period_us;
	ret = hcbs_reserve(dir, &to, hcbs_test_env("HCBSCTL_SYSCTL_DIR"),
			   hcbs_test_env("HCBSCTL_FAIR_SERVER_DIR"), err, sizeof(err),
			   warn, sizeof(warn));
	if (ret)
		say(LOG_WARNING, "could not release the reservation of %s: %s", dir, err);
	else
		say(LOG_INFO, "released the reservation of %s", dir);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "reserve", required_argument, NULL, 'r' },
		{ "taskset", required_argument, NULL, 't' },
		{ "period", required_argument, NULL, 'p' },
		{ "state-dir", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *reserve = NULL, *taskset = NULL, *period = NULL, *ver;
	const char *state_dir = hcbs_test_env("HCBS_HOOK_STATE_DIR");
	struct hcbs_rt to = { 0 };
	int c, ret;

	openlog("hcbs-hook", LOG_PID, LOG_DAEMON);
	if (!state_dir || !*state_dir)
		state_dir = DEFAULT_STATE_DIR;
	g_name = getenv("LXC_NAME") ? getenv("LXC_NAME") : "?";
	g_type = getenv("LXC_HOOK_TYPE") ? getenv("LXC_HOOK_TYPE") : "?";
	opterr = 0;
	/* '+': stop at the first non-option, LXC's appended "NAME lxc TYPE". */
	while ((c = getopt_long(argc, argv, "+r:t:p:s:hV", lopts, NULL)) != -1) {
		switch (c) {
		case 'r': reserve = optarg; break;
		case 't': taskset = optarg; break;
		case 'p': period = optarg; break;
		case 's': state_dir = optarg; break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("hcbs-hook %s\n", HCBS_VERSION);
			return 0;
		default:
			say(LOG_ERR, "bad option '%s' (see hcbs-hook --help)", argv[optind - 1]);
			return HCBS_EXIT_USAGE;
		}
	}
	ver = getenv("LXC_HOOK_VERSION");
	if (!ver || !strcmp(ver, "0")) {
		/* Version 0: NAME SECTION TYPE [extra...] follow our options. */
		if (argc - optind >= 3) {
			g_name = argv[optind];
			g_type = argv[optind + 2];
		}
	} else if (strcmp(ver, "1")) {
		say(LOG_ERR, "unknown lxc.hook.version %s (0 and 1 are supported)", ver);
		return HCBS_EXIT_USAGE;
	}
	if (!strcmp(g_type, "?")) {
		say(LOG_ERR, "no hook type: run me from LXC (lxc.hook.start-host / lxc.hook.stop)");
		return HCBS_EXIT_USAGE;
	}

	if (!strcmp(g_type, "stop"))
		return stop(state_dir);
	if (strcmp(g_type, "start-host") && strcmp(g_type, "pre-start")) {
		say(LOG_INFO, "nothing to do for this hook type");
		return 0;
	}
	if (!!reserve == !!taskset || (taskset && !period) || (period && !taskset)) {
		say(LOG_ERR, "give --reserve RUNTIME/PERIOD, or --taskset FILE --period P");
		return HCBS_EXIT_USAGE;
	}
	if (reserve) {
		char e[HCBS_ERRLEN];
		uint64_t q, p;

		/* Whole microseconds, as hcbsctl set takes them. */
		if (hcbs_parse_reservation(reserve, &q, &p, e, sizeof(e))) {
			say(LOG_ERR, "--reserve: %s", e);
			return HCBS_EXIT_USAGE;
		}
		to.runtime_us = q / 1000;
		to.period_us = p / 1000;
	} else {
		/* The function hcbsctl set --taskset uses: the same answer. */
		char e[HCBS_ERRLEN];

		ret = hcbs_taskset_reservation(taskset, period, NULL, NULL, NULL, &to, e, sizeof(e));
		if (ret) {
			say(LOG_ERR, "%s", e);
			return ret;
		}
	}
	if (!strcmp(g_type, "pre-start"))
		return 0;	/* arguments are fine; the cgroup does not exist yet */
	return start_host(&to, state_dir);
}
