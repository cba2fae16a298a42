#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The programs as installed (not their test builds): no test switch is
# compiled in, so no environment can make a root hook or hcbsctl read a
# fake /proc, sysctls or fair servers, run another systemctl, keep its
# state elsewhere or take a plain directory for cgroupfs.  TAP.
#
# Usage: test_installed.sh HCBSCTL HCBS_HOOK HCBS_OCI_HOOK SOURCE_ROOT
set -u
HCBSCTL=$1 HOOK=$2 OCIHOOK=$3 SRC=$4
. "$(dirname "$0")/cli-lib.sh"
WRAP=${TEST_WRAPPER:-}
SWITCHES="HCBS_TEST_PROC HCBS_OCI_HOOK_PROC HCBS_TEST_FAKE_CGROUPFS HCBSCTL_SYSCTL_DIR
HCBSCTL_FAIR_SERVER_DIR HCBSCTL_SYSTEMCTL HCBSCTL_SYSTEMD_DIR HCBS_HOOK_STATE_DIR"

for b in "$HCBSCTL" "$HOOK" "$OCIHOOK"; do
	found=
	for v in $SWITCHES; do
		grep -aq "$v" "$b" && found="$found $v"
	done
	[ -z "$found" ]
	ok $? "$(basename "$b") holds no test switch (names looked for in the binary:$found)"
done

export HCBS_TEST_FAKE_CGROUPFS=1
snapshot before
run 3 $WRAP "$HCBSCTL" --cgroup "$C1" set 8ms/18ms && one_line_err &&
	grep -q "is on .*, not a cgroup file system" "$T/err" && unchanged
ok $? "hcbsctl set on a plain directory: refused, exit 3: $(cat "$T/err")"

mkdir -p "$T/systemd"
printf '#!/bin/sh\ntouch %s/systemctl-ran\necho /libpod_parent\n' "$T" >"$T/systemctl"
chmod +x "$T/systemctl"
export HCBSCTL_SYSTEMCTL=$T/systemctl HCBSCTL_SYSTEMD_DIR=$T/systemd
$WRAP "$HCBSCTL" --unit vbbu.service get >"$T/out" 2>"$T/err"
[ ! -e "$T/systemctl-ran" ]
ok $? "hcbsctl --unit never runs \$HCBSCTL_SYSTEMCTL: $(cat "$T/err")"

echo "1..$n"
[ "$failed" = 0 ]
