#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# --container NAME selects exactly that LXC container.  Two busybox
# containers c1 and c2 run; a periodic thread is moved into each one's
# cgroup (found by liblxc, as hcbstrace finds it) and a third stays
# outside.  `lateness -c c1 -c c2` must show two columns named c1 and c2,
# each with only its own thread; `latency -c c2 --threads` only c2's.
. "$(dirname "$0")/probes_lib.sh"
need_tools
for t in lxc-create lxc-copy lxc-start lxc-stop lxc-info lxc-destroy busybox; do
	command -v $t >/dev/null || skip "$t not installed"
done
[ "$(stat -fc %T "$CGROOT" 2>/dev/null)" = cgroup2fs ] || skip "no cgroup v2 at $CGROOT"
echo "TAP version 13"

LXCP=$HCBS_TMP/lxc
# The busybox template is slow under TCG: one base container per boot.
BASE=/tmp/hcbstrace-base
if [ ! -e $BASE/base/config ]; then
	mkdir -p $BASE
	printf 'lxc.net.0.type = empty\nlxc.apparmor.profile = unconfined\n' >$BASE.conf
	lxc-create -P $BASE -n base -t busybox -f $BASE.conf >$BASE.log 2>&1 ||
		{ sed 's/^/# /' $BASE.log; skip "lxc-create -t busybox failed"; }
fi
stop_containers() {
	for c in c1 c2; do
		lxc-stop -P "$LXCP" -n $c -k >/dev/null 2>&1
		lxc-destroy -P "$LXCP" -n $c >/dev/null 2>&1
	done
	cleanup
}
trap stop_containers EXIT
mkdir -p "$LXCP"
for c in c1 c2; do
	lxc-copy -P $BASE -n base -p "$LXCP" -N $c >"$HCBS_TMP/$c.copy" 2>&1 &&
		lxc-start -P "$LXCP" -n $c -d -l DEBUG -o "$HCBS_TMP/$c.log" &&
		lxc-wait -P "$LXCP" -n $c -s RUNNING -t 60 ||
		{ sed 's/^/# /' "$HCBS_TMP/$c.copy"; tail -5 "$HCBS_TMP/$c.log" | sed 's/^/# /'; skip "cannot start container $c"; }
done
cg_of() { echo "$CGROOT$(sed -n 's/^0:://p' "/proc/$(lxc-info -P "$LXCP" -n "$1" -p -H)/cgroup")"; }
cg1=$(cg_of c1) cg2=$(cg_of c2)
echo "# c1: $cg1, c2: $cg2"

jobs=$((4000000 / PERIOD_US))
# run_in CGROUP NAME: periodic in CGROUP ("" = stay here), after $HCBS_TMP/go
run_in() {
	sh -c '[ -z "$1" ] || echo $$ >"$1/cgroup.procs" || exit 1; shift; exec "$@"' sh "$1" \
		"$PERIODIC" -T "$PERIOD_US" -C $((EXEC_US / 4)) -n "$jobs" -r 40 -N "$2" \
		-w "$HCBS_TMP/go" -l /dev/null &
}
run_in "$cg1" perC1
p1=$!
run_in "$cg2" perC2
p2=$!
run_in "" perOut
p3=$!
start_probe both lateness -c c1 -c c2 -P "$LXCP" --json &&
	start_probe only2 latency -c c2 -P "$LXCP" --threads --json ||
	{ fail "probes start"; finish; }
touch "$HCBS_TMP/go"
wait $p1 $p2 $p3
for p in both only2; do
	stop_probe $p
	check "$p exits 0" [ $? = 0 ]
done

o=$HCBS_TMP
echo "# both: $(json $o/both.out '[(c["name"], c["jobs"]) for c in d["containers"]]') threads $(json $o/both.out '[(t["comm"], t["container"]) for t in d["threads"]]')"
check "-c c1 -c c2: columns c1 and c2" \
	[ "$(json $o/both.out '" ".join(c["name"] for c in d["containers"])')" = "c1 c2" ]
check "-c c1 -c c2: each container has only its own thread" \
	[ "$(json $o/both.out '" ".join(sorted(t["comm"] + "@" + t["container"] for t in d["threads"]))')" = "perC1@c1 perC2@c2" ]
check "-c c1 -c c2: both had jobs" \
	[ "$(json $o/both.out 'all(c["jobs"] > 0 for c in d["containers"])')" = True ]
echo "# only2: $(json $o/only2.out '[(t["comm"], t["container"], t["count"]) for t in d["threads"]]')"
check "-c c2 --threads: perC2, and nothing of c1 or outside" \
	[ "$(json $o/only2.out '"perC2" in [t["comm"] for t in d["threads"]] and not any(t["comm"] in ("perC1", "perOut") for t in d["threads"])')" = True ]
check "-c c2: one column, c2" \
	[ "$(json $o/only2.out '" ".join(c["name"] for c in d["containers"])')" = c2 ]
finish
