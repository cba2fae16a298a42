// SPDX-License-Identifier: GPL-2.0
/*
 * vbbu: a synthetic virtual baseband unit, the workload of experiment 3
 * (scripts/experiments, docs/notes/cloudran-model.md), and the packet
 * flood and sink of its "Kernel" scenario.
 *
 * The thread set is modelled on the OAI LTE eNB threads of the Cloud-RAN
 * study (Ocampo et al., Sensors 2024): per subframe ("TTI", 1 ms in LTE)
 *
 *   ru-thread       SCHED_FIFO P, timer-driven: at the subframe's release
 *                   it burns half of its work, wakes fep_processing and
 *                   feptx_thread, burns the other half, waits for both (as
 *                   OAI's ru_thread waits for its FEP helpers), then wakes
 *                   lte-softmodem;
 *   fep_processing  SCHED_FIFO P-1, one slot of uplink front-end work;
 *   feptx_thread    SCHED_FIFO P-1, one slot of downlink OFDM work;
 *   lte-softmodem   SCHED_FIFO P-1, the rest of L1 and L2 for the
 *                   subframe; its end is the subframe's end;
 *   TASK_UDP        SCHED_OTHER, woken per backhaul packet (a datagram on
 *                   an AF_UNIX socket from the "backhaul" thread at
 *                   --rate packets/s), hands it to
 *   TASK_GTPV1_U    SCHED_OTHER, GTP-U tunnelling of the packet.
 *
 * Work is this thread's own CPU time (CLOCK_THREAD_CPUTIME_ID), so time
 * stolen by interrupts, other tasks or a throttled server stretches the
 * wall-clock response but not the work.  A subframe is missed when
 * lte-softmodem ends it later than release + deadline (default: one TTI,
 * the "late" of the OAI studies).  A late ru-thread does not skip
 * subframes: the pipeline catches up, and every late subframe counts.
 *
 * SIGINT or SIGTERM ends the run early with the summary of what was due:
 * every subframe released before the stop whose deadline had passed by
 * then counts, one lte-softmodem had not ended as missed (its response is
 * taken as the time to the stop, a lower bound); those still within their
 * deadline are left out.  A run whose server starves it can so be ended
 * at a time limit and still say how far behind it was.
 *
 * Exit: 0 done (or stopped), 1 error, 2 usage, 4 could not become SCHED_FIFO.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hcbs.h"

#define PROG		"vbbu"
/* IEEE 802 "local experimental" EtherType: nothing else in the guest reads it */
#define VBBU_ETHERTYPE	0x88b5
#define BACKHAUL_BYTES	1500

enum { RU, FEP, FEPTX, LTE, UDP, GTP, NCOST };
static const char *const cost_key[NCOST] = { "ru", "fep", "feptx", "lte", "udp", "gtp" };
static const char *const thread_name[NCOST] = {
	"ru-thread", "fep_processing", "feptx_thread", "lte-softmodem", "TASK_UDP", "TASK_GTPV1_U",
};
/*
 * per subframe at --scale 1, ns: docs/notes/cloudran-model.md, section 5,
 * in its proportions (ru-thread the most, then lte-softmodem, the FEP
 * helpers the least) scaled to 0.2 CPU of RT work, so that two vBBUs'
 * reservations, with what a job costs under emulation, fit on two CPUs
 */
static const uint64_t cost_default[NCOST] = { 90000, 30000, 20000, 60000, 10000, 10000 };

struct tti {
	uint64_t release, ru_start, ru_end, lte_start, lte_end;
	/*
	 * each RT thread's own CPU time for this subframe's job: from the end
	 * of its previous job to the end of this one, so the wakeup, the
	 * switches and the syscalls around the work count too (what a server
	 * is charged for the job)
	 */
	uint64_t cpu[LTE + 1];
};

static struct {
	uint64_t tti, deadline, duration, cost[NCOST];
	unsigned int scale, rate;
	int prio;
	const char *name, *log, *json;
	uint64_t n, t0;
	pthread_barrier_t ready;
	struct tti *t;
	int ev_fep, ev_feptx, ev_done, ev_lte;
	int bh[2], gtp[2];
	atomic_bool stop;
	/* SIGINT/SIGTERM: the RT threads end at their next check */
	atomic_bool halt;
	uint64_t halt_ns;
	/* the RT threads still running; the last one to end wakes main */
	atomic_int running;
	pthread_t main;
	atomic_uint_fast64_t packets;
	/* each thread's own CPU time when it ended: what its work really cost */
	uint64_t cpu[NCOST];
	/* and its context switches (voluntary, involuntary) and migrations */
	uint64_t nvcsw[NCOST], nivcsw[NCOST], migrations[NCOST];
} v;

static uint64_t now(void)
{
	return hcbs_clock_ns(CLOCK_MONOTONIC);
}

/* One line on stderr, then exit: 1 for a runtime error, 2 for a usage one. */
static void verr(int status, const char *fmt, va_list ap) __attribute__((noreturn));
static void verr(int status, const char *fmt, va_list ap)
{
	fprintf(stderr, PROG ": ");
	vfprintf(stderr, fmt, ap);
	fputs(status == 2 ? " (see vbbu --help)\n" : "\n", stderr);
	exit(status);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(1, fmt, ap);
}

static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(2, fmt, ap);
}

static void ev_post(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) != sizeof(one))
		die("eventfd write: %s", strerror(errno));
}

/* Wait for the eventfd's count and return it (>= 1). */
static uint64_t ev_wait(int fd)
{
	uint64_t n;

	while (read(fd, &n, sizeof(n)) != sizeof(n))
		if (errno != EINTR)
			die("eventfd read: %s", strerror(errno));
	return n;
}

static void name_self(const char *name)
{
	prctl(PR_SET_NAME, name);
}

static void fifo(int prio, const char *who)
{
	struct sched_param sp = { .sched_priority = prio };
	int err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

	if (err) {
		fprintf(stderr, PROG ": %s: SCHED_FIFO %d: %s\n", who, prio, strerror(err));
		exit(4);
	}
}

/* ------------------------------------------------------------ the threads */

static bool halted(void)
{
	return atomic_load(&v.halt);
}

/*
 * At the end of thread @which: its CPU time, its context switches, and
 * its migrations where the kernel shows them (SCHED_DEBUG's
 * /proc/thread-self/sched; else UINT64_MAX).
 */
static void thread_end(int which)
{
	struct rusage ru;
	char line[256];
	FILE *f;

	v.cpu[which] = hcbs_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (!getrusage(RUSAGE_THREAD, &ru)) {
		v.nvcsw[which] = (uint64_t)ru.ru_nvcsw;
		v.nivcsw[which] = (uint64_t)ru.ru_nivcsw;
	}
	v.migrations[which] = UINT64_MAX;
	f = fopen("/proc/thread-self/sched", "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			unsigned long long n;

			if (sscanf(line, "se.nr_migrations : %llu", &n) == 1)
				v.migrations[which] = n;
		}
		fclose(f);
	}
	/* the last RT thread to end tells main, which waits for it or a stop */
	if (which <= LTE && atomic_fetch_sub(&v.running, 1) == 1)
		pthread_kill(v.main, SIGUSR1);
}

/*
 * The calling RT thread's CPU time since *@c0, shared out over its @n jobs
 * from subframe @k (n > 1 only when it fell behind and took several
 * subframes in one wakeup); *@c0 moves on.
 */
static void job_cpu(uint64_t *c0, int which, uint64_t k, uint64_t n)
{
	uint64_t c = hcbs_clock_ns(CLOCK_THREAD_CPUTIME_ID);

	if (!n)		/* woken by a stop, no job done */
		return;
	for (uint64_t i = 0; i < n; i++)
		v.t[k + i].cpu[which] = (c - *c0) / n;
	*c0 = c;
}

static void *ru_thread(void *arg)
{
	(void)arg;
	name_self(thread_name[RU]);
	fifo(v.prio, thread_name[RU]);
	pthread_barrier_wait(&v.ready);
	/* every RT thread is up and SCHED_FIFO: the first subframe a TTI on */
	v.t0 = now() + v.tti;
	uint64_t c0 = hcbs_clock_ns(CLOCK_THREAD_CPUTIME_ID);

	for (uint64_t k = 0; k < v.n && !halted(); k++) {
		struct tti *t = &v.t[k];
		uint64_t done = 0;

		t->release = v.t0 + k * v.tti;
		hcbs_sleep_until(t->release);
		if (halted())
			break;
		t->ru_start = now();
		hcbs_burn(v.cost[RU] / 2);
		ev_post(v.ev_fep);
		ev_post(v.ev_feptx);
		hcbs_burn(v.cost[RU] - v.cost[RU] / 2);
		/* a stop posts two here too */
		while (done < 2)
			done += ev_wait(v.ev_done);
		if (halted())
			break;
		t->ru_end = now();
		ev_post(v.ev_lte);
		job_cpu(&c0, RU, k, 1);
	}
	thread_end(RU);
	return NULL;
}

struct helper {
	int which, ev;
};

static void *fep_thread(void *arg)
{
	const struct helper *h = arg;

	name_self(thread_name[h->which]);
	fifo(v.prio - 1, thread_name[h->which]);
	pthread_barrier_wait(&v.ready);
	uint64_t c0 = hcbs_clock_ns(CLOCK_THREAD_CPUTIME_ID);

	for (uint64_t k = 0; k < v.n && !halted(); ) {
		uint64_t n = ev_wait(h->ev), k0 = k;

		for (; n && k < v.n && !halted(); n--, k++) {
			hcbs_burn(v.cost[h->which]);
			ev_post(v.ev_done);
		}
		job_cpu(&c0, h->which, k0, k - k0);
	}
	thread_end(h->which);
	return NULL;
}

static void *lte_thread(void *arg)
{
	(void)arg;
	name_self(thread_name[LTE]);
	fifo(v.prio - 1, thread_name[LTE]);
	pthread_barrier_wait(&v.ready);
	uint64_t c0 = hcbs_clock_ns(CLOCK_THREAD_CPUTIME_ID);

	for (uint64_t k = 0; k < v.n && !halted(); ) {
		uint64_t n = ev_wait(v.ev_lte), k0 = k;

		for (; n && k < v.n && !halted(); n--, k++) {
			v.t[k].lte_start = now();
			hcbs_burn(v.cost[LTE]);
			v.t[k].lte_end = now();
		}
		job_cpu(&c0, LTE, k0, k - k0);
	}
	thread_end(LTE);
	return NULL;
}

static void *backhaul_thread(void *arg)
{
	static char pkt[BACKHAUL_BYTES];
	uint64_t gap = 1000000000ull / v.rate, t = now();

	(void)arg;
	name_self("backhaul");
	while (!atomic_load(&v.stop)) {
		t += gap;
		hcbs_sleep_until(t);
		if (send(v.bh[0], pkt, sizeof(pkt), MSG_DONTWAIT) < 0 && errno != EAGAIN)
			die("backhaul send: %s", strerror(errno));
	}
	shutdown(v.bh[0], SHUT_WR);
	return NULL;
}

/* TASK_UDP reads the backhaul socket, TASK_GTPV1_U the hand-over socket. */
static void *non_rt_thread(void *arg)
{
	int which = *(const int *)arg, in = which == UDP ? v.bh[1] : v.gtp[1];
	static char buf[2][BACKHAUL_BYTES];
	ssize_t len;

	name_self(thread_name[which]);
	while ((len = recv(in, buf[which == GTP], sizeof(buf[0]), 0)) > 0) {
		hcbs_burn(v.cost[which]);
		if (which == UDP)
			send(v.gtp[0], buf[0], (size_t)len, MSG_DONTWAIT);
		else
			atomic_fetch_add(&v.packets, 1);
	}
	if (which == UDP)
		shutdown(v.gtp[0], SHUT_WR);
	thread_end(which);
	return NULL;
}

/* ------------------------------------------------------------- the output */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The subframes a summary counts: all of them, or after a stop those whose
 * deadline had passed by then or that had ended anyway (a prefix: the
 * pipeline ends subframes in order).  Those released but not reached by
 * ru-thread get their release time; those not ended, the stop as their end.
 * *@ended: how many of them lte-softmodem ended.
 */
static uint64_t counted(uint64_t *ended)
{
	uint64_t m = 0;

	*ended = 0;
	for (; m < v.n; m++) {
		struct tti *t = &v.t[m];
		uint64_t release = v.t0 + m * v.tti;

		if (t->lte_end) {
			++*ended;
			continue;
		}
		if (!halted())	/* cannot be: a run not stopped ends every subframe */
			die("subframe %" PRIu64 " never ended", m);
		if (!v.t0 || release + v.deadline > v.halt_ns)
			break;
		t->release = release;
		t->lte_end = v.halt_ns;
	}
	return m;
}

/* Each RT thread's CPU time per job over the first @n subframes. */
static void job_cpu_json(struct hcbs_json *j, uint64_t *buf, uint64_t n)
{
	hcbs_json_object_begin(j);
	for (int i = RU; i <= LTE; i++) {
		uint64_t sum = 0;

		for (uint64_t k = 0; k < n; k++) {
			buf[k] = v.t[k].cpu[i];
			sum += buf[k];
		}
		qsort(buf, n, sizeof(*buf), cmp_u64);
		hcbs_json_key(j, cost_key[i]);
		hcbs_json_object_begin(j);
		hcbs_json_key(j, "mean"); hcbs_json_uint(j, sum / n);
		hcbs_json_key(j, "p50"); hcbs_json_uint(j, buf[n / 2]);
		hcbs_json_key(j, "p90"); hcbs_json_uint(j, buf[n * 90 / 100]);
		hcbs_json_key(j, "p95"); hcbs_json_uint(j, buf[n * 95 / 100]);
		hcbs_json_key(j, "p99"); hcbs_json_uint(j, buf[n * 99 / 100]);
		hcbs_json_key(j, "max"); hcbs_json_uint(j, buf[n - 1]);
		hcbs_json_object_end(j);
	}
	hcbs_json_object_end(j);
}

static int report(void)
{
	uint64_t *resp = malloc(v.n * sizeof(*resp)), missed = 0, first = UINT64_MAX, ended;
	FILE *log = NULL;

	if (!resp)
		die("out of memory");
	v.n = counted(&ended);
	if (v.log && !(log = fopen(v.log, "w")))
		die("%s: %s", v.log, strerror(errno));
	if (log)
		fprintf(log, "# tti release_ns ru_start_ns ru_end_ns lte_start_ns lte_end_ns response_ns missed"
			" ru_cpu_ns fep_cpu_ns feptx_cpu_ns lte_cpu_ns\n");
	for (uint64_t k = 0; k < v.n; k++) {
		const struct tti *t = &v.t[k];

		resp[k] = t->lte_end - t->release;
		if (resp[k] > v.deadline || k >= ended) {
			missed++;
			if (first == UINT64_MAX)
				first = k;
		}
		if (log)
			fprintf(log, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
				" %" PRIu64 " %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", k,
				t->release, t->ru_start, t->ru_end, t->lte_start, t->lte_end, resp[k],
				resp[k] > v.deadline, t->cpu[RU], t->cpu[FEP], t->cpu[FEPTX], t->cpu[LTE]);
	}
	if (log && fclose(log))
		die("%s: %s", v.log, strerror(errno));
	qsort(resp, v.n, sizeof(*resp), cmp_u64);

	/* with no subframe due (a stop before the first deadline), all 0 */
	double tti = (double)v.tti, p50 = 0, p99 = 0, max = 0;

	if (v.n) {
		p50 = resp[v.n / 2] / tti;
		p99 = resp[v.n * 99 / 100] / tti;
		max = resp[v.n - 1] / tti;
	}
	/* the RT threads' own CPU time against their nominal work */
	uint64_t rt_cpu = v.cpu[RU] + v.cpu[FEP] + v.cpu[FEPTX] + v.cpu[LTE],
		 rt_work = ended * (v.cost[RU] + v.cost[FEP] + v.cost[FEPTX] + v.cost[LTE]);

	if (halted())
		printf(PROG ": %s: stopped after %.3f s: %" PRIu64 " subframes due, %" PRIu64
		       " of them not ended\n", v.name, v.t0 && v.halt_ns > v.t0 ? (v.halt_ns - v.t0) / 1e9 : 0.0,
		       v.n, v.n - ended);
	printf(PROG ": %s: %" PRIu64 " subframes of %.3f ms, %" PRIu64 " missed (%.3f%%), response p50 %.3f"
	       " p99 %.3f max %.3f of a TTI; %" PRIu64 " backhaul packets; RT threads' CPU time %.3f s"
	       " for %.3f s of work (x%.2f)\n", v.name, v.n, tti / 1e6,
	       missed, v.n ? 100.0 * missed / v.n : 0.0, p50, p99, max, (uint64_t)atomic_load(&v.packets),
	       rt_cpu / 1e9, rt_work / 1e9, rt_work ? (double)rt_cpu / rt_work : 0.0);

	if (v.json) {
		FILE *f = fopen(v.json, "w");
		struct hcbs_json *j;

		if (!f)
			die("%s: %s", v.json, strerror(errno));
		j = hcbs_json_new(f);
		hcbs_json_object_begin(j);
		hcbs_json_key(j, "schema"); hcbs_json_string(j, "vbbu/1");
		hcbs_json_key(j, "name"); hcbs_json_string(j, v.name);
		hcbs_json_key(j, "tti_ns"); hcbs_json_uint(j, v.tti);
		hcbs_json_key(j, "scale"); hcbs_json_uint(j, v.scale);
		hcbs_json_key(j, "deadline_ns"); hcbs_json_uint(j, v.deadline);
		hcbs_json_key(j, "prio"); hcbs_json_int(j, v.prio);
		hcbs_json_key(j, "cost_ns");
		hcbs_json_object_begin(j);
		for (int i = 0; i < NCOST; i++) {
			hcbs_json_key(j, cost_key[i]);
			hcbs_json_uint(j, v.cost[i]);
		}
		hcbs_json_object_end(j);
		hcbs_json_key(j, "subframes"); hcbs_json_uint(j, v.n);
		hcbs_json_key(j, "missed"); hcbs_json_uint(j, missed);
		/* a stop: when (from the first release) and the due subframes not ended */
		hcbs_json_key(j, "stopped_after_ns");
		if (halted())
			hcbs_json_uint(j, v.t0 && v.halt_ns > v.t0 ? v.halt_ns - v.t0 : 0);
		else
			hcbs_json_null(j);
		hcbs_json_key(j, "not_ended"); hcbs_json_uint(j, v.n - ended);
		hcbs_json_key(j, "first_missed");
		if (first == UINT64_MAX)
			hcbs_json_null(j);
		else
			hcbs_json_uint(j, first);
		hcbs_json_key(j, "response_p50"); hcbs_json_double(j, p50);
		hcbs_json_key(j, "response_p99"); hcbs_json_double(j, p99);
		hcbs_json_key(j, "response_max"); hcbs_json_double(j, max);
		hcbs_json_key(j, "backhaul_packets"); hcbs_json_uint(j, atomic_load(&v.packets));
		hcbs_json_key(j, "cpu_ns");
		hcbs_json_object_begin(j);
		for (int i = 0; i < NCOST; i++) {
			hcbs_json_key(j, cost_key[i]);
			hcbs_json_uint(j, v.cpu[i]);
		}
		hcbs_json_object_end(j);
		/*
		 * per job, what an analysis' WCET would be measured from: the
		 * subframes lte-softmodem ended (after a stop, the rest have
		 * partial jobs); null when none did
		 */
		hcbs_json_key(j, "job_cpu_ns");
		if (ended)
			job_cpu_json(j, resp, ended);
		else
			hcbs_json_null(j);
		hcbs_json_key(j, "rt_cpu_ns"); hcbs_json_uint(j, rt_cpu);
		hcbs_json_key(j, "switches");
		hcbs_json_object_begin(j);
		for (int i = 0; i < NCOST; i++) {
			hcbs_json_key(j, cost_key[i]);
			hcbs_json_object_begin(j);
			hcbs_json_key(j, "voluntary"); hcbs_json_uint(j, v.nvcsw[i]);
			hcbs_json_key(j, "involuntary"); hcbs_json_uint(j, v.nivcsw[i]);
			hcbs_json_key(j, "migrations");
			if (v.migrations[i] == UINT64_MAX)
				hcbs_json_null(j);
			else
				hcbs_json_uint(j, v.migrations[i]);
			hcbs_json_object_end(j);
		}
		hcbs_json_object_end(j);
		hcbs_json_key(j, "rt_work_ns"); hcbs_json_uint(j, rt_work);
		hcbs_json_object_end(j);
		if (hcbs_json_free(j) || fclose(f))
			die("%s: write error", v.json);
	}
	free(resp);
	return 0;
}

/* ------------------------------------------------------- flood and sink */

static int packet_socket(const char *ifname, struct sockaddr_ll *sll)
{
	int fd = socket(AF_PACKET, SOCK_RAW, htons(VBBU_ETHERTYPE));
	unsigned int idx = if_nametoindex(ifname);

	if (!idx)
		die("interface '%s': %s (create it first, e.g. ip link add vbh0 type veth peer name vbh1)",
		    ifname, strerror(errno));
	if (fd < 0)
		die("AF_PACKET socket: %s (needs CAP_NET_RAW and CONFIG_PACKET)", strerror(errno));
	memset(sll, 0, sizeof(*sll));
	sll->sll_family = AF_PACKET;
	sll->sll_protocol = htons(VBBU_ETHERTYPE);
	sll->sll_ifindex = (int)idx;
	if (bind(fd, (struct sockaddr *)sll, sizeof(*sll)))
		die("bind to %s: %s", ifname, strerror(errno));
	return fd;
}

static volatile sig_atomic_t stopped;

static void on_stop(int sig)
{
	(void)sig;
	stopped = 1;
}

/* Until @duration or SIGTERM/SIGINT; the counts are printed either way. */
static int flood_or_sink(bool flood, const char *ifname, uint64_t duration, unsigned int size)
{
	struct sigaction sa = { .sa_handler = on_stop };	/* no SA_RESTART: recv returns */
	struct sockaddr_ll sll;
	int fd = packet_socket(ifname, &sll), null = -1;
	unsigned char frame[ETH_FRAME_LEN];
	uint64_t end = now() + duration, count = 0, bytes = 0, t0 = now();
	ssize_t len;

	memset(frame, 0xff, ETH_ALEN);			/* broadcast */
	memset(frame + ETH_ALEN, 0x02, ETH_ALEN);	/* a locally administered source */
	frame[2 * ETH_ALEN] = VBBU_ETHERTYPE >> 8;
	frame[2 * ETH_ALEN + 1] = VBBU_ETHERTYPE & 0xff;
	if (!flood) {
		struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };

		null = open("/dev/null", O_WRONLY);
		if (null < 0)
			die("/dev/null: %s", strerror(errno));
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	name_self(flood ? "flood" : "sink");
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!stopped && now() < end) {
		if (flood) {
			len = sendto(fd, frame, size, 0, (struct sockaddr *)&sll, sizeof(sll));
			if (len < 0 && errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
				die("send on %s: %s", ifname, strerror(errno));
		} else {
			len = recv(fd, frame, sizeof(frame), 0);
			if (len < 0 && errno != EAGAIN && errno != EINTR)
				die("receive on %s: %s", ifname, strerror(errno));
			/* netcat's part: the payload goes somewhere */
			if (len > 0 && write(null, frame, (size_t)len) < 0)
				die("/dev/null: %s", strerror(errno));
		}
		if (len > 0) {
			count++;
			bytes += (uint64_t)len;
		}
	}
	double s = (now() - t0) / 1e9;

	printf(PROG ": %s on %s: %" PRIu64 " frames, %" PRIu64 " bytes in %.1f s (%.0f frames/s)\n",
	       flood ? "flood" : "sink", ifname, count, bytes, s, count / s);
	close(fd);
	if (null >= 0)
		close(null);
	return 0;
}

/*
 * Until the RT threads end (the last sends SIGUSR1) or SIGINT/SIGTERM stops
 * them: then every RT thread is woken wherever it waits, and ends at its
 * next check of v.halt.
 */
static void wait_rt(const sigset_t *sigs)
{
	int sig, err = sigwait(sigs, &sig);

	if (err)
		die("sigwait: %s", strerror(err));
	if (sig == SIGUSR1)
		return;
	v.halt_ns = now();
	atomic_store(&v.halt, true);
	ev_post(v.ev_fep);
	ev_post(v.ev_feptx);
	ev_post(v.ev_done);
	ev_post(v.ev_done);
	ev_post(v.ev_lte);
}

/* --------------------------------------------------------- the command line */

static void usage(FILE *f)
{
	fprintf(f,
"Usage: vbbu [OPTION...]                  run the synthetic vBBU\n"
"       vbbu flood IFACE [--duration D] [--size B]\n"
"       vbbu sink IFACE [--duration D]\n"
"\n"
"A synthetic virtual baseband unit modelled on the OAI LTE eNB threads of the\n"
"Cloud-RAN study (docs/notes/cloudran-model.md): per subframe (TTI) ru-thread\n"
"(SCHED_FIFO P) wakes fep_processing and feptx_thread, waits for them and\n"
"wakes lte-softmodem (all SCHED_FIFO P-1); TASK_UDP and TASK_GTPV1_U\n"
"(SCHED_OTHER) handle backhaul packets.  Work is each thread's own CPU time.\n"
"A subframe is missed when lte-softmodem ends it after release + deadline.\n"
"SIGINT or SIGTERM ends the run early: the summary then counts the subframes\n"
"whose deadline had passed by the stop, those not ended as missed.\n"
"\n"
"  -n, --name NAME      a label for the output (default vbbu)\n"
"  -t, --tti DUR        subframe length before scaling (default 1ms)\n"
"  -s, --scale K        multiply the TTI, the deadline and every cost by K and\n"
"                       divide the packet rate by K (default 1; under TCG 10:\n"
"                       an emulated wakeup costs ~0.1 ms)\n"
"  -D, --deadline DUR   before scaling (default: the TTI)\n"
"  -d, --duration DUR   how long to run (default 10s)\n"
"  -c, --cost LIST      per-subframe CPU time before scaling, key=DUR pairs of\n"
"                       ru, fep, feptx, lte, udp (per packet), gtp (per packet)\n"
"                       (default ru=90us,fep=30us,feptx=20us,lte=60us,\n"
"                       udp=10us,gtp=10us: 0.2 CPU of RT work)\n"
"  -p, --prio P         ru-thread's SCHED_FIFO priority, 2..99 (default 97,\n"
"                       OAI's OAI_PRIORITY_RT_MAX); the other RT threads P-1\n"
"  -r, --rate N         backhaul packets per second before scaling (default\n"
"                       830: a 10 Mbit/s flow of 1500-byte packets)\n"
"  -l, --log FILE       per subframe: tti release_ns ru_start_ns ru_end_ns\n"
"                       lte_start_ns lte_end_ns response_ns missed, then each\n"
"                       RT thread's CPU time for it (after a stop, a subframe\n"
"                       not ended has the stop as its lte_end_ns)\n"
"  -j, --json FILE      the summary as JSON (schema vbbu/1)\n"
"  -S, --size B         flood: frame size in bytes, 60..1514 (default 100, the\n"
"                       study's background traffic)\n"
"  -h, --help           this text\n"
"\n"
"flood sends raw Ethernet frames (EtherType 0x88b5) on IFACE as fast as it\n"
"can; sink receives them on IFACE and writes them to /dev/null (netcat's part\n"
"in the study).  Over a veth pair with RPS on the receiving side, every frame\n"
"is softirq work and the remote ones an IPI: the study's Kernel scenario.\n"
"Exit: 0 done, 1 error, 2 usage, 4 could not become SCHED_FIFO.\n");
}

static uint64_t duration_arg(const char *opt, const char *s, bool nonzero)
{
	char err[128];
	uint64_t ns;

	if (hcbs_parse_duration(s, &ns, err, sizeof(err)))
		usage_error("%s '%s': %s", opt, s, err);
	if (nonzero && !ns)
		usage_error("%s '%s': must be more than 0", opt, s);
	return ns;
}

static unsigned long uint_arg(const char *opt, const char *s, unsigned long lo, unsigned long hi)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || x < lo || x > hi)
		usage_error("%s '%s': accepted: a whole number from %lu to %lu", opt, s, lo, hi);
	return x;
}

static void cost_arg(const char *s)
{
	char *copy = strdup(s), *save = NULL, label[16];

	if (!copy)
		die("out of memory");
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int i;

		if (!eq)
			usage_error("--cost '%s': '%s' is not key=DURATION", s, tok);
		*eq = '\0';
		for (i = 0; i < NCOST && strcmp(tok, cost_key[i]); i++)
			;
		if (i == NCOST)
			usage_error("--cost '%s': unknown key '%s' (accepted: ru, fep, feptx, lte, udp, gtp)",
				    s, tok);
		snprintf(label, sizeof(label), "--cost %s", cost_key[i]);
		v.cost[i] = duration_arg(label, eq + 1, false);
	}
	free(copy);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "tti", required_argument, NULL, 't' },
		{ "scale", required_argument, NULL, 's' },
		{ "deadline", required_argument, NULL, 'D' },
		{ "duration", required_argument, NULL, 'd' },
		{ "cost", required_argument, NULL, 'c' },
		{ "prio", required_argument, NULL, 'p' },
		{ "rate", required_argument, NULL, 'r' },
		{ "log", required_argument, NULL, 'l' },
		{ "json", required_argument, NULL, 'j' },
		{ "size", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *mode = NULL;
	unsigned int size = 100;
	pthread_t th[7];
	struct helper fep = { FEP, -1 }, feptx = { FEPTX, -1 };
	int udp = UDP, gtp = GTP, opt, nth = 0;
	uint64_t work = 0, chain;
	sigset_t sigs;

	v.tti = 1000000;
	v.duration = 10000000000ull;
	v.scale = 1;
	v.rate = 830;
	v.prio = 97;
	v.name = PROG;
	memcpy(v.cost, cost_default, sizeof(v.cost));
	if (argc > 1 && (!strcmp(argv[1], "flood") || !strcmp(argv[1], "sink"))) {
		mode = argv[1];
		argv++;
		argc--;
	}
	while ((opt = getopt_long(argc, argv, "n:t:s:D:d:c:p:r:l:j:S:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n': v.name = optarg; break;
		case 't': v.tti = duration_arg("--tti", optarg, true); break;
		case 's': v.scale = uint_arg("--scale", optarg, 1, 1000); break;
		case 'D': v.deadline = duration_arg("--deadline", optarg, true); break;
		case 'd': v.duration = duration_arg("--duration", optarg, true); break;
		case 'c': cost_arg(optarg); break;
		case 'p': v.prio = (int)uint_arg("--prio", optarg, 2, 99); break;
		case 'r': v.rate = uint_arg("--rate", optarg, 1, 1000000); break;
		case 'l': v.log = optarg; break;
		case 'j': v.json = optarg; break;
		case 'S': size = uint_arg("--size", optarg, 60, 1514); break;
		case 'h': usage(stdout); return 0;
		default: fputs("(see vbbu --help)\n", stderr); return 2;
		}
	}
	if (mode) {
		if (optind != argc - 1)
			usage_error("%s needs one interface name", mode);
		return flood_or_sink(!strcmp(mode, "flood"), argv[optind], v.duration, size);
	}
	if (optind != argc)
		usage_error("unexpected argument '%s'", argv[optind]);

	v.tti *= v.scale;
	v.deadline = (v.deadline ? v.deadline : v.tti / v.scale) * v.scale;
	for (int i = 0; i < NCOST; i++)
		v.cost[i] *= v.scale;
	v.rate = v.rate / v.scale ? v.rate / v.scale : 1;
	for (int i = RU; i <= LTE; i++)
		work += v.cost[i];
	chain = v.cost[RU] + (v.cost[FEP] > v.cost[FEPTX] ? v.cost[FEP] : v.cost[FEPTX]);
	if (chain >= v.tti)
		usage_error("--cost: ru + max(fep, feptx) = %.3f ms does not fit in a TTI of %.3f ms",
			    chain / 1e6, v.tti / 1e6);
	v.n = v.duration / v.tti;
	if (!v.n)
		usage_error("--duration %.3f s is shorter than one TTI", v.duration / 1e9);

	v.t = calloc(v.n, sizeof(*v.t));
	if (!v.t)
		die("out of memory for %" PRIu64 " subframes", v.n);
	v.ev_fep = eventfd(0, 0);
	v.ev_feptx = eventfd(0, 0);
	v.ev_done = eventfd(0, 0);
	v.ev_lte = eventfd(0, 0);
	if (v.ev_fep < 0 || v.ev_feptx < 0 || v.ev_done < 0 || v.ev_lte < 0)
		die("eventfd: %s", strerror(errno));
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, v.bh) || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, v.gtp))
		die("socketpair: %s", strerror(errno));
	fep.ev = v.ev_fep;
	feptx.ev = v.ev_feptx;
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		fprintf(stderr, PROG ": mlockall: %s (continuing)\n", strerror(errno));
	name_self(PROG);	/* not lte-softmodem: that is the L2 thread's name */
	/*
	 * Every thread inherits the mask: main alone takes these, in
	 * wait_rt().  Blocked before the "starting" line, so that a caller
	 * who saw it can stop the run with SIGINT/SIGTERM and get a summary.
	 */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	printf(PROG ": %s: starting: %" PRIu64 " subframes of %.3f ms, %.2f CPU of RT work, deadline %.3f ms\n",
	       v.name, v.n, v.tti / 1e6, (double)work / v.tti, v.deadline / 1e6);
	fflush(stdout);

	if (pthread_barrier_init(&v.ready, NULL, 4))
		die("pthread_barrier_init: %s", strerror(errno));
	v.main = pthread_self();
	atomic_store(&v.running, 4);
	if (pthread_create(&th[nth++], NULL, fep_thread, &fep) ||
	    pthread_create(&th[nth++], NULL, fep_thread, &feptx) ||
	    pthread_create(&th[nth++], NULL, lte_thread, NULL) ||
	    pthread_create(&th[nth++], NULL, ru_thread, NULL) ||
	    pthread_create(&th[nth++], NULL, non_rt_thread, &udp) ||
	    pthread_create(&th[nth++], NULL, non_rt_thread, &gtp) ||
	    pthread_create(&th[nth++], NULL, backhaul_thread, NULL))
		die("pthread_create: %s", strerror(errno));
	wait_rt(&sigs);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	atomic_store(&v.stop, true);
	for (int i = 4; i < nth; i++)
		pthread_join(th[i], NULL);
	report();
	pthread_barrier_destroy(&v.ready);
	free(v.t);
	return 0;
}
