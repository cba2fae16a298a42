// SPDX-License-Identifier: GPL-2.0
/* hcbstrace: BPF environment checks, loading and attaching the programs. */
#include <errno.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf_setup.h"
#include "hcbs.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif

static bool have_cap(int cap)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {};

	if (syscall(SYS_capget, &h, d))
		return false;
	return d[cap / 32].effective & (1u << (cap % 32));
}

/* Privileges and BTF. */
static int check_env(const struct hcbs_opts *o)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		hcbs_err(o, "this kernel has no BTF (/sys/kernel/btf/vmlinux): it needs CONFIG_DEBUG_INFO_BTF=y");
		return -ENOTSUP;
	}
	if (!have_cap(CAP_SYS_ADMIN) && !(have_cap(CAP_BPF) && have_cap(CAP_PERFMON))) {
		hcbs_err(o, "loading BPF programs needs root (or CAP_BPF and CAP_PERFMON)");
		return -EPERM;
	}
	return 0;
}

static struct btf *vmlinux_btf(void)
{
	static struct btf *btf;
	static bool tried;

	if (!tried) {
		tried = true;
		btf = btf__load_vmlinux_btf();
		if (libbpf_get_error(btf))
			btf = NULL;
	}
	return btf;
}

bool hcbs_have_tracepoint(const char *tp)
{
	char name[128];
	struct btf *btf = vmlinux_btf();

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	return btf && btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) > 0;
}

bool hcbs_tp_btf_works(const char *tp)
{
	struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },	/* r0 = 0 */
		{ .code = 0x95 },				/* exit */
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_RAW_TP);
	struct btf *btf = vmlinux_btf();
	char name[128];
	int id, fd;

	/* For tests of the fallback, in the test build only. */
	if (hcbs_test_env("HCBSTRACE_FORCE_RAW_TP"))
		return false;
	if (!btf)
		return false;
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return false;
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns, 2, &opts);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

void hcbs_explain_bpf_error(const struct hcbs_opts *o, const char *what, int err)
{
	err = err < 0 ? -err : err;
	if (err == EPERM)
		hcbs_err(o, "%s: %s: needs root (or CAP_BPF and CAP_PERFMON)", what, strerror(err));
	else if (err == EACCES || err == EINVAL)
		hcbs_err(o, "%s: the kernel rejected a program (%s); run with -v for the verifier log",
			 what, strerror(err));
	else
		hcbs_err(o, "%s: %s (run with -v for the libbpf log)", what, strerror(err));
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

static int quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

int hcbs_setup(struct hcbs_opts *o, const char *cmd, const struct argp_option *options,
	       const char *doc, int argc, char **argv)
{
	int rc = hcbs_parse_opts(o, cmd, options, doc, argc, argv), err;

	if (rc)
		return rc;
	err = check_env(o);
	if (!err)
		libbpf_set_print(o->verbose ? print_libbpf : quiet_libbpf);
	return hcbs_exit_code(err);
}

bool hcbs_bpf_open_failed(const struct hcbs_opts *o, const void *obj)
{
	if (!obj)
		hcbs_explain_bpf_error(o, "opening the BPF object", errno);
	return !obj;
}

static bool is_tp_btf(const struct bpf_program *p)
{
	return bpf_program__type(p) == BPF_PROG_TYPE_TRACING;
}

int hcbs_bpf_load(struct hcbs_bpf *b, const struct hcbs_opts *o,
		  struct bpf_object_skeleton *skel)
{
	struct bpf_object *obj = *skel->obj;
	struct bpf_program *p;
	int err;

	memset(b, 0, sizeof(*b));
	b->use_btf = true;
	bpf_object__for_each_program(p, obj) {
		/* The section is "tp_btf/<tracepoint>". */
		if (is_tp_btf(p) &&
		    !hcbs_tp_btf_works(strchr(bpf_program__section_name(p), '/') + 1))
			b->use_btf = false;
	}
	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, is_tp_btf(p) == b->use_btf);
	err = bpf_object__load_skeleton(skel);
	if (err)
		hcbs_explain_bpf_error(o, "loading the BPF programs", err);
	return err;
}

int hcbs_bpf_attach(struct hcbs_bpf *b, const struct hcbs_opts *o,
		    struct bpf_object_skeleton *skel)
{
	struct bpf_program *p;
	int err;

	bpf_object__for_each_program(p, *skel->obj) {
		if (!bpf_program__autoload(p))
			continue;
		if (b->nr_links == HCBS_MAX_PROGS) {
			hcbs_err(o, "more than %d BPF programs", HCBS_MAX_PROGS);
			return -E2BIG;
		}
		b->links[b->nr_links] = bpf_program__attach(p);
		if (!b->links[b->nr_links]) {
			err = -errno;
			hcbs_explain_bpf_error(o, bpf_program__name(p), err);
			return err;
		}
		b->nr_links++;
	}
	return 0;
}

void hcbs_bpf_detach(struct hcbs_bpf *b)
{
	for (int i = 0; i < b->nr_links; i++)
		bpf_link__destroy(b->links[i]);
	b->nr_links = 0;
}
