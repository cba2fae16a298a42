// SPDX-License-Identifier: GPL-2.0
/*
 * The generic helpers every other file of the library and every tool may
 * call, which call nothing else of the library: the size and process-id
 * arguments of the command lines and of the LXC hook's environment, growing
 * arrays, one-line messages (hcbs_seterr(), the hooks' messages, the notes
 * of hcbsctl --verbose), bounded
 * reads of text files, and CPU lists (the online CPUs).
 * Like the duration grammar (duration.c): decimal digits only, no sign,
 * blank or base prefix, and a value that does not fit is refused, never
 * wrapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "hcbs.h"

/* DIGITS as an unsigned value; -EINVAL if not only digits, -ERANGE if too large. */
static int parse_digits(const char *s, const char **end, uint64_t *v)
{
	uint64_t x = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++) {
		uint64_t d = (uint64_t)(*p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -ERANGE;
		x = x * 10 + d;
	}
	if (p == s)
		return -EINVAL;
	*end = p;
	*v = x;
	return 0;
}

int hcbs_parse_size(const char *s, uint64_t *bytes, char *err, size_t errlen)
{
	const char *end = NULL;
	unsigned int shift = 0;
	uint64_t x;
	int ret;

	ret = s ? parse_digits(s, &end, &x) : -EINVAL;
	if (!ret) {
		if (*end == 'K' || *end == 'k')
			shift = 10, end++;
		else if (*end == 'M' || *end == 'm')
			shift = 20, end++;
		if (*end)
			ret = -EINVAL;
		else if (x > UINT64_MAX >> shift)
			ret = -ERANGE;
	}
	if (ret == -ERANGE) {
		hcbs_seterr(err, errlen, "size '%s' is too large", s);
		return ret;
	}
	if (ret) {
		hcbs_seterr(err, errlen, "invalid size '%s': " HCBS_SIZE_HINT, s ? s : "");
		return ret;
	}
	*bytes = x << shift;
	return 0;
}

int hcbs_parse_pid(const char *s, pid_t *pid, char *err, size_t errlen)
{
	const char *end = NULL;
	uint64_t x;
	int ret;

	ret = s ? parse_digits(s, &end, &x) : -EINVAL;
	if (!ret && (*end || !x || x > INT32_MAX))
		ret = -EINVAL;
	if (ret) {
		hcbs_seterr(err, errlen, "'%s' is not a process id (a number from 1 to %d)",
			    s ? s : "", INT32_MAX);
		return -EINVAL;
	}
	*pid = (pid_t)x;
	return 0;
}

void *hcbs_grow(void *arr, size_t n, size_t *cap, size_t size, size_t first)
{
	size_t nc = *cap ? *cap * 2 : first;
	void *na;

	if (n < *cap)
		return arr;
	na = realloc(arr, nc * size);
	if (na)
		*cap = nc;
	return na;
}

void hcbs_hook_vsay(const char *prog, const char *ctx, int prio, const char *fmt,
		    va_list ap)
{
	char msg[8192], c[512];

	/* Names, paths and annotations come from others: one line, escaped. */
	hcbs_vescapef(msg, sizeof(msg), fmt, ap);
	ctx = hcbs_printable(ctx, SIZE_MAX, c, sizeof(c));
	fprintf(stderr, "%s: %s: %s\n", prog, ctx, msg);
	syslog(prio, "%s: %s", ctx, msg);
}

void hcbs_hook_say(const char *prog, const char *ctx, int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hcbs_hook_vsay(prog, ctx, prio, fmt, ap);
	va_end(ap);
}

uint64_t hcbs_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void hcbs_sleep_until(uint64_t t)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t / 1000000000ULL),
		.tv_nsec = (long)(t % 1000000000ULL),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

void hcbs_burn(uint64_t ns)
{
	uint64_t c0 = hcbs_clock_ns(CLOCK_THREAD_CPUTIME_ID);

	while (hcbs_clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0 < ns)
		;
}

/*
 * The length of the well-formed UTF-8 sequence of a printable character at
 * @s (at most @n bytes, stopping at a NUL), or 0: ASCII controls and DEL, C1 controls (U+0080
 * to U+009F: ESC's 8-bit twins in a terminal), overlong forms, surrogates,
 * truncated or stray bytes are 0.
 */
static size_t utf8_printable(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t k;

	if (c >= 0x20 && c < 0x7f)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		k = 2;
	else if (c >= 0xe0 && c <= 0xef)
		k = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		k = 4;
	else
		return 0;
	if (c == 0xc2)
		lo = 0xa0;			/* C1 controls */
	else if (c == 0xe0)
		lo = 0xa0;			/* overlong */
	else if (c == 0xed)
		hi = 0x9f;			/* surrogates */
	else if (c == 0xf0)
		lo = 0x90;			/* overlong */
	else if (c == 0xf4)
		hi = 0x8f;			/* above U+10FFFF */
	if (k > n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < k; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return k;
}

const char *hcbs_printable(const char *s, size_t max, char *buf, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n = 0;

	if (!len)
		return buf;
	while (i < max && u[i]) {
		/* A NUL is no continuation byte: nothing is read past the end. */
		size_t k = utf8_printable(u + i, max - i), used = k ? k : 1;
		char esc[8];

		if (k)
			memcpy(esc, s + i, k);
		else if (u[i] == '\n' || u[i] == '\t' || u[i] == '\r')
			k = (size_t)snprintf(esc, sizeof(esc), "\\%c",
					     u[i] == '\n' ? 'n' : u[i] == '\t' ? 't' : 'r');
		else
			k = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", u[i]);
		/* Whole characters and escapes only, and room for the NUL. */
		if (n + k >= len)
			break;
		memcpy(buf + n, esc, k);
		n += k;
		i += used;
	}
	buf[n] = '\0';
	return buf;
}

const char *hcbs_vescapef(char *buf, size_t len, const char *fmt, va_list ap)
{
	char raw[4096];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	return hcbs_printable(raw, sizeof(raw), buf, len);
}

static void (*note_fn)(const char *line);

void hcbs_set_notes(void (*fn)(const char *line))
{
	note_fn = fn;
}

bool hcbs_notes_on(void)
{
	return note_fn != NULL;
}

void hcbs_notef(const char *fmt, ...)
{
	char line[4096];
	va_list ap;

	if (!note_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	note_fn(line);
}

void hcbs_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	/*
	 * One line, whatever the message quotes: a newline or other control
	 * character of the input (found by tests/fuzz/fuzz_duration) would
	 * split it, in syslog too (the LXC hook).
	 */
	va_start(ap, fmt);
	hcbs_vescapef(err, errlen, fmt, ap);
	va_end(ap);
}

int hcbs_read_fd_max(int fd, const char *name, size_t max, char **text, char *err,
		     size_t errlen)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (cap - len < 2) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				ret = -ENOMEM;
				hcbs_seterr(err, errlen, "%s: out of memory", name);
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		/* One byte past @max tells "too large" from "exactly @max". */
		n = read(fd, buf + len, cap - len - 1 < max + 1 - len ? cap - len - 1 : max + 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			hcbs_seterr(err, errlen, "%s: %s", name, strerror(errno));
			goto out;
		}
		if (!n)
			break;
		if (memchr(buf + len, '\0', (size_t)n)) {
			ret = -EINVAL;
			hcbs_seterr(err, errlen, "%s: holds a NUL byte: not a text file", name);
			goto out;
		}
		len += (size_t)n;
		if (len > max) {
			ret = -EFBIG;
			hcbs_seterr(err, errlen, "%s: larger than %zu bytes: not accepted", name, max);
			goto out;
		}
	}
out:
	if (ret) {
		free(buf);
		return ret;
	}
	buf[len] = '\0';
	*text = buf;
	return 0;
}

int hcbs_read_text_max(const char *path, size_t max, char **text, char *err,
		       size_t errlen)
{
	bool is_stdin = !strcmp(path, "-");
	int fd, ret;

	fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		hcbs_seterr(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	ret = hcbs_read_fd_max(fd, is_stdin ? "stdin" : path, max, text, err, errlen);
	if (!is_stdin)
		close(fd);
	return ret;
}

int hcbs_read_text(const char *path, char **text, char *err, size_t errlen)
{
	return hcbs_read_text_max(path, HCBS_READ_MAX, text, err, errlen);
}

#define HCBS_CPU_NUM_MAX 65535

int hcbs_parse_cpulist(const char *s, int *cpus, int max)
{
	const char *p = s;
	int n = 0;

	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		/*
		 * NR_CPUS is at most 8192: a larger number is no CPU, and a
		 * range up to LONG_MAX overflowed i++ below (found by
		 * tests/fuzz/fuzz_rt) or counted for ever.
		 */
		if (end == p || a < 0 || a > HCBS_CPU_NUM_MAX)
			return -EINVAL;
		if (*end == '-') {
			const char *q = end + 1;

			b = strtol(q, &end, 10);
			if (end == q || b < a || b > HCBS_CPU_NUM_MAX)
				return -EINVAL;
		}
		for (long i = a; i <= b; i++) {
			if (cpus && n < max)
				cpus[n] = (int)i;
			n++;
		}
		if (*end == ',')
			end++;
		else if (*end && *end != '\n')
			return -EINVAL;
		p = end;
	}
	return n;
}

int hcbs_online_cpus(int *cpus, int max)
{
	char *text = NULL;
	int n;

	if (hcbs_read_text("/sys/devices/system/cpu/online", &text, NULL, 0) ||
	    (n = hcbs_parse_cpulist(text, cpus, max)) <= 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		free(text);
		for (n = 0; n < c; n++)
			if (cpus && n < max)
				cpus[n] = n;
		return n;
	}
	free(text);
	return n;
}
