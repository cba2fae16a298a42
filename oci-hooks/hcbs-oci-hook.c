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
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <jansson.h>

#include "hcbs.h"
#include "hcbs-analysis.h"
#include "hcbs-rt.h"

#define DEFAULT_TASKSET_DIR "/etc/hcbs/tasksets"
/* Kubernetes caps all of a pod's annotations at 256 KiB; the state is small. */
#define STATE_MAX (1u << 20)
#define ANN_PREFIX "hcbs."

static char g_id[16] = "?";	/* the container, in messages: 12 characters of its id */

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
"\n"
"  --taskset-dir DIR      where hcbs.taskset names a file (default\n"
"                         " DEFAULT_TASKSET_DIR "); NAME has no '/'\n"
"\n"
"Example (podman, with the hooks.d file installed):\n"
"  podman run --annotation hcbs.reservation=8ms/18ms IMAGE\n"
"\n"
"Exit status as hcbsctl(1): 0 ok or nothing to do, 1 bad state or annotation,\n"
"2 refused by the kernel, 3 cgroup not found, 4 kernel without HCBS,\n"
"5 permission denied, 6 task set not schedulable, 7 other error.  Non-zero\n"
"makes the runtime refuse to create the container.\n", f);
}

/* The container's id, for messages: printable, at most 12 characters. */
static void set_id(const char *id)
{
	size_t i;

	for (i = 0; id[i] && i < 12; i++)
		g_id[i] = (id[i] > ' ' && id[i] < 0x7f) ? id[i] : '?';
	g_id[i] = '\0';
}

/* @s for a one-line message: at most 64 bytes, control characters as '?'. */
static const char *printable(const char *s, char *buf, size_t len)
{
	return hcbs_printable(s, 64, buf, len);
}

struct request {
	const char *reservation, *taskset, *period, *order;
};

/*
 * A sandbox (pause) container of a Kubernetes pod: it holds the pod's
 * namespaces, runs no workload, and gets the pod's annotations like every
 * container of the pod.  CRI-O and containerd mark it.
 */
static bool is_sandbox(json_t *ann)
{
	static const char *const keys[] = {
		"io.kubernetes.cri-o.ContainerType",	/* CRI-O */
		"io.kubernetes.cri.container-type",	/* containerd */
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = json_string_value(json_object_get(ann, keys[i]));

		if (v && !strcmp(v, "sandbox"))
			return true;
	}
	return false;
}

/*
 * Read our annotations.  Returns 0 (and rq->reservation or rq->taskset
 * set when there is something to do) or HCBS_EXIT_USAGE with a message.
 */
static int read_annotations(json_t *state, struct request *rq)
{
	static const char *const names[] = { "reservation", "taskset", "period", "order" };
	const char **slots[] = { &rq->reservation, &rq->taskset, &rq->period, &rq->order };
	json_t *ann = json_object_get(state, "annotations"), *v;
	const char *key;
	char buf[80];

	memset(rq, 0, sizeof(*rq));
	if (!ann || json_is_null(ann))
		return 0;
	if (!json_is_object(ann)) {
		say(LOG_ERR, "state: \"annotations\" is not an object");
		return HCBS_EXIT_USAGE;
	}
	json_object_foreach(ann, key, v) {
		size_t i;

		if (strncmp(key, ANN_PREFIX, strlen(ANN_PREFIX)))
			continue;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(key + strlen(ANN_PREFIX), names[i]))
				break;
		if (i == sizeof(names) / sizeof(names[0])) {
			say(LOG_ERR, "unknown annotation '%s': accepted hcbs.reservation, hcbs.taskset, hcbs.period, hcbs.order",
			    printable(key, buf, sizeof(buf)));
			return HCBS_EXIT_USAGE;
		}
		if (!json_is_string(v)) {
			say(LOG_ERR, "annotation %s is not a string", key);
			return HCBS_EXIT_USAGE;
		}
		*slots[i] = json_string_value(v);
	}
	if (!rq->reservation && !rq->taskset) {
		if (rq->period || rq->order) {
			say(LOG_ERR, "annotation hcbs.%s is for hcbs.taskset, which is missing",
			    rq->period ? "period" : "order");
			return HCBS_EXIT_USAGE;
		}
		return 0;
	}
	if (rq->reservation && rq->taskset) {
		say(LOG_ERR, "annotations hcbs.reservation and hcbs.taskset both given: give one");
		return HCBS_EXIT_USAGE;
	}
	if (rq->reservation && (rq->period || rq->order)) {
		say(LOG_ERR, "annotation hcbs.%s is for hcbs.taskset; hcbs.reservation is RUNTIME/PERIOD",
		    rq->period ? "period" : "order");
		return HCBS_EXIT_USAGE;
	}
	if (rq->taskset && !rq->period) {
		say(LOG_ERR, "annotation hcbs.taskset needs hcbs.period, e.g. hcbs.period=18ms");
		return HCBS_EXIT_USAGE;
	}
	if (is_sandbox(ann))
		rq->reservation = rq->taskset = NULL;
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
			say(LOG_ERR, "annotation hcbs.reservation: %s", e);
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
		say(LOG_ERR, "annotation hcbs.taskset: '%s' is not a file name: expected the name of a task set in %s (no '/', not starting with '.')",
		    printable(rq->taskset, e, sizeof(e)), tsdir);
		return HCBS_EXIT_USAGE;
	}
	if ((size_t)snprintf(file, sizeof(file), "%s/%s", tsdir, rq->taskset) >= sizeof(file)) {
		say(LOG_ERR, "annotation hcbs.taskset: path too long");
		return HCBS_EXIT_USAGE;
	}
	/* The function hcbsctl set --taskset uses: the same answer. */
	ret = hcbs_taskset_reservation(file, rq->period, rq->order, NULL, NULL, to, e, sizeof(e));
	if (ret) {
		/* The shared function names hcbsctl's options; we had annotations. */
		const char *opt = !strncmp(e, "--period", 8) ? "period" :
				  !strncmp(e, "--order", 7) ? "order" : NULL;

		if (opt)
			say(LOG_ERR, "annotation hcbs.%s", e + 2);
		else
			say(LOG_ERR, "annotation hcbs.taskset: %s", e);
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

static int reserve(const char *id, pid_t pid, const struct hcbs_rt *to)
{
	char err[8192], warn[HCBS_ERRLEN], buf[64];
	static struct hcbs_proc_cgroup cg;
	const char *dir = cg.dir;
	int ret;

	/* A fake /proc in the test build only. */
	ret = hcbs_proc_cgroup(hcbs_test_env("HCBS_TEST_PROC"), pid, &cg, err, sizeof(err));
	if (ret) {
		say(LOG_ERR, "cannot find the cgroup of the container's process (pid %d): %s",
		    (int)pid, err);
		return HCBS_EXIT_NOTFOUND;
	}
	ret = hcbs_hook_reserve(pid, &cg, HCBS_ENGINE_OCI, id, to, err, sizeof(err),
				warn, sizeof(warn));
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
	struct hcbs_rt to = { 0 };
	struct request rq;
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
	ret = read_annotations(state, &rq);
	if (ret || (!rq.reservation && !rq.taskset))
		goto out;	/* an error, or nothing to do */
	ret = state_status(state);
	if (!ret)
		ret = state_pid(state, &pid);
	if (!ret)
		ret = reservation_of(&rq, tsdir, &to);
	if (!ret)
		ret = reserve(id, pid, &to);
out:
	json_decref(state);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "taskset-dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *tsdir = DEFAULT_TASKSET_DIR;
	char buf[80];
	int c;

	openlog("hcbs-oci-hook", LOG_PID, LOG_DAEMON);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+d:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			tsdir = optarg;
			break;
		case 'h':
			usage(stdout);
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
