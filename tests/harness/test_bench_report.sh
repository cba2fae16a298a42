#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/bench-report on purpose-made raw results: medians, ranges and
# ratios computed from the boots of each kernel, the headline's switch-path
# ratio (group on hcbs over root on stock), the TCG warning, a run of the
# hcbs kernel alone (no ratio column), and the errors: no figures at all,
# a line that is not JSON.
. "$(dirname "$0")/lib.sh"

report=$HARNESS_ROOT/scripts/bench-report
raw=$HARNESS_TMP/raw
mkdir -p "$raw"

fig() {	# fig FILE KERNEL BENCH CASE METRIC VALUE UNIT
	printf '{"kernel": "%s", "accel": "tcg", "bench": "%s", "case": "%s", "metric": "%s", "value": %s, "unit": "%s"}\n' \
		"$2" "$3" "$4" "$5" "$6" "$7" >>"$1"
}
for r in 1 2 3; do
	fig "$raw/hcbs-$r.jsonl" 6.12.117-hcbs pipe root cpu_per_op $((10 + r)) us
	fig "$raw/hcbs-$r.jsonl" 6.12.117-hcbs pipe pipe cpu_per_op $((20 + r)) us
	fig "$raw/stock-$r.jsonl" 6.12.117-stock pipe root cpu_per_op $((19 + r)) us
	fig "$raw/stock-$r.jsonl" 6.12.117-stock pipe pipe cpu_per_op 30 us
	fig "$raw/hcbs-$r.jsonl" 6.12.117-hcbs accuracy q900_p1000 error -0.00$r cpu
	fig "$raw/stock-$r.jsonl" 6.12.117-stock accuracy q900_p1000 error 0.0$r cpu
	fig "$raw/hcbs-$r.jsonl" 6.12.117-hcbs accuracy q5000_p10000 error 0.000$r cpu
	fig "$raw/hcbs-$r.jsonl" 6.12.117-hcbs accuracy q900_p1000 overrun_max_pct_q $((40 + r)) pct
	fig "$raw/hcbs-$r.jsonl" 6.12.117-hcbs accuracy q900_p1000_2cpu error -0.0$r cpu
	fig "$raw/hcbs-$r.jsonl" 6.12.117-hcbs accuracy q900_p1000_2cpu overrun_max_pct_q $((60 + r)) pct
	fig "$raw/hcbs-$r.jsonl" 6.12.117-hcbs accuracy q900_p1000_2cpu lagged $((r * 2)) count
	fig "$raw/hcbs-$r.jsonl" 6.12.117-hcbs vran q200_p500_hrtick_on overrun_beyond_timer_p99 $((r + 2)).5 us
	fig "$raw/hcbs-$r.jsonl" 6.12.117-hcbs vran q200_p500_hrtick_on hrtick_late_p99 $((r * 100)) us
	fig "$raw/hcbs-$r.jsonl" 6.12.117-hcbs scale rt_group alloc_per_cpu 2064 bytes
	fig "$raw/stock-$r.jsonl" 6.12.117-stock scale rt_group alloc_per_cpu 2160 bytes
	printf 'load_before 0.10 0.20 0.30\nload_after 1.90 1.00 0.50\nexit 0\naccel tcg\n' >"$raw/hcbs-$r.host"
	printf 'load_before 0.10 0.20 0.30\nload_after 1.90 1.00 0.50\nexit 0\naccel tcg\n' >"$raw/stock-$r.host"
done
# vm-run's steal figure, in one boot over the threshold and in one under it
echo 'steal 1.4' >>"$raw/hcbs-3.host"
echo 'steal 0.1' >>"$raw/stock-3.host"

"$report" --raw "$raw" --command "scripts/bench --rounds 3" --markdown "$HARNESS_TMP/r.md" \
	--json "$HARNESS_TMP/r.json" --plots >"$HARNESS_TMP/out" 2>&1 || fail "bench-report failed: $(cat "$HARNESS_TMP/out")"
md=$HARNESS_TMP/r.md
# medians 12 (11-13) and 21 (20-22): ratio 12/21 = 0.5714
expect_in "$md" '^\| root \| cpu_per_op \| us \| 12.00 \[11.00, 13.00\] \| 21.00 \[20.00, 22.00\] \| 0.5714 \|$' "the root row with medians, ranges and ratio"
# headline: hcbs group 22 over stock root 21
expect_in "$md" 'Switch path: CPU per pipe round trip.*\| 1.048x \| goal <= 1.05x \|' "the switch-path headline ratio"
# hcbs group 22 over hcbs root 12; RT memory per group per CPU 2064 / 2160
expect_in "$md" 'Switch path on hcbs: in a reserved group / in the root group \| 1.833x' "the group/root headline on hcbs"
expect_in "$md" 'per group per CPU: hcbs / stock \| 0.956x \| 2064 bytes against 2160 \|' "the RT memory headline"
expect_in "$md" 'Accuracy \(hcbs\): worst abs\(share - Q/P\) over the sweep \| 0.0020 CPU' "hcbs's worst accuracy error (median of -0.001..-0.003)"
expect_in "$md" 'Accuracy \(stock\): worst abs\(share - Q/P\) over the sweep \| 0.0200 CPU' "stock's worst accuracy error"
expect_in "$md" 'Accuracy \(hcbs, 2 CPUs\): worst abs\(share - Q/P\) over the sweep \| 0.0200 CPU \| 1 points' "the sweep on 2 CPUs apart"
expect_in "$md" '^share - Q/P \(hcbs, 2 CPUs\), CPU:$' "the 2-CPU grid's title"
expect_in "$md" '^\| 1 ms \| 62.0% \|$' "the 2-CPU overrun grid"
expect_in "$md" '^lag resets in the window: .*\(hcbs, 2 CPUs\):$' "the 2-CPU lag-reset grid's title"
expect_in "$md" '^\| 1 ms \| 4 \|$' "the 2-CPU lag-reset grid (median of 2, 4, 6)"
expect_in "$md" "200 us every 500 us: overrun beyond the hrtick's own lateness, p99 \\| 4.5 us \\| the timer's lateness p99 200.0 us" "the overrun split's headline"
expect_in "$md" 'Under TCG' "the emulation warning"
# the sweep as grids: rows P, columns Q/P; a point not measured is "-"
expect_in "$md" '^\| P \\ Q/P \| 50% \| 90% \|$' "the accuracy grid's columns"
expect_in "$md" '^\| 1 ms \| - \| -0.0020 \|$' "hcbs's grid row at 1 ms"
expect_in "$md" '^\| 10 ms \| \+0.0002 \| - \|$' "hcbs's grid row at 10 ms"
expect_in "$md" '^\| 1 ms \| 42.0% \|$' "the overrun grid (% of Q, median)"
if command -v gnuplot >/dev/null; then
	for p in accuracy-hcbs.png accuracy-stock.png accuracy-overrun.png \
		accuracy-hcbs-2cpu.png accuracy-overrun-2cpu.png; do
		[ -s "$HARNESS_TMP/$p" ] || fail "no heat map $p"
		grep -q "($p)" "$md" || fail "$p not in the report"
	done
fi
expect_in "$md" 'Reproduce: `scripts/bench --only pipe`' "the command per table"
expect_in "$md" 'hcbs-2 \(load 0.10 0.20 0.30 -> 1.90 1.00 0.50, exit 0\)' "the host load per boot"
expect_in "$md" 'hcbs-3 \(load 0.10 0.20 0.30 -> 1.90 1.00 0.50, steal 1.4%, exit 0\)' "the steal of a boot"
expect_in "$md" 'took 1.0% or more of its CPU time during hcbs-3: ' "the warning for the boot with steal, and only for it"
python3 - "$HARNESS_TMP/r.json" <<'EOF' || fail "bench.json does not hold the figures"
import json, sys
d = json.load(open(sys.argv[1]))
f = {(x["bench"], x["case"], x["metric"]): x for x in d["figures"]}
x = f[("pipe", "root", "cpu_per_op")]
assert x["kernels"]["hcbs"]["median"] == 12 and x["kernels"]["stock"]["n"] == 3, x
assert abs(x["ratio"] - 12 / 21) < 1e-9, x
assert d["accelerators"] == ["tcg"], d["accelerators"]
assert d["headline"][0]["value"] == "1.048x", d["headline"]
EOF
diag "medians, ranges, ratios, headline, JSON: ok"

# the hcbs kernel alone: no ratio column, no switch-path headline
rm -f "$raw"/stock-*
"$report" --raw "$raw" --markdown "$HARNESS_TMP/h.md" --json "$HARNESS_TMP/h.json" >/dev/null 2>&1 ||
	fail "bench-report failed on hcbs-only results"
expect_in "$HARNESS_TMP/h.md" '^\| Case \| Metric \| Unit \| hcbs \|$' "a table with the hcbs column only"
grep -q 'hcbs / stock' "$HARNESS_TMP/h.md" && fail "hcbs-only report has a ratio column"
diag "hcbs only: ok"

# errors
mkdir -p "$HARNESS_TMP/empty"
if "$report" --raw "$HARNESS_TMP/empty" --markdown "$HARNESS_TMP/e.md" --json "$HARNESS_TMP/e.json" >"$HARNESS_TMP/e.out" 2>&1; then
	fail "no figures: bench-report succeeded"
fi
expect_in "$HARNESS_TMP/e.out" "no figures in $HARNESS_TMP/empty" "the empty-directory error"
echo '{"kernel": "x", "bench":' >>"$raw/hcbs-2.jsonl"  # after its 11 figures
if "$report" --raw "$raw" --markdown "$HARNESS_TMP/b.md" --json "$HARNESS_TMP/b.json" >"$HARNESS_TMP/b.out" 2>&1; then
	fail "a broken line: bench-report succeeded"
fi
expect_in "$HARNESS_TMP/b.out" 'hcbs-2.jsonl:12: not JSON' "the file and line of the broken record"
diag "errors: ok"
exit 0
