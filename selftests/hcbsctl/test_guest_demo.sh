#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/demo-guest, the guest half of scripts/demo, for 8 s per run.
# (plumbing only; see guest_scripts_lib.sh)
. "$(dirname "$0")/guest_scripts_lib.sh"

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
grep -qE '^vbbu1=[0-9]+us/18000us$' "$D/reservation.txt" && grep -q 'reserved' "$D/hcbsctl-free.txt"
ok $? "demo-guest: vbbu1's reservation and hcbsctl free"

finish
