// SPDX-License-Identifier: GPL-2.0
/*
 * Small helpers of every tool: the size and process-id arguments of the
 * command lines and of the LXC hook's environment, growing arrays, and the
 * hooks' messages.
 * Like the duration grammar (duration.c): decimal digits only, no sign,
 * blank or base prefix, and a value that does not fit is refused, never
 * wrapped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>
#include <time.h>

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
	char msg[8192];

	vsnprintf(msg, sizeof(msg), fmt, ap);
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

const char *hcbs_printable(const char *s, size_t max, char *buf, size_t len)
{
	size_t n = 0;

	for (; s[n] && n < max && n + 1 < len; n++)
		buf[n] = (unsigned char)s[n] < ' ' || s[n] == 0x7f ? '?' : s[n];
	buf[n] = '\0';
	return buf;
}
