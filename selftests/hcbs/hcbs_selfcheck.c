// SPDX-License-Identifier: GPL-2.0
/*
 * hcbs-selfcheck: check the measuring helpers of hcbs_test.c against
 * what the stock kernel is known to do, on any kernel (stock or HCBS).
 * Not a test of HCBS: the runner does not pick it up (no test_ prefix).
 * Run it by hand in the guest:
 *
 *   scripts/vm-run -- $BUILD/selftests/hcbs/hcbs-selfcheck
 *
 * It prints, on CPU 1:
 *  - a lone root SCHED_FIFO hog's share by its CPU-time clock and by
 *    /proc/PID/schedstat (stock: sched_rt_runtime_us / sched_rt_period_us);
 *  - a lone SCHED_OTHER hog's share (~1.0);
 *  - on a cgroup v1 cpu hierarchy (when it can be mounted), a FIFO hog in a
 *    group with rt_runtime_us 30000 / rt_period_us 100000 (stock
 *    RT_GROUP_SCHED throttling: 0.3000);
 *  - the root domain's dl_bw->total_bw per CPU before and after a
 *    SCHED_DEADLINE task 0.1 is admitted and leaves.
 * Exit status 0 when every figure is where the stock kernel puts it.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "hcbs_test.h"

static int failures;

static void check(const char *what, double v, double want, double tol)
{
	bool ok = hcbs_values_close(v, want, tol);

	hcbs_note("%s: %.4f (expected %.4f +- %.4f)%s", what, v, want, tol,
		  ok ? "" : "  <-- MISMATCH");
	failures += !ok;
}

static void lone_hog(int policy, int prio, double want)
{
	struct hcbs_hog_spec spec = { .cpu = 1, .policy = policy, .prio = prio };
	struct hcbs_hog hog = { 0 };
	uint64_t c0, c1, s0, s1, t0, t1;
	const char *step = "";
	int err;

	err = hcbs_hog_start(&hog, &spec, &step);
	if (err) {
		hcbs_note("hog: %s: %s", step, strerror(-err));
		failures++;
		return;
	}
	hcbs_sleep_ms(300);
	t0 = hcbs_now_ns();
	hcbs_proc_cputime_ns(hog.pid, &c0);
	hcbs_schedstat_ns(hog.pid, &s0);
	hcbs_sleep_until_ns(t0 + 3000 * HCBS_NSEC_PER_MSEC);
	t1 = hcbs_now_ns();
	hcbs_proc_cputime_ns(hog.pid, &c1);
	hcbs_schedstat_ns(hog.pid, &s1);
	hcbs_note("%s hog alone on CPU 1 over %.3f s; longest time off the CPU %.3f ms, longest stall %.3f ms",
		  policy == SCHED_FIFO ? "root FIFO" : "CFS", (t1 - t0) / 1e9,
		  hog.shm->max_gap_ns / 1e6, hog.shm->stalls.max_ns / 1e6);
	check("  share by CPU-time clock", (double)(c1 - c0) / (t1 - t0), want, 0.01);
	check("  share by schedstat", (double)(s1 - s0) / (t1 - t0), want, 0.01);
	hcbs_hog_stop(&hog);
}

static void v1_group(void)
{
	char mnt[512], g[600];
	struct hcbs_hog_spec spec = { .cpu = 1, .policy = SCHED_FIFO, .prio = 10 };
	struct hcbs_hog hog = { 0 };
	const char *step = "";
	double share;
	int err;

	snprintf(mnt, sizeof(mnt), "%s/selfcheck-v1cpu", hcbs_tmp_dir());
	mkdir(mnt, 0755);
	if (mount("none", mnt, "cgroup", 0, "cpu")) {
		hcbs_note("v1 cpu hierarchy: mount: %s (skipped)", strerror(errno));
		rmdir(mnt);
		return;
	}
	snprintf(g, sizeof(g), "%s/selfcheck", mnt);
	hcbs_cg_destroy(g);
	if (hcbs_cg_create(g) ||
	    hcbs_cg_write(g, "cpu.rt_period_us", "100000") ||
	    hcbs_cg_write(g, "cpu.rt_runtime_us", "30000")) {
		hcbs_note("v1 group setup failed: %s", strerror(errno));
		failures++;
		goto out;
	}
	spec.cgroup = g;
	err = hcbs_hog_start(&hog, &spec, &step);
	if (err) {
		hcbs_note("v1 hog: %s: %s", step, strerror(-err));
		failures++;
		goto out;
	}
	hcbs_sleep_ms(300);
	hcbs_note("v1 group rt_runtime_us 30000 rt_period_us 100000, FIFO hog on CPU 1, 3 s");
	if (!hcbs_measure_shares(&hog.pid, 1, 3000, &share))
		check("  share", share, 0.3, 0.01);
	hcbs_hog_stop(&hog);
out:
	if (hcbs_cg_destroy(g))
		failures++;
	err = hcbs_cg1_umount(mnt, 30000);
	if (err) {
		hcbs_note("v1 cpu hierarchy still bound after umount: %s", strerror(-err));
		failures++;
	}
}

static void dl_bw(void)
{
	struct hcbs_hog_spec spec = { .cpu = -1, .policy = SCHED_OTHER, .sleeper = true };
	long long b0[HCBS_MAX_CPUS], b1[HCBS_MAX_CPUS], b2[HCBS_MAX_CPUS];
	struct hcbs_hog hog = { 0 };
	const char *step = "";
	int n, cpu, err;

	n = hcbs_dl_total_bw(b0, HCBS_MAX_CPUS);
	if (n <= 0) {
		hcbs_note("no dl_bw->total_bw in debugfs: %s", strerror(-n));
		failures++;
		return;
	}
	err = hcbs_hog_start(&hog, &spec, &step);
	if (!err)
		err = hcbs_set_deadline(hog.pid, 100 * HCBS_NSEC_PER_MSEC,
					HCBS_NSEC_PER_SEC, HCBS_NSEC_PER_SEC);
	hcbs_note("SCHED_DEADLINE 100/1000 ms sleeper: %s", err ? strerror(-err) : "admitted");
	failures += !!err;
	hcbs_dl_total_bw(b1, HCBS_MAX_CPUS);
	hcbs_hog_stop(&hog);
	hcbs_sleep_ms(100);
	hcbs_dl_total_bw(b2, HCBS_MAX_CPUS);
	for (cpu = 0; cpu < n; cpu++) {
		hcbs_note("CPU %d: dl_bw->total_bw %lld, with the task %lld (+%.4f), after %lld",
			  cpu, b0[cpu], b1[cpu], (double)(b1[cpu] - b0[cpu]) / HCBS_BW_UNIT,
			  b2[cpu]);
		failures += b2[cpu] != b0[cpu] || b1[cpu] <= b0[cpu];
	}
	hcbs_note("free per-CPU bandwidth: global %.4f - %.4f held",
		  hcbs_rt_global_bw(), (double)b0[0] / HCBS_BW_UNIT / hcbs_nr_cpus());
}

int main(void)
{
	const char *reason = "";

	if (hcbs_nr_cpus() < 2) {
		printf("hcbs-selfcheck: needs 2 CPUs\n");
		return 4;
	}
	hcbs_pin_cpu(0, 0);
	hcbs_note("kernel is %sHCBS (%s)", hcbs_probe_kernel(&reason) == 1 ? "" : "not ",
		  reason);
	hcbs_note("sched_rt_runtime_us / sched_rt_period_us = %.4f", hcbs_rt_global_bw());
	lone_hog(SCHED_FIFO, 50, hcbs_rt_global_bw());
	lone_hog(SCHED_OTHER, 0, 1.0);
	v1_group();
	dl_bw();
	hcbs_note("%d mismatches", failures);
	return failures ? 1 : 0;
}
