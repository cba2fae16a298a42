// SPDX-License-Identifier: GPL-2.0
/*
 * The stall bookkeeping of the in-guest selftests (selftests/hcbs/
 * hcbs_test.c), on the host: the log, and which stalls explain how much
 * of a job's lateness.  test_hcbs_taskset excuses a deadline miss under
 * TCG only when this says so, so a mistake here would hide a real miss.
 */
#include <stdint.h>

#include "hcbs_test.h"
#include "tap.h"

#define MS (1000 * 1000ULL)

static struct hcbs_stall_log a, b;

static uint64_t explains(uint64_t release, uint64_t done, bool *lost)
{
	const struct hcbs_stall_log *logs[] = { &a, &b };

	*lost = false;
	return hcbs_stall_explains_ns(logs, 2, release, done, 10 * MS, 18 * MS,
				      lost);
}

int main(void)
{
	uint64_t why;
	bool lost;
	int i;

	/* Another task's stall of S: 2S; the server's own: and P per Q in it. */
	tap_ok(hcbs_stall_delay_ns(3 * MS, 10 * MS, 18 * MS) == 6 * MS,
	       "a 3 ms stall under a 10/18 ms server explains 6 ms");
	tap_ok(hcbs_stall_delay_ns(15 * MS, 10 * MS, 18 * MS) == 48 * MS,
	       "a 15 ms stall explains 30 ms and one period: 48 ms");

	why = explains(1000 * MS, 1040 * MS, &lost);
	tap_ok(why == 0 && !lost, "no stall, nothing explained (%llu ns)",
	       (unsigned long long)why);

	/* 4 ms ending at 1010 ms: within the job [1000, 1040]. */
	hcbs_stall_log_add(&a, 1010 * MS, 4 * MS);
	why = explains(1000 * MS, 1040 * MS, &lost);
	tap_ok(why == 8 * MS && !lost, "a stall inside the job explains 8 ms (%llu ns)",
	       (unsigned long long)why);
	/* Its delay (8 ms) reaches from 1010 to 1018 ms: a job from 1017 ms. */
	why = explains(1017 * MS, 1050 * MS, &lost);
	tap_ok(why == 8 * MS, "a stall whose delay reaches past the release explains it (%llu ns)",
	       (unsigned long long)why);
	why = explains(1018 * MS, 1050 * MS, &lost);
	tap_ok(why == 0, "a stall whose delay ended by the release explains nothing (%llu ns)",
	       (unsigned long long)why);
	/* It began at 1006 ms: a job done by then is not its. */
	why = explains(990 * MS, 1006 * MS, &lost);
	tap_ok(why == 0, "a stall that began when the job was done explains nothing (%llu ns)",
	       (unsigned long long)why);
	why = explains(990 * MS, 1007 * MS, &lost);
	tap_ok(why == 8 * MS, "a stall that began before the job was done explains it (%llu ns)",
	       (unsigned long long)why);
	/* A short stall is counted, not logged: budgets' margins cover those. */
	hcbs_stall_log_add(&b, 1020 * MS, HCBS_STALL_LOG_MIN_NS - 1);
	why = explains(1000 * MS, 1040 * MS, &lost);
	tap_ok(why == 8 * MS && a.seen == 1 && a.n == 1 && b.seen == 1 && b.n == 0 &&
	       b.max_ns == HCBS_STALL_LOG_MIN_NS - 1,
	       "a stall shorter than %.0f ms is counted and explains nothing (%llu ns)",
	       HCBS_STALL_LOG_MIN_NS / 1e6, (unsigned long long)why);

	/* Stalls in two logs add up. */
	hcbs_stall_log_add(&b, 1030 * MS, 2 * MS);
	why = explains(1000 * MS, 1040 * MS, &lost);
	tap_ok(why == 12 * MS, "stalls seen by two tasks add up: 12 ms (%llu ns)",
	       (unsigned long long)why);

	/* A full log loses records, and says so. */
	for (i = 2; i <= HCBS_STALL_LOG_LEN; i++)
		hcbs_stall_log_add(&a, 5000 * MS + i * 2 * MS, MS);
	why = explains(1000 * MS, 1040 * MS, &lost);
	tap_ok(a.n == HCBS_STALL_LOG_LEN && !lost && why == 12 * MS,
	       "a log filled to its length loses nothing (%u records)", a.n);
	hcbs_stall_log_add(&a, 9000 * MS, 7 * MS);
	why = explains(1000 * MS, 1040 * MS, &lost);
	tap_ok(a.n == HCBS_STALL_LOG_LEN + 1 && lost && a.max_ns == 7 * MS,
	       "one more stall is counted and its length kept, not its record, and the lookup says records were lost");
	tap_ok(a.rec[HCBS_STALL_LOG_LEN - 1].end_ns == 5000 * MS + HCBS_STALL_LOG_LEN * 2 * MS,
	       "the last kept record is intact");
	return tap_done();
}
