/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcbstrace: the command line.  Each subcommand lists the options it takes
 * in an argp table of its own (with its --help text and examples), as the
 * libbpf-tools do; opts.c parses them all with one parser, so an option
 * means the same in every subcommand, and refuses one that another
 * subcommand takes as "does not apply".
 */
#ifndef HCBSTRACE_OPTS_H
#define HCBSTRACE_OPTS_H

#include <argp.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "hcbs.h"
#include "hcbstrace.h"
#include "messages.h"

/*
 * Exit codes.  For the causes hcbsctl also has, hcbsctl's codes
 * (enum hcbs_exit): the same cause gives the same status in every tool.
 */
#define EXIT_OK		0
#define EXIT_ERROR	1
#define EXIT_THRESHOLD	2	/* a --max-* bound was crossed */
#define EXIT_NOTFOUND	3	/* no such container, cgroup or process, not a cgroup */
#define EXIT_NOHCBS	4	/* kernel without HCBS (servers: no tracepoints),
				 * no cpu cgroup hierarchy mounted */
#define EXIT_PERM	5	/* permission denied (BPF needs root) */

/* The exit code for a negative errno (0: EXIT_OK). */
int hcbs_exit_code(int err);

/* The keys of the options that have no short form. */
enum {
	OPT_CSV = 256, OPT_MAX_LATENCY, OPT_MAX_LATENESS, OPT_PERIOD, OPT_DEADLINE,
	OPT_ALL_POLICIES, OPT_RINGBUF_SIZE, OPT_GROUP_LEVEL,
};

/* Lines of the subcommands' tables. */
#define HCBS_OPT_LXCPATH							\
	{ "lxcpath", 'P', "PATH", 0, "LXC path for --container", 0 }
/* The filters of the subcommands that follow tasks (@who: "tasks"). */
#define HCBS_OPT_TASK_FILTERS(who)						\
	{ "container", 'c', "NAME", 0, "only " who " of this LXC container (repeatable)", 0 }, \
	HCBS_OPT_LXCPATH,							\
	{ "cgroup", 'g', "PATH", 0, "only " who " in this cgroup or below (repeatable)", 0 }, \
	{ "pid", 'p', "PID", 0, "only the threads of this process", 0 },	\
	{ "comm", 'C', "NAME", 0, "only " who " with this name", 0 }
/* --group-level, with what its default and -1 mean there. */
#define HCBS_OPT_GROUP_LEVEL(defaults)						\
	{ "group-level", OPT_GROUP_LEVEL, "N", 0,				\
	  "without filters, fold cgroups into their ancestor at level N (" defaults ")", 0 }
/* The last lines of every table: --duration, the output, the end. */
#define HCBS_OPT_COMMON								\
	{ "duration", 'd', "DUR", 0,						\
	  "stop after DUR (10s, 2m, 1h; a unit is required)", 0 },		\
	{ "json", 'j', NULL, 0, "print JSON (schema hcbstrace/1) instead of text", 0 }, \
	{ "quiet", 'q', NULL, 0, "no progress messages", 0 },			\
	{ "verbose", 'v', NULL, 0, "print the libbpf log", 0 },		\
	{ 0 }

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
 * Parse the command line of subcommand @cmd, whose options are @options
 * (ending with { 0 }) and whose --help text is @doc (argp's: the part
 * before \v above the options, the rest below), and select its cgroups
 * (cgroups.h).  Prints the error, or the help and exits.  Returns an exit
 * code: EXIT_OK, or the status to exit with.
 */
int hcbs_parse_opts(struct hcbs_opts *o, const char *cmd, const struct argp_option *options,
		    const char *doc, int argc, char **argv);

#endif /* HCBSTRACE_OPTS_H */
