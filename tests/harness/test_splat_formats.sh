#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The splat matcher (HCBS_SPLAT_RE in scripts/lib.sh, applied by
# scripts/vm-run) on console logs, without booting anything
# (vm-run --scan-log): every report format of the kernel fails the run
# and is named, a sysrq t/l dump (run-guest asks for one when a test nears
# its timeout: "Call Trace:" and backtraces of every task) and splat-like
# words printed by user space do not.  Also: which int3 at boot vm-run may
# boot again for (never once the command started, never after another
# splat), and that run-tests names the test a splat happened in.
# Console excerpts are from 6.12 (the formats of the printk calls in the
# kernel tree); tests/harness/consoles/sysrq-tl.log is a real dump from
# the qemu-flavour guest.
. "$(dirname "$0")/lib.sh"

cd "$HARNESS_TMP" || fail "no tmp dir"
scan() { "$HARNESS_ROOT/scripts/vm-run" --scan-log "$1" >"$1.out" 2>&1; }
boot='[    0.000000] Linux version 6.12.57-hcbs (root@host) #1 SMP PREEMPT_DYNAMIC
[    0.412345] smp: Bringing up secondary CPUs ...
[    1.234567] Run /usr/lib/virtme/virtme-init as init process
vm-run: guest up, running the command
[    5.000001] hcbs: run-guest: starting hcbs/test_hcbs_interface'

# splat NAME FIRST-LINE [MORE LINES]: a console with that report must fail
# with exit 125 and a verdict naming FIRST-LINE's message.
n=0
splat() {
	local name=$1 first=$2 msg
	shift 2
	{ echo "$boot"; echo "$first"; printf '%s\n' "$@"; echo "[   12.000000] hcbs: run-guest: finished hcbs/test_hcbs_interface rc=0"; } >"$name.log"
	scan "$name.log"
	local rc=$?
	msg=$(sed -E 's/^\[ *[0-9]+\.[0-9]+\] (\[ *[CT][0-9]+\] )?//' <<<"$first")
	[ $rc = 125 ] || { sed 's/^/# | /' "$name.log.out"; fail "$name: exit $rc, want 125 (a splat)"; }
	grep -qF "vm-run: FAIL: kernel splat in the guest console: $msg" "$name.log.out" ||
		{ sed 's/^/# | /' "$name.log.out"; fail "$name: the verdict does not name '$msg'"; }
	n=$((n + 1))
}
splat warn '[    6.100000] WARNING: CPU: 1 PID: 245 at kernel/sched/deadline.c:1234 dl_server_update+0x8c/0xa0' \
	'[    6.100001] Modules linked in:' '[    6.100002] CPU: 1 UID: 0 PID: 245 Comm: test_hcbs_inter Not tainted 6.12.57-hcbs #1' \
	'[    6.100010] Call Trace:' '[    6.100011]  <TASK>' '[    6.100020] ---[ end trace 0000000000000000 ]---'
splat warn_caller '[    6.100000] [  T245] WARNING: CPU: 0 PID: 245 at kernel/sched/rt.c:99 rt_server_pick+0x1/0x2'
splat bug_null '[    6.200000] BUG: kernel NULL pointer dereference, address: 0000000000000010' \
	'[    6.200001] #PF: supervisor read access in kernel mode' '[    6.200010] Oops: Oops: 0000 [#1] PREEMPT SMP NOPTI'
splat bug_atomic '[    6.200000] BUG: sleeping function called from invalid context at kernel/locking/mutex.c:585'
splat bug_sched '[    6.200000] BUG: scheduling while atomic: test_hcbs_accu/301/0x00000002'
splat kernel_bug '[    6.300000] kernel BUG at kernel/sched/deadline.c:411!' \
	'[    6.300001] Oops: invalid opcode: 0000 [#1] PREEMPT SMP NOPTI'
splat oops_int3 '[    6.400000] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI' \
	'[    6.500000] Kernel panic - not syncing: Fatal exception in interrupt'
splat oops_old '[    6.400000] general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] SMP'
splat panic '[    6.500000] Kernel panic - not syncing: hung_task: blocked tasks'
splat lockdep_circular '[    7.000001] WARNING: possible circular locking dependency detected' \
	'[    7.000002] 6.12.57-hcbs #1 Not tainted' '[    7.000003] ------------------------------------------------------'
splat lockdep_recursive '[    7.000001] WARNING: possible recursive locking detected'
splat lockdep_inconsistent '[    7.000001] WARNING: inconsistent lock state'
splat lockdep_order '[    7.000001] WARNING: HARDIRQ-safe -> HARDIRQ-unsafe lock order detected'
splat lockdep_held '[    7.000001] WARNING: test_hcbs_v1/412 still has locks held!'
splat lockdep_unlock '[    7.000001] WARNING: bad unlock balance detected!'
splat rcu_usage '[    7.000001] WARNING: suspicious RCU usage'
splat rcu_stall '[   30.000000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:' \
	'[   30.000001] rcu: 	1-...!: (0 ticks this GP) idle=1234/1/0x4000000000000000 softirq=5/5 fqs=0'
splat rcu_self '[   30.000000] rcu: INFO: rcu_preempt self-detected stall on CPU'
splat rcu_exp '[   30.000000] rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 1-... } 21003 jiffies s: 123 root: 0x2/.'
splat rcu_tasks '[   30.000000] INFO: rcu_tasks detected stalls on tasks:'
splat hung '[  150.000000] INFO: task kworker/1:2:88 blocked for more than 122 seconds.' \
	'[  150.000001]       Not tainted 6.12.57-hcbs #1' \
	'[  150.000002] "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.'
splat soft_lockup '[   50.000000] watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [hcbs-hog:501]'
splat hard_lockup '[   50.000000] watchdog: Watchdog detected hard LOCKUP on cpu 1'
splat slub_double_free '[    9.100000] BUG kmalloc-8 (Not tainted): Object already free' \
	'[    9.100001] -----------------------------------------------------------------------------' \
	'[    9.100002] Allocated in alloc_rt_sched_group+0x5e/0x1c0 age=12 cpu=1 pid=301'
splat slub_tainted '[    9.100000] BUG kmalloc-1k (Tainted: G        W         ): Poison overwritten'
splat kasan '[    8.000001] BUG: KASAN: slab-use-after-free in dl_server_stop+0x2c/0x80' \
	'[    8.000002] Read of size 8 at addr ffff888003a4b2c8 by task test_hcbs_fuzz/512'
splat ubsan '[    8.000000] UBSAN: shift-out-of-bounds in kernel/sched/rt.c:321:12'
splat double_fault '[  100.674100] Oops: double fault: 0000 [#1] PREEMPT SMP NOPTI' \
	'[  100.674110] CPU: 1 UID: 0 PID: 812 Comm: bash Not tainted 6.12.118-hcbs #1' \
	'[  100.674120] RIP: 0010:kmem_cache_alloc_lru_noprof+0x5a/0x3a0' \
	'[  100.674224] Call Trace:' '[  100.674226]  <TASK>' '[  100.674236]  __d_alloc+0x2b/0x260' \
	'[  100.674785] Kernel panic - not syncing: Fatal exception in interrupt'
diag "$n report formats: each fails the run (exit 125) and is named"

# A report that keeps only the end of vm-run's output still says where
# the guest died: the first splat's CPU, task and RIP, next to the verdict.
tail -4 double_fault.log.out | grep -qF 'vm-run: first splat: CPU: 1 UID: 0 PID: 812 Comm: bash' &&
	tail -4 double_fault.log.out | grep -qF 'vm-run: first splat: RIP: 0010:kmem_cache_alloc_lru_noprof+0x5a/0x3a0' ||
	{ sed 's/^/# | /' double_fault.log.out; fail "the verdict's last lines do not name the first splat's task and RIP"; }
diag "the verdict's last lines name the first splat's CPU, task and RIP"

# ---- not splats
clean() {	# NAME: the log NAME.log must scan clean
	scan "$1.log"
	local rc=$?
	[ $rc = 0 ] || { sed 's/^/# | /' "$1.log.out" | head -40; fail "$1: exit $rc, want 0 (no splat)"; }
}
{ echo "$boot"; cat "$HARNESS_ROOT/tests/harness/consoles/sysrq-tl.log"; } >sysrq.log
grep -q 'Call Trace:' sysrq.log || fail "the sysrq dump has no Call Trace: it tests nothing"
clean sysrq
diag "a sysrq t/l dump ($(grep -c 'Call Trace:' sysrq.log) Call Traces, $(wc -l <sysrq.log) lines) is not a splat"
{ echo "$boot"; cat <<'EOF'
WARNING: printed by a user program, not a splat
BUG: neither is this
Oops: a user program again
Kernel panic - not syncing: a test that prints the words
# WARNING: CPU: 0 PID: 1 at nowhere (quoted by a test, no timestamp)
[    9.000000] hcbs: run-guest: starting hcbs/test_oops_and_bug_words
[    9.000001] sched: RT throttling activated
[    9.000002] hcbs: run-guest: hcbs/test_x still running after 290 s: sysrq t, l follow
[    9.000003] sysrq: Show State
[    9.000004] NMI backtrace for cpu 1
[    9.000005] Showing all locks held in the system:
[    9.000006] hrtimer: interrupt took 2110823 ns
[    9.000007] clocksource: timekeeping watchdog on CPU1: Marking clocksource 'tsc' as unstable because the skew is too large:
[    9.000008] ACPI: WARNING: not a real kernel warning format
EOF
} >words.log
clean words
diag "splat-like words from user space, and ordinary kernel lines, are not splats"

# ---- the TCG int3 boot flake: retried only before the command started
printf '%s\n' '[    0.412345] smp: Bringing up secondary CPUs ...' \
	'[    0.512345] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI' '[    0.512346] Call Trace:' \
	'[    0.600000] Kernel panic - not syncing: Fatal exception' >flake.log
scan flake.log
grep -q '^vm-run: the TCG int3 boot flake' flake.log.out || { sed 's/^/# | /' flake.log.out; fail "an int3 at boot before the command is not the boot flake"; }
printf '%s\n' '[    2.165295] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI' '[    2.165980] RIP: 0010:sched_clock_cpu+0x9/0x190' \
	'[    2.168311] Oops: int3: 0000 [#2] PREEMPT SMP NOPTI' \
	'[    2.168652] Kernel panic - not syncing: Fatal exception in interrupt' >flake2.log
scan flake2.log
grep -q '^vm-run: the TCG int3 boot flake' flake2.log.out || { sed 's/^/# | /' flake2.log.out; fail "the int3 on both vCPUs at boot is not the boot flake"; }
{ echo "$boot"; echo '[    6.000000] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI'; } >late_int3.log
scan late_int3.log
[ $? = 125 ] && ! grep -q 'boot flake' late_int3.log.out || fail "an int3 after the command started would be retried"
printf '%s\n' '[    0.300000] WARNING: CPU: 0 PID: 1 at kernel/sched/core.c:1 x+0x1/0x2' \
	'[    0.512345] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI' >warn_int3.log
scan warn_int3.log
[ $? = 125 ] && ! grep -q 'boot flake' warn_int3.log.out || fail "an int3 after a WARNING would be retried"
printf '%s\n' '[    0.512345] BUG: unable to handle page fault for address: ffffffff81000000' \
	'[    0.512346] Oops: Oops: 0002 [#1] PREEMPT SMP NOPTI' >oops_boot.log
scan oops_boot.log
[ $? = 125 ] && ! grep -q 'boot flake' oops_boot.log.out || fail "another oops at boot would be retried"
diag "only an int3 oops (on one vCPU or both) before the command started is retried; a late int3, an int3 after a WARNING, other oopses fail"

# ---- QEMU dying on its own assertion at boot: retried only before the command
abort_line="qemu-system-x86_64: ../../hw/pci/msix.c:218: msix_table_mmio_write: Assertion \`addr + size <= dev->msix_entries_nr * PCI_MSIX_ENTRY_SIZE' failed."
printf '%s\n' '[    1.981116] pci 0000:00:07.0: BAR 4 [mem 0xfebe8000-0xfebebfff 64bit pref]' "$abort_line" >qabort.log
scan qabort.log
grep -q '^vm-run: QEMU aborted at boot' qabort.log.out || { sed 's/^/# | /' qabort.log.out; fail "a QEMU assertion at boot before the command is not retried"; }
{ echo "$boot"; echo "$abort_line"; } >late_qabort.log
scan late_qabort.log
! grep -q 'QEMU aborted' late_qabort.log.out || fail "a QEMU abort after the command started would be retried"
printf '%s\n' '[    0.300000] WARNING: CPU: 0 PID: 1 at kernel/sched/core.c:1 x+0x1/0x2' "$abort_line" >warn_qabort.log
scan warn_qabort.log
[ $? = 125 ] && ! grep -q 'QEMU aborted' warn_qabort.log.out || fail "a QEMU abort after a WARNING would be retried"
diag "a QEMU assertion before the command started is retried; after it, or after a kernel splat, it is not"

# ---- run-tests names the test that was running
. "$HARNESS_ROOT/scripts/lib.sh"
mkdir -p attr
cp warn.log attr/console
scan attr/console; cp attr/console.out attr/tap
(
	RESULTS=$HARNESS_TMP/attr; : >"$RESULTS/summary.tsv"
	. "$HARNESS_ROOT/scripts/results.sh"
	touch "$RESULTS/list" "$RESULTS/res" "$RESULTS/cases"
	echo "# empty" >"$RESULTS/manifest"
	HCBS_MANIFEST=$RESULTS/manifest collect_guest "$RESULTS/list" "$RESULTS/res" "$RESULTS/cases" \
		"$RESULTS/console" "$RESULTS/tap" 125 900
	summary
) >attr.out 2>&1 && fail "a splat did not fail the run"
grep -q '^FAIL  guest/kernel-splat (during hcbs/test_hcbs_interface: WARNING: CPU: 1 PID: 245 at kernel/sched/deadline.c' attr.out ||
	{ sed 's/^/# | /' attr.out; fail "run-tests does not name the test the splat happened in"; }
diag "run-tests names the test a splat happened in"
