// SPDX-License-Identifier: GPL-2.0
/*
 * hcbstrace: the command line of the subcommands, parsed with argp, and
 * the exit code of an errno.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroups.h"
#include "opts.h"

int hcbs_exit_code(int err)
{
	/* The exit codes hcbsctl gives for the same causes. */
	switch (err) {
	case 0:
		return EXIT_OK;
	case -ENOENT:
	case -ESRCH:
		return EXIT_NOTFOUND;
	case -EACCES:
	case -EPERM:
		return EXIT_PERM;
	case -ENOMEDIUM:	/* no cpu cgroup hierarchy mounted */
		return EXIT_NOHCBS;
	default:
		return EXIT_ERROR;
	}
}

/*
 * Every option of hcbstrace.  One that a subcommand's table lacks is
 * parsed anyway (hidden from its --help) and refused as "does not apply".
 */
static const struct argp_option all_options[] = {
	{ "container", 'c', "NAME", 0, NULL, 0 },
	{ "cgroup", 'g', "PATH", 0, NULL, 0 },
	{ "lxcpath", 'P', "PATH", 0, NULL, 0 },
	{ "pid", 'p', "PID", 0, NULL, 0 },
	{ "comm", 'C', "NAME", 0, NULL, 0 },
	{ "duration", 'd', "DUR", 0, NULL, 0 },
	{ "threads", 'T', NULL, 0, NULL, 0 },
	{ "json", 'j', NULL, 0, NULL, 0 },
	{ "quiet", 'q', NULL, 0, NULL, 0 },
	{ "verbose", 'v', NULL, 0, NULL, 0 },
	{ "csv", OPT_CSV, "FILE", 0, NULL, 0 },
	{ "max-latency", OPT_MAX_LATENCY, "DUR", 0, NULL, 0 },
	{ "max-lateness", OPT_MAX_LATENESS, "L", 0, NULL, 0 },
	{ "period", OPT_PERIOD, "DUR", 0, NULL, 0 },
	{ "deadline", OPT_DEADLINE, "DUR", 0, NULL, 0 },
	{ "all-policies", OPT_ALL_POLICIES, NULL, 0, NULL, 0 },
	{ "ringbuf-size", OPT_RINGBUF_SIZE, "N", 0, NULL, 0 },
	{ "group-level", OPT_GROUP_LEVEL, "N", 0, NULL, 0 },
	/* -h as well as argp's --help and -?, as the libbpf-tools have it. */
	{ NULL, 'h', NULL, 0, NULL, 0 },
	{ 0 }
};

#define NR_ALL (sizeof(all_options) / sizeof(all_options[0]) - 1)

static const struct argp_option *find_option(const struct argp_option *opts, int key)
{
	for (; opts->name || opts->key; opts++)
		if (opts->key == key)
			return opts;
	return NULL;
}

struct parse_state {
	struct hcbs_opts *o;
	const struct argp_option *options;	/* the subcommand's */
	const char *containers[HCBS_MAX_CGROUPS], *cgroups[HCBS_MAX_CGROUPS];
	int nr_containers, nr_cgroups, nr_args;
};

/* A duration option: 0 is refused, as every duration of hcbstrace is. */
static error_t duration_arg(struct parse_state *ps, const char *what, const char *arg,
			    uint64_t *ns)
{
	char err[HCBS_ERRLEN];

	if (hcbs_parse_duration_flags(arg, HCBS_DUR_NONZERO, ns, err, sizeof(err))) {
		hcbs_err(ps->o, "%s: %s", what, err);
		return EINVAL;
	}
	return 0;
}

static error_t positional_arg(struct parse_state *ps, const char *arg)
{
	struct hcbs_opts *o = ps->o;
	char *end;

	switch (ps->nr_args++) {
	case 0:
		return duration_arg(ps, "interval", arg, &o->interval_ns);
	case 1:
		errno = 0;
		o->count = strtol(arg, &end, 10);
		if (errno || *end || o->count <= 0) {
			hcbs_err(o, "count '%s': expected a positive number of intervals", arg);
			return EINVAL;
		}
		return 0;
	default:
		hcbs_err(o, "unexpected argument '%s' (usage: hcbstrace %s [options] [interval [count]])",
			 arg, o->cmd);
		return EINVAL;
	}
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct parse_state *ps = state->input;
	struct hcbs_opts *o = ps->o;
	char *end;

	if (key == ARGP_KEY_ARG)
		return positional_arg(ps, arg);
	if (!find_option(all_options, key))
		return ARGP_ERR_UNKNOWN;
	if (key != 'h' && !find_option(ps->options, key)) {
		hcbs_err(o, "--%s does not apply to %s (see hcbstrace %s --help)",
			 find_option(all_options, key)->name, o->cmd, o->cmd);
		return EINVAL;
	}
	switch (key) {
	case 'c':
	case 'g':
		if (ps->nr_containers + ps->nr_cgroups >= HCBS_MAX_CGROUPS) {
			hcbs_err(o, "at most %d --cgroup/--container filters", HCBS_MAX_CGROUPS);
			return EINVAL;
		}
		if (key == 'c')
			ps->containers[ps->nr_containers++] = arg;
		else
			ps->cgroups[ps->nr_cgroups++] = arg;
		break;
	case 'P': o->lxcpath = arg; break;
	case 'p':
		if (hcbs_parse_pid(arg, &o->pid, NULL, 0)) {
			hcbs_err(o, "--pid '%s': expected a process id", arg);
			return EINVAL;
		}
		break;
	case 'C':
		if (strlen(arg) >= HCBS_COMM_LEN) {
			hcbs_err(o, "--comm '%s': a task name has at most %d characters",
				 arg, HCBS_COMM_LEN - 1);
			return EINVAL;
		}
		o->has_comm = true;
		snprintf(o->comm, sizeof(o->comm), "%s", arg);
		break;
	case 'd': return duration_arg(ps, "--duration", arg, &o->duration_ns);
	case 'T': o->threads = true; break;
	case 'j': o->json = true; break;
	case 'q': o->quiet = true; break;
	case 'v': o->verbose = true; break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case OPT_CSV: o->csv = arg; break;
	case OPT_MAX_LATENCY: return duration_arg(ps, "--max-latency", arg, &o->max_latency_ns);
	case OPT_MAX_LATENESS:
		errno = 0;
		o->max_lateness = strtod(arg, &end);
		if (errno || *end || end == arg || !isfinite(o->max_lateness) ||
		    o->max_lateness < -1) {
			hcbs_err(o, "--max-lateness '%s': expected a fraction of the period >= -1 (e.g. 0.1)",
				 arg);
			return EINVAL;
		}
		o->has_max_lateness = true;
		break;
	case OPT_PERIOD: return duration_arg(ps, "--period", arg, &o->period_ns);
	case OPT_DEADLINE: return duration_arg(ps, "--deadline", arg, &o->deadline_ns);
	case OPT_ALL_POLICIES: o->all_policies = true; break;
	case OPT_RINGBUF_SIZE:
		if (hcbs_parse_size(arg, &o->ringbuf_size, NULL, 0) || o->ringbuf_size < 4096 ||
		    (o->ringbuf_size & (o->ringbuf_size - 1)) || o->ringbuf_size > (1u << 30)) {
			hcbs_err(o, "--ringbuf-size '%s': expected a power of two from 4K to 1024M",
				 arg);
			return EINVAL;
		}
		break;
	case OPT_GROUP_LEVEL:
		errno = 0;
		o->group_level = (int)strtol(arg, &end, 10);
		if (errno || *end || end == arg || o->group_level < -1 || o->group_level > 64) {
			hcbs_err(o, "--group-level '%s': expected -1 (own cgroup) or 0..64", arg);
			return EINVAL;
		}
		break;
	}
	return 0;
}

/*
 * --pid names a process that runs now, by its process id: the BPF side
 * matches it against each task's tgid, so a pid that does not exist, or
 * the id of a thread that is not its process's first, would match nothing
 * and the run would trace nothing until stopped.  0, -ESRCH (no such
 * process) or -EINVAL (a thread), with the message printed.
 */
static int pid_check(const struct hcbs_opts *o)
{
	char path[64], e[HCBS_ERRLEN], *text = NULL, *t;
	long tgid = 0;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)o->pid);
	ret = hcbs_read_text(path, &text, e, sizeof(e));
	if (ret == -ENOENT || ret == -ESRCH) {
		hcbs_err(o, "--pid %d: no such process (expected the id of a running process)",
			 (int)o->pid);
		return -ESRCH;
	}
	if (ret) {
		hcbs_err(o, "--pid %d: %s", (int)o->pid, e);
		return ret;
	}
	t = strstr(text, "\nTgid:");
	if (t)
		tgid = strtol(t + 6, NULL, 10);
	free(text);
	if (tgid > 0 && tgid != o->pid) {
		hcbs_err(o, "--pid %d is a thread of process %ld: expected a process id (--pid %ld)",
			 (int)o->pid, tgid, tgid);
		return -EINVAL;
	}
	return 0;
}

/* @options, then every other option of hcbstrace, hidden. */
static struct argp_option *argp_table(const struct argp_option *options)
{
	size_t n = 0, k;
	struct argp_option *t;

	while (options[n].name || options[n].key)
		n++;
	t = calloc(n + NR_ALL + 1, sizeof(*t));
	if (!t)
		return NULL;
	memcpy(t, options, n * sizeof(*t));
	k = n;
	for (size_t i = 0; i < NR_ALL; i++)
		if (!find_option(options, all_options[i].key)) {
			t[k] = all_options[i];
			t[k++].flags |= OPTION_HIDDEN;
		}
	return t;
}

int hcbs_parse_opts(struct hcbs_opts *o, const char *cmd, const struct argp_option *options,
		    const char *doc, int argc, char **argv)
{
	struct parse_state ps = { .o = o, .options = options };
	struct argp argp = {
		.parser = parse_arg,
		.args_doc = "[interval [count]]",
		.doc = doc,
		.children = NULL,
		.help_filter = NULL,
		.argp_domain = NULL,
	};
	char name[64], **av = NULL;
	struct argp_option *table;
	int err;

	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->argc = argc;
	o->argv = argv;
	o->group_level = 1;

	/* argp's messages and usage line name "hcbstrace CMD". */
	table = argp_table(options);
	av = calloc((size_t)argc + 1, sizeof(*av));
	if (!table || !av || argc < 1) {
		free(table);
		free(av);
		hcbs_err(o, "%s", strerror(ENOMEM));
		return EXIT_ERROR;
	}
	snprintf(name, sizeof(name), "hcbstrace %s", cmd);
	av[0] = name;
	memcpy(av + 1, argv + 1, (size_t)(argc - 1) * sizeof(*av));
	argp.options = table;
	argp_err_exit_status = EXIT_ERROR;
	err = argp_parse(&argp, argc, av, 0, NULL, &ps);
	free(table);
	free(av);
	if (err)
		return EXIT_ERROR;
	if (o->deadline_ns && o->period_ns && o->deadline_ns > o->period_ns) {
		hcbs_err(o, "--deadline must not exceed --period");
		return EXIT_ERROR;
	}
	if (o->pid) {
		err = pid_check(o);
		if (err)
			return hcbs_exit_code(err);
	}
	/*
	 * Test builds only: stop once the command line is read, before any
	 * container, cgroup or BPF is looked at (tests/test_cli.sh runs the
	 * examples of every --help so).
	 */
	if (hcbs_test_env("HCBS_TEST_PARSE_ONLY"))
		exit(EXIT_OK);
	return hcbs_exit_code(hcbs_cgroups_select(o, ps.containers, ps.nr_containers,
						  ps.cgroups, ps.nr_cgroups));
}
