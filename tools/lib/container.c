// SPDX-License-Identifier: GPL-2.0
/*
 * The cpu cgroup of a running LXC container.
 *
 * liblxc has no public call that returns a container's cgroup path, so:
 * liblxc gives the init pid, /proc/PID/cgroup plus mountinfo give init's
 * cgroup (hcbs_cgroup_of_pid()), and then two corrections make it the
 * *limit* cgroup LXC writes lxc.cgroup2.* keys to:
 *  - lxc.cgroup.dir.container.inner: init lives in an inner child of the
 *    limit cgroup; strip that many components;
 *  - on cgroup v2, init may have been moved below the limit cgroup (systemd
 *    as init moves itself to init.scope).  liblxc can read a file of the
 *    limit cgroup for us (get_cgroup_item()), so we compare its cgroup.stat
 *    with that of init's cgroup and of each ancestor: nr_descendants grows
 *    strictly on the way up, so at most one directory matches.
 *
 * Never call this from an LXC hook of the same container: init_pid() and
 * get_cgroup_item() talk to the container's monitor, which does not answer
 * while it runs a hook.  Hooks use hcbs_cgroup_of_pid($LXC_PID) instead.
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

int hcbs_stderr_mute(void)
{
	int saved, null;

	fflush(stderr);
	saved = dup(STDERR_FILENO);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved < 0 || null < 0 || dup2(null, STDERR_FILENO) < 0) {
		if (saved >= 0)
			close(saved);
		if (null >= 0)
			close(null);
		return -1;
	}
	close(null);
	return saved;
}

void hcbs_stderr_restore(int token)
{
	if (token < 0)
		return;
	fflush(stderr);
	dup2(token, STDERR_FILENO);
	close(token);
}

int hcbs_lxcpath_check(const char *lxcpath, char *err, size_t errlen)
{
	struct stat st;

	if (!lxcpath)
		return 0;
	if (stat(lxcpath, &st)) {
		int e = errno;

		hcbs_seterr(err, errlen, "LXC path %s: %s", lxcpath, strerror(e));
		return e == EACCES ? -EACCES : -ENOENT;
	}
	if (!S_ISDIR(st.st_mode)) {
		hcbs_seterr(err, errlen, "LXC path %s is not a directory", lxcpath);
		return -ENOENT;
	}
	return 0;
}

#ifdef HAVE_LXC
#include <lxc/lxccontainer.h>

/* Drop the last @n components of @path (never above "/"). */
static void strip_components(char *path, int n)
{
	while (n-- > 0) {
		char *s = strrchr(path, '/');

		if (!s || s == path)
			return;
		*s = '\0';
	}
}

static int count_components(const char *rel)
{
	int n = 0;

	for (const char *p = rel; *p; p++)
		if (*p != '/' && (p == rel || p[-1] == '/'))
			n++;
	return n;
}

/* Walk up from @path until its cgroup.stat equals @want (v2 only). */
static void match_limit_cgroup(char *path, const char *want)
{
	char cand[PATH_MAX];

	snprintf(cand, sizeof(cand), "%s", path);
	for (int depth = 0; depth < 64; depth++) {
		char *text = NULL;
		bool same;

		if (hcbs_cgroup_read(cand, "cgroup.stat", &text, NULL, 0))
			return;
		same = !strcmp(text, want);
		free(text);
		if (same) {
			strcpy(path, cand);
			return;
		}
		char *s = strrchr(cand, '/');

		if (!s || s == cand)
			return;
		*s = '\0';
	}
}

void hcbs_lxc_quiet(void)
{
	static bool done;
	struct lxc_log log = { .name = "hcbs", .file = "none", .level = "FATAL", .quiet = true };

	if (!done)
		lxc_log_init(&log);
	done = true;
}

int hcbs_container_cgroup(const char *name, const char *lxcpath, char *path,
			  size_t len, int *version, char *err, size_t errlen)
{
	struct lxc_container *c;
	char inner[256] = "", stat[512];
	pid_t pid;
	int ret;

	ret = hcbs_lxcpath_check(lxcpath, err, errlen);
	if (ret)
		return ret;
	hcbs_lxc_quiet();
	ret = hcbs_stderr_mute();
	c = lxc_container_new(name, lxcpath);
	hcbs_stderr_restore(ret);
	if (!c) {
		if (geteuid()) {
			hcbs_seterr(err, errlen, "cannot open container '%s': permission denied (run as root)",
				    name);
			return -EACCES;
		}
		hcbs_seterr(err, errlen, "cannot open container '%s' (bad name or lxcpath?)", name);
		return -ENOENT;
	}
	if (!c->is_running(c)) {
		if (c->is_defined(c)) {
			hcbs_seterr(err, errlen, "container '%s' is not running", name);
			ret = -ESRCH;
		} else {
			hcbs_seterr(err, errlen, "no container '%s' in %s", name,
				    c->get_config_path(c));
			ret = -ENOENT;
		}
		lxc_container_put(c);
		return ret;
	}
	pid = c->init_pid(c);
	if (pid <= 0) {
		hcbs_seterr(err, errlen, "container '%s' has no init process (stopping?)", name);
		lxc_container_put(c);
		return -ESRCH;
	}
	ret = hcbs_cgroup_of_pid(pid, path, len, version, err, errlen);
	if (ret) {
		lxc_container_put(c);
		return ret;
	}
	/* liblxc 5 answers "(null)" for an unset key. */
	if (c->get_config_item(c, "lxc.cgroup.dir.container.inner", inner,
			       sizeof(inner)) > 0 && inner[0] && strcmp(inner, "(null)"))
		strip_components(path, count_components(inner));
	if (*version == 2) {
		int n = c->get_cgroup_item(c, "cgroup.stat", stat, sizeof(stat));

		if (n > 0 && (size_t)n < sizeof(stat)) {
			stat[n] = '\0';
			match_limit_cgroup(path, stat);
		}
	}
	lxc_container_put(c);
	return 0;
}

#else /* !HAVE_LXC */

void hcbs_lxc_quiet(void)
{
}

int hcbs_container_cgroup(const char *name, const char *lxcpath, char *path,
			  size_t len, int *version, char *err, size_t errlen)
{
	(void)lxcpath; (void)path; (void)len; (void)version;
	hcbs_seterr(err, errlen, "container '%s': built without liblxc; use --cgroup PATH", name);
	return -ENOTSUP;
}

#endif
