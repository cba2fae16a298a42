#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/build-deb makes a lintian-clean hcbs-tools .deb holding every
# program, hook, man page and completion, whose programs run from the
# extracted package against the system's libraries, and which apt installs,
# dependencies and all, into a clean Debian 12 (debootstrap minbase from the
# host's mirror, about 40 s), where they run too.  A package build takes a
# minute or more (it runs the unit tests once more); HCBS_TEST_DEB=0 leaves
# it out of a quick local run, HCBS_TEST_DEB_CHROOT=0 only the chroot.  A
# missing tool fails.
. "$(dirname "$0")/lib.sh"

[ "${HCBS_TEST_DEB:-1}" != 0 ] || skip "HCBS_TEST_DEB=0: the Debian package is not built"

# test_cli runs hcbsctl from the build as a non-root user (exit 5 checks):
# the path to the build copy must be searchable by others, which the
# 0700 directory of mktemp is not.
chmod go+x "$HARNESS_TMP"
out=$HARNESS_TMP/deb
"$HARNESS_ROOT/scripts/build-deb" --out "$out" >"$HARNESS_TMP/build.log" 2>&1
rc=$?
sed 's/^/# | /' "$HARNESS_TMP/build.log"
[ $rc = 0 ] || fail "scripts/build-deb failed (exit $rc)"
expect_in "$HARNESS_TMP/build.log" "^build-deb: lintian: clean$" "lintian did not run clean"

version=$(cd "$HARNESS_ROOT" && dpkg-parsechangelog -S Version)
deb=$out/hcbs-tools_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || fail "no $deb"
[ ! -e "$out/src" ] || fail "the build copy $out/src was left behind"

dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's|^\./|/|' >"$HARNESS_TMP/files"
for f in /usr/bin/hcbsctl /usr/bin/hcbstrace \
	 /usr/libexec/hcbs/hcbs-hook /usr/libexec/hcbs/hcbs-oci-hook \
	 /usr/share/containers/oci/hooks.d/hcbs.json \
	 /usr/share/man/man1/hcbsctl.1.gz /usr/share/man/man1/hcbstrace.1.gz \
	 /usr/share/man/man1/hcbs-oci-hook.1.gz /usr/share/man/man1/hcbs-hook.1.gz \
	 /usr/bin/plot-lateness-cdf /usr/share/man/man1/plot-lateness-cdf.1.gz \
	 /usr/share/bash-completion/completions/hcbsctl \
	 /usr/share/bash-completion/completions/hcbstrace \
	 /usr/share/doc/hcbs-tools/copyright \
	 /usr/share/doc/hcbs-tools/examples/example.conf \
	 /usr/libexec/hcbs/hcbs-root-share /lib/systemd/system/hcbs-root-share.service \
	 /lib/systemd/system/system.slice.d/hcbs-cpu-controller.conf \
	 /usr/share/man/man8/hcbs-root-share.8.gz \
	 /usr/share/doc/hcbs-tools/examples/root-share.example \
	 /usr/share/doc/hcbs-tools/examples/oci-hook.conf; do
	grep -qxF "$f" "$HARNESS_TMP/files" || fail "$f is not in the package"
done
# Nothing of the test machinery or the selftests is shipped.
! grep -E 'selftest|test_|/include/' "$HARNESS_TMP/files" ||
	fail "the package ships test files or headers"

depends=$(dpkg-deb -f "$deb" Depends)
diag "Depends: $depends"
for lib in libjansson4 liblxc1 libbpf1; do
	[[ $depends == *"$lib "* ]] || fail "Depends lacks $lib"
done

root=$HARNESS_TMP/root
dpkg -x "$deb" "$root" || fail "dpkg -x failed"
for p in hcbsctl hcbstrace; do
	v=$(env -u LD_LIBRARY_PATH "$root/usr/bin/$p" --version 2>&1) ||
		fail "the packaged $p --version failed: $v"
	[ "$v" = "$p $version" ] || fail "the packaged $p says '$v', not '$p $version'"
done
grep -qF '"path": "/usr/libexec/hcbs/hcbs-oci-hook"' \
	"$root/usr/share/containers/oci/hooks.d/hcbs.json" ||
	fail "hcbs.json does not point at /usr/libexec/hcbs/hcbs-oci-hook"
diag "$(basename "$deb"): $(wc -l <"$HARNESS_TMP/files") entries"

# Installed for real: a clean Debian 12 (debootstrap minbase from the
# host's Debian mirror) takes the package with apt, which must find every
# dependency the package names, and the installed programs run there.
# HCBS_TEST_DEB_CHROOT=0 leaves this out (no root, no mirror).
if [ "${HCBS_TEST_DEB_CHROOT:-1}" != 0 ]; then
	[ "$(id -u)" = 0 ] || fail "installing into a chroot needs root (HCBS_TEST_DEB_CHROOT=0 skips it)"
	command -v debootstrap >/dev/null || fail "debootstrap not installed (scripts/install-deps)"
	mirror=$(sed -n 's|^URIs: *\(http[^ ]*/debian\)$|\1|p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
	mirror=${mirror:-http://deb.debian.org/debian}
	chroot_dir=$HARNESS_TMP/chroot
	t0=$SECONDS
	debootstrap --variant=minbase bookworm "$chroot_dir" "$mirror" >"$HARNESS_TMP/debootstrap.log" 2>&1 ||
		{ tail -5 "$HARNESS_TMP/debootstrap.log" | sed 's/^/# | /'; fail "debootstrap of bookworm from $mirror failed"; }
	cp "$deb" "$chroot_dir/tmp/" && cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf" ||
		fail "cannot copy the package into the chroot"
	chroot "$chroot_dir" sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends /tmp/$(basename "$deb")" \
		>"$HARNESS_TMP/apt.log" 2>&1 ||
		{ tail -8 "$HARNESS_TMP/apt.log" | sed 's/^/# | /'; fail "apt-get install of the package into a clean bookworm failed"; }
	for p in hcbsctl hcbstrace; do
		v=$(chroot "$chroot_dir" "$p" --version 2>&1) || fail "installed $p --version failed: $v"
		[ "$v" = "$p $version" ] || fail "installed $p says '$v', not '$p $version'"
	done
	chroot "$chroot_dir" /usr/libexec/hcbs/hcbs-oci-hook --help >/dev/null 2>&1 ||
		fail "installed hcbs-oci-hook --help failed"
	diag "installed with apt into a clean bookworm (debootstrap minbase) in $((SECONDS - t0)) s; hcbsctl and hcbstrace --version run there"
	rm -rf "$chroot_dir"
fi
