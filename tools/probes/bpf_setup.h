/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcbstrace: what loading the BPF programs needs (privileges, BTF, which
 * tracepoints the kernel has), loading a skeleton's programs (tp_btf, or
 * their raw_tp twins where the kernel refuses tp_btf), attaching them,
 * and explaining a failure in one line.
 */
#ifndef HCBSTRACE_BPF_SETUP_H
#define HCBSTRACE_BPF_SETUP_H

#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "opts.h"

/*
 * A subcommand's start: parse its command line (hcbs_parse_opts()), check
 * that BPF programs can be loaded here (BTF, privileges) and send libbpf's
 * log to stderr with -v, nowhere else.  Prints the error; returns an exit
 * code (EXIT_OK, or the status to exit with).
 */
int hcbs_setup(struct hcbs_opts *o, const char *cmd, const struct argp_option *options,
	       const char *doc, int argc, char **argv);
/* Explain it if opening a skeleton (@obj: what X_bpf__open() returned) failed. */
bool hcbs_bpf_open_failed(const struct hcbs_opts *o, const void *obj);

/* Does the kernel BTF have tracepoint @tp (btf_trace_@tp)? */
bool hcbs_have_tracepoint(const char *tp);
/* Can tp_btf programs be loaded here (else use raw_tp)? */
bool hcbs_tp_btf_works(const char *tp);
/* Explain a failed skeleton open, load or attach in one line. */
void hcbs_explain_bpf_error(const struct hcbs_opts *o, const char *what, int err);

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
 * tracepoint, else raw_tp.  Prints the error.
 */
int hcbs_bpf_load(struct hcbs_bpf *b, const struct hcbs_opts *o,
		  struct bpf_object_skeleton *skel);
/* Attach the loaded programs.  Prints the error. */
int hcbs_bpf_attach(struct hcbs_bpf *b, const struct hcbs_opts *o,
		    struct bpf_object_skeleton *skel);
void hcbs_bpf_detach(struct hcbs_bpf *b);

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

#endif /* HCBSTRACE_BPF_SETUP_H */
