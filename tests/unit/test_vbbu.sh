#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/workloads/vbbu: --help, every refusal of its command line (exit 2,
# one line naming what was wrong and what is accepted, nothing run), the
# flood/sink interface check, and a short run of the vBBU (SCHED_FIFO: as
# root; else the refusal, exit 4) with its JSON and per-subframe log.
# Usage: test_vbbu.sh VBBU SRC
VBBU=$1 SRC=$2
# shellcheck source=tests/unit/cli-lib.sh
. "$SRC/tests/unit/cli-lib.sh"

one_line() {	# exit status $1, stderr one line "vbbu: ..." matching $2
	[ "$rc" = "$1" ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -qE "^vbbu: .*$2" "$T/err"
}

run 0 "$VBBU" --help
ok $? "--help exits 0"
grep -q '^Usage: vbbu' "$T/out" && grep -q 'lte-softmodem' "$T/out"
ok $? "--help: usage and the threads"

refuse() {	# refuse PATTERN ARGS...: exit 2, one line matching PATTERN
	local pat=$1
	shift
	run 2 "$VBBU" "$@"
	one_line 2 "$pat"
	ok $? "refused: $* ($(head -c 100 "$T/err"))"
}
refuse "--cost 'xx=1us': unknown key 'xx' \(accepted: ru, fep, feptx, lte, udp, gtp\)" --cost xx=1us
refuse "--cost 'ru': 'ru' is not key=DURATION" --cost ru
refuse "--cost ru 'abc': invalid duration" --cost ru=abc
refuse "--cost: ru \+ max\(fep, feptx\) = 1.100 ms does not fit in a TTI of 1.000 ms" --cost ru=900us,fep=200us
refuse "--scale '0': accepted: a whole number from 1 to 1000" --scale 0
refuse "--scale '1001'" --scale 1001
refuse "--scale '-1'" --scale -1
refuse "--prio '1': accepted: a whole number from 2 to 99" --prio 1
refuse "--prio '100'" --prio 100
refuse "--rate '0'" --rate 0
refuse "--duration '0s': must be more than 0" --duration 0s
refuse "--duration '0': .*has no unit" --duration 0
refuse "--tti '5'" --tti 5
refuse "--duration 0.005 s is shorter than one TTI" --tti 10ms --duration 5ms
refuse "unexpected argument 'x'" x
refuse "flood needs one interface name" flood
refuse "--size '59': accepted: a whole number from 60 to 1514" flood lo --size 59
run 2 "$VBBU" --bogus
[ "$rc" = 2 ] && grep -q 'see vbbu --help' "$T/err"
ok $? "an unknown option: exit 2, pointing at --help"

run 1 "$VBBU" flood no-such-if0 --duration 1s
one_line 1 "interface 'no-such-if0': .*create it first"
ok $? "flood on a missing interface: one line, exit 1"

# A short run: 20 subframes of 5 ms, 0.2 CPU of work at SCHED_FIFO 97.
if [ "$(id -u)" = 0 ]; then
	run 0 "$VBBU" --name t --tti 5ms --duration 100ms --json "$T/v.json" --log "$T/v.log"
	ok $? "a 100 ms run exits 0"
	grep -qE '^vbbu: t: starting: 20 subframes of 5.000 ms, 0.04 CPU of RT work, deadline 5.000 ms$' "$T/out" &&
		grep -qE '^vbbu: t: 20 subframes of 5.000 ms, [0-9]+ missed' "$T/out"
	ok $? "the start and summary lines"
	python3 - "$T/v.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "vbbu/1" and d["name"] == "t", d
assert d["subframes"] == 20 and d["tti_ns"] == 5000000 and d["deadline_ns"] == 5000000, d
assert d["cost_ns"] == {"ru": 90000, "fep": 30000, "feptx": 20000, "lte": 60000,
                        "udp": 10000, "gtp": 10000}, d
assert 0 <= d["missed"] <= 20 and d["response_p50"] > 0, d
# each RT thread's CPU time: at least its work, per job and in all
for k in ("ru", "fep", "feptx", "lte"):
    c = d["job_cpu_ns"][k]
    assert d["cost_ns"][k] <= c["mean"] <= c["max"], (k, c)
    assert d["cost_ns"][k] <= c["p50"] <= c["p90"] <= c["p95"] <= c["p99"] <= c["max"], (k, c)
    assert d["cpu_ns"][k] >= 20 * d["cost_ns"][k], (k, d["cpu_ns"])
assert d["rt_work_ns"] == 20 * 200000 and d["rt_cpu_ns"] >= d["rt_work_ns"], d
PY
	ok $? "the JSON summary: schema, subframes, costs, the threads' CPU time"
	[ "$(grep -vc '^#' "$T/v.log")" = 20 ] &&
		awk '!/^#/ { if (NF != 12 || $3 < $2 || $4 < $3 || $6 < $5 || $7 != $6 - $2 ||
			$9 < 90000 || $12 < 60000) exit 1 }' "$T/v.log"
	ok $? "the per-subframe log: 20 rows, ordered times, response = end - release, jobs' CPU time"
	run 0 "$VBBU" --tti 1ms --scale 5 --duration 50ms --json "$T/s.json"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["tti_ns"] == 5000000 and d["subframes"] == 10 and d["cost_ns"]["ru"] == 450000, d' "$T/s.json"
	ok $? "--scale 5: TTI and costs times 5"
	# stop (SIGINT/SIGTERM): a summary of the subframes due by then
	# SECONDS after its "starting" line (from then on vbbu takes the
	# signal: a slow start, as under ASan on a busy host, does not kill it)
	stop_after() {	# stop_after SECONDS SIGNAL CMD...: the run, stopped
		local s=$1 sig=$2 i
		shift 2
		: >"$T/out"
		"$@" >"$T/out" 2>"$T/err" &
		local pid=$!
		for ((i = 0; i < 500; i++)); do
			grep -q ': starting: ' "$T/out" && break
			sleep 0.02
		done
		sleep "$s"
		kill -"$sig" "$pid"
		wait "$pid"
		rc=$?
	}
	stop_after 0.5 INT "$VBBU" --tti 5ms --duration 60s --json "$T/i.json" --log "$T/i.log"
	[ "$rc" = 0 ] && grep -qE '^vbbu: vbbu: stopped after 0\.[0-9]+ s: [0-9]+ subframes due, 0 of them not ended$' "$T/out"
	ok $? "SIGINT ends the run early with exit 0 and says so"
	python3 - "$T/i.json" "$T/i.log" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = [l.split() for l in open(sys.argv[2]) if not l.startswith("#")]
assert 10 <= d["subframes"] < 12000 and d["not_ended"] == 0, d
assert 0 < d["stopped_after_ns"] < 60e9 and d["job_cpu_ns"]["ru"]["mean"] >= 90000, d
assert len(rows) == d["subframes"] and d["rt_work_ns"] == d["subframes"] * 200000, (len(rows), d)
PY
	ok $? "stopped: the due subframes in the JSON and the log, their work"
	# 1.6 CPU of work on one CPU falls behind: what is due and not ended is missed
	stop_after 0.6 TERM taskset -c 0 "$VBBU" --tti 5ms --cost ru=3ms,fep=1500us,feptx=1500us,lte=2ms \
		--duration 60s --json "$T/b.json" --log "$T/b.log"
	python3 - "$T/b.json" "$T/b.log" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = [l.split() for l in open(sys.argv[2]) if not l.startswith("#")]
assert d["subframes"] > 0 and d["not_ended"] > 0 and d["missed"] == d["subframes"], d
assert d["first_missed"] == 0 and d["response_max"] > 1, d
ended = d["subframes"] - d["not_ended"]
assert d["rt_work_ns"] == ended * 8000000, d
late = rows[ended:]
assert len(rows) == d["subframes"] and late and all(r[5] == late[0][5] and r[7] == "1" for r in late), late[:3]
PY
	py=$?
	[ "$rc" = 0 ] && [ "$py" = 0 ]
	ok $? "SIGTERM on a run behind: the due subframes not ended count as missed, ended at the stop"
	stop_after 0.2 INT "$VBBU" --tti 1s --duration 60s --json "$T/z.json"
	[ "$rc" = 0 ] && grep -q 'stopped after .* 0 subframes due' "$T/out" &&
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["subframes"] == 0 and d["missed"] == 0 and d["job_cpu_ns"] is None and d["response_max"] == 0, d' "$T/z.json"
	ok $? "stopped before the first deadline: nothing due, exit 0"
	run 1 "$VBBU" --tti 5ms --duration 10ms --log /nonexistent/dir/v.log
	one_line 1 "/nonexistent/dir/v.log: No such file or directory"
	ok $? "an unwritable log: one line, exit 1"
else
	run 4 "$VBBU" --tti 5ms --duration 10ms
	[ "$rc" = 4 ] && grep -q 'SCHED_FIFO' "$T/err"
	ok $? "not root: SCHED_FIFO refused, exit 4"
fi

echo "1..$n"
[ "$failed" = 0 ]
