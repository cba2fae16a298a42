/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libhcbs-util: helpers shared by hcbsctl, the LXC hook and the probes.
 *
 * Every function that can fail returns 0 on success and a negative errno
 * on failure, and, when given an error buffer, writes into it one line
 * (no trailing newline) that says what was wrong and what is accepted.
 */
#ifndef HCBS_UTIL_H
#define HCBS_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <stdio.h>
#include <sys/types.h>

#define HCBS_ERRLEN 256

/*
 * A test switch: getenv(@name) in a test build (-DHCBS_TESTING: the
 * executables the unit tests run, never installed), NULL in every other.
 * The name itself is not compiled into an installed binary, so no
 * environment can redirect what a root tool reads, writes or runs.
 */
#ifdef HCBS_TESTING
#include <stdlib.h>
#define hcbs_test_env(name) ((const char *)getenv(name))
#else
#define hcbs_test_env(name) ((const char *)NULL)
#endif

/* ---- durations: "8ms", "500us", "1.5ms", "2s", "250000ns", "2m", "1h" ---- */

/*
 * The one duration grammar of every tool (options, task sets, the hook):
 * DIGITS[.DIGITS]UNIT with UNIT one of ns, us (or µs, with U+00B5 or
 * U+03BC), ms, s, m, h.  No
 * sign, exponent, hex or blank; the value must be a whole number of ns
 * (nothing rounds, to 0 or otherwise) and at most HCBS_DURATION_MAX_NS.
 */
#define HCBS_DURATION_MAX_NS	(8760ULL * 3600 * 1000000000)	/* 365 days */
#define HCBS_DURATION_HINT \
	"expected a number and a unit (ns, us, ms, s, m, h), e.g. 8ms, 1.5ms or 10s, at most 8760h"

enum {
	HCBS_DUR_NONZERO = 1 << 0,	/* refuse 0 */
	HCBS_DUR_WHOLE_US = 1 << 1,	/* refuse what the kernel would round (it takes us) */
};

/*
 * Parse a duration into nanoseconds.  Returns -EINVAL (malformed, not whole
 * ns, or refused by @flags) or -ERANGE (above HCBS_DURATION_MAX_NS).
 */
int hcbs_parse_duration_flags(const char *s, unsigned int flags, uint64_t *ns,
			      char *err, size_t errlen);
/* The same with no flags: 0 is accepted. */
int hcbs_parse_duration(const char *s, uint64_t *ns, char *err, size_t errlen);
/* Apply the grammar's bounds and @flags to a value given in ns (JSON). */
int hcbs_check_duration(uint64_t ns, unsigned int flags, char *err, size_t errlen);

/*
 * Parse "RUNTIME/PERIOD" (e.g. "8ms/18ms", "8000us/18ms") into nanoseconds.
 * Both must be whole microseconds (the kernel's unit, so hcbsctl set,
 * analyze and the hook accept the same); refuses a zero period and runtime
 * > period.  A zero runtime is accepted (it forbids RT tasks in the group).
 */
int hcbs_parse_reservation(const char *s, uint64_t *runtime_ns,
			   uint64_t *period_ns, char *err, size_t errlen);

/* Shortest exact form: 8000000 -> "8ms", 1500 -> "1500ns", 0 -> "0ns". */
char *hcbs_format_duration(uint64_t ns, char *buf, size_t len);

/* ---- overflow-safe time arithmetic ---- */

/* clock_gettime(@clk) in ns */
uint64_t hcbs_clock_ns(clockid_t clk);
/* Sleep until @t (CLOCK_MONOTONIC ns, absolute), through EINTR. */
void hcbs_sleep_until(uint64_t t);
/* Spin until this thread has used @ns more of its own CPU time. */
void hcbs_burn(uint64_t ns);

static inline uint64_t hcbs_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline uint64_t hcbs_mul_sat(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/*
 * A periodic tick due at @next, every @interval: when @now has reached it,
 * the next tick after @now, and in *@ticks how many were due (0 if none).
 * Saturates instead of wrapping; constant time, whatever the values.
 */
uint64_t hcbs_tick_advance(uint64_t next, uint64_t interval, uint64_t now,
			   uint64_t *ticks);

/*
 * ---- JSON output: written value by value, printed by jansson ----
 *
 * The document is printed to @out (pretty, two-space indents) when its
 * top-level value is complete.  Invalid UTF-8 becomes U+FFFD, NaN and
 * infinities null, unsigned values above INT64_MAX fractions.
 */

struct hcbs_json;

struct hcbs_json *hcbs_json_new(FILE *out);
/*
 * Closes nothing; returns -EINVAL if objects/arrays are left open or the
 * calls were misused (then nothing was printed).
 */
int hcbs_json_free(struct hcbs_json *j);
void hcbs_json_object_begin(struct hcbs_json *j);
void hcbs_json_object_end(struct hcbs_json *j);
void hcbs_json_array_begin(struct hcbs_json *j);
void hcbs_json_array_end(struct hcbs_json *j);
/* Inside an object: the key of the next value. */
void hcbs_json_key(struct hcbs_json *j, const char *key);
void hcbs_json_string(struct hcbs_json *j, const char *s);
void hcbs_json_int(struct hcbs_json *j, int64_t v);
void hcbs_json_uint(struct hcbs_json *j, uint64_t v);
void hcbs_json_double(struct hcbs_json *j, double v); /* NaN/inf -> null */
void hcbs_json_bool(struct hcbs_json *j, bool v);
void hcbs_json_null(struct hcbs_json *j);

/* ---- cgroups ---- */

/* The cgroup of a process, as /proc/PID/cgroup and mountinfo give it. */
struct hcbs_proc_cgroup {
	char dir[4096];		/* the directory, absolute, in this mount namespace */
	char path[4096];	/* the cgroup's path in its hierarchy: "/" is the root */
	int version;		/* 1 or 2 */
};

/*
 * The cgroup of @pid that holds the cpu controller (see
 * hcbs_cgroup_of_pid()), with its path in the hierarchy.  @proc is where
 * the proc file system is (NULL: /proc): a fake one for the hooks' tests.
 */
int hcbs_proc_cgroup(const char *proc, pid_t pid, struct hcbs_proc_cgroup *cg,
		     char *err, size_t errlen);

/*
 * The cgroup of @pid that holds the cpu controller, as an absolute path in
 * this mount namespace (e.g. "/sys/fs/cgroup/lxc.payload.vbbu1"), found
 * from /proc/PID/cgroup resolved against /proc/self/mountinfo (never by
 * guessing).  *@version is set to 1 or 2.
 */
int hcbs_cgroup_of_pid(pid_t pid, char *path, size_t len, int *version,
		       char *err, size_t errlen);

/*
 * The cpu cgroup of a running LXC container, through liblxc (init pid) and
 * hcbs_cgroup_of_pid().  @lxcpath may be NULL for the default.  Returns
 * -ENOENT if there is no such container, -ESRCH if it is not running,
 * -ENOTSUP if built without liblxc.
 */
int hcbs_container_cgroup(const char *name, const char *lxcpath, char *path,
			  size_t len, int *version, char *err, size_t errlen);

/*
 * An LXC path given with -P must be a directory: -ENOENT (no such path, or
 * not a directory) or -EACCES, with a message.  NULL (LXC's default) is 0.
 */
int hcbs_lxcpath_check(const char *lxcpath, char *err, size_t errlen);

/* ---- small helpers (extensions; stable too) ---- */

/*
 * A size in bytes: DIGITS with an optional K or M (x 1024, either case):
 * "4096", "64K", "1M".  -EINVAL (malformed) or -ERANGE (above 2^64 - 1).
 */
#define HCBS_SIZE_HINT "expected a number of bytes with an optional K or M (x 1024), e.g. 4096 or 1M"
int hcbs_parse_size(const char *s, uint64_t *bytes, char *err, size_t errlen);
/* A process id: decimal DIGITS from 1 to INT32_MAX; else -EINVAL. */
int hcbs_parse_pid(const char *s, pid_t *pid, char *err, size_t errlen);

/*
 * @arr, of @n elements of @size bytes in a capacity of *@cap, made room
 * for one more: the capacity doubles, from @first.  NULL when out of
 * memory, and @arr is left as it was.
 */
void *hcbs_grow(void *arr, size_t n, size_t *cap, size_t size, size_t first);

/*
 * A hook's message: "PROG: CTX: MSG" on stderr (LXC's log, the OCI
 * runtime) and "CTX: MSG" to syslog (openlog() names PROG), where
 * operators look.
 */
void hcbs_hook_vsay(const char *prog, const char *ctx, int prio, const char *fmt,
		    va_list ap);
void hcbs_hook_say(const char *prog, const char *ctx, int prio, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * What the library does, told as it does it (hcbsctl --verbose): the
 * figures of an admission and each write of a reservation.  hcbs_notef()
 * formats one line (no newline, not escaped) and hands it to the function
 * given to hcbs_set_notes(); without one (the default: the hooks) nothing
 * is formatted or said.  hcbs_notes_on() tells whether anyone listens, for
 * figures worth computing only then.
 */
void hcbs_set_notes(void (*fn)(const char *line));
bool hcbs_notes_on(void);
void hcbs_notef(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* printf into an error buffer; does nothing when @err is NULL. */
void hcbs_seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Read a whole (small: /proc, cgroupfs, a task set) file into a
 * NUL-terminated, malloc()ed buffer; "-" is stdin.  Refuses more than
 * HCBS_READ_MAX bytes (-EFBIG) and NUL bytes (-EINVAL: not a text file),
 * so that /dev/zero or a runaway pipe ends at once.  Returns 0 or -errno.
 */
#define HCBS_READ_MAX	(4u << 20)
int hcbs_read_text(const char *path, char **text, char *err, size_t errlen);
/* The same with another bound. */
int hcbs_read_text_max(const char *path, size_t max, char **text, char *err,
		       size_t errlen);
/* The same from the open @fd (left open), @name in messages. */
int hcbs_read_fd_max(int fd, const char *name, size_t max, char **text, char *err,
		     size_t errlen);

/*
 * Parse a CPU list ("0-3,6\n") into @cpus (at most @max stored; may be
 * NULL).  Returns how many CPUs it names, or -EINVAL.
 */
int hcbs_parse_cpulist(const char *s, int *cpus, int max);

/* Online CPUs (from /sys/devices/system/cpu/online); @cpus may be NULL. */
int hcbs_online_cpus(int *cpus, int max);

/*
 * The pure part of hcbs_cgroup_of_pid(), for tests and for callers that
 * already hold the texts: resolve the contents of a /proc/PID/cgroup file
 * against the contents of a /proc/self/mountinfo file.  A cgroup v1
 * hierarchy with the cpu controller wins over the v2 line (hybrid layout).
 * Returns -ENOENT when no mount reaches the cgroup.
 */
int hcbs_cgroup_resolve(const char *proc_cgroup, const char *mountinfo,
			char *path, size_t len, int *version,
			char *err, size_t errlen);

/*
 * The mount, in the text of a /proc/self/mountinfo, that holds the
 * directory @path: the longest mount point that is @path or an ancestor,
 * of a cgroup2 mount (@version 2) or of a cgroup v1 mount with the cpu
 * controller itself (@version 1; "cpuset" is not "cpu").  Octal escapes
 * (\040) are decoded.  @mnt gets the mount point, @root the cgroup path of
 * the mount's root.  -ENOENT when no such mount holds @path.
 */
int hcbs_cgroup_mount_resolve(const char *mountinfo, const char *path, int version,
			      char *mnt, size_t mlen, char *root, size_t rlen);
/* The same on this process's /proc/self/mountinfo, with a message. */
int hcbs_cgroup_mount(const char *path, int version, char *mnt, size_t mlen,
		      char *root, size_t rlen, char *err, size_t errlen);
/*
 * Does /proc/self/mountinfo text @mountinfo hold a cpu hierarchy: a
 * cgroup2 mount, or a cgroup v1 one with the cpu controller?  (True when
 * out of memory: no diagnosis then.)
 */
bool hcbs_mountinfo_has_cpu_hierarchy(const char *mountinfo);
/*
 * ---- the cgroup files themselves (cgroupfs.c) ----
 *
 * Every read and write of a cgroup file goes through a directory fd
 * opened with O_PATH on a cgroup2 or cgroup (v1) file system (fstatfs),
 * and openat() with O_NOFOLLOW: never a symbolic link, never a file of
 * another file system, never truncated or created.
 */

/* The fd of cgroup directory @dir, or -errno (-EMEDIUMTYPE: not cgroupfs). */
int hcbs_cgroup_open(const char *dir, char *err, size_t errlen);
/* Does @file exist in the directory @dfd (a symbolic link counts)? */
bool hcbs_cgroup_has_at(int dfd, const char *file);
/* Read @file of @dfd (@dir names it in messages; may be NULL). */
int hcbs_cgroup_read_at(int dfd, const char *dir, const char *file, char **text,
			char *err, size_t errlen);
/* Write @value into @file of @dfd in one write(2): 0 or -errno (-EIO: short). */
int hcbs_cgroup_write_at(int dfd, const char *file, const char *value);
/* The same by the directory's path: opened, checked, used, closed. */
int hcbs_cgroup_read(const char *dir, const char *file, char **text, char *err,
		     size_t errlen);
int hcbs_cgroup_write(const char *dir, const char *file, const char *value);
bool hcbs_cgroup_has(const char *dir, const char *file);
/*
 * Is @dir a cgroup directory: on a cgroup file system, with cgroup.procs?
 * 0, or -errno with one line: -ENOENT and the like, -EMEDIUMTYPE (another
 * file system), -ENOTDIR (no cgroup.procs).
 */
int hcbs_cgroup_dir_check(const char *dir, char *err, size_t errlen);
bool hcbs_is_cgroup_dir(const char *path);

/* Who a cgroup belongs to, as far as its path tells. */
struct hcbs_owner {
	char kind[16];		/* "lxc", "oci", "systemd", or "" (unknown) */
	char engine[16];	/* oci: "podman", "cri-o", "containerd", "docker" */
	char name[256];		/* container name or id, or unit name */
};

/*
 * The owner of the cgroup at @path, from the innermost component that
 * names one: lxc.payload.NAME (and NAME below an "lxc" directory, cgroup
 * v1) for LXC; libpod-ID, crio-ID, cri-containerd-ID, docker-ID (with or
 * without ".scope", conmon cgroups excluded) for OCI engines; else the
 * innermost ".service" or ".scope" unit for systemd.  Returns true if one
 * was found.
 */
bool hcbs_cgroup_owner(const char *path, struct hcbs_owner *o);

/* Whose cgroup a hook may reserve. */
enum hcbs_engine {
	HCBS_ENGINE_OCI,	/* podman, CRI-O, containerd: ID the state's id */
	HCBS_ENGINE_LXC,	/* LXC: the container's name */
};

/*
 * Is @cgpath (a cgroup's path in its hierarchy, "/" the root) the own
 * cgroup of the container @name of @kind?  Its innermost component that
 * names a container (hcbs_cgroup_owner()) must name this one:
 * libpod-NAME, crio-NAME or cri-containerd-NAME (".scope" or not) for
 * OCI, lxc.payload.NAME (or NAME below "lxc", cgroup v1) for LXC.  The
 * root is refused, and so is every top-level cgroup, except LXC's own
 * lxc.payload.NAME, which LXC puts there by default.  0, or -EPERM with
 * one line naming the cgroup found and what was expected.
 */
int hcbs_own_cgroup_check(const char *cgpath, enum hcbs_engine kind, const char *name,
			  char *err, size_t errlen);

/* Drop the last @n components of @path ("/a/b" -> "/a" -> "/"; never above). */
void hcbs_path_up(char *path, int n);

/*
 * How many components above the cgroup directory @dir (0: @dir itself, at
 * most @max_up) is the one whose cgroup.stat reads @want: nr_descendants
 * grows strictly on the way up, so at most one does.  -ENOENT if none.
 */
int hcbs_cgroup_match_stat(const char *dir, const char *want, int max_up);

/*
 * At most @max bytes of @s into @buf (of @len bytes), safe to put in a
 * one-line message, a terminal or syslog: printable ASCII and well-formed
 * UTF-8 as they are; \n, \t, \r as those two characters; every other
 * control character (ESC, DEL, C1) and every byte that is not UTF-8 as
 * \xHH.  A backslash stays as it is, so that escaping what was escaped
 * changes nothing (messages are escaped where they are made and again
 * where they are printed).  Truncated between characters, never inside
 * one or inside an escape.  The one escaping of every user-supplied name,
 * path, label and annotation value in every tool's messages.
 */
const char *hcbs_printable(const char *s, size_t max, char *buf, size_t len);
/* vsnprintf(), then hcbs_printable(): one safe line, whatever @ap holds. */
const char *hcbs_vescapef(char *buf, size_t len, const char *fmt, va_list ap);

/*
 * Keep liblxc from printing its own log lines on stderr (callers print
 * one line of their own).  Idempotent; a no-op without liblxc.
 */
void hcbs_lxc_quiet(void);

/*
 * liblxc also prints some failures straight to stderr ("Failed to create
 * lock for NAME").  Mute fd 2 around such calls: returns a token for
 * hcbs_stderr_restore() (-1 if muting failed, which restore ignores).
 */
int hcbs_stderr_mute(void);
void hcbs_stderr_restore(int token);

#endif /* HCBS_UTIL_H */
