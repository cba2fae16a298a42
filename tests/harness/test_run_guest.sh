#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/run-guest, run on the host over a fake tree: finds source and
# meson-built tests in suite order, honours settings' timeout, maps exit
# codes to pass/skip/fail with the skip reason, selects with --suite and
# --filter, splits by clock with --clock-set (selftests/virtual-clock),
# and writes the result file the host reads back (a failed case with its
# failed assertion).
. "$(dirname "$0")/lib.sh"

root=$HARNESS_TMP/root build=$HARNESS_TMP/build
mkdir -p "$root/selftests/baseline" "$root/selftests/hcbs" "$build/selftests/hcbs"
mk() { printf '#!/bin/sh\n%s\n' "$2" >"$1" && chmod +x "$1"; }
mk "$root/selftests/baseline/test_pass.sh" 'echo "ok 1 works"; echo "ok 2 fixture.case # SKIP no tracefs"; echo "not ok 3 other thing"; echo "# ok 9 a diagnostic"; exit 0'
mk "$root/selftests/baseline/test_skip.sh" 'echo "# SKIP: no frobnicator here"; exit 4'
printf '#!/bin/sh\nexit 0\n' >"$root/selftests/baseline/test_not_executable.sh"
echo "timeout=2" >"$root/selftests/hcbs/settings"
mk "$root/selftests/hcbs/test_fail.sh" 'echo "#  RUN f.broken ..."; echo "# t.c:7:broken:a note"; echo "# t.h:9:broken:Expected 0 (0) == err (-22)"; echo "# t.h:9:broken:the write: EINVAL"; echo "not ok 1 broken"; exit 1'
mk "$root/selftests/hcbs/test_hang.sh" 'sleep 30'
mk "$build/selftests/hcbs/test_built" 'touch "$HCBS_TMP/scratch" && [ "$PWD" = "$HCBS_TMP" ] && echo "# built test in $PWD"'
touch "$build/selftests/hcbs/test_built.o"

mkdir -p "$HARNESS_TMP/tmp"
run() { env -u HCBS_ACCEL HCBS_ROOT="$root" HCBS_BUILD="$build" HCBS_TMP="$HARNESS_TMP/tmp" \
	"$HARNESS_ROOT/selftests/run-guest" "$@"; }

run --suite baseline --suite hcbs --results "$HARNESS_TMP/res" --cases "$HARNESS_TMP/cases" >"$HARNESS_TMP/tap" 2>&1
rc=$?
sed 's/^/# | /' "$HARNESS_TMP/tap"
[ $rc = 1 ] || fail "run-guest exited $rc with failing tests (want 1)"
expect_in "$HARNESS_TMP/tap" '^1\.\.5$' "wrong plan (5 tests)"
expect_in "$HARNESS_TMP/tap" '^ok 1 baseline/test_pass\.sh$' "pass"
expect_in "$HARNESS_TMP/tap" '^ok 2 baseline/test_skip\.sh # SKIP no frobnicator here$' "skip with reason"
expect_in "$HARNESS_TMP/tap" '^ok 3 hcbs/test_built$' "meson-built test"
expect_in "$HARNESS_TMP/tap" '^not ok 4 hcbs/test_fail\.sh # exit=1$' "fail"
expect_in "$HARNESS_TMP/tap" '^not ok 5 hcbs/test_hang\.sh # TIMEOUT after 2 s$' "timeout from settings"
expect_in "$HARNESS_TMP/tap" '^# not ok 1 broken$' "test output as nested lines"
[ "$(cut -f1,2 "$HARNESS_TMP/res" | tr '\t\n' ': ')" = \
  "baseline/test_pass.sh:pass baseline/test_skip.sh:skip hcbs/test_built:pass hcbs/test_fail.sh:fail hcbs/test_hang.sh:fail " ] ||
	fail "result file: $(cat "$HARNESS_TMP/res")"

printf '%s\n' "baseline/test_pass.sh	works	pass	" "baseline/test_pass.sh	fixture.case	skip	no tracefs" \
	"baseline/test_pass.sh	other thing	fail	" "hcbs/test_fail.sh	broken	fail	t.h:9:broken:Expected 0 (0) == err (-22): the write: EINVAL" >"$HARNESS_TMP/cases.want"
diff -u "$HARNESS_TMP/cases.want" "$HARNESS_TMP/cases" | sed 's/^/# | /'
cmp -s "$HARNESS_TMP/cases.want" "$HARNESS_TMP/cases" || fail "the cases file (--cases) is not as expected"

run --filter '*/test_pass*' --filter 'hcbs/test_built' >"$HARNESS_TMP/tap2" 2>&1 ||
	{ sed 's/^/# | /' "$HARNESS_TMP/tap2"; fail "filtered run failed"; }
expect_in "$HARNESS_TMP/tap2" '^1\.\.2$' "--filter selects two tests"
run --suite nosuch >/dev/null 2>&1
[ $? = 2 ] || fail "an unknown suite is not a usage error"

# --clock-set: the tests selftests/virtual-clock lists, or all the others,
# intersected with --filter
printf '%s\n' "# the timing tests" "hcbs/test_built   a comment" "baseline/test_sk*" >"$root/selftests/virtual-clock"
list() { run --list "$@" 2>&1 | cut -f1 | tr '\n' ' '; }
[ "$(list --clock-set virtual)" = "baseline/test_skip.sh hcbs/test_built " ] ||
	fail "--clock-set virtual lists: $(list --clock-set virtual)"
[ "$(list --clock-set host)" = "baseline/test_pass.sh hcbs/test_fail.sh hcbs/test_hang.sh " ] ||
	fail "--clock-set host lists: $(list --clock-set host)"
[ "$(list --clock-set virtual --filter 'hcbs/*')" = "hcbs/test_built " ] ||
	fail "--clock-set virtual --filter 'hcbs/*' lists: $(list --clock-set virtual --filter 'hcbs/*')"
run --clock-set both --list >/dev/null 2>&1
[ $? = 2 ] || fail "an unknown clock set is not a usage error"
rm "$root/selftests/virtual-clock"
run --clock-set host --list >/dev/null 2>&1
[ $? = 2 ] || fail "--clock-set without selftests/virtual-clock is not a usage error"
diag "pass, skip (with reason), fail, timeout, built tests, filters, clock sets, result and cases files all as expected"
