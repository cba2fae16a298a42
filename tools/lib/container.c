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
 * The result must be the container's own cgroup (lxc.payload.NAME, or
 * lxc/NAME on v1; hcbs_own_cgroup_check()), or it is refused: never the
 * root, never init's cgroup as a fallback when nothing matches.
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

static int count_components(const char *rel)
{
	int n = 0;

	for (const char *p = rel; *p; p++)
		if (*p != '/' && (p == rel || p[-1] == '/'))
			n++;
	return n;
}

void hcbs_lxc_quiet(void)
{
	static bool done;
	struct lxc_log log = { .name = "hcbs", .file = "none", .level = "FATAL", .quiet = true };

	if (!done)
		lxc_log_init(&log);
	done = true;
}

/*
 * The limit cgroup of the running container @c, from its init @pid: init's
 * cgroup, less lxc.cgroup.dir.container.inner, then the ancestor whose
 * cgroup.stat is the one liblxc reads from the limit cgroup (v2).  It must
 * be the container's own (hcbs_own_cgroup_check()): nothing else is ever
 * returned, init's cgroup included.
 */
static int limit_cgroup(struct lxc_container *c, const char *name, pid_t pid,
			struct hcbs_proc_cgroup *cg, char *err, size_t errlen)
{
	char inner[256] = "", stat[512], e[HCBS_ERRLEN];
	int ret, up = 0, n;

	ret = hcbs_proc_cgroup(NULL, pid, cg, err, errlen);
	if (ret)
		return ret;
	/* liblxc 5 answers "(null)" for an unset key. */
	if (c->get_config_item(c, "lxc.cgroup.dir.container.inner", inner,
			       sizeof(inner)) > 0 && inner[0] && strcmp(inner, "(null)"))
		up = count_components(inner);
	hcbs_path_up(cg->dir, up);
	hcbs_path_up(cg->path, up);
	n = cg->version == 2 ? c->get_cgroup_item(c, "cgroup.stat", stat, sizeof(stat)) : 0;
	if (n > 0 && (size_t)n < sizeof(stat)) {
		stat[n] = '\0';
		up = hcbs_cgroup_match_stat(cg->dir, stat, 64);
		if (up < 0) {
			hcbs_seterr(err, errlen, "container '%s': none of %s and its ancestors is the cgroup liblxc reports (cgroup.stat differs): refused",
				    name, hcbs_printable(cg->dir, 256, e, sizeof(e)));
			return -ENOENT;
		}
		hcbs_path_up(cg->dir, up);
		hcbs_path_up(cg->path, up);
	}
	if (hcbs_own_cgroup_check(cg->path, HCBS_ENGINE_LXC, name, e, sizeof(e))) {
		hcbs_seterr(err, errlen, "container '%s': %s", name, e);
		return -ENOENT;
	}
	return 0;
}

int hcbs_container_cgroup(const char *name, const char *lxcpath, char *path,
			  size_t len, int *version, char *err, size_t errlen)
{
	struct hcbs_proc_cgroup *cg;
	struct lxc_container *c;
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
	cg = malloc(sizeof(*cg));
	ret = cg ? limit_cgroup(c, name, pid, cg, err, errlen) : -ENOMEM;
	if (!ret && (size_t)snprintf(path, len, "%s", cg->dir) >= len) {
		hcbs_seterr(err, errlen, "container '%s': cgroup path too long", name);
		ret = -ENAMETOOLONG;
	}
	if (!ret)
		*version = cg->version;
	free(cg);
	lxc_container_put(c);
	return ret;
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
