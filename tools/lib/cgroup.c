// SPDX-License-Identifier: GPL-2.0
/*
 * Which cgroup directory holds the cpu controller for a process:
 * /proc/PID/cgroup gives the path inside each hierarchy, /proc/self/mountinfo
 * tells where (and from which root) each hierarchy is mounted here.  Nothing
 * is guessed from names, and /sys/fs/cgroup is not assumed: hybrid systems
 * mount cgroup2 at /sys/fs/cgroup/unified, and a cgroup namespace mounts a
 * subtree.
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

/* Is @word one of the comma-separated items of @list[0..n)? */
static bool in_list(const char *list, size_t n, const char *word)
{
	size_t wl = strlen(word);
	const char *p = list, *end = list + n;

	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		size_t l = c ? (size_t)(c - p) : (size_t)(end - p);

		if (l == wl && !memcmp(p, word, wl))
			return true;
		p += l + 1;
	}
	return false;
}

/* Decode mountinfo's octal escapes (\040 for space, ...) in place. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

/* Split @line on spaces into at most @max fields; returns the count. */
static int split(char *line, char **f, int max)
{
	int n = 0;

	while (*line && n < max) {
		while (*line == ' ')
			line++;
		if (!*line)
			break;
		f[n++] = line;
		while (*line && *line != ' ')
			line++;
		if (*line)
			*line++ = '\0';
	}
	return n;
}

/*
 * Is this /proc/self/mountinfo @line a mount of the hierarchy asked for
 * (cgroup2 when @v == 2, else cgroup v1 with the cpu controller itself)?
 * Then *@root is the cgroup path of its root and *@mnt its mount point,
 * both decoded, pointing into @line (which is split in place).
 */
static bool cgroup_mount_line(char *line, int v, char **root, char **mnt)
{
	char *f[64];
	int n = split(line, f, 64), sep;

	for (sep = 6; sep < n && strcmp(f[sep], "-"); sep++)
		;
	if (sep + 3 >= n)
		return false;
	if (v == 2 && strcmp(f[sep + 1], "cgroup2"))
		return false;
	if (v == 1 && (strcmp(f[sep + 1], "cgroup") ||
		       !in_list(f[sep + 3], strlen(f[sep + 3]), "cpu")))
		return false;
	unescape(f[3]);
	unescape(f[4]);
	*root = f[3];
	*mnt = f[4];
	return true;
}

bool hcbs_mountinfo_has_cpu_hierarchy(const char *mountinfo)
{
	char *copy = strdup(mountinfo), *save = NULL, *line;
	bool found = false;

	if (!copy)
		return true;	/* cannot tell: no diagnosis */
	for (line = strtok_r(copy, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char *lc = strdup(line), *root, *mnt;

		if (!lc) {
			found = true;
			break;
		}
		found = cgroup_mount_line(lc, 2, &root, &mnt);
		free(lc);
		if (!found)
			found = cgroup_mount_line(line, 1, &root, &mnt);
	}
	free(copy);
	return found;
}

/*
 * Find, in @mountinfo, a mount of the hierarchy (cgroup2 when @v == 2, else a
 * cgroup v1 mount whose super options contain "cpu") whose root is a prefix
 * of @cgpath, and build the absolute path into @path.
 */
static int map_to_mount(const char *mountinfo, const char *cgpath, int v,
			char *path, size_t len)
{
	char *copy = strdup(mountinfo), *save = NULL, *line;
	int ret = -ENOENT;

	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *root, *mnt;
		size_t rl;
		const char *rest;

		if (!cgroup_mount_line(line, v, &root, &mnt))
			continue;
		rl = strlen(root);
		if (!strcmp(root, "/"))
			rest = cgpath;
		else if (!strncmp(cgpath, root, rl) &&
			 (cgpath[rl] == '/' || cgpath[rl] == '\0'))
			rest = cgpath + rl;
		else
			continue;
		if (!strcmp(rest, "/"))
			rest = "";
		if ((size_t)snprintf(path, len, "%s%s", mnt, rest) >= len) {
			ret = -ENAMETOOLONG;
			break;
		}
		ret = 0;
		break;
	}
	free(copy);
	return ret;
}

/*
 * hcbs_cgroup_resolve(), and the cgroup's path in its hierarchy (as
 * @proc_cgroup gives it) into @cg (may be NULL).
 */
static int resolve(const char *proc_cgroup, const char *mountinfo,
		   char *path, size_t len, int *version, char *cg, size_t cglen,
		   char *err, size_t errlen)
{
	char *copy = strdup(proc_cgroup), *save = NULL, *line;
	char *v1path = NULL, *v2path = NULL;
	int ret;

	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2 || c2[1] != '/')
			continue;
		if (!strncmp(line, "0::", 3))
			v2path = c2 + 1;
		else if (in_list(c1 + 1, (size_t)(c2 - c1 - 1), "cpu"))
			v1path = c2 + 1;
	}
	/* A v1 cpu hierarchy wins: then the cpu controller is not on v2. */
	if (v1path) {
		ret = map_to_mount(mountinfo, v1path, 1, path, len);
		if (!ret)
			*version = 1;
	} else if (v2path) {
		ret = map_to_mount(mountinfo, v2path, 2, path, len);
		if (!ret)
			*version = 2;
	} else {
		hcbs_seterr(err, errlen, "no cgroup v2 or cpu cgroup v1 hierarchy in /proc/PID/cgroup");
		free(copy);
		return -ENOENT;
	}
	if (!ret && cg && (size_t)snprintf(cg, cglen, "%s", v1path ? v1path : v2path) >= cglen)
		ret = -ENAMETOOLONG;
	if (ret == -ENOENT)
		hcbs_seterr(err, errlen, "cgroup '%s' is not reachable from any cgroup%s mount here",
			    v1path ? v1path : v2path, v1path ? " (cpu)" : "2");
	else if (ret == -ENAMETOOLONG)
		hcbs_seterr(err, errlen, "cgroup path too long");
	else if (ret)
		hcbs_seterr(err, errlen, "%s", strerror(-ret));
	free(copy);
	return ret;
}

int hcbs_cgroup_resolve(const char *proc_cgroup, const char *mountinfo,
			char *path, size_t len, int *version,
			char *err, size_t errlen)
{
	return resolve(proc_cgroup, mountinfo, path, len, version, NULL, 0, err, errlen);
}

int hcbs_proc_cgroup(const char *proc, pid_t pid, struct hcbs_proc_cgroup *cg,
		     char *err, size_t errlen)
{
	char file[PATH_MAX], *text = NULL, *mi = NULL, e[HCBS_ERRLEN];
	int ret;

	if (!proc)
		proc = "/proc";
	if ((size_t)snprintf(file, sizeof(file), "%s/%d/cgroup", proc, (int)pid) >= sizeof(file)) {
		hcbs_seterr(err, errlen, "%s: path too long", proc);
		return -ENAMETOOLONG;
	}
	ret = hcbs_read_text(file, &text, e, sizeof(e));
	if (ret) {
		hcbs_seterr(err, errlen, "%s", ret == -ENOENT ?
			    "no such process" : e);
		return ret == -ENOENT ? -ESRCH : ret;
	}
	snprintf(file, sizeof(file), "%s/self/mountinfo", proc);
	ret = hcbs_read_text(file, &mi, err, errlen);
	if (!ret)
		ret = resolve(text, mi, cg->dir, sizeof(cg->dir), &cg->version,
			      cg->path, sizeof(cg->path), err, errlen);
	free(text);
	free(mi);
	return ret;
}

int hcbs_cgroup_of_pid(pid_t pid, char *path, size_t len, int *version,
		       char *err, size_t errlen)
{
	struct hcbs_proc_cgroup cg;
	int ret = hcbs_proc_cgroup(NULL, pid, &cg, err, errlen);

	if (ret)
		return ret;
	if ((size_t)snprintf(path, len, "%s", cg.dir) >= len) {
		hcbs_seterr(err, errlen, "cgroup path too long");
		return -ENAMETOOLONG;
	}
	*version = cg.version;
	return 0;
}

int hcbs_cgroup_mount_resolve(const char *mountinfo, const char *path, int version,
			      char *mnt, size_t mlen, char *root, size_t rlen)
{
	char *copy = strdup(mountinfo), *save = NULL, *line;
	size_t best = 0;
	int ret = -ENOENT;

	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *mroot, *mpoint;
		size_t l;

		if (!cgroup_mount_line(line, version, &mroot, &mpoint))
			continue;
		l = strlen(mpoint);
		/* The mount point is @path or one of its ancestors. */
		if (strcmp(mpoint, "/") &&
		    (strncmp(path, mpoint, l) || (path[l] != '/' && path[l] != '\0')))
			continue;
		/* Longest wins; of equals the last (it covers the others). */
		if (ret == 0 && l < best)
			continue;
		if ((size_t)snprintf(mnt, mlen, "%s", mpoint) >= mlen ||
		    (size_t)snprintf(root, rlen, "%s", mroot) >= rlen) {
			ret = -ENAMETOOLONG;
			break;
		}
		best = l;
		ret = 0;
	}
	free(copy);
	return ret;
}

int hcbs_cgroup_mount(const char *path, int version, char *mnt, size_t mlen,
		      char *root, size_t rlen, char *err, size_t errlen)
{
	char *mi = NULL;
	int ret = hcbs_read_text("/proc/self/mountinfo", &mi, err, errlen);

	if (ret)
		return ret;
	ret = hcbs_cgroup_mount_resolve(mi, path, version, mnt, mlen, root, rlen);
	free(mi);
	if (ret == -ENOENT)
		hcbs_seterr(err, errlen, "%s: not in a %s", path,
			    version == 1 ? "cgroup v1 hierarchy with the cpu controller (cpuset, cpuacct are not cpu)" :
			    "cgroup2 mount");
	else if (ret == -ENAMETOOLONG)
		hcbs_seterr(err, errlen, "%s: mount path too long", path);
	else if (ret)
		hcbs_seterr(err, errlen, "%s: %s", path, strerror(-ret));
	return ret;
}

/* @comp is PREFIX-ID[.scope]: copy ID into @id. */
static bool oci_component(const char *comp, const char *prefix, char *id, size_t len)
{
	size_t n = strlen(prefix), l;

	if (strncmp(comp, prefix, n) || !comp[n] || !strncmp(comp + n, "conmon-", 7))
		return false;
	l = strlen(comp + n);
	if (l > 6 && !strcmp(comp + n + l - 6, ".scope"))
		l -= 6;
	if (!l || l >= len)
		return false;
	memcpy(id, comp + n, l);
	id[l] = '\0';
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t l = strlen(s), n = strlen(suffix);

	return l > n && !strcmp(s + l - n, suffix);
}

bool hcbs_cgroup_owner(const char *path, struct hcbs_owner *o)
{
	static const struct { const char *prefix, *engine; } oci[] = {
		{ "libpod-", "podman" }, { "crio-", "cri-o" },
		{ "cri-containerd-", "containerd" }, { "docker-", "docker" },
	};
	char buf[PATH_MAX], *comp[128];
	int n = 0;

	memset(o, 0, sizeof(*o));
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *save = NULL, *t = strtok_r(buf, "/", &save); t && n < 128;
	     t = strtok_r(NULL, "/", &save))
		comp[n++] = t;
	for (int i = n - 1; i >= 0; i--) {
		const char *c = comp[i];

		if (!strncmp(c, "lxc.payload.", 12) && c[12]) {
			snprintf(o->kind, sizeof(o->kind), "lxc");
			snprintf(o->name, sizeof(o->name), "%s", c + 12);
			return true;
		}
		if (i > 0 && !strcmp(comp[i - 1], "lxc")) {
			snprintf(o->kind, sizeof(o->kind), "lxc");
			snprintf(o->name, sizeof(o->name), "%s", c);
			return true;
		}
		for (size_t k = 0; k < sizeof(oci) / sizeof(oci[0]); k++) {
			if (oci_component(c, oci[k].prefix, o->name, sizeof(o->name))) {
				snprintf(o->kind, sizeof(o->kind), "oci");
				snprintf(o->engine, sizeof(o->engine), "%s", oci[k].engine);
				return true;
			}
		}
	}
	/* A unit only when no container holds it (a container's init.scope). */
	for (int i = n - 1; i >= 0; i--) {
		if (ends_with(comp[i], ".service") || ends_with(comp[i], ".scope")) {
			snprintf(o->kind, sizeof(o->kind), "systemd");
			snprintf(o->name, sizeof(o->name), "%s", comp[i]);
			return true;
		}
	}
	return false;
}

int hcbs_own_cgroup_check(const char *cgpath, enum hcbs_engine kind, const char *name,
			  char *err, size_t errlen)
{
	char found[160], want[80], expected[320];
	struct hcbs_owner o;
	int depth = 0;
	bool owned;

	for (const char *p = cgpath; *p; p++)
		if (*p != '/' && (p == cgpath || p[-1] == '/'))
			depth++;
	hcbs_printable(cgpath, 128, found, sizeof(found));
	hcbs_printable(name, 64, want, sizeof(want));
	if (kind == HCBS_ENGINE_OCI)
		snprintf(expected, sizeof(expected),
			 "expected its own cgroup, libpod-, crio- or cri-containerd-%s (the state's id), below a top-level cgroup",
			 want);
	else
		snprintf(expected, sizeof(expected),
			 "expected its own cgroup, lxc.payload.%s (lxc/%s on cgroup v1)", want, want);
	if (!depth) {
		hcbs_seterr(err, errlen, "cgroup / is the root cgroup, not the container's: %s; refused",
			    expected);
		return -EPERM;
	}
	owned = hcbs_cgroup_owner(cgpath, &o) &&
		!strcmp(o.kind, kind == HCBS_ENGINE_OCI ? "oci" : "lxc") &&
		strcmp(o.engine, "docker");	/* dockerd runs no OCI hooks */
	if (!owned) {
		hcbs_seterr(err, errlen, "cgroup %s is not the container's: %s; refused", found, expected);
		return -EPERM;
	}
	if (strcmp(o.name, name)) {
		char other[80];

		hcbs_seterr(err, errlen, "cgroup %s is container %s's, not this one's: %s; refused",
			    found, hcbs_printable(o.name, 64, other, sizeof(other)), expected);
		return -EPERM;
	}
	/* LXC's default is lxc.payload.NAME at the top (lxc.cgroup.relative = 0). */
	if (depth == 1 && kind == HCBS_ENGINE_OCI) {
		hcbs_seterr(err, errlen, "cgroup %s is a top-level cgroup: %s; refused", found, expected);
		return -EPERM;
	}
	return 0;
}

void hcbs_path_up(char *path, int n)
{
	while (n-- > 0) {
		char *s = strrchr(path, '/');

		if (!s)
			return;
		if (s == path) {
			path[1] = '\0';	/* the root, never above */
			return;
		}
		*s = '\0';
	}
}

int hcbs_cgroup_match_stat(const char *dir, const char *want, int max_up)
{
	char cand[PATH_MAX];

	if ((size_t)snprintf(cand, sizeof(cand), "%s", dir) >= sizeof(cand))
		return -ENAMETOOLONG;
	for (int up = 0; up <= max_up; up++) {
		char *text = NULL;
		bool same;

		if (hcbs_cgroup_read(cand, "cgroup.stat", &text, NULL, 0))
			return -ENOENT;
		same = !strcmp(text, want);
		free(text);
		if (same)
			return up;
		if (!strcmp(cand, "/"))
			return -ENOENT;
		hcbs_path_up(cand, 1);
	}
	return -ENOENT;
}
