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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define HCBS_ERRLEN 256

/* ---- durations: "8ms", "500us", "1.5ms", "2s", "250000ns" ---- */

/*
 * Parse a duration with a mandatory unit (ns, us, ms, s) into nanoseconds.
 * Decimal fractions are accepted when the result is a whole number of ns.
 * Rejects: empty strings, missing or unknown units, negative values,
 * overflow of 64 bits, trailing garbage.
 */
int hcbs_parse_duration(const char *s, uint64_t *ns, char *err, size_t errlen);

/*
 * Parse "RUNTIME/PERIOD" (e.g. "8ms/18ms", "8000us/18ms") into nanoseconds.
 * Rejects a zero period and runtime > period.  A zero runtime is accepted
 * (it forbids RT tasks in the group).
 */
int hcbs_parse_reservation(const char *s, uint64_t *runtime_ns,
			   uint64_t *period_ns, char *err, size_t errlen);

/* Shortest exact form: 8000000 -> "8ms", 1500 -> "1500ns", 0 -> "0". */
char *hcbs_format_duration(uint64_t ns, char *buf, size_t len);

/* ---- JSON writer (streaming, pretty-printed, RFC 8259 escaping) ---- */

struct hcbs_json;

struct hcbs_json *hcbs_json_new(FILE *out);
/* Closes nothing; returns -EINVAL if objects/arrays are left open. */
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

/* ---- small helpers (extensions; stable too) ---- */

/* printf into an error buffer; does nothing when @err is NULL. */
void hcbs_seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Read a whole (small, e.g. /proc or cgroupfs) file into a NUL-terminated,
 * malloc()ed buffer.  Returns 0 or -errno (the file's open/read error).
 */
int hcbs_read_text(const char *path, char **text, char *err, size_t errlen);

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
