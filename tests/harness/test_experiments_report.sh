#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/experiments-report on purpose-made runs of scripts/guest/fig3:
# per-run and per-task counts and lateness computed from periodic's logs,
# the analysis verdicts, the paper's expectation and whether the run agrees,
# the CSV for the plots (and the plots, with gnuplot), the side-by-side
# table, the TCG paragraph; and the errors: no runs, a broken log line.
. "$(dirname "$0")/lib.sh"

report=$HARNESS_ROOT/scripts/experiments-report
plot=$HARNESS_ROOT/tools/probes/plot-lateness-cdf
data=$HARNESS_TMP/data
hcbsctl=${HCBS_BUILD:-$HARNESS_ROOT/build}/tools/hcbsctl/hcbsctl
[ -x "$hcbsctl" ] || skip "hcbsctl is not built"

# mkrun KERNEL RUN MISS_T5: logs where every job of t5 responds in 1.2 T
# if MISS_T5, else every job of every task in 0.5 T
mkrun() {
	local d=$data/$1/$2
	mkdir -p "$d"
	python3 - "$d" "$3" <<'PY'
import sys
d, miss = sys.argv[1], sys.argv[2] == "1"
tasks = [(4879, 30000), (561, 36000), (10427, 104000), (4408, 109000), (20271, 250000)]
for i, (c, t) in enumerate(tasks, 1):
    with open(f"{d}/t{i}.log", "w") as f:
        f.write("# job release_ns start_ns end_ns response_ns miss\n")
        for k in range(10):
            rel = k * t * 1000
            resp = int(t * 1000 * (1.2 if (miss and i == 5) else 0.5))
            f.write(f"{k} {rel} {rel + 1000} {rel + resp} {resp} {int(resp > t * 1000)}\n")
        f.write(f"# jobs 10 misses 0 period_ns {t * 1000} deadline_ns {t * 1000}\n")
PY
	printf 'kind=%s\nsetting=%s\n' "$1" "$2" >"$d/run.txt"
}
for k in hcbs stock; do
	mkdir -p "$data/$k"
	printf 'release=6.12.117-%s\nkind=%s\naccel=tcg\ncpus=2\nduration=20\n' "$k" "$k" >"$data/$k/guest.txt"
	mkrun $k 8ms-18ms 0
	mkrun $k 16ms-36ms 0
	mkrun $k 32ms-72ms 1
	for r in 8ms/18ms 16ms/36ms 32ms/72ms; do
		"$hcbsctl" --json analyze "$HARNESS_ROOT/docs/examples/paper.ts" --reservation "$r" \
			>"$data/$k/analyze-${r/\//-}.json"
	done
done
mkrun stock affinity 1

args=(--data "$data" --command "scripts/experiments --test")
command -v gnuplot >/dev/null && args+=(--plot "$plot")
"$report" "${args[@]}" >"$HARNESS_TMP/out" 2>&1 || fail "experiments-report failed: $(cat "$HARNESS_TMP/out")"
md=$data/report.md
expect_in "$md" '^\| 8ms/18ms \| schedulable \| 7.955 ms \| 50 \| 0 \| -0.500 \| -0.500 \| CSF guarantees it.* \| yes \|$' "8/18: analysis, counts, paper, agreement"
expect_in "$md" '^\| 16ms/36ms \| not guaranteed \| 23.440 ms \| 50 \| 0 \|.* \| yes \|$' "16/36: not guaranteed, no miss, agrees"
expect_in "$md" '^\| 32ms/72ms \| not guaranteed \|.*\| 50 \| 10 \(spread over 2.2 s\) \| 0.200 \|.*deadlines missed.* \| yes \|$' "32/72: 10 misses of t5, 250 ms apart: spread over 2.25 s; max l 0.2; agrees"
expect_in "$md" '^\| 32ms/72ms \| -0.50 \(0/10\) \| -0.50 \(0/10\) \| -0.50 \(0/10\) \| -0.50 \(0/10\) \| 0.20 \(10/10\) \|$' "per-task maxima"
expect_in "$md" '^\| affinity only \| - \| 10 / 50, 0.200 \|$' "stock's affinity run beside"
expect_in "$md" 'Under TCG' "the emulation paragraph"
expect_in "$md" '^## Experiment 2: the same on stock 6.12' "the stock section"
[ "$(wc -l <"$data/hcbs.csv")" = 151 ] || fail "hcbs.csv: $(wc -l <"$data/hcbs.csv") lines, expected 151 (3 runs x 50 jobs + header)"
head -1 "$data/hcbs.csv" | grep -q '^container,cgroup_id,pid,tid,comm,job,' || fail "hcbs.csv: not the header of hcbstrace lateness"
if command -v gnuplot >/dev/null; then
	for p in fig3-hcbs.png fig3-hcbs-window.png fig3-stock.png fig3-stock-window.png; do
		[ -s "$data/$p" ] || fail "no $p"
	done
	expect_in "$md" '!\[Figure 3 on hcbs, l in \[-1, 1\]\]\(fig3-hcbs-window.png\)' "the window plot in the report"
fi
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["kernels"]["hcbs"]["runs"][2]; assert r["missed"] == 10 and r["tasks"][4]["missed"] == 10, r' \
	"$data/experiments.json" || fail "experiments.json"
diag "tables, agreement, CSV, plots, JSON: ok"

mkdir -p "$HARNESS_TMP/empty"
if "$report" --data "$HARNESS_TMP/empty" >"$HARNESS_TMP/e" 2>&1; then fail "no runs: accepted"; fi
expect_in "$HARNESS_TMP/e" "no runs in $HARNESS_TMP/empty" "the no-runs error"
echo "1 2 3" >>"$data/hcbs/8ms-18ms/t2.log"
if "$report" --data "$data" >"$HARNESS_TMP/b" 2>&1; then fail "a broken log: accepted"; fi
expect_in "$HARNESS_TMP/b" 't2.log:13: expected 6 fields, got 3' "the file and line of the broken log row"
diag "errors: ok"
exit 0
