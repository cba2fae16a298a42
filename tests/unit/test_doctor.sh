#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hcbsctl doctor on a fake machine: /proc, /sys, /boot and /etc under
# $HCBSCTL_DOCTOR_ROOT (the test build only) and the fake cgroup tree of
# cli-lib.sh.  A machine with every check ok, then each check turned to
# warn or fail, one at a time: its status, the exit status (0 ok, 8 warn,
# 9 fail), one line per check, and the JSON validated against
# docs/hcbsctl-schema.json.  TAP on stdout.
#
# Usage: test_doctor.sh HCBSCTL SOURCE_ROOT LIBEXECDIR OCI_HOOKS_DIR
set -u
HCBSCTL=$1 SRC=$2 LIBEXEC=$3 HOOKS=$4
. "$(dirname "$0")/cli-lib.sh"
R=$T/root
export HCBSCTL_DOCTOR_ROOT=$R
D() { $WRAP "$HCBSCTL" "$@"; }

# --- a machine ready for reservations -----------------------------------------
put() {	# put FILE CONTENTS: a file under the fake root
	mkdir -p "$(dirname "$R$1")"
	printf '%s\n' "$2" >"$R$1"
}
# put_task PID COMM CGROUP POLICY RTPRIO [FLAGS]: /proc/PID/stat and cgroup
put_task() {
	local f=() i
	for i in $(seq 3 52); do f[i]=0; done
	f[3]=S f[9]=${6:-4194560} f[40]=$5 f[41]=$4
	put "/proc/$1/stat" "$1 ($2) ${f[*]:3}"
	put "/proc/$1/cgroup" "0::$3"
}
put /proc/sys/kernel/osrelease 6.12.57-hcbs
put /proc/cmdline "BOOT_IMAGE=/vmlinuz root=/dev/sda1 rcutree.kthread_prio=91"
put /proc/self/mountinfo "30 20 0:26 / $CG rw,nosuid - cgroup2 cgroup2 rw"
echo "cpuset cpu io memory pids" >"$CG/cgroup.controllers"
echo "cpuset cpu memory pids" >"$CG/cgroup.subtree_control"
echo "900000 1000000" >"$CG/cpu.rt.max"		# the root share: 0.9 (0.8 reserved)
mkgroup "$CG/machine.slice" "max 1000000"
echo "cpu" >"$CG/machine.slice/cgroup.subtree_control"
printf 'CONFIG_HZ=250\nCONFIG_RCU_BOOST=y\nCONFIG_RCU_BOOST_DELAY=500\n' >"$T/config"
mkdir -p "$R/boot"
cp "$T/config" "$R/boot/config-6.12.57-hcbs"
put /sys/module/rcutree/parameters/kthread_prio 91
put_task 100 "vbbu ru" /other 1 95		# in a reservation
put_task 101 "irq/9-acpi" / 1 50 2129984		# a kernel thread
put_task 102 "migration/0" / 1 99 2129984		# the stop class
put_task 103 "ptp4l" /system.slice 1 80			# root level, below 91
put_task 104 "sshd" / 0 0
put /sys/kernel/debug/sched/features "GENTLE_FAIR_SLEEPERS NO_HRTICK HRTICK_RT_GROUP WAKEUP_PREEMPTION"
put /sys/devices/system/clocksource/clocksource0/current_clocksource tsc
put /sys/devices/system/cpu/nohz_full "(null)"
put /sys/devices/system/cpu/isolated ""
mkdir -p "$R$LIBEXEC/hcbs"
printf '#!/bin/sh\n' >"$R$LIBEXEC/hcbs/hcbs-hook"
cp "$R$LIBEXEC/hcbs/hcbs-hook" "$R$LIBEXEC/hcbs/hcbs-oci-hook"
chmod +x "$R$LIBEXEC/hcbs/hcbs-hook" "$R$LIBEXEC/hcbs/hcbs-oci-hook"
put "$HOOKS/hcbs.json" "{\"version\": \"1.0.0\", \"hook\": {\"path\": \"$LIBEXEC/hcbs/hcbs-oci-hook\"}, \"stages\": [\"createRuntime\"]}"
put /etc/hcbs/oci-hook.conf "default = refuse"
put /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor performance
put /sys/devices/system/cpu/cpu1/cpufreq/scaling_governor performance
put /sys/devices/system/cpu/smt/active 0

CHECKS="kernel cgroup cpu-controller root-share free rcu-boost rcu-kthread-prio hrtick clocksource nohz-isolation lxc-hook oci-hook oci-policy governor smt"
status_of() {	# status_of NAME: from the JSON in $T/out
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print([c["status"] for c in d["checks"] if c["name"] == sys.argv[2]][0])' "$T/out" "$1"
}
found_of() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d["checks"] if c["name"] == sys.argv[2]][0]
print(c["found"], "| fix:", c["fix"])' "$T/out" "$1"
}
# expect NAME STATUS EXIT DESCRIPTION: the text and the JSON agree on it
expect() {
	local name=$1 want=$2 code=$3 line
	run "$code" D doctor && line=$(grep -E "^$want +$name " "$T/out") &&
		[ "$(wc -l <"$T/out")" = $(($(echo $CHECKS | wc -w) + 2)) ] && [ ! -s "$T/err" ] &&
		run "$code" D --json doctor && valid_json && [ "$(status_of "$name")" = "$want" ]
	ok $? "$4: $name $want, exit $code: $(found_of "$name" 2>/dev/null)"
}

snapshot before
run 0 D doctor
ok $? "a ready machine: exit 0 (stderr: $(cat "$T/err"))"
[ "$(grep -c '^ok ' "$T/out")" = 15 ] && tail -1 "$T/out" | grep -q '^ready for reservations: 15 ok, 0 warn, 0 fail$'
ok $? "every check ok, in one line each, and the summary: $(tail -1 "$T/out")"
i=0
for c in $CHECKS; do
	i=$((i + 1))
	[ "$(sed -n "${i}p" "$T/out" | awk '{ print $2 }')" = "$c" ] || break
done
[ "$i" = 15 ] && [ "$c" = smt ]
ok $? "the checks in their documented order"
run 0 D --json doctor && valid_json && grep -q '"ready": true' "$T/out" && grep -q '"status": "ok"' "$T/out" &&
	grep -q '"cgroup_root": "'"$CG"'"' "$T/out" && grep -q '"kernel_release": "6.12.57-hcbs"' "$T/out"
ok $? "--json: valid, ready, status ok"
grep -q '"fix": null' "$T/out" && ! grep -q '"fix": "' "$T/out"
ok $? "--json: no fix when everything is ok"
run 0 D doctor && grep -q '^ok    root-share        900ms/1s (0.900 per CPU)' "$T/out" &&
	grep -q '^ok    kernel            6.12.57-hcbs, the hcbs series: HCBS (cpu.rt.max' "$T/out" &&
	grep -q "rcu-kthread-prio  91 (/sys/module/rcutree/parameters/kthread_prio), above ptp4l (pid 103) at 80" "$T/out" &&
	grep -q 'CONFIG_RCU_BOOST=y (/boot/config-6.12.57-hcbs), boost delay 500 ms' "$T/out"
ok $? "what ok lines say: the share, the series, the kthread_prio against the root RT task, the config"
unchanged
ok $? "doctor writes nothing"

# --- usage ------------------------------------------------------------------
run 1 D doctor extra && one_line_err
ok $? "doctor takes no argument: exit 1: $(cat "$T/err")"
run 1 D --cgroup "$CG" doctor && one_line_err && grep -q -- '--cgroup does not apply to doctor' "$T/err"
ok $? "doctor takes no --cgroup: exit 1"
run 0 D help doctor && grep -q '^Usage: hcbsctl \[-q|--json\] doctor' "$T/out" && grep -q 'Exit 0 when every check is ok, 8 with warnings, 9 when one fails' "$T/out"
ok $? "help doctor"

# --- each check, off the ready machine -------------------------------------------
# kernel
put /proc/sys/kernel/osrelease 6.12.57-custom; cp "$T/config" "$R/boot/config-6.12.57-custom"
expect kernel ok 0 "a kernel not named -hcbs but with the files"
rm "$CG/cpu.rt.max"; for g in "$CG"/*/; do mv "$g/cpu.rt.max" "$g/cpu.rt.max.off" 2>/dev/null; mv "$g/cpu.rt.stat" "$g/cpu.rt.stat.off" 2>/dev/null; done
expect kernel fail 9 "no cpu.rt.max anywhere (a stock kernel)"
run 9 D doctor && grep -q '^warn  root-share        cannot check: no HCBS kernel' "$T/out" && grep -q '^warn  free  .*cannot check' "$T/out"
ok $? "the share and free cannot be checked without HCBS"
for g in "$CG"/*/; do mv "$g/cpu.rt.max.off" "$g/cpu.rt.max" 2>/dev/null; mv "$g/cpu.rt.stat.off" "$g/cpu.rt.stat" 2>/dev/null; done
echo "900000 1000000" >"$CG/cpu.rt.max"
put /proc/sys/kernel/osrelease 6.12.57-hcbs

# cgroup
put /proc/self/mountinfo "25 20 0:22 / $T/v1cpu rw - cgroup cgroup rw,cpu,cpuacct"
mkdir -p "$T/v1cpu"
expect cgroup warn 9 "cgroup v1 cpu hierarchy (no HCBS files there either)"
put /proc/self/mountinfo "25 20 0:22 / /proc rw - proc proc rw"
expect cgroup fail 9 "no cgroup mount"
put /proc/self/mountinfo "30 20 0:26 / $CG rw,nosuid - cgroup2 cgroup2 rw"

# cpu-controller
echo "cpuset memory pids" >"$CG/cgroup.subtree_control"
expect cpu-controller fail 9 "cpu not in the root's subtree_control"
run 9 D doctor
grep -q "fix: echo +cpu > $CG/cgroup.subtree_control; under systemd, which takes that away, install hcbs-tools' system.slice.d/hcbs-cpu-controller.conf and run systemctl daemon-reload$" "$T/out"
ok $? "the fix names the file"
echo "cpuset cpu memory pids" >"$CG/cgroup.subtree_control"
echo "cpuset cpu" >"$CG/cgroup.controllers"; sed -i 's/ cpu$//' "$CG/cgroup.controllers"
expect cpu-controller fail 9 "cpu not on cgroup v2"
echo "cpuset cpu io memory pids" >"$CG/cgroup.controllers"
: >"$CG/machine.slice/cgroup.subtree_control"
expect cpu-controller warn 8 "machine.slice without cpu"
run 8 D doctor && grep -q "NOT in machine.slice/cgroup.subtree_control" "$T/out"
ok $? "names machine.slice"
echo cpu >"$CG/machine.slice/cgroup.subtree_control"

# root-share
echo "max 1000000" >"$CG/cpu.rt.max"
expect root-share warn 8 "the share not set"
echo "0 1000000" >"$CG/cpu.rt.max"
expect root-share warn 8 "a zero share"
echo "garbage" >"$CG/cpu.rt.max"
expect root-share fail 9 "an unreadable share"
echo "900000 1000000" >"$CG/cpu.rt.max"

# free: a share of 0.8 holds other (0.3) and parent (0.5): none left
echo "800000 1000000" >"$CG/cpu.rt.max"
expect free warn 8 "nothing free under the share"
echo "900000 1000000" >"$CG/cpu.rt.max"
echo -1 >"$SYS/sched_rt_runtime_us"
expect free warn 8 "admission control off"
echo 950000 >"$SYS/sched_rt_runtime_us"

# rcu-boost: /boot, then /proc/config.gz, then nothing
rm "$R/boot/config-6.12.57-hcbs"
gzip -c "$T/config" >"$R/proc/config.gz"
expect rcu-boost ok 0 "CONFIG_RCU_BOOST=y in /proc/config.gz"
sed 's/CONFIG_RCU_BOOST=y/# CONFIG_RCU_BOOST is not set/' "$T/config" | gzip -c >"$R/proc/config.gz"
expect rcu-boost fail 9 "CONFIG_RCU_BOOST not set"
rm "$R/proc/config.gz"
expect rcu-boost warn 8 "no config readable"
cp "$T/config" "$R/boot/config-6.12.57-hcbs"

# rcu-kthread-prio
mkgroup "$CG/rt.slice"; put_task 105 "hog" /rt.slice 1 95
expect rcu-kthread-prio warn 8 "a root-level FIFO 95 task above kthread_prio 91"
run 8 D doctor && grep -q 'fix: boot with rcutree.kthread_prio=96' "$T/out"
ok $? "the fix gives a priority above it"
put_task 105 "hog" /other 1 95
expect rcu-kthread-prio ok 0 "the same task inside a reservation (other: 300ms/1s) does not count"
put /proc/self/mountinfo "25 20 0:22 / $CG rw - cgroup cgroup rw,cpu,cpuacct"
printf '4:cpu,cpuacct:/other\n0::/\n' | tee "$R/proc/100/cgroup" >"$R/proc/105/cgroup"
expect rcu-kthread-prio ok 8 "cgroup v1: the task's cpu line, not its v2 one, places it in a reservation"
put /proc/self/mountinfo "30 20 0:26 / $CG rw,nosuid - cgroup2 cgroup2 rw"
put "/proc/100/cgroup" "0::/other"
put_task 105 "hog" /parent/mid/leaf 1 95
expect rcu-kthread-prio ok 0 "nor below a reserved ancestor"
put_task 105 "kworker" / 1 95 2129984
expect rcu-kthread-prio ok 0 "nor a kernel thread"
rm -r "$R/proc/105" "$R/sys/module/rcutree"
expect rcu-kthread-prio ok 0 "kthread_prio from the command line"
put /proc/cmdline "BOOT_IMAGE=/vmlinuz root=/dev/sda1"
expect rcu-kthread-prio warn 8 "kthread_prio nowhere"
put /sys/module/rcutree/parameters/kthread_prio 91

# hrtick
put /sys/kernel/debug/sched/features "GENTLE_FAIR_SLEEPERS NO_HRTICK NO_HRTICK_RT_GROUP"
expect hrtick warn 8 "NO_HRTICK_RT_GROUP"
put /sys/kernel/debug/sched/features "GENTLE_FAIR_SLEEPERS NO_HRTICK"
expect hrtick warn 8 "no such feature"
rm -r "$R/sys/kernel/debug"
expect hrtick warn 8 "debugfs not mounted"
run 8 D doctor && grep -q 'hrtick            cannot check' "$T/out"
ok $? "says it cannot check"
put /sys/kernel/debug/sched/features "NO_HRTICK HRTICK_RT_GROUP"

# clocksource
put /sys/devices/system/clocksource/clocksource0/current_clocksource hpet
expect clocksource warn 8 "hpet"
put /sys/devices/system/clocksource/clocksource0/current_clocksource tsc

# nohz-isolation
put /sys/devices/system/cpu/nohz_full 1
expect nohz-isolation ok 0 "nohz_full with the hrtick"
run 0 D doctor && grep -q 'nohz_full CPU 1 (2 reserved group(s) there)' "$T/out"
ok $? "counts the reserved groups on the nohz_full CPU: $(grep nohz "$T/out")"
put /sys/kernel/debug/sched/features "NO_HRTICK NO_HRTICK_RT_GROUP"
expect nohz-isolation warn 8 "nohz_full without the hrtick"
put /sys/kernel/debug/sched/features "NO_HRTICK HRTICK_RT_GROUP"
put /sys/devices/system/cpu/nohz_full "(null)"
put /sys/devices/system/cpu/isolated 0
expect nohz-isolation ok 0 "an isolated CPU"
run 0 D doctor && grep -q 'isolated CPU 0' "$T/out"
ok $? "names the isolated CPU"
put /sys/devices/system/cpu/isolated ""

# the hooks and the policy
mv "$R$LIBEXEC/hcbs/hcbs-hook" "$T/hook.off"
expect lxc-hook warn 8 "no LXC hook"
# A build for another prefix still finds the Debian package's hook (the
# package's own build, prefix /usr, has it where the first check looked).
if [ "$LIBEXEC" != /usr/libexec ]; then
	mkdir -p "$R/usr/libexec/hcbs"; cp "$T/hook.off" "$R/usr/libexec/hcbs/hcbs-hook"
	expect lxc-hook ok 0 "the LXC hook of the Debian package (/usr/libexec)"
	rm -r "$R/usr/libexec"
fi
mv "$T/hook.off" "$R$LIBEXEC/hcbs/hcbs-hook"
chmod -x "$R$LIBEXEC/hcbs/hcbs-oci-hook"
expect oci-hook fail 9 "hcbs.json naming a hook that is not executable"
chmod +x "$R$LIBEXEC/hcbs/hcbs-oci-hook"
put "$HOOKS/hcbs.json" '{"version": "1.0.0"}'
expect oci-hook fail 9 "hcbs.json without hook.path"
GOOD="{\"version\": \"1.0.0\", \"hook\": {\"path\": \"$LIBEXEC/hcbs/hcbs-oci-hook\"}, \"stages\": [\"createRuntime\"]}"
put "$HOOKS/hcbs.json" '{"version": "1.0.0", "hook": {"path": '
expect oci-hook fail 9 "hcbs.json that is not JSON"
found_of oci-hook | grep -q "/hcbs.json is not JSON (line 2: "
ok $? "the broken file's line in the finding"
put "$HOOKS/hcbs.json" "{\"version\": \"0.1.0\", \"hook\": {\"path\": \"$LIBEXEC/hcbs/hcbs-oci-hook\"}, \"stages\": [\"createRuntime\"]}"
expect oci-hook fail 9 "hcbs.json of schema 0.1.0"
put "$HOOKS/hcbs.json" "{\"version\": \"1.0.0\", \"hook\": {\"path\": \"$LIBEXEC/hcbs/hcbs-oci-hook\"}, \"stages\": []}"
expect oci-hook fail 9 "hcbs.json without a stage"
put "$HOOKS/hcbs.json" "{\"version\": \"1.0.0\", \"hook\": {\"path\": \"/nonexistent\"}, \"hook\": {\"path\": \"$LIBEXEC/hcbs/hcbs-oci-hook\"}, \"stages\": [\"createRuntime\"]}"
expect oci-hook warn 8 "hcbs.json with a duplicate key (the last, good one counts)"
found_of oci-hook | grep -q "duplicate object key near '\"hook\"'"
ok $? "the duplicate key named"
put "$HOOKS/hcbs.json" "$GOOD"
put /etc/containers/oci/hooks.d/hcbs.json '{"version": "1.0.0"}'
expect oci-hook fail 9 "a broken hcbs.json in /etc masks a good one in $HOOKS (oci-hooks(5))"
found_of oci-hook | grep -q "^/etc/containers/oci/hooks.d/hcbs.json has no hook.path"
ok $? "the finding names the /etc file"
rm "$R$HOOKS/hcbs.json"
put /etc/containers/oci/hooks.d/hcbs.json "$GOOD"
expect oci-hook ok 0 "hcbs.json in /etc/containers/oci/hooks.d"
rm "$R/etc/containers/oci/hooks.d/hcbs.json"
expect oci-hook warn 8 "no hcbs.json"
run 8 D doctor && grep -q '^ok    oci-policy        /etc/hcbs/oci-hook.conf present' "$T/out"
ok $? "the policy present"
rm "$R/etc/hcbs/oci-hook.conf"
expect oci-policy ok 8 "no policy and no OCI hook: nothing to say"
put "$HOOKS/hcbs.json" "$GOOD"
expect oci-policy warn 8 "the OCI hook without a policy"
put /etc/hcbs/oci-hook.conf "default = refuse"

# governor
put /sys/devices/system/cpu/cpu1/cpufreq/scaling_governor powersave
put /sys/devices/system/cpu/cpu2/cpufreq/scaling_governor powersave
put /sys/devices/system/cpu/cpu10/cpufreq/scaling_governor schedutil
expect governor warn 8 "powersave and schedutil"
run 8 D doctor && grep -q 'governor          powersave on CPU 1-2, schedutil on CPU 10: reservations are time budgets' "$T/out"
ok $? "names each governor's CPUs, in order: $(grep governor "$T/out" | cut -c1-120)"
rm -r "$R/sys/devices/system/cpu/cpu"*
expect governor ok 0 "no cpufreq at all"

# smt
put /sys/devices/system/cpu/smt/active 1
expect smt warn 8 "SMT on"
rm -r "$R/sys/devices/system/cpu/smt"
expect smt ok 0 "no SMT control"

# --- the worst finding wins -------------------------------------------------------
put /sys/devices/system/cpu/smt/active 1
echo "cpuset memory" >"$CG/cgroup.subtree_control"
run 9 D doctor && tail -1 "$T/out" | grep -q '^not ready for reservations: 13 ok, 1 warn, 1 fail$'
ok $? "a warning and a failure: exit 9, the summary counts both: $(tail -1 "$T/out")"
run 9 D --json doctor && valid_json && grep -q '"ready": false' "$T/out" && grep -q '"status": "fail"' "$T/out" &&
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(d["counts"] != {"ok": 13, "warn": 1, "fail": 1})' "$T/out"
ok $? "--json: ready false, status fail, the counts"

echo "1..$n"
[ "$failed" = 0 ]
