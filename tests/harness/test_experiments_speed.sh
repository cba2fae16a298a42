#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/experiments-report's experiment 4 (scripts/experiments --only
# speed) on purpose-made boots of scripts/guest/cloudran --speed-shift:
# the tables of missed subframes against speed, the seed's curve beside
# them, the sizing per speed; and every sentence the section says, fed
# figures that contradict it, must change with them: the unreserved
# curve's shape (flat then steep, steep from the first halving, flat), the
# reservation sized at full speed (holds or not), the re-sized one (holds,
# does better or not, does not fit), and what it means for a governor.
. "$(dirname "$0")/lib.sh"

report=$HARNESS_ROOT/scripts/experiments-report

# mkspeed DIR SPEC: boots at shifts 0, 1, 2 into DIR/speed-sN.  SPEC is
# one line per shift, "SHIFT UNRESERVED KEPT RESIZED NEED1": vbbu1's
# missed subframes of 1000 in each mode (KEPT "-" at shift 0: no such
# run) and its re-sized need in us ("P": more than the period); vbbu1 is
# reserved min(need, 2000), vbbu2 the 250 us left, P = 2500 us.
mkspeed() {
	python3 - "$1" "$(cat)" <<'PY'
import json, os, sys
out = sys.argv[1]
def w(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
q0 = None
for line in sys.argv[2].splitlines():
    s, un, kept, rs, need = line.split()
    s = int(s)
    d = f"{out}/speed-s{s}"
    w(f"{d}/guest.txt", "release=6.12.117-hcbs\nkind=hcbs\naccel=tcg\nclock=virtual\ncpus=2\nduration=10\n"
      f"scale=10\nspeed_shift={s}\naperfmperf=no\n")
    need1 = None if need == "P" else int(need)
    r1 = 2000 if need1 is None else min(need1, 2000)
    if s == 0:
        q0 = r1
    w(f"{d}/sizing.json", json.dumps({"wcet": "p90", "calibration_run": "affinity-idle", "period_us": 2500,
      "cpus": 2, "free_per_cpu": 0.9, "capped": True, "containers": {
          "vbbu1": {"wcet_us": [900 << s, 300 << s, 200 << s, 600 << s], "utilization": 0.2 * (1 << s),
                    "need_us": need1, "reserved_us": r1},
          "vbbu2": {"wcet_us": [900 << s, 300 << s, 200 << s, 600 << s], "utilization": 0.2 * (1 << s),
                    "need_us": need1, "reserved_us": 250}}}))
    if s:
        w(f"{d}/kept-sizing.json", open(f"{out}/speed-s0/sizing.json").read())
    for mode, missed in (("affinity", un), ("kept", kept), ("hcbs", rs)):
        if missed == "-":
            continue
        rd = f"{d}/{mode}-idle"
        info = f"kind=hcbs\nmode={mode}\nscenario=idle\nscale=10\nduration=10\nspeed_shift={s}\n"
        if mode != "affinity":
            info += f"runtime_us={q0 if mode == 'kept' else r1}\nvbbu2.runtime_us=250\nperiod_us=2500\n"
        w(f"{rd}/run.txt", info)
        for c in ("vbbu1", "vbbu2"):
            m = int(missed) if c == "vbbu1" else 1000
            w(f"{rd}/{c}.json", json.dumps({"schema": "vbbu/1", "name": c, "tti_ns": 10000000, "subframes": 1000,
              "missed": m, "first_missed": None, "response_p50": 0.3, "response_p99": 0.9,
              "response_max": 2.5 if m else 0.75, "rt_cpu_ns": 4000000000 << s, "rt_work_ns": 2000000000 << s,
              "stopped_after_ns": None, "not_ended": 0,
              "job_cpu_ns": {"ru": {"p90": 900000 << s}}}))
PY
}

# run NAME SPEC: the report of boots SPEC in $HARNESS_TMP/NAME; its
# "What it shows" of experiment 4 in $HARNESS_TMP/NAME.says
run() {
	mkspeed "$HARNESS_TMP/$1"
	"$report" --data "$HARNESS_TMP/$1" --command "scripts/experiments --only speed" >"$HARNESS_TMP/$1.out" 2>&1 ||
		fail "experiments-report ($1) failed: $(cat "$HARNESS_TMP/$1.out")"
	sed -n '/^## Experiment 4/,$p' "$HARNESS_TMP/$1/report.md" | grep '^What it shows' >"$HARNESS_TMP/$1.says" ||
		fail "$1: no 'What it shows' in experiment 4: $(cat "$HARNESS_TMP/$1/report.md")"
}
# says NAME TEXT WHAT / says_not NAME TEXT WHAT: the sentence has (not) TEXT
says() { grep -qF -- "$2" "$HARNESS_TMP/$1.says" || fail "$1: $3: not said: $(cat "$HARNESS_TMP/$1.says")"; }
says_not() {
	[ -f "$HARNESS_TMP/$1.says" ] || fail "$1: $3: no report of $1 yet"
	! grep -qF -- "$2" "$HARNESS_TMP/$1.says" || fail "$1: $3: said: $(cat "$HARNESS_TMP/$1.says")"
}

# The seed's shape: flat to 1/2, steep at 1/4; the full-speed size loses
# subframes at the lower speeds, the re-sized one none, and at 1/4 it
# does not fit.
run seedlike <<'EOF2'
0 5 - 0 1800
1 8 40 0 1900
2 600 700 30 P
EOF2
md=$HARNESS_TMP/seedlike/report.md
expect_in "$md" '^## Experiment 4: the vBBU against CPU speed' "the section"
expect_in "$md" '^\| Relative speed \| unreserved \| reserved, sized at full speed \| reserved, re-sized at this speed \|$' "the table's columns"
expect_in "$md" '^\| 1 \| 5/1000 \(0.5 %\), max 2.50 \| 0/1000 \(0.0 %\), max 0.75 \(the re-sized run: the same size\) \| 0/1000 \(0.0 %\), max 0.75 \|$' "full speed: the kept column is the re-sized run"
expect_in "$md" '^\| 1/4 \| 600/1000 \(60.0 %\), max 2.50 \| 700/1000 \(70.0 %\), max 2.50 \| 30/1000 \(3.0 %\), max 2.50 \|$' "quarter speed"
expect_in "$md" '^\| above a threshold frequency \| .*essentially unchanged' "the seed's curve beside"
expect_in "$md" '001_a8bfbacc038ee1d8.txt' "the seed cited by its file"
expect_in "$md" '004_39d058149242cce5.txt' "004 cited by its file"
expect_in "$md" '^\| 1/4 \| 3600 / 1200 / 800 / 2400 \| > P / 2000 \(short\) \| > P / 250 \(short\) \| 2500 \| 16.00 ms \| 3.28 \|$' "the sizing at 1/4, the full-speed reservations stretched x4"
expect_in "$md" 'has no APERF/MPERF' "the invariance note"
says seedlike "within a point of full speed's down to 1/2, then 60.0 % at 1/4: the seed's two regimes" "flat then steep"
says seedlike "The reservation sized at full speed (1800 us every 2500 us on each CPU) missed 0.0 % at 1, 4.0 % at 1/2, 70.0 % at 1/4: a reservation for the speed it was sized at only, 40 more subframes lost at 1/2, 700 more subframes lost at 1/4" "the full-speed size fails lower"
says seedlike "at 1/2 (40 against 8), 1/4 (700 against 600) it lost more than no reservation at all" "worse than unreserved"
says seedlike "re-sizing cut the misses at 1/2 from 40 to 0, 1/4 from 700 to 30" "re-sizing helps"
says seedlike "at 1/4 vbbu1's re-sized need is more than the period: no reservation of these CPUs holds it, even alone" "does not fit at 1/4, even alone"
says seedlike "is not a guarantee under a governor that lowers the frequency (here vbbu1 lost 40 of 1000 subframes at 1/2 and 700 of 1000 subframes at 1/4): pin the performance governor" "the governor"
says seedlike "re-sized, vbbu1 missed no more at 1/2 than at full speed" "the re-sized size held where it fit"
says seedlike "sized at 1/4, the vBBUs do not fit these CPUs" "a speed the cells do not fit"
says seedlike "stretched, the two reservations would take 1.64 of each CPU at 1/2, 3.28 of each CPU at 1/4, more than a CPU has" "frequency invariance would not save it"
says_not seedlike "kept every deadline at every speed" "misses were made"
diag "the seed's shape, the tables, the sentences: ok"

# Every claim contradicted: the unreserved misses rise from the first
# halving, the full-speed size and the re-sized one keep every deadline.
run flatres <<'EOF2'
0 5 - 0 1500
1 100 0 0 1600
2 995 0 0 1700
EOF2
says flatres "its misses rise from the first halving, and more at each halving than at the one before (nonlinear" "steep from the first halving"
says flatres "so the threshold speed of the seed's curve, if this one has it, lies between full speed and 1/2" "the threshold above 1/2"
says flatres "at 1/4 nearly every subframe is late" "saturated at 1/4"
says_not seedlike "nearly every subframe is late" "60 % is not saturated"
says_not flatres "the seed's two regimes" "no flat part"
says flatres "The reservation sized at full speed (1500 us every 2500 us on each CPU) kept every deadline at every speed measured, down to 1/4" "the full-speed size held"
says flatres "Re-sized at each speed (1500 us at 1, 1600 us at 1/2, 1700 us at 1/4), the reservation kept every deadline at every speed" "the re-sized size held"
says flatres "here the reservation sized at full speed held as well at every speed measured, down to 1/4" "no governor warning without misses"
says_not flatres "is not a guarantee" "a warning the figures do not carry"
says_not flatres "is more than the CPUs admit" "every need fit"
says_not flatres "re-sizing cut" "nothing to cut"
says_not flatres "more than no reservation" "the full-speed size lost nothing"
diag "claims contradicted: rising curve, both sizes holding: ok"

# Flat unreserved curve; the full-speed size misses as much at every
# speed; the re-sized one does no better, and at 1/2 does not fit
# beside vbbu2 (which then misses every subframe).
run flat <<'EOF2'
0 5 - 3 1500
1 6 3 3 2100
2 7 3 5 1700
EOF2
says flat "within a point of full speed's at every speed measured, so no threshold down to 1/4" "a flat curve"
says flat "missed 0.3 % at 1, 0.3 % at 1/2, 0.3 % at 1/4: no more at the lower speeds than at full speed" "kept: no worse"
says flat "at 1/2, 1/4 it did no better than the full-speed size" "re-sizing no better"
says flat "at 1/2 vbbu1's re-sized need (2100 us every 2500 us) and vbbu2's (2100 us) are more than the CPUs admit together: vbbu1 got 2000 us, vbbu2 the 250 us left and missed 1000 of 1000" "both needs do not fit"
says_not flat "is not a guarantee" "no worse at lower speeds: no warning"
says_not flat "kept every deadline" "misses were made"
diag "claims contradicted: flat curve, no worse at lower speeds: ok"

# One speed only: no comparison to make, no sentence.
mkdir -p "$HARNESS_TMP/one"
mkspeed "$HARNESS_TMP/one" <<<'0 5 - 0 1500'
"$report" --data "$HARNESS_TMP/one" >"$HARNESS_TMP/one.out" 2>&1 || fail "one speed: $(cat "$HARNESS_TMP/one.out")"
expect_in "$HARNESS_TMP/one/report.md" '^\| 1 \| 5/1000' "one speed: the table"
! grep -q '^What it shows: Unreserved' "$HARNESS_TMP/one/report.md" || fail "one speed: a curve claimed from one point"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["speed"]["0"]["runs"]["affinity-idle"]["vbbu"]["vbbu1"]["missed"] == 5, d["speed"]' \
	"$HARNESS_TMP/one/experiments.json" || fail "experiments.json: speed"
diag "one speed: table, no claims, JSON: ok"
exit 0
