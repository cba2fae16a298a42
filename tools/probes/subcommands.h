/* SPDX-License-Identifier: GPL-2.0 */
/* hcbstrace: the subcommands, each in its own file. */
#ifndef HCBSTRACE_SUBCOMMANDS_H
#define HCBSTRACE_SUBCOMMANDS_H

int cmd_latency(int argc, char **argv);
int cmd_lateness(int argc, char **argv);
int cmd_servers(int argc, char **argv);

#endif /* HCBSTRACE_SUBCOMMANDS_H */
