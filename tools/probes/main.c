// SPDX-License-Identifier: GPL-2.0
/*
 * hcbstrace: eBPF probes for HCBS containers.
 *
 *   hcbstrace latency|lateness|servers [options] [interval [count]]
 */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "subcommands.h"

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
"Common options: -c/--container NAME, -g/--cgroup PATH, -d/--duration DUR,\n"
"--json, -v.  Run 'hcbstrace COMMAND --help' for the rest.\n"
"Exit status: 0 done, 1 error, 2 a --max-* threshold was crossed.\n"
"\n"
"Examples:\n"
"  hcbstrace latency -c vbbu1 -c vbbu2 -d 10s\n"
"  hcbstrace lateness -c vbbu1 --csv vbbu1.csv -d 60s\n"
"  hcbstrace servers -c vbbu1 1\n";

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
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "hcbstrace: unknown command '%s' (accepted: latency, lateness, servers)\n",
		argv[1]);
	return EXIT_ERROR;
}
