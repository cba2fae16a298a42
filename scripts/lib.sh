# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the hcbs scripts.  Source it; do not run it.

HCBS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HCBS_CACHE=${HCBS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hcbs}
# Debian's linux-source-6.12 package: the version we build is recorded
# from its changelog into $HCBS_CACHE/src/VERSION.
HCBS_SRC_PKG=linux-source-6.12
HCBS_SRC_TARBALL=/usr/src/linux-source-6.12.tar.xz
HCBS_SRC=${HCBS_SRC:-$HCBS_CACHE/src/linux}
HCBS_VENV=$HCBS_CACHE/venv
HCBS_VNG_VERSION=1.42

hcbs_log() { printf '%s: %s\n' "${HCBS_PROG:-hcbs}" "$*" >&2; }
hcbs_die() { printf '%s: error: %s\n' "${HCBS_PROG:-hcbs}" "$*" >&2; exit 1; }

# hcbs_build_dir FLAVOUR RT -> output directory of that kernel build
hcbs_build_dir() {
	local d=$HCBS_CACHE/build-$1
	[ "$2" = 1 ] && d=$d-rt
	printf '%s\n' "$d"
}

hcbs_now() { date +%s.%N; }
hcbs_elapsed() { awk -v a="$1" -v b="$(hcbs_now)" 'BEGIN { printf "%.1f", b - a }'; }

# Kernel console lines that fail a run (scripts/vm-run) when they carry a
# printk timestamp: warnings, bugs, oopses, panics, lockdep, RCU stalls,
# hung tasks, lockups, sanitizer reports.
HCBS_SPLAT_RE='(WARNING:|BUG:|Oops|Kernel panic|general protection fault|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|rcu_sched self-detected stall|rcu: INFO:|detected stall|RCU stall|blocked for more than|soft lockup|hard LOCKUP|UBSAN:|KASAN:|kernel BUG|Call Trace:)'
