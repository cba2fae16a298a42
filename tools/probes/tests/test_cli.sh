#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host tests of hcbstrace's command line: help, one-line errors, exit
# codes.  Needs no privileges and loads no BPF.
HCBSTRACE=${1:?usage: test_cli.sh PATH-TO-hcbstrace}
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
check "bad duration" 1 "^hcbstrace: latency: --duration: " "$HCBSTRACE" latency -d 10parsecs
check "bad --max-latency unit" 1 "^hcbstrace: latency: --max-latency: " "$HCBSTRACE" latency --max-latency 500
check "--pid not for servers" 1 "--pid does not apply to servers" "$HCBSTRACE" servers --pid 1
check "--csv not for latency" 1 "--csv does not apply to latency" "$HCBSTRACE" latency --csv x.csv
check "bad --max-lateness" 1 "max-lateness 'x'" "$HCBSTRACE" lateness --max-lateness x
check "deadline > period" 1 "--deadline must not exceed --period" "$HCBSTRACE" lateness --period 1ms --deadline 2ms
check "missing cgroup" 1 "^hcbstrace: latency: cgroup /nonexistent/cg: " "$HCBSTRACE" latency -g /nonexistent/cg
check "not a cgroup" 1 "is not a cgroup directory" "$HCBSTRACE" latency -g /tmp
check "bad count" 1 "count '0'" "$HCBSTRACE" latency 1 0
check "too many arguments" 1 "unexpected argument" "$HCBSTRACE" latency 1 2 3
check "long --comm" 1 "at most 15 characters" "$HCBSTRACE" lateness --comm abcdefghijklmnopq
check "bad ringbuf size" 1 "power of two" "$HCBSTRACE" lateness --ringbuf-size 3000
echo "1..$n"
[ $failed = 0 ]
