# SPDX-License-Identifier: GPL-2.0
#
# Shared by the end-to-end tests of the tools (test_cli.sh, test_oci_hook.sh):
# TAP helpers and a fake kernel: a cgroup tree in $CG with the HCBS files,
# sysctls in $SYS and fair servers in $FS, which the test builds of hcbsctl
# and the hooks (never the installed programs) read through
# HCBSCTL_SYSCTL_DIR and HCBSCTL_FAIR_SERVER_DIR, and accept as cgroupfs
# with HCBS_TEST_FAKE_CGROUPFS.
# Needs SRC (the source root); sets T (a temporary directory, removed at exit).
# shellcheck shell=bash
SCHEMA=$SRC/docs/hcbsctl-schema.json
VALIDATE=$SRC/tests/unit/validate_json.py
T=$(mktemp -d /tmp/hcbsctl-test.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
n=0 failed=0

ok() {	# ok COND-EXIT-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		[ -s "$T/err" ] && sed 's/^/# stderr: /' "$T/err"
		[ -s "$T/out" ] && head -5 "$T/out" | sed 's/^/# stdout: /'
	fi
}

# run EXPECTED-EXIT CMD...: stdout in $T/out, stderr in $T/err
run() {
	local want=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" = "$want" ]
}

one_line_err() {	# stderr is exactly one line starting with hcbsctl:/hcbs-hook:
	[ "$(wc -l <"$T/err")" = 1 ] && grep -qE "^(hcbsctl|hcbs-hook): " "$T/err"
}

valid_json() {
	local v
	v=$(python3 "$VALIDATE" "$SCHEMA" <"$T/out") || { echo "# $v"; return 1; }
	echo "# $v"
	v=$(python3 "$VALIDATE" "$SCHEMA" --fallback <"$T/out") || { echo "# $v"; return 1; }
}

# json_is EXPR: the Python expression over the document d ($T/out) holds;
# sys.argv[2] is $T/err.
json_is() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$T/out" "$T/err"
}

# --- the fake kernel ---------------------------------------------------------
CG=$T/cg SYS=$T/sys FS=$T/fs
mkgroup() {	# mkgroup DIR [rt.max contents]
	mkdir -p "$1"
	: >"$1/cgroup.procs"
	echo 100 >"$1/cpu.weight"
	if [ $# -gt 1 ]; then
		echo "$2" >"$1/cpu.rt.max"
		printf 'usage_usec 1234\nnr_periods 56\nnr_throttled 7\nthrottled_usec 89\nruntime_usec 0\nnr_lagged 3\nlagged_usec 450\n' >"$1/cpu.rt.stat"
	fi
}
mkgroup "$CG"
mkgroup "$CG/lxc.payload.c1" "max 1000000"
mkgroup "$CG/other" "300000 1000000"		# 0.3 at the top level
mkgroup "$CG/parent" "500000 1000000"		# 0.5 at the top level
mkgroup "$CG/parent/kid" "100000 1000000"	# inside parent's 0.5
mkgroup "$CG/parent/mid" "max 1000000"
mkgroup "$CG/parent/mid/leaf" "max 1000000"
mkgroup "$CG/nocpu"; rm "$CG/nocpu/cpu.weight"
mkgroup "$CG/legacy"
echo 0 >"$CG/legacy/cpu.rt_runtime_us"; echo 1000000 >"$CG/legacy/cpu.rt_period_us"
mkgroup "$CG/two"
echo -1 >"$CG/two/cpu.rt_runtime_us"; echo 1000000 >"$CG/two/cpu.rt_period_us"
printf 'usage_usec 0\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\n' >"$CG/two/cpu.rt.stat"
mkdir -p "$SYS"
echo 950000 >"$SYS/sched_rt_runtime_us"; echo 1000000 >"$SYS/sched_rt_period_us"
echo 100 >"$SYS/sched_deadline_period_min_us"; echo 4194304 >"$SYS/sched_deadline_period_max_us"
for c in $(seq 0 $(($(nproc) - 1))); do
	mkdir -p "$FS/cpu$c"; echo 50000000 >"$FS/cpu$c/runtime"; echo 1000000000 >"$FS/cpu$c/period"
done
export HCBSCTL_SYSCTL_DIR=$SYS HCBSCTL_FAIR_SERVER_DIR=$FS HCBS_TEST_FAKE_CGROUPFS=1
C1=$CG/lxc.payload.c1
# TEST_WRAPPER runs the programs under e.g. valgrind (see docs/hcbsctl.md).
WRAP=${TEST_WRAPPER:-}
snapshot() { find "$CG" -type f | sort | xargs md5sum >"$T/snap.$1"; }
unchanged() { snapshot after; cmp -s "$T/snap.before" "$T/snap.after"; }
