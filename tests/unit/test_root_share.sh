#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hcbs-root-share (the helper of hcbs-root-share.service) and the unit,
# with no guest: the configuration file read and refused line by line, the
# hcbsctl command it runs (a stub that records it) and its exit status
# passed on, the cgroup root found in /proc/self/mountinfo, then the real
# hcbsctl (its test build) setting the share on a fake root cgroup; the
# unit checked by systemd-analyze verify when there is one.  TAP.
#
# Usage: test_root_share.sh HELPER UNIT HCBSCTL_TESTING SOURCE_ROOT HELPER_INSTALLED_PATH
set -u
HELPER=$1 UNIT=$2 HCBSCTL=$3 SRC=$4 INSTALLED=$5
. "$(dirname "$0")/cli-lib.sh"

# A stub hcbsctl: its arguments in $T/args, its exit status from $T/rc.
STUB=$T/hcbsctl-stub
cat >"$STUB" <<STUB
#!/bin/sh
printf '%s\n' "\$*" >"$T/args"
rc=\$(cat "$T/rc" 2>/dev/null || echo 0)
[ "\$rc" = 0 ] || echo "hcbsctl: set \$2: refused for the test" >&2
exit \$rc
STUB
chmod +x "$STUB"
CONF=$T/root-share
R=$T/fake-root

helper() {	# helper EXPECTED-EXIT ARGS...: the helper with the stub
	rm -f "$T/args"
	run "$1" "$HELPER" --hcbsctl "$STUB" --config "$CONF" "${@:2}"
}
one_line() {	# stderr is one line of the helper's
	[ "$(wc -l <"$T/err")" = 1 ] && grep -q "^hcbs-root-share: " "$T/err"
}
not_run() { [ ! -e "$T/args" ]; }

echo "TAP version 13"
run 0 "$HELPER" --help && grep -q "share = 500ms/1s" "$T/out" && grep -q -- "--config FILE" "$T/out"
ok $? "--help: the file's format and the options"
grep -q "^config=/etc/hcbs/root-share$" "$HELPER" &&
	grep -qx "ConditionPathExists=/etc/hcbs/root-share" "$UNIT"
ok $? "the unit's condition is the helper's default file, /etc/hcbs/root-share"
grep -qx "ExecStart=$INSTALLED" "$UNIT" && grep -qx "Type=oneshot" "$UNIT" && grep -qx "RemainAfterExit=yes" "$UNIT"
ok $? "the unit runs the installed helper ($INSTALLED), oneshot, remaining active"

echo "share = 500ms/1s" >"$CONF"
helper 0 --cgroup "$R" && [ "$(cat "$T/args")" = "--cgroup $R set 500ms/1s" ] && [ ! -s "$T/err" ]
ok $? "share = 500ms/1s: runs 'hcbsctl --cgroup ROOT set 500ms/1s': $(cat "$T/args" 2>/dev/null)"
printf '# the share\n\n   share=250ms/1s   # a quarter\n\t\n' >"$CONF"
helper 0 --cgroup "$R" && [ "$(cat "$T/args")" = "--cgroup $R set 250ms/1s" ]
ok $? "comments, blank lines, blanks around '=' and a trailing comment"
printf 'share = 500ms/1s' >"$CONF"
helper 0 --cgroup "$R" && [ "$(cat "$T/args")" = "--cgroup $R set 500ms/1s" ]
ok $? "a last line without a newline is read"
echo "share = max" >"$CONF"
helper 0 --cgroup "$R" && [ "$(cat "$T/args")" = "--cgroup $R unset" ]
ok $? "share = max: runs 'hcbsctl --cgroup ROOT unset'"

# Refusals: one line with FILE:LINE and what is accepted, hcbsctl not run.
rm -f "$CONF"
helper 3 --cgroup "$R" && one_line && not_run &&
	grep -q "$CONF: no such file: nothing to apply (write 'share = RUNTIME/PERIOD' there" "$T/err"
ok $? "no configuration file: exit 3, nothing run: $(cat "$T/err")"
refused() {	# refused DESCRIPTION PATTERN CONTENT
	printf '%b' "$3" >"$CONF"
	helper 1 --cgroup "$R" && one_line && not_run && grep -q -- "$2" "$T/err"
	ok $? "$1: exit 1, one line, nothing run: $(cat "$T/err")"
}
refused "an unknown key" "$CONF:2: unknown key 'shares': accepted: share" '# x\nshares = 500ms/1s\n'
refused "a key given twice" "$CONF:3: share given again (first at line 1): give it once" 'share = 1ms/2ms\n\nshare = 2ms/4ms\n'
refused "no value" "$CONF:1: share has no value: expected RUNTIME/PERIOD (e.g. 500ms/1s) or max" 'share =\n'
refused "not KEY = VALUE" "$CONF:1: '500ms/1s' is not KEY = VALUE: accepted: share = RUNTIME/PERIOD or share = max" '500ms/1s\n'
refused "a value with blanks" "$CONF:1: share = 500ms / 1s: expected one RUNTIME/PERIOD" 'share = 500ms / 1s\n'
refused "no share line" "$CONF: no share line: expected share = RUNTIME/PERIOD" '# nothing yet\n\n'
refused "an empty file" "$CONF: no share line" ''
mkdir -p "$T/dir"
rm -f "$T/args"
run 1 "$HELPER" --hcbsctl "$STUB" --config "$T/dir" && one_line && not_run && grep -q "$T/dir: not a regular file" "$T/err"
ok $? "a directory as the file: exit 1: $(cat "$T/err")"
# Permissions, as a user that they bind (root is not bound by them).
as_user=
[ "$(id -u)" != 0 ] || as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
if [ -z "$as_user" ] || command -v setpriv >/dev/null; then
	echo "share = 500ms/1s" >"$T/dir/conf"
	chmod 755 "$T/dir"; chmod 000 "$T/dir/conf"
	rm -f "$T/args"
	run 5 $as_user "$HELPER" --hcbsctl "$STUB" --config "$T/dir/conf" && one_line && not_run &&
		grep -q "$T/dir/conf: permission denied (run as root)" "$T/err"
	ok $? "an unreadable file: exit 5: $(cat "$T/err")"
	chmod 644 "$T/dir/conf"; chmod 700 "$T/dir"
	run 5 $as_user "$HELPER" --hcbsctl "$STUB" --config "$T/dir/conf" && one_line && not_run &&
		grep -q "$T/dir/conf: permission denied: its directory $T/dir cannot be searched" "$T/err"
	ok $? "a file in a directory that cannot be searched: exit 5: $(cat "$T/err")"
	chmod 755 "$T/dir"
else
	n=$((n + 1))
	echo "ok $n - unreadable files # SKIP root without setpriv"
fi
run 1 "$HELPER" --bogus && one_line && grep -q "unexpected argument '--bogus' (accepted: --config FILE, --cgroup DIR, --hcbsctl PATH)" "$T/err"
ok $? "an unknown option: exit 1: $(cat "$T/err")"
run 1 "$HELPER" --config && one_line && grep -q -- "--config needs a value" "$T/err"
ok $? "an option without its value: exit 1: $(cat "$T/err")"

# hcbsctl's refusal: its line, then the helper's, with hcbsctl's status.
echo "share = 960ms/1s" >"$CONF"
for rc in 2 4 5; do
	echo $rc >"$T/rc"
	helper $rc --cgroup "$R" && [ "$(wc -l <"$T/err")" = 2 ] && head -1 "$T/err" | grep -q "^hcbsctl: " &&
		tail -1 "$T/err" | grep -q "^hcbs-root-share: $CONF:1: share = 960ms/1s not applied to $R (hcbsctl exit $rc, its reason above)$"
	ok $? "hcbsctl exits $rc: the helper exits $rc, after hcbsctl's line: $(tail -1 "$T/err")"
done
rm -f "$T/rc"

# The root of the cpu hierarchy from this machine's mountinfo: a cgroup v1
# mount with cpu, else the cgroup2 mount (python3 reads it independently).
want=$(python3 - <<'PY'
v1 = v2 = ""
for line in open("/proc/self/mountinfo"):
    pre, post = line.split(" - ", 1)
    f, p = pre.split(), post.split()
    if f[3] != "/":
        continue
    if p[0] == "cgroup" and "cpu" in p[2].split(",") and not v1:
        v1 = f[4]
    elif p[0] == "cgroup2" and not v2:
        v2 = f[4]
print(v1 or v2)
PY
)
echo "share = 500ms/1s" >"$CONF"
if [ -n "$want" ]; then
	helper 0 && [ "$(cat "$T/args")" = "--cgroup $want set 500ms/1s" ]
	ok $? "without --cgroup: the root of this machine's cpu hierarchy, $want"
else
	n=$((n + 1)); echo "ok $n - # SKIP no cpu cgroup hierarchy on this machine"
fi
# With no cpu hierarchy mounted: exit 4 and hcbsctl's line for that cause,
# nothing run.  In a private mount namespace without the cgroup mounts,
# where this runs as root and unshare is allowed.
NOCG="no cpu cgroup hierarchy is mounted (none in /proc/self/mountinfo): expected cgroup2, or cgroup v1 with the cpu controller"
if [ "$(id -u)" = 0 ] && unshare -m --propagation private true 2>/dev/null; then
	rm -f "$T/args"
	unshare -m --propagation private sh -c '
		grep -E " - cgroup2? " /proc/self/mountinfo | cut -d" " -f5 | sort -r |
			while read -r m; do umount -l "$m" || exit 1; done
		! grep -qE " - cgroup2? " /proc/self/mountinfo || exit 98
		"$@"' sh "$HELPER" --hcbsctl "$STUB" --config "$CONF" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" = 4 ] && one_line && not_run && grep -qxF "hcbs-root-share: $NOCG" "$T/err"
	ok $? "without --cgroup, with no cpu hierarchy mounted: exit 4 as hcbsctl, nothing run: rc $rc: $(cat "$T/err")"
else
	n=$((n + 1)); echo "ok $n - no cpu hierarchy mounted # SKIP needs root and unshare -m"
fi

# The real hcbsctl (its test build, which takes a plain directory for
# cgroupfs and the sysctls of cli-lib.sh) sets and unsets the share.
mkgroup "$R" "max 1000000"
mkgroup "$R/g1" "200000 1000000"
rm -f "$R/cpu.rt.stat"	# the root has no cpu.rt.stat
echo "share = 500ms/1s" >"$CONF"
run 0 "$HELPER" --hcbsctl "$HCBSCTL" --config "$CONF" --cgroup "$R" &&
	[ "$(cat "$R/cpu.rt.max")" = "500000 1000000" ] && grep -q "the root group's share: 0.500" "$T/out"
ok $? "with hcbsctl: the fake root's cpu.rt.max is '500000 1000000': $(cat "$T/out")"
echo "share = max" >"$CONF"
run 0 "$HELPER" --hcbsctl "$HCBSCTL" --config "$CONF" --cgroup "$R" && [ "$(cat "$R/cpu.rt.max")" = "max 1000000" ]
ok $? "with hcbsctl, share = max: back to 'max 1000000'"
echo "share = 8.5us/1s" >"$CONF"
run 1 "$HELPER" --hcbsctl "$HCBSCTL" --config "$CONF" --cgroup "$R" && [ "$(cat "$R/cpu.rt.max")" = "max 1000000" ] &&
	grep -q "^hcbsctl: " "$T/err" && grep -q "^hcbs-root-share: $CONF:1: share = 8.5us/1s not applied" "$T/err"
ok $? "with hcbsctl, a share hcbsctl refuses: its reason, nothing written: $(head -1 "$T/err")"

# The unit as systemd reads it: the helper it runs pointed at this build's,
# its Documentation= pages found among the sources' man pages.
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$T/unit" "$T/man/man1" "$T/man/man8"
	sed "s|^ExecStart=.*|ExecStart=$HELPER|" "$UNIT" >"$T/unit/hcbs-root-share.service"
	for p in "$SRC"/docs/*.1; do ln -s "$p" "$T/man/man1/"; done
	for p in "$SRC"/docs/*.8; do ln -s "$p" "$T/man/man8/"; done
	MANPATH=$T/man systemd-analyze verify "$T/unit/hcbs-root-share.service" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc = 0 ] && [ ! -s "$T/err" ]
	ok $? "systemd-analyze verify: clean (rc $rc)"
else
	n=$((n + 1))
	echo "ok $n - systemd-analyze verify # SKIP systemd-analyze not installed"
fi
echo "1..$n"
[ "$failed" = 0 ]
