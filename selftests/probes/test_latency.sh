#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hcbstrace latency, structure only (no absolute microseconds: QEMU):
# samples are seen, percentiles are ordered, the histogram adds up to the
# count, text and JSON agree on the format, the raw_tp fallback gives the
# same kind of result, and --max-latency stops with exit 2 and one line.
. "$(dirname "$0")/probes_lib.sh"
need_tools
echo "TAP version 13"

name=perlt$$
name=${name:0:15}
"$PERIODIC" -T 5000 -C 500 -n 1000000 -r 30 -N "$name" -l /dev/null &
load=$!

"$HCBSTRACE" latency --comm "$name" --threads --json -d 1s >"$HCBS_TMP/a.json" 2>"$HCBS_TMP/a.err"
check "latency --json -d 1 exits 0" [ $? = 0 ]
doc=$HCBS_TMP/a.json
echo "# $(json $doc '[(c["name"], c["count"], c["p50_ns"], c["p99_ns"], c["max_ns"]) for c in d["containers"]]')"
check "schema hcbstrace/1, command latency" \
	[ "$(json $doc 'd["schema"] + " " + d["command"]')" = "hcbstrace/1 latency" ]
check "samples seen" [ "$(json $doc 'sum(c["count"] for c in d["containers"]) > 0')" = True ]
check "min <= p50 <= p90 <= p99 <= p99.9 <= max" [ "$(json $doc 'all(
	c["min_ns"] <= c["p50_ns"] <= c["p90_ns"] <= c["p99_ns"] <= c["p999_ns"] <= c["max_ns"]
	for c in d["containers"] if c["count"])')" = True ]
check "histogram adds up to count" [ "$(json $doc 'all(
	sum(b[2] for b in c["histogram"]) == c["count"] for c in d["containers"] + d["threads"])')" = True ]
check "one thread, the workload" [ "$(json $doc '" ".join(t["comm"] for t in d["threads"])')" = "$name" ]
check "nothing dropped" [ "$(json $doc 'sum(d["drops"].values())')" = 0 ]

"$HCBSTRACE" latency --comm "$name" -d 1s 0.5s >"$HCBS_TMP/text" 2>&1
check "text output with an interval exits 0" [ $? = 0 ]
check "text output has the summary rows" grep -q "^p99.9:" "$HCBS_TMP/text"
check "text output reports drops" grep -q "^# dropped:" "$HCBS_TMP/text"
check "two interval tables and a total" [ "$(grep -c '^# hcbstrace latency' "$HCBS_TMP/text")" = 3 ]

HCBSTRACE_FORCE_RAW_TP=1 "$HCBSTRACE_TESTING" latency --comm "$name" --json -d 1s >"$HCBS_TMP/raw.json" 2>"$HCBS_TMP/raw.err"
check "raw_tp fallback exits 0" [ $? = 0 ]
check "raw_tp fallback was used" grep -q raw_tp "$HCBS_TMP/raw.err"
check "raw_tp fallback sees samples" \
	[ "$(json $HCBS_TMP/raw.json 'sum(c["count"] for c in d["containers"]) > 0')" = True ]

timeout 30 "$HCBSTRACE" latency --comm "$name" --max-latency 1ns -q >/dev/null 2>"$HCBS_TMP/thr.err"
rc=$?
sed 's/^/# /' "$HCBS_TMP/thr.err"
check "--max-latency 1ns stops with exit 2" [ $rc = 2 ]
check "--max-latency gives a one-line cause" \
	[ "$(grep -c 'latency .*us > --max-latency 1ns: tid' "$HCBS_TMP/thr.err")" = 1 ]
kill $load 2>/dev/null
wait $load 2>/dev/null
finish
