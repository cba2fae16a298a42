# SPDX-License-Identifier: GPL-2.0
# periodic_set_runs GROUP RUNS JOBS TASK...: the deadline check shared by
# test_deadlines.sh and test_unpinned_deadlines.sh.  Each TASK is PRIO or
# PRIO@CPU: a selftests/probes/periodic task of 300 us every 2 ms at
# SCHED_FIFO PRIO (pinned to CPU, if given) in GROUP.  RUNS runs of JOBS
# jobs each, all tasks released together; each run is one TAP line,
# passed when no job of any task missed its deadline (the end of its
# period).  Source after probes_lib.sh.

# periodic_set_start: the TAP header, and a skip where the test cannot run
# (a timing test skips on the host's clock under TCG: KSFT_MACHINE_SLOW)
periodic_set_start() {
	echo "TAP version 13"
	[ -n "${KSFT_MACHINE_SLOW:-}" ] &&
		skip "timing on a slow machine (KSFT_MACHINE_SLOW): the host's clock under TCG; run on the virtual clock"
	[ "$(id -u)" = 0 ] || skip "needs root"
	check "periodic is built ($PERIODIC)" test -x "$PERIODIC" || finish
	grep -qw cpu "$CGROOT/cgroup.subtree_control" || echo +cpu >"$CGROOT/cgroup.subtree_control"
}

periodic_set_runs() {
	local g=$1 runs=$2 jobs=$3 run t prio pin th0 bad missed worst pids logs
	shift 3
	for run in $(seq "$runs"); do
		th0=$(sed -n 's/^nr_throttled //p' "$g/cpu.rt.stat")
		echo $$ >"$g/cgroup.procs"
		pids=() logs=()
		for t in "$@"; do
			prio=${t%@*} pin=()
			[ "$t" = "$prio" ] || pin=(-a "${t#*@}")
			logs+=("$HCBS_TMP/p$prio.$run")
			$PERIODIC -T 2000 -C 300 -n "$jobs" -r "$prio" "${pin[@]}" -N "dl$prio" \
				-l "$HCBS_TMP/p$prio.$run" -w "$HCBS_TMP/go.$run" &
			pids+=($!)
		done
		echo $$ >"$CGROOT/cgroup.procs"
		sleep 0.3
		touch "$HCBS_TMP/go.$run"
		bad=0
		for t in "${pids[@]}"; do wait "$t" || bad=1; done
		if [ $bad != 0 ]; then
			fail "run $run: periodic exited with an error"
			continue
		fi
		missed=$(awk '/^# jobs/ { m += $5 } END { print m + 0 }' "${logs[@]}")
		worst=$(awk '!/^#/ && $5 > w { w = $5 } END { printf "%.3f", w / 1e6 }' "${logs[@]}")
		echo "# run $run: missed $missed of $(($# * jobs)) (by task, FIFO $* in order: $(awk '/^# jobs/ { printf "%s%s", (n++ ? ", " : ""), $5 }' "${logs[@]}")); worst response $worst ms of 2 ms; server throttled $(($(sed -n 's/^nr_throttled //p' "$g/cpu.rt.stat") - th0)) times"
		awk '$6 == 1 { printf "# missed: job %d released at %.6f s, response %.3f ms\n", $1, $2 / 1e9, $5 / 1e6 }' \
			"${logs[@]}" | head -5
		if [ "$missed" = 0 ]; then
			ok "run $run: no deadline missed of $(($# * jobs))"
		else
			fail "run $run: $missed of $(($# * jobs)) deadlines missed"
		fi
	done
}
