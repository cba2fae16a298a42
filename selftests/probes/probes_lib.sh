# SPDX-License-Identifier: GPL-2.0
# Helpers for the probe selftests; sourced, not run.
HCBS_ROOT=${HCBS_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
HCBS_BUILD=${HCBS_BUILD:-$HCBS_ROOT/build}
HCBS_TMP=${HCBS_TMP:-$(mktemp -d)}
HCBSTRACE=$HCBS_BUILD/tools/probes/hcbstrace
# The same sources with the test switches (HCBSTRACE_FORCE_RAW_TP), never installed.
HCBSTRACE_TESTING=$HCBS_BUILD/tools/probes/hcbstrace-testing
PERIODIC=$HCBS_BUILD/selftests/probes/periodic
CGROOT=${HCBS_CGROOT:-/sys/fs/cgroup}
ntest=0 nfail=0
probe_pids=()
cgroups=()

skip() { echo "# SKIP $*"; echo "SKIP: $*"; exit 4; }
ok() { ntest=$((ntest + 1)); echo "ok $ntest $*"; }
fail() { ntest=$((ntest + 1)); nfail=$((nfail + 1)); echo "not ok $ntest $*"; }
check() { # description, command...
	local d=$1
	shift
	if "$@"; then ok "$d"; else fail "$d"; fi
}
finish() { echo "1..$ntest"; [ $nfail = 0 ]; exit $?; }

cleanup() {
	local p c
	for p in "${probe_pids[@]}"; do kill -INT "$p" 2>/dev/null; done
	for p in "${probe_pids[@]}"; do wait "$p" 2>/dev/null; done
	for ((i = ${#cgroups[@]} - 1; i >= 0; i--)); do
		c=${cgroups[i]}
		[ -d "$c" ] || continue
		for p in $(cat "$c/cgroup.procs" 2>/dev/null); do
			echo "$p" >"$CGROOT/cgroup.procs" 2>/dev/null
		done
		rmdir "$c" 2>/dev/null
	done
}
trap cleanup EXIT

need_tools() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	[ -x "$HCBSTRACE" ] || skip "hcbstrace not built ($HCBSTRACE)"
	[ -x "$PERIODIC" ] || skip "periodic not built ($PERIODIC)"
	[ -r /sys/kernel/btf/vmlinux ] || skip "kernel without BTF"
	command -v python3 >/dev/null || skip "python3 needed to read the JSON output"
	return 0
}

# Under TCG (with a debug kernel, on a busy host) going to sleep alone can
# take milliseconds: longer periods keep 1% of T above that.
if [ "${HCBS_ACCEL:-kvm}" = tcg ] || [ -n "${KSFT_MACHINE_SLOW:-}" ]; then
	PERIOD_US=200000 EXEC_US=40000 SLOW=1
else
	PERIOD_US=20000 EXEC_US=4000 SLOW=0
fi

# check_timing DESC COMMAND...: like check, but on a slow machine
# (KSFT_MACHINE_SLOW, the kselftest convention) a failure is reported and
# skipped, not failed: timing is not what TCG can promise.
check_timing() {
	local d=$1
	shift
	if "$@"; then
		ok "$d"
	elif [ -n "${KSFT_MACHINE_SLOW:-}" ]; then
		ntest=$((ntest + 1))
		echo "ok $ntest $d # SKIP timing on a slow machine (KSFT_MACHINE_SLOW)"
	else
		fail "$d"
	fi
}

# start_probe NAME ARGS...: hcbstrace ARGS >NAME.out 2>NAME.err, in the
# background; returns once it is tracing.
start_probe() {
	local name=$1 i
	shift
	"$HCBSTRACE" "$@" >"$HCBS_TMP/$name.out" 2>"$HCBS_TMP/$name.err" &
	probe_pids+=($!)
	eval "${name}_pid=$!"
	for ((i = 0; i < 300; i++)); do
		grep -qs "tracing" "$HCBS_TMP/$name.err" && return 0
		kill -0 $! 2>/dev/null || break
		sleep 0.1
	done
	echo "# $name did not start:"
	sed 's/^/#   /' "$HCBS_TMP/$name.err"
	return 1
}

# stop_probe NAME: SIGINT, wait, and return its exit status.
stop_probe() {
	local pid
	eval "pid=\$${1}_pid"
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
}

# make_cgroup PATH: a cgroup v2 directory, removed at exit.
make_cgroup() {
	mkdir -p "$1" && cgroups+=("$1")
}

# json FILE EXPR: print a Python expression over the document "d".
json() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
