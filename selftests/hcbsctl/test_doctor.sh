#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hcbsctl doctor on the hcbs kernel, as the guest boots it: the kernel,
# cgroup v2 with the cpu controller, the root share and what is free, the
# budget hrtick (debugfs is mounted) and the clocksource are found ok, the
# RCU boost priority the guest boots with (rcutree.kthread_prio=91) is
# read, and no root share is a warning; every check comes in the text and in
# schema-valid JSON; the exit status is the worst finding's (0 ok, 8
# warnings, 9 a failure) and doctor changes nothing.  On a kernel without
# HCBS the kernel check fails with its fix and the exit status is 9.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip_all "python3 not installed"
[ -x "$HCBSCTL" ] || skip_all "$HCBSCTL not built (meson compile -C \$HCBS_BUILD)"
[ "$(stat -fc %T $CGROOT)" = cgroup2fs ] || skip_all "cgroup v2 not mounted at $CGROOT"

# On a kernel without HCBS (stock 6.12: scripts/build-kernel --stock, booted
# with vm-run --kernel), doctor says so: the kernel check fails, with the
# fix, the exit status is 9, and it changes nothing.
if ! probe_hcbs; then
	before=$(cat $CGROOT/cgroup.subtree_control)
	"$HCBSCTL" --json doctor >"$OUT" 2>"$ERR"
	rc=$?
	valid_json
	ok $? "stock kernel ($(uname -r)): --json valid against the schema"
	python3 - "$OUT" <<'PY' | diag
import json, sys
d = json.load(open(sys.argv[1]))
by = {c["name"]: c for c in d["checks"]}
k = by.get("kernel", {})
print(f'kernel: {k.get("status")}: {k.get("found")}; fix: {k.get("fix")}')
sys.exit(0 if k.get("status") == "fail" and k.get("fix") and by.get("cgroup", {}).get("status") == "ok" else 1)
PY
	ok "${PIPESTATUS[0]}" "stock kernel: the kernel check fails, with a fix; cgroup v2 ok"
	[ "$rc" = 9 ]
	ok $? "stock kernel: exit 9 (a failure), got $rc"
	[ "$before" = "$(cat $CGROOT/cgroup.subtree_control)" ]
	ok $? "stock kernel: doctor changed nothing"
	finish
fi

before=$(cat $CGROOT/cpu.rt.max $CGROOT/cgroup.subtree_control 2>/dev/null)
"$HCBSCTL" doctor >"$OUT" 2>"$ERR"
text_rc=$?
diag <"$OUT"
[ "$text_rc" = 0 ] || [ "$text_rc" = 8 ] || [ "$text_rc" = 9 ]
ok $? "doctor ran: exit $text_rc"

"$HCBSCTL" --json doctor >"$OUT" 2>"$ERR"
json_rc=$?
valid_json
ok $? "--json: valid against the schema"
[ "$json_rc" = "$text_rc" ]
ok $? "--json exits as the text does ($json_rc, $text_rc)"

python3 - "$OUT" "$json_rc" <<'PY' | diag
import json, sys
d = json.load(open(sys.argv[1]))
rc = int(sys.argv[2])
by = {c["name"]: c for c in d["checks"]}
bad = []
# What the hcbs guest has for sure.
for name in ("kernel", "cgroup", "cpu-controller", "free", "hrtick", "clocksource"):
    c = by.get(name)
    if c is None or c["status"] != "ok":
        bad.append(f"{name}: {c}")
# No root share in the guest: "max" is a warning, never a failure.
c = by.get("root-share")
if c is None or c["status"] == "fail" or (c["status"] == "warn" and "max" not in c["found"]):
    bad.append(f"root-share: {c}")
# The boost priority the guest boots with is read; the runner itself runs
# at FIFO 99 outside any reservation, which doctor rightly warns about.
c = by.get("rcu-kthread-prio")
if c is None or c["status"] == "fail" or not c["found"].startswith("91 "):
    bad.append(f"rcu-kthread-prio: {c}")
# CONFIG_RCU_BOOST: ok, or "cannot check" where no config is readable.
c = by.get("rcu-boost")
if c is None or c["status"] == "fail":
    bad.append(f"rcu-boost: {c}")
worst = max((("ok", "warn", "fail").index(c["status"]) for c in d["checks"]), default=0)
if rc != (0, 8, 9)[worst]:
    bad.append(f"exit {rc} for a worst finding of {('ok', 'warn', 'fail')[worst]}")
for c in d["checks"]:
    print(f'{c["status"]:5} {c["name"]}')
for b in bad:
    print("BAD " + b)
sys.exit(1 if bad else 0)
PY
ok "${PIPESTATUS[0]}" "the hcbs guest's kernel, cgroups, free bandwidth, hrtick and clocksource ok, kthread_prio 91 read, no failure in root share or RCU boost; exit by the worst finding"

after=$(cat $CGROOT/cpu.rt.max $CGROOT/cgroup.subtree_control 2>/dev/null)
[ "$before" = "$after" ]
ok $? "doctor changed nothing (the root's cpu.rt.max and subtree_control)"
finish
