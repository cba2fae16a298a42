#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The filters select exactly the right tasks.  Three periodic threads run
# in two cgroups, one of them nested: A (perA), A/sub (perA2) and B (perB).
# Four probes run at once:
#   lateness --cgroup A          -> perA and perA2, one column "A"
#   latency --cgroup B --threads -> perB's thread only
#   latency --cgroup A --cgroup B-> two columns, both with samples
#   lateness --pid <perB>        -> perB only
# A v2 cgroup's descendants fold into it; nothing else leaks in.
. "$(dirname "$0")/probes_lib.sh"
need_tools
[ "$(stat -fc %T "$CGROOT" 2>/dev/null)" = cgroup2fs ] || skip "no cgroup v2 at $CGROOT"
echo "TAP version 13"

A=$CGROOT/hcbs-probeA.$$ B=$CGROOT/hcbs-probeB.$$
make_cgroup "$A" && make_cgroup "$A/sub" && make_cgroup "$B" ||
	skip "cannot create cgroups under $CGROOT"
jobs=$((4000000 / PERIOD_US))	# 4 s

# run_in CGROUP NAME: periodic, moved into CGROUP before it starts.
run_in() {
	local cg=$1 name=$2
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" \
		"$PERIODIC" -T "$PERIOD_US" -C $((EXEC_US / 4)) -n "$jobs" -r 40 -N "$name" \
		-w "$HCBS_TMP/go" -l "$HCBS_TMP/$name.log" &
}

# The workloads wait for $HCBS_TMP/go: the probes start first, and --pid
# can name perB.
run_in "$B" perB
pidB=$!
run_in "$A" perA
pidA=$!
run_in "$A/sub" perA2
pidA2=$!
start_probe byA lateness --cgroup "$A" --json &&
	start_probe byB latency --cgroup "$B" --threads --json &&
	start_probe both latency --cgroup "$A" --cgroup "$B" --json &&
	start_probe bypid lateness --pid "$pidB" --json ||
	{ fail "probes start"; finish; }
touch "$HCBS_TMP/go"
wait $pidB $pidA $pidA2
for p in byA byB both bypid; do
	stop_probe $p
	check "$p exits 0" [ $? = 0 ]
done

o=$HCBS_TMP
echo "# byA threads: $(json $o/byA.out '[(t["comm"], t["container"], t["jobs"]) for t in d["threads"]]')"
check "--cgroup A: exactly perA and perA2" \
	[ "$(json $o/byA.out '" ".join(sorted(t["comm"] for t in d["threads"]))')" = "perA perA2" ]
check "--cgroup A: one column, named after A" \
	[ "$(json $o/byA.out '" ".join(c["name"] for c in d["containers"])')" = "$(basename "$A")" ]
check "--cgroup A: both threads had jobs" \
	[ "$(json $o/byA.out 'min(t["jobs"] for t in d["threads"]) > 0')" = True ]

echo "# byB threads: $(json $o/byB.out '[(t["comm"], t["tid"], t["count"]) for t in d["threads"]]')"
check "--cgroup B --threads: only perB's thread" \
	[ "$(json $o/byB.out '" ".join(sorted(set(t["comm"] for t in d["threads"])))')" = "perB" ]
check "--cgroup B --threads: the tid is perB's" \
	[ "$(json $o/byB.out '" ".join(str(t["tid"]) for t in d["threads"])')" = "$pidB" ]

echo "# both: $(json $o/both.out '[(c["name"], c["count"]) for c in d["containers"]]')"
check "two --cgroup filters: two columns with samples" \
	[ "$(json $o/both.out 'sum(1 for c in d["containers"] if c["count"] > 0)')" = 2 ]
check "two --cgroup filters: counts add up per column" \
	[ "$(json $o/both.out 'all(sum(b[2] for b in c["histogram"]) == c["count"] for c in d["containers"])')" = True ]

echo "# bypid threads: $(json $o/bypid.out '[(t["comm"], t["tid"]) for t in d["threads"]]')"
check "--pid: only perB" \
	[ "$(json $o/bypid.out '" ".join(t["comm"] for t in d["threads"])')" = "perB" ]
finish
