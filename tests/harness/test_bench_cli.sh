#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/bench and scripts/guest/bench refuse bad arguments with one line
# (and a bad --clock of scripts/experiments and scripts/run-tests)
# that says what is accepted, before building or booting anything, and
# --help prints their documentation.
. "$(dirname "$0")/lib.sh"

bench=$HARNESS_ROOT/scripts/bench guest=$HARNESS_ROOT/scripts/guest/bench

# refused CMD... EXPECTED-REGEX: exit non-zero, exactly one line matching
refused() {
	local want=${*: -1} out=$HARNESS_TMP/out
	if "${@:1:$#-1}" >"$out" 2>&1; then
		fail "$(basename "$1") ${*:2:$#-2}: accepted"
	fi
	[ "$(wc -l <"$out")" = 1 ] || fail "$(basename "$1") ${*:2:$#-2}: not one line: $(cat "$out")"
	grep -qE -- "$want" "$out" || fail "$(basename "$1") ${*:2:$#-2}: '$(cat "$out")' does not match '$want'"
	diag "$(basename "$1") ${*:2:$#-2}: $(cat "$out")"
}

refused "$bench" --rounds 0 "--rounds '0': accepted: a number from 1"
refused "$bench" --rounds x "--rounds 'x': accepted"
refused "$bench" --accel qemu "--accel 'qemu': accepted: kvm, tcg, auto"
refused "$bench" --clock wall "--clock 'wall': accepted: auto, virtual, host"
refused "$HARNESS_ROOT/scripts/experiments" --clock wall "--clock 'wall': accepted: auto, virtual, host"
refused "$HARNESS_ROOT/scripts/run-tests" --clock wall "--clock/HCBS_CLOCK 'wall' is not auto, virtual or host"
refused "$bench" --only pipe,nope "unknown benchmark 'nope' \(accepted: pipe, jobcost, hackbench, admin, scale, latency, vran, accuracy, balance, wakes\)"
refused "$bench" --cpus 1 "--cpus '1': accepted: a number from 2"
refused "$bench" --cpus x "--cpus 'x': accepted: a number from 2"
refused "$bench" --bogus "unknown option '--bogus' \(accepted: .*--clock C, --cpus N, .*--nodebug, --irqtime; see --help\)"
refused env HCBS_BUILD="$HARNESS_TMP/nobuild" "$bench" --only pipe,jobcost "jobcost needs $HARNESS_TMP/nobuild/selftests/probes/periodic, which is not built \(meson setup .* or leave jobcost out with --only\)"
refused env HCBS_BUILD="$HARNESS_TMP/nobuild" "$bench" "jobcost needs .*periodic, which is not built"
refused "$guest" --out /dev/null --only nope "unknown benchmark 'nope'"
refused "$guest" --only pipe "--out FILE is required"
refused "$guest" --bogus "unknown option '--bogus'"
"$bench" --help | grep -q '^Usage: scripts/bench' || fail "bench --help"
"$bench" --help | grep -q 'CONFIG_IRQ_TIME_ACCOUNTING' || fail "bench --help: no --irqtime"
[ "$(sed -n 's/^CONFIG_IRQ_TIME_ACCOUNTING=//p' "$HARNESS_ROOT/configs/irqtime.config")" = y ] ||
	fail "configs/irqtime.config does not set CONFIG_IRQ_TIME_ACCOUNTING=y"
"$guest" --help | grep -q '^Usage: scripts/guest/bench' || fail "guest/bench --help"
diag "--help: ok"
exit 0
