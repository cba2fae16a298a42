#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/guest/cloudran, experiment 3 of scripts/experiments: idle and
# kernel, affinity and hcbs, 3 s each.
# (plumbing only; see guest_scripts_lib.sh)
. "$(dirname "$0")/guest_scripts_lib.sh"

C=$HCBS_TMP/cloudran
guest "$HCBS_ROOT/scripts/guest/cloudran" --duration 3 --base "$BASE_LXCP" --scenarios idle,kernel "$C"
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
# the reservations sized from what the affinity-idle run measured
json_has "$C/sizing.json" 'd["calibration_run"] == "affinity-idle" and d["wcet"] == "p90" and d["period_us"] == 2500 and all(c["reserved_us"] > 0 and len(c["wcet_us"]) == 4 for c in d["containers"].values())'
ok $? "guest/cloudran: sizing.json from the affinity-idle run's per-job CPU times"
q=$(sed -n 's/^runtime_us=//p' "$C/hcbs-idle/run.txt")
grep -q "^vbbu1.cpu.rt.max=$q 2500$" "$C/hcbs-idle/run.txt" && grep -q '^flood=vbbu: flood on vbh0: [1-9]' "$C/hcbs-kernel/run.txt" &&
	json_has "$C/sizing.json" "d['containers']['vbbu1']['reserved_us'] == $q"
ok $? "guest/cloudran: the sized reservation set (${q:-?}us/2500us), the flood sent frames"
finish
