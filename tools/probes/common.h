/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcbstrace: the user side shared by the subcommands: options, cgroup
 * selection and naming, BPF feature probes, the main loop's clock, and
 * the text/JSON output helpers.
 */
#ifndef HCBSTRACE_COMMON_H
#define HCBSTRACE_COMMON_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "hcbs.h"
#include "hcbstrace.h"

#define HCBSTRACE_SCHEMA	"hcbstrace/1"

/* Exit codes. */
#define EXIT_OK		0
#define EXIT_ERROR	1
#define EXIT_THRESHOLD	2	/* a --max-* bound was crossed */

/* Which options a subcommand accepts. */
enum {
	OPT_THREADS	= 1 << 0,
	OPT_MAX_LAT	= 1 << 1,
	OPT_LATENESS	= 1 << 2,	/* --period --deadline --max-lateness --csv --all-policies */
	OPT_TASK_FILTER	= 1 << 3,	/* --pid --comm */
};

struct hcbs_cg_target {
	char path[PATH_MAX];
	char name[128];		/* container name or path under the mount */
	uint64_t id;
	int level;
};

struct hcbs_opts {
	const char *cmd;
	int argc;
	char **argv;

	uint64_t duration_ns;	/* 0: until interrupted */
	uint64_t interval_ns;	/* 0: print once, at the end */
	long count;		/* intervals; 0: unlimited */

	pid_t pid;
	bool has_comm;
	char comm[HCBS_COMM_LEN];
	int nr_cg;
	struct hcbs_cg_target cg[HCBS_MAX_CGROUPS];
	int cg_version;		/* 1 or 2 */
	char cg_mount[PATH_MAX];/* where that hierarchy is mounted */
	char cg_mount_root[PATH_MAX];
	const char *lxcpath;
	int group_level;
	bool threads;

	bool json;
	const char *csv;
	bool quiet;
	bool verbose;

	uint64_t max_latency_ns;
	bool has_max_lateness;
	double max_lateness;
	uint64_t period_ns;
	uint64_t deadline_ns;
	bool all_policies;
	uint64_t ringbuf_size;
};

extern volatile sig_atomic_t hcbs_exiting;

/* Parse the command line of subcommand @cmd; prints the error or help. */
int hcbs_parse_opts(struct hcbs_opts *o, const char *cmd, unsigned int accept,
		    const char *help, int argc, char **argv);

void hcbs_err(const struct hcbs_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Common checks before loading: privileges, BTF.  Prints the error. */
int hcbs_check_env(const struct hcbs_opts *o);
/* Does the kernel BTF have tracepoint @tp (btf_trace_@tp)? */
bool hcbs_have_tracepoint(const char *tp);
/* Can tp_btf programs be loaded here (else use raw_tp)? */
bool hcbs_tp_btf_works(const char *tp);
/* Explain a failed skeleton load or attach in one line. */
void hcbs_explain_bpf_error(const struct hcbs_opts *o, const char *what, int err);
void hcbs_setup_libbpf(const struct hcbs_opts *o);
void hcbs_install_signals(void);

struct bpf_link;
struct bpf_object_skeleton;

#define HCBS_MAX_PROGS	8

/* The programs of a subcommand's skeleton, loaded and attached. */
struct hcbs_bpf {
	struct bpf_link *links[HCBS_MAX_PROGS];
	int nr_links;
	bool use_btf;		/* the tp_btf programs, else their raw_tp twins */
};

/*
 * Load the programs of the opened skeleton @skel, one of each tp_btf and
 * raw_tp pair (HCBS_TP_PROGS): tp_btf where the kernel takes it on every
 * tracepoint, else raw_tp; then attach them.  Prints the error.
 */
int hcbs_bpf_load(struct hcbs_bpf *b, const struct hcbs_opts *o,
		  struct bpf_object_skeleton *skel);
void hcbs_bpf_detach(struct hcbs_bpf *b);

/* CLOCK_MONOTONIC in ns: the clock of bpf_ktime_get_ns(). */
uint64_t hcbs_now_ns(void);

/* Run-loop bookkeeping shared by the subcommands. */
struct hcbs_clock {
	uint64_t start_ns;
	uint64_t end_ns;	/* 0: no duration */
	uint64_t next_tick_ns;	/* 0: no interval */
	long ticks;
	time_t start_wall;
};
void hcbs_clock_start(struct hcbs_clock *c, const struct hcbs_opts *o);
/* Due for an interval report?  Advances the tick. */
bool hcbs_clock_tick(struct hcbs_clock *c, const struct hcbs_opts *o);
/* Reached the duration or the interval count? */
bool hcbs_clock_done(const struct hcbs_clock *c, const struct hcbs_opts *o);

/* Name of cgroup @id ("vbbu1" for lxc.payload.vbbu1, else its path). */
const char *hcbs_cgroup_name(const struct hcbs_opts *o, uint64_t id);
/* Path of cgroup @id under the mount, without a leading '/'; NULL if unknown. */
const char *hcbs_cgroup_path(const struct hcbs_opts *o, uint64_t id);
void hcbs_cgroup_names_free(void);

/* Output helpers. */
void hcbs_print_header(const struct hcbs_opts *o, const struct hcbs_clock *c,
		       const char *what);
void hcbs_json_preamble(struct hcbs_json *j, const struct hcbs_opts *o,
			const struct hcbs_clock *c, const char *stop_reason,
			const char *threshold_cause);
/* "812.3" us with one decimal, or "-" for none. */
char *hcbs_fmt_us(uint64_t ns, char *buf, size_t len);


/* Copy the filters into a skeleton's rodata (the same names in each). */
#define HCBS_SET_FILTERS(rodata, o) do {					\
	(rodata)->targ_tgid = (o)->pid;						\
	(rodata)->filter_comm = (o)->has_comm;					\
	memcpy((void *)(rodata)->targ_comm, (o)->comm, HCBS_COMM_LEN);		\
	(rodata)->nr_targ_cg = (o)->nr_cg;					\
	for (int i_ = 0; i_ < (o)->nr_cg; i_++) {				\
		(rodata)->targ_cgid[i_] = (o)->cg[i_].id;			\
		(rodata)->targ_cglevel[i_] = (o)->cg[i_].level;			\
	}									\
	(rodata)->cg_v1 = (o)->cg_version == 1;					\
	(rodata)->group_level = (o)->group_level;				\
} while (0)

#endif /* HCBSTRACE_COMMON_H */
