# SPDX-License-Identifier: GPL-2.0
# The bookkeeping of scripts/run-tests: every result, how each step's
# output becomes results, and the summary.  Sourced by run-tests and by
# tests/harness/test_aggregator.sh (which feeds it broken runs); needs
# lib.sh and $RESULTS (the directory of logs and summary.tsv).
#
# Every result is one line "STATUS<TAB>NAME<TAB>DETAIL" in
# $RESULTS/summary.tsv, and one line "PASS|SKIP|FAIL  NAME (DETAIL)" on
# stdout.

declare -i npass=0 nfail=0 nskip=0
failures=() skips=()
result() {	# STATUS NAME [DETAIL]
	local st=$1 name=$2 detail=${3:-}
	case $st in
	pass) npass+=1; printf 'PASS  %s%s\n' "$name" "${detail:+ ($detail)}" ;;
	skip) nskip+=1; printf 'SKIP  %s%s\n' "$name" "${detail:+ ($detail)}"
	      skips+=("$name: ${detail:-no reason given}") ;;
	*)    nfail+=1; st=fail; printf 'FAIL  %s%s\n' "$name" "${detail:+ ($detail)}"
	      failures+=("$name${detail:+: $detail}") ;;
	esac
	printf '%s\t%s\t%s\n' "$st" "$name" "$detail" >>"$RESULTS/summary.tsv"
}

# results_from FILE: feed "STATUS<TAB>NAME<TAB>DETAIL" lines to result()
results_from() {
	local st name detail
	while IFS=$'\t' read -r st name detail; do
		[ -n "$name" ] && result "$st" "$name" "$detail"
	done <"$1"
}

# summary: the skips with their reasons, the failures, the counts; returns
# non-zero if anything failed.
summary() {
	if [ ${#skips[@]} -gt 0 ]; then
		echo "skipped (each for a reason of the environment; see docs/testing.md):"
		printf '  %s\n' "${skips[@]}"
	fi
	if [ ${#failures[@]} -gt 0 ]; then
		echo "failed:"
		printf '  %s\n' "${failures[@]}"
	fi
	echo "$npass passed, $nfail failed, $nskip skipped"
	[ "$nfail" = 0 ]
}

# collect_meson BUILD STATUS LOG PREFIX: the results of a finished
# "meson test -C BUILD" that exited with STATUS (its output in LOG), named
# PREFIX/<test>.  Both are looked at: testlog.json says which test failed,
# and a non-zero exit status with no failed test in it (a test that did not
# build, meson stopping half-way, a stale log) is a failure of its own.
collect_meson() {
	local build=$1 mrc=$2 log=$3 prefix=$4 testlog=$1/meson-logs/testlog.json
	local st name nbad=0 ntests=0
	if [ -s "$testlog" ]; then
		# One JSON object per line: name, result (OK, FAIL, SKIP, TIMEOUT, ...)
		while IFS=$'\t' read -r st name; do
			ntests=$((ntests + 1))
			case $st in
			OK|EXPECTEDFAIL) result pass "$prefix/$name" ;;
			SKIP) result skip "$prefix/$name" "meson: SKIP; see $log" ;;
			*) nbad=$((nbad + 1)); result fail "$prefix/$name" "$st; see $log" ;;
			esac
		done < <(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    line = line.strip()
    if line:
        t = json.loads(line)
        # "hcbs:unit / test_duration" -> "test_duration", "hcbs:probes / x" -> "probes/x"
        suite, _, name = t["name"].rpartition(" / ")
        suite = suite.split(":")[-1]
        print(t["result"] + "\t" + (name if suite in ("", "unit") else suite + "/" + name))' "$testlog" ||
			echo "ERROR	meson-testlog")
	fi
	# What failed, in this log too (a CI log may be all that is left): each
	# failed test's "not ok" lines, or the end of its output if it has none.
	if [ "$nbad" != 0 ]; then
		python3 -c '
import json, sys
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    t = json.loads(line)
    if t["result"] in ("OK", "EXPECTEDFAIL", "SKIP"):
        continue
    out = (t.get("stdout") or "").splitlines()
    bad = [l for l in out if l.lstrip("# ").startswith("not ok")]
    name = t["name"].rpartition(" / ")[2]
    for l in (bad or out[-10:])[:20]:
        print("  | %s: %s" % (name, l[:200]))' "$testlog" 2>/dev/null
	fi
	if [ "$mrc" != 0 ] && [ "$nbad" = 0 ]; then
		tail -n 20 "$log" | sed 's/^/  | /'
		result fail "$prefix/meson-test" "meson test exited $mrc ($ntests results in testlog.json, none failed); see $log"
	elif [ "$ntests" = 0 ] && [ "$mrc" = 0 ]; then
		echo "no tests in $build"
	fi
}

# run_harness_tests DIR LOGDIR KERNEL_OK: run every DIR/test_*.sh, named
# harness/<name>.  A test_*.sh without its run bit fails (it would
# otherwise never run, silently).
run_harness_tests() {
	local dir=$1 logdir=$2 kernel_ok=$3 t_path name log t rc why limit
	for t_path in "$dir"/test_*.sh; do
		[ -e "$t_path" ] || continue
		name=harness/$(basename "$t_path" .sh)
		log=$logdir/$(basename "$t_path" .sh).log
		if [ ! -x "$t_path" ]; then
			result fail "$name" "$t_path is not executable (chmod +x, and git add it with its mode)"
			continue
		fi
		t=$(hcbs_now)
		if [ "$kernel_ok" = 0 ] && grep -q '^need_kernel' "$t_path"; then
			result skip "$name" "the kernel did not build"
			continue
		fi
		# A test that needs longer says so in a "# harness-timeout: S" line.
		limit=$(sed -n 's/^# harness-timeout: \([0-9][0-9]*\)$/\1/p' "$t_path" | head -1)
		timeout -k 10 "${HCBS_HARNESS_TIMEOUT:-${limit:-600}}" "$t_path" >"$log" 2>&1
		rc=$?
		why=$(grep -E '^# (FAIL|SKIP): ' "$log" | tail -1 | sed -E 's/^# (FAIL|SKIP): //')
		case $rc in
		0) result pass "$name" "$(hcbs_elapsed "$t") s" ;;
		4) result skip "$name" "$why" ;;
		*) grep -v '^# | ' "$log" | tail -n 15 | sed 's/^/  | /'
		   result fail "$name" "${why:-exit status $rc}; log: $log" ;;
		esac
	done
}

# collect_guest LIST RESULTS CASES CONSOLE TAPLOG VRC BUDGET [--suite S]...
#               [--filter G]...
# The results of the boot that ran selftests/run-guest: every test it
# reported, checked against the manifest selftests/expected-tests
# (scripts/check-guest: dropped tests, core tests that skipped, cases that
# did not run), then the verdict of vm-run (exit status VRC): a splat, the
# timeout, the boot flake it retried.
collect_guest() {
	local list=$1 res=$2 cases=$3 console=$4 taplog=$5 vrc=$6 budget=$7 first during stopped
	shift 7
	case $vrc in
	0|1) stopped= ;;
	*) stopped="the guest stopped first (vm-run exit status $vrc)" ;;
	esac
	python3 "$HCBS_ROOT/scripts/check-guest" --manifest "${HCBS_MANIFEST:-$HCBS_ROOT/selftests/expected-tests}" \
		--listed "$list" --results "$res" --cases "$cases" ${stopped:+--stopped "$stopped"} "$@" \
		>"$res.checked" 2>"$res.check-errors" ||
		result fail guest/expected-tests "scripts/check-guest failed: $(head -c 400 "$res.check-errors")"
	results_from "$res.checked"
	if grep -aq '^vm-run: RETRIED: ' "$taplog" 2>/dev/null; then
		result skip guest/boot-retried "$(grep -a '^vm-run: RETRIED: ' "$taplog" | head -1 | sed 's/^vm-run: RETRIED: //')"
	fi
	case $vrc in
	0|1) ;;
	125)
		# Which test was running: the last marker run-guest logged before the splat.
		first=$(grep -aE '^vm-run: FAIL: kernel splat' "$taplog" | head -1 |
			sed 's/^vm-run: FAIL: kernel splat in the guest console: //; s/ (full log.*//')
		during=$(awk -v re="$HCBS_SPLAT_RE" '/hcbs: run-guest: starting /{ t = $NF } /hcbs: run-guest: finished /{ t = "" }
			$0 ~ re { print (t == "" ? "between tests" : "during " t); exit }' "$console")
		result fail guest/kernel-splat "${during:-during the boot}: $first" ;;
	124) result fail guest/timeout "the guest did not finish within $budget s; console: $console" ;;
	*) result fail guest/vm-run "vm-run exited $vrc; console: $console" ;;
	esac
}
