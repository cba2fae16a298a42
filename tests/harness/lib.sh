# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the tests of the test machinery (tests/harness/).
# Each test is an executable test_*.sh run on the host by scripts/run-tests:
# exit 0 = pass, 4 = skip, anything else = fail; diagnostics go to stdout
# as "# ..." lines.  Source this file; do not run it.
set -uo pipefail

HARNESS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HARNESS_TMP=$(mktemp -d "${TMPDIR:-/tmp}/hcbs-harness.XXXXXX")
# A failed test keeps its files (console logs) next to run-tests' logs.
harness_cleanup() {
	local rc=$? keep
	if [ $rc != 0 ] && [ $rc != 4 ]; then
		keep=${HCBS_BUILD:-$HARNESS_ROOT/build}/test-results/$(basename "$0" .sh).files
		rm -rf "$keep" && mkdir -p "${keep%/*}" && mv "$HARNESS_TMP" "$keep" &&
			echo "# files kept in $keep"
	fi
	rm -rf "$HARNESS_TMP"
	exit $rc
}
trap harness_cleanup EXIT

diag() { printf '# %s\n' "$@"; }
fail() { printf '# FAIL: %s\n' "$*"; exit 1; }
skip() { printf '# SKIP: %s\n' "$*"; exit 4; }

# expect_in FILE REGEX WHAT: FILE must match the extended REGEX
expect_in() {
	grep -qE -- "$2" "$1" || {
		diag "---- $(basename "$1") ----"
		sed 's/^/# | /' "$1" | tail -40
		fail "$3: no line matching /$2/"
	}
}

# need_kernel: skip unless the kernel image of the flavour under test
# ($HCBS_FLAVOUR, which scripts/run-tests sets; default qemu, vm-run's) is built
need_kernel() {
	HARNESS_KERNEL=$("$HARNESS_ROOT/scripts/build-kernel" --flavour "${HCBS_FLAVOUR:-qemu}" --print-dir)/arch/x86/boot/bzImage
	[ -f "$HARNESS_KERNEL" ] || skip "no kernel image at $HARNESS_KERNEL (run scripts/build-kernel)"
}
