#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every option a selftest suite needs (selftests/<suite>/config) must be
# set in the kernel that the suites boot, so a test cannot silently skip
# or fail for want of a Kconfig option.
. "$(dirname "$0")/lib.sh"
need_kernel

config=${HARNESS_KERNEL%/arch/x86/boot/bzImage}/.config
bad=0 n=0
for frag in "$HARNESS_ROOT"/selftests/*/config; do
	[ -f "$frag" ] || continue
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) opt=${line%%=*} want=${line#*=} ;;
		"# CONFIG_"*" is not set") opt=${line#\# } opt=${opt%% *} want=n ;;
		*) continue ;;
		esac
		n=$((n + 1))
		got=$(grep -m1 -E "^($opt=|# $opt is not set)" "$config" || true)
		case $got in "$opt="*) got=${got#*=} ;; *) got=n ;; esac
		if [ "$got" != "$want" ]; then
			diag "${frag#"$HARNESS_ROOT"/}: $opt=$want, but the ${HCBS_FLAVOUR:-qemu} kernel has $got"
			bad=1
		fi
	done <"$frag"
done
[ $bad = 0 ] || fail "selftest config options missing from the kernel (add them to configs/qemu.config or Kconfig.fragment)"
diag "all $n options of selftests/*/config are set in $config"
