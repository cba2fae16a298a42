// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of hcbstrace's arithmetic (TAP). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../stats.h"

static int nr, failed;

static void ok(int cond, const char *what)
{
	nr++;
	if (!cond)
		failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", nr, what);
}

static void test_slots(void)
{
	int good = 1;

	/* Every slot's bounds map back to the slot, and slots tile [0, inf). */
	for (unsigned int i = 0; i < HCBS_NSLOTS; i++) {
		uint64_t lo = hist_slot_lower(i), hi = hist_slot_upper(i);

		if (hist_slot_of(lo) != i || (i < HCBS_NSLOTS - 1 && hist_slot_of(hi - 1) != i) ||
		    (i && hist_slot_upper(i - 1) != lo))
			good = 0;
		/* no slot wider than 1/16 of its lower bound (above 16 ns) */
		if (i >= HCBS_SUB && i < HCBS_NSLOTS - 1 && (hi - lo) * 16 > lo)
			good = 0;
	}
	ok(good, "histogram slots tile the range, each at most 6.25% wide");
	ok(hist_slot_of(0) == 0 && hist_slot_of(15) == 15 && hist_slot_of(16) == 16 &&
	   hist_slot_of(31) == 31 && hist_slot_of(32) == 32 && hist_slot_of(34) == 33,
	   "small values land in the expected slots");
	ok(hist_slot_of(UINT64_MAX) == HCBS_NSLOTS - 1 &&
	   hist_slot_of(1ull << 36) == HCBS_NSLOTS - 1, "huge values go to the last slot");
}

static void add(struct uhist *h, uint64_t v)
{
	if (!h->count || v < h->min_ns)
		h->min_ns = v;
	if (v > h->max_ns)
		h->max_ns = v;
	h->count++;
	h->sum_ns += v;
	h->slots[hist_slot_of(v)]++;
}

static void test_percentiles(void)
{
	static struct uhist h;
	uint64_t p50, p99, p999;

	memset(&h, 0, sizeof(h));
	ok(uhist_percentile(&h, 0.5) == 0, "percentile of an empty histogram is 0");
	/* 1..1000 us */
	for (uint64_t v = 1; v <= 1000; v++)
		add(&h, v * 1000);
	p50 = uhist_percentile(&h, 0.5);
	p99 = uhist_percentile(&h, 0.99);
	p999 = uhist_percentile(&h, 0.999);
	printf("# p50=%llu p99=%llu p999=%llu\n", (unsigned long long)p50,
	       (unsigned long long)p99, (unsigned long long)p999);
	ok(p50 >= 500000 && p50 <= 500000 * 1.0625, "p50 within one slot above the truth");
	ok(p99 >= 990000 && p99 <= 1000000, "p99 within one slot, capped at max");
	ok(p999 == 1000000 && uhist_percentile(&h, 1.0) == 1000000, "p99.9 and p100 are max");

	memset(&h, 0, sizeof(h));
	add(&h, 7);
	ok(uhist_percentile(&h, 0.5) == 7, "a single small sample is exact");
}

/* A sample as the BPF side adds it to its copy of a histogram. */
static void bpf_add(struct hcbs_hist *h, uint64_t v, uint32_t tid)
{
	if (!h->count || v < h->min_ns)
		h->min_ns = v;
	if (v > h->max_ns) {
		h->max_ns = v;
		h->max_tid = tid;
	}
	h->slots[hist_slot_of(v)]++;
	h->count++;
	h->sum_ns += v;
}

static void test_copies(void)
{
	static struct hcbs_hist cpu[3];
	static struct uhist u;
	char comm[HCBS_COMM_LEN] = "";
	uint64_t slots = 0;

	/* CPU 1 saw nothing: its copy is all zero, min_ns included. */
	memset(cpu, 0, sizeof(cpu));
	memset(&u, 0, sizeof(u));
	bpf_add(&cpu[0], 500, 11);
	bpf_add(&cpu[0], 9000, 11);
	bpf_add(&cpu[2], 300, 22);
	bpf_add(&cpu[2], 20000, 22);
	bpf_add(&cpu[2], 20000, 33);
	snprintf(cpu[2].comm, sizeof(cpu[2].comm), "worker");
	uhist_add_copies(&u, comm, cpu, 3);
	for (unsigned int i = 0; i < HCBS_NSLOTS; i++)
		slots += u.slots[i];
	ok(u.count == 5 && slots == 5 && u.sum_ns == 49800,
	   "per-CPU copies: counts, slots and sums add up");
	ok(u.min_ns == 300 && u.max_ns == 20000 && u.max_tid == 22,
	   "per-CPU copies: min ignores an empty CPU, max keeps its thread");
	ok(!strcmp(comm, "worker"), "per-CPU copies: the name comes from the copy that has one");
	ok(uhist_percentile(&u, 0.5) >= 9000 && uhist_percentile(&u, 0.5) <= 9000 * 1.0625,
	   "per-CPU copies: percentiles over all CPUs");

	memset(cpu, 0, sizeof(cpu));
	memset(&u, 0, sizeof(u));
	uhist_add_copies(&u, comm, cpu, 3);
	ok(u.count == 0 && !strcmp(comm, "worker"),
	   "per-CPU copies: all empty add nothing and keep the name");

	memset(cpu, 0, sizeof(cpu));
	memset(&u, 0, sizeof(u));
	bpf_add(&cpu[0], 1000, 7);
	snprintf(cpu[0].comm, sizeof(cpu[0].comm), "vbbu");
	bpf_add(&cpu[1], 2000, 7);
	bpf_add(&cpu[1], 2000, 7);
	snprintf(cpu[1].comm, sizeof(cpu[1].comm), "ru-thread");
	uhist_add_copies(&u, comm, cpu, 3);
	ok(!strcmp(comm, "ru-thread"), "per-CPU copies: a renamed thread gets the name of most samples");
}

static void test_median_period(void)
{
	uint64_t odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };
	uint64_t rel[] = { 1000, 2000, 3000, 4000, 6000, 7000 };	/* one lost job */
	uint64_t one[] = { 42 };

	ok(median_u64(odd, 3) == 3 && median_u64(even, 4) == 2, "median of odd and even sets");
	ok(infer_period(rel, 6) == 1000, "period: median gap ignores a lost job");
	ok(infer_period(one, 1) == 0, "period: one release is not enough");
}

static void test_jobs(void)
{
	struct job_result r;

	job_evaluate(1000, 1100, 1500, 1000, 0, &r);
	ok(r.response_ns == 500 && fabs(r.lateness + 0.5) < 1e-12 && !r.miss && !r.late_start,
	   "job finishing at half the period: l = -0.5, no miss");
	job_evaluate(1000, 1100, 2300, 1000, 0, &r);
	ok(r.response_ns == 1300 && fabs(r.lateness - 0.3) < 1e-12 && r.miss,
	   "job finishing 30% late: l = 0.3, a miss");
	job_evaluate(1000, 2100, 2200, 1000, 0, &r);
	ok(r.late_start && r.miss, "job starting after its deadline is a late start");
	job_evaluate(1000, 1000, 2000, 1000, 0, &r);
	ok(!r.miss && r.lateness == 0.0, "r = D exactly is not a miss");
	job_evaluate(0, 0, 600, 1000, 500, &r);
	ok(r.miss && fabs(r.lateness - 0.1) < 1e-12, "constrained deadline: l = (r - D) / T");
}

static void test_quantiles_csv(void)
{
	double v[] = { 0.3, -0.5, 0.1, -0.2 };
	char buf[64];

	sort_doubles(v, 4);
	ok(v[0] == -0.5 && v[3] == 0.3, "sort doubles");
	ok(quantile_sorted(v, 4, 0.5) == -0.2 && quantile_sorted(v, 4, 1.0) == 0.3 &&
	   quantile_sorted(v, 4, 0) == -0.5, "nearest-rank quantiles");
	ok(isnan(quantile_sorted(v, 0, 0.5)), "quantile of nothing is NaN");
	csv_field(buf, sizeof(buf), "plain");
	ok(!strcmp(buf, "plain"), "CSV: plain field unquoted");
	csv_field(buf, sizeof(buf), "a,\"b\"");
	ok(!strcmp(buf, "\"a,\"\"b\"\"\""), "CSV: comma and quotes escaped");
}

static void test_path_within(void)
{
	ok(path_within("/sys/fs/cgroup/lxc.payload.c1", "/sys/fs/cgroup/lxc.payload.c1"),
	   "a cgroup is within itself (also when made anew at the same path)");
	ok(path_within("/sys/fs/cgroup/lxc.payload.c1/.lxc", "/sys/fs/cgroup/lxc.payload.c1"),
	   "a sub-cgroup is within its parent");
	ok(!path_within("/sys/fs/cgroup/lxc.payload.c10", "/sys/fs/cgroup/lxc.payload.c1") &&
	   !path_within("/sys/fs/cgroup/lxc.payload.c1-1", "/sys/fs/cgroup/lxc.payload.c1"),
	   "a sibling whose name starts alike is not within");
	ok(!path_within("/sys/fs/cgroup", "/sys/fs/cgroup/lxc.payload.c1"),
	   "a parent is not within its child");
}

int main(void)
{
	printf("TAP version 13\n");
	test_slots();
	test_percentiles();
	test_copies();
	test_median_period();
	test_jobs();
	test_quantiles_csv();
	test_path_within();
	printf("1..%d\n", nr);
	return failed ? 1 : 0;
}
