// SPDX-License-Identifier: GPL-2.0
/*
 * Durations with units, as systemd and rtla spell them: "8ms", "500us",
 * "1.5ms", "2s", "250000ns".  The unit is mandatory so that a bare "8000"
 * can never be read as the wrong unit.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hcbs.h"

void hcbs_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

struct unit {
	const char *name;
	uint64_t ns;
	int digits;	/* log10(ns): fraction digits that still give whole ns */
};

static const struct unit units[] = {
	{ "ns", 1ULL, 0 },
	{ "us", 1000ULL, 3 },
	{ "\xc2\xb5s", 1000ULL, 3 },	/* "µs" in UTF-8 */
	{ "ms", 1000000ULL, 6 },
	{ "s", 1000000000ULL, 9 },
};

static const struct unit *find_unit(const char *s)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(s, units[i].name))
			return &units[i];
	return NULL;
}

#define DURATION_HINT "expected a number and a unit (ns, us, ms, s), e.g. 8ms or 1.5ms"

int hcbs_parse_duration(const char *s, uint64_t *ns, char *err, size_t errlen)
{
	uint64_t ip = 0, fp = 0;
	int fdigits = 0, idigits = 0;
	const char *p = s;
	const struct unit *u;

	if (!s || !*s) {
		hcbs_seterr(err, errlen, "empty duration: " DURATION_HINT);
		return -EINVAL;
	}
	for (; *p >= '0' && *p <= '9'; p++, idigits++) {
		if (ip > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) {
			hcbs_seterr(err, errlen, "duration '%s' is too large (at most 2^64-1 ns)", s);
			return -ERANGE;
		}
		ip = ip * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		p++;
		/* Keep significant digits only; trailing zeros change nothing. */
		const char *f = p;
		int last_nonzero = 0, n = 0;

		for (; *p >= '0' && *p <= '9'; p++) {
			n++;
			if (*p != '0')
				last_nonzero = n;
		}
		if (!n || !idigits) {
			hcbs_seterr(err, errlen, "invalid duration '%s': " DURATION_HINT, s);
			return -EINVAL;
		}
		if (last_nonzero > 9) {
			hcbs_seterr(err, errlen, "duration '%s' is not a whole number of nanoseconds", s);
			return -EINVAL;
		}
		for (int i = 0; i < last_nonzero; i++)
			fp = fp * 10 + (uint64_t)(f[i] - '0');
		fdigits = last_nonzero;
	} else if (!idigits) {
		hcbs_seterr(err, errlen, "invalid duration '%s': " DURATION_HINT, s);
		return -EINVAL;
	}
	if (!*p) {
		hcbs_seterr(err, errlen, "duration '%s' has no unit: " DURATION_HINT, s);
		return -EINVAL;
	}
	u = find_unit(p);
	if (!u) {
		hcbs_seterr(err, errlen, "duration '%s' has an unknown unit '%s': " DURATION_HINT, s, p);
		return -EINVAL;
	}
	if (fdigits > u->digits) {
		hcbs_seterr(err, errlen, "duration '%s' is not a whole number of nanoseconds", s);
		return -EINVAL;
	}
	for (int i = fdigits; i < u->digits; i++)
		fp *= 10;
	if (ip > (UINT64_MAX - fp) / u->ns) {
		hcbs_seterr(err, errlen, "duration '%s' is too large (at most 2^64-1 ns)", s);
		return -ERANGE;
	}
	*ns = ip * u->ns + fp;
	return 0;
}

int hcbs_parse_reservation(const char *s, uint64_t *runtime_ns,
			   uint64_t *period_ns, char *err, size_t errlen)
{
	char buf[128], e[HCBS_ERRLEN];
	const char *slash;
	uint64_t q, p;
	int ret;

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
	ret = hcbs_parse_duration(buf, &q, e, sizeof(e));
	if (!ret)
		ret = hcbs_parse_duration(slash + 1, &p, e, sizeof(e));
	if (ret) {
		hcbs_seterr(err, errlen, "invalid reservation '%s': %s", s, e);
		return ret;
	}
	if (!p) {
		hcbs_seterr(err, errlen, "invalid reservation '%s': the period must be greater than 0", s);
		return -EINVAL;
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
		snprintf(buf, len, "0");
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
