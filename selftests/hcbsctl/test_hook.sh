#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hcbs-hook in a real busybox LXC container, lxc.hook.version 0 and 1:
#  - on the hcbs kernel: the container's cgroup has the reservation once
#    it runs, the stop hook gives it back, an inadmissible reservation
#    aborts the start with the reason in the LXC log;
#  - on a kernel without HCBS: the start is aborted with "kernel without
#    HCBS" in the log (fail closed); the rest is skipped.
. "$(dirname "$0")/lib.sh"
require_tools
STATE=$HCBS_TMP/hook-state

if probe_hcbs; then
	echo "# HCBS interface: $HCBS_IFACE"
	hcbs=1
else
	echo "# kernel without HCBS ($(uname -r)): only the refusal path is tested"
	hcbs=0
fi

for ver in 1 0; do
	c=hook-v$ver
	new_container "$c" "lxc.hook.version = $ver" \
		"lxc.hook.start-host = $HOOK --state-dir $STATE --reserve 8ms/18ms" \
		"lxc.hook.stop = $HOOK --state-dir $STATE"
	ok $? "v$ver: create busybox container $c"
	if [ $hcbs = 0 ]; then
		start_container "$c"
		rc=$?
		grep 'hcbs-hook' "$HCBS_TMP/$c.log" | head -3 | diag
		! lxc-info -P "$LXCP" -n "$c" -s | grep -q RUNNING && [ $rc != 0 ] &&
			grep -q "hcbs-hook: $c: start-host: kernel without HCBS" "$HCBS_TMP/$c.log"
		ok $? "v$ver: start refused, the LXC log says: kernel without HCBS"
		continue
	fi
	start_container "$c"
	ok $? "v$ver: container starts with the hook"
	pid=$(init_pid "$c")
	cg=$(cgroup_of "$pid")
	echo "# init $pid in $cg: cpu.rt.max = $(cat "$cg/cpu.rt.max" 2>/dev/null)"
	if [ "$HCBS_IFACE" = cpu.rt.max ]; then
		[ "$(cat "$cg/cpu.rt.max")" = "8000 18000" ]
	else
		[ "$(cat "$cg/cpu.rt_runtime_us")" = 8000 ] && [ "$(cat "$cg/cpu.rt_period_us")" = 18000 ]
	fi
	ok $? "v$ver: the container's cgroup has 8ms/18ms before its init ran"
	grep -q "reserved 8ms/18ms" "$HCBS_TMP/$c.log"
	ok $? "v$ver: the LXC log records the reservation"
	ls "$STATE" | grep -q "$c" 2>/dev/null
	ok $? "v$ver: start-host remembered the cgroup for stop"
	lxc-stop -P "$LXCP" -n "$c" -t 10 >/dev/null 2>&1
	ok $? "v$ver: container stops"
	! ls "$STATE" 2>/dev/null | grep -q "$c" && grep -q "released the reservation" "$HCBS_TMP/$c.log"
	ok $? "v$ver: the stop hook released the reservation"
done

if [ $hcbs = 1 ]; then
	c=hook-big
	new_container "$c" "lxc.hook.version = 1" \
		"lxc.hook.start-host = $HOOK --state-dir $STATE --reserve 990ms/1s"
	start_container "$c"
	rc=$?
	grep 'hcbs-hook' "$HCBS_TMP/$c.log" | head -3 | diag
	[ $rc != 0 ] && ! lxc-info -P "$LXCP" -n "$c" -s | grep -q RUNNING &&
		grep -q "hcbs-hook: $c: start-host: .*admission refused" "$HCBS_TMP/$c.log"
	ok $? "an inadmissible reservation (990ms/1s) aborts the start; the log says why"
else
	skip "an inadmissible reservation aborts the start" "kernel without HCBS"
fi
finish
