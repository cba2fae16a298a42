// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: what the LXC hook (lxc-hooks/hcbs-hook.c) reads from
 * files: the container's config (lxc.cgroup.dir.container.inner, read by
 * inner_components() from $LXC_CONFIG_FILE) and the state file that the
 * stop hook reads back.  The hook's static functions are reached by
 * including its source (its main() renamed).  Properties: no crash or
 * undefined behaviour; the number of cgroup components to strip is never
 * negative nor more than the value has; the state path fits its buffer or
 * is refused, and decodes back to the config path it was made of (the
 * encoding is injective: two containers never share a state file).
 */
#include <fcntl.h>
#include <limits.h>

#include "fuzz.h"

#define main hcbs_hook_main
#include "../../lxc-hooks/hcbs-hook.c"
#undef main

static char cfg[64];

/* The config path a state file name was made of ("%25" '%', "%2F" '/'). */
static bool decode_key(const char *key, char *out, size_t len)
{
	size_t n = 0;

	for (; *key; key++) {
		char c = *key;

		if (c == '/')
			return false;	/* never in a file name */
		if (c == '%') {
			if (!strncmp(key, "%25", 3))
				c = '%';
			else if (!strncmp(key, "%2F", 3))
				c = '/';
			else
				return false;
			key += 2;
		}
		if (n + 1 >= len)
			return false;
		out[n++] = c;
	}
	out[n] = '\0';
	return true;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd;

	(void)argc;
	(void)argv;
	snprintf(cfg, sizeof(cfg), "%s/hcbs-fuzz-hook.XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	fd = mkstemp(cfg);
	if (fd < 0)
		abort();
	close(fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char sp[PATH_MAX], *name;
	int n, slashes = 0, fd = open(cfg, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	close(fd);
	setenv("LXC_CONFIG_FILE", cfg, 1);
	n = inner_components();
	for (size_t i = 0; i < size; i++)
		slashes += data[i] != '/' && data[i] != ' ' && data[i] != '\t';
	FUZZ_CHECK(n >= 0 && n <= slashes, "%d components from a config of %zu bytes", n, size);

	/* The state file's name, from the config path or the container name. */
	name = fuzz_str(data, size < 4096 ? size : 4096);
	setenv("LXC_CONFIG_FILE", name, 1);
	if (!state_path("/run/hcbs/lxc", "c1", sp, sizeof(sp))) {
		char back[4096 + 1];

		FUZZ_CHECK(strnlen(sp, sizeof(sp)) < sizeof(sp) && !strchr(sp + 14, '/'),
			   "state path '%s'", sp);
		FUZZ_CHECK(decode_key(sp + 14, back, sizeof(back)) &&
			   !strcmp(back, *name ? name : "c1"),
			   "state path '%s' does not decode to the config path", sp);
	}
	unsetenv("LXC_CONFIG_FILE");
	if (!state_path("/run/hcbs/lxc", name, sp, sizeof(sp)))
		FUZZ_CHECK(!strchr(sp + 14, '/'), "state path '%s'", sp);
	free(name);
	return 0;
}
