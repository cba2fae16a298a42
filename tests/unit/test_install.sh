#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What `meson install` puts in place, in a scratch DESTDIR: the programs,
# the hooks and the root-share helper, the systemd unit, every man page of
# docs/ (a page that is written but not installed fails), each free of
# groff warnings, and every program that an installed --help shows in its
# examples.  TAP.
#
# Usage: test_install.sh BUILD_ROOT SOURCE_ROOT PREFIX BINDIR LIBEXECDIR MANDIR UNITDIR PROBES
set -u
BUILD=$1 SRC=$2 PREFIX=$3 BINDIR=$4 LIBEXECDIR=$5 MANDIR=$6 UNITDIR=$7 PROBES=$8
T=$(mktemp -d /tmp/hcbs-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
n=0 failed=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
abs() { case $1 in /*) echo "$1" ;; *) echo "$PREFIX/$1" ;; esac; }
D=$T/dest
BIN=$D$(abs "$BINDIR") LIBEXEC=$D$(abs "$LIBEXECDIR")/hcbs MAN=$D$(abs "$MANDIR")

echo "TAP version 13"
meson install -C "$BUILD" --destdir "$D" --no-rebuild >"$T/log" 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$T/log" | tail -20
ok $rc "meson install --destdir"

progs="$BIN/hcbsctl $LIBEXEC/hcbs-hook $LIBEXEC/hcbs-oci-hook $LIBEXEC/hcbs-root-share"
[ "$PROBES" = true ] && progs+=" $BIN/hcbstrace $BIN/plot-lateness-cdf"
for p in $progs; do
	[ -f "$p" ] && [ -x "$p" ]
	ok $? "installed and executable: ${p#"$D"}"
done
if [ "$UNITDIR" != no ]; then
	u=$D$(abs "$UNITDIR")/hcbs-root-share.service
	[ -f "$u" ] && grep -qx "ExecStart=$(abs "$LIBEXECDIR")/hcbs/hcbs-root-share" "$u"
	ok $? "the unit, running the installed helper: ${u#"$D"}"
	c=$D$(abs "$UNITDIR")/system.slice.d/hcbs-cpu-controller.conf
	[ -f "$c" ] && grep -qx 'CPUWeight=100' "$c"
	ok $? "the drop-in that keeps the cpu controller on: ${c#"$D"}"
fi

# Every page of docs/ is installed (the probes' pages only with them).
for page in "$SRC"/docs/*.[1-8]; do
	name=$(basename "$page")
	case $name in hcbstrace.1|plot-lateness-cdf.1) [ "$PROBES" = true ] || continue ;; esac
	sec=${name##*.}
	[ -f "$MAN/man$sec/$name" ] && cmp -s "$page" "$MAN/man$sec/$name"
	ok $? "man page installed: man$sec/$name"
	if command -v man >/dev/null && command -v groff >/dev/null; then
		LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z \
			"$MAN/man$sec/$name" >/dev/null 2>"$T/warn"
		[ ! -s "$T/warn" ]
		rc=$?
		sed 's/^/# /' "$T/warn"
		ok $rc "$name: no groff warning"
	fi
done

# The programs an installed --help shows in its examples are installed.
if [ "$PROBES" = true ]; then
	for c in latency lateness servers; do
		"$BIN/hcbstrace" $c --help 2>/dev/null |
			sed -n '/^Examples:/,$p' | sed -n 's/^  \([^ ]*\).*/\1/p' | sort -u >"$T/named"
		missing=
		while read -r p; do
			[ -x "$BIN/$p" ] || missing+=" $p"
		done <"$T/named"
		[ -s "$T/named" ] && [ -z "$missing" ]
		ok $? "hcbstrace $c --help: the programs its examples run are installed ($(tr '\n' ' ' <"$T/named"))${missing:+; missing:$missing}"
	done
fi
echo "1..$n"
[ "$failed" = 0 ]
