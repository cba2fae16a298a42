// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's cgroup files, reached only through a directory fd on a
 * cgroup file system.
 *
 * A cgroup directory is opened once with O_PATH and checked with fstatfs()
 * to be on cgroup2 or cgroup (v1); its files are then opened with openat()
 * and O_NOFOLLOW, never by path.  So a path that was checked cannot be
 * swapped for another between the check and the write, a symbolic link
 * planted where cpu.rt.max should be is refused instead of followed, and
 * nothing outside a cgroup file system is ever written: cgroupfs files take
 * each write whole, so nothing is truncated or created either.
 *
 * The unit tests' fake trees are plain directories.  Only a test build
 * (-DHCBS_TESTING, never installed) accepts them, when
 * HCBS_TEST_FAKE_CGROUPFS is set, and then cuts a plain file to what was
 * written, as cgroupfs would show it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "hcbs.h"

static bool fake_cgroupfs(void)
{
	const char *v = hcbs_test_env("HCBS_TEST_FAKE_CGROUPFS");

	return v && *v;
}

static bool is_cgroup_magic(long type)
{
	return type == CGROUP2_SUPER_MAGIC || type == CGROUP_SUPER_MAGIC;
}

/* The file system of @fd, by name where a message needs it. */
static const char *fs_name(long type, char *buf, size_t len)
{
	static const struct { long magic; const char *name; } names[] = {
		{ TMPFS_MAGIC, "tmpfs" }, { EXT4_SUPER_MAGIC, "ext2/3/4" },
		{ XFS_SUPER_MAGIC, "xfs" }, { BTRFS_SUPER_MAGIC, "btrfs" },
		{ OVERLAYFS_SUPER_MAGIC, "overlayfs" }, { PROC_SUPER_MAGIC, "proc" },
		{ SYSFS_MAGIC, "sysfs" }, { NFS_SUPER_MAGIC, "nfs" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].magic == type)
			return names[i].name;
	snprintf(buf, len, "a file system of type 0x%lx", (unsigned long)type);
	return buf;
}

/* 0 if @fd is on a cgroup file system, else -EMEDIUMTYPE with a message. */
static int check_fs(int fd, const char *what, char *err, size_t errlen)
{
	struct statfs sf;
	char buf[48];

	if (fstatfs(fd, &sf)) {
		int e = errno;

		hcbs_seterr(err, errlen, "%s: %s", what, strerror(e));
		return -e;
	}
	if (is_cgroup_magic((long)sf.f_type) || fake_cgroupfs())
		return 0;
	hcbs_seterr(err, errlen, "%s is on %s, not a cgroup file system: expected a directory of a cgroup2 (or cgroup v1) mount, e.g. /sys/fs/cgroup/NAME",
		    what, fs_name((long)sf.f_type, buf, sizeof(buf)));
	return -EMEDIUMTYPE;
}

/*
 * openat(@dfd, @path, @flags) checked to be on a cgroup file system: the
 * fd, or -errno with a message about @what.
 */
static int open_checked(int dfd, const char *path, int flags, const char *what,
			char *err, size_t errlen)
{
	int fd = openat(dfd, path, flags | O_CLOEXEC), ret;

	if (fd < 0) {
		ret = -errno;
		if (ret == -ELOOP && (flags & O_NOFOLLOW))
			hcbs_seterr(err, errlen, "%s is a symbolic link, which no cgroup file is: refused",
				    what);
		else
			hcbs_seterr(err, errlen, "%s: %s", what, strerror(-ret));
		return ret;
	}
	ret = check_fs(fd, what, err, errlen);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int hcbs_cgroup_open(const char *dir, char *err, size_t errlen)
{
	char what[PATH_MAX + 8];

	snprintf(what, sizeof(what), "cgroup %s", dir);
	return open_checked(AT_FDCWD, dir, O_PATH | O_DIRECTORY, what, err, errlen);
}

bool hcbs_cgroup_has_at(int dfd, const char *file)
{
	struct stat st;

	/* A symbolic link counts: reading or writing it is then refused. */
	return !fstatat(dfd, file, &st, AT_SYMLINK_NOFOLLOW);
}

int hcbs_cgroup_read_at(int dfd, const char *dir, const char *file, char **text,
			char *err, size_t errlen)
{
	char what[PATH_MAX + 64];
	int fd, ret;

	/* The file checked too: a bind mount over one file would not be cgroupfs. */
	snprintf(what, sizeof(what), "%s/%s", dir ? dir : ".", file);
	fd = open_checked(dfd, file, O_RDONLY | O_NOFOLLOW, what, err, errlen);
	if (fd < 0)
		return fd;
	ret = hcbs_read_fd_max(fd, what, HCBS_READ_MAX, text, err, errlen);
	close(fd);
	return ret;
}

/*
 * A plain file standing in for a cgroupfs file (test builds only, on a
 * fake tree): cut it to what was written, as cgroupfs would show it.
 */
static int fake_cut(int fd, size_t len)
{
#ifdef HCBS_TESTING
	struct statfs sf;

	if (!fstatfs(fd, &sf) && !is_cgroup_magic((long)sf.f_type) && ftruncate(fd, (off_t)len))
		return -errno;
#else
	(void)fd;
	(void)len;
#endif
	return 0;
}

int hcbs_cgroup_write_at(int dfd, const char *file, const char *value)
{
	size_t len = strlen(value);
	int fd = open_checked(dfd, file, O_WRONLY | O_NOFOLLOW, file, NULL, 0), ret = 0;
	ssize_t n;

	if (fd < 0)
		return fd;
	n = write(fd, value, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	else
		ret = fake_cut(fd, len);
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

int hcbs_cgroup_read(const char *dir, const char *file, char **text, char *err,
		     size_t errlen)
{
	int dfd = hcbs_cgroup_open(dir, err, errlen), ret;

	if (dfd < 0)
		return dfd;
	ret = hcbs_cgroup_read_at(dfd, dir, file, text, err, errlen);
	close(dfd);
	return ret;
}

int hcbs_cgroup_write(const char *dir, const char *file, const char *value)
{
	int dfd = hcbs_cgroup_open(dir, NULL, 0), ret;

	if (dfd < 0)
		return dfd;
	ret = hcbs_cgroup_write_at(dfd, file, value);
	close(dfd);
	return ret;
}

bool hcbs_cgroup_has(const char *dir, const char *file)
{
	int dfd = hcbs_cgroup_open(dir, NULL, 0);
	bool has;

	if (dfd < 0)
		return false;
	has = hcbs_cgroup_has_at(dfd, file);
	close(dfd);
	return has;
}

int hcbs_cgroup_dir_check(const char *dir, char *err, size_t errlen)
{
	int dfd = hcbs_cgroup_open(dir, err, errlen);
	bool cg;

	if (dfd < 0)
		return dfd;
	/* Every cgroup directory, v1 or v2, has cgroup.procs. */
	cg = hcbs_cgroup_has_at(dfd, "cgroup.procs");
	close(dfd);
	if (!cg) {
		hcbs_seterr(err, errlen, "%s is not a cgroup (no cgroup.procs): expected a directory of a cgroup file system, e.g. /sys/fs/cgroup/NAME",
			    dir);
		return -ENOTDIR;
	}
	return 0;
}

bool hcbs_is_cgroup_dir(const char *path)
{
	return !hcbs_cgroup_dir_check(path, NULL, 0);
}
