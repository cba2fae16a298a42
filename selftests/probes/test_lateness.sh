#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hcbstrace lateness against the ground truth: periodic logs its own
# release, start and end of every job, and every 10th job overruns (its
# response is 1.3 T, a deadline miss, and the next release is already past
# when it sleeps).  The probe, with no help from periodic, must see the
# same jobs, with response times within 1% of T for >= 99% of them, and
# exactly the same number of misses; its inferred period must be T.
. "$(dirname "$0")/probes_lib.sh"
need_tools
echo "TAP version 13"

name=perl$$
name=${name:0:15}
T=$((PERIOD_US * 1000))
jobs=$((SLOW ? 100 : 150))
echo "# period ${PERIOD_US}us, exec ${EXEC_US}us, $jobs jobs, accel ${HCBS_ACCEL:-?}"

start_probe lat lateness --comm "$name" --csv "$HCBS_TMP/probe.csv" --json ||
	{ fail "hcbstrace lateness starts"; finish; }
"$PERIODIC" -T "$PERIOD_US" -C "$EXEC_US" -n $jobs -e 10 -r 50 -N "$name" \
	-l "$HCBS_TMP/self.log"
rc=$?
[ $rc = 4 ] && skip "cannot run SCHED_FIFO"
check "periodic ran" [ $rc = 0 ]
sleep 0.2
stop_probe lat
check "hcbstrace lateness exits 0 on SIGINT" [ $? = 0 ]
head -c 300 "$HCBS_TMP/lat.err" | sed 's/^/# stderr: /'

# Join on the release time, which both take from the same timer.
summary=$(awk -v T=$T '
	FNR == NR { if ($1 !~ /^#/) { r[$2] = $5; m[$2] = $6; n++; sm += $6 } next }
	FNR == 1 { next }
	{
		split($0, f, ",")
		if (!(f[7] in r)) { extra++; next }
		matched++; d = f[11] - r[f[7]]; if (d < 0) d = -d
		if (d <= 0.01 * T) good++
		else if (bad++ < 5) printf "# job %s: probe r=%s, self r=%s\n", f[7], f[11], r[f[7]] > "/dev/stderr"
		if (d > maxd) maxd = d
		pm += f[15]
	}
	END { printf "%d %d %d %d %d %d %d\n", n, matched, extra + 0, good, pm, sm, maxd }
' "$HCBS_TMP/self.log" "$HCBS_TMP/probe.csv")
read -r n matched extra good pmiss smiss maxd <<<"$summary"
echo "# self: $n jobs, $smiss misses; probe: $matched matched, $extra unmatched, $pmiss misses"
echo "# response agreement: $good of $matched within 1% of T; worst difference ${maxd} ns"
check "probe saw >= 99% of the jobs ($matched of $n)" [ $((matched * 100)) -ge $((n * 99)) ]
check "no job the workload did not run ($extra)" [ "$extra" = 0 ]
check_timing ">= 99% of response times within 1% of T ($good of $matched)" \
	[ $((good * 100)) -ge $((matched * 99)) ]
check "miss counts equal (probe $pmiss, self $smiss)" [ "$pmiss" = "$smiss" ]
check "the workload missed on purpose ($smiss)" [ "$smiss" -ge $((jobs / 10 - 1)) ]

doc=$HCBS_TMP/lat.out
check "JSON schema hcbstrace/1" [ "$(json "$doc" 'd["schema"]')" = hcbstrace/1 ]
check "inferred period is T" [ "$(json "$doc" 'd["threads"][0]["period_ns"]')" = "$T" ]
check "JSON misses match the CSV" [ "$(json "$doc" 'sum(t["misses"] for t in d["threads"])')" = "$pmiss" ]
check "JSON max lateness > 0.25 (the overruns)" \
	[ "$(json "$doc" 'int(d["containers"][0]["lateness"]["max"] > 0.25)')" = 1 ]
echo "# drops: $(json "$doc" 'd["drops"]')"
check "nothing dropped" [ "$(json "$doc" 'sum(d["drops"].values()) - d["drops"]["wakeups_missed"]')" = 0 ]

# --max-lateness: the first overrun (l = 0.3) stops the probe, exit 2.
start_probe thr lateness --comm "$name" --period ${PERIOD_US}us --max-lateness 0.1 ||
	{ fail "hcbstrace lateness --max-lateness starts"; finish; }
"$PERIODIC" -T "$PERIOD_US" -C "$EXEC_US" -n 12 -e 5 -r 50 -N "$name" -l /dev/null
sleep 0.5
stop_probe thr
rc=$?
sed 's/^/# /' "$HCBS_TMP/thr.err"
check "--max-lateness 0.1 stops with exit 2" [ $rc = 2 ]
check "--max-lateness gives a one-line cause" \
	[ "$(grep -c '^hcbstrace: lateness: lateness 0\.[0-9]* > --max-lateness 0.1: tid' "$HCBS_TMP/thr.err")" = 1 ]
finish
