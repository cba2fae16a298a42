#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The series must build without CONFIG_RT_GROUP_SCHED, the Kconfig
# default: distribution kernels that do not enable it still carry our
# changes to the deadline class (once, `#define rt_groups_bw 0ULL` met
# READ_ONCE(rt_groups_bw) there and the build broke).  The qemu flavour's
# configuration with RT_GROUP_SCHED turned off; every object of the
# directories the series touches (kernel/sched/, kernel/cgroup/) compiled
# without a warning.  Only those objects, not vmlinux: a full second
# kernel would double CI's build time, and no other file uses what the
# series changes under this option.  ccache and a build tree kept in the
# cache make a rerun on an unchanged series take seconds.
. "$(dirname "$0")/lib.sh"

src=$("$HARNESS_ROOT/scripts/kernel-dev" tree)
[ -d "$src/.git" ] || skip "no kernel source tree at $src (run scripts/build-kernel)"
cache=${HCBS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hcbs}
out=$cache/build-check-no-rt-group-sched

"$HARNESS_ROOT/scripts/build-kernel" --src "$src" --no-apply --config-only \
	--out "$out" >"$HARNESS_TMP/config.log" 2>&1 ||
	{ sed 's/^/# | /' "$HARNESS_TMP/config.log"; fail "configuring the qemu flavour failed"; }
"$src/scripts/config" --file "$out/.config" -d RT_GROUP_SCHED
make -s -C "$src" O="$out" olddefconfig >"$HARNESS_TMP/olddefconfig.log" 2>&1 ||
	{ sed 's/^/# | /' "$HARNESS_TMP/olddefconfig.log"; fail "olddefconfig failed"; }
grep -qx '# CONFIG_RT_GROUP_SCHED is not set' "$out/.config" ||
	fail "RT_GROUP_SCHED is still set after turning it off: $(grep RT_GROUP_SCHED "$out/.config")"
grep -qx 'CONFIG_CGROUP_SCHED=y' "$out/.config" ||
	fail "CGROUP_SCHED went off with RT_GROUP_SCHED: the check would not build the cgroup code"

export CCACHE_DIR=${CCACHE_DIR:-$cache/ccache} CCACHE_BASEDIR=$cache CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
start=$(date +%s)
make -C "$src" O="$out" -j"$(nproc)" CC="ccache gcc" HOSTCC="ccache gcc" LOCALVERSION= \
	kernel/sched/ kernel/cgroup/ >"$HARNESS_TMP/build.log" 2>&1
rc=$?
diag "make kernel/sched/ kernel/cgroup/ without RT_GROUP_SCHED: exit $rc in $(($(date +%s) - start)) s"
if [ $rc != 0 ]; then
	grep -E 'error|Error' "$HARNESS_TMP/build.log" | head -20 | sed 's/^/# | /'
	fail "the series does not build without CONFIG_RT_GROUP_SCHED"
fi
if grep -q 'warning:' "$HARNESS_TMP/build.log"; then
	grep -A3 'warning:' "$HARNESS_TMP/build.log" | head -30 | sed 's/^/# | /'
	fail "building without CONFIG_RT_GROUP_SCHED warns"
fi
for o in kernel/sched/core.o kernel/sched/build_policy.o kernel/sched/build_utility.o \
	kernel/sched/fair.o; do
	[ -s "$out/$o" ] || fail "$o was not built"
done
diag "kernel/sched/ and kernel/cgroup/ build without CONFIG_RT_GROUP_SCHED, no warning"
