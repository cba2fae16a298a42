#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/kernel-dev check-series builds every commit of a range and says
# "builds" or "FAILS" for each, going on after a failure, and exits
# non-zero if one failed.  Run on a three-commit toy tree whose Makefile
# stands in for the kernel's (bzImage fails while a file "broken" is in
# the tree), with a cache of its own: nothing is compiled, nothing booted.
. "$(dirname "$0")/lib.sh"

export HCBS_CACHE=$HARNESS_TMP/cache
src=$HARNESS_TMP/linux
mkdir -p "$src" "$HCBS_CACHE/build-qemu"
echo 'CONFIG_HARNESS=y' >"$HCBS_CACHE/build-qemu/.config"
cat >"$src/Makefile" <<'MK'
olddefconfig:
	test -f $(O)/.config
bzImage:
	@if [ -e broken ]; then echo "error: this commit is broken" >&2; exit 1; fi
	mkdir -p $(O)/arch/x86/boot && date >$(O)/arch/x86/boot/bzImage
MK
g() { git -C "$src" -c user.name=harness -c user.email=harness@invalid "$@"; }
g init -q && g add Makefile && g commit -qm base && g tag hcbs-base
echo 1 >"$src/a" && g add a && g commit -qm "good one"
touch "$src/broken" && g add broken && g commit -qm "broken one"
g rm -q broken && g commit -qm "good again"

"$HARNESS_ROOT/scripts/kernel-dev" check-series --src "$src" >"$HARNESS_TMP/out" 2>&1
rc=$?
sed 's/^/# | /' "$HARNESS_TMP/out"
[ $rc != 0 ] || fail "check-series exited 0 with a commit that does not build"
expect_in "$HARNESS_TMP/out" "^[0-9a-f]+ builds .* good one$" "the first commit is not reported as built"
expect_in "$HARNESS_TMP/out" "^[0-9a-f]+ FAILS .* broken one$" "the broken commit is not reported as failing"
expect_in "$HARNESS_TMP/out" "^[0-9a-f]+ builds .* good again$" "check-series stopped at the failure"
expect_in "$HARNESS_TMP/out" "see .*/check-series/logs/[0-9a-f]+\.log" "the failing build's log is not named"
expect_in "$HCBS_CACHE/check-series/logs/$(g rev-parse --short HEAD~1).log" "this commit is broken" \
	"the log does not hold the build's error"
[ "$(g status --porcelain)" = "" ] && [ "$(g rev-parse --abbrev-ref HEAD)" != HEAD ] ||
	fail "check-series touched the source tree's checkout"

# A range of good commits only passes; bad arguments are refused.
"$HARNESS_ROOT/scripts/kernel-dev" check-series --src "$src" hcbs-base..HEAD~2 >"$HARNESS_TMP/ok" 2>&1 ||
	{ sed 's/^/# | /' "$HARNESS_TMP/ok"; fail "check-series failed on a range that builds"; }
for bad in "--jobs x" "no-such-rev..HEAD" "--frobnicate" "HEAD..HEAD"; do
	# shellcheck disable=SC2086
	if "$HARNESS_ROOT/scripts/kernel-dev" check-series --src "$src" $bad >"$HARNESS_TMP/bad" 2>&1; then
		fail "check-series accepted '$bad'"
	fi
	expect_in "$HARNESS_TMP/bad" "^kernel-dev: error: check-series: " "no one-line error for '$bad'"
done
diag "one line per commit, FAILS reported and the run goes on; bad arguments refused"
