// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the duration grammar (hcbs_parse_duration,
 * hcbs_parse_reservation) and its printer, and the size and pid parsers
 * of the same command lines (hcbs_parse_size, hcbs_parse_pid).
 * Properties: no crash or
 * undefined behaviour; an error is a negative errno with a one-line
 * message, whatever the size of the error buffer (the first byte picks
 * it, so truncation is exercised); what parses prints back to a string
 * that parses to the same value (hcbs_format_duration's "shortest exact
 * form"); an accepted reservation has 0 < period and runtime <= period;
 * an accepted size or pid is all digits (and a suffix) and prints back
 * to its digits; an accepted --overhead (hcbs_parse_overhead) is one form,
 * a percentage within 0-1000 that prints back to itself or a time that
 * hcbs_parse_duration gives the same.
 */
#include <errno.h>
#include <inttypes.h>

#include "fuzz.h"
#include "hcbs.h"
#include "hcbs-analysis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t errlen = size ? (data[0] % 64) + 1 : HCBS_ERRLEN;
	char *s = fuzz_str(data + (size ? 1 : 0), size ? size - 1 : 0);
	char *err = malloc(errlen), buf[64], buf2[64], res[160];
	uint64_t ns, ns2, q, p, q2, p2;
	int ret;

	err[0] = '\0';
	ret = hcbs_parse_duration(s, &ns, err, errlen);
	if (ret) {
		FUZZ_CHECK(ret < 0, "returned %d", ret);
		fuzz_check_err(err, errlen);
	} else {
		hcbs_format_duration(ns, buf, sizeof(buf));
		ret = hcbs_parse_duration(buf, &ns2, NULL, 0);
		FUZZ_CHECK(!ret && ns2 == ns, "'%s' = %" PRIu64 " ns prints as '%s', which parses to %d/%" PRIu64,
			   s, ns, buf, ret, ns2);
	}

	err[0] = '\0';
	ret = hcbs_parse_reservation(s, &q, &p, err, errlen);
	if (ret) {
		FUZZ_CHECK(ret < 0, "returned %d", ret);
		fuzz_check_err(err, errlen);
	} else {
		FUZZ_CHECK(p > 0 && q <= p, "'%s' accepted as %" PRIu64 "/%" PRIu64, s, q, p);
		snprintf(res, sizeof(res), "%s/%s", hcbs_format_duration(q, buf, sizeof(buf)),
			 hcbs_format_duration(p, buf2, sizeof(buf2)));
		ret = hcbs_parse_reservation(res, &q2, &p2, NULL, 0);
		FUZZ_CHECK(!ret && q2 == q && p2 == p, "'%s' prints as '%s', which parses to %d %" PRIu64 "/%" PRIu64,
			   s, res, ret, q2, p2);
	}
	err[0] = '\0';
	ret = hcbs_parse_size(s, &ns, err, errlen);
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL || ret == -ERANGE, "size: returned %d", ret);
		fuzz_check_err(err, errlen);
	} else {
		/* DIGITS[K|M]: the value, shifted back, prints as the digits. */
		size_t d = strspn(s, "0123456789"), z = strspn(s, "0");
		unsigned int sh = !s[d] ? 0 : strchr("Kk", s[d]) ? 10 : 20;

		FUZZ_CHECK(d && d + (sh != 0) == strlen(s), "size '%s' accepted", s);
		snprintf(buf, sizeof(buf), "%" PRIu64, ns >> sh);
		FUZZ_CHECK(z == d ? !strcmp(buf, "0") :
			   strlen(buf) == d - z && !strncmp(buf, s + z, d - z),
			   "size '%s' = %" PRIu64, s, ns);
	}
	err[0] = '\0';
	{
		pid_t pid;

		ret = hcbs_parse_pid(s, &pid, err, errlen);
		if (ret) {
			FUZZ_CHECK(ret == -EINVAL, "pid: returned %d", ret);
			fuzz_check_err(err, errlen);
		} else {
			snprintf(buf, sizeof(buf), "%d", (int)pid);
			FUZZ_CHECK(pid > 0 && !strcmp(buf, s + strspn(s, "0")), "pid '%s' = %d", s, (int)pid);
		}
	}
	err[0] = '\0';
	{
		struct hcbs_overhead ov, ov2;

		ret = hcbs_parse_overhead(s, &ov, err, errlen);
		if (ret) {
			FUZZ_CHECK(ret == -EINVAL, "overhead: returned %d", ret);
			fuzz_check_err(err, errlen);
		} else if (ov.automatic) {
			FUZZ_CHECK(!strcmp(s, "auto") && !ov.per_job && !ov.centi_percent,
				   "overhead '%s' taken as auto", s);
		} else if (ov.centi_percent || (*s && s[strlen(s) - 1] == '%')) {
			FUZZ_CHECK(!ov.per_job && ov.centi_percent <= HCBS_OVERHEAD_MAX_PERCENT * 100,
				   "overhead '%s' = %" PRIu64 " ns and %u", s, ov.per_job,
				   ov.centi_percent);
			snprintf(buf, sizeof(buf), "%u.%02u%%", ov.centi_percent / 100,
				 ov.centi_percent % 100);
			ret = hcbs_parse_overhead(buf, &ov2, NULL, 0);
			FUZZ_CHECK(!ret && ov2.centi_percent == ov.centi_percent,
				   "overhead '%s' prints as '%s', which parses to %d/%u", s, buf, ret,
				   ov2.centi_percent);
		} else {
			ret = hcbs_parse_duration(s, &ns2, NULL, 0);
			FUZZ_CHECK(!ret && ns2 == ov.per_job, "overhead '%s' = %" PRIu64 " ns, as a duration %d/%" PRIu64,
				   s, ov.per_job, ret, ns2);
		}
	}
	/* The printer never writes past a short buffer. */
	if (size >= 9) {
		uint64_t v;
		char *small = malloc(1 + data[1] % 24);

		memcpy(&v, data + 1, sizeof(v));
		hcbs_format_duration(v, small, 1 + data[1] % 24);
		FUZZ_CHECK(strnlen(small, 1 + data[1] % 24) < 1u + data[1] % 24u, "not terminated");
		free(small);
	}
	free(err);
	free(s);
	return 0;
}
