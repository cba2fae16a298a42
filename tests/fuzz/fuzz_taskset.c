// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the task-set reader (hcbs_taskset_parse, text and
 * JSON forms), as hcbsctl analyze/set --taskset and the LXC hook read a
 * file.  Properties: no crash, undefined behaviour or leak; an error is a
 * negative errno and one line; an accepted set has 1..HCBS_MAX_TASKS
 * tasks, each with wcet > 0, 0 < deadline <= period and a FIFO
 * priority (1..99) if the set has priorities, and the analysis entry
 * points (utilization, default order, rbf/dbf at a few points, the sbf)
 * run on it without trouble.
 */
#include <errno.h>
#include <inttypes.h>

#include "fuzz.h"
#include "hcbs.h"
#include "hcbs-analysis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), err[HCBS_ERRLEN];
	struct hcbs_taskset ts;
	int ret;

	err[0] = '\0';
	memset(&ts, 0, sizeof(ts));
	ret = hcbs_taskset_parse(s, &ts, err, sizeof(err));
	if (ret) {
		FUZZ_CHECK(ret < 0, "returned %d", ret);
		fuzz_check_err(err, sizeof(err));
	} else {
		FUZZ_CHECK(ts.n > 0 && ts.n <= HCBS_MAX_TASKS, "%d tasks", ts.n);
		for (int i = 0; i < ts.n; i++) {
			const struct hcbs_task *t = &ts.t[i];

			FUZZ_CHECK(t->wcet > 0 && t->deadline > 0 && t->deadline <= t->period &&
				   (!ts.has_prio || (t->prio >= 1 && t->prio <= 99)),
				   "task %d: C %" PRIu64 " T %" PRIu64 " D %" PRIu64, i,
				   t->wcet, t->period, t->deadline);
		}
		enum hcbs_prio_order o = hcbs_default_order(&ts);

		FUZZ_CHECK(hcbs_order_name(o) != NULL, "no name for order %d", (int)o);
		(void)hcbs_utilization(&ts);
		for (int i = 0; i < ts.n && i < 4; i++) {
			(void)hcbs_rbf(&ts, o, i, ts.t[i].deadline);
			(void)hcbs_dbf(&ts, ts.t[i].deadline);
			(void)hcbs_sbf(ts.t[0].wcet, ts.t[0].period, ts.t[i].deadline);
		}
		hcbs_taskset_free(&ts);
	}
	free(s);
	return 0;
}
