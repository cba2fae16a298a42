// SPDX-License-Identifier: GPL-2.0
/*
 * Durations and reservations: table tests, then a fuzz test that feeds
 * random and mutated strings to the parser and to an independent reference
 * (128-bit arithmetic on the whole decimal, no digit-by-digit overflow
 * checks) and requires the same answer, and round trips through
 * hcbs_format_duration().
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "hcbs.h"
#include "tap.h"

typedef unsigned __int128 u128;

#define MAX_NS (8760ULL * 3600 * 1000000000)	/* the documented bound, 8760h */

/*
 * Reference: accept iff <digits>[.<digits>]<unit>, exact ns, at most
 * 8760h: the whole decimal times the unit in 128 bits, exactness by
 * remainder (no gcd tricks, no digit-by-digit overflow checks).
 */
static bool ref_parse(const char *s, uint64_t *out)
{
	static const struct { const char *u; int exp; u128 mul; } units[] = {
		{ "ns", 0, 1 }, { "us", 3, 1 }, { "\xc2\xb5s", 3, 1 }, { "\xce\xbcs", 3, 1 },
		{ "ms", 6, 1 },
		{ "s", 9, 1 }, { "m", 9, 60 }, { "h", 9, 3600 },
	};
	u128 mul = 1;
	const char *p = s, *ip, *fp = NULL;
	size_t il, fl = 0;
	int exp = -1;

	ip = p;
	while (*p >= '0' && *p <= '9')
		p++;
	il = (size_t)(p - ip);
	if (*p == '.') {
		fp = ++p;
		while (*p >= '0' && *p <= '9')
			p++;
		fl = (size_t)(p - fp);
		if (!fl || !il)
			return false;
	}
	if (!il)
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(p, units[i].u))
			exp = units[i].exp, mul = units[i].mul;
	if (exp < 0)
		return false;
	/* Strip leading zeros of the integer part, trailing of the fraction. */
	while (il > 1 && *ip == '0')
		ip++, il--;
	while (fl && fp[fl - 1] == '0')
		fl--;
	if (il > 20 || fl > 20)
		return false;
	u128 v = 0, scale = 1;

	for (size_t i = 0; i < il; i++)
		v = v * 10 + (u128)(ip[i] - '0');
	for (size_t i = 0; i < fl; i++)
		v = v * 10 + (u128)(fp[i] - '0'), scale *= 10;
	/* v / scale units of 10^exp * mul ns */
	v *= mul;
	for (int i = 0; i < exp; i++)
		v *= 10;
	if (v % scale)
		return false;
	v /= scale;
	if (v > MAX_NS)
		return false;
	*out = (uint64_t)v;
	return true;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void table(void)
{
	static const struct { const char *s; int ret; uint64_t ns; } cases[] = {
		{ "8ms", 0, 8000000 },
		{ "500us", 0, 500000 },
		{ "1.5ms", 0, 1500000 },
		{ "2s", 0, 2000000000 },
		{ "250000ns", 0, 250000 },
		{ "0ns", 0, 0 },
		{ "0.000000001s", 0, 1 },
		{ "1.0000000000000s", 0, 1000000000 },	/* trailing zeros are fine */
		{ "31536000000000000ns", 0, MAX_NS },		/* the bound */
		{ "31536000s", 0, MAX_NS },
		{ "8760h", 0, MAX_NS },
		{ "525600m", 0, MAX_NS },
		{ "1.5\xc2\xb5s", 0, 1500 },		/* U+00B5 MICRO SIGN */
		{ "8\xce\xbcs", 0, 8000 },		/* U+03BC GREEK SMALL LETTER MU */
		{ "8\xce\xbc", -EINVAL, 0 },		/* mu without the s */
		{ "8\xcd\xbcs", -EINVAL, 0 },		/* U+037C, a neighbour */
		{ "8\xbcs", -EINVAL, 0 },		/* half of the mu */
		{ "2m", 0, 120000000000ULL },
		{ "1.5h", 0, 5400000000000ULL },
		{ "0.000000000005h", 0, 18 },			/* 5e-12 h = 18 ns */
		{ "0.000000000001h", -EINVAL, 0 },		/* 3.6 ns */
		{ "1.0000001m", 0, 60000006000ULL },
		{ "31536000000000001ns", -ERANGE, 0 },	/* one past */
		{ "8760.000001h", -ERANGE, 0 },
		{ "18446744073709551615ns", -ERANGE, 0 },	/* the hostile inputs */
		{ "18446744073709551616ns", -ERANGE, 0 },
		{ "99999999999999999999999999h", -ERANGE, 0 },
		{ "18446744074s", -ERANGE, 0 },
		{ "0.0000000001", -EINVAL, 0 },
		{ "10", -EINVAL, 0 },
		{ "0x2", -EINVAL, 0 },
		{ "1e1", -EINVAL, 0 },
		{ "1e1s", -EINVAL, 0 },
		{ "inf", -EINVAL, 0 },
		{ "nans", -EINVAL, 0 },
		{ "0.1ns", -EINVAL, 0 },
		{ "0.00000000001m", -EINVAL, 0 },		/* 0.6 ns */
		{ "1.5ns", -EINVAL, 0 },			/* not whole ns */
		{ "0.0000000001s", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "8", -EINVAL, 0 },				/* unit is mandatory */
		{ "ms", -EINVAL, 0 },
		{ "8 ms", -EINVAL, 0 },
		{ " 8ms", -EINVAL, 0 },
		{ "8ms ", -EINVAL, 0 },
		{ "-8ms", -EINVAL, 0 },
		{ "+8ms", -EINVAL, 0 },
		{ "8MS", -EINVAL, 0 },
		{ "8min", -EINVAL, 0 },
		{ "8H", -EINVAL, 0 },
		{ "8d", -EINVAL, 0 },
		{ ".5ms", -EINVAL, 0 },
		{ "5.ms", -EINVAL, 0 },
		{ "1e3us", -EINVAL, 0 },
		{ "0x10ms", -EINVAL, 0 },
		{ "8ms8", -EINVAL, 0 },
	};
	char err[HCBS_ERRLEN];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t ns = 12345;
		int ret = hcbs_parse_duration(cases[i].s, &ns, err, sizeof(err));

		if (cases[i].ret == 0)
			tap_ok(ret == 0 && ns == cases[i].ns, "duration '%s' = %llu ns",
			       cases[i].s, (unsigned long long)cases[i].ns);
		else
			tap_ok(ret == cases[i].ret && ns == 12345 && err[0] && !strchr(err, '\n'),
			       "duration '%s' rejected (%d): %s", cases[i].s, cases[i].ret, err);
	}
	tap_ok(hcbs_parse_duration(NULL, &(uint64_t){0}, err, sizeof(err)) == -EINVAL,
	       "NULL duration rejected");
	tap_ok(hcbs_parse_duration("x", &(uint64_t){0}, NULL, 0) == -EINVAL,
	       "no error buffer is fine");
}

static void reservations(void)
{
	static const struct { const char *s; int ok; uint64_t q, p; } cases[] = {
		{ "8ms/18ms", 1, 8000000, 18000000 },
		{ "8000us/18ms", 1, 8000000, 18000000 },
		{ "0ms/10ms", 1, 0, 10000000 },		/* 0 forbids RT: accepted */
		{ "10ms/10ms", 1, 10000000, 10000000 },
		{ "11ms/10ms", 0, 0, 0 },		/* runtime > period */
		{ "1ms/0ms", 0, 0, 0 },			/* zero period */
		{ "8ms", 0, 0, 0 },
		{ "8ms/", 0, 0, 0 },
		{ "/18ms", 0, 0, 0 },
		{ "8ms/18ms/1ms", 0, 0, 0 },
		{ "8/18", 0, 0, 0 },
		{ "8ms 18ms", 0, 0, 0 },
		{ "8.5us/18ms", 0, 0, 0 },		/* whole us, as the kernel takes */
		{ "8ms/18000001ns", 0, 0, 0 },
		{ "-8ms/18ms", 0, 0, 0 },
		{ "0/18ms", 0, 0, 0 },			/* "0" has no unit */
		{ "0ns/18ms", 1, 0, 18000000 },
		{ "1h/8760h", 1, 3600000000000ULL, MAX_NS },
		{ "1ms/8761h", 0, 0, 0 },
	};
	char err[HCBS_ERRLEN];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t q = 1, p = 1;
		int ret = hcbs_parse_reservation(cases[i].s, &q, &p, err, sizeof(err));

		if (cases[i].ok)
			tap_ok(!ret && q == cases[i].q && p == cases[i].p, "reservation '%s'", cases[i].s);
		else
			tap_ok(ret && q == 1 && p == 1 && err[0], "reservation '%s' rejected: %s",
			       cases[i].s, err);
	}
	/* Issue 39: "max" as a runtime points to hcbsctl unset. */
	for (size_t i = 0; i < 3; i++) {
		static const char *const max[] = { "max/18ms", "max", "max/" };
		uint64_t q = 1, p = 1;
		int ret = hcbs_parse_reservation(max[i], &q, &p, err, sizeof(err));

		tap_ok(ret == -EINVAL && q == 1 && strstr(err, "use hcbsctl unset NAME"),
		       "reservation '%s': %s", max[i], err);
	}
	tap_ok(hcbs_parse_reservation("maximum/18ms", &(uint64_t){ 0 }, &(uint64_t){ 0 }, err,
				      sizeof(err)) && !strstr(err, "unset"),
	       "'maximum/18ms' is only an invalid duration: %s", err);
}

static void flags(void)
{
	char err[HCBS_ERRLEN];
	uint64_t v = 7;

	tap_ok(hcbs_parse_duration_flags("0s", HCBS_DUR_NONZERO, &v, err, sizeof(err)) == -EINVAL &&
	       v == 7 && strstr(err, "more than 0"), "NONZERO refuses 0s: %s", err);
	tap_ok(!hcbs_parse_duration_flags("0s", 0, &v, err, sizeof(err)) && v == 0,
	       "without NONZERO 0s is 0");
	tap_ok(hcbs_parse_duration_flags("1500ns", HCBS_DUR_WHOLE_US, &v, err, sizeof(err)) == -EINVAL &&
	       strstr(err, "whole number of microseconds"), "WHOLE_US refuses 1500ns: %s", err);
	tap_ok(!hcbs_parse_duration_flags("1.5ms", HCBS_DUR_WHOLE_US, &v, err, sizeof(err)) &&
	       v == 1500000, "WHOLE_US takes 1.5ms");
	tap_ok(!hcbs_check_duration(MAX_NS, 0, err, sizeof(err)) &&
	       hcbs_check_duration(MAX_NS + 1, 0, err, sizeof(err)) == -ERANGE &&
	       hcbs_check_duration(UINT64_MAX, 0, err, sizeof(err)) == -ERANGE &&
	       hcbs_check_duration(0, HCBS_DUR_NONZERO, err, sizeof(err)) == -EINVAL &&
	       hcbs_check_duration(1001, HCBS_DUR_WHOLE_US, err, sizeof(err)) == -EINVAL,
	       "check_duration: the same bound and flags for values in ns (JSON)");
}

/*
 * The tick arithmetic of hcbstrace's interval reports, against a loop
 * that steps one tick at a time in 128 bits (the issue: a wrapped
 * "next += interval" loop that never ended).
 */
static void ticks(void)
{
	uint64_t k = 0, n;
	int bad = 0;

	n = hcbs_tick_advance(100, 10, 99, &k);
	tap_ok(n == 100 && k == 0, "tick not due yet: unchanged");
	n = hcbs_tick_advance(100, 10, 100, &k);
	tap_ok(n == 110 && k == 1, "tick due at its time: one, next at +interval");
	n = hcbs_tick_advance(100, 10, 135, &k);
	tap_ok(n == 140 && k == 4, "missed ticks counted at once (4), next after now");
	n = hcbs_tick_advance(1, UINT64_MAX, 5, &k);
	tap_ok(n == UINT64_MAX && k == 1, "interval 2^64-1: saturates, never wraps");
	n = hcbs_tick_advance(UINT64_MAX - 5, 10, UINT64_MAX, &k);
	tap_ok(n == UINT64_MAX && k == 1, "next near 2^64: saturates");
	n = hcbs_tick_advance(0, 0, 1000, &k);
	tap_ok(n == 0 && k == 0, "no interval: never due");
	for (int it = 0; it < 20000; it++) {
		uint64_t next = rnd() >> (rnd() % 64), iv = 1 + (rnd() >> (rnd() % 64 | 32));
		uint64_t now = next + (rnd() >> (rnd() % 64 | 40)), got, gk;
		u128 ref = next, rk = 0;

		if (now < next)
			continue;
		while (ref <= now)
			ref += iv, rk++;
		got = hcbs_tick_advance(next, iv, now, &gk);
		if (gk != (uint64_t)rk || got != (ref > UINT64_MAX ? UINT64_MAX : (uint64_t)ref))
			bad++;
	}
	tap_ok(!bad, "tick_advance agrees with a one-tick-at-a-time loop on 20000 random cases");
	tap_ok(hcbs_add_sat(UINT64_MAX, 1) == UINT64_MAX && hcbs_add_sat(2, 3) == 5 &&
	       hcbs_mul_sat(1ULL << 32, 1ULL << 32) == UINT64_MAX && hcbs_mul_sat(0, UINT64_MAX) == 0,
	       "saturating add and multiply");
}

static void formatting(void)
{
	static const struct { uint64_t ns; const char *s; } cases[] = {
		{ 0, "0ns" }, { 8000000, "8ms" }, { 1500, "1500ns" }, { 1500000, "1500us" },
		{ 2000000000, "2s" }, { 18000000, "18ms" }, { 1, "1ns" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tap_ok(!strcmp(hcbs_format_duration(cases[i].ns, buf, sizeof(buf)), cases[i].s),
		       "format %llu ns = %s", (unsigned long long)cases[i].ns, cases[i].s);
}

static void fuzz(void)
{
	static const char *alphabet[] = {
		"0", "1", "5", "9", ".", "n", "s", "u", "m", "\xc2\xb5", "\xb5", "\xce\xbc", "\xbc", "/", "-",
		"+", " ", "e", "x", "00000000000", "99999999999", "ms", "us", "ns",
		"h", "m", "36", "0000", "000000000001",
	};
	static const char *seeds[] = {
		"8ms", "1.5ms", "18446744073709551615ns", "0.000000001s", "250000ns",
		"4.294967296s", "1.000000000000000000000ms", "31536000s", "8760h",
		"1.5m", "0.25h", "525600m",
	};
	const int iters = 200000;
	int mismatches = 0, accepted = 0;
	char buf[96], err[HCBS_ERRLEN];

	for (int it = 0; it < iters; it++) {
		uint64_t a = 0, b = 0;
		bool ra;
		int rb;

		if (it % 2) {
			/* random concatenation */
			int n = (int)(rnd() % 8) + 1;

			buf[0] = '\0';
			for (int k = 0; k < n; k++)
				strncat(buf, alphabet[rnd() % (sizeof(alphabet) / sizeof(*alphabet))],
					sizeof(buf) - strlen(buf) - 1);
		} else {
			/* mutate a valid seed: replace, insert or delete one byte */
			size_t l;

			snprintf(buf, sizeof(buf), "%s", seeds[rnd() % (sizeof(seeds) / sizeof(*seeds))]);
			l = strlen(buf);
			switch (rnd() % 3) {
			case 0:
				buf[rnd() % l] = (char)("0123456789.nsum/ -"[rnd() % 18]);
				break;
			case 1:
				if (l + 1 < sizeof(buf)) {
					size_t at = rnd() % (l + 1);

					memmove(buf + at + 1, buf + at, l - at + 1);
					buf[at] = (char)("0123456789.nsum"[rnd() % 15]);
				}
				break;
			default:
				memmove(buf + rnd() % l, buf + rnd() % l + 1, 0);
				buf[rnd() % l] = buf[l - 1];
				buf[l - 1] = '\0';
			}
		}
		ra = ref_parse(buf, &a);
		rb = hcbs_parse_duration(buf, &b, err, sizeof(err));
		if (ra != (rb == 0) || (ra && a != b)) {
			if (mismatches++ < 5)
				tap_diag("mismatch on '%s': reference %s %llu, parser %d %llu", buf,
					 ra ? "accepts" : "rejects", (unsigned long long)a, rb,
					 (unsigned long long)b);
		}
		accepted += ra;
		if (!rb) {
			/* round trip: the formatted value parses back to itself */
			char f[32];
			uint64_t c = 0;

			hcbs_format_duration(b, f, sizeof(f));
			if (hcbs_parse_duration(f, &c, NULL, 0) || c != b)
				mismatches++;
		}
	}
	tap_diag("fuzz: %d inputs, %d valid", iters, accepted);
	tap_ok(mismatches == 0 && accepted > 1000,
	       "fuzz: parser agrees with the reference on %d random/mutated inputs", iters);

	/* Random values: format -> parse round trip. */
	int bad = 0;

	for (int it = 0; it < 100000; it++) {
		uint64_t v = (rnd() >> (rnd() % 64)) % (MAX_NS + 1), w = 0;
		char f[32];

		hcbs_format_duration(v, f, sizeof(f));
		if (hcbs_parse_duration(f, &w, NULL, 0) || w != v)
			bad++;
	}
	tap_ok(bad == 0, "format/parse round trip on 100000 random values");
}

int main(void)
{
	table();
	reservations();
	flags();
	ticks();
	formatting();
	fuzz();
	return tap_done();
}
