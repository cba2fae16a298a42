/* SPDX-License-Identifier: GPL-2.0 */
/* hcbstrace servers: HCBS server statistics, shared by BPF and user side. */
#ifndef HCBSTRACE_SERVERS_H
#define HCBSTRACE_SERVERS_H

#include "hcbstrace.h"

/* One server per (cgroup, CPU). */
#define SRV_MAX_SERVERS		4096
/* Budget used per period, in 5% steps of Q; the last bucket is >= 100%. */
#define SRV_USE_BUCKETS		21

enum srv_event {
	SRV_START, SRV_STOP, SRV_REPLENISH, SRV_THROTTLE, SRV_NR_EVENTS
};

struct srv_key {
	__u64 cgid;
	__u32 cpu;
	__u32 pad;
};

struct srv_stats {
	__u64 events[SRV_NR_EVENTS];
	__u64 used_ns;		/* budget consumed, summed over periods */
	__u64 periods;		/* periods (deadlines) the server was active in */
	__u64 period_used_max;	/* most budget used in one period */
	__u64 dl_runtime;	/* Q, as last reported */
	__u64 dl_period;	/* P, as last reported */
	__s64 min_runtime;	/* lowest remaining budget seen (< 0: overrun) */
	/* state between events, not statistics */
	__s64 last_runtime;
	__u64 last_deadline;
	__u64 cur_used;
	__u32 seen;
	__u32 use_hist[SRV_USE_BUCKETS];
};

#endif /* HCBSTRACE_SERVERS_H */
