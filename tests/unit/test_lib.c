// SPDX-License-Identifier: GPL-2.0
/*
 * libhcbs-util: JSON output, sizes and pids, growing arrays, cgroup
 * discovery from /proc/PID/cgroup and mountinfo texts, cpu.rt.max
 * parsing, the root group's share (on a fake root cgroup), the
 * two-file write plan (every intermediate state valid, checked on random
 * transitions), the cgroup files through a directory fd (another file
 * system, symbolic links), and whose cgroup a hook may reserve.  Linked
 * with the test build of tools/lib, whose fake cgroupfs the fake trees
 * need.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hcbs.h"
#include "hcbs-analysis.h"
#include "hcbs-rt.h"
#include "tap.h"

static char *json_of(void (*fn)(struct hcbs_json *), int *freeret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct hcbs_json *j = hcbs_json_new(f);

	fn(j);
	*freeret = hcbs_json_free(j);
	fclose(f);
	return buf;
}

static void doc(struct hcbs_json *j)
{
	hcbs_json_object_begin(j);
	hcbs_json_key(j, "s");
	hcbs_json_string(j, "q\"b\\n\n\t\x01\x7f é \xff\xc3");
	hcbs_json_key(j, "a");
	hcbs_json_array_begin(j);
	hcbs_json_int(j, -3);
	hcbs_json_uint(j, UINT64_MAX);
	hcbs_json_double(j, 0.1);
	hcbs_json_double(j, 8.0 / 18.0);
	hcbs_json_double(j, 2.0);
	hcbs_json_double(j, 1.0 / 0.0);
	hcbs_json_bool(j, true);
	hcbs_json_null(j);
	hcbs_json_string(j, NULL);
	hcbs_json_array_end(j);
	hcbs_json_key(j, "e");
	hcbs_json_object_begin(j);
	hcbs_json_object_end(j);
	hcbs_json_object_end(j);
}

static void misuse_no_key(struct hcbs_json *j)
{
	hcbs_json_object_begin(j);
	hcbs_json_int(j, 1);
	hcbs_json_object_end(j);
}

static void misuse_open(struct hcbs_json *j)
{
	hcbs_json_array_begin(j);
}

static void misuse_mismatch(struct hcbs_json *j)
{
	hcbs_json_array_begin(j);
	hcbs_json_object_end(j);
}

static void misuse_two_roots(struct hcbs_json *j)
{
	hcbs_json_int(j, 1);
	hcbs_json_int(j, 2);
}

static void misuse_repeated_key(struct hcbs_json *j)
{
	hcbs_json_object_begin(j);
	hcbs_json_key(j, "k");
	hcbs_json_int(j, 1);
	hcbs_json_key(j, "k");
	hcbs_json_int(j, 2);
	hcbs_json_object_end(j);
}

static void misuse_deep(struct hcbs_json *j)
{
	for (int i = 0; i < 40; i++)
		hcbs_json_array_begin(j);
	for (int i = 0; i < 40; i++)
		hcbs_json_array_end(j);
}

static void json(void)
{
	static const char want[] =
		"{\n"
		"  \"s\": \"q\\\"b\\\\n\\n\\t\\u0001\x7f é \xef\xbf\xbd\xef\xbf\xbd\",\n"
		"  \"a\": [\n"
		"    -3,\n"
		"    1.84467440737096e19,\n"
		"    0.1,\n"
		"    0.444444444444444,\n"
		"    2.0,\n"
		"    null,\n"
		"    true,\n"
		"    null,\n"
		"    null\n"
		"  ],\n"
		"  \"e\": {}\n"
		"}\n";
	int ret;
	char *out = json_of(doc, &ret);

	tap_ok(!ret && !strcmp(out, want),
	       "JSON (jansson): pretty output, escapes, U+FFFD for bad UTF-8, 15 digits, inf->null");
	if (strcmp(out, want))
		for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"))
			tap_diag("got: %s", l);
	free(out);
	free(json_of(misuse_no_key, &ret));
	tap_ok(ret == -EINVAL, "JSON: value without a key in an object is reported");
	free(json_of(misuse_open, &ret));
	tap_ok(ret == -EINVAL, "JSON: unclosed array is reported");
	free(json_of(misuse_mismatch, &ret));
	tap_ok(ret == -EINVAL, "JSON: mismatched end is reported");
	free(json_of(misuse_two_roots, &ret));
	tap_ok(ret == -EINVAL, "JSON: two top-level values are reported");
	out = json_of(misuse_repeated_key, &ret);
	tap_ok(ret == -EINVAL && (!out || !*out), "JSON: a repeated key is reported, nothing printed");
	free(out);
	free(json_of(misuse_deep, &ret));
	tap_ok(ret == -EINVAL, "JSON: nesting deeper than 32 is reported");
	tap_ok(hcbs_json_free(NULL) == -EINVAL, "JSON: free(NULL) is -EINVAL");
}

static const char mi_v2[] =
	"24 1 0:22 / / rw - ext4 /dev/sda1 rw\n"
	"30 24 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n";
static const char mi_v1[] =
	"31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct\n"
	"33 31 0:30 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
	"34 31 0:31 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n";
static const char mi_ns[] =
	"40 30 0:26 /lxc.payload.c1 /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
static const char mi_space[] =
	"30 24 0:26 / /mnt/my\\040cgroups rw - cgroup2 cgroup2 rw\n";

static void cgroups(void)
{
	char path[256], err[HCBS_ERRLEN];
	int v = 0;

	tap_ok(!hcbs_cgroup_resolve("0::/lxc.payload.vbbu1\n", mi_v2, path, sizeof(path), &v,
				    err, sizeof(err)) &&
	       !strcmp(path, "/sys/fs/cgroup/lxc.payload.vbbu1") && v == 2, "cgroup v2: %s", path);
	tap_ok(!hcbs_cgroup_resolve("0::/\n", mi_v2, path, sizeof(path), &v, err, sizeof(err)) &&
	       !strcmp(path, "/sys/fs/cgroup"), "cgroup v2 root: %s", path);
	tap_ok(!hcbs_cgroup_resolve("5:cpuset:/x\n4:cpu,cpuacct:/lxc.payload.c1\n0::/lxc.payload.c1\n",
				    mi_v1, path, sizeof(path), &v, err, sizeof(err)) &&
	       !strcmp(path, "/sys/fs/cgroup/cpu,cpuacct/lxc.payload.c1") && v == 1,
	       "hybrid: the v1 cpu hierarchy wins: %s", path);
	tap_ok(!hcbs_cgroup_resolve("0::/lxc.payload.c1/init.scope\n", mi_ns, path, sizeof(path),
				    &v, err, sizeof(err)) &&
	       !strcmp(path, "/sys/fs/cgroup/init.scope"),
	       "mount of a subtree (cgroup namespace): %s", path);
	tap_ok(!hcbs_cgroup_resolve("0::/a b\n", mi_space, path, sizeof(path), &v, err, sizeof(err)) &&
	       !strcmp(path, "/mnt/my cgroups/a b"), "escaped mount point: %s", path);
	tap_ok(hcbs_cgroup_resolve("0::/other\n", mi_ns, path, sizeof(path), &v, err,
				   sizeof(err)) == -ENOENT && strstr(err, "not reachable"),
	       "cgroup outside every mount: %s", err);
	tap_ok(hcbs_cgroup_resolve("3:cpuset:/\n", mi_v1, path, sizeof(path), &v, err,
				   sizeof(err)) == -ENOENT, "no cpu hierarchy: %s", err);
	tap_ok(hcbs_cgroup_resolve("0::/x\n", mi_v2, path, 10, &v, err, sizeof(err)) == -ENAMETOOLONG,
	       "path too long is reported");
	tap_ok(hcbs_cgroup_of_pid(1 << 30, path, sizeof(path), &v, err, sizeof(err)) == -ESRCH,
	       "no such process: %s", err);
	int ret = hcbs_cgroup_of_pid(getpid(), path, sizeof(path), &v, err, sizeof(err));

	tap_ok(!ret && path[0] == '/', "our own cgroup: %s (v%d)", path, v);

	/* Who owns a cgroup (hcbsctl list). */
	static const struct {
		const char *path, *kind, *engine, *name;
	} owners[] = {
		{ "/sys/fs/cgroup/lxc.payload.vbbu1", "lxc", "", "vbbu1" },
		{ "/sys/fs/cgroup/lxc.payload.vbbu1/init.scope", "lxc", "", "vbbu1" },
		{ "/sys/fs/cgroup/cpu,cpuacct/lxc/c1", "lxc", "", "c1" },
		{ "/sys/fs/cgroup/machine.slice/libpod-0123abcd.scope", "oci", "podman", "0123abcd" },
		{ "/sys/fs/cgroup/machine.slice/libpod-0123abcd.scope/container", "oci", "podman", "0123abcd" },
		{ "/sys/fs/cgroup/libpod_parent/libpod-feed", "oci", "podman", "feed" },
		{ "/sys/fs/cgroup/kubepods.slice/kubepods-pod1.slice/crio-42.scope", "oci", "cri-o", "42" },
		{ "/sys/fs/cgroup/k.slice/cri-containerd-77.scope", "oci", "containerd", "77" },
		{ "/sys/fs/cgroup/system.slice/docker-99.scope", "oci", "docker", "99" },
		{ "/sys/fs/cgroup/system.slice/vbbu-helper.service", "systemd", "", "vbbu-helper.service" },
		{ "/sys/fs/cgroup/system.slice/vbbu-helper.service/sub", "systemd", "", "vbbu-helper.service" },
	};
	struct hcbs_owner own;

	for (size_t i = 0; i < sizeof(owners) / sizeof(owners[0]); i++)
		tap_ok(hcbs_cgroup_owner(owners[i].path, &own) && !strcmp(own.kind, owners[i].kind) &&
		       !strcmp(own.engine, owners[i].engine) && !strcmp(own.name, owners[i].name),
		       "owner of %s: %s %s %s", owners[i].path, own.kind, own.engine, own.name);
	tap_ok(!hcbs_cgroup_owner("/sys/fs/cgroup/machine.slice/libpod-conmon-12.scope/x", &own) ||
	       !strcmp(own.kind, "systemd"),
	       "a conmon cgroup is no container: %s %s", own.kind, own.name);
	tap_ok(!hcbs_cgroup_owner("/sys/fs/cgroup/rt/a", &own) && !own.kind[0],
	       "no owner for a plain cgroup");
	tap_ok(!hcbs_cgroup_owner("/sys/fs/cgroup/libpod-", &own) && !own.kind[0],
	       "libpod- without an id is no container");

	/* The mount that holds a path: what hcbstrace -g now uses (issue 18). */
	char mnt[256], root[256];

	tap_ok(hcbs_cgroup_mount_resolve(mi_v1, "/sys/fs/cgroup/cpuset", 1, mnt, sizeof(mnt),
					 root, sizeof(root)) == -ENOENT,
	       "mount: the cpuset hierarchy is not the cpu one (no strstr(\"cpu\"))");
	tap_ok(!hcbs_cgroup_mount_resolve(mi_v1, "/sys/fs/cgroup/cpu,cpuacct/lxc.payload.c1", 1,
					  mnt, sizeof(mnt), root, sizeof(root)) &&
	       !strcmp(mnt, "/sys/fs/cgroup/cpu,cpuacct") && !strcmp(root, "/"),
	       "mount: v1 cpu,cpuacct holds its groups: %s", mnt);
	tap_ok(hcbs_cgroup_mount_resolve(mi_v1, "/sys/fs/cgroup/cpu,cpuacctX", 1, mnt, sizeof(mnt),
					 root, sizeof(root)) == -ENOENT,
	       "mount: a name that only starts like the mount point is not in it");
	tap_ok(!hcbs_cgroup_mount_resolve(mi_v1, "/sys/fs/cgroup/unified/a", 2, mnt, sizeof(mnt),
					  root, sizeof(root)) && !strcmp(mnt, "/sys/fs/cgroup/unified"),
	       "mount: hybrid v2 at unified: %s", mnt);
	tap_ok(!hcbs_cgroup_mount_resolve(mi_space, "/mnt/my cgroups/a b", 2, mnt, sizeof(mnt),
					  root, sizeof(root)) && !strcmp(mnt, "/mnt/my cgroups"),
	       "mount: \\040 in the mount point is decoded: '%s'", mnt);
	tap_ok(!hcbs_cgroup_mount_resolve(mi_ns, "/sys/fs/cgroup/init.scope", 2, mnt, sizeof(mnt),
					  root, sizeof(root)) && !strcmp(root, "/lxc.payload.c1"),
	       "mount: the root of a namespaced mount: %s", root);
	tap_ok(hcbs_cgroup_mount_resolve(mi_v2, "/srv/cgroup", 2, mnt, sizeof(mnt), root,
					 sizeof(root)) == -ENOENT,
	       "mount: no guess of /sys/fs/cgroup for a path outside it");
	tap_ok(hcbs_cgroup_mount_resolve(mi_v2, "/sys/fs/cgroup/x", 2, mnt, 4, root,
					 sizeof(root)) == -ENAMETOOLONG, "mount: too long is reported");

	/* Bounded reads. */
	char *text = NULL;

	tap_ok(hcbs_read_text("/dev/zero", &text, err, sizeof(err)) == -EINVAL && !text &&
	       strstr(err, "NUL byte"), "read: /dev/zero refused at once: %s", err);
	tap_ok(hcbs_read_text_max("/proc/self/mountinfo", 16, &text, err, sizeof(err)) == -EFBIG &&
	       !text && strstr(err, "larger than 16 bytes"), "read: over the bound: %s", err);
	tap_ok(!hcbs_read_text_max("/proc/self/mountinfo", HCBS_READ_MAX, &text, err, sizeof(err)) &&
	       text && strlen(text) > 16, "read: within the bound");
	free(text);
	tap_ok(!hcbs_is_cgroup_dir("/tmp") && !hcbs_is_cgroup_dir("/nonexistent"),
	       "a plain directory is not a cgroup");
}

static void rt_files(void)
{
	struct hcbs_rt rt;
	char buf[64];

	tap_ok(!hcbs_rt_parse_max("8000 18000\n", &rt) && rt.runtime_us == 8000 && rt.period_us == 18000,
	       "cpu.rt.max '8000 18000'");
	tap_ok(!hcbs_rt_parse_max("max 1000000\n", &rt) && rt.runtime_us == HCBS_RT_MAX,
	       "cpu.rt.max 'max 1000000'");
	tap_ok(hcbs_rt_parse_max("8000\n", &rt) && hcbs_rt_parse_max("8000 0", &rt) &&
	       hcbs_rt_parse_max("x 100", &rt) && hcbs_rt_parse_max("1 2 3", &rt),
	       "cpu.rt.max: malformed contents rejected");
	rt.runtime_us = 8000;
	rt.period_us = 18000;
	tap_ok(!strcmp(hcbs_rt_format(&rt, buf, sizeof(buf)), "8ms/18ms"), "format 8ms/18ms");
	rt.runtime_us = HCBS_RT_MAX;
	tap_ok(!strcmp(hcbs_rt_format(&rt, buf, sizeof(buf)), "max/18ms"), "format max/18ms");
}

static void put(const char *dir, const char *name, const char *text)
{
	char p[4096];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void drop(const char *dir, const char *name)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	unlink(p);
}

/* Read the share of the fake root @dir; 0 or -errno, @err filled. */
static int share_of(const char *dir, struct hcbs_root_share *s, char *err, size_t len)
{
	err[0] = '\0';
	return hcbs_root_share_read(dir, s, err, len);
}

static void root_share(void)
{
	static const char *const bad[] = {
		"abc\n", "max\n", "500000\n", "max 0\n", "600000 500000\n", "1 2 3\n",
		"-1 1000000\n", "", "500000 1000000 junk\n", "0x10 100\n",
	};
	char dir[] = "/tmp/hcbs-share.XXXXXX", err[HCBS_ERRLEN];
	struct hcbs_root_share s;
	int ret, rejected = 0;

	if (!mkdtemp(dir)) {
		tap_ok(0, "root share: mkdtemp: %s", strerror(errno));
		return;
	}
	put(dir, "cgroup.procs", "");
	ret = share_of(dir, &s, err, sizeof(err));
	tap_ok(!ret && s.abi == HCBS_ABI_NONE && !hcbs_root_share_set(&s),
	       "root share: no file on the root (a kernel without it): not set, no error");
	put(dir, "cpu.rt.max", "max 1000000\n");
	ret = share_of(dir, &s, err, sizeof(err));
	tap_ok(!ret && s.abi == HCBS_ABI_RT_MAX && !hcbs_root_share_set(&s) &&
	       s.rt.period_us == 1000000, "root share: 'max 1000000' is not set, period kept");
	put(dir, "cpu.rt.max", "500000 1000000\n");
	ret = share_of(dir, &s, err, sizeof(err));
	tap_ok(!ret && hcbs_root_share_set(&s) && s.rt.runtime_us == 500000 &&
	       s.rt.period_us == 1000000 && hcbs_rt_bw(&s.rt) == 0.5,
	       "root share: '500000 1000000' is set, 0.5 per CPU");
	put(dir, "cpu.rt.max", "0 1000000\n");
	ret = share_of(dir, &s, err, sizeof(err));
	tap_ok(!ret && hcbs_root_share_set(&s) && s.rt.runtime_us == 0,
	       "root share: '0 1000000' is set (no top-level reservation)");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put(dir, "cpu.rt.max", bad[i]);
		ret = share_of(dir, &s, err, sizeof(err));
		if (ret == -EINVAL && !hcbs_root_share_set(&s) && strstr(err, "unexpected content") &&
		    strstr(err, "expected 'max PERIOD' or 'RUNTIME PERIOD'") && !strchr(err, '\n'))
			rejected++;
		else
			tap_diag("'%s': %d, set %d, '%s'", bad[i], ret, hcbs_root_share_set(&s), err);
	}
	tap_ok(rejected == (int)(sizeof(bad) / sizeof(bad[0])),
	       "root share: %d malformed cpu.rt.max contents are -EINVAL with one line, and read as not set",
	       rejected);
	put(dir, "cpu.rt.max", "ab\001cd\n");
	ret = share_of(dir, &s, err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, "'ab?cd'"), "root share: a control character is quoted as '?': %s",
	       err);

	/* The two-file form (cgroup v1), used when there is no cpu.rt.max. */
	drop(dir, "cpu.rt.max");
	put(dir, "cpu.rt_runtime_us", "-1\n");
	put(dir, "cpu.rt_period_us", "1000000\n");
	ret = share_of(dir, &s, err, sizeof(err));
	tap_ok(!ret && s.abi == HCBS_ABI_TWO_FILES && !hcbs_root_share_set(&s),
	       "root share, two files: -1 is not set");
	put(dir, "cpu.rt_runtime_us", "250000\n");
	ret = share_of(dir, &s, err, sizeof(err));
	tap_ok(!ret && hcbs_root_share_set(&s) && hcbs_rt_bw(&s.rt) == 0.25,
	       "root share, two files: 250000 / 1000000 is set, 0.25 per CPU");
	put(dir, "cpu.rt_runtime_us", "2000000\n");
	ret = share_of(dir, &s, err, sizeof(err));
	tap_ok(ret == -EINVAL && !hcbs_root_share_set(&s) && strstr(err, "'2000000', '1000000'"),
	       "root share, two files: runtime > period refused: %s", err);
	put(dir, "cpu.rt_runtime_us", "1\n");
	put(dir, "cpu.rt_period_us", "0\n");
	ret = share_of(dir, &s, err, sizeof(err));
	tap_ok(ret == -EINVAL, "root share, two files: period 0 refused");

	drop(dir, "cpu.rt_runtime_us");
	drop(dir, "cpu.rt_period_us");
	drop(dir, "cgroup.procs");
	rmdir(dir);
}

/* Is every state of the plan valid (runtime <= period, lo <= bw <= hi)? */
static bool plan_ok(const struct hcbs_rt *from, const struct hcbs_rt *to, double floor_bw,
		    const struct hcbs_rt_step *s, int n, char *why, size_t len)
{
	double b0 = hcbs_rt_bw(from), b1 = hcbs_rt_bw(to);
	double hi = b0 > b1 ? b0 : b1, lo = floor_bw;

	if (lo > b0)
		lo = b0;
	if (lo > b1)
		lo = b1;
	for (int i = 0; i < n; i++) {
		const struct hcbs_rt *a = &s[i].after;

		if (a->runtime_us == HCBS_RT_MAX)
			continue;
		if (a->runtime_us > a->period_us) {
			snprintf(why, len, "step %d: runtime %llu > period %llu", i,
				 (unsigned long long)a->runtime_us, (unsigned long long)a->period_us);
			return false;
		}
		double bw = hcbs_rt_bw(a);

		if (bw > hi + 1e-12 || bw < lo - 1e-6) {
			snprintf(why, len, "step %d: bandwidth %.6f outside [%.6f, %.6f]", i, bw, lo, hi);
			return false;
		}
	}
	if (n && (s[n - 1].after.runtime_us != to->runtime_us ||
		  s[n - 1].after.period_us != to->period_us)) {
		snprintf(why, len, "does not end at the target");
		return false;
	}
	return true;
}

static void plans(void)
{
	struct hcbs_rt_step s[HCBS_RT_MAX_STEPS];
	struct hcbs_rt a = { 8000, 18000 }, b = { 16000, 36000 };
	char why[128] = "";
	int n;

	n = hcbs_rt_plan(HCBS_ABI_RT_MAX, &a, &b, 0, s, HCBS_RT_MAX_STEPS);
	tap_ok(n == 1 && !strcmp(s[0].file, "cpu.rt.max") && !strcmp(s[0].value, "16000 36000"),
	       "cpu.rt.max: one atomic write '16000 36000'");
	b.runtime_us = HCBS_RT_MAX;
	n = hcbs_rt_plan(HCBS_ABI_RT_MAX, &a, &b, 0, s, HCBS_RT_MAX_STEPS);
	tap_ok(n == 1 && !strcmp(s[0].value, "max 36000"), "cpu.rt.max: 'max 36000'");

	/* Leaf, 8/18 -> 16/36 (same bandwidth): period first dips to 8/36. */
	b.runtime_us = 16000;
	n = hcbs_rt_plan(HCBS_ABI_TWO_FILES, &a, &b, 0, s, HCBS_RT_MAX_STEPS);
	tap_ok(n == 2 && !strcmp(s[0].file, "cpu.rt_period_us") && !strcmp(s[1].file, "cpu.rt_runtime_us"),
	       "two files, leaf, 8/18 -> 16/36: period first, then runtime");
	/* Shrinking the period below the old runtime: runtime first. */
	a = (struct hcbs_rt){ 8000, 18000 };
	b = (struct hcbs_rt){ 1000, 2000 };
	n = hcbs_rt_plan(HCBS_ABI_TWO_FILES, &a, &b, 0, s, HCBS_RT_MAX_STEPS);
	tap_ok(n == 2 && !strcmp(s[0].file, "cpu.rt_runtime_us") && !strcmp(s[0].value, "1000") &&
	       plan_ok(&a, &b, 0, s, n, why, sizeof(why)),
	       "two files, 8/18 -> 1/2: runtime first (8ms > 2ms would be invalid)");
	/* From max: period then runtime; to max: runtime -1. */
	a.runtime_us = HCBS_RT_MAX;
	n = hcbs_rt_plan(HCBS_ABI_TWO_FILES, &a, &b, 0, s, HCBS_RT_MAX_STEPS);
	tap_ok(n == 2 && !strcmp(s[0].file, "cpu.rt_period_us") && !strcmp(s[1].value, "1000"),
	       "two files, max -> 1/2: period, then runtime");
	n = hcbs_rt_plan(HCBS_ABI_TWO_FILES, &b, &a, 0, s, HCBS_RT_MAX_STEPS);
	tap_ok(n == 2 && !strcmp(s[0].value, "-1"), "two files, 1/2 -> max: runtime -1 first");
	/* Children need exactly what the group has: the period cannot move. */
	a = (struct hcbs_rt){ 5000, 10000 };
	b = (struct hcbs_rt){ 10000, 20000 };
	n = hcbs_rt_plan(HCBS_ABI_TWO_FILES, &a, &b, 0.5, s, HCBS_RT_MAX_STEPS);
	tap_ok(n == -EDOM, "two files: children at 0.5 pin a 0.5 group's period (-EDOM)");
	/* Children at 0.1, group 0.1 -> 0.25 with period 10 -> 20 needs a middle step. */
	a = (struct hcbs_rt){ 1000, 10000 };
	b = (struct hcbs_rt){ 5000, 20000 };
	n = hcbs_rt_plan(HCBS_ABI_TWO_FILES, &a, &b, 0.1, s, HCBS_RT_MAX_STEPS);
	tap_ok(n == 3 && plan_ok(&a, &b, 0.1, s, n, why, sizeof(why)),
	       "two files: 1/10 -> 5/20 over children at 0.1: three writes, all valid %s", why);

	/* Random transitions: every plan stays valid. */
	uint64_t r = 7;
	int bad = 0, edom = 0, total = 0;

	for (int it = 0; it < 100000; it++) {
		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		a.period_us = 100 + (r >> 40) % 100000;
		a.runtime_us = (r >> 20) % (a.period_us + 1);
		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		b.period_us = 100 + (r >> 40) % 100000;
		b.runtime_us = (r >> 20) % (b.period_us + 1);
		double lo = (r & 3) ? 0 : ((r >> 8) % 1000) / 1000.0 *
			    (hcbs_rt_bw(&a) < hcbs_rt_bw(&b) ? hcbs_rt_bw(&a) : hcbs_rt_bw(&b));

		n = hcbs_rt_plan(HCBS_ABI_TWO_FILES, &a, &b, lo, s, HCBS_RT_MAX_STEPS);
		total++;
		if (n == -EDOM || n == -E2BIG) {
			edom++;
			continue;
		}
		if (n < 0 || !plan_ok(&a, &b, lo, s, n, why, sizeof(why))) {
			if (bad++ < 3)
				tap_diag("%llu/%llu -> %llu/%llu over %.4f: %d %s",
					 (unsigned long long)a.runtime_us, (unsigned long long)a.period_us,
					 (unsigned long long)b.runtime_us, (unsigned long long)b.period_us,
					 lo, n, why);
		}
	}
	tap_diag("plans: %d random transitions, %d without a valid path (children pin the period)",
		 total, edom);
	tap_ok(!bad, "two files: every step of 100000 random plans keeps runtime <= period and the bandwidth within bounds");
}

static int parse_pid64(const char *s, uint64_t *v, char *err, size_t errlen)
{
	pid_t pid;
	int ret = hcbs_parse_pid(s, &pid, err, errlen);

	if (!ret)
		*v = (uint64_t)pid;
	return ret;
}

/* hcbs_parse_size(), hcbs_parse_pid(), hcbs_grow(). */
static void small_helpers(void)
{
	typedef int (*parse_fn)(const char *, uint64_t *, char *, size_t);
	const parse_fn size = hcbs_parse_size, pid = parse_pid64;
	const struct {
		parse_fn fn;
		const char *s;
		int ret;
		uint64_t v;
	} cases[] = {
		{ size, "4096", 0, 4096 }, { size, "4K", 0, 4096 }, { size, "64k", 0, 65536 },
		{ size, "1M", 0, 1 << 20 }, { size, "1024m", 0, 1ULL << 30 }, { size, "0", 0, 0 },
		{ size, "18446744073709551615", 0, UINT64_MAX },
		{ size, "17592186044415M", 0, 17592186044415ULL << 20 },
		{ size, "18446744073709551616", -ERANGE, 0 },
		{ size, "17592186044416M", -ERANGE, 0 },
		{ size, "", -EINVAL, 0 }, { size, "K", -EINVAL, 0 }, { size, "4KB", -EINVAL, 0 },
		{ size, "4G", -EINVAL, 0 }, { size, " 4K", -EINVAL, 0 }, { size, "+4K", -EINVAL, 0 },
		{ size, "-1", -EINVAL, 0 }, { size, "0x10", -EINVAL, 0 }, { size, "1.5M", -EINVAL, 0 },
		{ size, NULL, -EINVAL, 0 },
		{ pid, "1", 0, 1 }, { pid, "4194304", 0, 4194304 }, { pid, "2147483647", 0, 2147483647 },
		{ pid, "0", -EINVAL, 0 }, { pid, "2147483648", -EINVAL, 0 }, { pid, "-1", -EINVAL, 0 },
		{ pid, "", -EINVAL, 0 }, { pid, "12x", -EINVAL, 0 }, { pid, " 12", -EINVAL, 0 },
		{ pid, "99999999999999999999999", -EINVAL, 0 }, { pid, NULL, -EINVAL, 0 },
	};
	char err[HCBS_ERRLEN];
	size_t n = 0, cap = 0;
	int *a = NULL, bad = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 7;
		int ret;

		err[0] = '\0';
		ret = cases[i].fn(cases[i].s, &v, err, sizeof(err));
		tap_ok(ret == cases[i].ret && v == (ret ? 7 : cases[i].v) && !ret == !err[0],
		       "%s '%s': %d %s", cases[i].fn == size ? "size" : "pid",
		       cases[i].s ? cases[i].s : "(null)", ret, err);
	}
	for (int i = 0; i < 1000; i++) {
		int *na = hcbs_grow(a, n, &cap, sizeof(*a), 4);

		if (!na) {
			bad = 1;
			break;
		}
		a = na;
		a[n++] = i;
	}
	for (int i = 0; i < 1000 && !bad; i++)
		bad = a[i] != i;
	tap_ok(!bad && n == 1000 && cap == 1024, "grow: 1000 elements from 4, capacity %zu", cap);
	free(a);
}

static bool file_is(const char *dir, const char *name, const char *want)
{
	char p[4096], buf[256] = "";
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "r");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return !strcmp(buf, want);
}

/*
 * The cgroup files through a directory fd: another file system, a
 * symbolic link, a missing file are refused, nothing created or truncated;
 * the test build's fake cgroupfs is what the other tests use.
 */
static void cgroupfs(void)
{
	char dir[] = "/tmp/hcbs-cgfs.XXXXXX", err[HCBS_ERRLEN], p[4096], q[4096], *text = NULL;
	struct hcbs_rt to = { .runtime_us = 8000, .period_us = 18000 };
	int fd;

	if (!mkdtemp(dir)) {
		tap_ok(0, "cgroupfs: mkdtemp: %s", strerror(errno));
		return;
	}
	put(dir, "cgroup.procs", "");
	put(dir, "cpu.rt.max", "max 1000000\n");
	put(dir, "victim", "precious\n");

	unsetenv("HCBS_TEST_FAKE_CGROUPFS");
	err[0] = '\0';
	fd = hcbs_cgroup_open(dir, err, sizeof(err));
	tap_ok(fd == -EMEDIUMTYPE && strstr(err, "not a cgroup file system") &&
	       strstr(err, dir), "a directory on another file system is refused: %s", err);
	tap_ok(hcbs_cgroup_dir_check(dir, err, sizeof(err)) == -EMEDIUMTYPE && !hcbs_is_cgroup_dir(dir),
	       "... it is no cgroup directory");
	tap_ok(hcbs_cgroup_write(dir, "cpu.rt.max", "8000 18000") == -EMEDIUMTYPE &&
	       file_is(dir, "cpu.rt.max", "max 1000000\n"), "... nothing is written there");
	tap_ok(hcbs_cgroup_read(dir, "cpu.rt.max", &text, err, sizeof(err)) == -EMEDIUMTYPE && !text,
	       "... nor read");
	tap_ok(hcbs_reserve(dir, &to, NULL, NULL, err, sizeof(err), NULL, 0) == HCBS_EXIT_NOTFOUND &&
	       strstr(err, "not a cgroup file system") && file_is(dir, "cpu.rt.max", "max 1000000\n"),
	       "hcbs_reserve() on it: exit 3, nothing written: %s", err);
	tap_ok(hcbs_cgroup_open("/proc/self", err, sizeof(err)) == -EMEDIUMTYPE && strstr(err, "on proc,"),
	       "/proc is refused by name: %s", err);
	tap_ok(hcbs_cgroup_open("/nonexistent", err, sizeof(err)) == -ENOENT &&
	       strstr(err, "/nonexistent: No such file"), "a missing directory: %s", err);
	if (!access("/sys/fs/cgroup/cgroup.procs", F_OK)) {
		tap_ok(!hcbs_cgroup_dir_check("/sys/fs/cgroup", err, sizeof(err)),
		       "the real cgroup mount is a cgroup directory: %s", err);
	} else {
		tap_ok(1, "# SKIP no cgroup mount at /sys/fs/cgroup");
	}

	setenv("HCBS_TEST_FAKE_CGROUPFS", "1", 1);
	fd = hcbs_cgroup_open(dir, err, sizeof(err));
	tap_ok(fd >= 0, "test build: HCBS_TEST_FAKE_CGROUPFS takes a plain directory for cgroupfs");
	tap_ok(!hcbs_cgroup_write_at(fd, "cpu.rt.max", "8000 18000") &&
	       !hcbs_cgroup_write_at(fd, "cpu.rt.max", "max 18000") &&
	       file_is(dir, "cpu.rt.max", "max 18000"),
	       "test build: a fake cgroup file shows the last write whole, as cgroupfs does");
	tap_ok(hcbs_cgroup_write_at(fd, "cpu.rt.nosuch", "1") == -ENOENT &&
	       access((snprintf(p, sizeof(p), "%s/cpu.rt.nosuch", dir), p), F_OK),
	       "a missing cgroup file is not created");
	snprintf(p, sizeof(p), "%s/cpu.rt.max", dir);
	snprintf(q, sizeof(q), "%s/victim", dir);
	unlink(p);
	tap_ok(!symlink(q, p), "cpu.rt.max made a symbolic link to a plain file");
	tap_ok(hcbs_cgroup_write_at(fd, "cpu.rt.max", "8000 18000") == -ELOOP &&
	       file_is(dir, "victim", "precious\n"), "a write through the link is refused (ELOOP)");
	tap_ok(hcbs_cgroup_read_at(fd, dir, "cpu.rt.max", &text, err, sizeof(err)) == -ELOOP && !text &&
	       strstr(err, "is a symbolic link, which no cgroup file is"), "... and a read: %s", err);
	tap_ok(hcbs_reserve(dir, &to, NULL, NULL, err, sizeof(err), NULL, 0) == HCBS_EXIT_NOTFOUND &&
	       strstr(err, "symbolic link") && file_is(dir, "victim", "precious\n"),
	       "hcbs_reserve() through the link: exit 3, the file untouched: %s", err);
	close(fd);
	unlink(p);
	drop(dir, "victim");
	drop(dir, "cgroup.procs");
	rmdir(dir);
}

/* Whose cgroup a hook may reserve (hcbs_own_cgroup_check()). */
static void own_cgroups(void)
{
	static const char id[] = "0123456789abcdef0123";
	static const struct {
		const char *path;
		enum hcbs_engine kind;
		const char *name, *refusal;	/* NULL: accepted */
	} cases[] = {
		{ "/libpod_parent/libpod-0123456789abcdef0123", HCBS_ENGINE_OCI, id, NULL },
		{ "/machine.slice/libpod-0123456789abcdef0123.scope", HCBS_ENGINE_OCI, id, NULL },
		{ "/machine.slice/libpod-0123456789abcdef0123.scope/container", HCBS_ENGINE_OCI, id, NULL },
		{ "/kubepods.slice/kubepods-pod1.slice/crio-0123456789abcdef0123.scope", HCBS_ENGINE_OCI, id, NULL },
		{ "/k.slice/cri-containerd-0123456789abcdef0123.scope", HCBS_ENGINE_OCI, id, NULL },
		{ "/", HCBS_ENGINE_OCI, id, "cgroup / is the root cgroup" },
		{ "", HCBS_ENGINE_OCI, id, "cgroup / is the root cgroup" },
		{ "/libpod-0123456789abcdef0123", HCBS_ENGINE_OCI, id, "is a top-level cgroup" },
		{ "/user.slice/user-0.slice/session-3.scope", HCBS_ENGINE_OCI, id, "is not the container's" },
		{ "/system.slice", HCBS_ENGINE_OCI, id, "is not the container's" },
		{ "/machine.slice/libpod-conmon-0123456789abcdef0123.scope", HCBS_ENGINE_OCI, id, "is not the container's" },
		{ "/system.slice/docker-0123456789abcdef0123.scope", HCBS_ENGINE_OCI, id, "is not the container's" },
		{ "/lxc.payload.c1", HCBS_ENGINE_OCI, id, "is not the container's" },
		{ "/machine.slice/libpod-feedfeed.scope", HCBS_ENGINE_OCI, id, "is container feedfeed's, not this one's" },
		{ "/machine.slice/libpod-0123456789abcdef01234.scope", HCBS_ENGINE_OCI, id, "not this one's" },
		{ "/machine.slice/libpod-0123456789abcdef012.scope", HCBS_ENGINE_OCI, id, "not this one's" },
		{ "/lxc.payload.c1", HCBS_ENGINE_LXC, "c1", NULL },
		{ "/lxc/c1", HCBS_ENGINE_LXC, "c1", NULL },
		{ "/lxc.payload.c1/init.scope", HCBS_ENGINE_LXC, "c1", NULL },
		{ "/", HCBS_ENGINE_LXC, "c1", "cgroup / is the root cgroup" },
		{ "/lxc.payload.c2", HCBS_ENGINE_LXC, "c1", "is container c2's, not this one's" },
		{ "/lxc.payload.a%b", HCBS_ENGINE_LXC, "a", "not this one's" },
		{ "/user.slice", HCBS_ENGINE_LXC, "c1", "is not the container's" },
		{ "/lxc.monitor.c1", HCBS_ENGINE_LXC, "c1", "is not the container's" },
		{ "/machine.slice/libpod-c1.scope", HCBS_ENGINE_LXC, "c1", "is not the container's" },
		{ "/lxc.payload.c1\n/forged", HCBS_ENGINE_LXC, "c1", "is container c1\\n's, not this one's" },
	};
	char err[HCBS_ERRLEN], shown[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret;

		err[0] = '\0';
		hcbs_printable(cases[i].path, 100, shown, sizeof(shown));
		ret = hcbs_own_cgroup_check(cases[i].path, cases[i].kind, cases[i].name, err, sizeof(err));
		if (!cases[i].refusal)
			tap_ok(!ret, "own cgroup: %s of %s %s: accepted %s", shown,
			       cases[i].kind == HCBS_ENGINE_OCI ? "OCI" : "LXC", cases[i].name, err);
		else
			tap_ok(ret == -EPERM && strstr(err, cases[i].refusal) && strstr(err, "expected") &&
			       !strchr(err, '\n'),
			       "own cgroup: %s of %s %s: refused in one line: %s", shown,
			       cases[i].kind == HCBS_ENGINE_OCI ? "OCI" : "LXC", cases[i].name, err);
	}

	char path[64] = "/a/b/c";

	hcbs_path_up(path, 2);
	tap_ok(!strcmp(path, "/a"), "path up 2: %s", path);
	hcbs_path_up(path, 5);
	tap_ok(!strcmp(path, "/"), "path up never above the root: %s", path);
}

/* hcbs_cgroup_match_stat(): LXC's limit cgroup, found by its cgroup.stat. */
static void match_stat(void)
{
	char top[] = "/tmp/hcbs-stat.XXXXXX", a[256], b[512];

	if (!mkdtemp(top)) {
		tap_ok(0, "match stat: mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(a, sizeof(a), "%s/lxc.payload.c1", top);
	snprintf(b, sizeof(b), "%s/init.scope", a);
	mkdir(a, 0755);
	mkdir(b, 0755);
	put(top, "cgroup.stat", "nr_descendants 2\n");
	put(a, "cgroup.stat", "nr_descendants 1\n");
	put(b, "cgroup.stat", "nr_descendants 0\n");
	tap_ok(hcbs_cgroup_match_stat(b, "nr_descendants 1\n", 64) == 1,
	       "match stat: the limit cgroup is one above init's");
	tap_ok(hcbs_cgroup_match_stat(b, "nr_descendants 0\n", 64) == 0, "match stat: init's own");
	tap_ok(hcbs_cgroup_match_stat(b, "nr_descendants 7\n", 64) == -ENOENT,
	       "match stat: no match is -ENOENT, never init's cgroup");
	tap_ok(hcbs_cgroup_match_stat(b, "nr_descendants 2\n", 1) == -ENOENT,
	       "match stat: not above @max_up");
	drop(b, "cgroup.stat");
	drop(a, "cgroup.stat");
	drop(top, "cgroup.stat");
	rmdir(b);
	rmdir(a);
	rmdir(top);
}

/* Issue 39: names with a newline or an ESC forged lines in stderr and syslog. */
static void printable(void)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "vbbu1", "vbbu1" },
		{ "a\nhcbs-hook: b: reserved", "a\\nhcbs-hook: b: reserved" },
		{ "a\x1b[31mred", "a\\x1b[31mred" },
		{ "t\tr\r", "t\\tr\\r" },
		{ "del\x7f", "del\\x7f" },
		{ "c1\xc2\x9b" "31m", "c1\\xc2\\x9b31m" },		/* C1 CSI, as UTF-8 */
		{ "8\xc2\xb5s 8\xce\xbcs \xe2\x82\xac", "8\xc2\xb5s 8\xce\xbcs \xe2\x82\xac" },
		{ "bad\xff\xc3", "bad\\xff\\xc3" },		/* not UTF-8, cut */
		{ "\xc0\xaf", "\\xc0\\xaf" },			/* overlong '/' */
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },		/* a surrogate */
		{ "back\\slash", "back\\slash" },		/* kept: escaping is idempotent */
	};
	char buf[128], again[128], small[8];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		hcbs_printable(cases[i].in, SIZE_MAX, buf, sizeof(buf));
		hcbs_printable(buf, SIZE_MAX, again, sizeof(again));
		tap_ok(!strcmp(buf, cases[i].out) && !strcmp(again, buf),
		       "printable %zu: %s (and again the same)", i, buf);
	}
	tap_ok(!strcmp(hcbs_printable("ab\ncd", 3, buf, sizeof(buf)), "ab\\n"),
	       "printable: at most @max bytes read: %s", buf);
	tap_ok(!strcmp(hcbs_printable("abcdef\n", SIZE_MAX, small, sizeof(small)), "abcdef"),
	       "printable: an escape that does not fit is left out, not cut: %s", small);
	tap_ok(!strcmp(hcbs_printable("abcdef\xce\xbc", SIZE_MAX, small, sizeof(small)), "abcdef"),
	       "printable: nor a character: %s", small);
	hcbs_seterr(buf, sizeof(buf), "no container '%s'", "x\ny\x1b");
	tap_ok(!strcmp(buf, "no container 'x\\ny\\x1b'"), "hcbs_seterr escapes: %s", buf);
}

/*
 * What hcbsctl overhead and the no-hierarchy diagnosis read: is a cpu
 * hierarchy mounted at all, and how many reservations run beside a
 * measurement on a CPU (a fake tree).
 */
static void overhead_helpers(void)
{
	char dir[] = "/tmp/hcbs-ovh.XXXXXX", p[256];
	int all = -1, on = -1;

	tap_ok(hcbs_mountinfo_has_cpu_hierarchy(mi_v2) && hcbs_mountinfo_has_cpu_hierarchy(mi_v1),
	       "a cgroup2 mount, a cgroup v1 mount with cpu: a cpu hierarchy is mounted");
	tap_ok(!hcbs_mountinfo_has_cpu_hierarchy("21 1 0:19 / /proc rw - proc proc rw\n") &&
	       !hcbs_mountinfo_has_cpu_hierarchy("") &&
	       !hcbs_mountinfo_has_cpu_hierarchy("40 30 0:40 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n"),
	       "no cgroup mount, nothing, cgroup v1 with cpuset alone: none mounted");
	if (!mkdtemp(dir)) {
		tap_ok(0, "overhead: mkdtemp: %s", strerror(errno));
		return;
	}
	put(dir, "cgroup.procs", "");
	put(dir, "cpu.rt.max", "max 1000000\n");
	tap_ok((hcbs_overhead_count_reserved(dir, 1, &all, &on), all == 0 && on == 0),
	       "no reserved group: 0 and 0");
	static const char *const groups[][3] = {
		/* name, cpu.rt.max, cpu.rt.cpus ("" none: every CPU) */
		{ "a", "8000 18000\n", "0\n" },
		{ "b", "max 1000000\n", "0-3\n" },
		{ "b/c", "5000 10000\n", "1-2\n" },
		{ "b/c/d", "1000 10000\n", "1\n" },	/* below c: not top-level */
		{ "e", "1000 10000\n", "" },
	};
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, groups[i][0]);
		mkdir(p, 0755);
		put(p, "cgroup.procs", "");
		put(p, "cpu.rt.max", groups[i][1]);
		if (groups[i][2][0])
			put(p, "cpu.rt.cpus", groups[i][2]);
	}
	hcbs_overhead_count_reserved(dir, 1, &all, &on);
	tap_ok(all == 3 && on == 2, "top-level reserved groups: 3, 2 of them on CPU 1 (got %d, %d)", all, on);
	hcbs_overhead_count_reserved(dir, 3, &all, &on);
	tap_ok(all == 3 && on == 1, "... 1 of them on CPU 3, the one without cpu.rt.cpus (got %d, %d)",
	       all, on);
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	if (system(p))
		tap_diag("could not remove %s", dir);
}

int main(void)
{
	/* The fake root cgroups below are plain directories (test build). */
	setenv("HCBS_TEST_FAKE_CGROUPFS", "1", 1);
	json();
	small_helpers();
	printable();
	cgroups();
	rt_files();
	root_share();
	plans();
	cgroupfs();
	own_cgroups();
	match_stat();
	overhead_helpers();
	return tap_done();
}
