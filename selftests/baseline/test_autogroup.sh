#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Baseline: sessions come and go without corrupting the RT group state of
# their autogroups.  With CONFIG_SCHED_AUTOGROUP (Debian's config, and the
# qemu flavour's) every setsid() makes an autogroup, a task group whose RT
# state is given up when it is made and freed again when the session
# ends; with off-stack cpumasks (MAXSMP, or DEBUG_PER_CPU_MAPS) a free of
# a group's reservation CPUs there is a double free.  SLUB's consistency
# checks (slub_debug=FZPU,kmalloc-8,... on the kernel command line, which
# scripts/run-tests gives the test boot) report one as "BUG kmalloc-8 ...: Object
# already free"; the splat scan fails the boot on it, and this test looks
# for it in the kernel log as well.
echo "TAP version 13"
echo "1..3"
rc=0
n_sessions=200

if [ -r /proc/sys/kernel/sched_autogroup_enabled ] &&
   [ "$(cat /proc/sys/kernel/sched_autogroup_enabled)" = 1 ]; then
	echo "ok 1 autogroup is built and enabled"
else
	echo "not ok 1 autogroup is built and enabled (no /proc/sys/kernel/sched_autogroup_enabled, or 0: the test kernels have CONFIG_SCHED_AUTOGROUP=y, as Debian's)"
	rc=1
fi

# The checks of SLUB must be on for the caches the masks come from.
slab=/sys/kernel/slab/kmalloc-8
if [ "$(cat $slab/sanity_checks 2>/dev/null)" = 1 ] && [ "$(cat $slab/poison 2>/dev/null)" = 1 ]; then
	echo "ok 2 SLUB consistency checks and poisoning are on (kmalloc-8)"
else
	echo "not ok 2 SLUB consistency checks and poisoning are on (kmalloc-8: sanity_checks $(cat $slab/sanity_checks 2>/dev/null || echo '?'), poison $(cat $slab/poison 2>/dev/null || echo '?'); boot with slub_debug=FZPU,kmalloc-8)"
	rc=1
fi

before=$(dmesg | grep -cE 'BUG [^ ]+ \(.*\): |Object already free')
first=$(setsid cat /proc/self/autogroup 2>/dev/null)
for ((i = 0; i < n_sessions; i++)); do
	setsid sh -c true || { echo "# setsid failed at session $i"; break; }
done
last=$(setsid cat /proc/self/autogroup 2>/dev/null)
echo "# first session's autogroup: ${first:-none}; last: ${last:-none}"
after=$(dmesg | grep -cE 'BUG [^ ]+ \(.*\): |Object already free')
if [ "$after" != "$before" ]; then
	dmesg | grep -E -A3 'BUG [^ ]+ \(.*\): ' | tail -8 | sed 's/^/# /'
	echo "not ok 3 $n_sessions sessions start and end without a SLUB report ($((after - before)) new)"
	rc=1
elif [ -z "$first" ] || [ "$first" = "$last" ]; then
	echo "not ok 3 $n_sessions sessions start and end without a SLUB report (the sessions got no new autogroup: '$first', then '$last')"
	rc=1
else
	echo "ok 3 $n_sessions sessions start and end without a SLUB report"
fi
exit $rc
