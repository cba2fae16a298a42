#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hcbstrace servers.  Without the HCBS tracepoints (a stock kernel) it must
# refuse with one clear line and exit 4 (as hcbsctl: no HCBS).  With them: a cgroup reserved
# 10ms/50ms runs a FIFO thread that wants 75% of a CPU, so its servers
# are replenished and throttled every period; the probe must see that, the
# reservation it reports must be the one set, and the budget used per
# period must be about Q, never far above.
. "$(dirname "$0")/probes_lib.sh"
need_tools
echo "TAP version 13"
HCBSCTL=$HCBS_BUILD/tools/hcbsctl/hcbsctl

if [ ! -d /sys/kernel/tracing/events/sched/sched_hcbs_server_start ] &&
   [ ! -d /sys/kernel/debug/tracing/events/sched/sched_hcbs_server_start ]; then
	"$HCBSTRACE" servers -d 1s >"$HCBS_TMP/out" 2>"$HCBS_TMP/err"
	rc=$?
	sed 's/^/# stderr: /' "$HCBS_TMP/err"
	check "servers exits 4 (no HCBS, as hcbsctl) without HCBS tracepoints" [ $rc = 4 ]
	check "with one line on stderr" [ "$(wc -l <"$HCBS_TMP/err")" = 1 ]
	check "that says why" grep -q "no HCBS tracepoints.*boot the hcbs kernel" "$HCBS_TMP/err"
	check "and prints nothing on stdout" [ ! -s "$HCBS_TMP/out" ]
	echo "ok $((ntest + 1)) servers on an HCBS kernel # SKIP kernel without sched_hcbs_server_* tracepoints"
	ntest=$((ntest + 1))
	finish
fi

[ -x "$HCBSCTL" ] || skip "hcbsctl not built"
[ "$(stat -fc %T "$CGROOT" 2>/dev/null)" = cgroup2fs ] || skip "no cgroup v2 at $CGROOT"
grep -qw cpu "$CGROOT/cgroup.subtree_control" ||
	echo +cpu >"$CGROOT/cgroup.subtree_control" || skip "cannot enable +cpu in $CGROOT"
CG=$CGROOT/hcbs-probesrv.$$
make_cgroup "$CG" || skip "cannot create $CG"
"$HCBSCTL" set --cgroup "$CG" 10ms/50ms
rc=$?
[ $rc = 4 ] && skip "hcbsctl: kernel without HCBS"
check "hcbsctl set 10ms/50ms" [ $rc = 0 ]

start_probe srv servers --cgroup "$CG" --json || { fail "servers starts"; finish; }
sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG" \
	"$PERIODIC" -T 20000 -C 15000 -n 100 -r 50 -a 0 -N perS -l /dev/null
check "periodic ran in the reservation" [ $? = 0 ]
stop_probe srv
check "servers exits 0" [ $? = 0 ]

doc=$HCBS_TMP/srv.out
echo "# $(json $doc '[{k: c[k] for k in ("name", "cpus", "runtime_ns", "period_ns", "periods", "used_per_period_avg_ns", "used_per_period_max_ns", "throttles", "replenishments")} for c in d["containers"]]')"
check "one column, the reserved cgroup" \
	[ "$(json $doc '" ".join(c["name"] for c in d["containers"])')" = "$(basename "$CG")" ]
c='d["containers"][0]'
check "reservation reported as set (Q 10ms, P 50ms)" \
	[ "$(json $doc "($c['runtime_ns'], $c['period_ns'])")" = "(10000000, 50000000)" ]
check "replenished" [ "$(json $doc "$c['replenishments'] > 0")" = True ]
check "throttled (the thread wants more than Q)" [ "$(json $doc "$c['throttles'] > 0")" = True ]
check "budget used per period is about Q (0.5 Q .. 1.5 Q on average)" \
	[ "$(json $doc "5000000 <= $c['used_per_period_avg_ns'] <= 15000000")" = True ]
check "nothing dropped" [ "$(json $doc 'd["drops"]["servers_full"]')" = 0 ]
finish
