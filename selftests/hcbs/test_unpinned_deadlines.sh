#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Deadlines of periodic FIFO tasks under global fixed priority inside a
# reservation: four unpinned tasks of 300 us every 2 ms (FIFO 50 to 47) in
# a group at 1.2/2 ms on two CPUs, beside 16 idle reserved groups (100 us
# every 100 ms), 0.6 of demand in 1.2 of reservation, two runs of 2500 jobs
# each in one boot.  No job may miss its deadline (the end of its period).
# The tasks are selftests/probes/periodic, which logs every job.
#
# A timing test: it asserts 0 misses on the virtual clock and on hardware
# (KVM); on the host's clock under TCG (KSFT_MACHINE_SLOW) it skips.  The
# virtual clock's QEMU bounds a vCPU's turn (scripts/build-qemu); on stock
# QEMU an idle vCPU beside a busy one took wake-ups milliseconds late, and
# this set missed 1-2 of 10 000 jobs in half the runs from that alone.
set -u
. "$(dirname "$0")/../probes/probes_lib.sh"
. "$(dirname "$0")/periodic_set.sh"
G=$CGROOT/hcbs-unpinned RUNS=2 JOBS=2500 PRIOS="50 49 48 47"

periodic_set_start
for i in $(seq 16); do
	mkdir $CGROOT/hcbs-unpinned-idle$i && cgroups+=("$CGROOT/hcbs-unpinned-idle$i")
	echo "100 100000" >$CGROOT/hcbs-unpinned-idle$i/cpu.rt.max || { fail "idle group $i at 100 us / 100 ms"; finish; }
done
mkdir $G && cgroups+=("$G")
check "group at 1.2/2 ms on every CPU" sh -c "echo '1200 2000' >$G/cpu.rt.max" || finish

periodic_set_runs "$G" $RUNS $JOBS $PRIOS
finish
