// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for the CLI tests: write() to a file whose name ends in
 * $FAILWRITE_FILE fails with errno $FAILWRITE_ERRNO (a number), as the
 * kernel would refuse an admission; other writes pass through.  With
 * $FAILWRITE_AFTER=N the first N matching writes succeed (to test rollback).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed;

ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);
	const char *want = getenv("FAILWRITE_FILE"), *err = getenv("FAILWRITE_ERRNO");
	const char *after = getenv("FAILWRITE_AFTER");
	char link[64], path[PATH_MAX];
	ssize_t l;

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (want && err && fd > 2) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		l = readlink(link, path, sizeof(path) - 1);
		if (l > 0) {
			size_t wl = strlen(want);

			path[l] = '\0';
			if ((size_t)l >= wl && !strcmp(path + l - wl, want) &&
			    passed++ >= (after ? atoi(after) : 0)) {
				errno = atoi(err);
				return -1;
			}
		}
	}
	return real(fd, buf, n);
}
