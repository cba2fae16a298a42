// SPDX-License-Identifier: GPL-2.0
/*
 * periodic: a periodic real-time thread that logs its own job timing, the
 * ground truth for hcbstrace lateness.
 *
 * Job k is released at t0 + k*T (clock_nanosleep TIMER_ABSTIME on
 * CLOCK_MONOTONIC), burns C of its own CPU time, and ends just before it
 * sleeps again.  Every Nth job burns OVERRUN instead, to miss its deadline
 * on purpose.  Per job it logs release, start and end (CLOCK_MONOTONIC ns,
 * the clock of bpf_ktime_get_ns()), the response time and whether it
 * missed (end - release > D).
 *
 * Exit: 0 done, 1 usage or runtime error, 4 could not become SCHED_FIFO.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_USEC	1000ull
#define NSEC_PER_SEC	1000000000ull

struct job {
	uint64_t release, start, end;
};

static uint64_t ts_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Burn @ns of this thread's CPU time, however long that takes. */
static void burn(uint64_t ns)
{
	uint64_t until = ts_ns(CLOCK_THREAD_CPUTIME_ID) + ns;

	while (ts_ns(CLOCK_THREAD_CPUTIME_ID) < until)
		;
}

static int sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = t / NSEC_PER_SEC, .tv_nsec = t % NSEC_PER_SEC };
	int ret;

	do
		ret = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	while (ret == EINTR);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: periodic [options]\n"
		"  -T US     period (default 20000)\n"
		"  -D US     relative deadline (default: the period)\n"
		"  -C US     CPU time per job (default 4000)\n"
		"  -n N      jobs (default 200)\n"
		"  -e N      every Nth job overruns (default 0: never)\n"
		"  -O US     CPU time of an overrunning job (default 1.3 * period)\n"
		"  -r PRIO   SCHED_FIFO priority (default 50; 0: stay SCHED_OTHER)\n"
		"  -a CPU    pin to this CPU\n"
		"  -N NAME   thread name (default periodic)\n"
		"  -l FILE   per-job log (default stdout)\n"
		"  -w FILE   wait until FILE exists before the first job\n"
		"Log: job release_ns start_ns end_ns response_ns miss\n");
}

int main(int argc, char **argv)
{
	uint64_t T = 20000, D = 0, C = 4000, O = 0, n = 200, every = 0;
	int prio = 50, cpu = -1, opt;
	const char *name = "periodic", *log = NULL, *go = NULL;
	struct job *jobs;
	uint64_t t0, misses = 0;
	FILE *out = stdout;

	while ((opt = getopt(argc, argv, "T:D:C:n:e:O:r:a:N:l:w:h")) != -1) {
		switch (opt) {
		case 'T': T = strtoull(optarg, NULL, 10); break;
		case 'D': D = strtoull(optarg, NULL, 10); break;
		case 'C': C = strtoull(optarg, NULL, 10); break;
		case 'n': n = strtoull(optarg, NULL, 10); break;
		case 'e': every = strtoull(optarg, NULL, 10); break;
		case 'O': O = strtoull(optarg, NULL, 10); break;
		case 'r': prio = atoi(optarg); break;
		case 'a': cpu = atoi(optarg); break;
		case 'N': name = optarg; break;
		case 'l': log = optarg; break;
		case 'w': go = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (!T || !n || C >= 100 * T) {
		usage(stderr);
		return 1;
	}
	T *= NSEC_PER_USEC;
	C *= NSEC_PER_USEC;
	D = D ? D * NSEC_PER_USEC : T;
	O = O ? O * NSEC_PER_USEC : T + 3 * T / 10;

	jobs = calloc(n, sizeof(*jobs));
	if (!jobs) {
		perror("periodic: calloc");
		return 1;
	}
	prctl(PR_SET_NAME, name);
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		perror("periodic: mlockall (continuing)");
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("periodic: sched_setaffinity");
			return 1;
		}
	}
	/* Wait before becoming RT: the polling sleeps are not jobs. */
	while (go && access(go, F_OK))
		usleep(10000);
	if (prio > 0) {
		struct sched_param sp = { .sched_priority = prio };

		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			fprintf(stderr, "periodic: SCHED_FIFO %d: %s\n", prio, strerror(errno));
			return 4;
		}
	}

	t0 = ts_ns(CLOCK_MONOTONIC) + 50 * NSEC_PER_USEC * 1000;
	for (uint64_t k = 0; k < n; k++) {
		jobs[k].release = t0 + k * T;
		if (sleep_until(jobs[k].release)) {
			perror("periodic: clock_nanosleep");
			return 1;
		}
		jobs[k].start = ts_ns(CLOCK_MONOTONIC);
		burn(every && k % every == every - 1 ? O : C);
		jobs[k].end = ts_ns(CLOCK_MONOTONIC);
	}
	/* Sleep once more, so that the last job ends the way the others do. */
	sleep_until(t0 + n * T);
	/*
	 * Write the log as a SCHED_OTHER task: at its RT priority the
	 * formatting of n lines (milliseconds) would delay every lower
	 * priority task on this CPU that still has jobs to run.
	 */
	if (prio > 0) {
		struct sched_param sp = { .sched_priority = 0 };

		sched_setscheduler(0, SCHED_OTHER, &sp);
	}

	if (log) {
		out = fopen(log, "w");
		if (!out) {
			perror(log);
			return 1;
		}
	}
	fprintf(out, "# job release_ns start_ns end_ns response_ns miss\n");
	for (uint64_t k = 0; k < n; k++) {
		uint64_t r = jobs[k].end - jobs[k].release;

		misses += r > D;
		fprintf(out, "%llu %llu %llu %llu %llu %d\n", (unsigned long long)k,
			(unsigned long long)jobs[k].release, (unsigned long long)jobs[k].start,
			(unsigned long long)jobs[k].end, (unsigned long long)r, r > D);
	}
	fprintf(out, "# jobs %llu misses %llu period_ns %llu deadline_ns %llu\n",
		(unsigned long long)n, (unsigned long long)misses, (unsigned long long)T,
		(unsigned long long)D);
	if (out != stdout && fclose(out)) {
		perror(log);
		return 1;
	}
	free(jobs);
	return 0;
}
