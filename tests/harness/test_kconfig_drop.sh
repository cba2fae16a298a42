#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An option that a fragment asks for but Kconfig drops (here: USB storage,
# whose USB_SUPPORT dependency configs/qemu-trim.config turns off) must make
# scripts/build-kernel fail, naming the option.  Configures only (no build),
# in a throwaway build directory, from the cached source tree as it is.
. "$(dirname "$0")/lib.sh"

src=$("$HARNESS_ROOT/scripts/kernel-dev" tree)
[ -d "$src/.git" ] || skip "no kernel source tree at $src (run scripts/build-kernel)"

cat >"$HARNESS_TMP/drop.config" <<'FRAG'
# harness: an option whose dependency is off in the qemu flavour
CONFIG_USB_STORAGE=y
# and one that is kept, which must not be reported
CONFIG_SCHED_DEBUG=y
FRAG
# A cache of its own: no waiting for the lock of a real build meanwhile.
export HCBS_CACHE=$HARNESS_TMP/cache
HCBS_EXTRA_FRAGMENT=$HARNESS_TMP/drop.config \
	"$HARNESS_ROOT/scripts/build-kernel" --src "$src" --no-apply --config-only \
	--out "$HARNESS_TMP/out" >"$HARNESS_TMP/out.log" 2>&1
rc=$?
sed 's/^/# | /' "$HARNESS_TMP/out.log"
[ $rc != 0 ] || fail "build-kernel accepted a fragment whose option Kconfig dropped"
expect_in "$HARNESS_TMP/out.log" "CONFIG_USB_STORAGE: asked y by .*drop.config, got n" \
	"the dropped option is not named with its fragment"
expect_in "$HARNESS_TMP/out.log" "error: Kconfig dropped the options above \(CONFIG_USB_STORAGE\)" \
	"the final error does not name the option"
grep -q "CONFIG_SCHED_DEBUG:" "$HARNESS_TMP/out.log" && fail "a kept option was reported"
[ ! -e "$HARNESS_TMP/out/.hcbs-config-stamp" ] || fail "the failed configuration was stamped as good"

# The same run without the bad option configures fine.
sed -i '/USB_STORAGE/d' "$HARNESS_TMP/drop.config"
"$HARNESS_ROOT/scripts/build-kernel" --src "$src" --no-apply --config-only --out "$HARNESS_TMP/out" \
	--fragment "$HARNESS_TMP/drop.config" >"$HARNESS_TMP/ok.log" 2>&1 ||
	{ sed 's/^/# | /' "$HARNESS_TMP/ok.log"; fail "configuration without the dropped option failed"; }
diag "build-kernel failed naming CONFIG_USB_STORAGE; without it the configuration is accepted"
