/* SPDX-License-Identifier: GPL-2.0 */
/* hcbsctl: what the subcommands share. */
#ifndef HCBSCTL_H
#define HCBSCTL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "hcbs.h"
#include "hcbs-analysis.h"
#include "hcbs-rt.h"

#define HCBSCTL_SCHEMA "hcbsctl/1"

struct opts {
	const char *cmd;		/* subcommand */
	const char *args[4];		/* its positional arguments */
	int nargs;
	const char *lxcpath;		/* -P */
	const char *cgroup;		/* --cgroup */
	const char *taskset;		/* --taskset */
	const char *period;		/* --period P or PMIN..PMAX */
	const char *step;		/* --step */
	const char *reservation;	/* --reservation Q/P */
	const char *order;		/* --order rm|dm|file */
	const char *cpus;		/* --cpus N (analyze) */
	const char *model;		/* --model global|partitioned (analyze) */
	const char *overhead;		/* --overhead TIME|N% (analyze, set --taskset) */
	bool json;
	bool quiet;			/* -q: see verbosity */
	/* fake sysctls and fair servers: test builds only (hcbs_test_env()) */
	const char *sysctl_dir;
	const char *fs_dir;
};

/* A resolved target: a container's cgroup or a raw cgroup. */
struct target {
	const char *label;		/* container name or cgroup path */
	char path[PATH_MAX];
	int version;			/* cgroup version, 0 if unknown */
	enum hcbs_rt_abi abi;
};

/*
 * How much hcbsctl says beside its report (-q, -v; docs/hcbsctl.md):
 * VERBOSITY_QUIET drops what the exit status already says (set, unset,
 * analyze; doctor's ok checks), VERBOSITY_VERBOSE adds notes on stderr.
 * Errors and warnings are said at every level.
 */
enum { VERBOSITY_QUIET = -1, VERBOSITY_NORMAL = 0, VERBOSITY_VERBOSE = 1 };
extern int verbosity;
/* -v: also take the notes of tools/lib (hcbs_notef()); @cmd heads them. */
void verbose_begin(const char *cmd);
/* With -v, "hcbsctl: CMD: message" on stderr, escaped as die_line()'s. */
void note_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * --json documents go through these: json_open() says why it fails,
 * json_close() returns an exit code and remembers that a document was
 * printed.  json_error() prints, once a command has failed without a
 * document (a usage error, a missing container), the error document:
 * the first error line, the exit status and the command (NULL if none).
 */
struct hcbs_json *json_open(void);
int json_close(struct hcbs_json *j);
void json_error(const char *cmd, int status);

/* "hcbsctl: CMD LABEL: message" on stderr. */
void die_line(const struct opts *o, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void warn_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * The cgroup tree a command walks: --cgroup PATH, else the root of the
 * cpu hierarchy.  No such hierarchy mounted is exit 4 (as no HCBS: this
 * machine holds no reservation), with the line printed, in every command.
 */
int cgroup_root(const struct opts *o, char *root, size_t len);
/* HCBS_EXIT_OK, or HCBS_EXIT_NOHCBS with one line when @root has no HCBS. */
int require_hcbs(const char *root, char *err, size_t errlen);
/* "hcbsctl: MSG", escaped as die_line()'s. */
void err_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The cgroup directory of systemd unit @unit (systemctl show's ControlGroup
 * against this process's cgroup2 mount).  -errno with a message in @err:
 * no systemd, no such unit or not running, systemctl failing.
 */
int unit_cgroup(const char *unit, char *path, size_t len, char *err, size_t errlen);

/* Resolve NAME (or --cgroup) into a target; returns an hcbs_exit code. */
int resolve_target(const struct opts *o, const char *name, struct target *t);

/* Refuse a kernel without HCBS (exit code) and warn if admission is off. */
int check_interface(const struct opts *o, struct target *t);

/* Shared printers. */
void json_header(struct hcbs_json *j, const char *cmd);
/*
 * The CPUs of the reservation of cgroup @dir: its cpu.rt.cpus (the CPUs of
 * its cpuset), or the online CPUs on a kernel without it or for a NULL
 * @dir.  Returns how many, and the list ("0-3") in @list.
 */
int reservation_cpus(const char *dir, char *list, size_t len);
void json_reservation(struct hcbs_json *j, const struct hcbs_rt *rt, int ncpus,
		      const char *cpu_list);
void json_stat(struct hcbs_json *j, const struct hcbs_rt_stat *st);
const char *fmt_rt(const struct hcbs_rt *rt, char *buf, size_t len);

int cmd_set(struct opts *o);
int cmd_unset(struct opts *o);
int cmd_get(struct opts *o);
int cmd_list(struct opts *o);
int cmd_free(struct opts *o);
int cmd_analyze(struct opts *o);
int cmd_overhead(struct opts *o);
int cmd_doctor(struct opts *o);

/* hcbsctl doctor's exit status beyond 0 (all ok): the worst finding. */
#define HCBSCTL_EXIT_WARNINGS	8	/* ready, with warnings */
#define HCBSCTL_EXIT_NOT_READY	9	/* a check failed */

/* cmd_free.c: the figures of hcbsctl free, per online CPU (doctor too). */
#define FREE_MAX_CPUS 1024
struct free_figures {
	struct hcbs_global g;
	struct hcbs_root_share share;
	bool share_set;
	double share_bw;		/* per CPU, when share_set */
	int ncpu;
	int cpus[FREE_MAX_CPUS];
	double fair[FREE_MAX_CPUS];	/* each CPU's fair server */
	double reserved[FREE_MAX_CPUS];	/* by the top-level groups, on each CPU */
	double reserved_most;		/* the most of them */
	int groups;			/* top-level reserved groups */
	bool assumed;			/* a fair server assumed 50ms/1s */
};
/*
 * Read them for the cgroup tree at @root: an hcbs_exit code, with one line
 * in @err (no HCBS, sysctls or the root share unreadable).
 */
int free_figures(const struct opts *o, const char *root, struct free_figures *f,
		 char *err, size_t errlen);
/* Free on CPU index @i: the share minus reserved when set, else the limit's. */
double free_on_cpu(const struct free_figures *f, int i);
/* @n CPUs, in increasing order, as a CPU list ("0-3,6") into @buf. */
void format_cpu_list(const int *cpus, int n, char *buf, size_t len);

/* cmd_overhead.c: the measurement of --overhead auto and hcbsctl overhead. */
/* @arg: a CPU number (NULL: the last online CPU); an hcbs_exit code. */
int overhead_cpu(const char *arg, int *cpu, char *err, size_t errlen);
/*
 * Measure on @cpu_arg: an hcbs_exit code and @err; on success the warning
 * of overhead_warning() on stderr.  A SIGINT, SIGTERM or SIGHUP during the
 * measurement is not returned: once everything is undone, one line says
 * so and the process dies of that signal (status 128 + N to a shell).
 */
int measure_overhead(const char *cpu_arg, struct hcbs_overhead_measurement *m, char *err,
		     size_t errlen);
/* Why other reservations make @m less than this machine's own figure, or NULL. */
const char *overhead_warning(const struct hcbs_overhead_measurement *m, char *buf, size_t len);
void print_overhead_measurement(const struct hcbs_overhead_measurement *m, const char *indent);
void json_overhead_measurement(struct hcbs_json *j, const struct hcbs_overhead_measurement *m);

#endif /* HCBSCTL_H */
