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

#ifndef HCBS_VERSION
#define HCBS_VERSION "unknown"
#endif

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
"  list                             every container: state, reservation, usage\n"
"  free                             bandwidth still admissible per CPU\n"
"  analyze TASKSET                  schedulability in a reservation\n"
"\n"
"Options:\n"
"  -P, --lxcpath PATH      container directory, as for lxc-* (default: LXC's)\n"
"  -c, --cgroup PATH       act on the cgroup directory PATH, not a container\n"
"                          (set/get/unset take no NAME then; free walks PATH)\n"
"  -j, --json              JSON output (get, list, free, analyze), schema hcbsctl/1\n"
"  -t, --taskset FILE      task set for set (- for stdin)\n"
"  -p, --period P          period for set --taskset and analyze; analyze also\n"
"                          takes a range PMIN..PMAX (see --step)\n"
"  -s, --step S            step of a period range (default: 100us)\n"
"  -r, --reservation Q/P   analyze: check this reservation\n"
"  -o, --order rm|dm|file  fixed-priority order (default: file priorities if\n"
"                          given, else deadline monotonic = rate monotonic\n"
"                          when deadlines equal periods)\n"
"  -h, --help              this help\n"
"  -V, --version           version\n"
"\n"
"Durations take a unit: ns, us, ms, s (8ms, 500us, 1.5ms).  A task set has\n"
"one task per line, \"WCET PERIOD [DEADLINE [PRIORITY]]\", # for comments.\n"
"\n"
"Examples:\n"
"  hcbsctl set vbbu1 8ms/18ms\n"
"  hcbsctl -P /srv/lxc get vbbu1\n"
"  hcbsctl --json list\n"
"  hcbsctl free\n"
"  hcbsctl analyze vbbu.ts --reservation 8ms/18ms\n"
"  hcbsctl analyze vbbu.ts --period 2ms..30ms --step 1ms\n"
"  hcbsctl set vbbu1 --taskset vbbu.ts --period 18ms\n"
"  hcbsctl --cgroup /sys/fs/cgroup/rt.slice set 100ms/1s\n"
"\n"
"Exit status: 0 ok, 1 usage or bad input, 2 refused by the kernel (admission),\n"
"3 no such container or cgroup, 4 kernel without HCBS, 5 permission denied,\n"
"6 task set not schedulable, 7 other system error.  See hcbsctl(1).\n", f);
}

static const struct {
	const char *name;
	int (*fn)(struct opts *o);
	int min, max;		/* positional arguments besides NAME */
	bool needs_name;	/* NAME unless --cgroup */
} cmds[] = {
	{ "set", cmd_set, 1, 1, true },
	{ "get", cmd_get, 0, 0, true },
	{ "unset", cmd_unset, 0, 0, true },
	{ "list", cmd_list, 0, 0, false },
	{ "free", cmd_free, 0, 0, false },
	{ "analyze", cmd_analyze, 1, 1, false },
};

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "lxcpath", required_argument, NULL, 'P' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "taskset", required_argument, NULL, 't' },
		{ "period", required_argument, NULL, 'p' },
		{ "step", required_argument, NULL, 's' },
		{ "reservation", required_argument, NULL, 'r' },
		{ "order", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { 0 };
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":P:c:jt:p:s:r:o:hV", lopts, NULL)) != -1) {
		switch (c) {
		case 'P': o.lxcpath = optarg; break;
		case 'c': o.cgroup = optarg; break;
		case 'j': o.json = true; break;
		case 't': o.taskset = optarg; break;
		case 'p': o.period = optarg; break;
		case 's': o.step = optarg; break;
		case 'r': o.reservation = optarg; break;
		case 'o': o.order = optarg; break;
		case 'h':
			usage(stdout);
			return HCBS_EXIT_OK;
		case 'V':
			printf("hcbsctl %s\n", HCBS_VERSION);
			return HCBS_EXIT_OK;
		case ':':
			fprintf(stderr, "hcbsctl: option '%s' needs an argument (see hcbsctl --help)\n",
				argv[optind - 1]);
			return HCBS_EXIT_USAGE;
		default:
			fprintf(stderr, "hcbsctl: unknown option '%s' (see hcbsctl --help)\n",
				argv[optind - 1]);
			return HCBS_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "hcbsctl: no command given (set, get, unset, list, free, analyze; see hcbsctl --help)\n");
		return HCBS_EXIT_USAGE;
	}
	o.cmd = argv[optind++];
	for (; optind < argc; optind++) {
		if (o.nargs == 4) {
			fprintf(stderr, "hcbsctl: %s: too many arguments (see hcbsctl --help)\n", o.cmd);
			return HCBS_EXIT_USAGE;
		}
		o.args[o.nargs++] = argv[optind];
	}
	o.sysctl_dir = getenv("HCBSCTL_SYSCTL_DIR");
	o.fs_dir = getenv("HCBSCTL_FAIR_SERVER_DIR");

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		int min = cmds[i].min, max = cmds[i].max;

		if (strcmp(o.cmd, cmds[i].name))
			continue;
		if (cmds[i].needs_name && !o.cgroup)
			min++, max++;
		if (!strcmp(o.cmd, "set") && o.taskset)
			max--, min--;
		if (o.nargs < min || o.nargs > max) {
			fprintf(stderr, "hcbsctl: %s: expected %s%s arguments (see hcbsctl --help)\n",
				o.cmd, o.nargs < min ? "more" : "fewer",
				cmds[i].needs_name && o.cgroup ? " (no NAME with --cgroup)" : "");
			return HCBS_EXIT_USAGE;
		}
		if (o.json && !strcmp(o.cmd, "set")) {
			fprintf(stderr, "hcbsctl: set: --json is for the read commands (get, list, free, analyze)\n");
			return HCBS_EXIT_USAGE;
		}
		return cmds[i].fn(&o);
	}
	fprintf(stderr, "hcbsctl: unknown command '%s' (set, get, unset, list, free, analyze)\n", o.cmd);
	return HCBS_EXIT_USAGE;
}
