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
G=$CGROOT/hcbs-deadlines RUNS=3 JOBS=2500

echo "TAP version 13"
[ -n "${KSFT_MACHINE_SLOW:-}" ] &&
	skip "timing on a slow machine (KSFT_MACHINE_SLOW): the host's clock under TCG; run on the virtual clock"
[ "$(id -u)" = 0 ] || skip "needs root"
check "periodic is built ($PERIODIC)" test -x "$PERIODIC" || finish
grep -qw cpu $CGROOT/cgroup.subtree_control || echo +cpu >$CGROOT/cgroup.subtree_control
mkdir $G && cgroups+=("$G")
check "group at 1.2/2 ms" sh -c "echo '1200 2000' >$G/cpu.rt.max" || finish

stat() { sed -n "s/^$1 //p" $G/cpu.rt.stat; }
for run in $(seq $RUNS); do
	th0=$(stat nr_throttled)
	echo $$ >$G/cgroup.procs
	$PERIODIC -T 2000 -C 300 -n $JOBS -r 50 -a 0 -N dl-a -l "$HCBS_TMP/a.$run" -w "$HCBS_TMP/go.$run" & a=$!
	$PERIODIC -T 2000 -C 300 -n $JOBS -r 49 -a 0 -N dl-b -l "$HCBS_TMP/b.$run" -w "$HCBS_TMP/go.$run" & b=$!
	echo $$ >$CGROOT/cgroup.procs
	sleep 0.2
	touch "$HCBS_TMP/go.$run"
	wait $a; ra=$?
	wait $b; rb=$?
	if [ $ra != 0 ] || [ $rb != 0 ]; then
		fail "run $run: periodic exited $ra and $rb"
		continue
	fi
	ma=$(awk '/^# jobs/ { print $5 }' "$HCBS_TMP/a.$run") mb=$(awk '/^# jobs/ { print $5 }' "$HCBS_TMP/b.$run")
	worst=$(awk '!/^#/ && $5 > w { w = $5 } END { printf "%.3f", w / 1e6 }' "$HCBS_TMP/a.$run" "$HCBS_TMP/b.$run")
	echo "# run $run: FIFO 50 missed $ma of $JOBS, FIFO 49 missed $mb of $JOBS; worst response $worst ms of 2 ms; server throttled $(($(stat nr_throttled) - th0)) times"
	awk '$6 == 1 { printf "# missed: job %d released at %.6f s, response %.3f ms\n", $1, $2 / 1e9, $5 / 1e6 }' \
		"$HCBS_TMP/a.$run" "$HCBS_TMP/b.$run" | head -5
	if [ "$ma" = 0 ] && [ "$mb" = 0 ]; then
		ok "run $run: no deadline missed of $((2 * JOBS))"
	else
		fail "run $run: $((ma + mb)) of $((2 * JOBS)) deadlines missed"
	fi
done
finish
