// SPDX-License-Identifier: GPL-2.0
/*
 * hcbsctl: HCBS reservations for LXC containers (and raw cgroups), and the
 * schedulability analysis that says which reservation a task set needs.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcbsctl.h"

static void usage(FILE *f)
{
	fputs(
"Usage: hcbsctl [OPTIONS] COMMAND [ARGS]\n"
"\n"
"Give LXC containers (or any cgroup) a Hierarchical Constant Bandwidth\n"
"Server reservation: RUNTIME every PERIOD on each CPU for their SCHED_FIFO/RR\n"
"tasks, and find out which reservation a task set needs.\n"
"\n"
"Commands:\n"
"  set NAME RUNTIME/PERIOD          reserve, e.g. 8ms/18ms\n"
"  set NAME --taskset FILE --period P\n"
"                                   reserve what FILE needs at period P\n"
"  get NAME                         show the reservation and cpu.rt.stat\n"
"  unset NAME                       back to max (no own reservation)\n"
"  list                             every container, every reserved cgroup\n"
"  free                             bandwidth still admissible per CPU\n"
"  analyze TASKSET                  schedulability in a reservation\n"
"  overhead [CPU]                   measure what a job costs its server here\n"
"  doctor                           is this machine ready for reservations?\n"
"  help [COMMAND]                   this help, or one command's usage\n"
"\n"
"Options:\n"
"  -P, --lxcpath PATH      container directory, as for lxc-* (default: LXC's)\n"
"  -c, --cgroup PATH       act on the cgroup directory PATH, not a container\n"
"                          (set/get/unset take no NAME then; free walks PATH);\n"
"                          a NAME with a '/' is such a PATH too\n"
"  -u, --unit UNIT         act on the cgroup of systemd unit UNIT (set/get/\n"
"                          unset, no NAME), e.g. vbbu-helper.service\n"
"  -j, --json              JSON output on stdout, schema hcbsctl/1 (every\n"
"                          command); a failure prints an error document\n"
"                          there too, and its one line on stderr\n"
"  -q, --quiet             set, unset, analyze: nothing on stdout, the exit\n"
"                          status says it all; doctor: only what is not ok.\n"
"                          Errors and warnings are still printed\n"
"  -v, --verbose           more on stderr: which cgroup a NAME is, the\n"
"                          admission figures, each file written\n"
"  -t, --taskset FILE      task set for set (- for stdin)\n"
"  -p, --period P          period for set --taskset and analyze; analyze also\n"
"                          takes a range PMIN..PMAX (see --step)\n"
"  -s, --step S            step of a period range (default: 100us)\n"
"  -r, --reservation Q/P   analyze: check this reservation\n"
"  -o, --order rm|dm|file  fixed-priority order (default: file priorities if\n"
"                          given, else deadline monotonic = rate monotonic\n"
"                          when deadlines equal periods)\n"
"  -m, --cpus N            analyze: the container's CPUs, each with its own\n"
"                          server (default: 1)\n"
"  -M, --model global|partitioned\n"
"                          analyze on N > 1 CPUs: threads that migrate between\n"
"                          the servers (global, the default) or pinned one CPU\n"
"                          each (partitioned); its verdict alone is printed and\n"
"                          sets the exit status (at N = 1: the one-CPU verdict)\n"
"  -O, --overhead TIME|N%|auto\n"
"                          analyze, set --taskset: what a job costs its server\n"
"                          on this machine beyond its WCET, per job (80us) or\n"
"                          as a share of each WCET (12%), or auto: measured\n"
"                          now (as hcbsctl overhead); added to every WCET\n"
"  -h, --help              this help\n"
"  -V, --version           version\n"
"\n"
"Durations take a unit: ns, us, ms, s, m, h (8ms, 500us, 1.5ms), at most\n"
"8760h; reservations and periods are whole microseconds.  A task set has\n"
"one task per line, \"WCET PERIOD [DEADLINE [PRIORITY]]\", # for comments.\n"
"\n"
"Examples:\n"
"  hcbsctl set vbbu1 8ms/18ms\n"
"  hcbsctl -P /srv/lxc get vbbu1\n"
"  hcbsctl --json list\n"
"  hcbsctl free\n"
"  hcbsctl analyze vbbu.ts --reservation 8ms/18ms\n"
"  hcbsctl analyze vbbu.ts --period 2ms..30ms --step 1ms\n"
"  hcbsctl analyze vbbu.ts --reservation 5440us/18ms --cpus 2 --model partitioned\n"
"  hcbsctl set vbbu1 --taskset vbbu.ts --period 18ms\n"
"  hcbsctl analyze vbbu.ts --period 18ms --overhead 150us\n"
"  hcbsctl overhead                  (then --overhead auto, or its figures)\n"
"  hcbsctl doctor\n"
"  hcbsctl --cgroup /sys/fs/cgroup/rt.slice set 100ms/1s\n"
"  hcbsctl get /sys/fs/cgroup/libpod_parent/libpod-ID   (a podman container)\n"
"  hcbsctl --cgroup /sys/fs/cgroup set 500ms/1s      (the root group's share)\n"
"\n"
"Exit status: 0 ok, 1 usage or bad input, 2 refused by the kernel (admission),\n"
"3 no such container or cgroup, 4 kernel without HCBS or no cpu cgroup\n"
"hierarchy mounted, 5 permission denied,\n"
"6 task set not schedulable, 7 other system error; doctor: 8 warnings,\n"
"9 not ready.  See hcbsctl(1).\n", f);
}

/* Options, as bits: which were given, which a command accepts. */
enum {
	O_LXCPATH = 1 << 0, O_CGROUP = 1 << 1, O_JSON = 1 << 2, O_TASKSET = 1 << 3,
	O_PERIOD = 1 << 4, O_STEP = 1 << 5, O_RESERVATION = 1 << 6, O_ORDER = 1 << 7,
	O_CPUS = 1 << 8, O_UNIT = 1 << 9, O_OVERHEAD = 1 << 10, O_MODEL = 1 << 11,
	O_QUIET = 1 << 12, O_VERBOSE = 1 << 13,
};

static const struct {
	int bit;
	const char *name;
} opt_names[] = {
	{ O_LXCPATH, "--lxcpath" }, { O_CGROUP, "--cgroup" }, { O_JSON, "--json" },
	{ O_TASKSET, "--taskset" }, { O_PERIOD, "--period" }, { O_STEP, "--step" },
	{ O_RESERVATION, "--reservation" }, { O_ORDER, "--order" }, { O_CPUS, "--cpus" },
	{ O_UNIT, "--unit" }, { O_OVERHEAD, "--overhead" }, { O_MODEL, "--model" },
	{ O_QUIET, "--quiet" }, { O_VERBOSE, "--verbose" },
};

static const struct {
	const char *name;
	int (*fn)(struct opts *o);
	int min, max;		/* positional arguments besides NAME */
	bool needs_name;	/* NAME unless --cgroup */
	int accept;		/* options that apply */
	const char *usage;	/* for help COMMAND */
} cmds[] = {
	{ "set", cmd_set, 1, 1, true,
	  O_LXCPATH | O_CGROUP | O_UNIT | O_TASKSET | O_PERIOD | O_ORDER | O_OVERHEAD |
	  O_JSON | O_QUIET | O_VERBOSE,
"Usage: hcbsctl [-P LXCPATH] [-q|-v|--json] set NAME RUNTIME/PERIOD\n"
"       hcbsctl [-P LXCPATH] set NAME --taskset FILE --period P [--order rm|dm|file]\n"
"                                     [--overhead TIME|N%|auto]\n"
"       hcbsctl --cgroup PATH set RUNTIME/PERIOD, or hcbsctl set PATH RUNTIME/PERIOD\n"
"       hcbsctl --unit UNIT set RUNTIME/PERIOD\n"
"\n"
"Reserve RUNTIME every PERIOD on each CPU (whole microseconds, e.g. 8ms/18ms),\n"
"or the least runtime that task set FILE (- for stdin) needs at period P.\n"
"With --cgroup naming the root cgroup (e.g. /sys/fs/cgroup), set the root\n"
"group's share: kept on every CPU for the RT groups, which divide it.\n"
"-q prints nothing on success (the exit status says it); -v adds, on stderr,\n"
"the cgroup, the admission figures and each write; --json prints what was set.\n" },
	{ "get", cmd_get, 0, 0, true, O_LXCPATH | O_CGROUP | O_UNIT | O_JSON | O_VERBOSE,
"Usage: hcbsctl [-P LXCPATH] [--json] get NAME\n"
"       hcbsctl --cgroup PATH [--json] get, or hcbsctl [--json] get PATH\n"
"       hcbsctl --unit UNIT [--json] get\n"
"\n"
"Show the reservation, the cgroup, the kernel interface and cpu.rt.stat.\n" },
	{ "unset", cmd_unset, 0, 0, true,
	  O_LXCPATH | O_CGROUP | O_UNIT | O_JSON | O_QUIET | O_VERBOSE,
"Usage: hcbsctl [-P LXCPATH] [-q|-v|--json] unset NAME\n"
"       hcbsctl --cgroup PATH unset, or hcbsctl unset PATH\n"
"       hcbsctl --unit UNIT unset\n"
"\n"
"Back to max (no own reservation); the period is kept.  On the root cgroup:\n"
"the root group's share is no longer set.  -q, -v and --json as for set.\n" },
	{ "list", cmd_list, 0, 0, false, O_LXCPATH | O_CGROUP | O_JSON | O_VERBOSE,
"Usage: hcbsctl [-P LXCPATH] [--json] list\n"
"       hcbsctl --cgroup PATH [--json] list\n"
"\n"
"Every LXC container: state, reservation, bandwidth per CPU, CPUs, usage,\n"
"throttling; then every cgroup with a reservation of its own and its owner\n"
"when its path names one (an LXC or OCI container: podman, CRI-O,\n"
"containerd, docker; a systemd unit).  With --cgroup, only the reserved\n"
"cgroups below PATH.\n" },
	{ "free", cmd_free, 0, 0, false, O_CGROUP | O_JSON | O_VERBOSE,
"Usage: hcbsctl [--cgroup PATH] [--json] free\n"
"\n"
"The RT bandwidth still admissible per CPU for a new top-level group (of the\n"
"cgroup tree at PATH, default the whole tree): the root group's share\n"
"(cpu.rt.max on the root) minus the top-level groups when it is set, else\n"
"the global limit minus the fair server and the top-level groups.\n" },
	{ "analyze", cmd_analyze, 1, 1, false,
	  O_JSON | O_PERIOD | O_STEP | O_RESERVATION | O_ORDER | O_CPUS | O_MODEL | O_OVERHEAD |
	  O_QUIET | O_VERBOSE,
"Usage: hcbsctl [-q|--json] analyze TASKSET --reservation Q/P\n"
"       hcbsctl [--json] analyze TASKSET --period P | --period PMIN..PMAX [--step S]\n"
"       (and --order rm|dm|file, --cpus N [--model global|partitioned],\n"
"       --overhead TIME|N%|auto)\n"
"\n"
"Is TASKSET (a file, - for stdin) schedulable in the reservation Q/P, what\n"
"least runtime does it need at period P, which period in a range needs the\n"
"least bandwidth: on one CPU, or on N CPUs (--cpus, default 1) with global\n"
"(the default) or partitioned (--model partitioned) fixed priorities.  Exit 6\n"
"when it does not fit in that model; with -q nothing is printed, the exit\n"
"status is the verdict.\n" },
	{ "overhead", cmd_overhead, 0, 1, false, O_JSON | O_VERBOSE,
"Usage: hcbsctl [--json] overhead [CPU]\n"
"\n"
"Measure what a job costs its server on this machine beyond its own CPU\n"
"time: a SCHED_FIFO process alone in a temporary cgroup reserved 40ms/100ms\n"
"on CPU (default: the last online CPU) runs 1000 jobs of 100us every 1ms\n"
"and 100 jobs of 2ms every 10ms, each spinning that much of its own CPU\n"
"time; what cpu.rt.stat charged the group gives a time per job plus a\n"
"percentage of each WCET.  About 2 s; needs root and the hcbs kernel.\n"
"--overhead auto in analyze and set --taskset measures the same way.\n" },
	{ "doctor", cmd_doctor, 0, 0, false, O_JSON | O_QUIET | O_VERBOSE,
"Usage: hcbsctl [-q|--json] doctor\n"
"\n"
"Is this machine ready for reservations, and if not, why: the HCBS kernel,\n"
"cgroup v2 and the cpu controller where containers go, the root share and\n"
"what is free per CPU, RCU boosting against the root RT tasks, the budget\n"
"hrtick, the clocksource, nohz_full and isolated CPUs, the LXC and OCI\n"
"hooks and the OCI node policy, the CPU frequency governors and SMT.  One\n"
"line per check: ok, warn or fail, what was found and the fix.  Reads only.\n"
"Exit 0 when every check is ok, 8 with warnings, 9 when one fails.  With -q\n"
"only the checks that warn or fail are printed, and nothing when all are ok.\n" },
};

#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static int help_command(int nargs, const char *const *args)
{
	if (!nargs) {
		usage(stdout);
		return HCBS_EXIT_OK;
	}
	if (nargs > 1) {
		err_line("help: expected at most one command (set, get, unset, list, free, analyze, overhead, doctor)");
		return HCBS_EXIT_USAGE;
	}
	for (size_t i = 0; i < NCMDS; i++) {
		if (strcmp(args[0], cmds[i].name))
			continue;
		fputs(cmds[i].usage, stdout);
		printf("\nOptions and exit status: hcbsctl --help, hcbsctl(1).\n");
		return HCBS_EXIT_OK;
	}
	err_line("help: unknown command '%s' (set, get, unset, list, free, analyze, overhead, doctor)",
		args[0]);
	return HCBS_EXIT_USAGE;
}

/*
 * The argument that held the unknown option @optopt (0 for a long one):
 * GNU getopt leaves optind on an unfinished cluster and past a finished
 * one, and permutes non-options it has skipped, so argv[optind - 1] alone
 * can be the container's name.
 */
static const char *bad_arg(int argc, char **argv, int opt)
{
	const char *prev = argv[optind - 1];

	if (!opt)
		return prev;
	if (prev[0] == '-' && prev[1] != '-' && strchr(prev + 1, opt))
		return prev;
	if (optind < argc && argv[optind][0] == '-' && strchr(argv[optind] + 1, opt))
		return argv[optind];
	return prev;
}

static void unknown_option(int argc, char **argv)
{
	const char *arg = bad_arg(argc, argv, optopt);

	if ((arg[1] >= '0' && arg[1] <= '9') || arg[1] == '.')
		err_line("'%s' is not an option, and negative durations are not accepted (e.g. 8ms/18ms, see hcbsctl --help)",
			arg);
	else if (optopt && strlen(arg) > 2)
		err_line("unknown option '-%c' in '%s' (see hcbsctl --help)",
			optopt, arg);
	else
		err_line("unknown option '%s' (see hcbsctl --help)", arg);
}

static int parse_and_run(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "lxcpath", required_argument, NULL, 'P' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "unit", required_argument, NULL, 'u' },
		{ "json", no_argument, NULL, 'j' },
		{ "taskset", required_argument, NULL, 't' },
		{ "period", required_argument, NULL, 'p' },
		{ "step", required_argument, NULL, 's' },
		{ "reservation", required_argument, NULL, 'r' },
		{ "order", required_argument, NULL, 'o' },
		{ "cpus", required_argument, NULL, 'm' },
		{ "model", required_argument, NULL, 'M' },
		{ "overhead", required_argument, NULL, 'O' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static char unit_path[PATH_MAX];
	const char *unit = NULL;
	int c, given = 0, bad = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":P:c:u:jqvt:p:s:r:o:m:M:O:hV", lopts, NULL)) != -1) {
		switch (c) {
		case 'P': o->lxcpath = optarg; given |= O_LXCPATH; break;
		case 'c': o->cgroup = optarg; given |= O_CGROUP; break;
		case 'u': unit = optarg; given |= O_UNIT; break;
		case 'j': o->json = true; given |= O_JSON; break;
		case 'q': o->quiet = true; given |= O_QUIET; break;
		case 'v': given |= O_VERBOSE; break;
		case 't': o->taskset = optarg; given |= O_TASKSET; break;
		case 'p': o->period = optarg; given |= O_PERIOD; break;
		case 's': o->step = optarg; given |= O_STEP; break;
		case 'r': o->reservation = optarg; given |= O_RESERVATION; break;
		case 'o': o->order = optarg; given |= O_ORDER; break;
		case 'm': o->cpus = optarg; given |= O_CPUS; break;
		case 'M': o->model = optarg; given |= O_MODEL; break;
		case 'O': o->overhead = optarg; given |= O_OVERHEAD; break;
		case 'h':
			if (!bad) {
				usage(stdout);
				return HCBS_EXIT_OK;
			}
			break;
		case 'V':
			if (!bad) {
				printf("hcbsctl %s\n", HCBS_VERSION);
				return HCBS_EXIT_OK;
			}
			break;
		case ':':
			/* The first bad option is said; the rest is read for --json. */
			if (!bad++)
				err_line("option '%s' needs an argument (see hcbsctl --help)",
					bad_arg(argc, argv, optopt));
			break;
		default:
			if (!bad++)
				unknown_option(argc, argv);
			break;
		}
	}
	if (bad)
		return HCBS_EXIT_USAGE;
	if ((given & O_QUIET) && (given & (O_VERBOSE | O_JSON))) {
		err_line("--quiet and %s together: give one of them (see hcbsctl --help)",
			 given & O_VERBOSE ? "--verbose" : "--json, whose document is the whole output,");
		return HCBS_EXIT_USAGE;
	}
	if (optind >= argc) {
		err_line("no command given (set, get, unset, list, free, analyze, overhead, doctor, help; see hcbsctl --help)");
		return HCBS_EXIT_USAGE;
	}
	o->cmd = argv[optind++];
	for (; optind < argc; optind++) {
		if (o->nargs == 4) {
			err_line("%s: too many arguments (see hcbsctl help %s)",
				o->cmd, o->cmd);
			return HCBS_EXIT_USAGE;
		}
		o->args[o->nargs++] = argv[optind];
	}
	if (!strcmp(o->cmd, "help")) {
		if (given) {
			err_line("help: takes no options (hcbsctl help [COMMAND])");
			return HCBS_EXIT_USAGE;
		}
		return help_command(o->nargs, o->args);
	}
	/* Test builds only: NULL (the kernel's own files) in hcbsctl itself. */
	o->sysctl_dir = hcbs_test_env("HCBSCTL_SYSCTL_DIR");
	o->fs_dir = hcbs_test_env("HCBSCTL_FAIR_SERVER_DIR");

	for (size_t i = 0; i < NCMDS; i++) {
		int min = cmds[i].min, max = cmds[i].max, extra = given & ~cmds[i].accept;

		if (strcmp(o->cmd, cmds[i].name))
			continue;
		/*
		 * A NAME with a '/' is a cgroup directory, as with --cgroup: a
		 * container's name is one directory under the LXC path, so it
		 * cannot be one; a podman or CRI-O container has only its cgroup.
		 */
		if (cmds[i].needs_name && !o->cgroup && !unit && o->nargs &&
		    strchr(o->args[0], '/')) {
			if (given & O_LXCPATH) {
				err_line("%s: --lxcpath does not apply to a cgroup path ('%s'; a container's NAME has no '/')",
					o->cmd, o->args[0]);
				return HCBS_EXIT_USAGE;
			}
			o->cgroup = o->args[0];
			memmove(o->args, o->args + 1, sizeof(o->args[0]) * (size_t)--o->nargs);
			given |= O_CGROUP;
		}
		if (extra) {
			for (size_t k = 0; k < sizeof(opt_names) / sizeof(opt_names[0]); k++) {
				if (!(extra & opt_names[k].bit))
					continue;
				err_line("%s: %s does not apply to %s (see hcbsctl help %s)",
					o->cmd, opt_names[k].name, o->cmd, o->cmd);
				break;
			}
			return HCBS_EXIT_USAGE;
		}
		if (unit && (given & (O_CGROUP | O_LXCPATH))) {
			err_line("%s: --unit names the cgroup: no --cgroup or --lxcpath with it",
				o->cmd);
			return HCBS_EXIT_USAGE;
		}
		if (cmds[i].needs_name && !o->cgroup && !unit)
			min++, max++;
		if (!strcmp(o->cmd, "set") && o->taskset)
			max--, min--;
		if (o->nargs < min || o->nargs > max) {
			err_line("%s: expected %s%s arguments (see hcbsctl help %s)",
				o->cmd, o->nargs < min ? "more" : "fewer",
				cmds[i].needs_name && o->cgroup ? " (no NAME with --cgroup)" :
				unit ? " (no NAME with --unit)" : "",
				o->cmd);
			return HCBS_EXIT_USAGE;
		}
		/*
		 * Test builds only: stop once the command line is read, before
		 * any container, cgroup or file is looked at (test_cli.sh runs
		 * the examples of --help so).
		 */
		if (hcbs_test_env("HCBS_TEST_PARSE_ONLY"))
			return HCBS_EXIT_OK;
		if (given & O_VERBOSE)
			verbose_begin(o->cmd);
		else if (given & O_QUIET)
			verbosity = VERBOSITY_QUIET;
		if (unit) {
			char e[HCBS_ERRLEN];

			if (unit_cgroup(unit, unit_path, sizeof(unit_path), e, sizeof(e))) {
				err_line("%s: --unit %s: %s", o->cmd, unit, e);
				return HCBS_EXIT_NOTFOUND;
			}
			o->cgroup = unit_path;
		}
		return cmds[i].fn(o);
	}
	err_line("unknown command '%s' (set, get, unset, list, free, analyze, overhead, doctor, help)", o->cmd);
	return HCBS_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	const char *cmd = NULL;
	int ret = parse_and_run(argc, argv, &o);

	/* With --json, a failure without a document gets the error document. */
	for (size_t i = 0; o.cmd && i < NCMDS; i++)
		if (!strcmp(o.cmd, cmds[i].name))
			cmd = cmds[i].name;
	if (o.json)
		json_error(cmd, ret);
	return ret;
}
