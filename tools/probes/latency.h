/* SPDX-License-Identifier: GPL-2.0 */
/* hcbstrace latency: wakeup-to-run latency, shared by BPF and user side. */
#ifndef HCBSTRACE_LATENCY_H
#define HCBSTRACE_LATENCY_H

#include "hcbstrace.h"

/*
 * Tasks woken (or preempted) and not yet back on a CPU, for the raw_tp
 * programs (the tp_btf ones keep this in task storage, without a limit).
 */
#define LAT_MAX_PENDING		16384
/*
 * Histograms: one per container (with a copy per CPU), or one per thread
 * with --threads.
 */
#define LAT_MAX_HISTS		256
#define LAT_MAX_HISTS_THREADS	4096

struct lat_pending {
	__u64 ts;		/* wakeup (or preemption) time */
	__u64 cgid;		/* column key, resolved at wakeup */
};

struct lat_drops {
	__u64 pending_full;	/* wakeup not recorded: no task storage (raw_tp: pending map full) */
	__u64 hists_full;	/* sample lost: histogram map full */
};

/* The first sample over --max-latency. */
struct lat_breach {
	__u64 ns;
	__u64 cgid;
	__u32 tid;
	__u32 pad;
	char comm[HCBS_COMM_LEN];
};

#endif /* HCBSTRACE_LATENCY_H */
