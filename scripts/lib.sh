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

# hcbs_build_dir FLAVOUR RT [STOCK] -> output directory of that kernel build
hcbs_build_dir() {
	local d=$HCBS_CACHE/build-$1
	[ "$2" = 1 ] && d=$d-rt
	[ "${3:-0}" = 1 ] && d=$d-stock
	printf '%s\n' "$d"
}

hcbs_now() { date +%s.%N; }
hcbs_elapsed() { awk -v a="$1" -v b="$(hcbs_now)" 'BEGIN { printf "%.1f", b - a }'; }

# hcbs_timing_clock CLOCK VM-RUN-ARGS... -> the --clock of scripts/vm-run
# for a timing run: CLOCK itself if it is host or virtual; for auto,
# virtual when the guest would run under TCG (vm-run --print-accel with
# VM-RUN-ARGS: --accel, --kernel, --flavour), host (under KVM: the
# hardware's clock) otherwise.
hcbs_timing_clock() {
	local clock=$1 accel
	shift
	case $clock in
	host|virtual) echo "$clock"; return 0 ;;
	auto) ;;
	*) hcbs_die "clock '$clock' is not auto, virtual or host" ;;
	esac
	accel=$("$HCBS_ROOT/scripts/vm-run" "$@" --print-accel 2>/dev/null) || accel=tcg
	if [ "$accel" = kvm ]; then echo host; else echo virtual; fi
}

# hcbs_ccache_env BASEDIR: the environment of every kernel build's ccache
# ("ccache gcc"): the cache in $HCBS_CACHE/ccache unless CCACHE_DIR says
# otherwise, paths hashed relative to BASEDIR (so that trees laid out the
# same way elsewhere share entries), and the depend mode: a miss compiles
# once with the kernel's own -MMD instead of running the preprocessor
# first, which made a cold cache 22 % slower than no cache (kernel/ and
# mm/ of the distro flavour, 420 objects: 486 s against 398 s without
# ccache and 376 s in depend mode; 2026-12-08).  A cold cache is what a
# fresh machine, CI's, has.
hcbs_ccache_env() {
	export CCACHE_DIR=${CCACHE_DIR:-$HCBS_CACHE/ccache}
	export CCACHE_BASEDIR=$1 CCACHE_NOHASHDIR=1 CCACHE_DEPEND=1
	export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
}

# hcbs_wall_budget CLOCK SECONDS -> a host-side timeout for SECONDS of
# guest time on CLOCK: the same on the host's clock; three times as much
# on the virtual clock, where a busy guest second takes 2-3 s of wall
# time (the vCPUs take turns on one host thread).
hcbs_wall_budget() {
	if [ "$1" = virtual ]; then echo $(($2 * 3)); else echo "$2"; fi
}

# Kernel splats: console lines (with a printk timestamp, and the caller id
# of CONFIG_PRINTK_CALLER if any) that begin one of the kernel's own report
# formats.  Words alone are not enough: a sysrq t/l dump (run-guest asks for
# one when a test nears its timeout) prints "Call Trace:" and backtraces of
# every task without anything being wrong, and user space may print
# "WARNING:" or "BUG:" (without a timestamp).  Matched, after the prefix:
#   WARNING: CPU: N PID: N at ...          WARN_ON() and friends
#   WARNING: <lockdep banner>              circular/recursive locking,
#                                          inconsistent lock state, bad
#                                          unlock balance, suspicious RCU
#                                          usage, locks held at exit, ...
#   BUG: ...                               BUG: KASAN:, BUG: KFENCE:,
#                                          scheduling while atomic, NULL
#                                          pointer, sleeping function, ...
#   BUG CACHE (Not tainted): ...           SLUB debugging (slub_debug=):
#                                          double free, poison or redzone
#                                          overwritten, bad freelist
#   kernel BUG at FILE:LINE!               BUG_ON()
#   Oops: ...  /  <trap>: 0000 [#N]        oopses (new and old headers)
#   general protection fault ...
#   Kernel panic - not syncing: ...
#   rcu: INFO: rcu_preempt detected stalls / self-detected stall /
#             detected expedited stalls    RCU stalls (also rcu_tasks)
#   INFO: task COMM:PID blocked for more than N seconds   hung tasks
#   watchdog: BUG: soft lockup - CPU#N     soft lockups
#   watchdog: Watchdog detected hard LOCKUP   hard lockups
#   UBSAN: ...                             undefined behaviour reports
# tests/harness/test_splat_formats.sh feeds console logs of each kind (and
# of a sysrq dump, which must not match) to this expression.
HCBS_KMSG_PREFIX_RE='^\[ *[0-9]+\.[0-9]+\] (\[ *[CT][0-9]+\] )?'
HCBS_SPLAT_MSG_RE='(WARNING: CPU: [0-9]+ PID: [0-9]+ at |WARNING: (possible circular locking dependency detected|possible recursive locking detected|inconsistent lock state|possible irq lock inversion dependency detected|[A-Z]+-safe -> [A-Z]+-unsafe lock order detected|suspicious RCU usage|bad unlock balance detected|bad contention detected|held lock freed|lock held when returning to user space|lock held at task exit time|Nested lock was not taken|chain_key collision|.+ still has locks held)|BUG: |BUG [^ ]+ \((Not tainted|Tainted: [^)]*)\): |kernel BUG at |Oops: |[a-z0-9 ]+: [0-9a-f]{4} \[#[0-9]+\]|general protection fault|Kernel panic - not syncing|(rcu: )?INFO: [a-z_]+ (self-detected stall|detected (expedited )?stall)|INFO: task .+:[0-9]+ blocked for more than [0-9]+ seconds|watchdog: BUG: soft lockup|(NMI )?watchdog: Watchdog detected hard LOCKUP|UBSAN: )'
HCBS_SPLAT_RE=$HCBS_KMSG_PREFIX_RE$HCBS_SPLAT_MSG_RE

# hcbs_splat_lines LOG: the splat lines of a console log, in order (exit 1
# if there is none).
hcbs_splat_lines() { grep -aE "$HCBS_SPLAT_RE" "$1"; }
