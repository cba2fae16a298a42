#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/guest/fig3, experiments 1-2 of scripts/experiments: one setting, 3 s.
# (plumbing only; see guest_scripts_lib.sh)
. "$(dirname "$0")/guest_scripts_lib.sh"

F=$HCBS_TMP/fig3
# --no-auto: what a job costs is measured under TCG, and on a busy host no
# runtime may hold (fig3 then says so); not a question for this test
guest "$HCBS_ROOT/scripts/guest/fig3" --duration 3 --base "$BASE_LXCP" --settings 8ms/18ms --no-auto "$F"
ok $? "guest/fig3 --duration 3 --settings 8ms/18ms --no-auto exits 0"
files "$F" guest.txt analyze-8ms-18ms.json 8ms-18ms/run.txt 8ms-18ms/t1.log 8ms-18ms/t5.log
ok $? "guest/fig3: the setting's logs and analysis"
grep -q '^cpu.rt.max=8000 18000$' "$F/8ms-18ms/run.txt" && grep -q '^kind=hcbs$' "$F/guest.txt"
ok $? "guest/fig3: the reservation read back as set"

finish
