#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A patch in the series that does not apply must stop scripts/build-kernel
# with the patch's name and git's message, and leave the tree clean at the
# previous patch.  Runs on a tiny fake source tree (--src) with a fake
# series (--patches) and a throwaway build directory (--out), so the real
# cached kernel tree is never touched.
. "$(dirname "$0")/lib.sh"

pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
	skip "linux-source-6.12 is not installed (run scripts/install-deps)"

src=$HARNESS_TMP/src patches=$HARNESS_TMP/patches
mkdir -p "$src/kernel/sched" "$patches"
(
	cd "$src"
	git init -q
	git config user.name "hcbs test" && git config user.email test@hcbs.invalid
	printf 'int a;\nint b;\nint c;\n' >kernel/sched/rt.c
	git add kernel/sched/rt.c && git commit -q -m base && git tag hcbs-base
	echo "$pkgver" >.hcbs-pkgver
	echo .hcbs-pkgver >>.git/info/exclude
	: >.git/hcbs-applied
	# A patch that applies...
	sed -i 's/int b;/int b = 1;/' kernel/sched/rt.c
	git commit -q -am "sched/rt: Initialise b"
	git format-patch -q -1 -o "$patches" --start-number 1
	# ...and one made against a tree we do not have.
	sed -i 's/int c;/long c;/' kernel/sched/rt.c
	git commit -q -am "sched/rt: Widen c"
	git format-patch -q -1 -o "$patches" --start-number 2
	sed -i 's/int a;/int a_renamed;/' "$patches"/0002-*.patch
	git reset -q --hard hcbs-base
) || fail "could not set up the fake tree"
(cd "$patches" && ls *.patch >series)
good=$(sed -n 1p "$patches/series") bad=$(sed -n 2p "$patches/series")
diag "series: $good $bad (the second one cannot apply)"

HCBS_CACHE=$HARNESS_TMP/cache "$HARNESS_ROOT/scripts/build-kernel" --src "$src" --patches "$patches" \
	--out "$HARNESS_TMP/out" >"$HARNESS_TMP/out.log" 2>&1
rc=$?
sed 's/^/# | /' "$HARNESS_TMP/out.log"
[ $rc != 0 ] || fail "build-kernel succeeded with a patch that does not apply"
expect_in "$HARNESS_TMP/out.log" "error: patch .*$bad.* does not apply" "the failing patch is not named"
expect_in "$HARNESS_TMP/out.log" "git am: .*(patch failed|does not apply)" "git's message is not shown"
grep -q "$good.*does not apply" "$HARNESS_TMP/out.log" && fail "the good patch was blamed"
[ ! -d "$src/.git/rebase-apply" ] || fail "git am was left in progress"
[ "$(git -C "$src" log -1 --format=%s)" = "sched/rt: Initialise b" ] ||
	fail "the tree is not at the last patch that applied"
[ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ] || fail "the tree is dirty"
[ ! -e "$HARNESS_TMP/out/.config" ] || fail "build-kernel went on to configure"
diag "build-kernel failed naming $bad, tree left clean at $good"
