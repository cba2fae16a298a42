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

/* Reference: accept iff <digits>[.<digits>]<unit>, exact ns, fits 64 bits. */
static bool ref_parse(const char *s, uint64_t *out)
{
	static const struct { const char *u; int exp; } units[] = {
		{ "ns", 0 }, { "us", 3 }, { "\xc2\xb5s", 3 }, { "ms", 6 }, { "s", 9 },
	};
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
			exp = units[i].exp;
	if (exp < 0)
		return false;
	/* Strip leading zeros of the integer part, trailing of the fraction. */
	while (il > 1 && *ip == '0')
		ip++, il--;
	while (fl && fp[fl - 1] == '0')
		fl--;
	if ((int)fl > exp || il > 20)
		return false;
	u128 v = 0;

	for (size_t i = 0; i < il; i++)
		v = v * 10 + (u128)(ip[i] - '0');
	for (size_t i = 0; i < fl; i++)
		v = v * 10 + (u128)(fp[i] - '0');
	for (int i = (int)fl; i < exp; i++)
		v *= 10;
	if (v > UINT64_MAX)
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
		{ "18446744073709551615ns", 0, UINT64_MAX },
		{ "18446744073.709551615s", 0, UINT64_MAX },
		{ "1.5\xc2\xb5s", 0, 1500 },
		{ "18446744073709551616ns", -ERANGE, 0 },
		{ "18446744074s", -ERANGE, 0 },
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
}

static void formatting(void)
{
	static const struct { uint64_t ns; const char *s; } cases[] = {
		{ 0, "0" }, { 8000000, "8ms" }, { 1500, "1500ns" }, { 1500000, "1500us" },
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
		"0", "1", "5", "9", ".", "n", "s", "u", "m", "\xc2\xb5", "\xb5", "/", "-",
		"+", " ", "e", "x", "00000000000", "99999999999", "ms", "us", "ns",
	};
	static const char *seeds[] = {
		"8ms", "1.5ms", "18446744073709551615ns", "0.000000001s", "250000ns",
		"4.294967296s", "1.000000000000000000000ms", "18446744073.709551615s",
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
			if (b && (hcbs_parse_duration(f, &c, NULL, 0) || c != b))
				mismatches++;
		}
	}
	tap_diag("fuzz: %d inputs, %d valid", iters, accepted);
	tap_ok(mismatches == 0 && accepted > 1000,
	       "fuzz: parser agrees with the reference on %d random/mutated inputs", iters);

	/* Random values: format -> parse round trip. */
	int bad = 0;

	for (int it = 0; it < 100000; it++) {
		uint64_t v = rnd() >> (rnd() % 64), w = 0;
		char f[32];

		if (!v)
			continue;
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
	formatting();
	fuzz();
	return tap_done();
}
