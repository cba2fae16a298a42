// SPDX-License-Identifier: GPL-2.0
/*
 * The node policy of hcbs-oci-hook: a file of KEY = VALUE lines ('#'
 * starts a comment, blank lines are ignored, each key at most once).
 * Nothing in it is guessed: an unknown key, a value outside its grammar or
 * a key given twice makes the whole file refused, with its line, and the
 * hook then refuses every reservation (a policy that is not understood
 * must not be read as a more permissive one).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "hcbs.h"
#include "policy.h"

static const char *const key_names[HCBS_POL_NKEYS] = {
	[HCBS_POL_DEFAULT] = "default",
	[HCBS_POL_NAMESPACES] = "namespaces",
	[HCBS_POL_MAX_BW] = "max-bandwidth",
	[HCBS_POL_MAX_RUNTIME] = "max-runtime",
	[HCBS_POL_MIN_PERIOD] = "min-period",
	[HCBS_POL_MAX_PERIOD] = "max-period",
	[HCBS_POL_MAX_POD_BW] = "max-pod-bandwidth",
};

#define KEYS_ACCEPTED "default, namespaces, max-bandwidth, max-runtime, min-period, max-period, max-pod-bandwidth"
#define BW_HINT "expected a fraction of one CPU from 0 to 1 with at most 6 decimals, e.g. 0.45"

bool hcbs_oci_dns_label(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

/* "0", "1", "0.45", "1.000000": parts per million, at most 1. */
static int parse_ppm(const char *s, uint32_t *ppm)
{
	size_t d = strspn(s, "0123456789"), f = 0;
	uint64_t v = 0;

	if (!d || d > 1)
		return -EINVAL;
	v = (uint64_t)(s[0] - '0') * 1000000;
	if (s[d] == '.') {
		const char *frac = s + d + 1;
		uint64_t scale = 100000;

		f = strspn(frac, "0123456789");
		if (!f || f > 6 || frac[f])
			return -EINVAL;
		for (size_t i = 0; i < f; i++, scale /= 10)
			v += (uint64_t)(frac[i] - '0') * scale;
	} else if (s[d]) {
		return -EINVAL;
	}
	if (v > 1000000)
		return -EINVAL;
	*ppm = (uint32_t)v;
	return 0;
}

/* Namespaces separated by commas and/or blanks. */
static int parse_namespaces(char *v, struct hcbs_oci_policy *p, char *e, size_t elen)
{
	char *save = NULL, *tok;

	p->n_ns = 0;
	for (tok = strtok_r(v, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		if (!hcbs_oci_dns_label(tok)) {
			char buf[80];

			hcbs_seterr(e, elen, "namespace '%s' is not a Kubernetes namespace name: expected lower-case letters, digits and '-', at most 63",
				    hcbs_printable(tok, 64, buf, sizeof(buf)));
			return -EINVAL;
		}
		if (p->n_ns == HCBS_OCI_POLICY_NS_MAX) {
			hcbs_seterr(e, elen, "more than %d namespaces", HCBS_OCI_POLICY_NS_MAX);
			return -EINVAL;
		}
		snprintf(p->ns[p->n_ns++], sizeof(p->ns[0]), "%s", tok);
	}
	if (!p->n_ns) {
		hcbs_seterr(e, elen, "no namespace: expected NS[, NS]..., e.g. namespaces = vran, rt-tests");
		return -EINVAL;
	}
	return 0;
}

static int parse_value(struct hcbs_oci_policy *p, enum hcbs_policy_key k, char *v,
		       char *e, size_t elen)
{
	uint64_t ns;
	uint64_t *us[HCBS_POL_NKEYS] = {
		[HCBS_POL_MAX_RUNTIME] = &p->max_runtime_us,
		[HCBS_POL_MIN_PERIOD] = &p->min_period_us,
		[HCBS_POL_MAX_PERIOD] = &p->max_period_us,
	};
	char d[HCBS_ERRLEN];

	switch (k) {
	case HCBS_POL_DEFAULT:
		if (strcmp(v, "refuse") && strcmp(v, "allow")) {
			hcbs_seterr(e, elen, "expected refuse or allow");
			return -EINVAL;
		}
		p->allow = !strcmp(v, "allow");
		return 0;
	case HCBS_POL_NAMESPACES:
		return parse_namespaces(v, p, e, elen);
	case HCBS_POL_MAX_BW:
	case HCBS_POL_MAX_POD_BW:
		if (parse_ppm(v, k == HCBS_POL_MAX_BW ? &p->max_bw_ppm : &p->max_pod_bw_ppm)) {
			hcbs_seterr(e, elen, BW_HINT);
			return -EINVAL;
		}
		return 0;
	default:
		if (hcbs_parse_duration_flags(v, HCBS_DUR_NONZERO | HCBS_DUR_WHOLE_US, &ns, d,
					      sizeof(d))) {
			hcbs_seterr(e, elen, "%s", d);
			return -EINVAL;
		}
		*us[k] = ns / 1000;
		return 0;
	}
}

static char *trim(char *s)
{
	char *end;

	s += strspn(s, " \t\r");
	end = s + strlen(s);
	while (end > s && strchr(" \t\r", end[-1]))
		*--end = '\0';
	return s;
}

/* One line (NUL-terminated, comment cut): 0 or -EINVAL with @e. */
static int parse_line(struct hcbs_oci_policy *p, char *line, int lineno, char *e, size_t elen)
{
	char *eq, *key, *val, buf[80], why[HCBS_ERRLEN];
	int k;

	line = trim(line);
	if (!*line)
		return 0;
	eq = strchr(line, '=');
	if (!eq) {
		hcbs_seterr(e, elen, "'%s' is not KEY = VALUE: accepted keys %s",
			    hcbs_printable(line, 64, buf, sizeof(buf)), KEYS_ACCEPTED);
		return -EINVAL;
	}
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	for (k = 0; k < HCBS_POL_NKEYS; k++)
		if (!strcmp(key, key_names[k]))
			break;
	if (k == HCBS_POL_NKEYS) {
		hcbs_seterr(e, elen, "unknown key '%s': accepted %s",
			    hcbs_printable(key, 64, buf, sizeof(buf)), KEYS_ACCEPTED);
		return -EINVAL;
	}
	if (p->line[k]) {
		hcbs_seterr(e, elen, "%s given again (first at line %d): give each key once",
			    key_names[k], p->line[k]);
		return -EINVAL;
	}
	if (!*val) {
		hcbs_seterr(e, elen, "%s has no value", key_names[k]);
		return -EINVAL;
	}
	hcbs_printable(val, sizeof(p->raw[0]) - 1, p->raw[k], sizeof(p->raw[0]));
	if (parse_value(p, k, val, why, sizeof(why))) {
		hcbs_seterr(e, elen, "%s = %s: %s", key_names[k], p->raw[k], why);
		return -EINVAL;
	}
	p->line[k] = lineno;
	return 0;
}

int hcbs_oci_policy_parse(const char *text, const char *file, struct hcbs_oci_policy *p,
			  char *err, size_t errlen)
{
	char *copy = strdup(text), *line, *next, e[HCBS_ERRLEN];
	int lineno = 0, ret = 0;

	memset(p, 0, sizeof(*p));
	snprintf(p->file, sizeof(p->file), "%s", file);
	if (!copy) {
		hcbs_seterr(err, errlen, "%s: out of memory", file);
		return -ENOMEM;
	}
	for (line = copy; line && !ret; line = next) {
		char *hash;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		ret = parse_line(p, line, lineno, e, sizeof(e));
	}
	free(copy);
	if (!ret && p->line[HCBS_POL_MIN_PERIOD] && p->line[HCBS_POL_MAX_PERIOD] &&
	    p->min_period_us > p->max_period_us) {
		lineno = p->line[HCBS_POL_MIN_PERIOD] > p->line[HCBS_POL_MAX_PERIOD] ?
			 p->line[HCBS_POL_MIN_PERIOD] : p->line[HCBS_POL_MAX_PERIOD];
		hcbs_seterr(e, sizeof(e), "min-period = %s is above max-period = %s: expected min-period <= max-period",
			    p->raw[HCBS_POL_MIN_PERIOD], p->raw[HCBS_POL_MAX_PERIOD]);
		ret = -EINVAL;
	}
	if (ret)
		hcbs_seterr(err, errlen, "%s:%d: %s", file, lineno, e);
	return ret;
}

/*
 * Who may own the policy: root.  A test build also takes the user running
 * the tests ($HCBS_TEST_OCI_POLICY_UID, else the effective uid), so that
 * every refusal is tested without root.
 */
static bool owner_trusted(uid_t uid)
{
	if (uid == 0)
		return true;
#ifdef HCBS_TESTING
	const char *u = hcbs_test_env("HCBS_TEST_OCI_POLICY_UID");

	return uid == (u ? (uid_t)strtoul(u, NULL, 10) : geteuid());
#else
	return false;
#endif
}

#define POLICY_ACCEPTED "expected a regular file owned by root, not writable by group or others; every reservation is refused"
#define NO_POLICY "no node policy %s: every reservation is refused until it allows them (default = refuse; see hcbs-oci-hook(1), POLICY)"
#define POLICY_DIR_ACCEPTED "expected a directory owned by root, not writable by group or others; every reservation is refused"

/* "its group", "others" or "group and others", for a mode that is writable. */
static const char *writers(mode_t m)
{
	return m & S_IWGRP && m & S_IWOTH ? "group and others" : m & S_IWGRP ? "its group" : "others";
}

/*
 * Open the directory that holds the policy, @dir, and check it as the file
 * itself: whoever can write it can put another file in the policy's place.
 * No symbolic link is followed; what is checked (fstat) is the fd the file
 * is then opened from.  The fd, or -1 with @ret and one line in @err.
 */
static int policy_dir_open(const char *dir, const char *path, int *ret, char *err,
			   size_t errlen)
{
	struct stat st;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		hcbs_seterr(err, errlen, NO_POLICY, path);
		*ret = -ENOENT;
		return -1;
	}
	if (fd < 0 && (errno == ENOTDIR || errno == ELOOP)) {
		/* Refused either way; lstat() only says which it is. */
		bool is_link = !lstat(dir, &st) && S_ISLNK(st.st_mode);

		hcbs_seterr(err, errlen, "node policy directory %s is %s: " POLICY_DIR_ACCEPTED, dir,
			    is_link ? "a symbolic link" : "not a directory");
		*ret = -EINVAL;
		return -1;
	}
	if (fd < 0 || fstat(fd, &st)) {
		*ret = -errno;
		hcbs_seterr(err, errlen, "node policy directory %s: %s", dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*ret = -EINVAL;
	if (!owner_trusted(st.st_uid))
		hcbs_seterr(err, errlen, "node policy directory %s is owned by uid %u: " POLICY_DIR_ACCEPTED,
			    dir, (unsigned int)st.st_uid);
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		hcbs_seterr(err, errlen, "node policy directory %s is writable by %s (mode %04o): " POLICY_DIR_ACCEPTED,
			    dir, writers(st.st_mode), (unsigned int)(st.st_mode & 07777));
	else
		return fd;
	close(fd);
	return -1;
}

int hcbs_oci_policy_load(const char *path, struct hcbs_oci_policy *p, char *err,
			 size_t errlen)
{
	char *text = NULL, e[HCBS_ERRLEN], dir[4096];
	const char *slash = strrchr(path, '/'), *base;
	struct stat st;
	int dfd, fd, ret;

	memset(p, 0, sizeof(*p));
	/* The directory: "." for a bare name (a test build's), "/" for "/NAME". */
	if (!slash) {
		snprintf(dir, sizeof(dir), ".");
		base = path;
	} else if ((size_t)(slash - path) >= sizeof(dir)) {
		hcbs_seterr(err, errlen, "node policy %s: path too long", path);
		return -ENAMETOOLONG;
	} else {
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
		base = *(slash + 1) ? slash + 1 : ".";
	}
	dfd = policy_dir_open(dir, path, &ret, err, errlen);
	if (dfd < 0)
		return ret;
	/*
	 * Whoever can write the policy decides who may reserve: it is read
	 * only when nobody but root can have written it.  No symbolic link
	 * is followed and a FIFO cannot block us; what is checked (fstat)
	 * is what is read.
	 */
	fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(dfd);
	if (fd < 0 && errno == ENOENT) {
		hcbs_seterr(err, errlen, NO_POLICY, path);
		return -ENOENT;
	}
	if (fd < 0 && errno == ELOOP) {
		hcbs_seterr(err, errlen, "node policy %s is a symbolic link: " POLICY_ACCEPTED, path);
		return -EINVAL;
	}
	if (fd < 0) {
		ret = -errno;
		hcbs_seterr(err, errlen, "node policy %s: %s", path, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		hcbs_seterr(err, errlen, "node policy %s: %s", path, strerror(errno));
		close(fd);
		return ret;
	}
	ret = -EINVAL;
	if (!S_ISREG(st.st_mode))
		hcbs_seterr(err, errlen, "node policy %s is %s: " POLICY_ACCEPTED, path,
			    S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" :
			    "not a regular file");
	else if (!owner_trusted(st.st_uid))
		hcbs_seterr(err, errlen, "node policy %s is owned by uid %u: " POLICY_ACCEPTED, path,
			    (unsigned int)st.st_uid);
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		hcbs_seterr(err, errlen, "node policy %s is writable by %s (mode %04o): " POLICY_ACCEPTED,
			    path, writers(st.st_mode), (unsigned int)(st.st_mode & 07777));
	else if ((ret = hcbs_read_fd_max(fd, path, HCBS_OCI_POLICY_MAX, &text, e, sizeof(e))))
		hcbs_seterr(err, errlen, "node policy %s", e);
	close(fd);
	if (ret)
		return ret;
	ret = hcbs_oci_policy_parse(text, path, p, err, errlen);
	free(text);
	return ret;
}

/* "policy FILE:LINE: KEY = VALUE" of a key that is set, into @buf. */
static const char *rule(const struct hcbs_oci_policy *p, enum hcbs_policy_key k, char *buf,
			size_t len)
{
	snprintf(buf, len, "policy %s:%d: %s = %s", p->file, p->line[k], key_names[k], p->raw[k]);
	return buf;
}

int hcbs_oci_policy_who(const struct hcbs_oci_policy *p, const char *ns, char *err,
			size_t errlen)
{
	char r[512];

	if (ns && p->line[HCBS_POL_NAMESPACES]) {
		for (int i = 0; i < p->n_ns; i++)
			if (!strcmp(ns, p->ns[i]))
				return 0;
		hcbs_seterr(err, errlen, "%s: namespace '%s' is not one of them; refused",
			    rule(p, HCBS_POL_NAMESPACES, r, sizeof(r)), ns);
		return -EPERM;
	}
	if (p->allow)
		return 0;
	if (p->line[HCBS_POL_DEFAULT])
		rule(p, HCBS_POL_DEFAULT, r, sizeof(r));
	else
		snprintf(r, sizeof(r), "policy %s: default = refuse (no default line)", p->file);
	if (ns)
		hcbs_seterr(err, errlen, "%s, and no namespaces line: namespace '%s' may not ask; refused",
			    r, ns);
	else
		hcbs_seterr(err, errlen, "%s: a container outside Kubernetes may not ask; refused", r);
	return -EPERM;
}

uint64_t hcbs_oci_bw_ppb(const struct hcbs_rt *rt)
{
	unsigned __int128 n;

	if (rt->runtime_us == HCBS_RT_MAX || !rt->period_us)
		return 0;
	n = (unsigned __int128)rt->runtime_us * 1000000000u;
	return (uint64_t)((n + rt->period_us - 1) / rt->period_us);
}

/* runtime/period <= ppm / 10^6, exactly. */
static bool bw_within(const struct hcbs_rt *rt, uint32_t ppm)
{
	return (unsigned __int128)rt->runtime_us * 1000000u <=
	       (unsigned __int128)ppm * rt->period_us;
}

int hcbs_oci_policy_container(const struct hcbs_oci_policy *p, const struct hcbs_rt *rt,
			      char *err, size_t errlen)
{
	char r[512], res[64], d[32];

	hcbs_rt_format(rt, res, sizeof(res));
	if (p->line[HCBS_POL_MAX_BW] && !bw_within(rt, p->max_bw_ppm)) {
		hcbs_seterr(err, errlen, "%s: %s is %.3f of a CPU; refused",
			    rule(p, HCBS_POL_MAX_BW, r, sizeof(r)), res, hcbs_rt_bw(rt));
		return -EPERM;
	}
	if (p->line[HCBS_POL_MAX_RUNTIME] && rt->runtime_us > p->max_runtime_us) {
		hcbs_seterr(err, errlen, "%s: %s has a runtime of %s; refused",
			    rule(p, HCBS_POL_MAX_RUNTIME, r, sizeof(r)), res,
			    hcbs_format_duration(rt->runtime_us * 1000, d, sizeof(d)));
		return -EPERM;
	}
	if (p->line[HCBS_POL_MIN_PERIOD] && rt->period_us < p->min_period_us) {
		hcbs_seterr(err, errlen, "%s: %s has a shorter period; refused",
			    rule(p, HCBS_POL_MIN_PERIOD, r, sizeof(r)), res);
		return -EPERM;
	}
	if (p->line[HCBS_POL_MAX_PERIOD] && rt->period_us > p->max_period_us) {
		hcbs_seterr(err, errlen, "%s: %s has a longer period; refused",
			    rule(p, HCBS_POL_MAX_PERIOD, r, sizeof(r)), res);
		return -EPERM;
	}
	return 0;
}

int hcbs_oci_policy_pod(const struct hcbs_oci_policy *p, const char *uid, uint64_t used,
			int n_used, const struct hcbs_rt *rt, char *err, size_t errlen)
{
	uint64_t total = hcbs_add_sat(used, hcbs_oci_bw_ppb(rt));
	char r[512], res[64];

	if (!p->line[HCBS_POL_MAX_POD_BW] || total <= (uint64_t)p->max_pod_bw_ppm * 1000)
		return 0;
	hcbs_seterr(err, errlen, "%s: pod %s has %.3f of a CPU reserved by %d other container%s, and %s would make it %.3f; refused",
		    rule(p, HCBS_POL_MAX_POD_BW, r, sizeof(r)), uid, used / 1e9, n_used,
		    n_used == 1 ? "" : "s", hcbs_rt_format(rt, res, sizeof(res)), total / 1e9);
	return -EPERM;
}
