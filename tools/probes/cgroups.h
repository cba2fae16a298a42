/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcbstrace: which cgroups a run looks at (the --container and --cgroup
 * filters, or this process's own hierarchy) and what their names are.
 */
#ifndef HCBSTRACE_CGROUPS_H
#define HCBSTRACE_CGROUPS_H

#include <stdbool.h>
#include <stdint.h>

#include "opts.h"

/*
 * Resolve the filters into o->cg[] (containers first, then cgroups, in
 * the order given) and the hierarchy they are in; without filters, the
 * hierarchy of this process's cpu cgroup.  Prints the error; returns 0,
 * -ENOENT or -ESRCH (no such container or cgroup), -ENOMEDIUM (no cpu
 * cgroup hierarchy mounted, also checked before a container is looked
 * up), or another -errno.
 */
int hcbs_cgroups_select(struct hcbs_opts *o, const char *const *containers, int nr_containers,
			const char *const *cgroups, int nr_cgroups);

/* Name of cgroup @id ("vbbu1" for lxc.payload.vbbu1, else its path). */
const char *hcbs_cgroup_name(const struct hcbs_opts *o, uint64_t id);
/* The same, or NULL if it is not under the mount. */
const char *hcbs_cgroup_known_name(const struct hcbs_opts *o, uint64_t id);
/* "cgroup-ID", the name of a cgroup not under the mount, in @buf. */
const char *hcbs_cgroup_unknown_name(char *buf, size_t len, uint64_t id);
/*
 * Is cgroup @id selected by the cgroup filters (for events that carry only
 * a cgroup id)?  Yes if it is a filter's, or at or below a filter's path.
 */
bool hcbs_cgroup_selected(const struct hcbs_opts *o, uint64_t id);
/* Names and paths stay valid until this. */
void hcbs_cgroup_names_free(void);

#endif /* HCBSTRACE_CGROUPS_H */
