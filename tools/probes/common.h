/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcbstrace: the user side shared by the subcommands: options, cgroup
 * selection and naming, BPF feature probes and loading, the main loop,
 * the output's columns, and the text/JSON output helpers.
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
#include <unistd.h>

#include "hcbs.h"
#include "hcbstrace.h"

#define HCBSTRACE_SCHEMA	"hcbstrace/1"

/*
 * Exit codes.  For the causes hcbsctl also has, hcbsctl's codes
 * (enum hcbs_exit): the same cause gives the same status in every tool.
 */
#define EXIT_OK		0
#define EXIT_ERROR	1
#define EXIT_THRESHOLD	2	/* a --max-* bound was crossed */
#define EXIT_NOTFOUND	3	/* no such container or cgroup, not a cgroup */
#define EXIT_NOHCBS	4	/* kernel without HCBS (servers: no tracepoints) */
#define EXIT_PERM	5	/* permission denied (BPF needs root) */

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

/*
 * Parse the command line of subcommand @cmd, check that BPF programs can
 * be loaded here (privileges, BTF) and set up libbpf's log.  Prints the
 * error, or the help and exits.  Returns an exit code (EXIT_OK, or the
 * status to exit with).
 */
int hcbs_init(struct hcbs_opts *o, const char *cmd, unsigned int accept,
	      const char *help, int argc, char **argv);

void hcbs_err(const struct hcbs_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Lines of every subcommand's --help. */
#define HCBS_HELP_LXCPATH							\
"  -P, --lxcpath PATH     LXC path for --container\n"
#define HCBS_HELP_DURATION							\
"  -d, --duration DUR     stop after DUR (10s, 2m, 1h; a unit is required)\n"
#define HCBS_HELP_OUTPUT							\
"  -j, --json             print JSON (schema hcbstrace/1) instead of text\n"	\
"  -q, --quiet            no progress messages\n"				\
"  -v, --verbose          print the libbpf log\n"				\
"  -h, --help             this help\n"						\
"\n"

/* Does the kernel BTF have tracepoint @tp (btf_trace_@tp)? */
bool hcbs_have_tracepoint(const char *tp);
/* Can tp_btf programs be loaded here (else use raw_tp)? */
bool hcbs_tp_btf_works(const char *tp);
/* Explain a failed skeleton load or attach in one line. */
void hcbs_explain_bpf_error(const struct hcbs_opts *o, const char *what, int err);

struct bpf_link;
struct bpf_object_skeleton;
struct ring_buffer;

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

/*
 * @arr, of @n elements of @size bytes in a capacity of *@cap, made room
 * for one more: the capacity doubles, from @first.  NULL when out of
 * memory, and @arr is left as it was.
 */
void *hcbs_grow(void *arr, size_t n, size_t *cap, size_t size, size_t first);

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
/*
 * Start the clock, catch SIGINT and SIGTERM (they end hcbs_trace_wait()),
 * and say on stderr that tracing has begun.
 */
void hcbs_trace_start(struct hcbs_clock *c, const struct hcbs_opts *o,
		      const struct hcbs_bpf *b);
/*
 * The main loop's wait: 100 ms, polling @rb (if not NULL) for its events.
 * 1: go on; 0: stop, on SIGINT or SIGTERM, or with *@reason set to
 * "duration" or "count" once that is reached; < 0: polling @rb failed.
 */
int hcbs_trace_wait(const struct hcbs_clock *c, const struct hcbs_opts *o,
		    const char **reason, struct ring_buffer *rb);
/* Due for an interval report?  Advances the tick. */
bool hcbs_clock_tick(struct hcbs_clock *c, const struct hcbs_opts *o);

/* Name of cgroup @id ("vbbu1" for lxc.payload.vbbu1, else its path). */
const char *hcbs_cgroup_name(const struct hcbs_opts *o, uint64_t id);
/*
 * Is cgroup @id selected by the cgroup filters (for events that carry only
 * a cgroup id)?  Yes if it is a filter's, or at or below a filter's path.
 */
bool hcbs_cgroup_selected(const struct hcbs_opts *o, uint64_t id);
/* Names and paths stay valid until this. */
void hcbs_cgroup_names_free(void);

/*
 * The columns of the output, one per cgroup: with @filters, first one per
 * cgroup filter, in order and even if it saw nothing; then one per other
 * cgroup, in the order hcbs_cols_find() meets them.
 */
struct hcbs_col {
	uint64_t cgid;
	const char *name;
	char unknown[32];	/* the name of a cgroup not under the mount */
};

struct hcbs_cols {
	struct hcbs_col *c;
	size_t n;
	size_t cap;		/* the filters, plus @extra of hcbs_cols_init(), plus 1 */
	void *data;		/* the caller's, one of @size bytes per column */
};

/*
 * Room for @extra columns besides the filters'; returns cols->data, zeroed,
 * or NULL when out of memory.
 */
void *hcbs_cols_init(struct hcbs_cols *cols, const struct hcbs_opts *o, size_t extra,
		     bool filters, size_t size);
/* The column of cgroup @cgid, a new one if it has none. */
size_t hcbs_cols_find(struct hcbs_cols *cols, const struct hcbs_opts *o, uint64_t cgid);
/* Frees cols->data too. */
void hcbs_cols_free(struct hcbs_cols *cols);

/* Output helpers. */
/* "# hcbstrace CMD: WHAT[ (interval)]" and the time traced. */
void hcbs_print_header(const struct hcbs_opts *o, const struct hcbs_clock *c,
		       const char *what, bool interval);
/*
 * The text table of @cols: the names in columns of width @w (returned:
 * 10, or the longest name) after @label in @lw characters.
 */
int hcbs_print_names(const char *label, int lw, const struct hcbs_cols *cols);
/*
 * A row of that table: @label, then in each column the u64 at @first +
 * i * @stride (one field of an array of structs, one per column).
 */
void hcbs_print_row(const char *label, int lw, int w, const void *first, size_t stride,
		    size_t n);
/* "812.3" us with one decimal, or "-" for none. */
char *hcbs_fmt_us(uint64_t ns, char *buf, size_t len);

/*
 * The JSON document: "{" and the keys every subcommand has, up to
 * "cgroup_version"; hcbs_json_end() closes it and prints it.
 */
struct hcbs_json *hcbs_json_begin(const struct hcbs_opts *o, const struct hcbs_clock *c,
				  const char *stop_reason, const char *threshold_cause);
void hcbs_json_end(struct hcbs_json *j);
/* "@key": @name, "cgroup_id": @cgid */
void hcbs_json_cgroup(struct hcbs_json *j, const char *key, const char *name,
		      uint64_t cgid);

/* Members with unsigned values, from a table. */
struct hcbs_json_u64 {
	const char *key;
	uint64_t v;
};

void hcbs_json_u64s(struct hcbs_json *j, const struct hcbs_json_u64 *m, size_t n);
#define HCBS_JSON_U64S(j, ...) do {						\
	const struct hcbs_json_u64 m_[] = { __VA_ARGS__ };			\
	hcbs_json_u64s((j), m_, sizeof(m_) / sizeof(m_[0]));			\
} while (0)
/* "drops": { the counters } */
#define HCBS_JSON_DROPS(j, ...) do {						\
	hcbs_json_key((j), "drops");						\
	hcbs_json_object_begin(j);						\
	HCBS_JSON_U64S((j), __VA_ARGS__);					\
	hcbs_json_object_end(j);						\
} while (0)


/* Copy the filters into a skeleton's rodata (the same names in each). */
#define HCBS_SET_FILTERS(rodata, o) do {					\
	(rodata)->targ_tgid = (o)->pid;						\
	(rodata)->self_tgid = getpid();						\
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
