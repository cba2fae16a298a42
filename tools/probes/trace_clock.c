// SPDX-License-Identifier: GPL-2.0
/* hcbstrace: the clock of a run and the main loop's wait. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "trace_clock.h"

static volatile sig_atomic_t hcbs_exiting;

uint64_t hcbs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void on_signal(int sig)
{
	(void)sig;
	hcbs_exiting = 1;
}

void hcbs_trace_start(struct hcbs_clock *c, const struct hcbs_opts *o,
		      const struct hcbs_bpf *b)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	memset(c, 0, sizeof(*c));
	c->start_ns = hcbs_now_ns();
	c->start_wall = time(NULL);
	/* Durations are at most 8760h: these cannot wrap, and saturate anyway. */
	if (o->duration_ns)
		c->end_ns = hcbs_add_sat(c->start_ns, o->duration_ns);
	if (o->interval_ns)
		c->next_tick_ns = hcbs_add_sat(c->start_ns, o->interval_ns);
	if (!o->quiet)
		fprintf(stderr, "hcbstrace: %s: tracing (%s)... Ctrl-C to end\n", o->cmd,
			b->use_btf ? "tp_btf" : "raw_tp");
}

bool hcbs_clock_tick(struct hcbs_clock *c, const struct hcbs_opts *o)
{
	uint64_t due;

	if (hcbs_exiting)
		return false;
	/* Missed ticks are skipped at once: no loop that could run away. */
	c->next_tick_ns = hcbs_tick_advance(c->next_tick_ns, o->interval_ns, hcbs_now_ns(), &due);
	if (!due)
		return false;
	c->ticks++;
	return true;
}

int hcbs_trace_wait(const struct hcbs_clock *c, const struct hcbs_opts *o,
		    const char **reason, struct ring_buffer *rb)
{
	int err;

	if (o->count && c->ticks >= o->count) {
		*reason = "count";
		return 0;
	}
	if (c->end_ns && hcbs_now_ns() >= c->end_ns) {
		*reason = "duration";
		return 0;
	}
	if (hcbs_exiting)
		return 0;
	if (!rb) {
		usleep(100000);
		return 1;
	}
	err = ring_buffer__poll(rb, 100);
	return err < 0 && err != -EINTR ? err : 1;
}
