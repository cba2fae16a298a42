// SPDX-License-Identifier: GPL-2.0
/*
 * hcbstrace: eBPF probes for HCBS containers.
 *
 *   hcbstrace latency|lateness|servers [options] [interval [count]]
 */
#include <stdio.h>
#include <string.h>

#include "opts.h"
#include "subcommands.h"

#ifndef HCBS_VERSION
#define HCBS_VERSION "unknown"
#endif

static const char usage[] =
"Usage: hcbstrace COMMAND [options] [interval [count]]\n"
"\n"
"Commands:\n"
"  latency    wakeup-to-run latency histograms per container and thread\n"
"  lateness   per-job response time and normalized lateness of periodic\n"
"             real-time threads; deadline misses\n"
"  servers    HCBS server budget use, throttles and replenishments\n"
"             (hcbs kernel only)\n"
"\n"
"  help [COMMAND]  this help, or COMMAND's (= hcbstrace COMMAND --help)\n"
"\n"
"Common options: -c/--container NAME, -g/--cgroup PATH, -d/--duration DUR,\n"
"--json, -v.  Run 'hcbstrace help COMMAND' for the rest; -V/--version.\n"
"Durations take a unit (ns, us, ms, s, m, h): 10s, 500ms, 2m; at most 8760h.\n"
"Exit status: 0 done, 1 error, 2 a --max-* threshold was crossed, 3 no such\n"
"container, cgroup or process, 4 kernel without HCBS or no cpu cgroup\n"
"hierarchy mounted, 5 permission denied (as hcbsctl).\n"
"\n"
"Examples:\n"
"  hcbstrace latency -c vbbu1 -c vbbu2 -d 10s\n"
"  hcbstrace lateness -c vbbu1 --csv vbbu1.csv -d 60s\n"
"  hcbstrace servers -c vbbu1 1s\n";

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} cmds[] = {
		{ "latency", cmd_latency },
		{ "lateness", cmd_lateness },
		{ "servers", cmd_servers },
	};

	if (argc < 2) {
		fputs(usage, stderr);
		return EXIT_ERROR;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("hcbstrace %s\n", HCBS_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "help")) {
		char *hargv[] = { argv[2], "--help", NULL };

		if (argc > 3) {
			hcbs_err(NULL, "help: expected at most one command (latency, lateness, servers)");
			return EXIT_ERROR;
		}
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (!strcmp(argv[2], cmds[i].name))
				return cmds[i].fn(2, hargv);
		hcbs_err(NULL, "help: unknown command '%s' (accepted: latency, lateness, servers)",
			argv[2]);
		return EXIT_ERROR;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	hcbs_err(NULL, "unknown command '%s' (accepted: latency, lateness, servers)",
		argv[1]);
	return EXIT_ERROR;
}
