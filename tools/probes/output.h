/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcbstrace: the output: one column per cgroup, the text tables, and the
 * JSON document (schema hcbstrace/1, written through tools/lib's
 * hcbs_json_*).
 */
#ifndef HCBSTRACE_OUTPUT_H
#define HCBSTRACE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opts.h"
#include "trace_clock.h"

#define HCBSTRACE_SCHEMA	"hcbstrace/1"

/*
 * The columns of the output, one per cgroup: with @filters, first one per
 * cgroup filter, in order and even if it saw nothing; then one per other
 * cgroup, in the order hcbs_cols_find() meets them.
 */
struct hcbs_col {
	uint64_t cgid;
	const char *name;
	char unknown[32];	/* the name of a cgroup not under the mount */
};

struct hcbs_cols {
	struct hcbs_col *c;
	size_t n;
	size_t cap;		/* the filters, plus @extra of hcbs_cols_init(), plus 1 */
	void *data;		/* the caller's, one of @size bytes per column */
};

/*
 * Room for @extra columns besides the filters'; returns cols->data, zeroed,
 * or NULL when out of memory.
 */
void *hcbs_cols_init(struct hcbs_cols *cols, const struct hcbs_opts *o, size_t extra,
		     bool filters, size_t size);
/* The column of cgroup @cgid, a new one if it has none. */
size_t hcbs_cols_find(struct hcbs_cols *cols, const struct hcbs_opts *o, uint64_t cgid);
/* Frees cols->data too. */
void hcbs_cols_free(struct hcbs_cols *cols);

/* Output helpers. */
/* "# hcbstrace CMD: WHAT[ (interval)]" and the time traced. */
void hcbs_print_header(const struct hcbs_opts *o, const struct hcbs_clock *c,
		       const char *what, bool interval);
/*
 * The text table of @cols: the names in columns of width @w (returned:
 * 10, or the longest name) after @label in @lw characters.
 */
int hcbs_print_names(const char *label, int lw, const struct hcbs_cols *cols);
/*
 * A row of that table: @label, then in each column the u64 at @first +
 * i * @stride (one field of an array of structs, one per column).
 */
void hcbs_print_row(const char *label, int lw, int w, const void *first, size_t stride,
		    size_t n);
/* "812.3" us with one decimal, or "-" for none. */
char *hcbs_fmt_us(uint64_t ns, char *buf, size_t len);

/*
 * The JSON document: "{" and the keys every subcommand has, up to
 * "cgroup_version"; hcbs_json_end() closes it and prints it.
 */
struct hcbs_json *hcbs_json_begin(const struct hcbs_opts *o, const struct hcbs_clock *c,
				  const char *stop_reason, const char *threshold_cause);
void hcbs_json_end(struct hcbs_json *j);
/* "@key": @name, "cgroup_id": @cgid */
void hcbs_json_cgroup(struct hcbs_json *j, const char *key, const char *name,
		      uint64_t cgid);

/* Members with unsigned values, from a table. */
struct hcbs_json_u64 {
	const char *key;
	uint64_t v;
};

void hcbs_json_u64s(struct hcbs_json *j, const struct hcbs_json_u64 *m, size_t n);
#define HCBS_JSON_U64S(j, ...) do {						\
	const struct hcbs_json_u64 m_[] = { __VA_ARGS__ };			\
	hcbs_json_u64s((j), m_, sizeof(m_) / sizeof(m_[0]));			\
} while (0)
/* "drops": { the counters } */
#define HCBS_JSON_DROPS(j, ...) do {						\
	hcbs_json_key((j), "drops");						\
	hcbs_json_object_begin(j);						\
	HCBS_JSON_U64S((j), __VA_ARGS__);					\
	hcbs_json_object_end(j);						\
} while (0)

#endif /* HCBSTRACE_OUTPUT_H */
