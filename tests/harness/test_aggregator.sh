#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/run-tests' bookkeeping (scripts/results.sh, scripts/check-guest)
# on purpose-made runs: each broken case below must end in "N failed" with
# N >= 1, the offender named, and a non-zero status; the clean run and an
# allowed environment skip must stay green.
#   - a test of the manifest that was dropped (not built, removed)
#   - a core test that skipped (kernel without cpu.rt.max), and a
#     kselftest_harness case that skipped inside a passing program
#   - a listed case that did not run, a test that is not in the manifest
#   - a harness script without its run bit
#   - meson test failing while testlog.json is present (a real failing
#     test, and a testlog that says OK beside a non-zero exit status)
#   - an expected test that never reported because the guest stopped
#   - a failed C test: its failed case and assertion named in the summary
. "$(dirname "$0")/lib.sh"

. "$HARNESS_ROOT/scripts/lib.sh"
cd "$HARNESS_TMP" || fail "no tmp dir"

# run_case NAME CMD...: run CMD in a fresh bookkeeping (subshell), with
# its summary in NAME.out; prints the status of the summary.
run_case() {
	local name=$1; shift
	mkdir -p "$HARNESS_TMP/$name"
	(
		RESULTS=$HARNESS_TMP/$name
		: >"$RESULTS/summary.tsv"
		. "$HARNESS_ROOT/scripts/results.sh"
		"$@"
		summary
	) >"$HARNESS_TMP/$name.out" 2>&1
}
# red NAME WHAT REGEX: the case must have failed, naming REGEX
red() {
	local rc=$1 name=$2 what=$3 re=$4
	if [ "$rc" = 0 ] || ! grep -qE '^[1-9][0-9]* passed, [1-9][0-9]* failed|^0 passed, [1-9][0-9]* failed' "$HARNESS_TMP/$name.out"; then
		sed 's/^/# | /' "$HARNESS_TMP/$name.out"
		fail "$what did not turn the run red (status $rc)"
	fi
	grep -qE "^FAIL  $re" "$HARNESS_TMP/$name.out" || {
		sed 's/^/# | /' "$HARNESS_TMP/$name.out"; fail "$what: no FAIL line for /$re/"; }
	diag "red: $what ($(grep -E "^FAIL  $re" "$HARNESS_TMP/$name.out" | head -1 | cut -c7-160))"
}
green() {
	local rc=$1 name=$2 what=$3
	[ "$rc" = 0 ] && grep -qE '^[0-9]+ passed, 0 failed' "$HARNESS_TMP/$name.out" || {
		sed 's/^/# | /' "$HARNESS_TMP/$name.out"; fail "$what: the run is not green (status $rc)"; }
	diag "green: $what"
}

# ---------------------------------------------------------------- guest
cat >manifest <<'EOF'
# test manifest
baseline/test_kernel.sh
hcbs/test_hcbs_interface
hcbs/test_hcbs_interface:iface.defaults
hcbs/test_hcbs_interface:iface.write_forms
probes/test_latency.sh env-skip: KSFT_MACHINE_SLOW
EOF
listed() { printf '%s\t60s\t/x/%s\n' "$@"; }
guest() {	# DIR VRC [ARGS]: collect_guest on DIR/{list,res,cases}
	local d=$1 vrc=$2; shift 2
	touch "$d/list" "$d/res" "$d/cases" "$d/console" "$d/tap"
	HCBS_MANIFEST=$HARNESS_TMP/manifest collect_guest "$d/list" "$d/res" "$d/cases" \
		"$d/console" "$d/tap" "$vrc" 900 "$@"
}
good() {	# DIR: a complete, clean run
	mkdir -p "$1"
	listed baseline/test_kernel.sh hcbs/test_hcbs_interface probes/test_latency.sh >"$1/list"
	printf '%s\n' "baseline/test_kernel.sh	pass	1.0	" "hcbs/test_hcbs_interface	pass	20.0	" \
		"probes/test_latency.sh	pass	5.0	" >"$1/res"
	printf '%s\n' "hcbs/test_hcbs_interface	iface.defaults	pass	" \
		"hcbs/test_hcbs_interface	iface.write_forms	pass	" \
		"probes/test_latency.sh	p99 below 1 ms	skip	timing on a slow machine (KSFT_MACHINE_SLOW)" >"$1/cases"
}

good g0
run_case clean guest g0 0; green $? clean "a complete run, one allowed environment skip"
grep -q '^SKIP  probes/test_latency.sh:p99 below 1 ms (environment: timing on a slow machine' clean.out ||
	{ sed 's/^/# | /' clean.out; fail "the allowed skip is not listed with its reason"; }

good g1; grep -v hcbs/test_hcbs_interface g1/list >g1/l && mv g1/l g1/list
grep -v hcbs/test_hcbs_interface g1/res >g1/r && mv g1/r g1/res; : >g1/cases
run_case dropped guest g1 0; red $? dropped "a dropped test (in the manifest, not built)" \
	'hcbs/test_hcbs_interface \(expected by selftests/expected-tests, but not found'

good g2; sed -i 's/^hcbs\/test_hcbs_interface\tpass.*/hcbs\/test_hcbs_interface\tskip\t0.1\tkernel without HCBS (no cpu.rt.max)/' g2/res; : >g2/cases
run_case core_skip guest g2 0; red $? core_skip "a core test that skipped (no cpu.rt.max)" \
	'hcbs/test_hcbs_interface \(skipped \(kernel without HCBS'

good g3; sed -i 's/iface.write_forms\tpass\t$/iface.write_forms\tskip\tno tracefs/' g3/cases
run_case case_skip guest g3 0; red $? case_skip "a kselftest SKIP of a core case inside a passing program" \
	'hcbs/test_hcbs_interface:iface.write_forms \(skipped \(no tracefs'

good g4; sed -i '/iface.write_forms/d' g4/cases
run_case case_gone guest g4 0; red $? case_gone "a listed case that did not run" \
	'hcbs/test_hcbs_interface:iface.write_forms \(expected'

good g5; listed baseline/test_new.sh >>g5/list; echo "baseline/test_new.sh	pass	1.0	" >>g5/res
run_case unlisted guest g5 0; red $? unlisted "a test that is not in the manifest" \
	'baseline/test_new.sh \(ran \(pass\), but is not in'

good g6; sed -i 's/^probes\/test_latency.sh\tpass.*/probes\/test_latency.sh\tskip\t1.0\tkernel without BTF/' g6/res
run_case env_mismatch guest g6 0; red $? env_mismatch "a skip whose reason the manifest does not allow (no BTF)" \
	'probes/test_latency.sh \(skipped \(kernel without BTF'

good g7; sed -i '/^probes/d' g7/res
run_case stopped guest g7 125; red $? stopped "an expected test that never reported (the guest stopped)" \
	'probes/test_latency.sh \(did not run: the guest stopped first'

good g9; sed -i 's/^hcbs\/test_hcbs_interface\tpass.*/hcbs\/test_hcbs_interface\tfail\t20.0\texit status 1/' g9/res
sed -i 's/iface.write_forms\tpass\t$/iface.write_forms\tfail\ttest_hcbs_interface.c:99:write_forms:Expected 0 (0) == err (-22)/' g9/cases
run_case case_fail guest g9 0; red $? case_fail "a failed case of a C test, named with its assertion" \
	'hcbs/test_hcbs_interface \(exit status 1; not ok iface.write_forms: test_hcbs_interface.c:99:write_forms:Expected 0 \(0\) == err \(-22\)\)'

good g8; : >g8/list; : >g8/res; : >g8/cases
run_case filtered guest g8 0 --suite baseline --filter 'nothing/*'; green $? filtered "manifest entries outside --suite/--filter are not checked"

# The two boots of a TCG run: the virtual clock's set (selftests/virtual-clock)
# and the host's; each is checked for its own tests only, and a test of a
# set that did not report is still a failure.
printf '%s\n' "# timing tests" "probes/test_latency.sh  timing" >clocks
mkdir -p gv gh
listed probes/test_latency.sh >gv/list; echo "probes/test_latency.sh	pass	5.0	" >gv/res
echo "probes/test_latency.sh	p99 below 1 ms	pass	" >gv/cases
run_case clock_virtual guest gv 0 --clock-set virtual --clock-list "$HARNESS_TMP/clocks"
green $? clock_virtual "the virtual clock's boot: only its own tests are checked"
good gh; sed -i '/^probes/d' gh/list gh/res gh/cases
run_case clock_host guest gh 0 --clock-set host --clock-list "$HARNESS_TMP/clocks"
green $? clock_host "the host clock's boot: the timing tests are not its to run"
mkdir -p gv2; listed probes/test_latency.sh >gv2/list; : >gv2/cases
run_case clock_missing guest gv2 125 --clock-set virtual --clock-list "$HARNESS_TMP/clocks"
red $? clock_missing "a test of the virtual clock's boot that never reported" \
	'probes/test_latency.sh \(did not run: the guest stopped first'

# ---------------------------------------------------------------- harness scripts
mkdir -p hdir
printf '#!/bin/bash\nexit 0\n' >hdir/test_ok.sh && chmod +x hdir/test_ok.sh
printf '#!/bin/bash\nexit 0\n' >hdir/test_no_run_bit.sh
run_case runbit run_harness_tests "$HARNESS_TMP/hdir" "$HARNESS_TMP/hdir" 1
red $? runbit "a harness script without its run bit" 'harness/test_no_run_bit \(.*not executable'

# ---------------------------------------------------------------- meson
mkdir -p m/src
cat >m/src/meson.build <<'EOF'
project('agg', 'c')
test('t_ok', find_program('true'), suite : 'unit')
test('t_bad', find_program('false'), suite : 'unit')
test('t_tap', find_program('tap.sh'), suite : 'unit', protocol : 'tap')
EOF
printf '#!/bin/sh\necho "ok 1 - fine"\necho "not ok 2 - the broken thing"\necho 1..2\nexit 1\n' >m/src/tap.sh
chmod +x m/src/tap.sh
if meson setup m/build m/src >m/setup.log 2>&1; then
	meson test -C m/build >m/test.log 2>&1
	mrc=$?
	[ -s m/build/meson-logs/testlog.json ] || fail "meson wrote no testlog.json"
	run_case meson_fail collect_meson "$HARNESS_TMP/m/build" "$mrc" "$HARNESS_TMP/m/test.log" unit
	red $? meson_fail "a failing meson test, testlog present" 'unit/t_bad \(FAIL'
	red 1 meson_fail "a failing TAP test" 'unit/t_tap \((ERROR|FAIL)'
	grep -q '^  | t_tap: not ok 2 - the broken thing$' meson_fail.out || {
		sed 's/^/# | /' meson_fail.out; fail "a failing TAP test: its 'not ok' line is not in the log"; }
	diag "a failing TAP test's 'not ok' line is in the log"
else
	sed 's/^/# | /' m/setup.log; fail "meson setup of the small project failed"
fi
# A testlog that says every test passed, but meson exited 1 (a test that
# did not build, meson stopping half-way, a stale log).
mkdir -p m2/meson-logs
echo '{"name": "hcbs:unit / t_ok", "result": "OK"}' >m2/meson-logs/testlog.json
echo "ninja: build stopped: subcommand failed." >m2/test.log
run_case meson_status collect_meson "$HARNESS_TMP/m2" 1 "$HARNESS_TMP/m2/test.log" unit
red $? meson_status "meson test exiting 1 with an all-OK testlog.json" 'unit/meson-test \(meson test exited 1'

diag "every broken run above is red, the clean ones green"
