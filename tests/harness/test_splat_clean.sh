#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The other side of the splat scanner: a clean boot whose command prints
# splat-like words itself is not a splat, and the command's own exit
# status comes back through scripts/vm-run unchanged.  Also checks the
# guest environment vm-run promises (HCBS_ROOT, HCBS_TMP, HCBS_ACCEL) and
# that --rwdir gets a file out.
. "$(dirname "$0")/lib.sh"
need_kernel

out_dir=$HARNESS_TMP/rw
mkdir -p "$out_dir"
"$HARNESS_ROOT/scripts/vm-run" --timeout 240 --rwdir "$out_dir" --log "$HARNESS_TMP/console.log" -- sh -c '
	echo "WARNING: printed by a user program, not a splat"
	echo "BUG: neither is this"
	echo "root=$HCBS_ROOT accel=$HCBS_ACCEL slow=${KSFT_MACHINE_SLOW:-no}" >'"$out_dir"'/env
	touch "$HCBS_TMP/x" && echo tmp-ok >>'"$out_dir"'/env
	exit 3' >"$HARNESS_TMP/out" 2>&1
rc=$?
grep -E '^vm-run:' "$HARNESS_TMP/out" | sed 's/^/# | /'
[ $rc = 3 ] || { tail -20 "$HARNESS_TMP/out" | sed 's/^/# | /'; fail "vm-run exited $rc, want the command's 3"; }
[ -f "$out_dir/env" ] || fail "nothing came back through --rwdir"
diag "guest env: $(tr '\n' ' ' <"$out_dir/env")"
grep -q "^root=$HARNESS_ROOT accel=\(kvm\|tcg\)" "$out_dir/env" || fail "HCBS_ROOT/HCBS_ACCEL not set in the guest"
grep -q "^tmp-ok" "$out_dir/env" || fail "HCBS_TMP is not writable in the guest"
diag "exit status 3 passed through; user-space 'WARNING:' lines are not splats"
