// SPDX-License-Identifier: GPL-2.0
/* hcbstrace: options, cgroups, BPF checks and loading, main loop, output helpers. */
#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <linux/capability.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "common.h"
#include "stats.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC	0x63677270
#endif
#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC	0x27e0eb
#endif
#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif

static volatile sig_atomic_t hcbs_exiting;

void hcbs_err(const struct hcbs_opts *o, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hcbstrace: %s%s", o && o->cmd ? o->cmd : "",
		o && o->cmd ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

uint64_t hcbs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void *hcbs_grow(void *arr, size_t n, size_t *cap, size_t size, size_t first)
{
	size_t nc = *cap ? *cap * 2 : first;
	void *na;

	if (n < *cap)
		return arr;
	na = realloc(arr, nc * size);
	if (na)
		*cap = nc;
	return na;
}

/* ---- option parsing ---- */

enum {
	LO_CSV = 256, LO_MAX_LAT, LO_MAX_LATENESS, LO_PERIOD, LO_DEADLINE,
	LO_ALL_POLICIES, LO_RINGBUF, LO_LEVEL,
};

static const struct option long_opts[] = {
	{ "container",		required_argument, NULL, 'c' },
	{ "cgroup",		required_argument, NULL, 'g' },
	{ "lxcpath",		required_argument, NULL, 'P' },
	{ "pid",		required_argument, NULL, 'p' },
	{ "comm",		required_argument, NULL, 'C' },
	{ "duration",		required_argument, NULL, 'd' },
	{ "threads",		no_argument,	   NULL, 'T' },
	{ "json",		no_argument,	   NULL, 'j' },
	{ "quiet",		no_argument,	   NULL, 'q' },
	{ "verbose",		no_argument,	   NULL, 'v' },
	{ "help",		no_argument,	   NULL, 'h' },
	{ "csv",		required_argument, NULL, LO_CSV },
	{ "max-latency",	required_argument, NULL, LO_MAX_LAT },
	{ "max-lateness",	required_argument, NULL, LO_MAX_LATENESS },
	{ "period",		required_argument, NULL, LO_PERIOD },
	{ "deadline",		required_argument, NULL, LO_DEADLINE },
	{ "all-policies",	no_argument,	   NULL, LO_ALL_POLICIES },
	{ "ringbuf-size",	required_argument, NULL, LO_RINGBUF },
	{ "group-level",	required_argument, NULL, LO_LEVEL },
	{ 0 }
};

static int parse_size(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	if (*end == 'K' || *end == 'k')
		x <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		x <<= 20, end++;
	if (*end)
		return -EINVAL;
	*v = x;
	return 0;
}

static int depth(const char *path)
{
	int d = 0;

	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			d++;
	return d;
}

static void name_from_rel(const char *rel, char *name, size_t len)
{
	while (*rel == '/')
		rel++;
	if (!*rel) {
		snprintf(name, len, "/");
		return;
	}
	if (!strncmp(rel, "lxc.payload.", 12))
		rel += 12;
	snprintf(name, len, "%s", rel);
}

/*
 * The mount of the hierarchy this process's cpu cgroup is in (cgroup2, or
 * the v1 hierarchy with the cpu controller), found as tools/lib finds it
 * for hcbsctl: /proc/self/cgroup resolved against mountinfo, never a guess.
 */
static int own_hierarchy(const struct hcbs_opts *o, int *version, char *mnt, size_t mlen,
			 char *root, size_t rlen)
{
	char path[PATH_MAX], err[HCBS_ERRLEN];
	int ret;

	ret = hcbs_cgroup_of_pid(getpid(), path, sizeof(path), version, err, sizeof(err));
	if (!ret)
		ret = hcbs_cgroup_mount(path, *version, mnt, mlen, root, rlen, err, sizeof(err));
	if (ret)
		hcbs_err(o, "cannot find our own cgroup hierarchy: %s", err);
	return ret;
}

static int add_cgroup(struct hcbs_opts *o, const char *arg, const char *name,
		      int version_hint)
{
	struct hcbs_cg_target *t;
	char path[PATH_MAX], abs[2 * PATH_MAX], mnt[PATH_MAX], root[PATH_MAX], err[HCBS_ERRLEN];
	struct statfs sfs;
	struct stat st;
	size_t l;
	int version, ret;

	if (o->nr_cg >= HCBS_MAX_CGROUPS) {
		hcbs_err(o, "at most %d --cgroup/--container filters", HCBS_MAX_CGROUPS);
		return -EINVAL;
	}
	/* Trailing slashes would hide the cgroup's descendants from path tests. */
	snprintf(path, sizeof(path), "%s", arg);
	for (l = strlen(path); l > 1 && path[l - 1] == '/'; l--)
		path[l - 1] = '\0';
	if (stat(path, &st)) {
		/*
		 * A path inside our own hierarchy, e.g. lxc.payload.vbbu1 or
		 * /rt: under that hierarchy's real mount point.
		 */
		int e = errno, v;

		if (own_hierarchy(o, &v, mnt, sizeof(mnt), root, sizeof(root)))
			return -ENOENT;
		snprintf(abs, sizeof(abs), "%s%s%s", mnt, path[0] == '/' ? "" : "/", path);
		if (strlen(abs) >= sizeof(path) || stat(abs, &st)) {
			hcbs_err(o, "cgroup %s: %s (nor %s)", path, strerror(e), abs);
			return -ENOENT;
		}
		snprintf(path, sizeof(path), "%s", abs);
	}
	if (!S_ISDIR(st.st_mode) || statfs(path, &sfs)) {
		hcbs_err(o, "cgroup %s: %s", path, errno ? strerror(errno) : "not a directory");
		return -ENOENT;
	}
	if (sfs.f_type == CGROUP2_SUPER_MAGIC)
		version = 2;
	else if (sfs.f_type == CGROUP_SUPER_MAGIC)
		version = 1;
	else {
		hcbs_err(o, "%s is not a cgroup directory (no cgroup or cgroup2 file system)", path);
		return -ENOENT;
	}
	if (version_hint && version_hint != version) {
		hcbs_err(o, "%s: expected a cgroup v%d directory", path, version_hint);
		return -EINVAL;
	}
	if (o->cg_version && o->cg_version != version) {
		hcbs_err(o, "%s: cannot mix cgroup v1 and v2 filters", path);
		return -EINVAL;
	}
	/* v1: the hierarchy must have the cpu controller itself (not cpuset). */
	ret = hcbs_cgroup_mount(path, version, mnt, sizeof(mnt), root, sizeof(root),
				err, sizeof(err));
	if (ret) {
		hcbs_err(o, "%s", err);
		return ret;
	}
	o->cg_version = version;
	snprintf(o->cg_mount, sizeof(o->cg_mount), "%s", mnt);
	snprintf(o->cg_mount_root, sizeof(o->cg_mount_root), "%s", root);
	t = &o->cg[o->nr_cg++];
	snprintf(t->path, sizeof(t->path), "%s", path);
	t->id = st.st_ino;
	t->level = depth(root) + depth(path + strlen(mnt));
	if (name)
		snprintf(t->name, sizeof(t->name), "%s", name);
	else
		name_from_rel(path + strlen(mnt), t->name, sizeof(t->name));
	return 0;
}

/* No cgroup filter: key on the hierarchy this process's cpu cgroup is in. */
static int default_hierarchy(struct hcbs_opts *o)
{
	return own_hierarchy(o, &o->cg_version, o->cg_mount, sizeof(o->cg_mount),
			     o->cg_mount_root, sizeof(o->cg_mount_root));
}

static int parse_opts(struct hcbs_opts *o, const char *cmd, unsigned int accept,
		      const char *help, int argc, char **argv)
{
	const char *containers[HCBS_MAX_CGROUPS], *cgroups[HCBS_MAX_CGROUPS];
	int nr_containers = 0, nr_cgroups = 0, opt;
	char err[HCBS_ERRLEN];

	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->argc = argc;
	o->argv = argv;
	o->group_level = 1;
	o->ringbuf_size = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "c:g:P:p:C:d:Tjqvh", long_opts, NULL)) != -1) {
		unsigned int need = 0;
		const char *name = NULL;

		switch (opt) {
		case 'T': need = OPT_THREADS; break;
		case 'p': case 'C': need = OPT_TASK_FILTER; break;
		case LO_MAX_LAT: need = OPT_MAX_LAT; break;
		case LO_CSV: case LO_MAX_LATENESS: case LO_PERIOD: case LO_DEADLINE:
		case LO_ALL_POLICIES: case LO_RINGBUF: need = OPT_LATENESS; break;
		}
		if (need && !(accept & need)) {
			for (const struct option *l = long_opts; l->name; l++)
				if (l->val == opt)
					name = l->name;
			hcbs_err(o, "--%s does not apply to %s (see hcbstrace %s --help)",
				 name ? name : "?", cmd, cmd);
			return -EINVAL;
		}
		switch (opt) {
		case 'c':
		case 'g':
			if (nr_containers + nr_cgroups >= HCBS_MAX_CGROUPS) {
				hcbs_err(o, "at most %d --cgroup/--container filters", HCBS_MAX_CGROUPS);
				return -EINVAL;
			}
			if (opt == 'c')
				containers[nr_containers++] = optarg;
			else
				cgroups[nr_cgroups++] = optarg;
			break;
		case 'P': o->lxcpath = optarg; break;
		case 'p': {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || v <= 0 || v > INT32_MAX) {
				hcbs_err(o, "--pid '%s': expected a process id", optarg);
				return -EINVAL;
			}
			o->pid = (pid_t)v;
			break;
		}
		case 'C':
			if (strlen(optarg) >= HCBS_COMM_LEN) {
				hcbs_err(o, "--comm '%s': a task name has at most %d characters",
					 optarg, HCBS_COMM_LEN - 1);
				return -EINVAL;
			}
			o->has_comm = true;
			snprintf(o->comm, sizeof(o->comm), "%s", optarg);
			break;
		case 'd':
			if (hcbs_parse_duration_flags(optarg, HCBS_DUR_NONZERO, &o->duration_ns,
						      err, sizeof(err))) {
				hcbs_err(o, "--duration: %s", err);
				return -EINVAL;
			}
			break;
		case 'T': o->threads = true; break;
		case 'j': o->json = true; break;
		case 'q': o->quiet = true; break;
		case 'v': o->verbose = true; break;
		case 'h':
			fputs(help, stdout);
			exit(EXIT_OK);
		case LO_CSV: o->csv = optarg; break;
		case LO_MAX_LAT:
			if (hcbs_parse_duration_flags(optarg, HCBS_DUR_NONZERO, &o->max_latency_ns,
						      err, sizeof(err))) {
				hcbs_err(o, "--max-latency: %s", err);
				return -EINVAL;
			}
			break;
		case LO_MAX_LATENESS: {
			char *end;

			errno = 0;
			o->max_lateness = strtod(optarg, &end);
			if (errno || *end || end == optarg || !isfinite(o->max_lateness) ||
			    o->max_lateness < -1) {
				hcbs_err(o, "--max-lateness '%s': expected a fraction of the period >= -1 (e.g. 0.1)",
					 optarg);
				return -EINVAL;
			}
			o->has_max_lateness = true;
			break;
		}
		case LO_PERIOD:
		case LO_DEADLINE: {
			uint64_t *v = opt == LO_PERIOD ? &o->period_ns : &o->deadline_ns;

			if (hcbs_parse_duration_flags(optarg, HCBS_DUR_NONZERO, v, err, sizeof(err))) {
				hcbs_err(o, "--%s: %s", opt == LO_PERIOD ? "period" : "deadline", err);
				return -EINVAL;
			}
			break;
		}
		case LO_ALL_POLICIES: o->all_policies = true; break;
		case LO_RINGBUF:
			if (parse_size(optarg, &o->ringbuf_size) || o->ringbuf_size < 4096 ||
			    (o->ringbuf_size & (o->ringbuf_size - 1)) || o->ringbuf_size > (1u << 30)) {
				hcbs_err(o, "--ringbuf-size '%s': expected a power of two from 4K to 1024M",
					 optarg);
				return -EINVAL;
			}
			break;
		case LO_LEVEL: {
			char *end;

			errno = 0;
			o->group_level = (int)strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || o->group_level < -1 ||
			    o->group_level > 64) {
				hcbs_err(o, "--group-level '%s': expected -1 (own cgroup) or 0..64",
					 optarg);
				return -EINVAL;
			}
			break;
		}
		default:
			fprintf(stderr, "Try 'hcbstrace %s --help'.\n", cmd);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		if (hcbs_parse_duration_flags(argv[optind], HCBS_DUR_NONZERO, &o->interval_ns,
					      err, sizeof(err))) {
			hcbs_err(o, "interval: %s", err);
			return -EINVAL;
		}
		optind++;
	}
	if (optind < argc) {
		char *end;

		errno = 0;
		o->count = strtol(argv[optind], &end, 10);
		if (errno || *end || o->count <= 0) {
			hcbs_err(o, "count '%s': expected a positive number of intervals",
				 argv[optind]);
			return -EINVAL;
		}
		optind++;
	}
	if (optind < argc) {
		hcbs_err(o, "unexpected argument '%s' (usage: hcbstrace %s [options] [interval [count]])",
			 argv[optind], cmd);
		return -EINVAL;
	}
	if (o->deadline_ns && o->period_ns && o->deadline_ns > o->period_ns) {
		hcbs_err(o, "--deadline must not exceed --period");
		return -EINVAL;
	}

	for (int i = 0; i < nr_containers; i++) {
		char path[PATH_MAX];
		int v, ret;

		ret = hcbs_container_cgroup(containers[i], o->lxcpath, path, sizeof(path),
					    &v, err, sizeof(err));
		if (ret) {
			hcbs_err(o, "--container %s: %s", containers[i], err);
			return ret;
		}
		ret = add_cgroup(o, path, containers[i], v);
		if (ret)
			return ret;
	}
	for (int i = 0; i < nr_cgroups; i++) {
		int ret = add_cgroup(o, cgroups[i], NULL, 0);

		if (ret)
			return ret;
	}
	if (!o->nr_cg && default_hierarchy(o))
		return -EINVAL;
	return 0;
}

/* ---- environment ---- */

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

	/* For tests of the fallback. */
	if (getenv("HCBSTRACE_FORCE_RAW_TP"))
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

int hcbs_init(struct hcbs_opts *o, const char *cmd, unsigned int accept,
	      const char *help, int argc, char **argv)
{
	int err = parse_opts(o, cmd, accept, help, argc, argv);

	if (!err)
		err = check_env(o);
	if (!err)
		libbpf_set_print(o->verbose ? print_libbpf : quiet_libbpf);
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
	default:
		return EXIT_ERROR;
	}
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
	if (err) {
		hcbs_explain_bpf_error(o, "loading the BPF programs", err);
		return err;
	}
	bpf_object__for_each_program(p, obj) {
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

static void on_signal(int sig)
{
	(void)sig;
	hcbs_exiting = 1;
}

/* ---- clock ---- */

void hcbs_trace_start(struct hcbs_clock *c, const struct hcbs_opts *o,
		      const struct hcbs_bpf *b)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	memset(c, 0, sizeof(*c));
	c->start_ns = hcbs_now_ns();
	c->start_wall = time(NULL);
	/* Durations are at most 8760h: these cannot wrap, and saturate anyway. */
	if (o->duration_ns)
		c->end_ns = hcbs_add_sat(c->start_ns, o->duration_ns);
	if (o->interval_ns)
		c->next_tick_ns = hcbs_add_sat(c->start_ns, o->interval_ns);
	if (!o->quiet)
		fprintf(stderr, "hcbstrace: %s: tracing (%s)... Ctrl-C to end\n", o->cmd,
			b->use_btf ? "tp_btf" : "raw_tp");
}

bool hcbs_clock_tick(struct hcbs_clock *c, const struct hcbs_opts *o)
{
	uint64_t due;

	if (hcbs_exiting)
		return false;
	/* Missed ticks are skipped at once: no loop that could run away. */
	c->next_tick_ns = hcbs_tick_advance(c->next_tick_ns, o->interval_ns, hcbs_now_ns(), &due);
	if (!due)
		return false;
	c->ticks++;
	return true;
}

int hcbs_trace_wait(const struct hcbs_clock *c, const struct hcbs_opts *o,
		    const char **reason, struct ring_buffer *rb)
{
	int err;

	if (o->count && c->ticks >= o->count) {
		*reason = "count";
		return 0;
	}
	if (c->end_ns && hcbs_now_ns() >= c->end_ns) {
		*reason = "duration";
		return 0;
	}
	if (hcbs_exiting)
		return 0;
	if (!rb) {
		usleep(100000);
		return 1;
	}
	err = ring_buffer__poll(rb, 100);
	return err < 0 && err != -EINTR ? err : 1;
}

/* ---- cgroup names ---- */

/*
 * The cgroups under the mount, by id.  Entries are never dropped before
 * hcbs_cgroup_names_free(), so the names handed out stay valid (ids are
 * not reused).
 */
struct cg_name {
	uint64_t id;
	char *name;
	char *rel;
};

static struct cg_name *names;
static size_t nr_names, cap_names;
static const char *walk_mount;
static time_t last_walk;

static const struct cg_name *find_name(uint64_t id)
{
	for (size_t i = 0; i < nr_names; i++)
		if (names[i].id == id)
			return &names[i];
	return NULL;
}

static int walk_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *rel = path + strlen(walk_mount);
	char name[PATH_MAX];
	struct cg_name *nn;

	(void)ftw;
	if (flag != FTW_D || find_name(st->st_ino))
		return 0;
	nn = hcbs_grow(names, nr_names, &cap_names, sizeof(*names), 256);
	if (!nn)
		return 1;
	names = nn;
	name_from_rel(rel, name, sizeof(name));
	names[nr_names].id = st->st_ino;
	names[nr_names].name = strdup(name);
	names[nr_names].rel = strdup(rel + (*rel == '/'));
	if (names[nr_names].name && names[nr_names].rel) {
		nr_names++;
	} else {
		free(names[nr_names].name);
		free(names[nr_names].rel);
	}
	return 0;
}

static const struct cg_name *lookup_name(const struct hcbs_opts *o, uint64_t id)
{
	const struct cg_name *n = find_name(id);

	/* Walk the tree again, at most once a second: cgroups come and go. */
	if (n || !o->cg_mount[0] || time(NULL) == last_walk)
		return n;
	last_walk = time(NULL);
	walk_mount = o->cg_mount;
	nftw(o->cg_mount, walk_one, 16, FTW_PHYS | FTW_MOUNT);
	return find_name(id);
}

/* The name of cgroup @id, or NULL if it is not under the mount. */
static const char *known_name(const struct hcbs_opts *o, uint64_t id)
{
	const struct cg_name *n;

	for (int i = 0; i < o->nr_cg; i++)
		if (o->cg[i].id == id)
			return o->cg[i].name;
	n = lookup_name(o, id);
	return n ? n->name : NULL;
}

static const char *unknown_name(char *buf, size_t len, uint64_t id)
{
	snprintf(buf, len, "cgroup-%llu", (unsigned long long)id);
	return buf;
}

const char *hcbs_cgroup_name(const struct hcbs_opts *o, uint64_t id)
{
	static char unknown[32];
	const char *name = known_name(o, id);

	return name ? name : unknown_name(unknown, sizeof(unknown), id);
}

/*
 * By path too: a cgroup made anew where a filter's was (a restarted
 * container) has another id.
 */
bool hcbs_cgroup_selected(const struct hcbs_opts *o, uint64_t id)
{
	char path[2 * PATH_MAX + 2];
	const struct cg_name *n;

	if (!o->nr_cg)
		return true;
	for (int i = 0; i < o->nr_cg; i++)
		if (o->cg[i].id == id)
			return true;
	n = lookup_name(o, id);
	if (!n)
		return false;
	snprintf(path, sizeof(path), "%s/%s", o->cg_mount, n->rel);
	for (int i = 0; i < o->nr_cg; i++)
		if (path_within(path, o->cg[i].path))
			return true;
	return false;
}

void hcbs_cgroup_names_free(void)
{
	for (size_t i = 0; i < nr_names; i++) {
		free(names[i].name);
		free(names[i].rel);
	}
	free(names);
	names = NULL;
	nr_names = cap_names = 0;
}

/* ---- columns ---- */

void *hcbs_cols_init(struct hcbs_cols *cols, const struct hcbs_opts *o, size_t extra,
		     bool filters, size_t size)
{
	cols->n = 0;
	cols->cap = (size_t)o->nr_cg + extra + 1;
	cols->c = calloc(cols->cap, sizeof(*cols->c));
	cols->data = calloc(cols->cap, size);
	if (!cols->c || !cols->data) {
		hcbs_cols_free(cols);
		return NULL;
	}
	for (int i = 0; filters && i < o->nr_cg; i++) {
		cols->c[cols->n].cgid = o->cg[i].id;
		cols->c[cols->n].name = o->cg[i].name;
		cols->n++;
	}
	return cols->data;
}

size_t hcbs_cols_find(struct hcbs_cols *cols, const struct hcbs_opts *o, uint64_t cgid)
{
	struct hcbs_col *c;

	for (size_t i = 0; i < cols->n; i++)
		if (cols->c[i].cgid == cgid)
			return i;
	if (cols->n == cols->cap)	/* more cgroups than the caller counted */
		abort();
	c = &cols->c[cols->n];
	c->cgid = cgid;
	c->name = known_name(o, cgid);
	if (!c->name)
		c->name = unknown_name(c->unknown, sizeof(c->unknown), cgid);
	return cols->n++;
}

void hcbs_cols_free(struct hcbs_cols *cols)
{
	free(cols->c);
	free(cols->data);
	cols->c = NULL;
	cols->data = NULL;
	cols->n = cols->cap = 0;
}

/* ---- output ---- */

char *hcbs_fmt_us(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f", (double)ns / 1000.0);
	return buf;
}

void hcbs_print_header(const struct hcbs_opts *o, const struct hcbs_clock *c,
		       const char *what, bool interval)
{
	char when[64];
	struct tm tm;
	time_t now = time(NULL);

	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	printf("# hcbstrace %s: %s%s\n", o->cmd, what, interval ? " (interval)" : "");
	printf("# %s, %.1f s traced\n", when,
	       (double)(hcbs_now_ns() - c->start_ns) / 1e9);
}

int hcbs_print_names(const char *label, int lw, const struct hcbs_cols *cols)
{
	int w = 10;

	for (size_t i = 0; i < cols->n; i++)
		if ((int)strlen(cols->c[i].name) > w)
			w = (int)strlen(cols->c[i].name);
	printf("%-*s", lw, label);
	for (size_t i = 0; i < cols->n; i++)
		printf(" %*s", w, cols->c[i].name);
	putchar('\n');
	return w;
}

void hcbs_print_row(const char *label, int lw, int w, const void *first, size_t stride,
		    size_t n)
{
	printf("%-*s", lw, label);
	for (size_t i = 0; i < n; i++) {
		const uint64_t *v = (const void *)((const char *)first + i * stride);

		printf(" %*llu", w, (unsigned long long)*v);
	}
	putchar('\n');
}

struct hcbs_json *hcbs_json_begin(const struct hcbs_opts *o, const struct hcbs_clock *c,
				  const char *stop_reason, const char *threshold_cause)
{
	struct hcbs_json *j = hcbs_json_new(stdout);
	char buf[4096], when[64];
	struct utsname u;
	struct tm tm;
	size_t off = 0;

	hcbs_json_object_begin(j);
	hcbs_json_key(j, "schema");
	hcbs_json_string(j, HCBSTRACE_SCHEMA);
	hcbs_json_key(j, "command");
	hcbs_json_string(j, o->cmd);
	for (int i = 0; i < o->argc && off < sizeof(buf); i++)
		off += snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? " " : "", o->argv[i]);
	hcbs_json_key(j, "cmdline");
	hcbs_json_string(j, buf);
	uname(&u);
	hcbs_json_key(j, "kernel");
	hcbs_json_string(j, u.release);
	gmtime_r(&c->start_wall, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	hcbs_json_key(j, "start_time");
	hcbs_json_string(j, when);
	hcbs_json_key(j, "duration_s");
	hcbs_json_double(j, (double)(hcbs_now_ns() - c->start_ns) / 1e9);
	hcbs_json_key(j, "stop_reason");
	hcbs_json_string(j, stop_reason);
	hcbs_json_key(j, "threshold");
	if (threshold_cause)
		hcbs_json_string(j, threshold_cause);
	else
		hcbs_json_null(j);
	hcbs_json_key(j, "cgroup_version");
	hcbs_json_int(j, o->cg_version);
	return j;
}

void hcbs_json_end(struct hcbs_json *j)
{
	hcbs_json_object_end(j);
	fputc('\n', stdout);
	hcbs_json_free(j);
	fflush(stdout);
}

void hcbs_json_cgroup(struct hcbs_json *j, const char *key, const char *name,
		      uint64_t cgid)
{
	hcbs_json_key(j, key);
	hcbs_json_string(j, name);
	hcbs_json_key(j, "cgroup_id");
	hcbs_json_uint(j, cgid);
}

void hcbs_json_u64s(struct hcbs_json *j, const struct hcbs_json_u64 *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		hcbs_json_key(j, m[i].key);
		hcbs_json_uint(j, m[i].v);
	}
}
