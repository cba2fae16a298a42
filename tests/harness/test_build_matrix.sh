#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The series builds in every configuration CI checks, not only the qemu
# flavour's: without RT_GROUP_SCHED (the Kconfig default, which
# distribution kernels that do not enable it still build our deadline
# changes with), without SMP, with PREEMPT_RT, and with Debian's own
# configuration (autogroup, MAXSMP with off-stack cpumasks, NO_HZ_FULL).
# scripts/kernel-dev matrix compiles every object of kernel/sched/ and
# kernel/cgroup/ (the directories the series touches; no other file uses
# what it changes) in each, and fails a variant on an error or a warning.
# Only those objects, not vmlinux: four more kernels would take CI's hour.
#
# Then the matrix must go red: a worktree of the same tree with a
# deliberate break that only an SMP=n build reaches (ccache serves it the
# objects the real build made, so it costs one object).
# harness-timeout: 2400
. "$(dirname "$0")/lib.sh"

src=$("$HARNESS_ROOT/scripts/kernel-dev" tree)
[ -e "$src/.git" ] || skip "no kernel source tree at $src (run scripts/build-kernel)"

"$HARNESS_ROOT/scripts/kernel-dev" matrix --src "$src" >"$HARNESS_TMP/matrix.log" 2>&1
rc=$?
sed 's/^/# | /' "$HARNESS_TMP/matrix.log"
[ $rc = 0 ] || fail "the series does not build in every variant: $(grep -m1 ' FAILS ' "$HARNESS_TMP/matrix.log")"
for v in no-rt-group-sched smp-n preempt-rt distro; do
	expect_in "$HARNESS_TMP/matrix.log" "^$v +builds " "variant $v not reported as built"
done

# The deliberately broken tree, laid out as $HCBS_CACHE is (src/linux).
wt=$HARNESS_TMP/cache/src/linux
mkdir -p "${wt%/*}"
git -C "$src" worktree add -q --detach "$wt" HEAD || fail "cannot make a worktree of $src"
trap 'r=$?; git -C "$src" worktree remove --force "$wt" >/dev/null 2>&1; (exit $r); harness_cleanup' EXIT
cp "$src/.hcbs-pkgver" "$wt/"
printf '\n#ifndef CONFIG_SMP\nint hcbs_harness_break = hcbs_harness_undeclared;\n#endif\n' \
	>>"$wt/kernel/sched/rt.c"
"$HARNESS_ROOT/scripts/kernel-dev" matrix --src "$wt" smp-n >"$HARNESS_TMP/broken.log" 2>&1
rc=$?
sed 's/^/# | /' "$HARNESS_TMP/broken.log"
[ $rc != 0 ] || fail "the matrix passed a tree that does not build with SMP=n"
expect_in "$HARNESS_TMP/broken.log" "^smp-n +FAILS .*hcbs_harness_undeclared" \
	"the SMP=n failure is not reported with its error"
diag "every variant builds; a tree broken for SMP=n alone fails the matrix"
