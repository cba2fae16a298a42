// SPDX-License-Identifier: GPL-2.0
/*
 * hcbsctl: messages (errors, warnings, -v notes), target resolution, the
 * JSON documents' shared pieces and the error document.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hcbsctl.h"

int verbosity = VERBOSITY_NORMAL;

/* The first error line (without "hcbsctl: "), for json_error(). */
static char first_error[4096 + 1024];
static bool json_printed;
static const char *note_cmd;

/*
 * "hcbsctl: HEAD: MSG" or "hcbsctl: MSG", one line on stderr: container
 * names, paths and files' contents escaped (hcbs_printable()).  An
 * @error line is remembered for the JSON error document.
 */
static void vline(const char *head, bool error, const char *fmt, va_list ap)
{
	char msg[4096], h[1024], line[sizeof(first_error)];

	hcbs_vescapef(msg, sizeof(msg), fmt, ap);
	snprintf(line, sizeof(line), "%s%s%s",
		 head ? hcbs_printable(head, SIZE_MAX, h, sizeof(h)) : "", head ? ": " : "", msg);
	fprintf(stderr, "hcbsctl: %s\n", line);
	if (error && !first_error[0])
		snprintf(first_error, sizeof(first_error), "%s", line);
}

void note_line(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < VERBOSITY_VERBOSE)
		return;
	va_start(ap, fmt);
	vline(note_cmd, false, fmt, ap);
	va_end(ap);
}

static void lib_note(const char *line)
{
	note_line("%s", line);
}

void verbose_begin(const char *cmd)
{
	note_cmd = cmd;
	verbosity = VERBOSITY_VERBOSE;
	hcbs_set_notes(lib_note);
}

struct hcbs_json *json_open(void)
{
	struct hcbs_json *j = hcbs_json_new(stdout);

	if (!j)
		err_line("out of memory for the JSON document");
	return j;
}

int json_close(struct hcbs_json *j)
{
	if (hcbs_json_free(j)) {
		err_line("the JSON document could not be written to the standard output");
		return HCBS_EXIT_SYSTEM;
	}
	json_printed = true;
	return HCBS_EXIT_OK;
}

void json_error(const char *cmd, int status)
{
	struct hcbs_json *j;
	char msg[64];

	if (json_printed || status == HCBS_EXIT_OK)
		return;
	/* Every failure says why on stderr; this is the fallback of a bug. */
	if (!first_error[0])
		snprintf(msg, sizeof(msg), "failed with exit status %d", status);
	j = hcbs_json_new(stdout);
	if (!j)
		return;
	hcbs_json_object_begin(j);
	hcbs_json_key(j, "schema");
	hcbs_json_string(j, HCBSCTL_SCHEMA);
	hcbs_json_key(j, "command");
	hcbs_json_string(j, cmd);
	hcbs_json_key(j, "error");
	hcbs_json_object_begin(j);
	hcbs_json_key(j, "message");
	hcbs_json_string(j, first_error[0] ? first_error : msg);
	hcbs_json_key(j, "exit_status");
	hcbs_json_int(j, status);
	hcbs_json_object_end(j);
	hcbs_json_object_end(j);
	hcbs_json_free(j);
}

void die_line(const struct opts *o, const char *label, const char *fmt, ...)
{
	char head[1024];
	va_list ap;

	snprintf(head, sizeof(head), "%s%s%s", o->cmd, label ? " " : "", label ? label : "");
	va_start(ap, fmt);
	vline(head, true, fmt, ap);
	va_end(ap);
}

void warn_line(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("warning", false, fmt, ap);
	va_end(ap);
}

void err_line(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(NULL, true, fmt, ap);
	va_end(ap);
}

static int exit_of(int err)
{
	switch (err) {
	case -ENOENT:
	case -ESRCH:
		return HCBS_EXIT_NOTFOUND;
	case -ENOTSUP:
		return HCBS_EXIT_USAGE;
	case -EACCES:
	case -EPERM:
		return HCBS_EXIT_PERM;
	default:
		return HCBS_EXIT_SYSTEM;
	}
}

int resolve_target(const struct opts *o, const char *name, struct target *t)
{
	char e[HCBS_ERRLEN];
	struct stat st;
	int ret;

	memset(t, 0, sizeof(*t));
	if (o->cgroup) {
		t->label = o->cgroup;
		if (strlen(o->cgroup) >= sizeof(t->path)) {
			die_line(o, t->label, "path too long");
			return HCBS_EXIT_USAGE;
		}
		errno = 0;
		if (stat(o->cgroup, &st) || !S_ISDIR(st.st_mode)) {
			die_line(o, t->label, "not a cgroup directory: %s",
				 errno ? strerror(errno) : "not a directory");
			return HCBS_EXIT_NOTFOUND;
		}
		ret = hcbs_cgroup_dir_check(o->cgroup, e, sizeof(e));
		if (ret == -ENOTDIR) {
			die_line(o, t->label, "not a cgroup (no cgroup.procs): expected a directory of a cgroup file system, e.g. /sys/fs/cgroup/NAME");
			return HCBS_EXIT_NOTFOUND;
		}
		if (ret) {
			die_line(o, t->label, "%s", e);
			return ret == -EACCES || ret == -EPERM ? HCBS_EXIT_PERM : HCBS_EXIT_NOTFOUND;
		}
		snprintf(t->path, sizeof(t->path), "%s", o->cgroup);
		/* Trailing slashes would confuse the walks up the tree. */
		for (size_t l = strlen(t->path); l > 1 && t->path[l - 1] == '/'; l--)
			t->path[l - 1] = '\0';
		return HCBS_EXIT_OK;
	}
	t->label = name;
	/* No hierarchy is no container's cgroup either: exit 4, as every command. */
	ret = hcbs_cpu_hierarchy_check(e, sizeof(e));
	if (ret) {
		die_line(o, name, "%s", e);
		return ret;
	}
	ret = hcbs_container_cgroup(name, o->lxcpath, t->path, sizeof(t->path),
				    &t->version, e, sizeof(e));
	if (ret) {
		die_line(o, name, "%s", e);
		return exit_of(ret);
	}
	note_line("container %s: its cgroup is %s (cgroup v%d)", name, t->path, t->version);
	return HCBS_EXIT_OK;
}

int cgroup_root(const struct opts *o, char *root, size_t len)
{
	char e[HCBS_ERRLEN], e2[HCBS_ERRLEN];
	int v;

	if (o->cgroup) {
		snprintf(root, len, "%s", o->cgroup);
		return HCBS_EXIT_OK;
	}
	if (!hcbs_cpu_cgroup_root(root, len, &v, e, sizeof(e)))
		return HCBS_EXIT_OK;
	/* None mounted at all: the line of get, set and the hooks. */
	if (hcbs_cpu_hierarchy_check(e2, sizeof(e2)))
		die_line(o, NULL, "%s", e2);
	else
		die_line(o, NULL, "no cpu cgroup hierarchy is mounted (%s): expected cgroup2, or cgroup v1 with the cpu controller",
			 e);
	return HCBS_EXIT_NOHCBS;
}

int require_hcbs(const char *root, char *err, size_t errlen)
{
	if (hcbs_tree_has_hcbs(root))
		return HCBS_EXIT_OK;
	snprintf(err, errlen, "kernel without HCBS: no cpu.rt.max nor cpu.rt.stat in %s or its children (boot the hcbs kernel)",
		 root);
	return HCBS_EXIT_NOHCBS;
}

int check_interface(const struct opts *o, struct target *t)
{
	struct hcbs_global g;
	char e[HCBS_ERRLEN];
	int ret = hcbs_rt_check(t->path, &t->abi, e, sizeof(e));

	if (ret) {
		die_line(o, t->label, "%s", e);
		return ret;
	}
	note_line("%s: the kernel's interface is %s", t->path, hcbs_rt_abi_name(t->abi));
	if (!hcbs_global_read(o->sysctl_dir, &g, NULL, 0) && g.rt_runtime_us < 0)
		warn_line("kernel.sched_rt_runtime_us is -1: admission control is off, reservations are not guaranteed");
	return HCBS_EXIT_OK;
}

void json_header(struct hcbs_json *j, const char *cmd)
{
	hcbs_json_key(j, "schema");
	hcbs_json_string(j, HCBSCTL_SCHEMA);
	hcbs_json_key(j, "command");
	hcbs_json_string(j, cmd);
}

int reservation_cpus(const char *dir, char *list, size_t len)
{
	char *text = NULL;
	int n = -1;

	if (dir && !hcbs_cgroup_read(dir, "cpu.rt.cpus", &text, NULL, 0))
		n = hcbs_parse_cpulist(text, NULL, 0);
	if (n < 0) {
		free(text);
		text = NULL;
		if (hcbs_read_text("/sys/devices/system/cpu/online", &text, NULL, 0) ||
		    (n = hcbs_parse_cpulist(text, NULL, 0)) < 0) {
			free(text);
			snprintf(list, len, "?");
			return hcbs_online_cpus(NULL, 0);
		}
	}
	text[strcspn(text, "\n")] = '\0';
	snprintf(list, len, "%s", text);
	free(text);
	return n;
}

void json_reservation(struct hcbs_json *j, const struct hcbs_rt *rt, int ncpus,
		      const char *cpu_list)
{
	hcbs_json_object_begin(j);
	hcbs_json_key(j, "runtime_us");
	if (rt->runtime_us == HCBS_RT_MAX)
		hcbs_json_null(j);
	else
		hcbs_json_uint(j, rt->runtime_us);
	hcbs_json_key(j, "period_us");
	hcbs_json_uint(j, rt->period_us);
	hcbs_json_key(j, "max");
	hcbs_json_bool(j, rt->runtime_us == HCBS_RT_MAX);
	hcbs_json_key(j, "bandwidth_per_cpu");
	hcbs_json_double(j, hcbs_rt_bw(rt));
	hcbs_json_key(j, "cpus");
	hcbs_json_int(j, ncpus);
	hcbs_json_key(j, "cpu_list");
	hcbs_json_string(j, cpu_list);
	hcbs_json_key(j, "bandwidth_total");
	hcbs_json_double(j, hcbs_rt_bw(rt) * ncpus);
	hcbs_json_object_end(j);
}

void json_stat(struct hcbs_json *j, const struct hcbs_rt_stat *st)
{
	if (!st->valid) {
		hcbs_json_null(j);
		return;
	}
	hcbs_json_object_begin(j);
	hcbs_json_key(j, "usage_usec");
	hcbs_json_uint(j, st->usage_usec);
	hcbs_json_key(j, "nr_periods");
	hcbs_json_uint(j, st->nr_periods);
	hcbs_json_key(j, "nr_throttled");
	hcbs_json_uint(j, st->nr_throttled);
	hcbs_json_key(j, "throttled_usec");
	hcbs_json_uint(j, st->throttled_usec);
	hcbs_json_key(j, "nr_lagged");
	hcbs_json_uint(j, st->nr_lagged);
	hcbs_json_key(j, "lagged_usec");
	hcbs_json_uint(j, st->lagged_usec);
	hcbs_json_object_end(j);
}

const char *fmt_rt(const struct hcbs_rt *rt, char *buf, size_t len)
{
	return hcbs_rt_format(rt, buf, len);
}

/*
 * Run "systemctl show -p ControlGroup --value -- UNIT" (no shell) and put
 * its first line in @out.  A test build's $HCBSCTL_SYSTEMCTL replaces
 * systemctl.
 */
static int unit_control_group(const char *unit, char *out, size_t len,
			      char *err, size_t errlen)
{
	const char *cmd = hcbs_test_env("HCBSCTL_SYSTEMCTL");
	char *argv[] = { (char *)(cmd ? cmd : "systemctl"), "show", "-p", "ControlGroup",
			 "--value", "--", (char *)unit, NULL };
	posix_spawn_file_actions_t fa;
	extern char **environ;
	int pfd[2], status, ret;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(pfd)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -errno;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, pfd[0]);
	posix_spawn_file_actions_addclose(&fa, pfd[1]);
	ret = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (ret) {
		close(pfd[0]);
		snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(ret));
		return -ret;
	}
	while (n + 1 < len && (r = read(pfd[0], out + n, len - 1 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		n += (size_t)r;
	}
	out[n] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(err, errlen, "%s show %s failed (%s %d)", argv[0], unit,
			 WIFEXITED(status) ? "exit status" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return -ECHILD;
	}
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

int unit_cgroup(const char *unit, char *path, size_t len, char *err, size_t errlen)
{
	const char *run = hcbs_test_env("HCBSCTL_SYSTEMD_DIR");
	char cg[PATH_MAX], line[2 * PATH_MAX + 16], *mi = NULL, e[HCBS_ERRLEN];
	struct stat st;
	int ret, version;

	if (!*unit || strchr(unit, '/')) {
		snprintf(err, errlen, "'%s' is not a unit name: expected e.g. vbbu-helper.service", unit);
		return -EINVAL;
	}
	if (stat(run ? run : "/run/systemd/system", &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "systemd is not running here (no %s): name the cgroup with --cgroup PATH",
			 run ? run : "/run/systemd/system");
		return -ENOENT;
	}
	ret = unit_control_group(unit, cg, sizeof(cg), err, errlen);
	if (ret)
		return ret;
	if (cg[0] != '/') {
		snprintf(err, errlen, "unit %s has no cgroup (not loaded or not running)", unit);
		return -ENOENT;
	}
	/*
	 * Resolved as the cgroup of a process in it (namespaces, hybrid
	 * mounts): systemd gives a unit the same path in every hierarchy, and
	 * a cgroup v1 cpu hierarchy, where there is one, holds the controller.
	 */
	snprintf(line, sizeof(line), "1:cpu:%s\n0::%s\n", cg, cg);
	ret = hcbs_read_text("/proc/self/mountinfo", &mi, e, sizeof(e));
	if (!ret)
		ret = hcbs_cgroup_resolve(line, mi, path, len, &version, e, sizeof(e));
	if (ret == -ENOENT) {
		snprintf(line, sizeof(line), "0::%s\n", cg);
		ret = hcbs_cgroup_resolve(line, mi, path, len, &version, e, sizeof(e));
	}
	free(mi);
	if (ret)
		snprintf(err, errlen, "unit %s, cgroup %s: %s", unit, cg, e);
	return ret;
}
