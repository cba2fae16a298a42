#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest halves of scripts/demo and scripts/experiments run end to end
# on the hcbs kernel, briefly: scripts/demo-guest, scripts/guest/fig3 (one
# setting) and scripts/guest/cloudran (idle and kernel, both modes).  Only
# the plumbing is judged (exit 0, every file each promises, the
# reservations read back as set), never the timing: none of them runs in
# CI otherwise, and a demo that dies at its last step (hcbsctl refusing an
# option) went unnoticed for days.
. "$(dirname "$0")/lib.sh"
require_tools
probe_hcbs || skip_all "kernel without HCBS: no cpu.rt.max in a new cpu cgroup ($(uname -r))"
[ "$HCBS_IFACE" = cpu.rt.max ] || skip_all "the guest scripts use cpu.rt.max; the kernel offers $HCBS_IFACE"
for t in stress-ng ip; do
	command -v $t >/dev/null || skip_all "$t not installed"
done
[ -x "$HCBS_BUILD/tools/probes/hcbstrace" ] || skip_all "hcbstrace not built"
[ -x "$HCBS_BUILD/tools/workloads/vbbu" ] || skip_all "vbbu not built"
base_container || skip_all "lxc-create -t busybox failed"

# guest SCRIPT ARGS...: run it with a HCBS_TMP of its own (each uses
# $HCBS_TMP/lxc and names its containers), output in $OUT
guest() {
	local tmp
	tmp=$(mktemp -d -p "$HCBS_TMP")
	HCBS_TMP=$tmp timeout 900 "$@" >"$OUT" 2>&1
	rc=$?
	[ $rc = 0 ] || { echo "# $(basename "$1") exited $rc:"; tail -n 15 "$OUT" | diag; }
	return $rc
}
# files DIR NAME...: every NAME is a non-empty file in DIR
files() {
	local d=$1 f
	shift
	for f in "$@"; do
		[ -s "$d/$f" ] || { echo "# no $d/$f"; return 1; }
	done
}
json_has() {	# json_has FILE PYTHON-EXPRESSION-ON-d
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}

D=$HCBS_TMP/demo
mkdir -p "$D"	# scripts/demo makes it
# 8 s: hcbstrace lateness infers each thread's period from its releases
guest "$HCBS_ROOT/scripts/demo-guest" --duration 8 --base "$BASE_LXCP" "$D"
ok $? "demo-guest --duration 8 exits 0"
files "$D" guest.txt reservation.txt no-reservation.json reservation.json no-reservation.csv \
	reservation.csv hcbsctl-list.txt hcbsctl-free.txt hcbsctl-get-vbbu1.txt servers.txt
ok $? "demo-guest: every file the demo reads"
json_has "$D/reservation.json" 'sorted(c["name"] for c in d["containers"]) == ["vbbu1", "vbbu2"] and all(c["jobs"] for c in d["containers"])'
ok $? "demo-guest: lateness of vbbu1 and vbbu2, with jobs"
grep -qE '^vbbu1=[0-9]+(us|ms)/18ms$' "$D/reservation.txt" && grep -q 'reserved' "$D/hcbsctl-free.txt"
ok $? "demo-guest: vbbu1's reservation and hcbsctl free"

F=$HCBS_TMP/fig3
# --no-auto: what a job costs is measured under TCG, and on a busy host no
# runtime may hold (fig3 then says so); not a question for this test
guest "$HCBS_ROOT/scripts/guest/fig3" --duration 3 --base "$BASE_LXCP" --settings 8ms/18ms --no-auto "$F"
ok $? "guest/fig3 --duration 3 --settings 8ms/18ms --no-auto exits 0"
files "$F" guest.txt analyze-8ms-18ms.json 8ms-18ms/run.txt 8ms-18ms/t1.log 8ms-18ms/t5.log
ok $? "guest/fig3: the setting's logs and analysis"
grep -q '^cpu.rt.max=8000 18000$' "$F/8ms-18ms/run.txt" && grep -q '^kind=hcbs$' "$F/guest.txt"
ok $? "guest/fig3: the reservation read back as set"

C=$HCBS_TMP/cloudran
guest "$HCBS_ROOT/scripts/guest/cloudran" --duration 3 --base "$BASE_LXCP" --scenarios idle,kernel \
	--overhead 150us "$C"
ok $? "guest/cloudran --duration 3 --scenarios idle,kernel exits 0"
r=0
for run in affinity-idle affinity-kernel hcbs-idle hcbs-kernel; do
	files "$C/$run" run.txt vbbu1.json vbbu2.json vbbu1.log latency.json || r=1
done
ok $r "guest/cloudran: both modes, both scenarios, every file"
r=0
for run in affinity-idle hcbs-kernel; do
	json_has "$C/$run/vbbu1.json" 'd["schema"] == "vbbu/1" and d["subframes"] > 0' || r=1
	json_has "$C/$run/latency.json" '{"ru-thread", "lte-softmodem", "fep_processing", "feptx_thread"} <= {t["comm"] for t in d["threads"] if t["container"] == "vbbu1"}' || r=1
done
ok $r "guest/cloudran: vbbu's summaries; hcbstrace saw vbbu1's RT threads by name"
q=$(sed -n 's/^runtime_us=//p' "$C/hcbs-idle/run.txt")
grep -q "^vbbu1.cpu.rt.max=$q 2500$" "$C/hcbs-idle/run.txt" && grep -q '^flood=vbbu: flood on vbh0: [1-9]' "$C/hcbs-kernel/run.txt"
ok $? "guest/cloudran: the analysed reservation set (${q:-?}us/2500us), the flood sent frames"
finish
