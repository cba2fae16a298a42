/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The node policy of hcbs-oci-hook (/etc/hcbs/oci-hook.conf): who may ask
 * for a reservation and how large one may be, per container and per
 * Kubernetes pod.  Parsing and the decisions only; the hook reads the
 * pod's reservations from cgroupfs itself.  Format in hcbs-oci-hook(1).
 */
#ifndef HCBS_OCI_POLICY_H
#define HCBS_OCI_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hcbs-rt.h"

/* Fixed in the installed hook; a test build may read another file. */
#define HCBS_OCI_POLICY_FILE "/etc/hcbs/oci-hook.conf"
#define HCBS_OCI_POLICY_MAX (64u << 10)
#define HCBS_OCI_POLICY_NS_MAX 32

enum hcbs_policy_key {
	HCBS_POL_DEFAULT,		/* default = refuse | allow */
	HCBS_POL_NAMESPACES,		/* namespaces = NS[, NS]... */
	HCBS_POL_MAX_BW,		/* max-bandwidth = 0.5 (per container) */
	HCBS_POL_MAX_RUNTIME,		/* max-runtime = 10ms */
	HCBS_POL_MIN_PERIOD,		/* min-period = 1ms */
	HCBS_POL_MAX_PERIOD,		/* max-period = 100ms */
	HCBS_POL_MAX_POD_BW,		/* max-pod-bandwidth = 0.8 */
	HCBS_POL_NKEYS,
};

struct hcbs_oci_policy {
	char file[256];			/* for messages */
	int line[HCBS_POL_NKEYS];	/* where each key was set; 0: not set */
	char raw[HCBS_POL_NKEYS][128];	/* its value as written, for messages */
	bool allow;			/* default = allow */
	char ns[HCBS_OCI_POLICY_NS_MAX][64];
	int n_ns;
	uint32_t max_bw_ppm, max_pod_bw_ppm;	/* parts per million of a CPU */
	uint64_t max_runtime_us, min_period_us, max_period_us;
};

/*
 * Parse the text of a policy file (@file names it in messages).  0, or
 * -EINVAL with one line "FILE:LINE: what is wrong: what is accepted".
 */
int hcbs_oci_policy_parse(const char *text, const char *file, struct hcbs_oci_policy *p,
			  char *err, size_t errlen);

/*
 * Read and parse @path, if it and the directory that holds it are root's
 * and writable by nobody else (-EINVAL otherwise, with one line saying
 * which and what is accepted).  -ENOENT when there is none (the caller
 * refuses: no policy, no reservation), another -errno when it cannot be
 * read.
 */
int hcbs_oci_policy_load(const char *path, struct hcbs_oci_policy *p, char *err,
			 size_t errlen);

/*
 * May this container ask at all?  @ns is its Kubernetes namespace, NULL
 * for a container outside Kubernetes.  0, or -EPERM with one line naming
 * the rule and the value.
 */
int hcbs_oci_policy_who(const struct hcbs_oci_policy *p, const char *ns, char *err,
			size_t errlen);

/* Is @rt within the per-container limits?  0, or -EPERM with one line. */
int hcbs_oci_policy_container(const struct hcbs_oci_policy *p, const struct hcbs_rt *rt,
			      char *err, size_t errlen);

/*
 * With @used (parts per billion of a CPU, hcbs_oci_bw_ppb()) already
 * reserved by @n_used other containers of pod @uid, may this one add @rt?
 * 0, or -EPERM with one line.
 */
int hcbs_oci_policy_pod(const struct hcbs_oci_policy *p, const char *uid, uint64_t used,
			int n_used, const struct hcbs_rt *rt, char *err, size_t errlen);

/* The bandwidth of @rt in parts per billion of a CPU, rounded up (0: max). */
uint64_t hcbs_oci_bw_ppb(const struct hcbs_rt *rt);

/* A Kubernetes name (namespace, container): a DNS-1123 label. */
bool hcbs_oci_dns_label(const char *s);

#endif
