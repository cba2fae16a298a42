#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The bash completion of hcbstrace (and hcbsctl's help COMMAND): what a
# few partial command lines complete to.  Needs the bash-completion package.
# Usage: test_completion.sh HCBSTRACE_COMPLETION HCBSCTL_COMPLETION
echo "TAP version 13"
BC=/usr/share/bash-completion/bash_completion
if [ ! -r "$BC" ]; then
	echo "1..0 # SKIP bash-completion not installed"
	exit 0
fi
# shellcheck disable=SC1090
. "$BC"
# shellcheck disable=SC1090
. "${1:?usage: test_completion.sh HCBSTRACE_COMPLETION HCBSCTL_COMPLETION}"
# shellcheck disable=SC1090
. "${2:?}"
n=0 failed=0
complete_line() {	# complete_line FUNCTION WORDS...: COMPREPLY, sorted, on one line
	local fn=$1
	shift
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	"$fn" 2>/dev/null
	[ ${#COMPREPLY[@]} = 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}
check() {	# check DESCRIPTION EXPECTED FUNCTION WORDS...
	local desc=$1 want=$2 got
	shift 2
	got=$(complete_line "$@")
	n=$((n + 1))
	if [ "$got" = "$want" ]; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc: got '$got', want '$want'"
		failed=$((failed + 1))
	fi
}
check "hcbstrace la -> latency lateness" "latency lateness " _hcbstrace hcbstrace la
check "hcbstrace --v -> --version" "--version " _hcbstrace hcbstrace --v
check "hcbstrace help -> the commands" "latency lateness servers " _hcbstrace hcbstrace help ""
check "hcbstrace lateness --cs -> --csv" "--csv " _hcbstrace hcbstrace lateness --cs
check "hcbstrace servers --pi: not for servers" "" _hcbstrace hcbstrace servers --pi
check "hcbstrace latency -d -> durations with units" "10s 1h 1m 30s 5m " _hcbstrace hcbstrace latency -d ""
check "hcbsctl help -> the commands" "analyze doctor free get list overhead set unset " _hcbsctl hcbsctl help ""
check "hcbsctl do -> doctor" "doctor " _hcbsctl hcbsctl do
echo "1..$n"
[ $failed = 0 ]
