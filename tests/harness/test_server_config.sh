#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The server flavour an operator builds (README: scripts/build-kernel
# --flavour server) configures on the installed Debian config: ours,
# Debian's and configs/server.config merged and every option we ask for
# kept, for PREEMPT_DYNAMIC and --rt, and with --modules-from
# configs/guest.modules (scripts/check-install's build) only those
# modules left.  Configures only (the builds take hours with every
# module), in throwaway directories, from the cached source tree as it is.
# Debian's linux-config-6.12 of 6.12.118 turned SYSTEM_REVOCATION_LIST
# off, and the flavour's fragment, which set its file name, failed there.
# harness-timeout: 1200
. "$(dirname "$0")/lib.sh"

src=$("$HARNESS_ROOT/scripts/kernel-dev" tree)
[ -d "$src/.git" ] || skip "no kernel source tree at $src (run scripts/build-kernel)"
export HCBS_CACHE=$HARNESS_TMP/cache	# no waiting for a real build's lock
bk() { "$HARNESS_ROOT/scripts/build-kernel" --src "$src" --no-apply --config-only "$@"; }

# config_has OUT LINE...: every LINE is a line of OUT/.config
config_has() {
	local out=$1 l
	shift
	for l in "$@"; do
		grep -qxF -- "$l" "$out/.config" || fail "$(basename "$out"): no '$l' in .config ($(grep -F -- "${l%%=*}" "$out/.config" | head -1))"
	done
}

for v in server server-rt server-guest; do
	args=(--flavour server --out "$HARNESS_TMP/$v")
	[ $v = server-rt ] && args+=(--rt)
	[ $v = server-guest ] && args+=(--modules-from "$HARNESS_ROOT/configs/guest.modules")
	bk "${args[@]}" >"$HARNESS_TMP/$v.log" 2>&1 ||
		{ sed 's/^/# | /' "$HARNESS_TMP/$v.log"; fail "build-kernel ${args[*]} --config-only failed"; }
	config_has "$HARNESS_TMP/$v" 'CONFIG_LOCALVERSION="-hcbs"' CONFIG_RT_GROUP_SCHED=y \
		'# CONFIG_MODULE_SIG_ALL is not set' CONFIG_MODULES=y
	diag "$v: $(grep -c '=m$' "$HARNESS_TMP/$v/.config") modules"
done
config_has "$HARNESS_TMP/server-rt" CONFIG_PREEMPT_RT=y
config_has "$HARNESS_TMP/server-guest" CONFIG_VIRTIO_BLK=m CONFIG_EXT4_FS=m CONFIG_OVERLAY_FS=m
n=$(grep -c '=m$' "$HARNESS_TMP/server-guest/.config")
[ "$n" -le 60 ] || fail "--modules-from configs/guest.modules kept $n modules (its 22 and what they need: expected at most 60)"
[ "$(grep -c '=m$' "$HARNESS_TMP/server/.config")" -gt 1000 ] || fail "the full server flavour lost Debian's modules"

# What --modules-from refuses, changing nothing.
bk --flavour distro --modules-from "$HARNESS_ROOT/configs/guest.modules" --out "$HARNESS_TMP/x" >"$HARNESS_TMP/e1.log" 2>&1 &&
	fail "--modules-from accepted for the distro flavour"
expect_in "$HARNESS_TMP/e1.log" "error: --modules-from is for the server flavour" "no error naming the flavour"
printf '# only a comment\n\n' >"$HARNESS_TMP/empty.modules"
bk --flavour server --modules-from "$HARNESS_TMP/empty.modules" --out "$HARNESS_TMP/x" >"$HARNESS_TMP/e2.log" 2>&1 &&
	fail "--modules-from accepted a file that names no module"
expect_in "$HARNESS_TMP/e2.log" "error: --modules-from .*empty.modules names no module \(expected an lsmod output or one module name a line\)" \
	"no error for a file without a module"
[ ! -e "$HARNESS_TMP/x" ] || fail "a refused --modules-from left a build directory"
diag "server, server --rt and server --modules-from configs/guest.modules configure; bad --modules-from refused"
