#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hcbsctl overhead and --overhead auto on the hcbs kernel: the measurement
# runs (a SCHED_FIFO process in a temporary group), is schema-valid JSON,
# finds the server charged at least the jobs' own work (no fit below zero),
# leaves no group and no bandwidth behind and the root's subtree_control as
# it found it; analyze --overhead auto adds exactly what it measured to
# every WCET, and set --taskset --overhead auto reserves more than without
# it.  The temporary group's cpuset holds the measured CPU; SIGINT and
# SIGTERM mid-run leave nothing behind; other reservations give a warning.
# A CPU that is not online, and a full CPU, are refused with one line.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip_all "python3 not installed"
[ -x "$HCBSCTL" ] || skip_all "$HCBSCTL not built (meson compile -C \$HCBS_BUILD)"
[ "$(stat -fc %T $CGROOT)" = cgroup2fs ] || skip_all "cgroup v2 not mounted at $CGROOT"
probe_hcbs || skip_all "kernel without HCBS: no cpu.rt.max in a new cpu cgroup ($(uname -r))"
[ "$HCBS_IFACE" = cpu.rt.max ] || skip_all "these tests read cpu.rt.max; the kernel offers $HCBS_IFACE"

TS=$HCBS_ROOT/docs/examples/paper.ts
subtree0=$(cat $CGROOT/cgroup.subtree_control)
total_bw() { awk '/dl_bw->total_bw/ { s += $3 } END { print s + 0 }' /sys/kernel/debug/sched/debug 2>/dev/null; }
bw0=$(total_bw)
left_behind() { ls -d $CGROOT/hcbs-overhead-* 2>/dev/null; }

run 0 "$HCBSCTL" overhead && grep -q '^per job: +' "$OUT" && [ -z "$(left_behind)" ]
ok $? "overhead: measured, nothing left behind"
diag <"$OUT"
run 0 "$HCBSCTL" --json overhead 1 && valid_json && python3 - "$OUT" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
m, o = d["measurement"], d["overhead"]
assert m["cpu"] == 1, m
for r in m["runs"]:
    # the server pays at least the jobs' own CPU time, and not 10x more
    assert r["jobs"] * r["work_ns"] <= r["charged_ns"] < 10 * r["jobs"] * r["work_ns"], r
# the fit reproduces the short series (the time per job dominates there)
r = m["runs"][0]
per = r["charged_ns"] / r["jobs"]
fit = o["per_job_ns"] + r["work_ns"] * (1 + o["percent"] / 100)
assert abs(fit - per) <= 0.02 * per + 1000, (fit, per)
print(f"# CPU 1: {o['per_job_ns']} ns per job + {o['percent']} % of the WCET")
EOF
ok $? "overhead --json on CPU 1: schema-valid, charged >= work, the fit matches the series"
[ "$(cat $CGROOT/cgroup.subtree_control)" = "$subtree0" ] && [ -z "$(left_behind)" ] &&
	[ "$(total_bw)" = "$bw0" ]
ok $? "nothing left behind: no group, subtree_control '$subtree0', total_bw $(total_bw) (was $bw0)"

# The temporary group: its cpuset holds the measured CPU alone, when the
# controller is there (its reservation then takes bandwidth on that CPU only).
python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["measurement"]; sys.exit(not (m["reserved_groups"] == 0 and m["warning"] is None and m["cpuset"] == ("cpuset" in open("/sys/fs/cgroup/cgroup.controllers").read().split())))' "$OUT"
ok $? "overhead --json: no reservation beside it, no warning, cpuset as the controllers allow"

# Stopped by SIGINT or SIGTERM mid-measurement: the measured process killed,
# the group removed, subtree_control and the bandwidth as they were, one
# line, and death by the signal (128 + N).  env resets SIGINT, which a
# script's background job inherits ignored.
last_cpu=$(tr ',' '\n' </sys/devices/system/cpu/online | tail -1 | sed 's/.*-//')
for sig in INT TERM; do
	env --default-signal=INT "$HCBSCTL" overhead >"$OUT" 2>"$ERR" &
	pid=$!
	g=$CGROOT/hcbs-overhead-$pid kids= cpus=
	for _ in $(seq 200); do
		kids=$(cat "$g/cgroup.procs" 2>/dev/null) && [ -n "$kids" ] && break
		sleep 0.05
	done
	cpus=$(cat "$g/cpuset.cpus.effective" 2>/dev/null)
	sleep 0.5	# into the first series
	kill -$sig $pid
	wait $pid
	rc=$?
	gone=1
	for k in $kids; do
		[ -e /proc/$k ] && gone=0
	done
	want=$((128 + $(kill -l $sig)))
	[ -n "$kids" ] && [ $rc = $want ] && [ $gone = 1 ] && [ ! -e "$g" ] && [ -z "$(left_behind)" ] &&
		[ "$(wc -l <"$ERR")" = 1 ] &&
		grep -q "^hcbsctl: interrupted by SIG$sig: the measured process was killed and $g removed\$" "$ERR" &&
		[ "$(cat $CGROOT/cgroup.subtree_control)" = "$subtree0" ] && [ "$(total_bw)" = "$bw0" ]
	ok $? "SIG$sig mid-measurement: exit $rc (want $want), measured process(es) ${kids:-none seen} gone, $g removed, subtree_control and total_bw as before: $(cat "$ERR")"
	if grep -qw cpuset $CGROOT/cgroup.controllers; then
		[ "$cpus" = "$last_cpu" ]
		ok $? "SIG$sig: the temporary group's cpuset held CPU $last_cpu alone (cpuset.cpus.effective '$cpus')"
	fi
done

# Another reservation beside the measurement: measured, with the warning on
# stderr and in the JSON.
other=$CGROOT/hcbs-overhead-other.$$
mkdir "$other" && echo "10000 100000" >"$other/cpu.rt.max" &&
	run 0 "$HCBSCTL" --json overhead && valid_json &&
	grep -q "^hcbsctl: warning: 1 reserved group on this machine, 1 of them on CPU $last_cpu: their servers ran beside the measurement" "$ERR" &&
	python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["measurement"]; sys.exit(not (m["reserved_groups"] == 1 and m["reserved_on_cpu"] == 1 and m["warning"].startswith("1 reserved group on this machine")))' "$OUT"
ok $? "overhead beside a reserved group: measured, warning on stderr and in the JSON: $(cat "$ERR")"
rmdir "$other"

run 1 "$HCBSCTL" overhead 4096 && [ "$(wc -l <"$ERR")" = 1 ] && grep -q 'CPU 4096 is not online' "$ERR"
ok $? "overhead 4096: exit 1: $(cat "$ERR")"

# a CPU with no room for the measurement's 0.4: refused, nothing left behind
full=$CGROOT/hcbs-overhead-full.$$
mkdir "$full" && avail=$(awk -v f="$("$HCBSCTL" --json free | python3 -c 'import json,sys; print(min(c["free"] for c in json.load(sys.stdin)["cpus"]))')" 'BEGIN { printf "%d", f * 100000 - 1000 }') &&
	echo "$avail 100000" >"$full/cpu.rt.max"
ok $? "a group takes all but 0.01 of every CPU ($avail us / 100 ms)"
run 2 "$HCBSCTL" overhead && [ "$(wc -l <"$ERR")" = 1 ] && grep -q "the measurement's own reservation" "$ERR" &&
	[ -z "$(left_behind | grep -v "$full")" ]
ok $? "overhead with no room: exit 2, one line, nothing left behind: $(cat "$ERR")"
rmdir "$full"

run 0 "$HCBSCTL" --json analyze "$TS" --period 18ms --overhead auto && valid_json && python3 - "$OUT" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
o = d["overhead"]
assert o["measured"] is not None and len(o["measured"]["runs"]) == 2, o
for t in d["taskset"]["tasks"]:
    c = t["declared_wcet_ns"]
    want = c + o["per_job_ns"] + -(-c * round(o["percent"] * 100) // 10000)
    assert t["wcet_ns"] == want, (t, want)
print(f"# least runtime at 18ms with the measured overhead: {d['reservation']}")
EOF
ok $? "analyze --overhead auto --json: the measurement, and every WCET = declared + per job + percent"
run 0 "$HCBSCTL" analyze "$TS" --period 18ms --overhead auto && grep -q '^overhead +.* (--overhead auto): every WCET below includes it' "$OUT" &&
	grep -q '^measured on CPU ' "$OUT"
ok $? "analyze --overhead auto: prints the measurement and what it added"
diag <"$OUT"

g=$CGROOT/hcbs-overhead-set.$$
mkdir "$g"
run 0 "$HCBSCTL" --cgroup "$g" set --taskset "$TS" --period 18ms && q0=$(cut -d' ' -f1 "$g/cpu.rt.max") &&
	run 0 "$HCBSCTL" --cgroup "$g" set --taskset "$TS" --period 18ms --overhead auto &&
	q1=$(cut -d' ' -f1 "$g/cpu.rt.max") && [ "$q1" -gt "$q0" ] && grep -q '^per job: +' "$OUT"
ok $? "set --taskset --overhead auto reserves more than without: ${q1:-?} us > ${q0:-?} us at 18 ms"
rmdir "$g"
[ -z "$(left_behind)" ] && [ "$(total_bw)" = "$bw0" ]
ok $? "at the end: no group left, total_bw back to $bw0"
finish
