#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A WARN in the guest kernel must fail the run: boot a separate guest,
# trigger LKDTM's WARNING (CONFIG_LKDTM=y in configs/qemu.config) and check
# that scripts/vm-run exits 125 and names the warning, even though the
# command itself succeeds.
. "$(dirname "$0")/lib.sh"
need_kernel

"$HARNESS_ROOT/scripts/vm-run" --timeout 240 --log "$HARNESS_TMP/console.log" -- sh -c '
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	echo WARNING >/sys/kernel/debug/provoke-crash/DIRECT
	echo "lkdtm WARNING triggered; command exits 0"' >"$HARNESS_TMP/out" 2>&1
rc=$?
grep -E '^vm-run:|lkdtm|triggered' "$HARNESS_TMP/out" | sed 's/^/# | /'
[ $rc = 125 ] || fail "vm-run exited $rc after a WARN in the guest (want 125)"
expect_in "$HARNESS_TMP/out" '^vm-run: FAIL: kernel splat in the guest console: WARNING: .*lkdtm' \
	"vm-run's verdict does not name the WARNING"
expect_in "$HARNESS_TMP/out" 'lkdtm WARNING triggered; command exits 0' \
	"the command did not run to its end"
diag "a WARN with a successful command still fails the run (exit 125, WARNING named)"
