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
container-crio|8000 18000
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
while IFS='|' read -r state want pat; do
	[ -z "$state" ] && continue
	hook "$want" "$STATES/$state.json" && one_line && grep -q -- "$pat" "$T/err" && unchanged
	ok $? "$state: exit $want, one line, nothing written: $(cat "$T/err")"
done <<'EOF'
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
id-control|1|^hcbs-oci-hook: abc??\[31mred: state: "pid" is not a process id
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
res-newline|1|invalid reservation '8ms/18ms?rm -rf /'
unknown-key|1|unknown annotation 'hcbs.reservaton': accepted hcbs.reservation, hcbs.taskset, hcbs.period, hcbs.order
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

# --- the hooks.d entry --------------------------------------------------------------
python3 - "$HOOKJSON" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == "1.0.0", d
assert d["hook"]["path"].endswith("/hcbs/hcbs-oci-hook"), d
assert d["stages"] == ["createRuntime"], d
(k, v), = d["when"]["annotations"].items()
for key, want in [("hcbs.reservation", 1), ("hcbs.taskset", 1), ("hcbs.period", 0),
                  ("hcbsXreservation", 0), ("x.hcbs.reservation", 0), ("hcbs.reservation2", 0)]:
    assert bool(re.search(k, key)) == bool(want), (k, key)
assert re.search(v, "8ms/18ms") and re.search(v, ""), v
print("# hooks.d:", json.dumps(d))
EOF
ok $? "hooks.d entry: version 1.0.0, createRuntime, runs for hcbs.reservation and hcbs.taskset only"

echo "1..$n"
[ "$failed" = 0 ]
