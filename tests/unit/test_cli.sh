#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hcbsctl and hcbs-hook end to end on a fake cgroup tree (--cgroup and the
# test-only HCBSCTL_SYSCTL_DIR / HCBSCTL_FAIR_SERVER_DIR): the writes, the
# write order, and every error path: one line on stderr, the documented exit
# code, nothing changed; free and the refusals with and without the root
# group's share.  Kernel refusals (EBUSY, EINVAL) are injected with
# the failwrite LD_PRELOAD shim.  JSON output is validated against
# docs/hcbsctl-schema.json.  TAP on stdout.
#
# Usage: test_cli.sh HCBSCTL HCBS_HOOK FAILWRITE_SO SOURCE_ROOT
# With TEST_WRAPPER="valgrind -q --error-exitcode=99 --leak-check=full" every
# hcbsctl/hcbs-hook run is checked by valgrind (any report fails the test).
set -u
HCBSCTL=$1 HOOK=$2 SHIM=$3 SRC=$4
. "$(dirname "$0")/cli-lib.sh"
H() { $WRAP "$HCBSCTL" "$@"; }

# --- help, version, usage errors --------------------------------------------
run 0 H --help && grep -q '^Examples:' "$T/out" && grep -q 'hcbsctl set vbbu1 8ms/18ms' "$T/out"
ok $? "--help exits 0 and shows examples"
run 0 H --version && grep -qE '^hcbsctl [0-9]' "$T/out"
ok $? "--version"
snapshot before
for args in "" "frobnicate" "--bogus list" "set" "get" "set c1" "set a b c" "-P" \
	    "--cgroup $C1 set c1 8ms/18ms" "-q -v --cgroup $C1 set 8ms/18ms" \
	    "list extra" "analyze" "--cgroup $C1 set --period 18ms 8ms/18ms"; do
	# shellcheck disable=SC2086
	run 1 H $args && one_line_err && [ ! -s "$T/out" ]
	ok $? "usage error exits 1 with one line: hcbsctl $args -> $(cat "$T/err")"
done

# Every example of --help is a valid command line: analyze (which changes
# nothing) runs for real on a task set named as in the example; the others
# stop once parsed (HCBS_TEST_PARSE_ONLY, the test build's switch).
cp "$SRC/docs/examples/paper.ts" "$T/vbbu.ts"
H --help | sed -n '/^Examples:/,/^$/s/^  hcbsctl //p' | sed 's/  *(.*)$//' >"$T/examples"
[ "$(wc -l <"$T/examples")" -ge 10 ]
ok $? "--help has examples to check ($(wc -l <"$T/examples"))"
while read -r ex; do
	case $ex in
	*analyze*) want="0 6" env= ;;
	*) want=0 env=HCBS_TEST_PARSE_ONLY=1 ;;
	esac
	# shellcheck disable=SC2086
	(cd "$T" && env $env $WRAP "$HCBSCTL" $ex >"$T/out" 2>"$T/err")
	rc=$?
	case " $want " in *" $rc "*) ok 0 "--help example: hcbsctl $ex" ;;
	*) ok 1 "--help example: hcbsctl $ex: exit $rc (want $want)" ;; esac
done <"$T/examples"

# --- -q, -v, and --json for set/unset and for every failure -----------------
run 0 H -q --cgroup "$C1" set 8ms/18ms && [ ! -s "$T/out" ] && [ ! -s "$T/err" ] &&
	[ "$(cat "$C1/cpu.rt.max")" = "8000 18000" ]
ok $? "set -q: written, nothing on stdout or stderr"
run 0 H --quiet --cgroup "$C1" unset && [ ! -s "$T/out" ] && [ "$(cat "$C1/cpu.rt.max")" = "max 18000" ]
ok $? "unset --quiet: written, nothing on stdout"
H --cgroup "$C1" set 8ms/18ms >"$T/plain" 2>/dev/null; H --cgroup "$C1" unset >/dev/null 2>&1
run 0 H -v --cgroup "$C1" set 8ms/18ms && cmp -s "$T/out" "$T/plain" &&
	grep -qx "hcbsctl: set: wrote '8000 18000' to $C1/cpu.rt.max" "$T/err" &&
	grep -q "^hcbsctl: set: $C1: from max/18ms to 8ms/18ms$" "$T/err" &&
	grep -q '^hcbsctl: set: admission: 0\.[0-9]* CPU per CPU available under the global limit.*; 0.444 requested$' "$T/err"
ok $? "set -v: the same stdout; on stderr the change, the admission figures, the write: $(tr '\n' '|' <"$T/err")"
run 0 H --verbose --cgroup "$C1" set 8ms/18ms && grep -q "^hcbsctl: set: $C1: already 8ms/18ms: nothing written$" "$T/err"
ok $? "set -v of the value it has: says nothing is written: $(tr '\n' '|' <"$T/err")"
run 0 H --json --cgroup "$C1" set 9ms/18ms && valid_json &&
	json_is 'd["command"] == "set" and d["name"] is None and d["cgroup"] == "'"$C1"'" and d["reservation"]["runtime_us"] == 9000 and d["root_share"] is False and d["taskset"] is None'
ok $? "set --json: the reservation set, schema-valid"
run 0 H --json --cgroup "$C1" set --taskset "$T/vbbu.ts" --period 18ms && valid_json &&
	json_is 'd["taskset"]["runtime_ns"] == d["reservation"]["runtime_us"] * 1000 and d["taskset"]["period_ns"] == 18000000 and d["taskset"]["overhead"] is None and d["taskset"]["measurement"] is None'
ok $? "set --json --taskset: what the task set needs, schema-valid: $(cat "$C1/cpu.rt.max")"
run 0 H --json --cgroup "$C1" unset && valid_json && json_is 'd["command"] == "unset" and d["reservation"]["max"] is True'
ok $? "unset --json: max, schema-valid"
run 0 H -q analyze "$T/vbbu.ts" --reservation 8ms/18ms && [ ! -s "$T/out" ]
ok $? "analyze -q, schedulable: exit 0, nothing printed"
run 6 H -q analyze "$T/vbbu.ts" --reservation 1ms/18ms && [ ! -s "$T/out" ]
ok $? "analyze -q, not schedulable: exit 6, nothing printed"
# With --json, every failure prints the error document on stdout (the
# line of stderr, the exit status, the command), and changes nothing.
snapshot before
# COMMAND-IN-THE-DOCUMENT|ARGUMENTS
while IFS='|' read -r want args; do
	# shellcheck disable=SC2086
	run x H --json $args
	[ "$rc" != 0 ] && one_line_err && valid_json && unchanged &&
		json_is 'd["error"]["exit_status"] == '"$rc"' and "hcbsctl: " + d["error"]["message"] == open(sys.argv[2]).read().strip() and d["command"] == '"$want"
	ok $? "--json $args: exit $rc, the error document: $(tr -d '\n ' <"$T/out" | cut -c1-160)"
done <<EOF
"get"|get nosuch
"set"|set nosuch 8ms/18ms
"unset"|unset nosuch
"list"|-P $T/nolxc list
"free"|--cgroup $T/nocg free
"analyze"|analyze $T/nosuch.ts --period 18ms
"overhead"|overhead 99999
"set"|--cgroup $C1 set 20ms/18ms
"get"|--cgroup $C1 get --period 1ms
None|-q --cgroup $C1 set 8ms/18ms
"get"|get
None|frobnicate
None|--bogus get c1
None|get c1 --bogus
None|-P
None|help set extra
EOF
echo "max 1000000" >"$C1/cpu.rt.max"

# --- set/get/unset on a cgroup ----------------------------------------------
run 0 H --cgroup "$C1" set 8ms/18ms && [ "$(cat "$C1/cpu.rt.max")" = "8000 18000" ]
ok $? "set 8ms/18ms writes '8000 18000' to cpu.rt.max"
grep -q '8ms/18ms (0.444 CPU on each of' "$T/out"
ok $? "set reports the bandwidth: $(cat "$T/out")"
run 0 H --cgroup "$C1/" set 8000us/18ms
ok $? "set with a trailing slash and the same value is a no-op success"
run 0 H --cgroup "$C1" get && grep -q '8ms/18ms' "$T/out" && grep -q 'throttled 7 times' "$T/out" &&
	grep -q 'lagged:     3 times, 450 us in all' "$T/out"
ok $? "get shows reservation and cpu.rt.stat, the lag resets included"
run 0 H --json --cgroup "$C1" get && valid_json && grep -q '"runtime_us": 8000' "$T/out" &&
	grep -q '"nr_lagged": 3,' "$T/out" && grep -q '"lagged_usec": 450' "$T/out"
ok $? "get --json validates against the schema and has the lag resets"
run 0 H --cgroup "$CG/two" get && ! grep -q 'lagged' "$T/out" &&
	run 0 H --json --cgroup "$CG/two" get && valid_json && grep -q '"nr_lagged": 0' "$T/out"
ok $? "a cpu.rt.stat without the lag keys (older kernel): no lagged line, 0 in JSON"
run 0 H --cgroup "$CG/parent/mid/leaf" get && grep -q "run in $CG/parent's 500ms/1s" "$T/out"
ok $? "get on a max group names the reserved ancestor: $(head -1 "$T/out")"

snapshot before
for bad in "8/18" "9ms/8ms" "8ms/0ms" "1500ns/18ms" "8ms/18500ns" "8us/50us" "1s/5s" "8ms/18ms/1ms" "8ms"; do
	run 1 H --cgroup "$C1" set "$bad" && one_line_err && unchanged
	ok $? "bad reservation $bad: exit 1, one line, nothing changed: $(cat "$T/err")"
done
run 1 H --cgroup "$C1" set max/18ms && one_line_err && grep -q "use hcbsctl unset NAME" "$T/err" && unchanged
ok $? "set max/18ms: exit 1, points to unset: $(cat "$T/err")"
run 3 H --cgroup "$CG/nonexistent" set 8ms/18ms && one_line_err
ok $? "missing cgroup: exit 3: $(cat "$T/err")"
run 4 H --cgroup "$CG/legacy" set 8ms/18ms && one_line_err && grep -q 'old RT_GROUP_SCHED' "$T/err" && unchanged
ok $? "stock RT_GROUP_SCHED files only: exit 4: $(cat "$T/err")"
run 4 H --cgroup "$CG/nocpu" set 8ms/18ms && one_line_err && grep -q 'subtree_control' "$T/err"
ok $? "no cpu controller: exit 4 with the fix: $(cat "$T/err")"
run 4 H --cgroup "$CG/nocpu" get && one_line_err
ok $? "get without HCBS: exit 4"

# --- a NAME with a '/' is a cgroup path, as with --cgroup ----------------------
cp "$SRC/docs/examples/paper.ts" "$T/paper.ts"
echo "max 1000000" >"$C1/cpu.rt.max"
run 0 H set "$C1" 8ms/18ms && [ "$(cat "$C1/cpu.rt.max")" = "8000 18000" ] && grep -q "^$C1: 8ms/18ms (0.444 CPU" "$T/out"
ok $? "set PATH 8ms/18ms: the cgroup PATH, labelled by its path: $(cat "$T/out")"
run 0 H get "$C1/" && grep -q '8ms/18ms' "$T/out" && grep -q "cgroup:     $C1\$" "$T/out"
ok $? "get PATH/ (trailing slash)"
run 0 H --json get "$C1" && valid_json && grep -q '"runtime_us": 8000' "$T/out"
ok $? "--json get PATH validates against the schema"
(cd "$CG" && run 0 $WRAP "$HCBSCTL" set ./lxc.payload.c1 --taskset "$T/paper.ts" --period 18ms) &&
	[ "$(cat "$C1/cpu.rt.max")" = "7955 18000" ]
ok $? "set ./RELATIVE --taskset FILE --period P: '7955 18000'"
run 0 H unset "$C1" && [ "$(cat "$C1/cpu.rt.max")" = "max 18000" ]
ok $? "unset PATH: 'max 18000'"
snapshot before
run 3 H set "$CG/nonexistent" 8ms/18ms && one_line_err && grep -q "^hcbsctl: set $CG/nonexistent: not a cgroup directory" "$T/err" && unchanged
ok $? "set of a PATH that does not exist: exit 3, as --cgroup: $(cat "$T/err")"
run 1 H -P "$T" set "$C1" 8ms/18ms && one_line_err && grep -q -- '--lxcpath does not apply to a cgroup path' "$T/err" && unchanged
ok $? "-P with a cgroup path: exit 1: $(cat "$T/err")"
run 1 H get "$C1" extra && one_line_err && unchanged
ok $? "get PATH extra: exit 1: $(cat "$T/err")"
env LD_PRELOAD="$SHIM" FAILWRITE_FILE=cpu.rt.max FAILWRITE_ERRNO=16 $WRAP "$HCBSCTL" set "$C1" 900ms/1s 2>"$T/err.path"
rc=$?
env LD_PRELOAD="$SHIM" FAILWRITE_FILE=cpu.rt.max FAILWRITE_ERRNO=16 $WRAP "$HCBSCTL" --cgroup "$C1" set 900ms/1s 2>"$T/err"
[ $rc = 2 ] && cmp -s "$T/err" "$T/err.path" && unchanged
ok $? "a refusal of set PATH: exit 2, the message of --cgroup PATH: $(cat "$T/err.path")"
echo "8000 18000" >"$C1/cpu.rt.max"

# --- --unit UNIT: a systemd unit's cgroup (systemctl and systemd faked) --------
mkdir -p "$T/systemd"
cat >"$T/systemctl" <<'EOF'
#!/bin/sh
# show -p ControlGroup --value -- UNIT
[ "$1 $2 $3 $4 $5" = "show -p ControlGroup --value --" ] || { echo "bad call: $*" >&2; exit 9; }
case $6 in
gone.service) exit 0 ;;
failing.service) exit 1 ;;
*) echo "/hcbs-unit-test-nonexistent.slice/$6" ;;
esac
EOF
chmod +x "$T/systemctl"
U() { env HCBSCTL_SYSTEMCTL="$T/systemctl" HCBSCTL_SYSTEMD_DIR="$T/systemd" $WRAP "$HCBSCTL" "$@"; }
snapshot before
run 3 U --unit vbbu-helper.service get && one_line_err &&
	grep -q "^hcbsctl: get /.*/hcbs-unit-test-nonexistent.slice/vbbu-helper.service: not a cgroup directory" "$T/err"
ok $? "--unit UNIT get: systemctl's ControlGroup under the cgroup mount: $(cat "$T/err")"
run 3 U --unit gone.service set 8ms/18ms && one_line_err && grep -q "unit gone.service has no cgroup" "$T/err" && unchanged
ok $? "--unit of a unit with no cgroup: exit 3: $(cat "$T/err")"
run 3 U --unit failing.service unset && grep -q "systemctl show failing.service failed (exit status 1)" "$T/err" && unchanged
ok $? "--unit when systemctl fails: exit 3: $(cat "$T/err")"
run 3 env HCBSCTL_SYSTEMD_DIR="$T/nosystemd" $WRAP "$HCBSCTL" --unit a.service get && one_line_err &&
	grep -q "systemd is not running here" "$T/err"
ok $? "--unit without systemd: exit 3, names --cgroup: $(cat "$T/err")"
run 3 env HCBSCTL_SYSTEMCTL="$T/no-such-systemctl" HCBSCTL_SYSTEMD_DIR="$T/systemd" $WRAP "$HCBSCTL" --unit a.service get &&
	one_line_err && grep -q "cannot run $T/no-such-systemctl" "$T/err"
ok $? "--unit when systemctl cannot run: exit 3: $(cat "$T/err")"
run 3 U --unit a/b.service get && one_line_err && grep -q "is not a unit name" "$T/err"
ok $? "--unit a/b.service: not a unit name: $(cat "$T/err")"
run 1 U --unit a.service --cgroup "$C1" set 8ms/18ms && one_line_err && grep -q "no --cgroup or --lxcpath with it" "$T/err" && unchanged
ok $? "--unit with --cgroup: exit 1: $(cat "$T/err")"
run 1 U --unit a.service get extra && one_line_err && grep -q "no NAME with --unit" "$T/err"
ok $? "--unit with a NAME: exit 1: $(cat "$T/err")"
run 1 U --unit a.service list && one_line_err && grep -q -- "--unit does not apply to list" "$T/err"
ok $? "--unit does not apply to list: $(cat "$T/err")"

# --- cgroup files through a directory fd (issue 39) ------------------------------
# cd DIR && hcbsctl set foo/ 8ms/18ms, with foo/cpu.rt.max a symbolic link
# to a plain file: refused, the file untouched (O_NOFOLLOW), nothing written.
mkgroup "$CG/foo"
echo precious >"$T/victim"
ln -s "$T/victim" "$CG/foo/cpu.rt.max"
snapshot before
(cd "$CG" && run 3 $WRAP "$HCBSCTL" set foo/ 8ms/18ms) && one_line_err &&
	grep -q "^hcbsctl: set foo/: .*foo/cpu.rt.max is a symbolic link, which no cgroup file is: refused" "$T/err" &&
	[ "$(cat "$T/victim")" = precious ] && unchanged
ok $? "set foo/ with foo/cpu.rt.max a symbolic link: exit 3, the file untouched: $(cat "$T/err")"
rm "$CG/foo/cpu.rt.max"
echo 8000 >"$T/victim"
ln -s "$T/victim" "$CG/foo/cpu.rt_runtime_us"; echo 18000 >"$CG/foo/cpu.rt_period_us"
echo "usage_usec 0" >"$CG/foo/cpu.rt.stat"
snapshot before
run 3 H --cgroup "$CG/foo" set 1ms/2ms && one_line_err && grep -q "symbolic link" "$T/err" &&
	[ "$(cat "$T/victim")" = 8000 ] && unchanged
ok $? "two files, one a symbolic link: refused before the first write: $(cat "$T/err")"
rm -r "$CG/foo"
# The test build without HCBS_TEST_FAKE_CGROUPFS is hcbsctl as installed:
# the fake tree, on another file system, is refused.
snapshot before
for cmd in "set 1ms/18ms" get unset; do
	# shellcheck disable=SC2086
	run 3 env -u HCBS_TEST_FAKE_CGROUPFS $WRAP "$HCBSCTL" --cgroup "$C1" $cmd && one_line_err &&
		grep -q "is on .*, not a cgroup file system: expected a directory of a cgroup2 (or cgroup v1) mount" "$T/err" &&
		unchanged
	ok $? "$cmd on a tree that is not cgroupfs: exit 3: $(cat "$T/err")"
done

# --- kernel refusals (injected) ---------------------------------------------
snapshot before
run 2 env LD_PRELOAD="$SHIM" FAILWRITE_FILE=cpu.rt.max FAILWRITE_ERRNO=16 \
	$WRAP "$HCBSCTL" --cgroup "$C1" set 900ms/1s && one_line_err && unchanged
ok $? "EBUSY: exit 2, one line, nothing changed"
# 0.95 global - 0.05 fair server - (0.3 other + 0.5 parent) = 0.100
grep -q 'hcbsctl: set .*: cpu.rt.max: admission refused (EBUSY): requested 0.900 CPU per CPU, available 0.100 under the global limit; accepted: RUNTIME/PERIOD <= 0.100, e.g. 100ms/1s' "$T/err"
ok $? "EBUSY message gives requested and available: $(cat "$T/err")"
# Reservations on the CPUs of their cpusets (cpu.rt.cpus): c1 on CPU 9999
# and the others on CPU 0 has 0.95 - 0.05 fair = 0.9 there; 'other' (0.3)
# on CPU 9999 too leaves 0.6.  (No fair server file for CPU 9999: 50ms/1s.)
echo 9999 >"$C1/cpu.rt.cpus"; echo 0 >"$CG/other/cpu.rt.cpus"; echo 0 >"$CG/parent/cpu.rt.cpus"
run 2 env LD_PRELOAD="$SHIM" FAILWRITE_FILE=cpu.rt.max FAILWRITE_ERRNO=16 \
	$WRAP "$HCBSCTL" --cgroup "$C1" set 950ms/1s && grep -q 'available 0.900 under the global limit' "$T/err"
ok $? "EBUSY: available counted on the group's own CPUs (cpu.rt.cpus): $(cat "$T/err")"
echo 9999 >"$CG/other/cpu.rt.cpus"
run 2 env LD_PRELOAD="$SHIM" FAILWRITE_FILE=cpu.rt.max FAILWRITE_ERRNO=16 \
	$WRAP "$HCBSCTL" --cgroup "$C1" set 950ms/1s && grep -q 'available 0.600 under the global limit' "$T/err"
ok $? "EBUSY: a group on the same CPU counts: $(cat "$T/err")"
rm "$C1/cpu.rt.cpus" "$CG/other/cpu.rt.cpus" "$CG/parent/cpu.rt.cpus"
run 2 env LD_PRELOAD="$SHIM" FAILWRITE_FILE=cpu.rt.max FAILWRITE_ERRNO=16 \
	$WRAP "$HCBSCTL" --cgroup "$CG/parent/kid" set 450ms/1s && unchanged &&
	grep -q "requested 0.450 CPU per CPU, available 0.500 under $CG/parent" "$T/err"
ok $? "EBUSY below a reserved parent: available from the parent: $(cat "$T/err")"
run 2 env LD_PRELOAD="$SHIM" FAILWRITE_FILE=cpu.rt.max FAILWRITE_ERRNO=16 \
	$WRAP "$HCBSCTL" --cgroup "$C1" set 0ms/18ms && grep -q 'holds RT tasks' "$T/err" && unchanged
ok $? "EBUSY on runtime 0: the group holds RT tasks: $(cat "$T/err")"
run 2 env LD_PRELOAD="$SHIM" FAILWRITE_FILE=cpu.rt.max FAILWRITE_ERRNO=22 \
	$WRAP "$HCBSCTL" --cgroup "$C1" set 1ms/18ms && grep -q "rejected '1000 18000' (EINVAL)" "$T/err" && unchanged
ok $? "EINVAL within the free bandwidth: kernel rejected: $(cat "$T/err")"
run 2 env LD_PRELOAD="$SHIM" FAILWRITE_FILE=cpu.rt.max FAILWRITE_ERRNO=22 \
	$WRAP "$HCBSCTL" --cgroup "$C1" set 500ms/1s && grep -q "admission refused (EINVAL)" "$T/err" && unchanged
ok $? "EINVAL beyond the free bandwidth: admission: $(cat "$T/err")"
run 5 env LD_PRELOAD="$SHIM" FAILWRITE_FILE=cpu.rt.max FAILWRITE_ERRNO=1 \
	$WRAP "$HCBSCTL" --cgroup "$C1" set 1ms/18ms && one_line_err && unchanged
ok $? "EPERM from the kernel: exit 5"
run 7 env LD_PRELOAD="$SHIM" FAILWRITE_FILE=cpu.rt.max FAILWRITE_ERRNO=5 \
	$WRAP "$HCBSCTL" --cgroup "$C1" set 1ms/18ms && one_line_err && unchanged
ok $? "EIO: exit 7: $(cat "$T/err")"

# --- the two-file interface: order and rollback -----------------------------
T2=$CG/two
run 0 H --cgroup "$T2" set 8ms/18ms &&
	[ "$(cat "$T2/cpu.rt_runtime_us")" = 8000 ] && [ "$(cat "$T2/cpu.rt_period_us")" = 18000 ]
ok $? "two files: max -> 8ms/18ms"
run 0 H --json --cgroup "$T2" get && valid_json && grep -q '"interface": "cpu.rt_runtime_us+cpu.rt_period_us"' "$T/out"
ok $? "two files: get --json"
snapshot before
# 8/18 -> 1/2: runtime must go first (period 2ms < runtime 8ms); fail the
# second write (the period) and check that the runtime is restored.
run 2 env LD_PRELOAD="$SHIM" FAILWRITE_FILE=cpu.rt_period_us FAILWRITE_ERRNO=16 \
	$WRAP "$HCBSCTL" --cgroup "$T2" set 1ms/2ms && one_line_err && unchanged
ok $? "two files: refusal of the 2nd write rolls the 1st back: $(cat "$T/err")"
run 0 H --cgroup "$T2" set 1ms/2ms &&
	[ "$(cat "$T2/cpu.rt_runtime_us")" = 1000 ] && [ "$(cat "$T2/cpu.rt_period_us")" = 2000 ]
ok $? "two files: 8ms/18ms -> 1ms/2ms"
run 0 H --cgroup "$T2" unset && [ "$(cat "$T2/cpu.rt_runtime_us")" = -1 ]
ok $? "two files: unset writes runtime -1"

# --- unset, admission off, non-root ------------------------------------------
run 0 H --cgroup "$C1" unset && [ "$(cat "$C1/cpu.rt.max")" = "max 18000" ]
ok $? "unset writes 'max 18000' (keeps the period)"
echo -1 >"$SYS/sched_rt_runtime_us"
run 0 H --cgroup "$C1" set 8ms/18ms && grep -q 'warning: kernel.sched_rt_runtime_us is -1' "$T/err"
ok $? "sched_rt_runtime_us = -1: set works and warns: $(cat "$T/err")"
run 0 H --cgroup "$C1" set 20us/1ms && [ "$(cat "$C1/cpu.rt.max")" = "20 1000" ] &&
	grep -q 'warning: .*: a runtime of 20us is set, but below 50us it is not exact per period' "$T/err" &&
	[ "$(grep -c "not exact per period" "$T/err")" = 1 ] || false
ok $? "set 20us/1ms: set, with one warning that a budget below 50us is not exact per period"
run 0 H --cgroup "$C1" set 50us/1ms && ! grep -q 'not exact per period' "$T/err"
ok $? "set 50us/1ms: no such warning"
run 0 H --cgroup "$C1" set 0us/1ms && [ "$(cat "$C1/cpu.rt.max")" = "0 1000" ] && ! grep -q 'not exact per period' "$T/err"
ok $? "set 0us/1ms (no RT time): no such warning"
H --cgroup "$C1" set 8ms/18ms >/dev/null 2>&1	# as the tests below expect
echo 950000 >"$SYS/sched_rt_runtime_us"
snapshot before
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	run 5 setpriv --reuid 65534 --regid 65534 --clear-groups \
		env HCBSCTL_SYSCTL_DIR="$SYS" $WRAP "$HCBSCTL" --cgroup "$C1" set 1ms/18ms &&
		one_line_err && grep -q 'permission denied' "$T/err" && unchanged
	ok $? "non-root caller: exit 5, nothing changed: $(cat "$T/err")"
else
	n=$((n + 1)); echo "ok $n - # SKIP not root or no setpriv"
fi

# --- containers through liblxc (an empty lxcpath on the host) -------------------
# The cpu hierarchy is the fake tree, through a fake /proc/self (test build).
mkdir -p "$T/lxc" "$T/fproc/self" "$T/nomount/self"
echo "30 20 0:26 / $CG rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate" >"$T/fproc/self/mountinfo"
echo "0::/" >"$T/fproc/self/cgroup"
run 0 env HCBS_TEST_PROC="$T/fproc" $WRAP "$HCBSCTL" -P "$T/lxc" list && grep -q '^NAME ' "$T/out"
ok $? "list on an empty lxcpath"
run 0 env HCBS_TEST_PROC="$T/fproc" $WRAP "$HCBSCTL" -P "$T/lxc" --json list && valid_json &&
	grep -q '"containers": \[\]' "$T/out"
ok $? "list --json validates"
# Issue 39: no cpu cgroup hierarchy mounted was exit 3 (list, free) or 4
# (overhead), hcbstrace's 3 or 1; and list without HCBS exited 0, empty.
echo "21 1 0:19 / /proc rw - proc proc rw" >"$T/nomount/self/mountinfo"
echo "0::/" >"$T/nomount/self/cgroup"
for c in "-P $T/lxc list" free; do
	# shellcheck disable=SC2086
	run 4 env HCBS_TEST_PROC="$T/nomount" $WRAP "$HCBSCTL" $c && one_line_err &&
		grep -q "hcbsctl: ${c##* }: no cpu cgroup hierarchy is mounted (.*): expected cgroup2, or cgroup v1 with the cpu controller" "$T/err"
	ok $? "$c with no cpu cgroup hierarchy mounted: exit 4: $(cat "$T/err")"
done
# get, set and unset of a container: the same status and line, before any
# container is looked up (it was exit 3, as for a name that does not exist).
for c in "get nosuch" "set nosuch 8ms/18ms" "unset nosuch"; do
	# shellcheck disable=SC2086
	run 4 env HCBS_TEST_PROC="$T/nomount" $WRAP "$HCBSCTL" -P "$T/lxc" $c && one_line_err &&
		grep -q "^hcbsctl: ${c%% *} nosuch: no cpu cgroup hierarchy is mounted (.*): expected cgroup2, or cgroup v1 with the cpu controller\$" "$T/err"
	ok $? "$c with no cpu cgroup hierarchy mounted: exit 4: $(cat "$T/err")"
done
run 4 H --cgroup "$CG/nocpu" list && one_line_err && grep -q "list: kernel without HCBS: " "$T/err"
ok $? "list on a tree without HCBS: exit 4 as free and get, no empty table: $(cat "$T/err")"
run 3 H -P "$T/lxc" get nosuch && one_line_err && grep -q "no container 'nosuch'" "$T/err"
ok $? "get of an unknown container: exit 3: $(cat "$T/err")"
run 3 H -P "$T/lxc" set nosuch 8ms/18ms && one_line_err
ok $? "set of an unknown container: exit 3"
# Every cgroup with a reservation of its own, with its owner (fake tree).
mkgroup "$CG/machine.slice"
mkgroup "$CG/machine.slice/libpod-0123456789abcdef0123.scope" "8000 18000"
mkgroup "$CG/system.slice"
mkgroup "$CG/system.slice/vbbu-helper.service" "5000 10000"
echo 2-3 >"$CG/system.slice/vbbu-helper.service/cpu.rt.cpus"
run 0 H --cgroup "$CG" list &&
	grep -Eq "^$CG/machine.slice/libpod-0123456789abcdef0123.scope +oci podman 0123456789ab +8ms/18ms +0.444 " "$T/out" &&
	grep -Eq "^$CG/system.slice/vbbu-helper.service +systemd vbbu-helper.service +5ms/10ms +0.500 +2-3 " "$T/out" &&
	grep -Eq "^$CG/other +- +300ms/1s +0.300 " "$T/out" && grep -Eq "^$CG/parent/kid " "$T/out" &&
	grep -Eq "^$CG/lxc.payload.c1 +lxc c1 +8ms/18ms " "$T/out" &&
	! grep -q "parent/mid" "$T/out" && ! grep -q "^NAME " "$T/out"
ok $? "list --cgroup: every reserved cgroup with its owner (LXC, podman, a unit, none), not the max ones"
run 0 H --json --cgroup "$CG" list && valid_json &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c={x["cgroup"].rsplit("/",1)[1]: x for x in d["cgroups"]}; o=c["vbbu-helper.service"]; p=c["libpod-0123456789abcdef0123.scope"]; sys.exit(not (d["lxcpath"] is None and d["containers"]==[] and o["owner"]=={"kind":"systemd","engine":None,"name":"vbbu-helper.service"} and o["reservation"]["cpu_list"]=="2-3" and o["reservation"]["cpus"]==2 and p["owner"]["engine"]=="podman" and c["other"]["owner"] is None))' "$T/out"
ok $? "list --json --cgroup: owners, CPUs, schema-valid"
rm -r "$CG/machine.slice" "$CG/system.slice"
run 0 H --cgroup "$CG/parent/mid" list && grep -q "no cgroup below $CG/parent/mid has a reservation of its own" "$T/out"
ok $? "list --cgroup of a tree without reservations says so"
# A name in the tables may hold any byte but '/': a newline, an escape
# sequence and a byte that is not UTF-8 are escaped as in messages, so that
# no name forges a row or drives the terminal.
bad=$'evil\n\e[31mred\xff'
mkgroup "$CG/$bad" "8000 18000"
run 0 H --cgroup "$CG" list && ! grep -q $'\e' "$T/out" && ! LC_ALL=C grep -q $'\xff' "$T/out" &&
	grep -F "$CG/evil\\n\\x1b[31mred\\xff " "$T/out" | grep -q ' 8ms/18ms ' &&
	[ "$(grep -c '^.*red' "$T/out")" = 1 ]
ok $? "list --cgroup: a cgroup named with control characters and a non-UTF-8 byte, escaped on its one row: $(grep red "$T/out")"
rm -r "${CG:?}/$bad"
mkdir -p "$T/lxcbad/c-ok" "$T/lxcbad/$bad"
echo "lxc.uts.name = x" >"$T/lxcbad/c-ok/config"
echo "lxc.uts.name = x" >"$T/lxcbad/$bad/config"
run 0 env HCBS_TEST_PROC="$T/fproc" $WRAP "$HCBSCTL" -P "$T/lxcbad" list
if grep -q c-ok "$T/out"; then
	! grep -q $'\e' "$T/out" && ! LC_ALL=C grep -q $'\xff' "$T/out" &&
		grep -qF 'evil\n\x1b[31mred\xff ' "$T/out" && [ "$(grep -c 'red' "$T/out")" = 1 ]
	ok $? "list: a container named with control characters and a non-UTF-8 byte, escaped on its one row: $(grep red "$T/out")"
else
	n=$((n + 1)); echo "ok $n - # SKIP liblxc does not list the test's containers"
fi
run 3 H --cgroup "$T/emptylxc" list && one_line_err
ok $? "list --cgroup on a plain directory: exit 3: $(cat "$T/err")"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -p "$T/lxcpriv/c9" && chmod 700 "$T/lxcpriv" && echo "lxc.uts.name = c9" >"$T/lxcpriv/c9/config"
	NOBODY="setpriv --reuid 65534 --regid 65534 --clear-groups"
	run 5 $NOBODY $WRAP "$HCBSCTL" -P "$T/lxcpriv" set c9 8ms/18ms && one_line_err
	ok $? "non-root, container by name: exit 5, one line (liblxc muted): $(cat "$T/err")"
	run 5 $NOBODY $WRAP "$HCBSCTL" -P "$T/lxcpriv" list && one_line_err
	ok $? "non-root list of a private lxcpath: exit 5: $(cat "$T/err")"
	run 3 H -P "$T/lxcpriv" get c9 && grep -q "'c9' is not running" "$T/err"
	ok $? "root, a defined but stopped container: exit 3 not running"
fi

# --- free ----------------------------------------------------------------------
run 0 H --cgroup "$CG" free && grep -q 'reserved:     1.244 per CPU at most, by 3 top-level group' "$T/out"
ok $? "free: 0.444 (c1) + 0.3 + 0.5 reserved at the top level, kid not counted"
# A reservation counts only on the CPUs of its cpuset (cpu.rt.cpus): here
# on CPU 9999, which no machine running this has online.
echo 9999 >"$CG/other/cpu.rt.cpus"
run 0 H --cgroup "$CG" free && grep -q 'reserved:     0.944 per CPU at most, by 3 top-level group' "$T/out" &&
	grep -Eq '^0 +0.950 +0.050 +0.944 +-0.044$' "$T/out"
ok $? "free: a group whose cpu.rt.cpus has no online CPU reserves on none"
echo 0 >"$CG/other/cpu.rt.cpus"
run 0 H --json --cgroup "$CG" free && valid_json &&
	python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cpus"]; r={x["cpu"]: x["reserved"] for x in c}; sys.exit(not (abs(r[0]-1.244)<1e-3 and all(abs(v-0.944)<1e-3 for k,v in r.items() if k)))' "$T/out"
ok $? "free --json: 0.3 on CPU 0 only (cpu.rt.cpus 0), per CPU"
rm "$CG/other/cpu.rt.cpus"
run 0 H --json --cgroup "$CG" free && valid_json && grep -q '"reserved_groups": 3' "$T/out" &&
	grep -q '"fair_server_assumed": false' "$T/out"
ok $? "free --json validates"
# A cpuset partition makes CPU 0 its own root domain (fake files).
mkdir -p "$CG/part"; : >"$CG/part/cgroup.procs"
echo root >"$CG/part/cpuset.cpus.partition"; echo 0 >"$CG/part/cpuset.cpus.effective"
mkdir -p "$CG/badpart"; : >"$CG/badpart/cgroup.procs"
echo "root invalid (cpu list)" >"$CG/badpart/cpuset.cpus.partition"; echo 1 >"$CG/badpart/cpuset.cpus.effective"
run 0 H --cgroup "$CG" free && grep -q "^root domain 0 (root partition $CG/part): -0.344 CPU free" "$T/out"
ok $? "free: a valid cpuset partition is its own root domain, an invalid one is not"
run 0 H --json --cgroup "$CG" free && valid_json && grep -q '"kind": "root"' "$T/out"
ok $? "free --json with root domains validates"
rm -r "$CG/part" "$CG/badpart"
run 4 H --cgroup "$CG/nocpu" free && one_line_err
ok $? "free without HCBS: exit 4"

# --- the root group's share (cpu.rt.max on the root) ---------------------------
# Its own tree: g1 0.2 and g2/kid 0.1 (g2 is max) are the top-level groups, 0.3.
SH=$T/sh
mkgroup "$SH"
mkgroup "$SH/g1" "200000 1000000"
mkgroup "$SH/g2" "max 1000000"
mkgroup "$SH/g2/kid" "100000 1000000"
mkgroup "$SH/new" "max 1000000"
NCPU=$(nproc)
# free_json KEY... : the python expression over the --json document d
free_json() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$T/out"
}
share_refused() {	# share_refused ERRNO GROUP Q/P: run set with the write failing
	run 2 env LD_PRELOAD="$SHIM" FAILWRITE_FILE=cpu.rt.max FAILWRITE_ERRNO="$1" \
		$WRAP "$HCBSCTL" --cgroup "$2" set "$3" && one_line_err && unchanged
}

# 1. No cpu.rt.max on the root (a kernel without the share): as before.
run 0 H --cgroup "$SH" free &&
	grep -q '^root share:   not set (this kernel has no cpu.rt.max on the root)' "$T/out" &&
	grep -qE '^0 +0\.950 +0\.050 +0\.300 +0\.600$' "$T/out" && grep -q 'these are upper bounds' "$T/out"
ok $? "free, no root cpu.rt.max: not set; free = 0.95 - 0.05 - 0.3 = 0.600 per CPU"
run 0 H --json --cgroup "$SH" free && valid_json &&
	free_json 'd["root_share"] is None and d["free_limited_by"] == "global_limit" and abs(d["cpus"][0]["free"] - 0.6) < 1e-9'
ok $? "free --json, no root cpu.rt.max: root_share null, limited by the global limit"
snapshot before
share_refused 16 "$SH/new" 700ms/1s &&
	grep -q "requested 0.700 CPU per CPU, available 0.600 under the global limit; accepted: RUNTIME/PERIOD <= 0.600, e.g. 600ms/1s" "$T/err"
ok $? "set refused, no root cpu.rt.max: under the global limit: $(cat "$T/err")"

# 2. "max 1000000", the default: the same figures.
echo "max 1000000" >"$SH/cpu.rt.max"
run 0 H --cgroup "$SH" free &&
	grep -q "^root share:   max (not set, $SH/cpu.rt.max): top-level groups take from the global limit" "$T/out" &&
	grep -qE '^0 +0\.950 +0\.050 +0\.300 +0\.600$' "$T/out"
ok $? "free, root 'max 1000000': not set; free = 0.600 per CPU"
run 0 H --json --cgroup "$SH" free && valid_json &&
	free_json 'd["root_share"] == {"set": False, "runtime_us": None, "period_us": 1000000, "bandwidth_per_cpu": None, "interface": "cpu.rt.max"} and d["free_limited_by"] == "global_limit" and abs(d["cpus"][0]["free"] - 0.6) < 1e-9'
ok $? "free --json, root 'max 1000000': root_share.set false, period 1000000"
snapshot before
share_refused 16 "$SH/new" 700ms/1s && grep -q "available 0.600 under the global limit" "$T/err"
ok $? "set refused, root 'max 1000000': under the global limit"

# 3. "500000 1000000": free = the share - the top-level groups, exactly.
echo "500000 1000000" >"$SH/cpu.rt.max"
run 0 H --cgroup "$SH" free &&
	grep -q "^root share:   0.500 per CPU (500ms/1s in $SH/cpu.rt.max): kept for the RT groups on every CPU" "$T/out" &&
	grep -q '^CPU   SHARE   RESERVED  FREE$' "$T/out" && grep -qE '^0 +0\.500 +0\.300 +0\.200$' "$T/out" &&
	grep -q 'these figures are exact' "$T/out" && ! grep -q 'upper bounds' "$T/out"
ok $? "free, root '500000 1000000': free = 0.5 - 0.3 = 0.200 per CPU, exact"
run 0 H --json --cgroup "$SH" free && valid_json &&
	free_json 'd["root_share"] == {"set": True, "runtime_us": 500000, "period_us": 1000000, "bandwidth_per_cpu": 0.5, "interface": "cpu.rt.max"} and d["free_limited_by"] == "root_share" and all(abs(c["free"] - 0.2) < 1e-9 for c in d["cpus"]) and abs(d["root_domains"][0]["free"] - 0.2 * '"$NCPU"') < 1e-9 and d["reserved_groups"] == 2'
ok $? "free --json, root '500000 1000000': set, limited by the share, 0.2 on each CPU"
snapshot before
share_refused 16 "$SH/new" 300ms/1s &&
	grep -q "hcbsctl: set $SH/new: cpu.rt.max: admission refused (EBUSY): requested 0.300 CPU per CPU, available 0.200 under the root group's share (500ms/1s); accepted: RUNTIME/PERIOD <= 0.200, e.g. 200ms/1s" "$T/err"
ok $? "set refused under a root share: available 0.200 under the root group's share: $(cat "$T/err")"
share_refused 16 "$SH/g1" 500ms/1s && grep -q "available 0.400 under the root group's share" "$T/err"
ok $? "set refused, a top-level group's own 0.2 is left out: available 0.400: $(cat "$T/err")"
share_refused 16 "$SH/g2/kid" 500ms/1s && grep -q "available 0.300 under the root group's share" "$T/err"
ok $? "set refused, a reserved group below a max one is top-level too (0.5 - 0.2): $(cat "$T/err")"
echo "100000 1000000" >"$SH/cpu.rt.max"
snapshot before
share_refused 16 "$SH/new" 300ms/1s &&
	grep -q "available 0.000 under the root group's share (100ms/1s); accepted: nothing until another reservation shrinks or the root group's share grows" "$T/err"
ok $? "set refused, the groups fill the share: nothing accepted until one shrinks or the share grows: $(cat "$T/err")"
echo "0 1000000" >"$SH/cpu.rt.max"
run 0 H --cgroup "$SH" free && grep -q '^root share:   0 (0ns/1s in .*): no top-level reservation is admitted' "$T/out"
ok $? "free, root '0 1000000': no top-level reservation admitted"
snapshot before
share_refused 16 "$SH/new" 1ms/1s &&
	grep -q "available 0.000 under the root group's share (0ns/1s); accepted: nothing at the top level while the root group's share is 0" "$T/err"
ok $? "set refused, root share 0: $(cat "$T/err")"

# 4. Malformed: free refuses (a misread share would make every figure wrong),
# set's refusal does not guess what is available.
for c in "abc" "max" "500000" "max 0" "600000 500000" "1 2 3" "-1 1000000" ""; do
	printf '%s\n' "$c" >"$SH/cpu.rt.max"
	run 7 H --cgroup "$SH" free && one_line_err && [ ! -s "$T/out" ] &&
		grep -q "hcbsctl: free: $SH/cpu.rt.max: unexpected content '$c': expected 'max PERIOD' or 'RUNTIME PERIOD' in microseconds, RUNTIME <= PERIOD" "$T/err"
	ok $? "free, malformed root cpu.rt.max '$c': exit 7, one line: $(cat "$T/err")"
done
run 7 H --json --cgroup "$SH" free && one_line_err && valid_json &&
	json_is 'd["command"] == "free" and d["error"]["exit_status"] == 7 and "hcbsctl: " + d["error"]["message"] == open(sys.argv[2]).read().strip()'
ok $? "free --json, malformed root cpu.rt.max: exit 7, the error document with the line of stderr"
echo "garbage 1000000" >"$SH/cpu.rt.max"
snapshot before
share_refused 16 "$SH/new" 300ms/1s &&
	grep -q "requested 0.300 CPU per CPU; what is available is unknown: the root group's share cannot be read (hcbsctl free says why)" "$T/err"
ok $? "set refused, malformed root share: available unknown, not guessed: $(cat "$T/err")"

# 5. The share itself: set/get/unset on the root cgroup.
echo "max 1000000" >"$SH/cpu.rt.max"
run 0 H --cgroup "$SH" get && grep -q "^$SH: max (the root group's share is not set" "$T/out"
ok $? "get on the root: the share is not set"
run 0 H --cgroup "$SH" set 400ms/1s && [ "$(cat "$SH/cpu.rt.max")" = "400000 1000000" ] &&
	grep -q "^$SH: 400ms/1s (the root group's share: 0.400 CPU kept for the RT groups on each of" "$T/out"
ok $? "set on the root writes the share: $(cat "$T/out")"
run 0 H --cgroup "$SH" get && grep -q "^$SH: 400ms/1s (the root group's share: 0.400" "$T/out"
ok $? "get on the root shows the share"
snapshot before
share_refused 16 "$SH" 100ms/1s &&
	grep -q "hcbsctl: set $SH: cpu.rt.max: the root group's share refused (EBUSY): requested 0.100 CPU per CPU, below what the 2 top-level group(s) hold (0.300 per CPU); accepted: max, or RUNTIME/PERIOD >= 0.300 and <= 0.900 minus what SCHED_DEADLINE tasks hold" "$T/err"
ok $? "root share refused below the groups: says so: $(cat "$T/err")"
share_refused 16 "$SH" 960ms/1s && grep -q "requested 0.960 CPU per CPU, above the global limit minus the fair server (0.900 per CPU)" "$T/err"
ok $? "root share refused above the limit: says so: $(cat "$T/err")"
share_refused 16 "$SH" 500ms/1s && grep -q "requested 0.500 CPU per CPU, more than SCHED_DEADLINE tasks leave on some root domain" "$T/err"
ok $? "root share refused within both: deadline tasks: $(cat "$T/err")"
run 5 env LD_PRELOAD="$SHIM" FAILWRITE_FILE=cpu.rt.max FAILWRITE_ERRNO=1 \
	$WRAP "$HCBSCTL" --cgroup "$SH" set 500ms/1s && one_line_err && unchanged &&
	grep -q "permission denied (EPERM): the root group's share needs CAP_SYS_NICE; run as root" "$T/err"
ok $? "root share EPERM: exit 5: $(cat "$T/err")"
run 0 H --cgroup "$SH" unset && [ "$(cat "$SH/cpu.rt.max")" = "max 1000000" ] &&
	grep -q "^$SH: max (the root group's share is not set" "$T/out"
ok $? "unset on the root: back to 'max 1000000'"
rm "$SH/cpu.rt.max"
snapshot before
run 4 H --cgroup "$SH" set 500ms/1s && one_line_err && unchanged &&
	grep -q "kernel without the root group's share: $SH (the root cgroup) has no cpu.rt.max" "$T/err"
ok $? "set on a root without cpu.rt.max: exit 4: $(cat "$T/err")"

# 6. The two-file form on a cgroup v1 root (no cpu.rt.stat there: HCBS is
# recognised by a child's files).
V1=$T/v1
mkgroup "$V1"; rm "$V1/cpu.weight"
echo -1 >"$V1/cpu.rt_runtime_us"; echo 1000000 >"$V1/cpu.rt_period_us"
mkgroup "$V1/g"; rm "$V1/g/cpu.weight"
echo 100000 >"$V1/g/cpu.rt_runtime_us"; echo 1000000 >"$V1/g/cpu.rt_period_us"
printf 'usage_usec 0\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\n' >"$V1/g/cpu.rt.stat"
run 0 H --json --cgroup "$V1" free && valid_json &&
	free_json 'd["root_share"]["set"] is False and d["root_share"]["interface"] == "cpu.rt_runtime_us+cpu.rt_period_us" and abs(d["cpus"][0]["free"] - 0.8) < 1e-9'
ok $? "free, v1 root -1: not set, free 0.95 - 0.05 - 0.1 = 0.8"
run 0 H --cgroup "$V1" set 250ms/1s && [ "$(cat "$V1/cpu.rt_runtime_us")" = 250000 ] &&
	run 0 H --json --cgroup "$V1" free && valid_json &&
	free_json 'd["root_share"]["runtime_us"] == 250000 and d["free_limited_by"] == "root_share" and abs(d["cpus"][0]["free"] - 0.15) < 1e-9'
ok $? "set on a v1 root writes cpu.rt_runtime_us; free = 0.25 - 0.1 = 0.15"
echo 2000000 >"$V1/cpu.rt_runtime_us"
run 7 H --cgroup "$V1" free && one_line_err && grep -q "unexpected content '2000000', '1000000'" "$T/err"
ok $? "free, v1 root runtime > period: exit 7: $(cat "$T/err")"

# --- analyze -------------------------------------------------------------------
run 0 H analyze "$T/paper.ts" --reservation 8ms/18ms && grep -q 'rate monotonic, as SCHED_FIFO): SCHEDULABLE' "$T/out" &&
	grep -q 'tightest: task 1: by t\* = 24879us (deadline 30ms) the reservation supplies at least 4879us' "$T/out" &&
	grep -qE '^  5 +20271us +250ms +250ms +- +yes +207460us +87460us +87460us' "$T/out"
ok $? "analyze: paper set in 8ms/18ms is schedulable; R1 = 24.879ms, R5 = 207.46ms"
run 6 H analyze "$T/paper.ts" --reservation 16ms/36ms && grep -q 'NOT schedulable' "$T/out"
ok $? "analyze: 16ms/36ms is not guaranteed: exit 6"
run 0 H --json analyze "$T/paper.ts" --reservation 8ms/18ms && valid_json &&
	python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
assert d["schema"]=="hcbsctl/1" and d["fp"]["schedulable"] and d["edf"]["schedulable"]
assert d["fp"]["min_runtime_ns"]%1000==0 and d["fp"]["min_runtime_ns"]<=8000000
assert d["fp"]["check"]=={"t_ns":24879000,"supply_ns":4879000,"demand_ns":4879000}
assert d["fp"]["tasks"][4]["check"]["t_ns"]==207460000' "$T/out"
ok $? "analyze --json: schema-valid, fp/edf schedulable, min_runtime_ns, the checks"
run 0 H --json analyze "$T/paper.ts" --period 2ms..20ms --step 2ms && valid_json
ok $? "analyze --json with a period range validates"
run 0 H analyze "$T/paper.ts" --period 18ms && grep -q 'fixed priorities: 7955us' "$T/out"
ok $? "analyze: minimum runtime at 18ms"
printf '[{"wcet": "4879us", "period": "30ms"}, {"wcet": 561000, "period": "36ms"}]' >"$T/ts.json"
run 0 H analyze "$T/ts.json" --period 10ms
ok $? "analyze: JSON task set"
printf '1ms 2ms\n' | { run 0 H analyze - --period 1ms; }
ok $? "analyze: task set on stdin"
printf '3ms 4ms\n3ms 5ms\n' >"$T/over.ts"
run 6 H analyze "$T/over.ts" --period 1ms && grep -q 'fixed priorities: none' "$T/out"
ok $? "analyze: U > 1, no runtime fits: exit 6"
for args in "$T/nonexistent --period 1ms:3" "$T/paper.ts:1" "$T/paper.ts --period 18xs:1" \
	    "$T/paper.ts --reservation 8ms:1" "$T/paper.ts --period 1500ns:1" \
	    "$T/paper.ts --period 5ms..1ms:1" "$T/paper.ts --period 1ms --step 1ms:1" \
	    "$T/paper.ts --period 18ms --order xx:1" "$T/paper.ts --period 18ms --order file:1"; do
	want=${args##*:} a=${args%:*}
	[ "${a#*nonexistent}" != "$a" ] && want=3
	printf 'bad line\n' >"$T/bad.ts"
	# shellcheck disable=SC2086
	run "$want" H analyze $a && one_line_err
	ok $? "analyze error exits $want: $(cat "$T/err")"
done
run 1 H analyze "$T/bad.ts" --period 1ms && one_line_err && grep -q 'line 1' "$T/err"
ok $? "analyze: malformed task set: $(cat "$T/err")"

# m CPUs: global FP (Bertogna & Cirinei on m periodic resources) beside partitioned first fit
run 0 H analyze "$T/paper.ts" --reservation 8ms/18ms --cpus 2 &&
	grep -q '^m = 2 CPUs, each with its own server (Q, P): from --cpus' "$T/out" &&
	grep -q 'global fixed priorities on 2 CPUs, 8ms/18ms each (tasks migrate between the servers): SCHEDULABLE' "$T/out" &&
	grep -q 'sufficient test: Bertogna & Cirinei, "Response-Time Analysis for Globally Scheduled Symmetric Multiprocessor Platforms", RTSS 2007' "$T/out" &&
	grep -qE '^  5 +yes +128706us +97412us +97412us' "$T/out" &&
	grep -q '^model: global fixed priorities on the 2 CPUs (the default for --cpus > 1' "$T/out" &&
	! grep -q '^partitioned' "$T/out"
ok $? "analyze --cpus 2: paper set global FP schedulable in 8ms/18ms (R5 = 128.706ms), the test named; global alone, the default"
run 0 H analyze "$T/paper.ts" --reservation 8ms/18ms --cpus 2 --model partitioned &&
	grep -q 'partitioned fixed priorities on 2 CPUs, 8ms/18ms each .*: SCHEDULABLE' "$T/out" &&
	grep -q 'CPU of each task: 1:0 2:0 3:0 4:0 5:0 (1 CPU used)' "$T/out" &&
	grep -q '^model: partitioned fixed priorities on the 2 CPUs (--model)' "$T/out" && ! grep -q '^global' "$T/out"
ok $? "analyze --cpus 2 --model partitioned: the partitioned verdict alone"
run 0 H analyze "$T/paper.ts" --reservation 8ms/18ms &&
	grep -q '^m = 1 CPU, each with its own server (Q, P): the default, as analyze is given no container' "$T/out" &&
	grep -q '^model: one CPU, the fixed-priority verdict below sets the exit status' "$T/out" &&
	grep -q 'SCHED_FIFO): SCHEDULABLE' "$T/out" && ! grep -qE 'global|partitioned|NOT guaranteed' "$T/out"
ok $? "analyze: m = 1 by default, said so; only the one-CPU verdict (no global NOT guaranteed beside SCHEDULABLE)"
for m in global partitioned; do
	run 0 H analyze "$T/paper.ts" --reservation 8ms/18ms --model $m && ! grep -qE '^(global|partitioned)' "$T/out"
	ok $? "analyze --model $m at m = 1: the one-CPU verdict, exit 0"
done
# The issue's repro: 5440us/18ms on 2 CPUs is partitioned-schedulable only;
# the exit status follows the model.  TASKSET RESERVATION [--model M]|EXIT|what stdout says
printf '6ms 10ms\n6ms 11ms\n' >"$T/two.ts"
while IFS='|' read -r args want pat; do
	# shellcheck disable=SC2086
	run "$want" H analyze "$T/"$args --cpus 2 && grep -q -- "$pat" "$T/out"
	ok $? "analyze $args --cpus 2: exit $want: $pat"
done <<'EOF'
paper.ts --reservation 5440us/18ms|6|global fixed priorities on 2 CPUs, 5440us/18ms each .*: NOT guaranteed
paper.ts --reservation 5440us/18ms --model partitioned|0|partitioned fixed priorities on 2 CPUs, 5440us/18ms each .*: SCHEDULABLE
two.ts --reservation 10ms/10ms|0|global fixed priorities on 2 CPUs, 10ms/10ms each .*: SCHEDULABLE
two.ts --reservation 10ms/10ms --model partitioned|0|CPU of each task: 1:0 2:1 (2 CPUs used)
EOF
run 1 H analyze "$T/paper.ts" --reservation 8ms/18ms --cpus 2 --model pinned && one_line_err &&
	grep -q -- "--model pinned: expected global (threads migrate between the servers) or partitioned (threads pinned one CPU each)" "$T/err"
ok $? "analyze --model pinned: exit 1: $(cat "$T/err")"
run 1 H --model global list && one_line_err
ok $? "--model on another command than analyze: exit 1: $(cat "$T/err")"
run 0 H analyze "$T/paper.ts" --period 18ms -m 2 && grep -q 'global FP on 2 CPUs: 5631us on each' "$T/out" &&
	! grep -q 'partitioned FP' "$T/out" && grep -q 'fixed priorities: 7955us' "$T/out"
ok $? "analyze -m 2 --period 18ms: least Q global 5631us, one CPU 7955us"
run 0 H analyze "$T/paper.ts" --period 18ms -m 2 -M partitioned && grep -q 'partitioned FP on 2 CPUs (first-fit): 5440us on each' "$T/out" &&
	! grep -q 'global FP' "$T/out"
ok $? "analyze -m 2 -M partitioned --period 18ms: least Q partitioned 5440us"
run 0 H analyze "$T/paper.ts" --period 10ms..20ms --step 5ms -m 2 -M partitioned &&
	grep -qE '^  partitioned FP on 2 CPUs: [0-9]+us/(10|15|20)ms' "$T/out"
ok $? "analyze -M partitioned with a period range: its best period: $(grep '^  partitioned' "$T/out")"
run 0 H --json analyze "$T/paper.ts" --period 18ms --cpus 4 && valid_json &&
	python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
assert d["cpus"]=={"count":4,"source":"option"}
g=d["global_fp"]; assert g["min_runtime_ns"]==5440000 and g["checked_runtime_ns"]==5440000 and g["schedulable"] is None
assert g["test"].startswith("Bertogna & Cirinei") and len(g["tasks"])==5 and all(t["schedulable"] for t in g["tasks"])
p=d["partitioned_fp"]; assert p["min_runtime_ns"]==5440000 and len(p["cpu_of_task"])==5 and p["failed_task"] is None
assert d["model"]=={"name":"global","source":"default","schedulable":True}' "$T/out"
ok $? "analyze --json --cpus 4: schema-valid; global and partitioned least Q 5440us at 18ms"
run 0 H --json analyze "$T/paper.ts" --reservation 8ms/18ms && valid_json &&
	python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
assert d["cpus"]=={"count":1,"source":"default"} and d["global_fp"]["schedulable"] is False
assert d["global_fp"]["binding_task"]==2 and d["partitioned_fp"]["schedulable"] is True
assert d["model"]=={"name":"uniprocessor","source":"default","schedulable":True}' "$T/out"
ok $? "analyze --json: m = 1 from the default, the model uniprocessor decides; global not guaranteed (task 2 binds), partitioned is"
run 6 H --json analyze "$T/paper.ts" --reservation 5440us/18ms --cpus 2 && valid_json &&
	python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
assert d["model"]=={"name":"global","source":"default","schedulable":False} and d["partitioned_fp"]["schedulable"] is True' "$T/out"
ok $? "analyze --json 5440us/18ms --cpus 2: model global, schedulable false, exit 6"
run 0 H --json analyze "$T/paper.ts" --period 10ms..20ms --step 5ms -m 2 -M partitioned && valid_json &&
	python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
assert d["model"]=={"name":"partitioned","source":"option","schedulable":True} and d["best_period"]["partitioned_fp"]["runtime_ns"]%1000==0' "$T/out"
ok $? "analyze --json -M partitioned with a range: model from the option, its best period"
run 0 H --json analyze "$T/paper.ts" --period 10ms..20ms --step 5ms -m 3 && valid_json &&
	python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
assert d["best_period"]["global_fp"]["runtime_ns"]%1000==0 and d["global_fp"]["checked_runtime_ns"] is None' "$T/out"
ok $? "analyze --json -m 3 with a period range: the best period for global FP too"
run 6 H analyze "$T/two.ts" --reservation 10ms/10ms && grep -q 'SCHED_FIFO): NOT schedulable' "$T/out"
ok $? "analyze: 0.6 + 0.55 does not fit one CPU: exit 6"
for c in 0 abc 4097 2x "" -1 " 2" 99999999999999999999; do
	run 1 H analyze "$T/paper.ts" --period 18ms --cpus "$c" && one_line_err && grep -q -- "--cpus" "$T/err"
	ok $? "analyze --cpus '$c' refused: $(cat "$T/err")"
done
run 1 H list --cpus 2 && one_line_err && grep -q -- '--cpus does not apply to list' "$T/err"
ok $? "list --cpus refused: $(cat "$T/err")"

# --overhead: the analysis of the WCETs plus the overhead, checked against
# the same analysis of a file with the WCETs already inflated by hand
cat >"$T/paper+150us.ts" <<EOF
5029us 30ms
711us 36ms
10577us 104ms
4558us 109ms
20421us 250ms
EOF
cat >"$T/paper+10pct.ts" <<EOF
5366900ns 30ms
617100ns 36ms
11469700ns 104ms
4848800ns 109ms
22298100ns 250ms
EOF
least() {	# least ARGS...: the one-CPU FP least runtime analyze prints
	H analyze "$@" | sed -n 's/^  fixed priorities: \([0-9a-z.]*\) (bandwidth.*/\1/p'
}
[ "$(least "$T/paper.ts" --period 18ms --overhead 0us)" = 7955us ] &&
	[ "$(least "$T/paper.ts" --period 18ms --overhead 150us)" = "$(least "$T/paper+150us.ts" --period 18ms)" ] &&
	[ "$(least "$T/paper.ts" --period 18ms --overhead 150us)" != 7955us ] &&
	[ "$(least "$T/paper.ts" --period 18ms --overhead 10%)" = "$(least "$T/paper+10pct.ts" --period 18ms)" ] &&
	[ "$(least "$T/paper.ts" --period 18ms -O 10.00%)" = "$(least "$T/paper+10pct.ts" --period 18ms)" ]
ok $? "analyze --overhead: 0us changes nothing; 150us and 10% give the least runtime of the inflated files ($(least "$T/paper.ts" --period 18ms --overhead 150us), $(least "$T/paper.ts" --period 18ms --overhead 10%))"
run 0 H analyze "$T/paper.ts" --period 18ms --overhead 150us &&
	grep -q '^overhead +150us per job (--overhead): every WCET below includes it; the file.s: 4879us 561us 10427us 4408us 20271us$' "$T/out"
ok $? "analyze --overhead: says what it added and the file's WCETs"
run 0 H --json analyze "$T/paper.ts" --period 18ms --overhead 12.5% --cpus 2 && valid_json &&
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["overhead"] == {"per_job_ns": 0, "percent": 12.5, "measured": None}, d["overhead"]
t = d["taskset"]["tasks"][0]
assert t["declared_wcet_ns"] == 4879000 and t["wcet_ns"] == 5488875, t
' "$T/out"
ok $? "analyze --json --overhead 12.5%: schema-valid, overhead object, wcet_ns = declared + 12.5% (rounded up)"
run 0 H --json analyze "$T/paper.ts" --period 18ms && valid_json &&
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
t = d["taskset"]["tasks"][1]
assert d["overhead"] is None and t["wcet_ns"] == t["declared_wcet_ns"] == 561000
' "$T/out"
ok $? "analyze --json without --overhead: overhead null, declared_wcet_ns = wcet_ns"
for x in 12.% 1001% -1% abc 5 1.234% "" 12%% 1e3us; do
	run 1 H analyze "$T/paper.ts" --period 18ms --overhead "$x" && one_line_err && grep -q -- "--overhead" "$T/err"
	ok $? "analyze --overhead '$x' refused: $(cat "$T/err")"
done

# Issue 39: an overhead per job longer than the period was accepted.
for a in "--reservation 8ms/18ms --overhead 20ms:the period 18ms" \
	 "--reservation 8ms/18ms --overhead 18ms:the period 18ms" \
	 "--period 2ms..30ms --overhead 5ms:the period 2ms" \
	 "--reservation 8ms/18ms --period 10ms --overhead 12ms:the period 10ms" \
	 "--reservation 8ms/18ms --period 30ms --overhead 20ms:the period 18ms" \
	 "--reservation 1ms/2ms --period 2ms..30ms --overhead 2ms:the period 2ms"; do
	args=${a%%:*} pat=${a#*:}
	# shellcheck disable=SC2086
	run 1 H analyze "$T/paper.ts" $args && one_line_err && grep -q "per job is not less than $pat: " "$T/err"
	ok $? "analyze $args: refused, exit 1: $(cat "$T/err")"
done
run 0 H analyze "$T/paper.ts" --period 2ms..30ms --overhead 1999us
ok $? "analyze --overhead less than the shortest period of a range: accepted"
snapshot before
run 1 H --cgroup "$C1" set --taskset "$T/paper.ts" --period 18ms --overhead 19ms && one_line_err &&
	grep -q "19ms per job is not less than the period 18ms" "$T/err" && unchanged
ok $? "set --taskset --overhead longer than --period: refused, nothing changed: $(cat "$T/err")"

# set --taskset reserves what the analysis requires
run 0 H --cgroup "$C1" set --taskset "$T/paper.ts" --period 18ms && [ "$(cat "$C1/cpu.rt.max")" = "7955 18000" ]
ok $? "set --taskset --period 18ms writes the FP minimum '7955 18000'"
snapshot before
run 6 H --cgroup "$C1" set --taskset "$T/over.ts" --period 1ms && one_line_err && unchanged
ok $? "set --taskset that cannot fit: exit 6, nothing changed: $(cat "$T/err")"
run 1 H --cgroup "$C1" set --taskset "$T/paper.ts" && one_line_err
ok $? "set --taskset without --period: exit 1"
run 0 H --cgroup "$C1" set --taskset "$T/paper.ts" --period 18ms --overhead 150us &&
	[ "$(cat "$C1/cpu.rt.max")" = "$(least "$T/paper+150us.ts" --period 18ms | sed 's/us$//') 18000" ]
ok $? "set --taskset --overhead 150us writes the least runtime of the inflated set: $(cat "$C1/cpu.rt.max")"
snapshot before
run 1 H --cgroup "$C1" set 8ms/18ms --overhead 150us && one_line_err && unchanged
ok $? "set RUNTIME/PERIOD --overhead refused, nothing changed: $(cat "$T/err")"
run 1 H --cgroup "$C1" set --taskset "$T/paper.ts" --period 18ms --overhead 5 && one_line_err && unchanged
ok $? "set --taskset --overhead 5 (no unit) refused, nothing changed: $(cat "$T/err")"

# overhead / --overhead auto: the measurement runs on the hcbs kernel only
# (selftests/hcbsctl measures there); here, every refusal before it
run 1 H overhead 99999 && one_line_err && grep -q 'CPU 99999 is not online' "$T/err"
ok $? "overhead 99999: exit 1: $(cat "$T/err")"
run 1 H overhead -1 && one_line_err
ok $? "overhead -1: exit 1: $(cat "$T/err")"
for x in x 1.5 "" 0x1; do
	run 1 H overhead "$x" && one_line_err && grep -q 'expected the number of an online CPU' "$T/err"
	ok $? "overhead '$x': exit 1: $(cat "$T/err")"
done
run 1 H overhead 0 1 && one_line_err
ok $? "overhead 0 1: too many arguments"
run 1 H --cgroup "$C1" overhead && one_line_err && grep -q -- '--cgroup does not apply' "$T/err"
ok $? "--cgroup overhead refused"
run 0 H help overhead && grep -q '^Usage: hcbsctl \[--json\] overhead \[CPU\]' "$T/out"
ok $? "help overhead"
if [ -e /sys/fs/cgroup/cpu.rt.max ]; then
	echo "# SKIP the no-HCBS refusals: this host runs an hcbs kernel"
else
	run 4 H overhead && one_line_err
	ok $? "overhead on a kernel without HCBS: exit 4, one line: $(cat "$T/err")"
	run 4 H analyze "$T/paper.ts" --period 18ms --overhead auto && one_line_err &&
		grep -q -- '--overhead auto: .*or give the overhead, e.g. --overhead 80us' "$T/err"
	ok $? "analyze --overhead auto without HCBS: exit 4, says what else works: $(cat "$T/err")"
	snapshot before
	run 4 H --cgroup "$C1" set --taskset "$T/paper.ts" --period 18ms --overhead auto && one_line_err && unchanged
	ok $? "set --taskset --overhead auto without HCBS: exit 4, nothing changed: $(cat "$T/err")"
fi
run 1 H analyze "$T/paper.ts" --period 18ms --overhead auto --order nope && one_line_err &&
	grep -q -- '--order' "$T/err"
ok $? "analyze --overhead auto --order nope: the bad option first, nothing measured"

# --- the hook ------------------------------------------------------------------
# Its test build reads a fake /proc (HCBS_TEST_PROC) whose cgroup2 mount is
# the fake tree: init is pid 4242 there, and the tests move it around.
ST=$T/state PROC=$T/proc
export HCBS_HOOK_STATE_DIR=$ST HCBS_TEST_PROC=$PROC
mkdir -p "$PROC/self" "$PROC/4242"
echo "30 20 0:26 / $CG rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate" >"$PROC/self/mountinfo"
echo "0::/lxc.payload.c1" >"$PROC/4242/cgroup"
# start-host of container c1 (v1), init pid 4242; extra VAR=VALUE first
SH() { env LXC_PID=4242 LXC_HOOK_VERSION=1 LXC_HOOK_TYPE=start-host LXC_NAME=c1 "$@"; }
run 0 $WRAP "$HOOK" --help && grep -q 'lxc.hook.start-host' "$T/out"
ok $? "hook --help"
# --version: "hcbs-hook VERSION" with hcbsctl's version; even as a start-host
# hook it reserves nothing and records no state.
ver=$(H --version | sed -n 's/^hcbsctl //p')
snapshot before
run 0 SH $WRAP "$HOOK" --version && [ "$(cat "$T/out")" = "hcbs-hook $ver" ] && [ ! -s "$T/err" ] && unchanged
ok $? "hook --version: 'hcbs-hook $ver' as hcbsctl --version, nothing reserved: $(cat "$T/out")"
run 0 $WRAP "$HOOK" -V && [ "$(cat "$T/out")" = "hcbs-hook $ver" ]
ok $? "hook -V is --version"
$WRAP "$HOOK" --help | grep -q -- '-V, --version'
ok $? "hook --help names --version"
run 1 env -u LXC_HOOK_TYPE LXC_NAME=c1 $WRAP "$HOOK" --reserve 8ms/18ms && one_line_err
ok $? "hook without a hook type: exit 1: $(cat "$T/err")"
run 1 env LXC_HOOK_VERSION=0 $WRAP "$HOOK" --reserve 8/18 c1 lxc pre-start && one_line_err && grep -q 'c1: pre-start' "$T/err"
ok $? "hook v0 pre-start rejects a bad reservation: $(cat "$T/err")"
run 0 env LXC_HOOK_VERSION=0 $WRAP "$HOOK" --reserve 8ms/18ms c1 lxc pre-start
ok $? "hook v0 pre-start with good arguments"
run 1 env LXC_HOOK_VERSION=1 LXC_HOOK_TYPE=pre-start LXC_NAME=c1 $WRAP "$HOOK"
ok $? "hook v1 pre-start without --reserve: exit 1"
run 0 env LXC_HOOK_VERSION=1 LXC_HOOK_TYPE=mount LXC_NAME=c1 $WRAP "$HOOK" --reserve 8ms/18ms
ok $? "hook: other hook types do nothing"
run 1 env LXC_HOOK_VERSION=2 LXC_HOOK_TYPE=start-host LXC_NAME=c1 $WRAP "$HOOK" --reserve 8ms/18ms
ok $? "hook: unknown hook version: exit 1"
run 1 env -u LXC_PID LXC_HOOK_VERSION=1 LXC_HOOK_TYPE=start-host LXC_NAME=c1 $WRAP "$HOOK" --reserve 8ms/18ms &&
	grep -q 'LXC_PID is not set' "$T/err"
ok $? "hook start-host without LXC_PID: exit 1"
run 3 SH LXC_PID=999999999 $WRAP "$HOOK" --reserve 8ms/18ms && one_line_err
ok $? "hook start-host with a dead pid: exit 3: $(cat "$T/err")"
# No cpu cgroup hierarchy mounted: exit 4 as hcbsctl, not 3 (no such cgroup).
mkdir -p "$T/nomount-hook/self" "$T/nomount-hook/4242"
echo "21 1 0:19 / /proc rw - proc proc rw" >"$T/nomount-hook/self/mountinfo"
echo "0::/" >"$T/nomount-hook/self/cgroup"
echo "0::/lxc.payload.c1" >"$T/nomount-hook/4242/cgroup"
snapshot before
run 4 SH HCBS_TEST_PROC="$T/nomount-hook" $WRAP "$HOOK" --state-dir "$ST" --reserve 8ms/18ms && one_line_err &&
	grep -q "^hcbs-hook: c1: start-host: no cpu cgroup hierarchy is mounted (.*): expected cgroup2, or cgroup v1 with the cpu controller\$" "$T/err" &&
	unchanged && [ ! -e "$ST" ]
ok $? "hook start-host with no cpu cgroup hierarchy mounted: exit 4, nothing changed: $(cat "$T/err")"

# start-host acts on lxc.payload.$LXC_NAME only: every other cgroup is
# refused in one line naming it and what was expected, and nothing changes.
echo "max 1000000" >"$C1/cpu.rt.max"
echo "max 1000000" >"$CG/cpu.rt.max"
mkgroup "$CG/lxc.payload.c2" "max 1000000"
mkgroup "$CG/user.slice"; mkgroup "$CG/user.slice/session-3.scope" "max 1000000"
mkgroup "$CG/lxc.monitor.c1" "max 1000000"
snapshot before
while IFS='|' read -r cg pat; do
	[ -z "$cg" ] && continue
	echo "0::$cg" >"$PROC/4242/cgroup"
	run 3 SH $WRAP "$HOOK" --state-dir "$ST" --reserve 8ms/18ms && one_line_err &&
		grep -q "^hcbs-hook: c1: start-host: pid 4242: $pat" "$T/err" &&
		grep -q "expected its own cgroup, lxc.payload.c1 (lxc/c1 on cgroup v1); refused\$" "$T/err" &&
		unchanged && [ ! -e "$ST" ]
	ok $? "hook start-host with init in $cg: exit 3, nothing changed: $(cat "$T/err")"
done <<'EOF'
/|cgroup / is the root cgroup, not the container's
/lxc.payload.c2|cgroup /lxc.payload.c2 is container c2's, not this one's
/user.slice/session-3.scope|cgroup /user.slice/session-3.scope is not the container's
/user.slice|cgroup /user.slice is not the container's
/lxc.monitor.c1|cgroup /lxc.monitor.c1 is not the container's
/other|cgroup /other is not the container's
EOF
echo "0::/lxc.payload.c1" >"$PROC/4242/cgroup"
run 1 env -u LXC_NAME LXC_PID=4242 LXC_HOOK_VERSION=1 LXC_HOOK_TYPE=start-host $WRAP "$HOOK" --reserve 8ms/18ms &&
	one_line_err && grep -q 'LXC_NAME is not set' "$T/err" && unchanged
ok $? "hook start-host without LXC_NAME: exit 1: $(cat "$T/err")"
echo "bogus" >"$PROC/4242/cgroup"
run 3 SH $WRAP "$HOOK" --reserve 8ms/18ms && one_line_err &&
	grep -q 'cannot find the cgroup of init (pid 4242): no cgroup v2' "$T/err" && unchanged
ok $? "hook start-host when init's cgroup cannot be resolved: exit 3, no fallback: $(cat "$T/err")"
echo "0::/lxc.payload.c1" >"$PROC/4242/cgroup"
run 3 env -u HCBS_TEST_FAKE_CGROUPFS LXC_PID=4242 LXC_HOOK_VERSION=1 LXC_HOOK_TYPE=start-host LXC_NAME=c1 \
	$WRAP "$HOOK" --reserve 8ms/18ms && one_line_err && grep -q 'not a cgroup file system' "$T/err" && unchanged
ok $? "hook start-host on a tree that is not cgroupfs: exit 3: $(cat "$T/err")"

# ... and reserves it, remembers it for stop, which releases it.
run 0 SH LXC_CONFIG_FILE=/var/lib/lxc/c1/config $WRAP "$HOOK" --reserve 8ms/18ms &&
	[ "$(cat "$C1/cpu.rt.max")" = "8000 18000" ] && [ "$(cat "$ST/%2Fvar%2Flib%2Flxc%2Fc1%2Fconfig")" = "$C1" ]
ok $? "hook start-host reserves lxc.payload.c1 and records it in %2Fvar%2Flib%2Flxc%2Fc1%2Fconfig"
run 0 env LXC_CONFIG_FILE=/var/lib/lxc/c1/config LXC_HOOK_VERSION=0 $WRAP "$HOOK" c1 lxc stop mnt:/proc/1/fd/3 &&
	[ "$(cat "$C1/cpu.rt.max")" = "max 18000" ] && [ ! -e "$ST/%2Fvar%2Flib%2Flxc%2Fc1%2Fconfig" ]
ok $? "hook v0 stop releases the recorded cgroup and removes the state file"
run 0 env LXC_CONFIG_FILE=/var/lib/lxc/c1/config LXC_HOOK_VERSION=1 LXC_HOOK_TYPE=stop LXC_NAME=c1 $WRAP "$HOOK"
ok $? "hook v1 stop without state: nothing to do, exit 0"
# lxc.cgroup.dir.container.inner: init one level below the limit cgroup
mkgroup "$C1/inner" "max 1000000"
printf 'lxc.uts.name = c1\nlxc.cgroup.dir.container.inner = inner\n' >"$T/inner.conf"
echo "0::/lxc.payload.c1/inner" >"$PROC/4242/cgroup"
run 0 SH LXC_CONFIG_FILE="$T/inner.conf" $WRAP "$HOOK" --reserve 7ms/18ms &&
	[ "$(cat "$C1/cpu.rt.max")" = "7000 18000" ] && [ "$(cat "$C1/inner/cpu.rt.max")" = "max 1000000" ]
ok $? "hook start-host with an inner cgroup reserves the limit cgroup lxc.payload.c1"
printf 'lxc.cgroup.dir.container.inner = a/b\n' >"$T/inner2.conf"
snapshot before
run 3 SH LXC_CONFIG_FILE="$T/inner2.conf" $WRAP "$HOOK" --reserve 7ms/18ms && one_line_err &&
	grep -q 'cgroup / is the root cgroup' "$T/err" && unchanged
ok $? "hook start-host: an inner path deeper than init's cgroup never climbs to the root: $(cat "$T/err")"
echo "0::/lxc.payload.c1" >"$PROC/4242/cgroup"
run 0 env LXC_CONFIG_FILE="$T/inner.conf" LXC_HOOK_VERSION=1 LXC_HOOK_TYPE=stop LXC_NAME=c1 $WRAP "$HOOK" &&
	[ "$(cat "$C1/cpu.rt.max")" = "max 18000" ]
ok $? "hook stop releases it"

# State files: '%' and '/' both encoded, so "a%b" and "a/b" never share one
# (with '/' as '%', stopping one container released the other's reservation).
mkgroup "$CG/lxc.payload.a%b" "max 1000000"
mkgroup "$CG/lxc.payload.b" "8000 18000"
echo "0::/lxc.payload.a%b" >"$PROC/4242/cgroup"
run 0 SH LXC_NAME='a%b' LXC_CONFIG_FILE="/lxc/a%b/config" $WRAP "$HOOK" --reserve 5ms/18ms &&
	[ "$(cat "$CG/lxc.payload.a%b/cpu.rt.max")" = "5000 18000" ] && [ -e "$ST/%2Flxc%2Fa%25b%2Fconfig" ]
ok $? "hook start-host of container 'a%b': state file %2Flxc%2Fa%25b%2Fconfig"
run 0 env LXC_CONFIG_FILE=/lxc/a/b/config LXC_HOOK_VERSION=1 LXC_HOOK_TYPE=stop LXC_NAME=b $WRAP "$HOOK" &&
	[ "$(cat "$CG/lxc.payload.a%b/cpu.rt.max")" = "5000 18000" ] && [ "$(cat "$CG/lxc.payload.b/cpu.rt.max")" = "8000 18000" ] &&
	[ -e "$ST/%2Flxc%2Fa%25b%2Fconfig" ]
ok $? "hook stop of container 'b' in /lxc/a/b: leaves a%b's reservation and state alone"
run 0 env LXC_CONFIG_FILE="/lxc/a%b/config" LXC_HOOK_VERSION=1 LXC_HOOK_TYPE=stop LXC_NAME='a%b' $WRAP "$HOOK" &&
	[ "$(cat "$CG/lxc.payload.a%b/cpu.rt.max")" = "max 18000" ] && [ ! -e "$ST/%2Flxc%2Fa%25b%2Fconfig" ]
ok $? "hook stop of 'a%b' releases its own"
# A state file is not trusted: one that names another container's cgroup is
# left alone.
echo "$CG/lxc.payload.b" >"$ST/%2Flxc%2Fc1%2Fconfig"
run 0 env LXC_CONFIG_FILE=/lxc/c1/config LXC_HOOK_VERSION=1 LXC_HOOK_TYPE=stop LXC_NAME=c1 $WRAP "$HOOK" &&
	[ "$(cat "$CG/lxc.payload.b/cpu.rt.max")" = "8000 18000" ] && grep -q 'does not name this container' "$T/err"
ok $? "hook stop: a state file naming another container's cgroup: left alone: $(cat "$T/err")"
echo "0::/lxc.payload.c1" >"$PROC/4242/cgroup"
run 0 SH LXC_CONFIG_FILE="/$(printf 'x%.0s' $(seq 300))" $WRAP "$HOOK" --reserve 8ms/18ms &&
	grep -q 'the stop hook will not release' "$T/err" && [ "$(cat "$C1/cpu.rt.max")" = "8000 18000" ]
ok $? "hook start-host: a state key too long for a file name is a warning, not a failure: $(tail -1 "$T/err")"

# --- issue 18: hostile but plausible input ------------------------------------
snapshot before
echo '18446744073709551615ns 18446744073709551615ns' >"$T/sat.ts"
run 1 H analyze "$T/sat.ts" --reservation 8ms/18ms && one_line_err &&
	grep -q "line 1: duration '18446744073709551615ns' is too large: at most 8760h" "$T/err" && ! grep -q SCHEDULABLE "$T/out"
ok $? "analyze: a 2^64-1 ns task is refused, never SCHEDULABLE: $(cat "$T/err")"
echo '8760h 8760h' >"$T/top.ts"
run 6 H analyze "$T/top.ts" --reservation 8ms/18ms && grep -q 'SCHED_FIFO): NOT schedulable' "$T/out"
ok $? "analyze: utilization 1 at the largest duration in 8ms/18ms: NOT schedulable, exit 6"
run 0 H analyze "$T/top.ts" --period 18ms && grep -q 'fixed priorities: 18ms (bandwidth 1.0000)' "$T/out"
ok $? "analyze: ... it needs the whole CPU at 18ms (the least runtime was 0)"
printf '[{"wcet": 18446744073709551615, "period": 18446744073709551615}]' >"$T/sat.json"
run 1 H analyze "$T/sat.json" --reservation 8ms/18ms && one_line_err && grep -q 'line 1, column' "$T/err"
ok $? "analyze: the same in JSON integers is refused: $(cat "$T/err")"
run 1 timeout 20 $WRAP "$HCBSCTL" analyze /dev/zero --reservation 8ms/18ms && one_line_err && grep -q 'NUL byte' "$T/err"
ok $? "analyze /dev/zero ends at once: $(cat "$T/err")"
{ for i in $(seq 25000); do echo "# padding padding padding padding padding padding"; done; echo '1ms 10ms'; } >"$T/huge.ts"
run 1 H analyze "$T/huge.ts" --period 10ms && one_line_err && grep -q 'larger than 1048576 bytes' "$T/err"
ok $? "analyze: a task set over 1 MiB is refused: $(cat "$T/err")"
run 1 H analyze "$T/paper.ts" --reservation 8.5us/18ms && one_line_err && grep -q 'whole number of microseconds' "$T/err"
ok $? "analyze -r 8.5us/18ms refused as set refuses it: $(cat "$T/err")"
run 1 H --cgroup "$C1" set 8.5us/18ms && one_line_err && grep -q 'whole number of microseconds' "$T/err"
ok $? "set 8.5us/18ms: the same message"
for d in 0x2ms 1e1ms 10 +8ms 0.0000000001s 8761h; do
	run 1 H analyze "$T/paper.ts" --period "$d" && one_line_err && grep -q -- "--period: " "$T/err"
	ok $? "analyze --period $d refused: $(cat "$T/err")"
done
run 1 H set c1 -8ms/18ms && one_line_err && grep -q "'-8ms/18ms' is not an option" "$T/err" && ! grep -q "'c1'" "$T/err"
ok $? "set c1 -8ms/18ms names the argument: $(cat "$T/err")"
run 1 H set c1 -jx && one_line_err && grep -q "unknown option '-x' in '-jx'" "$T/err"
ok $? "an unknown option inside a cluster: $(cat "$T/err")"
mkdir -p "$T/emptylxc"
run 3 H -P "$T/nonexistent" list && one_line_err && grep -q "LXC path $T/nonexistent" "$T/err"
ok $? "-P to a missing path: list exits 3: $(cat "$T/err")"
run 3 H -P "$T/nonexistent" get c1 && one_line_err && grep -q "LXC path $T/nonexistent" "$T/err"
ok $? "-P to a missing path: get exits 3 too: $(cat "$T/err")"
for cmd in get unset "set 8ms/18ms"; do
	# shellcheck disable=SC2086
	run 3 H --cgroup "$T/emptylxc" $cmd && one_line_err && grep -q 'not a cgroup (no cgroup.procs)' "$T/err"
	ok $? "--cgroup on a plain directory: $cmd says 'not a cgroup', exit 3: $(cat "$T/err")"
done
for a in "list --taskset x" "list --period 1ms" "get c1 --period 1ms" "analyze x --cgroup $C1" "free --lxcpath /" \
	 "--cgroup $C1 get -q" "-q list" "--quiet free" "-q overhead" "--cgroup $C1 set 8ms/18ms --order rm"; do
	# shellcheck disable=SC2086
	run 1 H $a && one_line_err && grep -qE "does not apply to|is for --taskset" "$T/err"
	ok $? "an option that does not apply is refused: hcbsctl $a: $(cat "$T/err")"
done
run 0 H help set && grep -q '^Usage: hcbsctl \[-P LXCPATH\] \[-q|-v|--json\] set NAME RUNTIME/PERIOD' "$T/out"
ok $? "help set shows set's usage"
run 0 H help free && grep -q "the root group's share" "$T/out"
ok $? "help free says what free is measured against"
run 0 H help && grep -q '^Examples:' "$T/out"
ok $? "help alone is --help"
run 1 H help frob && one_line_err
ok $? "help of an unknown command: exit 1"
printf '[{"wcet": "1ms",\n  "period": "10ms",\n  "wcet": "2ms"}]\n' >"$T/dup.json"
run 1 H analyze "$T/dup.json" --period 10ms && one_line_err && grep -q 'line 3, column [0-9]*: duplicate object key' "$T/err"
ok $? "JSON: a duplicate key is refused with its line and column: $(cat "$T/err")"
printf '[{"wcet": +5, "period": 10}]' >"$T/plus.json"
run 1 H analyze "$T/plus.json" --period 10ms && one_line_err && grep -q 'invalid token' "$T/err"
ok $? "JSON: +5 refused: $(cat "$T/err")"
printf '[{"wcet": "1ms", "period": "10ms", "dedline": "5ms"}]' >"$T/unk.json"
run 1 H analyze "$T/unk.json" --period 10ms && one_line_err && grep -q 'unknown key "dedline"' "$T/err"
ok $? "JSON: an unknown key is named as such: $(cat "$T/err")"
run 1 H --cgroup "$C1" set --taskset "$T/paper.ts" --period bogus && one_line_err && grep -q -- '--period: invalid duration' "$T/err"
ok $? "set --taskset --period bogus: $(cat "$T/err")"
for a in "--taskset $T/paper.ts --period bogus:1:--period: invalid duration" \
	 "--taskset $T/paper.ts --period 18.5us:1:whole number of microseconds" \
	 "--taskset /dev/zero --period 18ms:1:NUL byte" \
	 "--taskset $T/nonexistent --period 18ms:3:No such file" \
	 "--taskset $T/sat.ts --period 18ms:1:too large" \
	 "--taskset $T/over.ts --period 1ms:6:not schedulable" \
	 "--reserve 8.5us/18ms:1:whole number of microseconds"; do
	a1=${a%%:*} rest=${a#*:} want=${rest%%:*} pat=${rest#*:}
	# shellcheck disable=SC2086
	run "$want" env LXC_HOOK_VERSION=1 LXC_HOOK_TYPE=pre-start LXC_NAME=c1 $WRAP "$HOOK" $a1 &&
		one_line_err && grep -q -- "$pat" "$T/err"
	ok $? "hook $a1: exit $want, as hcbsctl: $(cat "$T/err")"
done
# Issue 39: a newline or an ESC in a name forged a second line, in syslog too.
evil=$'c1\nhcbs-hook: c2: start-host: reserved 8ms/18ms\e[31m'
run 1 env LXC_HOOK_VERSION=1 LXC_HOOK_TYPE=pre-start LXC_NAME="$evil" $WRAP "$HOOK" --reserve max/18ms &&
	one_line_err && grep -qF 'hcbs-hook: c1\nhcbs-hook: c2: start-host: reserved 8ms/18ms\x1b[31m: pre-start: ' "$T/err" &&
	! grep -q $'\e' "$T/err"
ok $? "hook: LXC_NAME with a newline and an ESC, escaped in one line: $(cat "$T/err")"
run 3 H get "$evil" && one_line_err && grep -qF 'hcbsctl: get c1\nhcbs-hook: c2: start-host: reserved 8ms/18ms\x1b[31m: ' "$T/err" &&
	! grep -q $'\e' "$T/err"
ok $? "hcbsctl get NAME with a newline and an ESC: escaped in one line: $(cat "$T/err")"
run 3 H --cgroup "$CG/"$'a\nb\e' get && one_line_err && grep -qF "$CG/a\nb\x1b" "$T/err"
ok $? "hcbsctl --cgroup PATH with a newline and an ESC: escaped in one line: $(cat "$T/err")"
run 0 env LXC_HOOK_VERSION=1 LXC_HOOK_TYPE=pre-start LXC_NAME=c1 $WRAP "$HOOK" --taskset "$T/paper.ts" --period 18ms
ok $? "hook --taskset --period 18ms accepted in pre-start"
unchanged
ok $? "none of the hostile inputs changed a file"

echo "1..$n"
[ "$failed" = 0 ]
