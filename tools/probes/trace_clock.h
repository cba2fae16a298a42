/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcbstrace: the clock of a run: when it started, when it ends (--duration,
 * count intervals, SIGINT or SIGTERM), when an interval report is due, and
 * the main loop's wait.
 */
#ifndef HCBSTRACE_TRACE_CLOCK_H
#define HCBSTRACE_TRACE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "bpf_setup.h"
#include "opts.h"

struct ring_buffer;

/* CLOCK_MONOTONIC in ns: the clock of bpf_ktime_get_ns(). */
uint64_t hcbs_now_ns(void);

/* Run-loop bookkeeping shared by the subcommands. */
struct hcbs_clock {
	uint64_t start_ns;
	uint64_t end_ns;	/* 0: no duration */
	uint64_t next_tick_ns;	/* 0: no interval */
	long ticks;
	time_t start_wall;
};
/*
 * Start the clock, catch SIGINT and SIGTERM (they end hcbs_trace_wait()),
 * and say on stderr that tracing has begun.
 */
void hcbs_trace_start(struct hcbs_clock *c, const struct hcbs_opts *o,
		      const struct hcbs_bpf *b);
/*
 * The main loop's wait: 100 ms, polling @rb (if not NULL) for its events.
 * 1: go on; 0: stop, on SIGINT or SIGTERM, or with *@reason set to
 * "duration" or "count" once that is reached; < 0: polling @rb failed.
 */
int hcbs_trace_wait(const struct hcbs_clock *c, const struct hcbs_opts *o,
		    const char **reason, struct ring_buffer *rb);
/* Due for an interval report?  Advances the tick. */
bool hcbs_clock_tick(struct hcbs_clock *c, const struct hcbs_opts *o);

#endif /* HCBSTRACE_TRACE_CLOCK_H */
