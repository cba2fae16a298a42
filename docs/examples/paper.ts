# The task set of the HCBS paper, Section IV (Abeni et al., "Container-based
# real-time scheduling in the Linux kernel"): WCET and period, deadlines equal
# to periods, rate-monotonic priorities.  U = 0.40; at P = 18 ms the least
# runtime under fixed priorities is 7955us (hcbsctl analyze paper.ts --period 18ms).
# WCET    PERIOD
4879us    30ms
561us     36ms
10427us   104ms
4408us    109ms
20271us   250ms
