/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcbstrace: definitions shared by the BPF programs and the user side.
 *
 * Everything in here must compile both as BPF C (with vmlinux.h) and as
 * ordinary C (with <stdint.h>), so it uses only the __u* types.
 */
#ifndef HCBSTRACE_H
#define HCBSTRACE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define HCBS_COMM_LEN		16
/* --cgroup / --container may be given this many times. */
#define HCBS_MAX_CGROUPS	8

/*
 * Latency histograms are log-linear in nanoseconds: values below 16 ns get
 * one slot each, every power of two above is split into 16 slots, so a slot
 * is at most 1/16 (6.25%) of its lower bound wide.  The last slot collects
 * everything from 2^36 ns (about 69 s) up.
 */
#define HCBS_SUB_BITS		4
#define HCBS_SUB		(1 << HCBS_SUB_BITS)
#define HCBS_MAX_MSB		35
#define HCBS_NSLOTS		((HCBS_MAX_MSB - HCBS_SUB_BITS + 2) * HCBS_SUB)

/*
 * A latency histogram as the BPF side keeps it.  Per container there is
 * one copy per CPU; a copy with count 0 is empty, whatever its min_ns.
 * Its size is a multiple of 8, as the copies of a per-CPU map value are
 * laid out in user space.
 */
struct hcbs_hist {
	__u64 count;
	__u64 sum_ns;
	__u64 min_ns;
	__u64 max_ns;
	__u32 max_tid;		/* the thread that saw max_ns */
	__u32 pad;
	char comm[HCBS_COMM_LEN];	/* per-thread keys only */
	__u32 slots[HCBS_NSLOTS];
};

/* The column a task is counted in: its container (cgroup) and thread. */
struct hcbs_key {
	__u64 cgid;		/* cgroup id = inode of the cgroup directory */
	__u32 tid;		/* 0 unless per-thread */
	__u32 pad;
};

#endif /* HCBSTRACE_H */
