#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hcbs-oci-hook end to end on the fake cgroup tree of cli-lib.sh, fed the
# container states in tests/unit/oci-states/ (good, malformed, missing and
# wrong fields, huge values, bad annotations) on stdin, as a runtime would.
# The container's process is pid 4242 of a fake /proc (HCBS_TEST_PROC: the
# hook's test build only) whose cgroup2 mount is the fake tree.  Every
# error: one line on stderr, the documented exit code, nothing written.
# The hook acts on the container's own cgroup only (libpod-ID, crio-ID,
# cri-containerd-ID with the state's id, below a top level cgroup) and on
# a state whose status is "created" (crun) or "creating" (runc): the root,
# a top-level cgroup, an admin's scope, another container's cgroup, a
# stopped container and a cgroup file that is a symbolic link are refused.  Kernel refusals are injected
# with the failwrite shim, and the hook's message is held against the one
# hcbsctl set prints for the same refusal.  Also checks the hooks.d entry.
#
# Usage: test_oci_hook.sh HCBS_OCI_HOOK HCBSCTL FAILWRITE_SO HOOKS_JSON SOURCE_ROOT
# TEST_WRAPPER="valgrind -q --error-exitcode=99 --leak-check=full" runs
# every hook under valgrind.
set -u
OCIHOOK=$1 HCBSCTL=$2 SHIM=$3 HOOKJSON=$4 SRC=$5
STATES=$SRC/tests/unit/oci-states
. "$(dirname "$0")/cli-lib.sh"
# The policy files the tests write must not be group-writable: the hook
# refuses those (the tests of that set modes of their own).
umask 022

# The container's cgroup, as podman's cgroupfs manager makes it; the root
# has its share file, which no refusal may touch.
ID=0123456789abcdef0123
CT_REL=/libpod_parent/libpod-$ID CT=$CG/libpod_parent/libpod-$ID
mkgroup "$CG/libpod_parent"
mkgroup "$CT" "max 1000000"
echo "max 1000000" >"$CG/cpu.rt.max"

# A fake /proc: pid 4242 in the container's cgroup, 4444 in a container
# cgroup that does not exist; 4343 is not there (a dead process).
PROC=$T/proc TS=$T/tasksets
mkdir -p "$PROC/self" "$PROC/4242" "$PROC/4444" "$TS"
echo "30 20 0:26 / $CG rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate" >"$PROC/self/mountinfo"
echo "0::$CT_REL" >"$PROC/4242/cgroup"
echo "0::/machine.slice/libpod-$ID.scope" >"$PROC/4444/cgroup"
export HCBS_TEST_PROC=$PROC
# The node policy (HCBS_TEST_OCI_POLICY: the hook's test build only): every
# test allows what it asks for, except those of the policy itself below.
POLICY=$T/oci-hook.conf
echo "default = allow" >"$POLICY"
export HCBS_TEST_OCI_POLICY=$POLICY
printf '4879us 30ms\n561us 36ms\n10427us 104ms\n4408us 109ms\n20271us 250ms\n' >"$TS/paper.ts"
printf '3ms 4ms\n3ms 5ms\n' >"$TS/over.ts"

# hook [EXPECTED-EXIT] STATE-FILE [ARGS...]: the state on stdin
hook() {
	local want=$1 state=$2
	shift 2
	$WRAP "$OCIHOOK" --taskset-dir "$TS" "$@" <"$state" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" = "$want" ]
}
one_line() { [ "$(wc -l <"$T/err")" = 1 ] && grep -q '^hcbs-oci-hook: ' "$T/err"; }
rtmax() { cat "$CT/cpu.rt.max"; }
reset_c1() { echo "max 1000000" >"$CT/cpu.rt.max"; }

# --- help and arguments ----------------------------------------------------------
run 0 $WRAP "$OCIHOOK" --help && grep -q 'hcbs.reservation=Q/P' "$T/out" && grep -q 'createRuntime' "$T/out"
ok $? "--help names the annotations and the stage"
# --version: "hcbs-oci-hook VERSION" with hcbsctl's version, stdin not read
# (/dev/zero would be refused as too large, or never end).
ver=$("$HCBSCTL" --version | sed -n 's/^hcbsctl //p')
run 0 timeout 20 $WRAP "$OCIHOOK" --version </dev/zero && [ "$(cat "$T/out")" = "hcbs-oci-hook $ver" ] && [ ! -s "$T/err" ]
ok $? "--version: 'hcbs-oci-hook $ver' as hcbsctl --version, stdin not read: $(cat "$T/out")"
run 0 timeout 20 $WRAP "$OCIHOOK" -V </dev/zero && [ "$(cat "$T/out")" = "hcbs-oci-hook $ver" ]
ok $? "-V is --version"
$WRAP "$OCIHOOK" --help | grep -q -- '-V, --version'
ok $? "--help names --version"
run 1 $WRAP "$OCIHOOK" --bogus </dev/null && one_line && grep -q "bad option '--bogus'" "$T/err"
ok $? "an unknown option: exit 1: $(cat "$T/err")"
run 1 $WRAP "$OCIHOOK" createRuntime </dev/null && one_line && grep -q "unexpected argument 'createRuntime'" "$T/err"
ok $? "an argument: exit 1 (the state comes on stdin): $(cat "$T/err")"

# --- the reservation ----------------------------------------------------------------
# STATE|cpu.rt.max after it (7955us: what hcbsctl set --taskset reserves)
while IFS='|' read -r state want; do
	reset_c1
	hook 0 "$STATES/$state.json" && [ "$(rtmax)" = "$want" ] && [ ! -s "$T/out" ] && [ ! -s "$T/err" ]
	ok $? "$state: cpu.rt.max of pid 4242's cgroup is '$want', nothing printed"
done <<'EOF'
good|8000 18000
good-us|8000 18000
status-creating|8000 18000
taskset|7955 18000
taskset-order|7955 18000
podman|8000 18000
EOF
hook 0 "$STATES/good.json" && [ "$(rtmax)" = "8000 18000" ]
ok $? "the same reservation again: exit 0 (a runtime may run a hook twice)"

# --- nothing to do: exit 0, nothing written, nothing said ------------------------
reset_c1
snapshot before
for s in no-annotations other-annotations null-annotations sandbox-crio sandbox-containerd; do
	hook 0 "$STATES/$s.json" && [ ! -s "$T/err" ] && unchanged
	ok $? "$s: nothing to do, exit 0, silent, nothing written"
done

# --- refused states and annotations: one line, exit code, nothing written -------
# refusals < STATE|EXIT|what stderr says (a line each)
refusals() {
	while IFS='|' read -r state want pat; do
		[ -z "$state" ] && continue
		hook "$want" "$STATES/$state.json" && one_line && grep -q -- "$pat" "$T/err" && unchanged
		ok $? "$state: exit $want, one line, nothing written: $(cat "$T/err")"
	done
}
refusals <<'EOF'
truncated|1|state on stdin is not JSON: line 1, column
empty|1|state on stdin is not JSON: line 1, column 0
array|1|is not a JSON object
duplicate-key|1|duplicate object key
duplicate-annotation|1|duplicate object key
plus|1|not JSON
bad-utf8|1|not JSON
no-id|1|no container "id"
id-number|1|no container "id"
no-pid|1|: abc: state: no "pid": run me at createRuntime
status-stopped|1|: 0123456789ab: state: "status" is 'stopped': expected 'created' or 'creating' (run me at createRuntime or prestart)$
status-running|1|"status" is 'running': expected 'created' or 'creating'
status-missing|1|state: no "status" string: expected 'created' or 'creating'
status-number|1|state: no "status" string
repro-root|1|: abcdef012345: state: no "status" string
id-control|1|^hcbs-oci-hook: abc\\n\\x1b\[31mred: state: "pid" is not a process id
id-c1|1|^hcbs-oci-hook: ab\\xc2\\x85\\x7fcdé: state: "pid" is not a process id
id-cut|1|^hcbs-oci-hook: 0123456789a\\xc3: state: "pid" is not a process id
pid-zero|1|"pid" is not a process id
pid-negative|1|"pid" is not a process id
pid-string|1|"pid" is not a process id
pid-real|1|"pid" is not a process id
pid-2e31|1|"pid" is not a process id (an integer from 1 to 2147483647)
pid-huge|1|not JSON: line 1, column [0-9]*: too big integer
annotations-array|1|"annotations" is not an object
annotation-number|1|annotation hcbs.reservation is not a string
res-nounit|1|annotation hcbs.reservation: invalid reservation '8/18': duration '8' has no unit
res-inverted|1|the runtime must not exceed the period
res-fraction|1|whole number of microseconds
res-empty|1|annotation hcbs.reservation: invalid reservation ''
res-huge|1|is too large: at most 8760h
res-toolong|1|is too large: at most 8760h
res-newline|1|invalid reservation '8ms/18ms\\nrm -rf /'
unknown-key|1|unknown annotation 'hcbs.reservaton': accepted hcbs.reservation, hcbs.taskset, hcbs.period, hcbs.order, and in a pod hcbs.KEY.CONTAINER$
container-crio|1|state: a CRI-O container (io.kubernetes.cri-o.ContainerType) without a valid io.kubernetes.pod.namespace: expected the name or uid its engine sets$
both|1|hcbs.reservation and hcbs.taskset both given
period-alone|1|annotation hcbs.period is for hcbs.taskset, which is missing
res-with-period|1|annotation hcbs.period is for hcbs.taskset; hcbs.reservation is RUNTIME/PERIOD
taskset-noperiod|1|hcbs.taskset needs hcbs.period
taskset-path|1|'../../etc/passwd' is not a file name
taskset-abs|1|'/etc/passwd' is not a file name
taskset-dot|1|'.hidden' is not a file name
taskset-missing|3|annotation hcbs.taskset: task set .*/nosuch.ts: No such file
taskset-unsched|6|annotation hcbs.taskset: .*not schedulable
taskset-badperiod|1|annotation hcbs.period: duration '18.5us' is not a whole number of microseconds
taskset-badorder|1|annotation hcbs.order random: expected rm, dm, or file
pid-dead|3|cannot find the cgroup of the container's process (pid 4343): no such process
pid-elsewhere|3|: 0123456789ab: cgroup .*/machine.slice/libpod-0123456789abcdef0123.scope: No such file or directory$
EOF
head -c 2000000 /dev/zero | tr '\0' ' ' >"$T/big.json"
hook 1 "$T/big.json" && one_line && grep -q 'larger than 1048576 bytes' "$T/err" && unchanged
ok $? "a state over 1 MiB: exit 1: $(cat "$T/err")"
run 1 timeout 20 $WRAP "$OCIHOOK" </dev/zero && one_line && grep -q 'NUL byte' "$T/err" && unchanged
ok $? "/dev/zero on stdin ends at once: $(cat "$T/err")"
$WRAP "$OCIHOOK" --taskset-dir "$T/nowhere" <"$STATES/taskset.json" >"$T/out" 2>"$T/err"
[ $? = 3 ] && one_line && unchanged
ok $? "--taskset-dir that does not exist: exit 3: $(cat "$T/err")"

# --- the kernel's answers: the messages of hcbsctl set --------------------------
# same_as_hcbsctl EXIT ERRNO CGROUP RESERVATION STATE: hook and hcbsctl print
# the same reason for the same refusal.
same_as_hcbsctl() {
	local want=$1 errno=$2 cg=$3 res=$4 state=$5
	env LD_PRELOAD="$SHIM" FAILWRITE_FILE=cpu.rt.max FAILWRITE_ERRNO="$errno" \
		$WRAP "$OCIHOOK" <"$STATES/$state.json" >"$T/out" 2>"$T/err"
	rc=$?
	cp "$T/err" "$T/hook.err"
	env LD_PRELOAD="$SHIM" FAILWRITE_FILE=cpu.rt.max FAILWRITE_ERRNO="$errno" \
		$WRAP "$HCBSCTL" --cgroup "$cg" set "$res" >/dev/null 2>"$T/ctl.err"
	[ "$rc" = "$want" ] && one_line && unchanged &&
		[ "$(sed "s|^hcbs-oci-hook: 0123456789ab: ||; s| (cgroup $cg)\$||" "$T/hook.err")" = \
		  "$(sed "s|^hcbsctl: set $cg: ||" "$T/ctl.err")" ]
}
snapshot before
same_as_hcbsctl 2 16 "$CT" 990ms/1s over
ok $? "admission refused (EBUSY): exit 2, hcbsctl set's message: $(cat "$T/hook.err")"
grep -q 'admission refused (EBUSY): requested 0.990 CPU per CPU, available 0.100 under the global limit' "$T/hook.err"
ok $? "... it gives requested and available bandwidth"
same_as_hcbsctl 2 22 "$CT" 990ms/1s over
ok $? "EINVAL: exit 2, the same message as hcbsctl: $(cat "$T/hook.err")"
same_as_hcbsctl 5 13 "$CT" 990ms/1s over
ok $? "EACCES: exit 5, the same message as hcbsctl: $(cat "$T/hook.err")"
mkgroup "$CG/nocpu.slice"
mkgroup "$CG/nocpu.slice/libpod-$ID"; rm "$CG/nocpu.slice/libpod-$ID/cpu.weight"
mkgroup "$CG/legacy.slice"
mkgroup "$CG/legacy.slice/libpod-$ID"
echo 0 >"$CG/legacy.slice/libpod-$ID/cpu.rt_runtime_us"; echo 1000000 >"$CG/legacy.slice/libpod-$ID/cpu.rt_period_us"
snapshot before
echo "0::/nocpu.slice/libpod-$ID" >"$PROC/4242/cgroup"
hook 4 "$STATES/good.json" && one_line && grep -q 'subtree_control' "$T/err" && unchanged
ok $? "a cgroup without the cpu controller: exit 4: $(cat "$T/err")"
echo "0::/legacy.slice/libpod-$ID" >"$PROC/4242/cgroup"
hook 4 "$STATES/good.json" && one_line && grep -q 'old RT_GROUP_SCHED' "$T/err" && unchanged
ok $? "a kernel with the stock RT_GROUP_SCHED: exit 4: $(cat "$T/err")"

# --- only the container's own cgroup -------------------------------------------
# CGROUP|EXIT|what stderr says: the state's process in each cgroup.  Every
# refusal names the cgroup and what was expected, and writes nothing.
mkgroup "$CG/user.slice"; mkgroup "$CG/user.slice/session-3.scope" "max 1000000"
mkgroup "$CG/libpod-$ID" "max 1000000"
mkgroup "$CG/machine.slice"; mkgroup "$CG/machine.slice/libpod-feedface.scope" "max 1000000"
mkgroup "$CG/machine.slice/libpod-conmon-$ID.scope" "max 1000000"
mkgroup "$CG/system.slice"; mkgroup "$CG/system.slice/docker-$ID.scope" "max 1000000"
snapshot before
while IFS='|' read -r cg want pat; do
	[ -z "$cg" ] && continue
	echo "0::$cg" >"$PROC/4242/cgroup"
	hook "$want" "$STATES/good.json" && one_line && grep -q -- "$pat" "$T/err" &&
		grep -q "expected its own cgroup, libpod-, crio- or cri-containerd-$ID (the state's id), below a top-level cgroup; refused\$" "$T/err" &&
		unchanged
	ok $? "pid in $cg: exit $want, one line, nothing written: $(cat "$T/err")"
done <<EOF
/|3|: pid 4242: cgroup / is the root cgroup, not the container's
/user.slice/session-3.scope|3|: cgroup /user.slice/session-3.scope is not the container's
/user.slice|3|: cgroup /user.slice is not the container's
/libpod-$ID|3|: cgroup /libpod-$ID is a top-level cgroup
/machine.slice/libpod-feedface.scope|3|: cgroup /machine.slice/libpod-feedface.scope is container feedface's, not this one's
/machine.slice/libpod-conmon-$ID.scope|3|is not the container's
/system.slice/docker-$ID.scope|3|is not the container's
/lxc.payload.c1|3|: cgroup /lxc.payload.c1 is not the container's
EOF
# The issue's repro, with a status: pid in 0::/, another id, 500ms/1s.
sed 's/"pid"/"status": "created", "pid"/' "$STATES/repro-root.json" >"$T/repro.json"
echo "0::/" >"$PROC/4242/cgroup"
hook 3 "$T/repro.json" && one_line && grep -q 'cgroup / is the root cgroup' "$T/err" &&
	[ "$(cat "$CG/cpu.rt.max")" = "max 1000000" ] && unchanged
ok $? "the root cgroup's share is never set by a state: exit 3: $(cat "$T/err")"
echo "bogus" >"$PROC/4242/cgroup"
hook 3 "$STATES/good.json" && one_line && grep -q 'cannot find the cgroup .*no cgroup v2 or cpu cgroup v1 hierarchy' "$T/err" && unchanged
ok $? "a cgroup that cannot be resolved: exit 3, no fallback: $(cat "$T/err")"
echo "0::/elsewhere/libpod-$ID" >"$PROC/4242/cgroup"
echo "30 20 0:26 /mnt $CG rw - cgroup2 cgroup2 rw" >"$PROC/self/mountinfo"
hook 3 "$STATES/good.json" && one_line && grep -q 'not reachable from any cgroup2 mount' "$T/err" && unchanged
ok $? "a cgroup outside the mounts: exit 3: $(cat "$T/err")"
# No cpu cgroup hierarchy mounted at all: exit 4 as hcbsctl, not 3.
echo "21 1 0:19 / /proc rw - proc proc rw" >"$PROC/self/mountinfo"
echo "0::$CT_REL" >"$PROC/4242/cgroup"
hook 4 "$STATES/good.json" && one_line &&
	grep -q "^hcbs-oci-hook: 0123456789ab: no cpu cgroup hierarchy is mounted (none in /proc/self/mountinfo): expected cgroup2, or cgroup v1 with the cpu controller\$" "$T/err" &&
	unchanged
ok $? "no cpu cgroup hierarchy mounted: exit 4, nothing changed: $(cat "$T/err")"
echo "30 20 0:26 / $CG rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate" >"$PROC/self/mountinfo"

# crun's systemd sub-cgroup and CRI-O's scope are the container's own.
mkgroup "$CG/machine.slice/libpod-$ID.scope"; mkgroup "$CG/machine.slice/libpod-$ID.scope/container" "max 1000000"
mkgroup "$CG/kubepods.slice"; mkgroup "$CG/kubepods.slice/kubepods-pod1.slice"
mkgroup "$CG/kubepods.slice/kubepods-pod1.slice/crio-$ID.scope" "max 1000000"
for cg in "/machine.slice/libpod-$ID.scope/container" "/kubepods.slice/kubepods-pod1.slice/crio-$ID.scope"; do
	echo "0::$cg" >"$PROC/4242/cgroup"
	hook 0 "$STATES/good.json" && [ "$(cat "$CG$cg/cpu.rt.max")" = "8000 18000" ] && [ ! -s "$T/err" ]
	ok $? "pid in $cg: reserved there"
done

# A cgroup file that is a symbolic link is never followed.
echo "0::$CT_REL" >"$PROC/4242/cgroup"
echo precious >"$T/victim"
mv "$CT/cpu.rt.max" "$T/rt.max.saved"
ln -s "$T/victim" "$CT/cpu.rt.max"
snapshot before
hook 3 "$STATES/good.json" && one_line && grep -q 'is a symbolic link, which no cgroup file is' "$T/err" &&
	[ "$(cat "$T/victim")" = precious ] && unchanged
ok $? "cpu.rt.max a symbolic link to a file: exit 3, the file untouched: $(cat "$T/err")"
rm "$CT/cpu.rt.max"; mv "$T/rt.max.saved" "$CT/cpu.rt.max"

# Without HCBS_TEST_FAKE_CGROUPFS the test build is the installed hook:
# the fake tree is not a cgroup file system.
reset_c1
snapshot before
env -u HCBS_TEST_FAKE_CGROUPFS $WRAP "$OCIHOOK" <"$STATES/good.json" >"$T/out" 2>"$T/err"
[ $? = 3 ] && one_line && grep -q "is on .*, not a cgroup file system" "$T/err" && unchanged
ok $? "a cgroup tree on another file system: exit 3: $(cat "$T/err")"

# --- Kubernetes pods (CRI-O's states): hcbs.KEY.CONTAINER, for that container ---
# The pod's cgroup as kubelet's systemd driver makes it, with the sandbox's
# and the container's scopes.  The states carry what CRI-O writes: the
# pod's annotations, then its own io.kubernetes.cri-o.*, then kubelet's
# labels (io.kubernetes.container.name, io.kubernetes.pod.namespace, .uid).
PUID=5f0c8d2e-1b7a-4c3e-9a61-2f4e8b9d0c17
SB=9c1e7a5b3d2f4e6a8b0c9d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a
POD_REL=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${PUID//-/_}.slice
POD=$CG$POD_REL OWN=$CG$POD_REL/crio-$ID.scope
mkgroup "$CG/kubepods.slice"; mkgroup "$CG/kubepods.slice/kubepods-burstable.slice"
mkgroup "$POD" "max 1000000"
mkgroup "$POD/crio-$SB.scope" "max 1000000"
mkgroup "$OWN" "max 1000000"
echo "0::$POD_REL/crio-$ID.scope" >"$PROC/4242/cgroup"
reset_own() { echo "max 1000000" >"$OWN/cpu.rt.max"; }
echo "default = allow" >"$POLICY"
while IFS='|' read -r state want; do
	reset_own
	hook 0 "$STATES/$state.json" && [ "$(cat "$OWN/cpu.rt.max")" = "$want" ] && [ ! -s "$T/err" ]
	ok $? "$state: container vbbu of the pod gets its hcbs.*.vbbu: '$want', nothing printed"
done <<'EOF'
crio-vbbu|8000 18000
crio-taskset|7955 18000
EOF
reset_own
snapshot before
for s in crio-sidecar crio-sandbox-named; do
	hook 0 "$STATES/$s.json" && [ ! -s "$T/err" ] && unchanged
	ok $? "$s: the pod's keys name other containers: exit 0, silent, nothing written"
done
refusals <<'EOF'
crio-plain|1|: annotation hcbs.reservation in a pod would reserve for every container of the pod, sidecars and init containers too: give hcbs.reservation.vbbu for this container, and the same for each container that needs one$
crio-plain-taskset|1|give hcbs.taskset.vbbu for this container
crio-no-namespace|1|without a valid io.kubernetes.pod.namespace
crio-bad-uid|1|without a valid io.kubernetes.pod.uid
crio-period-alone|1|annotation hcbs.period.vbbu is for hcbs.taskset.vbbu, which is missing$
crio-bad-suffix|1|unknown annotation 'hcbs.reservation.Vbbu_1'
crio-bad-res|1|annotation hcbs.reservation.vbbu: invalid reservation '8/18': duration '8' has no unit
podman-named|1|annotation hcbs.reservation.vbbu is for a container of a Kubernetes pod, named by io.kubernetes.container.name; this container is in none: give hcbs.KEY$
EOF

# --- the node policy: who may ask, and how much --------------------------------
# POLICY-TEXT|STATE|EXIT|stderr (empty: none, and the reservation written)
# The pid is in the pod's container cgroup; podman's state has the same id.
pol_case() {
	local text=$1 state=$2 want=$3 pat=${4:-}
	printf '%b' "$text" >"$POLICY"
	reset_own
	snapshot before
	hook "$want" "$STATES/$state.json" || return 1
	if [ "$want" = 0 ]; then
		[ ! -s "$T/err" ] && [ "$(cat "$OWN/cpu.rt.max")" != "max 1000000" ]
	else
		one_line && grep -q -- "$pat" "$T/err" && unchanged
	fi
}
while IFS='|' read -r text state want pat; do
	[ -z "$text" ] && continue
	pol_case "$text" "$state" "$want" "$pat"
	ok $? "policy '$text', $state: exit $want${pat:+: $(cat "$T/err")}"
done <<EOF
default = refuse\nnamespaces = vran, rt-tests\n|crio-vbbu|0|
default = refuse\nnamespaces = vran\n|crio-default-ns|5|: policy $POLICY:2: namespaces = vran: namespace 'default' is not one of them; refused\$
default = allow\nnamespaces = rt-tests\n|crio-vbbu|5|: policy $POLICY:2: namespaces = rt-tests: namespace 'vran' is not one of them; refused\$
default = refuse\n|crio-vbbu|5|: policy $POLICY:1: default = refuse, and no namespaces line: namespace 'vran' may not ask; refused\$
default = refuse\n|podman|5|: policy $POLICY:1: default = refuse: a container outside Kubernetes may not ask; refused\$
default = refuse\nnamespaces = vran\n|podman|5|: policy $POLICY:1: default = refuse: a container outside Kubernetes may not ask
\n# nothing but a comment\n|podman|5|: policy $POLICY: default = refuse (no default line): a container outside Kubernetes may not ask; refused\$
default = allow\nnamespaces = vran\n|podman|0|
default = allow\nmax-bandwidth = 0.444445\n|podman|0|
default = allow\nmax-bandwidth = 0.444444\n|podman|5|: policy $POLICY:2: max-bandwidth = 0.444444: 8ms/18ms is 0.444 of a CPU; refused\$
default = allow\nmax-bandwidth = 0.5\n|podman-big|5|max-bandwidth = 0.5: 12ms/18ms is 0.667 of a CPU; refused\$
default = allow\nmax-bandwidth = 0.4\n|crio-taskset|5|max-bandwidth = 0.4: 7955us/18ms is 0.442 of a CPU; refused\$
default = allow\nmax-runtime = 8ms\nmin-period = 18ms\nmax-period = 18ms\n|podman|0|
default = allow\nmax-runtime = 7999us\n|podman|5|: policy $POLICY:2: max-runtime = 7999us: 8ms/18ms has a runtime of 8ms; refused\$
default = allow\nmin-period = 20ms\n|podman|5|: policy $POLICY:2: min-period = 20ms: 8ms/18ms has a shorter period; refused\$
default = allow\nmax-period = 10ms\n|podman|5|: policy $POLICY:2: max-period = 10ms: 8ms/18ms has a longer period; refused\$
  # comments, blanks and CRLF\r\n\n  default   =   allow   # trailing\r\n|podman|0|
EOF
HCBS_TEST_OCI_POLICY=$T/nosuch.conf pol_case "" podman 5 \
	": no node policy $T/nosuch.conf: every reservation is refused until it allows them (default = refuse; see hcbs-oci-hook(1), POLICY)\$"
ok $? "no policy file: every reservation refused, exit 5: $(cat "$T/err")"

# The policy decides who may reserve: it is read only if nobody but root
# can have written it (the test build also trusts the tests' own uid, or
# $HCBS_TEST_OCI_POLICY_UID).  Anything else refuses every reservation,
# exit 1, one line saying what is wrong and what is accepted.
ACC="expected a regular file owned by root, not writable by group or others; every reservation is refused\$"
mkdir "$T/policy.d"
HCBS_TEST_OCI_POLICY=$T/policy.d pol_case "" podman 1 ": node policy $T/policy.d is a directory: $ACC"
ok $? "a directory for the policy: exit 1: $(cat "$T/err")"
echo "default = allow" >"$T/allow.conf"
ln -sf "$T/allow.conf" "$T/link.conf"
HCBS_TEST_OCI_POLICY=$T/link.conf pol_case "" podman 1 ": node policy $T/link.conf is a symbolic link: $ACC"
ok $? "a symbolic link to a good policy: exit 1: $(cat "$T/err")"
mkfifo "$T/fifo.conf"
HCBS_TEST_OCI_POLICY=$T/fifo.conf timeout 10 true &&
	HCBS_TEST_OCI_POLICY=$T/fifo.conf pol_case "" podman 1 ": node policy $T/fifo.conf is a FIFO: $ACC"
ok $? "a FIFO: exit 1 at once, nothing read: $(cat "$T/err")"
for m in 664:"its group" 646:others 666:"group and others" 622:"group and others"; do
	chmod "${m%%:*}" "$T/allow.conf"
	HCBS_TEST_OCI_POLICY=$T/allow.conf pol_case "" podman 1 \
		": node policy $T/allow.conf is writable by ${m#*:} (mode 0${m%%:*}): $ACC"
	ok $? "a policy of mode ${m%%:*}: exit 1: $(cat "$T/err")"
done
chmod 644 "$T/allow.conf"
HCBS_TEST_OCI_POLICY=$T/allow.conf pol_case "" podman 0
ok $? "the same file, mode 0644 and the tests' own: read, and it allows"
me=$(id -u)
if [ "$me" = 0 ]; then
	chown 65534 "$T/allow.conf" && other=65534
else
	export HCBS_TEST_OCI_POLICY_UID=$((me + 1)) && other=$me
fi
if [ "$me" = 0 ]; then
	HCBS_TEST_OCI_POLICY=$T/allow.conf pol_case "" podman 1 ": node policy $T/allow.conf is owned by uid $other: $ACC"
	ok $? "a policy owned by another user than root: exit 1: $(cat "$T/err")"
else
	# The tests' uid, untrusted, owns the directory too, which is refused first.
	n=$((n + 1)); echo "ok $n - # SKIP a file owned apart from its directory needs root"
fi
# Root's file is trusted even where the tests' uid is not: /etc/passwd is
# no policy, and its first line is refused by the parser, not by its owner.
if [ "$(stat -c %u /etc/passwd)" = 0 ] && [ $(( 0$(stat -c %a /etc/passwd) & 022 )) = 0 ]; then
	HCBS_TEST_OCI_POLICY=/etc/passwd pol_case "" podman 1 ": /etc/passwd:1: '.*' is not KEY = VALUE"
	ok $? "a file of root's, mode $(stat -c %a /etc/passwd): trusted, then parsed: $(cut -c1-80 "$T/err")"
else
	n=$((n + 1)); echo "ok $n - # SKIP /etc/passwd is not root's 0644"
fi
unset HCBS_TEST_OCI_POLICY_UID
[ "$me" = 0 ] && chown 0 "$T/allow.conf"

# The directory that holds the policy is checked as the policy itself:
# whoever can write it can put another file in the policy's place.  It is
# opened without following a symbolic link, and the file from that fd.
DACC="expected a directory owned by root, not writable by group or others; every reservation is refused\$"
PD=$T/pdir
mkdir -m 0755 "$PD" && echo "default = allow" >"$PD/oci-hook.conf"
HCBS_TEST_OCI_POLICY=$PD/oci-hook.conf pol_case "" podman 0
ok $? "a good policy in a directory of mode 0755, the tests' own: read, and it allows"
for m in 775:"its group" 757:others 777:"group and others" 1777:"group and others" 2770:"its group"; do
	chmod "${m%%:*}" "$PD"
	HCBS_TEST_OCI_POLICY=$PD/oci-hook.conf pol_case "" podman 1 \
		": node policy directory $PD is writable by ${m#*:} (mode 0*${m%%:*}): $DACC"
	ok $? "a policy directory of mode ${m%%:*}: exit 1: $(cat "$T/err")"
done
chmod 0755 "$PD"
ln -s "$PD" "$T/pdir-link"
HCBS_TEST_OCI_POLICY=$T/pdir-link/oci-hook.conf pol_case "" podman 1 \
	": node policy directory $T/pdir-link is a symbolic link: $DACC"
ok $? "a symbolic link to a good policy directory: exit 1: $(cat "$T/err")"
HCBS_TEST_OCI_POLICY=$PD/oci-hook.conf/x pol_case "" podman 1 \
	": node policy directory $PD/oci-hook.conf is not a directory: $DACC"
ok $? "a regular file where the policy directory should be: exit 1: $(cat "$T/err")"
HCBS_TEST_OCI_POLICY=$T/nosuch.d/oci-hook.conf pol_case "" podman 5 \
	": no node policy $T/nosuch.d/oci-hook.conf: every reservation is refused until it allows them (default = refuse; see hcbs-oci-hook(1), POLICY)\$"
ok $? "no policy directory: no policy, every reservation refused, exit 5: $(cat "$T/err")"
if [ "$me" = 0 ]; then
	chown 65534 "$PD" && other=65534
else
	export HCBS_TEST_OCI_POLICY_UID=$((me + 1)) && other=$me
fi
HCBS_TEST_OCI_POLICY=$PD/oci-hook.conf pol_case "" podman 1 \
	": node policy directory $PD is owned by uid $other: $DACC"
ok $? "a policy directory owned by another user than root: exit 1: $(cat "$T/err")"
unset HCBS_TEST_OCI_POLICY_UID
[ "$me" = 0 ] && chown 0 "$PD"
# /etc is root's, 0755: trusted, and the file in it is then checked (and parsed).
if [ "$(stat -c %u /etc)" = 0 ] && [ $(( 0$(stat -c %a /etc) & 022 )) = 0 ]; then
	HCBS_TEST_OCI_POLICY=/etc/nosuch-hcbs.conf pol_case "" podman 5 ": no node policy /etc/nosuch-hcbs.conf: "
	ok $? "a directory of root's, mode $(stat -c %a /etc): trusted, the missing file then says so: $(cat "$T/err")"
else
	n=$((n + 1)); echo "ok $n - # SKIP /etc is not root's 0755"
fi

# The example shipped in share/doc/hcbs/examples, installed as its header
# says: the hook reads it, and its rules decide (a file it could not parse
# would refuse everything with exit 1).
EX=$T/example.conf
install -m 0644 "$SRC/docs/examples/oci-hook.conf" "$EX"
exline() { grep -n "^$1 *=" "$EX" | cut -d: -f1; }
HCBS_TEST_OCI_POLICY=$EX pol_case "" crio-vbbu 0 && [ "$(cat "$OWN/cpu.rt.max")" = "8000 18000" ]
ok $? "the shipped example policy: a vran container's 8ms/18ms is reserved"
HCBS_TEST_OCI_POLICY=$EX pol_case "" crio-default-ns 5 \
	": policy $EX:$(exline namespaces): namespaces = vran: namespace 'default' is not one of them; refused\$"
ok $? "... a container of namespace default is refused by its namespaces line: $(cat "$T/err")"
HCBS_TEST_OCI_POLICY=$EX pol_case "" podman 5 \
	": policy $EX:$(exline default): default = refuse: a container outside Kubernetes may not ask; refused\$"
ok $? "... podman's by its default line: $(cat "$T/err")"
# Every key the hook's --help names, once, active.
keys=$($WRAP "$OCIHOOK" --help | tr '\n' ' ' | sed -n 's/.*Node policy: [^(]*(\([^:]*\): .*/\1/p' | tr -d ,)
missing=
for k in $keys; do
	[ "$(grep -c "^$k = " "$EX")" = 1 ] || missing="$missing $k"
done
[ -n "$keys" ] && [ -z "$missing" ]
ok $? "... and it sets each key of the policy once: ${keys:-none found in --help}${missing:+; missing:$missing}"
echo "0::/" >"$PROC/4242/cgroup"
pol_case "default = refuse\n" podman 5 "default = refuse" && [ "$(cat "$CG/cpu.rt.max")" = "max 1000000" ]
ok $? "the policy is asked before any cgroup is read: pid in the root, exit 5: $(cat "$T/err")"
echo "0::$POD_REL/crio-$ID.scope" >"$PROC/4242/cgroup"

# A policy that is not understood refuses everything: FILE:LINE and what is accepted.
while IFS='|' read -r text pat; do
	[ -z "$text" ] && continue
	pol_case "$text" podman 1 "$pat"
	ok $? "malformed policy '$text': exit 1: $(cat "$T/err")"
done <<EOF
default = maybe\n|: $POLICY:1: default = maybe: expected refuse or allow\$
defualt = allow\n|: $POLICY:1: unknown key 'defualt': accepted default, namespaces, max-bandwidth, max-runtime, min-period, max-period, max-pod-bandwidth\$
\ndefault allow\n|: $POLICY:2: 'default allow' is not KEY = VALUE: accepted keys default,
default = allow\ndefault = refuse\n|: $POLICY:2: default given again (first at line 1): give each key once\$
default = allow\nmax-pod-bandwidth =\n|: $POLICY:2: max-pod-bandwidth has no value\$
max-bandwidth = 1.5\n|: $POLICY:1: max-bandwidth = 1.5: expected a fraction of one CPU from 0 to 1 with at most 6 decimals, e.g. 0.45\$
max-bandwidth = 0.1234567\n|max-bandwidth = 0.1234567: expected a fraction
max-bandwidth = .5\n|max-bandwidth = .5: expected a fraction
max-pod-bandwidth = 50%\n|max-pod-bandwidth = 50%: expected a fraction
max-runtime = 8\n|: $POLICY:1: max-runtime = 8: duration '8' has no unit
max-runtime = 0ms\n|: $POLICY:1: max-runtime = 0ms: 
min-period = 1.5us\n|: $POLICY:1: min-period = 1.5us: .*whole number of microseconds
namespaces = Vran\n|: $POLICY:1: namespaces = Vran: namespace 'Vran' is not a Kubernetes namespace name
namespaces = ,\n|: $POLICY:1: namespaces = ,: no namespace
min-period = 20ms\nmax-period = 10ms\n|: $POLICY:2: min-period = 20ms is above max-period = 10ms: expected min-period <= max-period\$
default = allow\x1b[31m\n|: $POLICY:1: default = allow\\\\x1b\\[31m: expected refuse or allow\$
EOF
printf 'default = allow\n\0\n' >"$T/nul.conf"
HCBS_TEST_OCI_POLICY=$T/nul.conf pol_case "" podman 1 "node policy $T/nul.conf: .*NUL byte"
ok $? "a policy file with a NUL byte: exit 1: $(cat "$T/err")"

# --- the per-pod limit: the pod's other containers, read from their cgroups ----
PP="default = refuse\nnamespaces = vran\nmax-pod-bandwidth = 0.7\n"
mkgroup "$POD/crio-aaaa.scope" "4000 18000"
pol_case "$PP" crio-vbbu 0 && [ "$(cat "$OWN/cpu.rt.max")" = "8000 18000" ]
ok $? "pod at 0.222 + 8ms/18ms = 0.667 <= 0.7: reserved"
hook 0 "$STATES/crio-vbbu.json" && [ "$(cat "$OWN/cpu.rt.max")" = "8000 18000" ]
ok $? "... and again: the container's own reservation is not counted twice"
echo "6000 18000" >"$POD/crio-aaaa.scope/cpu.rt.max"
pol_case "$PP" crio-vbbu 5 ": policy $POLICY:3: max-pod-bandwidth = 0.7: pod $PUID has 0.333 of a CPU reserved by 1 other container, and 8ms/18ms would make it 0.778; refused\$"
ok $? "pod at 0.333 + 0.444 > 0.7: exit 5: $(cat "$T/err")"
echo "4000 18000" >"$POD/crio-aaaa.scope/cpu.rt.max"
mkgroup "$POD/crio-bbbb.scope" "max 1000000"; mkgroup "$POD/crio-bbbb.scope/container" "2000 18000"
pol_case "$PP" crio-vbbu 5 "pod $PUID has 0.333 of a CPU reserved by 2 other containers"
ok $? "a reservation in a container's sub-cgroup counts: exit 5: $(cat "$T/err")"
rm -r "$POD/crio-bbbb.scope"
echo "1000 10000" >"$POD/crio-aaaa.scope/cpu.rt.max"
pol_case "${PP/0.7/0.544445}" crio-vbbu 0
ok $? "pod at 0.1 + 0.4444444... <= 0.544445: reserved"
pol_case "${PP/0.7/0.544444}" crio-vbbu 5 "max-pod-bandwidth = 0.544444: pod $PUID has 0.100 of a CPU reserved by 1 other container, and 8ms/18ms would make it 0.544; refused"
ok $? "... above 0.544444: exit 5: $(cat "$T/err")"
echo "4000 18000" >"$POD/crio-aaaa.scope/cpu.rt.max"
mv "$POD/crio-aaaa.scope/cpu.rt.max" "$T/saved"; ln -s "$T/saved" "$POD/crio-aaaa.scope/cpu.rt.max"
pol_case "$PP" crio-vbbu 3 "pod $PUID: cannot add up its reservations: .*crio-aaaa.scope/cpu.rt.max is a symbolic link"
ok $? "a sibling's cpu.rt.max a symbolic link: fail closed, exit 3: $(cat "$T/err")"
rm "$POD/crio-aaaa.scope/cpu.rt.max"; mv "$T/saved" "$POD/crio-aaaa.scope/cpu.rt.max"
# kubelet's cgroupfs driver: kubepods/burstable/pod<UID>/crio-<ID>
mkgroup "$CG/kubepods"; mkgroup "$CG/kubepods/burstable"; mkgroup "$CG/kubepods/burstable/pod$PUID" "max 1000000"
mkgroup "$CG/kubepods/burstable/pod$PUID/crio-$ID" "max 1000000"
echo "0::/kubepods/burstable/pod$PUID/crio-$ID" >"$PROC/4242/cgroup"
printf '%b' "$PP" >"$POLICY"
hook 0 "$STATES/crio-vbbu.json" && [ "$(cat "$CG/kubepods/burstable/pod$PUID/crio-$ID/cpu.rt.max")" = "8000 18000" ]
ok $? "the cgroupfs driver's pod$PUID/crio-ID: reserved"
mkgroup "$CG/kubepods.slice/crio-$ID.scope" "max 1000000"
echo "0::/kubepods.slice/crio-$ID.scope" >"$PROC/4242/cgroup"
pol_case "$PP" crio-vbbu 3 ": policy $POLICY:3: max-pod-bandwidth: cgroup /kubepods.slice/crio-$ID.scope is not in pod $PUID's cgroup: expected its parent to be pod$PUID or ...-pod$PUID.slice; refused\$"
ok $? "a container cgroup whose parent is not the pod's: exit 3: $(cat "$T/err")"
echo "0::$CT_REL" >"$PROC/4242/cgroup"
echo "default = allow" >"$POLICY"

# --- the hooks.d entry --------------------------------------------------------------
python3 - "$HOOKJSON" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == "1.0.0", d
assert d["hook"]["path"].endswith("/hcbs/hcbs-oci-hook"), d
assert d["stages"] == ["createRuntime"], d
(k, v), = d["when"]["annotations"].items()
for key, want in [("hcbs.reservation", 1), ("hcbs.taskset", 1), ("hcbs.period", 0),
                  ("hcbs.reservation.vbbu", 1), ("hcbs.taskset.l2-sched", 1), ("hcbs.period.vbbu", 0),
                  ("hcbsXreservation", 0), ("x.hcbs.reservation", 0), ("hcbs.reservation2", 0),
                  ("hcbs.reservation.", 0), ("hcbs.reservation.A", 0)]:
    assert bool(re.search(k, key)) == bool(want), (k, key)
assert re.search(v, "8ms/18ms") and re.search(v, ""), v
print("# hooks.d:", json.dumps(d))
EOF
ok $? "hooks.d entry: version 1.0.0, createRuntime, runs for hcbs.reservation and hcbs.taskset, and their .CONTAINER keys, only"

echo "1..$n"
[ "$failed" = 0 ]
