#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host tests of hcbstrace's command line: help, one-line errors, exit
# codes.  Needs no privileges and loads no BPF.
HCBSTRACE=${1:?usage: test_cli.sh PATH-TO-hcbstrace PATH-TO-hcbstrace-testing}
TESTING=${2:?usage: test_cli.sh PATH-TO-hcbstrace PATH-TO-hcbstrace-testing}
n=0 failed=0

check() { # description, expected exit code, pattern on stdout+stderr, command...
	desc=$1 want=$2 pat=$3
	shift 3
	n=$((n + 1))
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && printf '%s\n' "$out" | grep -qE -- "$pat"; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		echo "# rc=$rc (want $want), output:"
		printf '%s\n' "$out" | sed 's/^/# /'
		failed=$((failed + 1))
	fi
}

echo "TAP version 13"
check "top-level help" 0 "latency" "$HCBSTRACE" --help
check "no command" 1 "Usage" "$HCBSTRACE"
check "unknown command" 1 "unknown command 'foo' \(accepted" "$HCBSTRACE" foo
for c in latency lateness servers; do
	check "$c --help has examples" 0 "Examples:" "$HCBSTRACE" $c --help
done
# The plotting example names the program as installed (bindir, beside
# hcbstrace), never a path of the source tree that a package lacks.
check "lateness --help names the installed plot-lateness-cdf" 0 \
	"^  plot-lateness-cdf vbbu1\.csv vbbu1\.png .*gnuplot" "$HCBSTRACE" lateness --help
n=$((n + 1))
if "$HCBSTRACE" lateness --help 2>&1 | grep -q "tools/"; then
	echo "not ok $n - lateness --help names no source-tree path"
	failed=$((failed + 1))
else
	echo "ok $n - lateness --help names no source-tree path"
fi
check "bad duration" 1 "^hcbstrace: latency: --duration: " "$HCBSTRACE" latency -d 10parsecs
check "bad --max-latency unit" 1 "^hcbstrace: latency: --max-latency: " "$HCBSTRACE" latency --max-latency 500
check "--pid not for servers" 1 "--pid does not apply to servers" "$HCBSTRACE" servers --pid 1
check "--csv not for latency" 1 "--csv does not apply to latency" "$HCBSTRACE" latency --csv x.csv
check "bad --max-lateness" 1 "max-lateness 'x'" "$HCBSTRACE" lateness --max-lateness x
check "deadline > period" 1 "--deadline must not exceed --period" "$HCBSTRACE" lateness --period 1ms --deadline 2ms
check "missing cgroup: exit 3 as hcbsctl" 3 "^hcbstrace: latency: cgroup /nonexistent/cg: " "$HCBSTRACE" latency -g /nonexistent/cg
check "not a cgroup: exit 3 as hcbsctl" 3 "is not a cgroup directory" "$HCBSTRACE" latency -g /tmp
# Issue 39: a pid that does not exist traced nothing, forever.
check "--pid of no process: one line, exit 3 as a missing cgroup" 3 \
	"^hcbstrace: latency: --pid 99999999: no such process \(expected the id of a running process\)$" \
	"$HCBSTRACE" latency -p 99999999
check "lateness --pid of no process: the same" 3 "^hcbstrace: lateness: --pid 4194304: no such process" \
	"$HCBSTRACE" lateness -p 4194304
check "--pid of a running process is accepted" 0 "^$" env HCBS_TEST_PARSE_ONLY=1 "$TESTING" latency -p $$
if command -v python3 >/dev/null; then
	python3 -c 'import threading, time; threading.Thread(target=time.sleep, args=(30,), daemon=True).start(); time.sleep(30)' &
	py=$!
	tid=
	for i in 1 2 3 4 5 6 7 8 9 10; do
		tid=$(ls /proc/$py/task 2>/dev/null | grep -vx "$py" | head -1)
		[ -n "$tid" ] && break
		sleep 0.2
	done
	check "--pid of a thread: refused, naming its process" 1 \
		"^hcbstrace: latency: --pid $tid is a thread of process $py: expected a process id \(--pid $py\)$" \
		"$HCBSTRACE" latency -p "$tid"
	kill $py 2>/dev/null
	wait $py 2>/dev/null
else
	n=$((n + 1)); echo "ok $n - --pid of a thread # SKIP no python3 to start threads"
fi
# Issue 39: a name with a newline or an ESC is escaped, in one line.
check "-c NAME with a newline and an ESC: one line, escaped" 3 \
	"^hcbstrace: latency: --container a\\\\nhcbstrace: forged\\\\x1b\\[31m: no container 'a\\\\nh" \
	"$HCBSTRACE" latency -c "$(printf 'a\nhcbstrace: forged\033[31m')"
check "bad count" 1 "count '0'" "$HCBSTRACE" latency 1s 0
check "too many arguments" 1 "unexpected argument" "$HCBSTRACE" latency 1s 2 3
check "long --comm" 1 "at most 15 characters" "$HCBSTRACE" lateness --comm abcdefghijklmnopq
check "bad ringbuf size" 1 "power of two" "$HCBSTRACE" lateness --ringbuf-size 3000
check "--version" 0 "^hcbstrace [0-9]" "$HCBSTRACE" --version
check "help COMMAND is COMMAND --help" 0 "^Usage: hcbstrace lateness" "$HCBSTRACE" help lateness
check "help of an unknown command" 1 "help: unknown command 'x'" "$HCBSTRACE" help x

# Issue 18: one duration grammar (tools/lib), bounded, nothing rounds to 0.
check "interval 2^64-1 ns refused (it used to spin forever)" 1 \
	"interval: duration '18446744073709551615ns' is too large: at most 8760h" \
	"$HCBSTRACE" latency -q 18446744073709551615ns
check "-d 2^64-1 ns refused (end_ns overflowed: stopped at once)" 1 \
	"--duration: duration '18446744073709551615ns' is too large" "$HCBSTRACE" latency -d 18446744073709551615ns
check "-d 0.0000000001 (no unit) refused" 1 "has no unit" "$HCBSTRACE" latency -d 0.0000000001
check "-d 0.0000000001s (rounds to 0) refused" 1 "not a whole number of nanoseconds" "$HCBSTRACE" latency -d 0.0000000001s
check "-d 0s refused" 1 "must be more than 0" "$HCBSTRACE" latency -d 0s
check "-d 0x2 refused" 1 "unknown unit 'x2'" "$HCBSTRACE" latency -d 0x2
check "-d 1e1 refused" 1 "unknown unit 'e1'" "$HCBSTRACE" latency -d 1e1
check "-d 10 refused as --period 10 is" 1 "duration '10' has no unit" "$HCBSTRACE" latency -d 10
check "--period 10: the same message" 1 "--period: duration '10' has no unit" "$HCBSTRACE" lateness --period 10
check "interval 1 (no unit) refused" 1 "interval: duration '1' has no unit" "$HCBSTRACE" servers 1
check "-P to a missing path: exit 3 as hcbsctl" 3 "LXC path /nonexistent" "$HCBSTRACE" latency -P /nonexistent -c x
# Every example of every --help is a valid command line (the one of
# latency used to end in "1", a duration without its unit): run by the test
# build, which stops once the command line is parsed.
T=$(mktemp -d /tmp/hcbstrace-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
for c in "" latency lateness servers; do
	# shellcheck disable=SC2086
	"$HCBSTRACE" $c --help | sed -n '/^Examples:/,/^$/s/^  hcbstrace //p' | sed 's/ *#.*//' >"$T/examples"
	check "hcbstrace $c --help has examples" 0 . cat "$T/examples"
	while read -r ex; do
		# Each is a line of shell: \$(pidof l1app), "> servers.json".
		printf 'cd "%s" || exit 99\npidof() { echo $$; }\nHCBS_TEST_PARSE_ONLY=1 "%s" %s\n' \
			"$T" "$TESTING" "$ex" >"$T/example.sh"
		check "--help example: hcbstrace $ex" 0 "^$" sh "$T/example.sh"
	done <"$T/examples"
done
# No cpu cgroup hierarchy mounted (a fake /proc of the test build whose
# mountinfo has no cgroup mount): exit 4 as hcbsctl get NAME, before the
# container is looked up, not 3 as for a name that does not exist.
mkdir -p "$T/nomount/self"
echo "21 1 0:19 / /proc rw - proc proc rw" >"$T/nomount/self/mountinfo"
echo "0::/" >"$T/nomount/self/cgroup"
for c in latency lateness servers; do
	check "$c -c NAME with no cpu cgroup hierarchy mounted: exit 4, one line" 4 \
		"^hcbstrace: $c: --container nosuch: no cpu cgroup hierarchy is mounted \(none in /proc/self/mountinfo\): expected cgroup2, or cgroup v1 with the cpu controller\$" \
		env HCBS_TEST_PROC="$T/nomount" "$TESTING" $c -P "$T" -c nosuch
done
n=$((n + 1))
if [ "$(env HCBS_TEST_PROC="$T/nomount" "$TESTING" latency -P "$T" -c nosuch 2>&1 | wc -l)" = 1 ]; then
	echo "ok $n - ... and that is the only line"
else
	echo "not ok $n - ... and that is the only line"
	failed=$((failed + 1))
fi
# With the hierarchy mounted, a name that does not exist stays exit 3.
check "-c of no container: exit 3" 3 "^hcbstrace: latency: --container nosuch: " \
	"$TESTING" latency -P "$T" -c nosuch
check "the installed hcbstrace has no test switch" 1 "^$" grep -aq HCBS_TEST_PARSE_ONLY "$HCBSTRACE"
# A cgroup v1 hierarchy of cpuset alone is not the cpu hierarchy.
cpuset=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpuset(,|$)/ && $NF !~ /(^|,)cpu(,|$)/ { print $5; exit }' /proc/self/mountinfo)
if [ -n "$cpuset" ]; then
	check "-g $cpuset is not the cpu hierarchy: exit 3" 3 "cgroup v1 hierarchy with the cpu controller" \
		"$HCBSTRACE" latency -g "$cpuset"
else
	n=$((n + 1)); echo "ok $n - -g on a cpuset-only v1 hierarchy # SKIP no such mount here"
fi
# SIGINT ends a run whose interval is long (where BPF can be loaded here).
if "$HCBSTRACE" latency -q -d 100ms >/dev/null 2>&1; then
	"$HCBSTRACE" latency -q 8760h >/dev/null 2>&1 &
	pid=$!
	sleep 1
	kill -INT $pid
	for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 $pid 2>/dev/null || break; sleep 0.5; done
	n=$((n + 1))
	if kill -0 $pid 2>/dev/null; then
		kill -KILL $pid
		echo "not ok $n - SIGINT ends hcbstrace latency with an 8760h interval"
		failed=$((failed + 1))
	else
		wait $pid
		rc=$?
		[ $rc = 0 ] && echo "ok $n - SIGINT ends hcbstrace latency with an 8760h interval" ||
			{ echo "not ok $n - SIGINT: exit $rc"; failed=$((failed + 1)); }
	fi
else
	n=$((n + 1)); echo "ok $n - SIGINT ends a long interval # SKIP cannot load BPF here (not root or no BTF)"
fi
# The installed program compiles in no test switch; the test build does.
n=$((n + 1))
if ! grep -aq HCBSTRACE_FORCE_RAW_TP "$HCBSTRACE" && grep -aq HCBSTRACE_FORCE_RAW_TP "$TESTING"; then
	echo "ok $n - HCBSTRACE_FORCE_RAW_TP is only in the test build"
else
	echo "not ok $n - HCBSTRACE_FORCE_RAW_TP: in hcbstrace $(grep -ac HCBSTRACE_FORCE_RAW_TP "$HCBSTRACE"), in hcbstrace-testing $(grep -ac HCBSTRACE_FORCE_RAW_TP "$TESTING")"
	failed=$((failed + 1))
fi
echo "1..$n"
[ $failed = 0 ]
