// SPDX-License-Identifier: GPL-2.0
/*
 * hcbs-hog: a SCHED_FIFO busy loop for the in-guest tests, linked
 * statically so that it runs inside a busybox container (bind-mounted from
 * the build directory).  It pins itself to one CPU (a reservation gives
 * Q/P on each CPU; a pinned thread can use exactly one CPU's share), and
 * stops by itself after SECONDS so that a failed test cannot leave an RT
 * hog behind.
 *
 * Usage: hcbs-hog PRIORITY CPU SECONDS
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct sched_param sp = { 0 };
	struct timespec start, now;
	cpu_set_t set;
	long secs;

	if (argc != 4) {
		fprintf(stderr, "usage: hcbs-hog PRIORITY CPU SECONDS\n");
		return 2;
	}
	sp.sched_priority = atoi(argv[1]);
	secs = atol(argv[3]);
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[2]), &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "hcbs-hog: sched_setaffinity: %s\n", strerror(errno));
		return 1;
	}
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "hcbs-hog: sched_setscheduler(SCHED_FIFO, %d): %s\n",
			sp.sched_priority, strerror(errno));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while (now.tv_sec - start.tv_sec < secs);
	return 0;
}
