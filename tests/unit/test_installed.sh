#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The programs as installed (not their test builds): no test switch is
# compiled in, so no environment can make a root hook or hcbsctl read a
# fake /proc, sysctls or fair servers, run another systemctl, keep its
# state elsewhere or take a plain directory for cgroupfs.  Every switch is
# set here, pointing at a fake tree, and must change nothing.  TAP.
#
# Usage: test_installed.sh HCBSCTL HCBS_HOOK HCBS_OCI_HOOK SOURCE_ROOT
set -u
HCBSCTL=$1 HOOK=$2 OCIHOOK=$3 SRC=$4
. "$(dirname "$0")/cli-lib.sh"
WRAP=${TEST_WRAPPER:-}
SWITCHES="HCBS_TEST_PROC HCBS_OCI_HOOK_PROC HCBS_TEST_FAKE_CGROUPFS HCBSCTL_SYSCTL_DIR
HCBSCTL_FAIR_SERVER_DIR HCBSCTL_SYSTEMCTL HCBSCTL_SYSTEMD_DIR HCBS_HOOK_STATE_DIR HCBS_TEST_OCI_POLICY
HCBSCTL_DOCTOR_ROOT HCBS_TEST_PARSE_ONLY HCBS_TEST_OCI_POLICY_UID"

for b in "$HCBSCTL" "$HOOK" "$OCIHOOK"; do
	found=
	for v in $SWITCHES; do
		grep -aq "$v" "$b" && found="$found $v"
	done
	[ -z "$found" ]
	ok $? "$(basename "$b") holds no test switch (names looked for in the binary:$found)"
done

# --version: one line, "PROGRAM VERSION", the same version for all three.
ver=$("$HCBSCTL" --version | sed -n 's/^hcbsctl \([0-9][0-9.]*\)$/\1/p')
for b in "$HOOK" "$OCIHOOK"; do
	run 0 $WRAP "$b" --version </dev/null && [ "$(cat "$T/out")" = "$(basename "$b") $ver" ]
	ok $? "$(basename "$b") --version: '$(cat "$T/out")', hcbsctl's version '$ver'"
done

# Every switch set, as cli-lib.sh does for the test builds, and more.
ID=0123456789abcdef0123
mkgroup "$CG/libpod_parent"
mkgroup "$CG/libpod_parent/libpod-$ID" "max 1000000"
PROC=$T/proc
mkdir -p "$PROC/self" "$PROC/$$"
echo "30 20 0:26 / $CG rw - cgroup2 cgroup2 rw" >"$PROC/self/mountinfo"
echo "0::/libpod_parent/libpod-$ID" >"$PROC/$$/cgroup"
mkdir -p "$T/systemd" "$T/state"
printf '#!/bin/sh\ntouch %s/systemctl-ran\necho /libpod_parent\n' "$T" >"$T/systemctl"
chmod +x "$T/systemctl"
export HCBS_TEST_PROC=$PROC HCBS_OCI_HOOK_PROC=$PROC HCBS_TEST_FAKE_CGROUPFS=1
export HCBSCTL_SYSTEMCTL=$T/systemctl HCBSCTL_SYSTEMD_DIR=$T/systemd HCBS_HOOK_STATE_DIR=$T/state
snapshot before

run 3 $WRAP "$HCBSCTL" --cgroup "$C1" set 8ms/18ms && one_line_err &&
	grep -q "is on .*, not a cgroup file system" "$T/err" && unchanged
ok $? "hcbsctl set on a plain directory: refused, exit 3: $(cat "$T/err")"
$WRAP "$HCBSCTL" --unit vbbu.service get >"$T/out" 2>"$T/err"
[ ! -e "$T/systemctl-ran" ] && unchanged
ok $? "hcbsctl --unit never runs \$HCBSCTL_SYSTEMCTL: $(cat "$T/err")"

# The hook reads its policy from /etc/hcbs/oci-hook.conf alone: without
# it, refused (exit 5) whatever \$HCBS_TEST_OCI_POLICY allows; with it,
# the real /proc/$$/cgroup (this shell is no container) is refused before
# anything is read from or written to a cgroup.
printf '{"ociVersion": "1.0.2", "id": "%s", "status": "created", "pid": %d, "annotations": {"hcbs.reservation": "8ms/18ms"}}\n' \
	"$ID" $$ >"$T/state.json"
echo "default = allow" >"$T/allow.conf"
export HCBS_TEST_OCI_POLICY=$T/allow.conf
$WRAP "$OCIHOOK" <"$T/state.json" >"$T/out" 2>"$T/err"
rc=$?
if [ -e /etc/hcbs/oci-hook.conf ]; then
	[ $rc != 0 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "^hcbs-oci-hook: 0123456789ab: " "$T/err" && unchanged
	ok $? "hcbs-oci-hook, with this host's /etc/hcbs/oci-hook.conf, reads the real /proc, not \$HCBS_TEST_PROC: exit $rc: $(cat "$T/err")"
else
	[ $rc = 5 ] && [ "$(wc -l <"$T/err")" = 1 ] &&
		grep -q "^hcbs-oci-hook: 0123456789ab: no node policy /etc/hcbs/oci-hook.conf: every reservation is refused" "$T/err" &&
		unchanged
	ok $? "hcbs-oci-hook reads /etc/hcbs/oci-hook.conf, not \$HCBS_TEST_OCI_POLICY: exit $rc: $(cat "$T/err")"
fi

echo "$C1" >"$T/state/%2Ftmp%2Fhcbs-installed%2Fconfig"
echo "8000 18000" >"$C1/cpu.rt.max"
snapshot before
env LXC_CONFIG_FILE=/tmp/hcbs-installed/config LXC_HOOK_VERSION=1 LXC_HOOK_TYPE=stop LXC_NAME=c1 \
	$WRAP "$HOOK" >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 0 ] && [ -e "$T/state/%2Ftmp%2Fhcbs-installed%2Fconfig" ] && unchanged
ok $? "hcbs-hook stop does not read its state from \$HCBS_HOOK_STATE_DIR"
env LXC_PID=$$ LXC_HOOK_VERSION=1 LXC_HOOK_TYPE=start-host LXC_NAME=hcbs-installed-nosuch \
	$WRAP "$HOOK" --reserve 8ms/18ms >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 3 ] && grep -q "^hcbs-hook: hcbs-installed-nosuch: start-host: pid $$: cgroup .*; refused$" "$T/err" && unchanged
ok $? "hcbs-hook start-host reads the real /proc: exit $rc: $(cat "$T/err")"

# hcbsctl doctor reads the machine's own /proc and /sys, not a fake root.
mkdir -p "$T/root/proc/sys/kernel"
echo 6.12.0-hcbs-installed-fake >"$T/root/proc/sys/kernel/osrelease"
env HCBSCTL_DOCTOR_ROOT="$T/root" $WRAP "$HCBSCTL" --json doctor >"$T/out" 2>"$T/err"
rc=$?
{ [ $rc = 0 ] || [ $rc = 8 ] || [ $rc = 9 ]; } && grep -q '"command": "doctor"' "$T/out" &&
	! grep -q 'installed-fake' "$T/out" && unchanged
ok $? "hcbsctl doctor ignores \$HCBSCTL_DOCTOR_ROOT: exit $rc"

echo "1..$n"
[ "$failed" = 0 ]
