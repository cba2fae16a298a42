// SPDX-License-Identifier: GPL-2.0
/*
 * The one duration grammar of every hcbs tool, as systemd and rtla spell
 * durations: "8ms", "500us", "1.5ms", "2s", "250000ns", "2m", "1h".
 *
 *   DURATION := DIGITS [ "." DIGITS ] UNIT
 *   UNIT     := "ns" | "us" | "µs" | "μs" | "ms" | "s" | "m" | "h"
 *
 * The unit is mandatory so that a bare "8000" can never be read as the
 * wrong unit; there is no sign, no exponent, no hex and no blank.  The
 * value must be a whole number of nanoseconds (so nothing silently rounds,
 * to 0 or otherwise) and at most HCBS_DURATION_MAX_NS, which keeps every
 * sum of a clock reading and a duration far from overflowing 64 bits.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hcbs.h"

struct unit {
	const char *name;
	uint64_t ns;
};

static const struct unit units[] = {
	{ "ns", 1ULL },
	{ "us", 1000ULL },
	/*
	 * "µs" with U+00B5 MICRO SIGN and with U+03BC GREEK SMALL LETTER MU:
	 * they look the same, and keyboards and documents give either.
	 */
	{ "\xc2\xb5s", 1000ULL },
	{ "\xce\xbcs", 1000ULL },
	{ "ms", 1000000ULL },
	{ "s", 1000000000ULL },
	{ "m", 60000000000ULL },
	{ "h", 3600000000000ULL },
};

static const struct unit *find_unit(const char *s)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(s, units[i].name))
			return &units[i];
	return NULL;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* 8760h, written once for the messages. */
#define MAX_TEXT "8760h (365 days)"

int hcbs_parse_duration_flags(const char *s, unsigned int flags, uint64_t *ns,
			      char *err, size_t errlen)
{
	uint64_t ip = 0, fp = 0, pow10 = 1, v;
	int fdigits = 0, idigits = 0;
	const char *p = s, *f = NULL;
	const struct unit *u;
	bool big = false;

	if (!s || !*s) {
		hcbs_seterr(err, errlen, "empty duration: " HCBS_DURATION_HINT);
		return -EINVAL;
	}
	for (; *p >= '0' && *p <= '9'; p++, idigits++) {
		/* Keep reading: the unit decides, the message says "too large". */
		if (ip > (UINT64_MAX - 9) / 10)
			big = true;
		else
			ip = ip * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		int n = 0;

		f = ++p;
		for (; *p >= '0' && *p <= '9'; p++) {
			n++;
			if (*p != '0')
				fdigits = n;	/* trailing zeros change nothing */
		}
		if (!n || !idigits) {
			hcbs_seterr(err, errlen, "invalid duration '%s': " HCBS_DURATION_HINT, s);
			return -EINVAL;
		}
	} else if (!idigits) {
		hcbs_seterr(err, errlen, "invalid duration '%s': " HCBS_DURATION_HINT, s);
		return -EINVAL;
	}
	if (!*p) {
		hcbs_seterr(err, errlen, "duration '%s' has no unit: " HCBS_DURATION_HINT, s);
		return -EINVAL;
	}
	u = find_unit(p);
	if (!u) {
		hcbs_seterr(err, errlen, "duration '%s' has an unknown unit '%s': " HCBS_DURATION_HINT,
			    s, p);
		return -EINVAL;
	}
	/*
	 * The fraction F / 10^n of a unit of U ns is whole iff 10^n / g
	 * divides F, with g = gcd(U, 10^n); it is then (F / (10^n / g)) *
	 * (U / g) ns, less than U: nothing overflows.  No unit has more than
	 * 14 fraction digits that can give whole ns (h: 3.6e12 = 2^14 ...).
	 */
	if (fdigits > 15) {
		hcbs_seterr(err, errlen, "duration '%s' is not a whole number of nanoseconds", s);
		return -EINVAL;
	}
	for (int i = 0; i < fdigits; i++) {
		fp = fp * 10 + (uint64_t)(f[i] - '0');
		pow10 *= 10;
	}
	if (fdigits) {
		uint64_t g = gcd(u->ns, pow10), m = pow10 / g;

		if (fp % m) {
			hcbs_seterr(err, errlen, "duration '%s' is not a whole number of nanoseconds", s);
			return -EINVAL;
		}
		fp = fp / m * (u->ns / g);
	}
	if (big || ip > (HCBS_DURATION_MAX_NS - fp) / u->ns) {
		hcbs_seterr(err, errlen, "duration '%s' is too large: at most " MAX_TEXT, s);
		return -ERANGE;
	}
	v = ip * u->ns + fp;
	if ((flags & HCBS_DUR_NONZERO) && !v) {
		hcbs_seterr(err, errlen, "duration '%s' must be more than 0", s);
		return -EINVAL;
	}
	if ((flags & HCBS_DUR_WHOLE_US) && v % 1000) {
		hcbs_seterr(err, errlen, "duration '%s' is not a whole number of microseconds (the kernel takes us)",
			    s);
		return -EINVAL;
	}
	*ns = v;
	return 0;
}

int hcbs_parse_duration(const char *s, uint64_t *ns, char *err, size_t errlen)
{
	return hcbs_parse_duration_flags(s, 0, ns, err, errlen);
}

int hcbs_check_duration(uint64_t ns, unsigned int flags, char *err, size_t errlen)
{
	if (ns > HCBS_DURATION_MAX_NS) {
		hcbs_seterr(err, errlen, "duration %llu ns is too large: at most " MAX_TEXT,
			    (unsigned long long)ns);
		return -ERANGE;
	}
	if ((flags & HCBS_DUR_NONZERO) && !ns) {
		hcbs_seterr(err, errlen, "duration 0 ns must be more than 0");
		return -EINVAL;
	}
	if ((flags & HCBS_DUR_WHOLE_US) && ns % 1000) {
		hcbs_seterr(err, errlen, "duration %llu ns is not a whole number of microseconds (the kernel takes us)",
			    (unsigned long long)ns);
		return -EINVAL;
	}
	return 0;
}

int hcbs_parse_reservation(const char *s, uint64_t *runtime_ns,
			   uint64_t *period_ns, char *err, size_t errlen)
{
	char buf[128], e[HCBS_ERRLEN];
	const char *slash;
	uint64_t q, p;
	int ret;

	/*
	 * "max" in cpu.rt.max means no reservation of its own; asked for here
	 * ("max", "max/18ms"), it is hcbsctl unset, which keeps the period.
	 */
	if (s && (!strcmp(s, "max") || !strncmp(s, "max/", 4))) {
		hcbs_seterr(err, errlen, "invalid reservation '%s': 'max' is no runtime to reserve; for no reservation of its own, use hcbsctl unset NAME (it keeps the period)",
			    s);
		return -EINVAL;
	}
	if (!s || !(slash = strchr(s, '/')) || strchr(slash + 1, '/')) {
		hcbs_seterr(err, errlen, "invalid reservation '%s': expected RUNTIME/PERIOD, e.g. 8ms/18ms",
			    s ? s : "");
		return -EINVAL;
	}
	if ((size_t)(slash - s) >= sizeof(buf)) {
		hcbs_seterr(err, errlen, "invalid reservation: runtime too long");
		return -EINVAL;
	}
	memcpy(buf, s, (size_t)(slash - s));
	buf[slash - s] = '\0';
	ret = hcbs_parse_duration_flags(buf, HCBS_DUR_WHOLE_US, &q, e, sizeof(e));
	if (!ret)
		ret = hcbs_parse_duration_flags(slash + 1, HCBS_DUR_WHOLE_US | HCBS_DUR_NONZERO,
						&p, e, sizeof(e));
	if (ret) {
		hcbs_seterr(err, errlen, "invalid reservation '%s': %s", s, e);
		return ret;
	}
	if (q > p) {
		hcbs_seterr(err, errlen, "invalid reservation '%s': the runtime must not exceed the period", s);
		return -EINVAL;
	}
	*runtime_ns = q;
	*period_ns = p;
	return 0;
}

char *hcbs_format_duration(uint64_t ns, char *buf, size_t len)
{
	if (!ns)
		snprintf(buf, len, "0ns");
	else if (ns % 1000000000ULL == 0)
		snprintf(buf, len, "%llus", (unsigned long long)(ns / 1000000000ULL));
	else if (ns % 1000000ULL == 0)
		snprintf(buf, len, "%llums", (unsigned long long)(ns / 1000000ULL));
	else if (ns % 1000ULL == 0)
		snprintf(buf, len, "%lluus", (unsigned long long)(ns / 1000ULL));
	else
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	return buf;
}

uint64_t hcbs_tick_advance(uint64_t next, uint64_t interval, uint64_t now,
			   uint64_t *ticks)
{
	uint64_t k;

	if (!interval || now < next) {
		if (ticks)
			*ticks = 0;
		return next;
	}
	/* All the ticks due by @now at once: no loop to run away. */
	k = (now - next) / interval + 1;
	if (ticks)
		*ticks = k;
	return hcbs_add_sat(next, hcbs_mul_sat(k, interval));
}
