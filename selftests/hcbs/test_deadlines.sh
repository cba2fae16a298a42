#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Deadlines of periodic FIFO tasks well inside a reservation: two tasks of
# 300 us every 2 ms (FIFO 50 and 49) pinned to CPU 0 in a group at
# 1.2/2 ms, 0.3 of demand in a 0.6 reservation, three runs of 2500 jobs
# each in one boot.  No job may miss its deadline (the end of its period)
# in any run, the first included.  The tasks are selftests/probes/periodic,
# which logs every job's release and end.
#
# A timing test: it asserts 0 misses on the virtual clock and on hardware
# (KVM); on the host's clock under TCG (KSFT_MACHINE_SLOW) the host's
# preemption of a vCPU becomes lateness, and the test skips.
set -u
. "$(dirname "$0")/../probes/probes_lib.sh"
. "$(dirname "$0")/periodic_set.sh"
G=$CGROOT/hcbs-deadlines RUNS=3 JOBS=2500

periodic_set_start
mkdir $G && cgroups+=("$G")
check "group at 1.2/2 ms" sh -c "echo '1200 2000' >$G/cpu.rt.max" || finish

periodic_set_runs "$G" $RUNS $JOBS 50@0 49@0
finish
