// SPDX-License-Identifier: GPL-2.0
/*
 * hcbs-oci-hook: an OCI runtime hook that gives a container the HCBS
 * reservation its annotations ask for, before the container's process
 * runs its own code.
 *
 *   podman run --annotation hcbs.reservation=8ms/18ms ...
 *
 * The runtime (crun, runc) runs us at createRuntime (or the older
 * prestart): it has created the container's cgroup and put the
 * container's init in it, and init waits for the runtime before it execs
 * the container's program, so no thread of the container can be RT yet.
 * The state of the container (OCI runtime spec, "State") comes on stdin:
 * { "ociVersion", "id", "status", "pid", "bundle", "annotations" }.  We
 * find the cgroup from "pid" (/proc/PID/cgroup + mountinfo, as the LXC
 * hook does) and write cpu.rt.max through hcbs_reserve(), the function
 * hcbsctl set uses: the same admission checks, messages and exit codes.
 *
 * The state is not trusted to name the container's cgroup: "status" must
 * say the container is being created, and the pid's cgroup must be the
 * container's own (libpod-ID, crio-ID or cri-containerd-ID with ID the
 * state's "id", below a top-level cgroup; hcbs_own_cgroup_check()).  The
 * root cgroup, a top-level one, an admin's session scope or another
 * container's cgroup are refused before anything is read or written.
 *
 * A non-zero exit makes the runtime refuse to create the container; it
 * then removes the cgroup, so a reservation is never left behind.  We
 * write the reservation last, so nothing that can fail comes after it.
 * Stopping the container removes the cgroup, which frees the bandwidth:
 * no poststop hook is needed (and at poststop the pid is gone).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <jansson.h>

#include "hcbs.h"
#include "hcbs-analysis.h"
#include "hcbs-rt.h"
#include "policy.h"

#define DEFAULT_TASKSET_DIR "/etc/hcbs/tasksets"
/* Kubernetes caps all of a pod's annotations at 256 KiB; the state is small. */
#define STATE_MAX (1u << 20)
#define ANN_PREFIX "hcbs."

/* The container, in messages: the first 12 bytes of its id, escaped. */
static char g_id[4 * 12 + 1] = "?";

/* One line on stderr (the runtime has it) and in syslog. */
#define say(prio, ...) hcbs_hook_say("hcbs-oci-hook", g_id, prio, __VA_ARGS__)

static void usage(FILE *f)
{
	fputs(
"Usage: hcbs-oci-hook [--taskset-dir DIR] < STATE\n"
"\n"
"An OCI runtime hook (createRuntime or prestart) that gives the container the\n"
"HCBS reservation of its annotations: RUNTIME every PERIOD on each CPU for its\n"
"SCHED_FIFO/SCHED_RR threads.  It reads the container's state (JSON) on stdin\n"
"and writes cpu.rt.max in the cgroup of the state's pid.  Without an hcbs.*\n"
"annotation it does nothing.\n"
"\n"
"Annotations:\n"
"  hcbs.reservation=Q/P   e.g. 8ms/18ms (the duration grammar of hcbsctl)\n"
"  hcbs.taskset=NAME      reserve the least runtime the task set needs (as\n"
"                         hcbsctl analyze) ...\n"
"  hcbs.period=P          ... at this period (required with hcbs.taskset)\n"
"  hcbs.order=rm|dm|file  the task set's priority order (optional)\n"
"  hcbs.KEY.CONTAINER     in a Kubernetes pod, KEY for its container CONTAINER\n"
"                         alone (io.kubernetes.container.name); the only form there\n"
"\n"
"Node policy: " HCBS_OCI_POLICY_FILE " (default, namespaces, max-bandwidth,\n"
"max-runtime, min-period, max-period, max-pod-bandwidth: hcbs-oci-hook(1)).\n"
"WITHOUT IT EVERY RESERVATION IS REFUSED.\n"
"\n"
"  --taskset-dir DIR      where hcbs.taskset names a file (default\n"
"                         " DEFAULT_TASKSET_DIR "); NAME has no '/'\n"
"  -h, --help             this help\n"
"  -V, --version          print the version (hcbs-oci-hook " HCBS_VERSION ") and exit\n"
"\n"
"Example (podman, with the hooks.d file installed):\n"
"  podman run --annotation hcbs.reservation=8ms/18ms IMAGE\n"
"\n"
"Exit status as hcbsctl(1): 0 ok or nothing to do, 1 bad state, annotation or\n"
"policy file, 2 refused by the kernel, 3 cgroup not found, 4 kernel without\n"
"HCBS or no cpu cgroup hierarchy mounted, 5 permission denied (by the kernel or\n"
"the node policy), 6 task set not schedulable, 7 other error.  Non-zero makes\n"
"the runtime refuse to create the container.\n", f);
}

/*
 * The container's id, for messages: its first 12 bytes (an engine's id
 * is hex, 12 is what podman and crictl show), escaped as every other name
 * (hcbs_printable(): "\n", "\x1b", a byte that is not UTF-8 as "\xff").
 */
static void set_id(const char *id)
{
	hcbs_printable(id, 12, g_id, sizeof(g_id));
}

/* @s for a one-line message: at most 64 bytes, escaped (hcbs_printable()). */
static const char *printable(const char *s, char *buf, size_t len)
{
	return hcbs_printable(s, 64, buf, len);
}

struct request {
	const char *reservation, *taskset, *period, *order;
	char sfx[72];		/* ".NAME" of hcbs.KEY.NAME in a pod, or "" */
};

/*
 * Who a container is in Kubernetes, from the annotations its engine sets
 * itself: CRI-O writes the kubelet's labels (io.kubernetes.*) and its own
 * io.kubernetes.cri-o.* after the pod's annotations, so a pod cannot
 * forge them.  All NULL outside Kubernetes (podman).
 */
struct kube {
	const char *engine, *ns, *uid, *name;
	bool sandbox;
};

static const struct kube_keys {
	const char *engine, *type, *ns, *uid, *name;
} kube_keys[] = {
	{ "CRI-O", "io.kubernetes.cri-o.ContainerType", "io.kubernetes.pod.namespace",
	  "io.kubernetes.pod.uid", "io.kubernetes.container.name" },
	{ "containerd", "io.kubernetes.cri.container-type", "io.kubernetes.cri.sandbox-namespace",
	  "io.kubernetes.cri.sandbox-uid", "io.kubernetes.cri.container-name" },
};

/*
 * The engine's marks.  A sandbox (pause) container of a pod holds the
 * pod's namespaces, runs no workload, and gets the pod's annotations like
 * every container of the pod.
 */
static void kube_of(json_t *ann, struct kube *kb)
{
	memset(kb, 0, sizeof(*kb));
	for (size_t i = 0; i < sizeof(kube_keys) / sizeof(kube_keys[0]); i++) {
		const struct kube_keys *k = &kube_keys[i];
		const char *v = json_string_value(json_object_get(ann, k->type));

		if (!v)
			continue;
		kb->engine = k->engine;
		kb->sandbox = !strcmp(v, "sandbox");
		kb->ns = json_string_value(json_object_get(ann, k->ns));
		kb->uid = json_string_value(json_object_get(ann, k->uid));
		kb->name = json_string_value(json_object_get(ann, k->name));
		return;
	}
}

/* A pod's uid as kubelet writes it: a UUID, lower-case hex and '-'. */
static bool pod_uid_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n <= 64 && strspn(s, "0123456789abcdef-") == n;
}

/* A Kubernetes container must say which it is: 0 or HCBS_EXIT_USAGE. */
static int kube_check(const struct kube *kb)
{
	const struct kube_keys *k = &kube_keys[strcmp(kb->engine, "CRI-O") ? 1 : 0];
	const char *bad = !kb->ns || !hcbs_oci_dns_label(kb->ns) ? k->ns :
			  !kb->uid || !pod_uid_ok(kb->uid) ? k->uid :
			  !kb->name || !hcbs_oci_dns_label(kb->name) ? k->name : NULL;

	if (!bad)
		return 0;
	say(LOG_ERR, "state: a %s container (%s) without a valid %s: expected the name or uid its engine sets",
	    kb->engine, k->type, bad);
	return HCBS_EXIT_USAGE;
}

/*
 * Read our annotations: hcbs.KEY for a container outside Kubernetes,
 * hcbs.KEY.NAME in a pod, for its container NAME (io.kubernetes.container
 * .name) alone.  Returns 0 (and rq->reservation or rq->taskset set when
 * there is something to do) or HCBS_EXIT_USAGE with a message.
 */
static int read_annotations(json_t *state, struct request *rq, struct kube *kb)
{
	static const char *const names[] = { "reservation", "taskset", "period", "order" };
	const char *plain[4] = { 0 }, *mine[4] = { 0 }, *named = NULL, **pick;
	json_t *ann = json_object_get(state, "annotations"), *v;
	const char *key;
	char buf[80];

	memset(rq, 0, sizeof(*rq));
	memset(kb, 0, sizeof(*kb));
	if (!ann || json_is_null(ann))
		return 0;
	if (!json_is_object(ann)) {
		say(LOG_ERR, "state: \"annotations\" is not an object");
		return HCBS_EXIT_USAGE;
	}
	kube_of(ann, kb);
	json_object_foreach(ann, key, v) {
		const char *base = key + strlen(ANN_PREFIX), *dot, *sfx;
		size_t i, len;

		if (strncmp(key, ANN_PREFIX, strlen(ANN_PREFIX)))
			continue;
		dot = strchr(base, '.');
		len = dot ? (size_t)(dot - base) : strlen(base);
		sfx = dot ? dot + 1 : NULL;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i]) == len && !strncmp(base, names[i], len))
				break;
		if (i == sizeof(names) / sizeof(names[0]) || (sfx && !hcbs_oci_dns_label(sfx))) {
			say(LOG_ERR, "unknown annotation '%s': accepted hcbs.reservation, hcbs.taskset, hcbs.period, hcbs.order, and in a pod hcbs.KEY.CONTAINER",
			    printable(key, buf, sizeof(buf)));
			return HCBS_EXIT_USAGE;
		}
		if (!json_is_string(v)) {
			say(LOG_ERR, "annotation %s is not a string", printable(key, buf, sizeof(buf)));
			return HCBS_EXIT_USAGE;
		}
		if (!sfx) {
			plain[i] = json_string_value(v);
			continue;
		}
		named = key;
		if (kb->name && !strcmp(sfx, kb->name))
			mine[i] = json_string_value(v);
	}
	if (kb->sandbox || (!plain[0] && !plain[1] && !plain[2] && !plain[3] && !named))
		return 0;
	if (!kb->engine && named) {
		say(LOG_ERR, "annotation %s is for a container of a Kubernetes pod, named by io.kubernetes.container.name; this container is in none: give hcbs.KEY",
		    printable(named, buf, sizeof(buf)));
		return HCBS_EXIT_USAGE;
	}
	if (kb->engine && kube_check(kb))
		return HCBS_EXIT_USAGE;
	if (kb->engine && (plain[0] || plain[1] || plain[2] || plain[3])) {
		say(LOG_ERR, "annotation hcbs.%s in a pod would reserve for every container of the pod, sidecars and init containers too: give hcbs.%s.%s for this container, and the same for each container that needs one",
		    names[plain[0] ? 0 : plain[1] ? 1 : plain[2] ? 2 : 3],
		    plain[1] ? "taskset" : "reservation", kb->name);
		return HCBS_EXIT_USAGE;
	}
	pick = kb->engine ? mine : plain;
	if (kb->engine)
		snprintf(rq->sfx, sizeof(rq->sfx), ".%s", kb->name);
	rq->reservation = pick[0];
	rq->taskset = pick[1];
	rq->period = pick[2];
	rq->order = pick[3];
	if (!rq->reservation && !rq->taskset) {
		if (rq->period || rq->order) {
			say(LOG_ERR, "annotation hcbs.%s%s is for hcbs.taskset%s, which is missing",
			    rq->period ? "period" : "order", rq->sfx, rq->sfx);
			return HCBS_EXIT_USAGE;
		}
		return 0;
	}
	if (rq->reservation && rq->taskset) {
		say(LOG_ERR, "annotations hcbs.reservation%s and hcbs.taskset%s both given: give one",
		    rq->sfx, rq->sfx);
		return HCBS_EXIT_USAGE;
	}
	if (rq->reservation && (rq->period || rq->order)) {
		say(LOG_ERR, "annotation hcbs.%s%s is for hcbs.taskset%s; hcbs.reservation%s is RUNTIME/PERIOD",
		    rq->period ? "period" : "order", rq->sfx, rq->sfx, rq->sfx);
		return HCBS_EXIT_USAGE;
	}
	if (rq->taskset && !rq->period) {
		say(LOG_ERR, "annotation hcbs.taskset%s needs hcbs.period%s, e.g. hcbs.period%s=18ms",
		    rq->sfx, rq->sfx, rq->sfx);
		return HCBS_EXIT_USAGE;
	}
	return 0;
}

/* The reservation the request asks for: what hcbsctl set would write. */
static int reservation_of(const struct request *rq, const char *tsdir, struct hcbs_rt *to)
{
	char e[HCBS_ERRLEN], file[PATH_MAX];
	uint64_t q, p;
	int ret;

	if (rq->reservation) {
		if (hcbs_parse_reservation(rq->reservation, &q, &p, e, sizeof(e))) {
			say(LOG_ERR, "annotation hcbs.reservation%s: %s", rq->sfx, e);
			return HCBS_EXIT_USAGE;
		}
		to->runtime_us = q / 1000;
		to->period_us = p / 1000;
		return 0;
	}
	/*
	 * A name in the directory of task sets, never a path: whoever can
	 * annotate a pod must not make a root hook read (and quote in its
	 * errors) any file of the host.
	 */
	if (!rq->taskset[0] || rq->taskset[0] == '.' || strchr(rq->taskset, '/') ||
	    strlen(rq->taskset) > NAME_MAX) {
		say(LOG_ERR, "annotation hcbs.taskset%s: '%s' is not a file name: expected the name of a task set in %s (no '/', not starting with '.')",
		    rq->sfx, printable(rq->taskset, e, sizeof(e)), tsdir);
		return HCBS_EXIT_USAGE;
	}
	if ((size_t)snprintf(file, sizeof(file), "%s/%s", tsdir, rq->taskset) >= sizeof(file)) {
		say(LOG_ERR, "annotation hcbs.taskset%s: path too long", rq->sfx);
		return HCBS_EXIT_USAGE;
	}
	/* The function hcbsctl set --taskset uses: the same answer. */
	ret = hcbs_taskset_reservation(file, rq->period, rq->order, NULL, NULL, to, e, sizeof(e));
	if (ret) {
		/* The shared function names hcbsctl's options; we had annotations. */
		const char *opt = !strncmp(e, "--period", 8) ? "period" :
				  !strncmp(e, "--order", 7) ? "order" : NULL;

		if (opt)
			say(LOG_ERR, "annotation hcbs.%s%s%s", opt, rq->sfx, e + 2 + strlen(opt));
		else
			say(LOG_ERR, "annotation hcbs.taskset%s: %s", rq->sfx, e);
	}
	return ret;
}

/*
 * The runtime runs us while it creates the container: crun says
 * "created", runc "creating" (its process_linux.go, for prestart and
 * createRuntime).  Either way the container's process exists and has not
 * run the container's program yet.  Anything else (running, stopped: the
 * hook run at the wrong stage, or a state made up) is refused.
 */
static int state_status(json_t *state)
{
	const char *s = json_string_value(json_object_get(state, "status"));
	char buf[80];

	if (s && (!strcmp(s, "created") || !strcmp(s, "creating")))
		return 0;
	if (s)
		say(LOG_ERR, "state: \"status\" is '%s': expected 'created' or 'creating' (run me at createRuntime or prestart)",
		    printable(s, buf, sizeof(buf)));
	else
		say(LOG_ERR, "state: no \"status\" string: expected 'created' or 'creating' (run me at createRuntime or prestart)");
	return HCBS_EXIT_USAGE;
}

static int state_pid(json_t *state, pid_t *pid)
{
	json_t *v = json_object_get(state, "pid");
	json_int_t n;

	if (!v) {
		say(LOG_ERR, "state: no \"pid\": run me at createRuntime or prestart, when the container has a process");
		return HCBS_EXIT_USAGE;
	}
	n = json_is_integer(v) ? json_integer_value(v) : 0;
	if (n < 1 || n > INT32_MAX) {
		say(LOG_ERR, "state: \"pid\" is not a process id (an integer from 1 to %d)", INT32_MAX);
		return HCBS_EXIT_USAGE;
	}
	*pid = (pid_t)n;
	return 0;
}

/*
 * The node policy: may this container ask, and for this much?  Nothing
 * read from a cgroup yet.  0, or an hcbs_exit with one line said.
 */
static int policy_check(const struct kube *kb, const struct hcbs_rt *to,
			struct hcbs_oci_policy *pol)
{
	const char *file = hcbs_test_env("HCBS_TEST_OCI_POLICY");
	char e[HCBS_ERRLEN + 512];
	int ret;

	ret = hcbs_oci_policy_load(file ? file : HCBS_OCI_POLICY_FILE, pol, e, sizeof(e));
	if (!ret)
		ret = hcbs_oci_policy_who(pol, kb->engine ? kb->ns : NULL, e, sizeof(e));
	if (!ret)
		ret = hcbs_oci_policy_container(pol, to, e, sizeof(e));
	if (!ret)
		return 0;
	say(LOG_ERR, "%s", e);
	return ret == -EPERM || ret == -ENOENT ? HCBS_EXIT_PERM :
	       ret == -EINVAL || ret == -EFBIG ? HCBS_EXIT_USAGE : HCBS_EXIT_SYSTEM;
}

/*
 * Where the pod's cgroup is: the parent of the container's own cgroup
 * (its component crio-ID or cri-containerd-ID, ".scope" or not), which
 * kubelet names after the pod's uid: "pod<UID>" (cgroupfs driver) or
 * "kubepods-<qos>-pod<UID with '_' for '->.slice" (systemd driver).  The
 * pod's directory into @pod, the container's component into @own.
 */
static int pod_cgroup(const struct hcbs_proc_cgroup *cg, const char *id, const char *uid,
		      char *pod, size_t plen, char *own, size_t olen)
{
	static const char *const pre[] = { "crio-", "cri-containerd-" };
	char *path = strdup(cg->path), *c, *parent = NULL, *save = NULL, want[80], alt[96];
	int ncomp = 0, at = -1, ret = -ENOENT;

	if (!path)
		return -ENOMEM;
	for (c = strtok_r(path, "/", &save); c; c = strtok_r(NULL, "/", &save), ncomp++) {
		for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
			size_t pl = strlen(pre[i]), il = strlen(id);

			if (!strncmp(c, pre[i], pl) && !strncmp(c + pl, id, il) &&
			    (!c[pl + il] || !strcmp(c + pl + il, ".scope")) && ncomp > 0) {
				at = ncomp;
				snprintf(own, olen, "%s", c);
			}
		}
	}
	free(path);
	path = strdup(cg->path);
	if (!path)
		return -ENOMEM;
	save = NULL;
	ncomp = 0;
	for (c = strtok_r(path, "/", &save); c; c = strtok_r(NULL, "/", &save), ncomp++)
		if (ncomp == at - 1)
			parent = c;
	snprintf(want, sizeof(want), "pod%s", uid);
	snprintf(alt, sizeof(alt), "pod%s.slice", uid);
	for (char *u = alt; *u; u++)
		*u = *u == '-' ? '_' : *u;
	if (parent) {
		size_t n = strlen(parent), wl = strlen(want), al = strlen(alt);

		if ((n >= wl && !strcmp(parent + n - wl, want)) ||
		    (n >= al && !strcmp(parent + n - al, alt))) {
			snprintf(pod, plen, "%s", cg->dir);
			hcbs_path_up(pod, ncomp - at);
			ret = 0;
		}
	}
	free(path);
	return ret;
}

/*
 * Add up the reservations below the directory @dfd (open for reading) but
 * @skip: a reserved cgroup counts, and nothing below it (its children
 * share its bandwidth); below one that is not, its children count.
 */
static int add_reserved(int dfd, const char *dir, const char *skip, enum hcbs_rt_abi abi,
			int depth, uint64_t *sum, int *n, char *e, size_t elen)
{
	const char *file = abi == HCBS_ABI_RT_MAX ? "cpu.rt.max" : "cpu.rt_runtime_us";
	int fd = dup(dfd), ret = 0;
	struct dirent *de;
	DIR *d;

	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		hcbs_seterr(e, elen, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	while (!ret && (de = readdir(d))) {
		char sub[PATH_MAX];
		struct hcbs_rt rt;
		struct stat st;
		int cfd, rfd;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (skip && !strcmp(de->d_name, skip)) ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		cfd = openat(dfd, de->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0) {
			ret = -errno;
			hcbs_seterr(e, elen, "%s: %s", sub, strerror(errno));
			break;
		}
		if (hcbs_cgroup_has_at(cfd, file)) {
			ret = hcbs_rt_read_at(cfd, sub, abi, &rt, e, elen);
			if (!ret && rt.runtime_us != HCBS_RT_MAX) {
				*sum = hcbs_add_sat(*sum, hcbs_oci_bw_ppb(&rt));
				(*n)++;
				close(cfd);
				continue;
			}
		}
		rfd = ret || depth >= 3 ? -1 : openat(cfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (rfd >= 0) {
			ret = add_reserved(rfd, sub, NULL, abi, depth + 1, sum, n, e, elen);
			close(rfd);
		}
		close(cfd);
	}
	closedir(d);
	return ret;
}

/*
 * The per-pod limit: what the pod's other containers hold, read from
 * their cgroups (not from anyone's annotations), plus @to.  The pod's
 * directory stays locked (*@lock) until the reservation is written, so
 * that two containers of a pod created at once are counted one after
 * the other.  0, or an hcbs_exit with one line said.
 */
static int pod_check(const struct hcbs_oci_policy *pol, const struct kube *kb, const char *id,
		     const struct hcbs_proc_cgroup *cg, const struct hcbs_rt *to, int *lock)
{
	char pod[4096], own[256] = "", e[HCBS_ERRLEN + 512];
	uint64_t used = 0;
	int pfd, ret, n = 0;

	*lock = -1;
	if (!pol->line[HCBS_POL_MAX_POD_BW])
		return 0;
	if (pod_cgroup(cg, id, kb->uid, pod, sizeof(pod), own, sizeof(own))) {
		say(LOG_ERR, "policy %s:%d: max-pod-bandwidth: cgroup %s is not in pod %s's cgroup: expected its parent to be pod%s or ...-pod%s.slice; refused",
		    pol->file, pol->line[HCBS_POL_MAX_POD_BW], cg->path, kb->uid, kb->uid, kb->uid);
		return HCBS_EXIT_NOTFOUND;
	}
	pfd = hcbs_cgroup_open(pod, e, sizeof(e));
	*lock = pfd < 0 ? -1 : openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd >= 0)
		close(pfd);
	if (*lock < 0 || flock(*lock, LOCK_EX)) {
		if (pfd >= 0)
			hcbs_seterr(e, sizeof(e), "%s: %s", pod, strerror(errno));
		say(LOG_ERR, "pod %s's cgroup: %s", kb->uid, e);
		return HCBS_EXIT_NOTFOUND;
	}
	ret = add_reserved(*lock, pod, own, hcbs_rt_detect(pod), 0, &used, &n, e, sizeof(e));
	if (ret) {
		say(LOG_ERR, "pod %s: cannot add up its reservations: %s", kb->uid, e);
		return HCBS_EXIT_NOTFOUND;
	}
	if (hcbs_oci_policy_pod(pol, kb->uid, used, n, to, e, sizeof(e))) {
		say(LOG_ERR, "%s", e);
		return HCBS_EXIT_PERM;
	}
	return 0;
}

static int reserve(const char *id, pid_t pid, const struct hcbs_rt *to, const struct kube *kb,
		   const struct hcbs_oci_policy *pol)
{
	char err[8192], warn[HCBS_ERRLEN], buf[64];
	static struct hcbs_proc_cgroup cg;
	const char *dir = cg.dir;
	int ret, lock = -1;

	/* A fake /proc in the test build only. */
	ret = hcbs_proc_cgroup(hcbs_test_env("HCBS_TEST_PROC"), pid, &cg, err, sizeof(err));
	if (ret) {
		/* No hierarchy mounted: exit 4, as hcbsctl; else no such cgroup. */
		char why[HCBS_ERRLEN + 128];

		ret = hcbs_cpu_hierarchy_check(why, sizeof(why));
		if (ret) {
			say(LOG_ERR, "%s", why);
			return ret;
		}
		say(LOG_ERR, "cannot find the cgroup of the container's process (pid %d): %s",
		    (int)pid, err);
		return HCBS_EXIT_NOTFOUND;
	}
	if (kb->engine && pol->line[HCBS_POL_MAX_POD_BW]) {
		/* Its own cgroup first: nothing else is read before that. */
		if (hcbs_own_cgroup_check(cg.path, HCBS_ENGINE_OCI, id, err, sizeof(err))) {
			say(LOG_ERR, "pid %d: %s", (int)pid, err);
			return HCBS_EXIT_NOTFOUND;
		}
		ret = pod_check(pol, kb, id, &cg, to, &lock);
		if (ret) {
			if (lock >= 0)
				close(lock);
			return ret;
		}
	}
	ret = hcbs_hook_reserve(pid, &cg, HCBS_ENGINE_OCI, id, to, err, sizeof(err),
				warn, sizeof(warn));
	if (lock >= 0)
		close(lock);	/* the reservation is written: the next may count it */
	if (warn[0])
		say(LOG_WARNING, "%s", warn);
	if (ret) {
		say(LOG_ERR, "%s", err);
		return ret;
	}
	syslog(LOG_INFO, "%s: reserved %s (%.3f CPU on each CPU) in %s", g_id,
	       hcbs_rt_format(to, buf, sizeof(buf)), hcbs_rt_bw(to), dir);
	return 0;
}

static int run(const char *tsdir)
{
	char e[HCBS_ERRLEN], *text = NULL;
	static struct hcbs_oci_policy pol;
	struct hcbs_rt to = { 0 };
	struct request rq;
	struct kube kb;
	json_error_t jerr;
	json_t *state;
	const char *id;
	pid_t pid;
	int ret;

	ret = hcbs_read_text_max("-", STATE_MAX, &text, e, sizeof(e));
	if (ret) {
		say(LOG_ERR, "state: %s", e);
		return ret == -ENOMEM ? HCBS_EXIT_SYSTEM : HCBS_EXIT_USAGE;
	}
	state = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!state) {
		say(LOG_ERR, "state on stdin is not JSON: line %d, column %d: %s (run me as an OCI hook)",
		    jerr.line, jerr.column, jerr.text);
		return HCBS_EXIT_USAGE;
	}
	if (!json_is_object(state)) {
		say(LOG_ERR, "state on stdin is not a JSON object (run me as an OCI hook)");
		ret = HCBS_EXIT_USAGE;
		goto out;
	}
	id = json_string_value(json_object_get(state, "id"));
	if (!id || !*id) {
		say(LOG_ERR, "state: no container \"id\" (run me as an OCI hook)");
		ret = HCBS_EXIT_USAGE;
		goto out;
	}
	set_id(id);
	ret = read_annotations(state, &rq, &kb);
	if (ret || (!rq.reservation && !rq.taskset))
		goto out;	/* an error, or nothing to do */
	ret = state_status(state);
	if (!ret)
		ret = state_pid(state, &pid);
	if (!ret)
		ret = reservation_of(&rq, tsdir, &to);
	if (!ret)
		ret = policy_check(&kb, &to, &pol);
	if (!ret)
		ret = reserve(id, pid, &to, &kb, &pol);
out:
	json_decref(state);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "taskset-dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *tsdir = DEFAULT_TASKSET_DIR;
	char buf[80];
	int c;

	openlog("hcbs-oci-hook", LOG_PID, LOG_DAEMON);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+d:hV", lopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			tsdir = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("hcbs-oci-hook %s\n", HCBS_VERSION);
			return 0;
		default:
			say(LOG_ERR, "bad option '%s' (see hcbs-oci-hook --help)",
			    printable(argv[optind - 1], buf, sizeof(buf)));
			return HCBS_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		say(LOG_ERR, "unexpected argument '%s': the state comes on stdin (see hcbs-oci-hook --help)",
		    printable(argv[optind], buf, sizeof(buf)));
		return HCBS_EXIT_USAGE;
	}
	return run(tsdir);
}
