# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared by test_guest_demo.sh, test_guest_fig3.sh, test_guest_cloudran.sh:
# the guest halves of scripts/demo and scripts/experiments run end to end
# on the hcbs kernel, briefly.  Only the plumbing is judged (exit 0, every
# file each promises, the reservations read back as set), never the
# timing: none of them runs in CI otherwise, and a demo that died at its
# last step (hcbsctl refusing an option) went unnoticed for days.  One
# test each, so that each has the suite's timeout.
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
	HCBS_TMP=$tmp timeout 840 "$@" >"$OUT" 2>&1
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

