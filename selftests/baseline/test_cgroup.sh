#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Baseline: cgroup v2 is mounted at /sys/fs/cgroup with the cpu controller
# available, and a child group with the cpu controller can be made.
echo "TAP version 13"
echo "1..3"
cg=/sys/fs/cgroup rc=0
fstype=$(stat -fc %T "$cg" 2>/dev/null)
if [ "$fstype" = cgroup2fs ]; then
	echo "ok 1 cgroup v2 mounted at $cg"
else
	echo "not ok 1 cgroup v2 mounted at $cg (file system: ${fstype:-none})"
	exit 1
fi
echo "# controllers: $(cat $cg/cgroup.controllers)"
if grep -qw cpu $cg/cgroup.controllers; then
	echo "ok 2 cpu controller available"
else
	echo "not ok 2 cpu controller available"
	exit 1
fi
child=$cg/hcbs-baseline.$$ enabled=0
if ! grep -qw cpu $cg/cgroup.subtree_control; then
	if echo +cpu >$cg/cgroup.subtree_control; then
		enabled=1
	else
		echo "# could not enable +cpu in $cg/cgroup.subtree_control"
	fi
fi
if mkdir "$child" && [ -f "$child/cpu.weight" ]; then
	echo "ok 3 child group has the cpu controller (cpu.weight)"
	echo "# cpu files: $(cd "$child" && echo cpu.*)"
else
	echo "not ok 3 child group has the cpu controller (cpu.weight)"
	ls "$child" 2>/dev/null | sed 's/^/# /'
	rc=1
fi
rmdir "$child" 2>/dev/null
# Leave the controller as we found it: later suites mount it on cgroup v1.
[ $enabled = 0 ] || echo -cpu >$cg/cgroup.subtree_control ||
	echo "# could not disable +cpu again in $cg/cgroup.subtree_control"
exit $rc
