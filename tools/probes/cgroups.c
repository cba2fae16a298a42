// SPDX-License-Identifier: GPL-2.0
/*
 * hcbstrace: the cgroups a run selects, and the names of every cgroup it
 * reports (found by id under the hierarchy's mount).
 */
#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "cgroups.h"
#include "hcbs-rt.h"
#include "messages.h"
#include "stats.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC	0x63677270
#endif
#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC	0x27e0eb
#endif

static int depth(const char *path)
{
	int d = 0;

	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			d++;
	return d;
}

static void name_from_rel(const char *rel, char *name, size_t len)
{
	while (*rel == '/')
		rel++;
	if (!*rel) {
		snprintf(name, len, "/");
		return;
	}
	if (!strncmp(rel, "lxc.payload.", 12))
		rel += 12;
	snprintf(name, len, "%s", rel);
}

/*
 * The mount of the hierarchy this process's cpu cgroup is in (cgroup2, or
 * the v1 hierarchy with the cpu controller), found as tools/lib finds it
 * for hcbsctl: /proc/self/cgroup resolved against mountinfo, never a guess.
 */
static int own_hierarchy(const struct hcbs_opts *o, int *version, char *mnt, size_t mlen,
			 char *root, size_t rlen)
{
	char path[PATH_MAX], err[HCBS_ERRLEN];
	int ret;

	ret = hcbs_cgroup_of_pid(getpid(), path, sizeof(path), version, err, sizeof(err));
	if (!ret)
		ret = hcbs_cgroup_mount(path, *version, mnt, mlen, root, rlen, err, sizeof(err));
	if (ret) {
		hcbs_err(o, "no cpu cgroup hierarchy is mounted (%s): expected cgroup2, or cgroup v1 with the cpu controller",
			 err);
		/* As hcbsctl: this machine holds no reservation (exit 4). */
		return -ENOMEDIUM;
	}
	return 0;
}

static int add_cgroup(struct hcbs_opts *o, const char *arg, const char *name,
		      int version_hint)
{
	struct hcbs_cg_target *t;
	char path[PATH_MAX], abs[2 * PATH_MAX], mnt[PATH_MAX], root[PATH_MAX], err[HCBS_ERRLEN];
	struct statfs sfs;
	struct stat st;
	size_t l;
	int version, ret;

	if (o->nr_cg >= HCBS_MAX_CGROUPS) {
		hcbs_err(o, "at most %d --cgroup/--container filters", HCBS_MAX_CGROUPS);
		return -EINVAL;
	}
	/* Trailing slashes would hide the cgroup's descendants from path tests. */
	snprintf(path, sizeof(path), "%s", arg);
	for (l = strlen(path); l > 1 && path[l - 1] == '/'; l--)
		path[l - 1] = '\0';
	if (stat(path, &st)) {
		/*
		 * A path inside our own hierarchy, e.g. lxc.payload.vbbu1 or
		 * /rt: under that hierarchy's real mount point.
		 */
		int e = errno, v;

		ret = own_hierarchy(o, &v, mnt, sizeof(mnt), root, sizeof(root));
		if (ret)
			return ret;
		snprintf(abs, sizeof(abs), "%s%s%s", mnt, path[0] == '/' ? "" : "/", path);
		if (strlen(abs) >= sizeof(path) || stat(abs, &st)) {
			hcbs_err(o, "cgroup %s: %s (nor %s)", path, strerror(e), abs);
			return -ENOENT;
		}
		snprintf(path, sizeof(path), "%s", abs);
	}
	if (!S_ISDIR(st.st_mode) || statfs(path, &sfs)) {
		hcbs_err(o, "cgroup %s: %s", path, errno ? strerror(errno) : "not a directory");
		return -ENOENT;
	}
	if (sfs.f_type == CGROUP2_SUPER_MAGIC)
		version = 2;
	else if (sfs.f_type == CGROUP_SUPER_MAGIC)
		version = 1;
	else {
		hcbs_err(o, "%s is not a cgroup directory (no cgroup or cgroup2 file system)", path);
		return -ENOENT;
	}
	if (version_hint && version_hint != version) {
		hcbs_err(o, "%s: expected a cgroup v%d directory", path, version_hint);
		return -EINVAL;
	}
	if (o->cg_version && o->cg_version != version) {
		hcbs_err(o, "%s: cannot mix cgroup v1 and v2 filters", path);
		return -EINVAL;
	}
	/* v1: the hierarchy must have the cpu controller itself (not cpuset). */
	ret = hcbs_cgroup_mount(path, version, mnt, sizeof(mnt), root, sizeof(root),
				err, sizeof(err));
	if (ret) {
		hcbs_err(o, "%s", err);
		return ret;
	}
	o->cg_version = version;
	snprintf(o->cg_mount, sizeof(o->cg_mount), "%s", mnt);
	snprintf(o->cg_mount_root, sizeof(o->cg_mount_root), "%s", root);
	t = &o->cg[o->nr_cg++];
	snprintf(t->path, sizeof(t->path), "%s", path);
	t->id = st.st_ino;
	t->level = depth(root) + depth(path + strlen(mnt));
	if (name)
		snprintf(t->name, sizeof(t->name), "%s", name);
	else
		name_from_rel(path + strlen(mnt), t->name, sizeof(t->name));
	return 0;
}

int hcbs_cgroups_select(struct hcbs_opts *o, const char *const *containers, int nr_containers,
			const char *const *cgroups, int nr_cgroups)
{
	char err[HCBS_ERRLEN + 128];

	/*
	 * No hierarchy mounted is no container's cgroup either: exit 4, as
	 * hcbsctl's get NAME, not 3 as for a name that does not exist.
	 */
	if (nr_containers && hcbs_cpu_hierarchy_check(err, sizeof(err))) {
		hcbs_err(o, "--container %s: %s", containers[0], err);
		return -ENOMEDIUM;
	}
	for (int i = 0; i < nr_containers; i++) {
		char path[PATH_MAX];
		int v, ret;

		ret = hcbs_container_cgroup(containers[i], o->lxcpath, path, sizeof(path),
					    &v, err, sizeof(err));
		if (ret) {
			hcbs_err(o, "--container %s: %s", containers[i], err);
			return ret;
		}
		ret = add_cgroup(o, path, containers[i], v);
		if (ret)
			return ret;
	}
	for (int i = 0; i < nr_cgroups; i++) {
		int ret = add_cgroup(o, cgroups[i], NULL, 0);

		if (ret)
			return ret;
	}
	/* No cgroup filter: key on the hierarchy this process's cpu cgroup is in. */
	if (!o->nr_cg)
		return own_hierarchy(o, &o->cg_version, o->cg_mount, sizeof(o->cg_mount),
				     o->cg_mount_root, sizeof(o->cg_mount_root));
	return 0;
}

/*
 * The cgroups under the mount, by id.  Entries are never dropped before
 * hcbs_cgroup_names_free(), so the names handed out stay valid (ids are
 * not reused).
 */
struct cg_name {
	uint64_t id;
	char *name;
	char *rel;
};

static struct cg_name *names;
static size_t nr_names, cap_names;
static const char *walk_mount;
static time_t last_walk;

static const struct cg_name *find_name(uint64_t id)
{
	for (size_t i = 0; i < nr_names; i++)
		if (names[i].id == id)
			return &names[i];
	return NULL;
}

static int walk_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *rel = path + strlen(walk_mount);
	char name[PATH_MAX];
	struct cg_name *nn;

	(void)ftw;
	if (flag != FTW_D || find_name(st->st_ino))
		return 0;
	nn = hcbs_grow(names, nr_names, &cap_names, sizeof(*names), 256);
	if (!nn)
		return 1;
	names = nn;
	name_from_rel(rel, name, sizeof(name));
	names[nr_names].id = st->st_ino;
	names[nr_names].name = strdup(name);
	names[nr_names].rel = strdup(rel + (*rel == '/'));
	if (names[nr_names].name && names[nr_names].rel) {
		nr_names++;
	} else {
		free(names[nr_names].name);
		free(names[nr_names].rel);
	}
	return 0;
}

static const struct cg_name *lookup_name(const struct hcbs_opts *o, uint64_t id)
{
	const struct cg_name *n = find_name(id);

	/* Walk the tree again, at most once a second: cgroups come and go. */
	if (n || !o->cg_mount[0] || time(NULL) == last_walk)
		return n;
	last_walk = time(NULL);
	walk_mount = o->cg_mount;
	nftw(o->cg_mount, walk_one, 16, FTW_PHYS | FTW_MOUNT);
	return find_name(id);
}

const char *hcbs_cgroup_known_name(const struct hcbs_opts *o, uint64_t id)
{
	const struct cg_name *n;

	for (int i = 0; i < o->nr_cg; i++)
		if (o->cg[i].id == id)
			return o->cg[i].name;
	n = lookup_name(o, id);
	return n ? n->name : NULL;
}

const char *hcbs_cgroup_unknown_name(char *buf, size_t len, uint64_t id)
{
	snprintf(buf, len, "cgroup-%llu", (unsigned long long)id);
	return buf;
}

const char *hcbs_cgroup_name(const struct hcbs_opts *o, uint64_t id)
{
	static char unknown[32];
	const char *name = hcbs_cgroup_known_name(o, id);

	return name ? name : hcbs_cgroup_unknown_name(unknown, sizeof(unknown), id);
}

/*
 * By path too: a cgroup made anew where a filter's was (a restarted
 * container) has another id.
 */
bool hcbs_cgroup_selected(const struct hcbs_opts *o, uint64_t id)
{
	char path[2 * PATH_MAX + 2];
	const struct cg_name *n;

	if (!o->nr_cg)
		return true;
	for (int i = 0; i < o->nr_cg; i++)
		if (o->cg[i].id == id)
			return true;
	n = lookup_name(o, id);
	if (!n)
		return false;
	snprintf(path, sizeof(path), "%s/%s", o->cg_mount, n->rel);
	for (int i = 0; i < o->nr_cg; i++)
		if (path_within(path, o->cg[i].path))
			return true;
	return false;
}

void hcbs_cgroup_names_free(void)
{
	for (size_t i = 0; i < nr_names; i++) {
		free(names[i].name);
		free(names[i].rel);
	}
	free(names);
	names = NULL;
	nr_names = cap_names = 0;
}
