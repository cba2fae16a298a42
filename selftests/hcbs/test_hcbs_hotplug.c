// SPDX-License-Identifier: GPL-2.0
/*
 * HCBS and CPU hotplug: the servers of a CPU that goes offline are
 * stopped (sched_cpu_dying), the group's tasks move to the CPUs left and
 * are served there by the group's servers of those CPUs; the CPU comes
 * back with its servers idle, the reservation applies there again, and
 * no bandwidth is lost or leaked in the admission accounting of the root
 * domains rebuilt on the way.  Offlining while a server is throttled
 * (its replenishment timer armed) must not leave a timer, a queued
 * entity or a splat behind: the runner fails the boot on any splat.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "hcbs_ksft.h"

#define PATHLEN 512
#define TOL 0.01	/* of a CPU */
#define CPU_ONLINE_FMT "/sys/devices/system/cpu/cpu%d/online"

static int cpu_set_online(int cpu, bool online)
{
	char path[64];

	snprintf(path, sizeof(path), CPU_ONLINE_FMT, cpu);
	return hcbs_write_str(path, online ? "1" : "0");
}

static int cpu_is_online(int cpu)
{
	char path[64];
	long long v;
	int err;

	snprintf(path, sizeof(path), CPU_ONLINE_FMT, cpu);
	err = hcbs_read_long(path, &v);
	return err ? err : v == 1;
}

FIXTURE(hotplug) {
	struct hcbs_env env;
};

FIXTURE_SETUP(hotplug)
{
	char path[64];

	snprintf(path, sizeof(path), CPU_ONLINE_FMT, HCBS_LOAD_CPU);
	if (access(path, W_OK))
		SKIP(return, "CPU %d cannot be taken offline here (%s: %s)",
		     HCBS_LOAD_CPU, path, strerror(errno));
	HCBS_ENV_SETUP(&self->env, "hotplug");
	ASSERT_EQ(1, cpu_is_online(HCBS_LOAD_CPU));
}

FIXTURE_TEARDOWN_PARENT(hotplug)
{
	/* Whatever failed, give the CPU back before checking for leaks. */
	if (cpu_is_online(HCBS_LOAD_CPU) == 0)
		cpu_set_online(HCBS_LOAD_CPU, true);
	HCBS_ENV_TEARDOWN(&self->env);
}

/* Where @pid runs now (the CPU field of /proc/PID/stat), or -errno. */
static int task_cpu_of(pid_t pid)
{
	char path[64], buf[1024], *p;
	int i, cpu = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (hcbs_read_file(path, buf, sizeof(buf)))
		return -ENOENT;
	/* Field 39; the fields after comm's ')' start at field 3. */
	p = strrchr(buf, ')');
	for (i = 3; p && i <= 39; i++) {
		p = strchr(p + 1, ' ');
		if (p && i == 39)
			cpu = atoi(p + 1);
	}
	return cpu;
}

static void measure(struct __test_metadata *_metadata, pid_t pid,
		    const char *what, double expected)
{
	double share;

	ASSERT_EQ(0, hcbs_measure_shares(&pid, 1, hcbs_window_ms(3000), &share));
	hcbs_check_share(_metadata, what, share, expected, TOL);
}

/*
 * A group's hog pinned to the CPU that goes away follows the kernel's
 * fallback to CPU 0 and keeps its reservation there; back on its CPU it
 * gets the reservation there.
 */
TEST_F_TIMEOUT(hotplug, offline_online, 120)
{
	char g[PATHLEN];
	struct hcbs_hog *h;
	int err, cpu;

	hcbs_group(_metadata, &self->env, "g", 30000, 100000, g, sizeof(g));
	h = hcbs_hog(_metadata, &self->env, g, HCBS_LOAD_CPU, SCHED_FIFO,
		     HCBS_PRIO_GROUP);
	hcbs_sleep_ms(200);
	measure(_metadata, h->pid, "group 30/100 on CPU 1", 0.3);

	err = cpu_set_online(HCBS_LOAD_CPU, false);
	ASSERT_EQ(0, err) TH_LOG("offline CPU %d: %s", HCBS_LOAD_CPU, strerror(-err));
	hcbs_sleep_ms(200);
	cpu = task_cpu_of(h->pid);
	hcbs_note("CPU %d offline; the group's hog now runs on CPU %d",
		  HCBS_LOAD_CPU, cpu);
	ASSERT_EQ(HCBS_CTL_CPU, cpu);
	measure(_metadata, h->pid, "group 30/100 on CPU 0, CPU 1 offline", 0.3);

	err = cpu_set_online(HCBS_LOAD_CPU, true);
	ASSERT_EQ(0, err) TH_LOG("online CPU %d: %s", HCBS_LOAD_CPU, strerror(-err));
	ASSERT_EQ(0, hcbs_pin_cpu(h->pid, HCBS_LOAD_CPU));
	hcbs_sleep_ms(200);
	ASSERT_EQ(HCBS_LOAD_CPU, task_cpu_of(h->pid));
	measure(_metadata, h->pid, "group 30/100 back on CPU 1", 0.3);

	/* The reservation can still change, on every CPU. */
	err = hcbs_set_rt_max(g, 50000, 100000);
	ASSERT_EQ(0, err) TH_LOG("cpu.rt.max 50000 100000 after hotplug: %s",
				 strerror(-err));
	hcbs_sleep_ms(200);
	measure(_metadata, h->pid, "group raised to 50/100 on CPU 1", 0.5);
}

/*
 * Take the CPU away and back again and again while its server is busy
 * being throttled and replenished (2 ms every 10 ms: a timer is armed
 * most of the time), with a second group's hog queued behind it.
 */
TEST_F_TIMEOUT(hotplug, cycle_while_throttled, 180)
{
	char g1[PATHLEN], g2[PATHLEN];
	struct hcbs_hog *h1, *h2;
	int err, i, cycles = 10;

	hcbs_group(_metadata, &self->env, "g1", 2000, 10000, g1, sizeof(g1));
	hcbs_group(_metadata, &self->env, "g2", 20000, 50000, g2, sizeof(g2));
	h1 = hcbs_hog(_metadata, &self->env, g1, HCBS_LOAD_CPU, SCHED_FIFO,
		      HCBS_PRIO_GROUP);
	h2 = hcbs_hog(_metadata, &self->env, g2, HCBS_LOAD_CPU, SCHED_FIFO,
		      HCBS_PRIO_GROUP);
	for (i = 0; i < cycles; i++) {
		hcbs_sleep_ms(37 + 11 * i);	/* land at various phases */
		err = cpu_set_online(HCBS_LOAD_CPU, false);
		ASSERT_EQ(0, err) TH_LOG("cycle %d: offline: %s", i, strerror(-err));
		hcbs_sleep_ms(23);
		err = cpu_set_online(HCBS_LOAD_CPU, true);
		ASSERT_EQ(0, err) TH_LOG("cycle %d: online: %s", i, strerror(-err));
		ASSERT_EQ(0, hcbs_pin_cpu(h1->pid, HCBS_LOAD_CPU));
		ASSERT_EQ(0, hcbs_pin_cpu(h2->pid, HCBS_LOAD_CPU));
	}
	hcbs_note("%d offline/online cycles of CPU %d with two throttling groups",
		  cycles, HCBS_LOAD_CPU);
	hcbs_sleep_ms(200);
	{
		pid_t pids[2] = { h1->pid, h2->pid };
		double share[2];

		ASSERT_EQ(0, hcbs_measure_shares(pids, 2, hcbs_window_ms(3000), share));
		hcbs_check_share(_metadata, "group 2/10 after the cycles", share[0], 0.2, TOL);
		hcbs_check_share(_metadata, "group 20/50 after the cycles", share[1], 0.4, TOL);
	}
}

/*
 * A CPU may go offline only if what is admitted still fits on the CPUs
 * left: deadline tasks, the fair servers of the CPUs left and the groups'
 * reservations on each of them.  A 40/100 ms group and a deadline task
 * that fit on two CPUs but not on one: offlining CPU 1 must fail with
 * EBUSY (upstream's "sched/deadline: Check bandwidth overflow earlier for
 * hotplug", carried in the series); with a smaller task that fits beside
 * the fair server of the CPU left, it succeeds.
 */
TEST_F_TIMEOUT(hotplug, refused_when_overbooked, 60)
{
	struct hcbs_hog_spec spec = {
		.cpu = -1, .policy = SCHED_OTHER, .sleeper = true,
	};
	double global = hcbs_rt_global_bw(), fair = hcbs_fair_server_bw(0);
	double group = 0.4, lo, hi, dl_bw;
	const uint64_t period = 100 * HCBS_NSEC_PER_MSEC;
	const char *step = "";
	struct hcbs_hog *dl;
	char g[PATHLEN];
	int err;

	ASSERT_EQ(2, hcbs_nr_cpus()) TH_LOG("the bandwidth figures assume 2 CPUs");
	/* Fits on two CPUs: dl + 2 (fair + group) <= 2 global; not on one. */
	lo = global - fair - group;
	hi = 2 * (global - fair - group);
	dl_bw = (lo + hi) / 2;
	hcbs_note("global %.4f, fair server %.4f, group %.2f per CPU: a deadline task of %.4f fits on 2 CPUs (<= %.4f), not on 1 (> %.4f)",
		  global, fair, group, dl_bw, hi, lo);
	ASSERT_GT(lo, fair);

	hcbs_group(_metadata, &self->env, "g", 40000, 100000, g, sizeof(g));
	dl = hcbs_env_hog(&self->env, &spec, &err, &step);
	ASSERT_NE(NULL, dl) TH_LOG("sleeper: %s: %s", step, strerror(-err));
	err = hcbs_set_deadline(dl->pid, (uint64_t)(dl_bw * period), period, period);
	ASSERT_EQ(0, err) TH_LOG("SCHED_DEADLINE %.4f: %s", dl_bw, strerror(-err));

	err = cpu_set_online(HCBS_LOAD_CPU, false);
	hcbs_note("offline CPU %d with the group and the %.4f deadline task admitted: %s",
		  HCBS_LOAD_CPU, dl_bw, err ? strerror(-err) : "accepted");
	EXPECT_EQ(-EBUSY, err);
	EXPECT_EQ(1, cpu_is_online(HCBS_LOAD_CPU));

	/*
	 * Fits on the CPU left only without the outgoing CPU's fair server,
	 * which has nothing left to serve there ("sched/deadline: Correctly
	 * account for allocated bandwidth during hotplug"): 6.12 refused it.
	 */
	dl_bw = lo - fair / 2;
	err = hcbs_set_deadline(dl->pid, (uint64_t)(dl_bw * period), period, period);
	ASSERT_EQ(0, err) TH_LOG("SCHED_DEADLINE %.4f: %s", dl_bw, strerror(-err));
	err = cpu_set_online(HCBS_LOAD_CPU, false);
	hcbs_note("offline CPU %d with a %.4f deadline task instead (fits beside one fair server, not two): %s",
		  HCBS_LOAD_CPU, dl_bw, err ? strerror(-err) : "accepted");
	EXPECT_EQ(0, err);
	if (!err)
		ASSERT_EQ(0, cpu_set_online(HCBS_LOAD_CPU, true));
}

HCBS_TEST_MAIN
