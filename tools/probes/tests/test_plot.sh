#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# plot-lateness-cdf on a small synthetic CSV: a PNG comes out, one curve
# per thread, and bad input is refused with one line.
PLOT=${1:?usage: test_plot.sh PATH-TO-plot-lateness-cdf}
echo "TAP version 13"
if ! command -v gnuplot >/dev/null; then
	echo "1..0 # SKIP gnuplot not installed"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
	echo "container,cgroup_id,pid,tid,comm,job,release_ns,wakeup_ns,start_ns,end_ns,response_ns,period_ns,deadline_ns,lateness,miss,late_start,release_src,run_ns,preemptions,no_switch,sleep_ns"
	for i in 1 2 3 4 5 6 7 8 9 10; do
		echo "vbbu1,7,10,11,l1,$i,0,0,0,0,0,1000,1000,-0.$i,0,0,timer,0,0,0,0"
		echo "vbbu1,7,10,12,l2,$i,0,0,0,0,0,1000,1000,0.0$i,1,0,timer,0,0,0,0"
	done
} >"$tmp/a.csv"
n=0 failed=0
t() { n=$((n + 1)); if eval "$2"; then echo "ok $n $1"; else echo "not ok $n $1"; failed=1; fi; }
t "plot by thread writes a PNG" '"$PLOT" "$tmp/a.csv" "$tmp/a.png" >/dev/null && [ "$(head -c 4 "$tmp/a.png" | tail -c 3)" = PNG ]'
t "plot by container" '"$PLOT" --by container "$tmp/a.csv" "$tmp/b.png" >/dev/null && [ -s "$tmp/b.png" ]'
t "two CSV files" '"$PLOT" "$tmp/a.csv" "$tmp/a.csv" "$tmp/c.png" >/dev/null && [ -s "$tmp/c.png" ]'
echo "x,y" >"$tmp/bad.csv"
t "a CSV that is not from hcbstrace is refused in one line" \
	'[ "$("$PLOT" "$tmp/bad.csv" "$tmp/d.png" 2>&1 | wc -l)" = 1 ] && ! [ -e "$tmp/d.png" ]'
t "the output must be a .png" '! "$PLOT" "$tmp/a.csv" "$tmp/out.svg" 2>/dev/null'
# Issue 18: a thread name with a comma, quoted by the writer, must not
# shift the columns (awk -F, read the deadline as the lateness: 10 misses).
{
	head -1 "$tmp/a.csv"
	for i in 1 2 3 4 5 6 7 8 9 10; do
		echo "vbbu1,7,10,13,\"l,1\",$i,0,0,0,0,0,1000,1000,-0.$i,0,0,timer,0,0,0,0"
		echo "vbbu1,7,10,14,\"q\"\"x\",$i,0,0,0,0,0,1000,1000,-0.$i,0,0,timer,0,0,0,0"
	done
} >"$tmp/comma.csv"
t "a quoted name with a comma keeps its columns" \
	'"$PLOT" "$tmp/comma.csv" "$tmp/e.png" >"$tmp/e.out" && grep -qx "l,1/13 (vbbu1): 10 jobs, 0 missed" "$tmp/e.out" &&
	 grep -qx "q\"x/14 (vbbu1): 10 jobs, 0 missed" "$tmp/e.out" && [ -s "$tmp/e.png" ]'
{ head -1 "$tmp/a.csv"; echo 'vbbu1,7,10,13,l,1,1,0,0,0,0,0,1000,1000,-0.1,0,0,timer,0,0,0,0'; } >"$tmp/shift.csv"
t "a row with an unquoted comma is refused in one line" \
	'[ "$("$PLOT" "$tmp/shift.csv" "$tmp/f.png" 2>&1 >/dev/null | wc -l)" = 1 ] &&
	 "$PLOT" "$tmp/shift.csv" "$tmp/f.png" 2>&1 | grep -q "line 2: 22 fields, expected 21" && ! [ -e "$tmp/f.png" ]'
# Figure 3's window: l in [-1, 1], the jobs beyond it counted in the label
{ head -1 "$tmp/a.csv"; for l in -0.5 0.5 1.5 2.5; do echo "vbbu1,7,10,11,l1,1,0,0,0,0,0,1000,1000,$l,0,0,timer,0,0,0,0"; done; } >"$tmp/tail.csv"
t "--xrange -1:1 counts the jobs beyond the window" \
	'"$PLOT" --xrange -1:1 "$tmp/tail.csv" "$tmp/g.png" >"$tmp/g.out" &&
	 grep -qx "l1/11 (vbbu1): 4 jobs, 3 missed, 2 beyond l = 1" "$tmp/g.out" && [ -s "$tmp/g.png" ]'
for r in 1:-1 1 a:b -1:1:2 "" 0:0; do
	t "--xrange '$r' is refused in one line" \
		'[ "$("$PLOT" --xrange "$r" "$tmp/a.csv" "$tmp/h.png" 2>&1 | wc -l)" = 1 ] && ! [ -e "$tmp/h.png" ]'
done
echo "1..$n"
exit $failed
