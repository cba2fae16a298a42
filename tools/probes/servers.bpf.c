// SPDX-License-Identifier: GPL-2.0
/*
 * hcbstrace servers: HCBS server activity per (cgroup, CPU), from the
 * sched_hcbs_server_{start,stop,replenish,throttle} tracepoints of the
 * hcbs kernel.  Their arguments are declared here rather than taken from
 * vmlinux.h, so this builds against the BTF of any kernel; user space
 * loads it only where the tracepoints exist.
 *
 * Budget use: every event reports the remaining runtime, so the budget
 * consumed between two events of a server is the drop in runtime.  A
 * change of the absolute deadline closes the server's period.
 */
#include "common.bpf.h"
#include "servers.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SRV_MAX_SERVERS);
	__type(key, struct srv_key);
	__type(value, struct srv_stats);
} servers SEC(".maps");

__u64 drops_servers_full = 0;
static struct srv_stats zero_stats;

static __always_inline void close_period(struct srv_stats *s)
{
	__u64 b = SRV_USE_BUCKETS - 1;

	if (s->dl_runtime)
		b = s->cur_used * (SRV_USE_BUCKETS - 1) / s->dl_runtime;
	if (b > SRV_USE_BUCKETS - 1)
		b = SRV_USE_BUCKETS - 1;
	s->use_hist[b]++;
	s->periods++;
	if (s->cur_used > s->period_used_max)
		s->period_used_max = s->cur_used;
	s->cur_used = 0;
}

static __always_inline int on_server(int ev, __u64 cgid, int cpu, __s64 runtime,
				     __u64 deadline, __u64 dl_runtime, __u64 dl_period)
{
	struct srv_key key = { .cgid = cgid, .cpu = cpu };
	struct srv_stats *s;

	s = map_lookup_or_init(&servers, &key, &zero_stats, &drops_servers_full);
	if (!s)
		return 0;
	/* A server's events happen under its runqueue lock: no atomics. */
	s->dl_runtime = dl_runtime;
	s->dl_period = dl_period;
	if (s->seen) {
		if (runtime < s->last_runtime) {
			__u64 used = s->last_runtime - runtime;

			s->cur_used += used;
			s->used_ns += used;
		}
		if (deadline != s->last_deadline)
			close_period(s);
	} else {
		s->min_runtime = runtime;
	}
	if (runtime < s->min_runtime)
		s->min_runtime = runtime;
	if (ev >= 0 && ev < SRV_NR_EVENTS)
		s->events[ev]++;
	s->last_runtime = runtime;
	s->last_deadline = deadline;
	s->seen = 1;
	return 0;
}

#define SERVER_PROGS(ev, tp)							\
	HCBS_TP_PROGS(tp, tp, on_server(ev, cgid, cpu, runtime, deadline,	\
					 dl_runtime, dl_period),		\
		      __u64 cgid, int cpu, __s64 runtime, __u64 deadline,	\
		      __u64 dl_runtime, __u64 dl_period)

SERVER_PROGS(SRV_START, sched_hcbs_server_start)
SERVER_PROGS(SRV_STOP, sched_hcbs_server_stop)
SERVER_PROGS(SRV_REPLENISH, sched_hcbs_server_replenish)
SERVER_PROGS(SRV_THROTTLE, sched_hcbs_server_throttle)

char LICENSE[] SEC("license") = "GPL";
