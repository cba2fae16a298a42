/* SPDX-License-Identifier: GPL-2.0 */
/* hcbstrace lateness: per-job events, shared by BPF and user side. */
#ifndef HCBSTRACE_LATENESS_H
#define HCBSTRACE_LATENESS_H

#include "hcbstrace.h"

/*
 * Periodic threads followed at once by the raw_tp programs (the tp_btf
 * ones keep their state in task storage, without a limit).
 */
#define JOB_MAX_THREADS		8192
/* Default ring buffer for job events (a power of two, in bytes). */
#define JOB_RINGBUF_SIZE	(1 << 20)

enum job_release_src {
	JOB_REL_TIMER = 0,	/* expiry of the thread's sleep hrtimer */
	JOB_REL_WAKEUP = 1,	/* no timer: the wake-up time */
};

enum job_flags {
	/* The thread never left the CPU between jobs: it overran, so its
	 * next release was already past when it went to sleep. */
	JOB_F_NO_SWITCH = 1 << 0,
};

struct job_event {
	__u64 cgid;
	__u64 release;		/* CLOCK_MONOTONIC ns */
	__u64 wakeup;
	__u64 start;		/* first switch-in after release */
	__u64 end;		/* completion: blocked at the end of the job */
	__u64 sleep;		/* when it armed its next timer (0: none) */
	__u64 run_ns;		/* on-CPU time of the job */
	__u32 pid;
	__u32 tid;
	__u32 preemptions;	/* switched out while runnable */
	__u16 cpu;		/* CPU it completed on */
	__u8 release_src;	/* enum job_release_src */
	__u8 flags;		/* enum job_flags */
	char comm[HCBS_COMM_LEN];
};

struct job_drops {
	__u64 threads_full;	/* thread not followed: no task storage (raw_tp: state map full) */
	__u64 ringbuf_full;	/* job lost: ring buffer full */
	__u64 wakeups_missed;	/* switched in after its timer, no wakeup seen: recovered */
	__u64 jobs_unseen;	/* neither its wakeup nor its switch-in seen: lost */
};

#endif /* HCBSTRACE_LATENESS_H */
