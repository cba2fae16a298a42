#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The virtual clock's QEMU (scripts/build-qemu, qemu-patches/) bounds how
# long one vCPU runs while the others wait.  One boot on the virtual
# clock: cyclictest (FIFO 95, 1 ms period, 2000 wake-ups) on CPU 1 while a
# SCHED_OTHER busy loop holds CPU 0; then a pipe ping-pong between two
# FIFO tasks, one on each CPU, with a SCHED_OTHER busy loop on both: every
# wake-up is an IPI from a vCPU that goes on running its loop.  With turns
# of at most 10 us (and an IPI ending the sender's) the wake-ups beside the
# busy CPU average under 100 us and none takes 1 ms, and a round trip
# averages under 200 us; stock QEMU 7.2 (a turn lasts to the next timer
# deadline) averaged 0.7-1.5 ms with single wake-ups of 14-27 ms
# (docs/testing.md).  The stock QEMU's figures are printed beside, for the
# record, and not checked.
# harness-timeout: 1200
. "$(dirname "$0")/lib.sh"
need_kernel
command -v cyclictest >/dev/null || skip "cyclictest is not installed (rt-tests; run scripts/install-deps)"
command -v python3 >/dev/null || skip "python3 is not installed"

cat >"$HARNESS_TMP/guest.sh" <<'GUEST'
taskset -c 0 bash -c 'while :; do :; done' & busy=$!
cyclictest -q -m -t1 -a 1 -p 95 -i 1000 -l 2000 2>/dev/null |
	awk '/T: 0/ { for (i = 1; i <= NF; i++) { if ($i == "Avg:") a = $(i + 1); if ($i == "Max:") m = $(i + 1) } }
	     END { print "wake=" a, m }'
taskset -c 1 bash -c 'while :; do :; done' & busy1=$!
# 2000 round trips through two pipes, one FIFO task pinned to each CPU
python3 - <<'PY'
import os, time
r1, w1 = os.pipe(); r2, w2 = os.pipe()
n = 2000
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))
if os.fork() == 0:
    os.sched_setaffinity(0, {1})
    for _ in range(n):
        os.read(r1, 1); os.write(w2, b"x")
    os._exit(0)
os.sched_setaffinity(0, {0})
t0 = time.monotonic_ns()
for _ in range(n):
    os.write(w1, b"x"); os.read(r2, 1)
print("pingpong=%.1f" % ((time.monotonic_ns() - t0) / n / 1000))
os.wait()
PY
kill $busy $busy1; wait $busy $busy1 2>/dev/null
exit 0
GUEST
boot() {
	"$HARNESS_ROOT/scripts/vm-run" --clock virtual "${@:2}" --timeout 600 --log "$HARNESS_TMP/$1.console" \
		-- bash "$HARNESS_TMP/guest.sh" >"$HARNESS_TMP/$1.out" 2>&1
}
get() { sed -n "s/^$2=//p" "$HARNESS_TMP/$1.out" | tr -d '\r' | tail -1; }

boot ours || { sed 's/^/# | /' "$HARNESS_TMP/ours.out" | tail -30; fail "the boot on the virtual clock failed"; }
expect_in "$HARNESS_TMP/ours.out" "^vm-run: accelerator: tcg .*QEMU: .*/qemu-system-x86_64, turns of at most 10000 ns" \
	"vm-run does not say it ran scripts/build-qemu's QEMU with bounded turns"
read -r avg max <<<"$(get ours wake)"
pp=$(get ours pingpong)
[ -n "${avg:-}" ] && [ -n "${max:-}" ] && [ -n "$pp" ] ||
	{ sed 's/^/# | /' "$HARNESS_TMP/ours.out" | tail -20; fail "a figure is missing from the guest's output"; }
diag "ours: cyclictest on CPU 1 beside a busy CPU 0: average $avg us, worst $max us; pipe round trip across CPUs $pp us"
if boot stock --qemu system; then
	read -r savg smax <<<"$(get stock wake)"
	diag "stock QEMU (not checked): average ${savg:-?} us, worst ${smax:-?} us; round trip $(get stock pingpong) us"
fi
[ "$avg" -lt 100 ] || fail "wake-ups beside a busy CPU average $avg us (allowed under 100: turns of 10 us, the handler at half speed)"
[ "$max" -lt 1000 ] || fail "a wake-up beside a busy CPU took $max us (allowed under 1000: a burst of the guest's own background work may fall on one)"
awk -v p="$pp" 'BEGIN { exit !(p < 200) }' || fail "a pipe round trip across CPUs averages $pp us (allowed under 200: two IPIs, each ending the sender's turn)"
diag "the virtual clock's QEMU bounds a vCPU's turn"
