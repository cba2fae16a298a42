/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_setattr(2) for the selftests of every suite: glibc 2.36 has
 * neither the wrapper nor struct sched_attr.
 */
#ifndef HCBS_SELFTESTS_SCHED_ATTR_H
#define HCBS_SELFTESTS_SCHED_ATTR_H

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE	6
#endif

/* struct sched_attr, SCHED_ATTR_SIZE_VER0; named ours to avoid libc clashes. */
struct hcbs_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

#ifndef SCHED_FLAG_RECLAIM
#define SCHED_FLAG_RECLAIM	0x02
#endif

/*
 * Give @pid (0: the caller) @policy with sched_flags @flags; the runtime,
 * deadline and period (ns) are for SCHED_DEADLINE, 0 otherwise.  0 or
 * -errno.
 */
static inline int hcbs_sched_setattr_flags(pid_t pid, uint32_t policy, uint64_t flags,
					   uint64_t runtime_ns, uint64_t deadline_ns,
					   uint64_t period_ns)
{
	struct hcbs_sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = policy,
		.sched_flags = flags,
		.sched_runtime = runtime_ns,
		.sched_deadline = deadline_ns,
		.sched_period = period_ns,
	};

	return syscall(SYS_sched_setattr, pid, &attr, 0) ? -errno : 0;
}

static inline int hcbs_sched_setattr(pid_t pid, uint32_t policy, uint64_t runtime_ns,
				     uint64_t deadline_ns, uint64_t period_ns)
{
	return hcbs_sched_setattr_flags(pid, policy, 0, runtime_ns, deadline_ns, period_ns);
}

#endif /* HCBS_SELFTESTS_SCHED_ATTR_H */
