# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the experiments' guest scripts (fig3, cloudran): busybox LXC
# containers on the hcbs kernel or on stock 6.12, and RT limits the
# kernel's way.  The caller sets, before sourcing:
#   XP      its name, the prefix of its progress lines ("fig3: ...")
#   OUT     its output directory
# and gets:
#   say, die        progress lines and the last line on a failure
#   kind            hcbs (cpu.rt.max in a v2 cpu group) or stock
#   xp_kind         find kind; on stock, move cpu to a v1 hierarchy at $V1
#   xp_base         $base: the --base LXC path given, checked, or a
#                   busybox container "base" made here
#   xp_containers BIN BASE NAME...
#                   copy the busybox container BASE/base to NAME... in
#                   $LXCP and start them, with BIN at /hcbs-bin (read-only),
#                   $GO at /hcbs-go and $LOGS at /hcbs-logs
#   cg_of C, limit C Q_US P_US, in_group C CMD..., threads C PATTERN,
#   kill_named C NAME
#   bg_pids         the caller's background jobs, killed on exit
# The containers are stopped and the v1 hierarchy unmounted on exit.

CGROOT=/sys/fs/cgroup
LXCP=$HCBS_TMP/lxc
V1=$HCBS_TMP/cpu
GO=$HCBS_TMP/go
LOGS=$HCBS_TMP/logs
HCBSCTL=$HCBS_BUILD/tools/hcbsctl/hcbsctl
bg_pids=() containers=()
declare -A V1DIR

say() { echo "$XP: $*"; }
die() { echo "$XP: error: $*"; exit 1; }

xp_cleanup() {
	local p c
	for p in "${bg_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for c in "${containers[@]}"; do lxc-stop -P "$LXCP" -n "$c" -k >/dev/null 2>&1 || true; done
	wait 2>/dev/null || true
	mountpoint -q "$V1" && umount "$V1" 2>/dev/null
	mkdir -p "$OUT/guest-logs"
	cp "$HCBS_TMP"/*.load "$HCBS_TMP"/*.log "$OUT/guest-logs/" 2>/dev/null || true
}
trap xp_cleanup EXIT

xp_kind() {
	local probe=$CGROOT/$XP-probe.$$
	grep -qw cpu $CGROOT/cgroup.subtree_control || echo +cpu >$CGROOT/cgroup.subtree_control
	mkdir "$probe"
	if [ -e "$probe/cpu.rt.max" ]; then kind=hcbs; else kind=stock; fi
	rmdir "$probe"
	[ "$kind" = stock ] || return 0
	# A stock kernel with RT_GROUP_SCHED refuses RT tasks in a v2 cpu
	# group (no runtime there): cpu goes to a v1 hierarchy instead, before
	# LXC starts, which then makes the containers' groups there too (once
	# a v2 cgroup has used cpu, its dying groups keep it from v1 a while).
	echo -cpu >$CGROOT/cgroup.subtree_control || die "cannot disable cpu on cgroup v2 (a group below the root uses it)"
	mkdir -p "$V1"
	for _ in $(seq 50); do
		mount -t cgroup -o cpu cgroup "$V1" 2>/dev/null && break
		sleep 0.2
	done
	mountpoint -q "$V1" || die "cannot mount the v1 cpu controller on $V1"
}

xp_base() {
	if [ -n "$base" ]; then
		[ -f "$base/base/config" ] || die "--base $base: no container 'base' there"
		return 0
	fi
	base=$HCBS_TMP/lxc-base
	say "creating busybox container 'base' (lxc-create -t busybox; minutes under TCG)"
	lxc-create -P "$base" -n base -t busybox >"$HCBS_TMP/create.log" 2>&1 ||
		{ tail -5 "$HCBS_TMP/create.log"; die "lxc-create -t busybox failed"; }
}

xp_containers() {
	local bin=$1 base=$2 c p t0=$SECONDS
	shift 2
	mkdir -p "$LXCP" "$GO" "$LOGS"
	for c in "$@"; do
		lxc-copy -P "$base" -n base -p "$LXCP" -N "$c" >"$HCBS_TMP/$c.copy" 2>&1 ||
			{ cat "$HCBS_TMP/$c.copy"; die "lxc-copy of $c failed"; }
		{
			echo "lxc.net.0.type = empty"
			echo "lxc.apparmor.profile = unconfined"
			echo "lxc.mount.entry = $bin hcbs-bin none bind,ro,create=dir 0 0"
			echo "lxc.mount.entry = $GO hcbs-go none bind,ro,create=dir 0 0"
			echo "lxc.mount.entry = $LOGS hcbs-logs none bind,create=dir 0 0"
			echo "lxc.prlimit.rtprio = 99"
			echo "lxc.prlimit.memlock = unlimited"
		} >>"$LXCP/$c/config"
		lxc-start -P "$LXCP" -n "$c" -d -l INFO -o "$HCBS_TMP/$c.log" ||
			{ tail -5 "$HCBS_TMP/$c.log"; die "lxc-start $c failed"; }
		containers+=("$c")
		lxc-wait -P "$LXCP" -n "$c" -s RUNNING -t 30 || die "container $c did not reach RUNNING"
	done
	say "containers $* running ($((SECONDS - t0)) s)"
	[ "$kind" = stock ] || return 0
	# each one's group in the v1 cpu hierarchy (LXC's, if it made one
	# there; else ours, $V1/CONTAINER, which in_group moves commands into)
	for c in "$@"; do
		p=$(sed -n 's/^[0-9]*:cpu[^:]*:\(.*\)$/\1/p' "/proc/$(lxc-info -P "$LXCP" -n "$c" -p -H)/cgroup")
		if [ -n "$p" ] && [ "$p" != / ]; then
			V1DIR[$c]=$V1$p
		else
			V1DIR[$c]=$V1/$c
		fi
		say "$c: v1 cpu group ${V1DIR[$c]}"
	done
}

cg_of() { echo "$CGROOT$(sed -n 's/^0:://p' "/proc/$(lxc-info -P "$LXCP" -n "$1" -p -H)/cgroup")"; }

# limit CONTAINER Q_US P_US: its RT limit, the kernel's way; Q_US "max"
# on hcbs: no reservation of its own
limit() {
	local c=$1 q=$2 p=$3
	if [ "$kind" = hcbs ]; then
		if [ "$q" = max ]; then
			"$HCBSCTL" -P "$LXCP" unset "$c" >/dev/null
		else
			"$HCBSCTL" -P "$LXCP" set "$c" "${q}us/${p}us" >/dev/null
		fi
		return
	fi
	# stock: the container's v1 group; the period first (runtime <= period)
	local d=${V1DIR[$c]}
	mkdir -p "$d"
	echo 0 >"$d/cpu.rt_runtime_us" || return 1
	echo "$p" >"$d/cpu.rt_period_us" || return 1
	echo "$q" >"$d/cpu.rt_runtime_us"
}

# in_group CONTAINER CMD...: CMD in CONTAINER's v1 group on stock (its RT
# threads are born there), as it is elsewhere
in_group() {
	local c=$1
	shift
	if [ "$kind" = stock ] && [ "${V1DIR[$c]}" = "$V1/$c" ]; then
		sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$V1/$c" "$@"
	else
		"$@"
	fi
}

# threads CONTAINER PATTERN: how many of its tasks (threads too) are named
# PATTERN
threads() {
	local p n=0
	while read -r p; do
		# shellcheck disable=SC2254
		case $(cat "/proc/$p/comm" 2>/dev/null) in $2) n=$((n + 1)) ;; esac
	done < <(find "$(cg_of "$1")" -name cgroup.threads -exec cat {} +)
	echo $n
}

# kill_named CONTAINER NAME: SIGKILL its processes named NAME
kill_named() {
	local p
	while read -r p; do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$2" ] && kill -KILL "$p" 2>/dev/null
	done < <(find "$(cg_of "$1")" -name cgroup.procs -exec cat {} +)
	return 0
}

# us DURATION: 8ms -> 8000, 500us -> 500, 1.5s -> 1500000 (whole us)
us() {
	awk -v d="$1" 'BEGIN {
		if (!match(d, /^[0-9]+(\.[0-9]+)?(us|ms|s)$/)) exit 1
		n = d + 0; u = substr(d, length(d) - 1)
		f = u == "us" ? 1 : u == "ms" ? 1000 : 1000000
		v = n * f
		if (v != int(v) || v <= 0) exit 1
		printf "%d\n", v
	}'
}
