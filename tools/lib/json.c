// SPDX-License-Identifier: GPL-2.0
/*
 * A small streaming JSON writer: pretty-printed with two-space indents,
 * RFC 8259 string escaping, invalid UTF-8 replaced by U+FFFD so that the
 * output is always valid JSON.  Misuse (a value without a key inside an
 * object, too deep nesting, unbalanced ends) is remembered and reported by
 * hcbs_json_free().
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hcbs.h"

#define JSON_MAX_DEPTH 32

struct hcbs_json {
	FILE *out;
	int depth;
	bool bad;
	bool have_key;		/* a key was written, its value is next */
	bool done;		/* the top-level value is complete */
	bool is_object[JSON_MAX_DEPTH];
	bool first[JSON_MAX_DEPTH];
};

struct hcbs_json *hcbs_json_new(FILE *out)
{
	struct hcbs_json *j = calloc(1, sizeof(*j));

	if (j)
		j->out = out;
	return j;
}

int hcbs_json_free(struct hcbs_json *j)
{
	int ret;

	if (!j)
		return -EINVAL;
	ret = (j->bad || j->depth || j->have_key) ? -EINVAL : 0;
	free(j);
	return ret;
}

static void indent(struct hcbs_json *j)
{
	fputc('\n', j->out);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/* Everything that starts a value goes through here. */
static bool value_begin(struct hcbs_json *j)
{
	if (!j || j->bad)
		return false;
	if (j->done) {
		j->bad = true;
		return false;
	}
	if (j->depth == 0)
		return true;
	if (j->is_object[j->depth - 1]) {
		if (!j->have_key) {
			j->bad = true;
			return false;
		}
		j->have_key = false;
		return true;
	}
	if (!j->first[j->depth - 1])
		fputc(',', j->out);
	j->first[j->depth - 1] = false;
	indent(j);
	return true;
}

static void value_end(struct hcbs_json *j)
{
	if (j->depth == 0) {
		fputc('\n', j->out);
		j->done = true;
	}
}

static void put_string(struct hcbs_json *j, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', j->out);
	while (*p) {
		unsigned char c = *p;
		int n = 0;

		if (c == '"' || c == '\\') {
			fputc('\\', j->out);
			fputc(c, j->out);
		} else if (c == '\n') {
			fputs("\\n", j->out);
		} else if (c == '\t') {
			fputs("\\t", j->out);
		} else if (c == '\r') {
			fputs("\\r", j->out);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(j->out, "\\u%04x", c);
		} else if (c < 0x80) {
			fputc(c, j->out);
		} else {
			/* Copy a well-formed UTF-8 sequence, else emit U+FFFD. */
			uint32_t cp = 0, min = 0;

			if (c >= 0xc2 && c <= 0xdf) {
				n = 1; cp = c & 0x1f; min = 0x80;
			} else if (c >= 0xe0 && c <= 0xef) {
				n = 2; cp = c & 0x0f; min = 0x800;
			} else if (c >= 0xf0 && c <= 0xf4) {
				n = 3; cp = c & 0x07; min = 0x10000;
			}
			for (int i = 1; i <= n; i++) {
				if ((p[i] & 0xc0) != 0x80) {
					n = 0;
					break;
				}
				cp = (cp << 6) | (p[i] & 0x3f);
			}
			if (n && (cp < min || cp > 0x10ffff ||
				  (cp >= 0xd800 && cp <= 0xdfff)))
				n = 0;
			if (n) {
				fwrite(p, 1, (size_t)n + 1, j->out);
				p += n;
			} else {
				fputs("\xef\xbf\xbd", j->out);
			}
		}
		p++;
	}
	fputc('"', j->out);
}

static void container_begin(struct hcbs_json *j, bool object)
{
	if (!value_begin(j))
		return;
	if (j->depth >= JSON_MAX_DEPTH) {
		j->bad = true;
		return;
	}
	fputc(object ? '{' : '[', j->out);
	j->is_object[j->depth] = object;
	j->first[j->depth] = true;
	j->depth++;
}

static void container_end(struct hcbs_json *j, bool object)
{
	bool empty;

	if (!j || j->bad)
		return;
	if (!j->depth || j->is_object[j->depth - 1] != object || j->have_key) {
		j->bad = true;
		return;
	}
	empty = j->first[j->depth - 1];
	j->depth--;
	if (!empty)
		indent(j);
	fputc(object ? '}' : ']', j->out);
	value_end(j);
}

void hcbs_json_object_begin(struct hcbs_json *j) { container_begin(j, true); }
void hcbs_json_object_end(struct hcbs_json *j) { container_end(j, true); }
void hcbs_json_array_begin(struct hcbs_json *j) { container_begin(j, false); }
void hcbs_json_array_end(struct hcbs_json *j) { container_end(j, false); }

void hcbs_json_key(struct hcbs_json *j, const char *key)
{
	if (!j || j->bad)
		return;
	if (!j->depth || !j->is_object[j->depth - 1] || j->have_key || !key) {
		j->bad = true;
		return;
	}
	if (!j->first[j->depth - 1])
		fputc(',', j->out);
	j->first[j->depth - 1] = false;
	indent(j);
	put_string(j, key);
	fputs(": ", j->out);
	j->have_key = true;
}

void hcbs_json_string(struct hcbs_json *j, const char *s)
{
	if (!s) {
		hcbs_json_null(j);
		return;
	}
	if (!value_begin(j))
		return;
	put_string(j, s);
	value_end(j);
}

void hcbs_json_int(struct hcbs_json *j, int64_t v)
{
	if (!value_begin(j))
		return;
	fprintf(j->out, "%lld", (long long)v);
	value_end(j);
}

void hcbs_json_uint(struct hcbs_json *j, uint64_t v)
{
	if (!value_begin(j))
		return;
	fprintf(j->out, "%llu", (unsigned long long)v);
	value_end(j);
}

void hcbs_json_double(struct hcbs_json *j, double v)
{
	char buf[64];

	if (!isfinite(v)) {
		hcbs_json_null(j);
		return;
	}
	if (!value_begin(j))
		return;
	/* Shortest of %.15g/%.17g that reads back exactly. */
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	fputs(buf, j->out);
	value_end(j);
}

void hcbs_json_bool(struct hcbs_json *j, bool v)
{
	if (!value_begin(j))
		return;
	fputs(v ? "true" : "false", j->out);
	value_end(j);
}

void hcbs_json_null(struct hcbs_json *j)
{
	if (!value_begin(j))
		return;
	fputs("null", j->out);
	value_end(j);
}
