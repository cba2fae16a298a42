# SPDX-License-Identifier: GPL-2.0
# Shared by the hcbsctl in-guest tests: TAP output, skipping, HCBS probing,
# and throwaway busybox LXC containers under $HCBS_TMP.
# shellcheck shell=bash

: "${HCBS_ROOT:?HCBS_ROOT is not set (run in the guest via the runner)}"
: "${HCBS_BUILD:=$HCBS_ROOT/build}"
: "${HCBS_TMP:?HCBS_TMP is not set}"
HCBSCTL=$HCBS_BUILD/tools/hcbsctl/hcbsctl
HOOK=$HCBS_BUILD/lxc-hooks/hcbs-hook
HOGDIR=$HCBS_BUILD/selftests/hcbsctl
LXCP=$HCBS_TMP/lxc
SCHEMA=$HCBS_ROOT/docs/hcbsctl-schema.json
VALIDATE=$HCBS_ROOT/tests/unit/validate_json.py
CGROOT=/sys/fs/cgroup
KSFT_SKIP=4
tap_n=0 tap_failed=0
CONTAINERS=()

echo "TAP version 13"

skip_all() {
	echo "1..0 # SKIP $*"
	exit $KSFT_SKIP
}

ok() {	# ok STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $tap_n $2"
	else
		echo "not ok $tap_n $2"
		tap_failed=$((tap_failed + 1))
	fi
}

skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n $1 # SKIP $2"
}

diag() { sed 's/^/# /'; }

finish() {
	echo "1..$tap_n"
	[ "$tap_failed" = 0 ]
	exit $?
}

# run EXPECTED CMD...: output in $OUT, $ERR
OUT=$HCBS_TMP/out ERR=$HCBS_TMP/err
run() {
	local want=$1
	shift
	"$@" >"$OUT" 2>"$ERR"
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "# $* -> exit $rc, expected $want"
		diag <"$ERR"
		return 1
	fi
}

valid_json() { python3 "$VALIDATE" "$SCHEMA" <"$OUT" | diag; [ "${PIPESTATUS[0]}" = 0 ]; }

require_tools() {
	for t in lxc-create lxc-start lxc-stop lxc-attach lxc-info python3; do
		command -v "$t" >/dev/null || skip_all "$t not installed"
	done
	command -v busybox >/dev/null || skip_all "busybox (static) not installed"
	for b in "$HCBSCTL" "$HOOK" "$HOGDIR/hcbs-hog"; do
		[ -x "$b" ] || skip_all "$b not built (meson compile -C \$HCBS_BUILD)"
	done
	[ "$(stat -fc %T $CGROOT)" = cgroup2fs ] || skip_all "cgroup v2 not mounted at $CGROOT"
}

# Does the kernel offer the HCBS interface?  Make a probe group to see.
HCBS_IFACE=
probe_hcbs() {
	local p=$CGROOT/hcbsctl-probe.$$

	grep -qw cpu $CGROOT/cgroup.subtree_control ||
		echo +cpu >$CGROOT/cgroup.subtree_control 2>/dev/null
	mkdir "$p" 2>/dev/null || return 1
	if [ -e "$p/cpu.rt.max" ]; then
		HCBS_IFACE=cpu.rt.max
	elif [ -e "$p/cpu.rt_runtime_us" ] && [ -e "$p/cpu.rt.stat" ]; then
		HCBS_IFACE=two-files
	fi
	rmdir "$p"
	[ -n "$HCBS_IFACE" ]
}

# The busybox template spawns one ln per applet, minutes under TCG: create
# one container per boot (lxc-create -t busybox) and lxc-copy it for each
# test container.
BASE_LXCP=/tmp/hcbsctl-base
base_container() {
	local conf=$BASE_LXCP.conf
	[ -e "$BASE_LXCP/base/config" ] && return 0
	rm -rf "$BASE_LXCP"
	mkdir -p "$BASE_LXCP"
	{
		echo "lxc.net.0.type = empty"
		echo "lxc.apparmor.profile = unconfined"
		echo "lxc.mount.entry = $HOGDIR hcbs-bin none bind,ro,create=dir 0 0"
	} >"$conf"
	echo "# lxc-create -t busybox (once per boot)"
	local t0=$SECONDS
	lxc-create -P "$BASE_LXCP" -n base -t busybox -f "$conf" >"$BASE_LXCP.log" 2>&1 || {
		diag <"$BASE_LXCP.log"
		rm -rf "$BASE_LXCP"
		return 1
	}
	echo "# created in $((SECONDS - t0)) s"
}

# new_container NAME [CONFIG LINES...]: a busybox container in $LXCP
new_container() {
	local name=$1 l
	shift
	base_container || return 1
	mkdir -p "$LXCP"
	lxc-copy -P "$BASE_LXCP" -n base -p "$LXCP" -N "$name" >"$HCBS_TMP/$name.copy" 2>&1 || {
		diag <"$HCBS_TMP/$name.copy"
		return 1
	}
	for l in "$@"; do echo "$l"; done >>"$LXCP/$name/config"
	CONTAINERS+=("$name")
}

start_container() {	# start_container NAME: detached, log at DEBUG in $HCBS_TMP/NAME.log
	lxc-start -P "$LXCP" -n "$1" -d -l DEBUG -o "$HCBS_TMP/$1.log" &&
		lxc-wait -P "$LXCP" -n "$1" -s RUNNING -t 30
}

init_pid() { lxc-info -P "$LXCP" -n "$1" -p -H; }

cgroup_of() {	# the cgroup directory of a pid (cgroup v2)
	echo "$CGROOT$(sed -n 's/^0:://p' "/proc/$1/cgroup")"
}

cleanup() {
	local c

	[ -n "${HOG_PID:-}" ] && kill "$HOG_PID" 2>/dev/null
	for c in "${CONTAINERS[@]}"; do
		lxc-stop -P "$LXCP" -n "$c" -k >/dev/null 2>&1
		lxc-destroy -P "$LXCP" -n "$c" >/dev/null 2>&1
	done
}
trap cleanup EXIT

# values_close A B TOL: |A - B| <= TOL (floats)
values_close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }
