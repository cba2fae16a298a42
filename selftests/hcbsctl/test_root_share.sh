#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hcbs-root-share, the helper of hcbs-root-share.service, on the hcbs
# kernel: it finds the cgroup root in mountinfo and sets the root group's
# share from its file; a top-level group above the share is then refused
# by admission; a share below what the groups hold, or above the global
# limit, is refused with hcbsctl's reason and the helper's line, and the
# share stays; share = max unsets it; a non-root user gets exit 5.  The
# root's cpu.rt.max is restored at the end.
. "$(dirname "$0")/lib.sh"
HELPER=$HCBS_BUILD/systemd/hcbs-root-share
for b in "$HCBSCTL" "$HELPER"; do
	[ -x "$b" ] || skip_all "$b not built (meson compile -C \$HCBS_BUILD)"
done
[ "$(stat -fc %T $CGROOT)" = cgroup2fs ] || skip_all "cgroup v2 not mounted at $CGROOT"
probe_hcbs || skip_all "kernel without HCBS: no cpu.rt.max in a new cpu cgroup ($(uname -r))"
[ "$HCBS_IFACE" = cpu.rt.max ] || skip_all "no cpu.rt.max on this kernel ($HCBS_IFACE)"

orig=$(cat $CGROOT/cpu.rt.max)
G=$CGROOT/root-share-test.$$
# In /tmp, which the non-root check below can search ($HCBS_TMP's parent is 0700).
CONF=/tmp/root-share-test.$$
cleanup() {
	rm -f "$CONF"
	[ -d "$G" ] && { echo "max 1000000" >"$G/cpu.rt.max"; rmdir "$G"; }
	echo "$orig" >$CGROOT/cpu.rt.max
}
trap cleanup EXIT
share() { echo "share = $1" >"$CONF"; run "$2" "$HELPER" --config "$CONF" --hcbsctl "$HCBSCTL"; }
root_is() { [ "$(cat $CGROOT/cpu.rt.max)" = "$1" ]; }

echo "max 1000000" >$CGROOT/cpu.rt.max
share 500ms/1s 0 && root_is "500000 1000000"
ok $? "share = 500ms/1s: the root's cpu.rt.max is '500000 1000000' (root found in mountinfo)"
run 0 "$HCBSCTL" free && grep -q "^root share:   0.500 per CPU" "$OUT"
ok $? "hcbsctl free reads the share back"
diag <"$OUT"

mkdir "$G"
run 2 "$HCBSCTL" --cgroup "$G" set 600ms/1s && grep -q "available 0.500 under the root group's share (500ms/1s)" "$ERR"
ok $? "a top-level group of 0.6 is refused under the share of 0.5"
run 0 "$HCBSCTL" --cgroup "$G" set 300ms/1s
ok $? "a top-level group of 0.3 is admitted"

share 200ms/1s 2 && root_is "500000 1000000" &&
	grep -q "^hcbsctl: .*the root group's share refused (EBUSY): requested 0.200 CPU per CPU, below what the 1 top-level group(s) hold (0.300 per CPU)" "$ERR" &&
	tail -1 "$ERR" | grep -q "^hcbs-root-share: $CONF:1: share = 200ms/1s not applied to $CGROOT (hcbsctl exit 2, its reason above)$"
ok $? "a share below what the groups hold: exit 2, both lines, the share unchanged"
diag <"$ERR"
share 990ms/1s 2 && root_is "500000 1000000" && grep -q "above the global limit" "$ERR"
ok $? "a share above the global limit: exit 2, the share unchanged"

echo "max 1000000" >"$G/cpu.rt.max" && rmdir "$G"
share max 0 && root_is "max 1000000"
ok $? "share = max: the root's cpu.rt.max is back to 'max 1000000'"

echo "share = 500ms/1s" >"$CONF"
chmod 644 "$CONF"
run 5 setpriv --reuid=65534 --regid=65534 --clear-groups "$HELPER" --config "$CONF" --hcbsctl "$HCBSCTL" &&
	root_is "max 1000000" && grep -q "^hcbsctl: set $CGROOT: cpu.rt.max: permission denied" "$ERR"
ok $? "as a non-root user: exit 5, nothing written"
finish
