#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A guest kernel that panics must fail the run with a message that says so
# (and not hang: virtme-ng boots with panic=-1 and QEMU -no-reboot).
# Triggered with LKDTM's PANIC.
. "$(dirname "$0")/lib.sh"
need_kernel

t0=$(date +%s)
"$HARNESS_ROOT/scripts/vm-run" --timeout 240 --log "$HARNESS_TMP/console.log" -- sh -c '
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	echo PANIC >/sys/kernel/debug/provoke-crash/DIRECT
	echo "still alive after PANIC"' >"$HARNESS_TMP/out" 2>&1
rc=$?
grep -E '^vm-run:|alive' "$HARNESS_TMP/out" | sed 's/^/# | /'
[ $rc = 125 ] || fail "vm-run exited $rc after a guest panic (want 125)"
[ $rc != 124 ] || fail "the panicking guest hung until the timeout"
expect_in "$HARNESS_TMP/out" '^vm-run: FAIL: the guest kernel panicked: Kernel panic - not syncing: dumptest' \
	"vm-run's verdict does not say the guest panicked"
grep -q 'still alive after PANIC' "$HARNESS_TMP/out" && fail "the guest did not panic"
diag "a guest panic fails the run after $(( $(date +%s) - t0 )) s with a clear verdict"
