// SPDX-License-Identifier: GPL-2.0
/*
 * JSON output through jansson, the project's one JSON library (it also
 * reads task sets; docs/json.md says why jansson).  The callers write a
 * document value by value, as a stream (hcbs.h); this builds the jansson
 * tree and, when the top-level value is complete, prints it with
 * json_dumpf(): two-space indents, 15 significant digits for fractions.
 *
 * What jansson itself would refuse is made valid first: invalid UTF-8 is
 * replaced by U+FFFD (a task's comm is any bytes), NaN and infinities are
 * null, and an unsigned value above INT64_MAX (jansson's integers are
 * signed) is written as a fraction.  Misuse (a value without a key inside
 * an object, too deep nesting, unbalanced ends, a second top-level value)
 * is remembered and reported by hcbs_json_free(); a document with misuse
 * is not printed.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hcbs.h"

#define JSON_MAX_DEPTH 32

struct hcbs_json {
	FILE *out;
	json_t *root;		/* the document, until it is printed */
	json_t *open[JSON_MAX_DEPTH];	/* the open objects and arrays (borrowed) */
	int depth;
	char *key;		/* a key was written, its value is next */
	bool bad;
	bool done;		/* the top-level value is complete */
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
	ret = j->bad || j->depth || j->key ? -EINVAL : 0;
	json_decref(j->root);
	free(j->key);
	free(j);
	return ret;
}

static void finish(struct hcbs_json *j)
{
	if (json_dumpf(j->root, j->out, JSON_INDENT(2) | JSON_REAL_PRECISION(15)))
		j->bad = true;
	else
		fputc('\n', j->out);
	json_decref(j->root);
	j->root = NULL;
	j->done = true;
}

/* Every value goes through here; @v is taken (a new reference, or NULL). */
static void add(struct hcbs_json *j, json_t *v)
{
	bool container = json_is_object(v) || json_is_array(v);
	json_t *parent;

	if (!j || j->bad || j->done || !v) {
		if (j)
			j->bad = true;
		json_decref(v);
		return;
	}
	if (container && j->depth >= JSON_MAX_DEPTH) {
		j->bad = true;
		json_decref(v);
		return;
	}
	if (!j->depth) {
		j->root = v;
	} else {
		parent = j->open[j->depth - 1];
		if (json_is_object(parent)) {
			/* A missing or repeated key is misuse; set_new takes @v, even on failure. */
			if (!j->key || json_object_get(parent, j->key)) {
				j->bad = true;
				json_decref(v);
			} else if (json_object_set_new(parent, j->key, v)) {
				j->bad = true;
			}
			free(j->key);
			j->key = NULL;
		} else if (json_array_append_new(parent, v)) {
			j->bad = true;
		}
		if (j->bad)
			return;
	}
	if (container)
		j->open[j->depth++] = v;
	else if (!j->depth)
		finish(j);
}

static void container_end(struct hcbs_json *j, bool object)
{
	if (!j || j->bad)
		return;
	if (!j->depth || json_is_object(j->open[j->depth - 1]) != object || j->key) {
		j->bad = true;
		return;
	}
	if (!--j->depth)
		finish(j);
}

void hcbs_json_object_begin(struct hcbs_json *j) { add(j, json_object()); }
void hcbs_json_object_end(struct hcbs_json *j) { container_end(j, true); }
void hcbs_json_array_begin(struct hcbs_json *j) { add(j, json_array()); }
void hcbs_json_array_end(struct hcbs_json *j) { container_end(j, false); }

void hcbs_json_key(struct hcbs_json *j, const char *key)
{
	if (!j || j->bad)
		return;
	if (!j->depth || !json_is_object(j->open[j->depth - 1]) || j->key || !key ||
	    !(j->key = strdup(key)))
		j->bad = true;
}

/*
 * @s with every byte that does not start a well-formed UTF-8 sequence
 * (overlong, surrogate, above U+10FFFF, cut short) replaced by U+FFFD.
 */
static char *utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(strlen(s) * 3 + 1), *d = out;

	if (!out)
		return NULL;
	for (; *p; p++) {
		unsigned char c = *p;
		uint32_t cp = 0, min = 0;
		int n = 0;

		if (c < 0x80) {
			*d++ = (char)c;
			continue;
		}
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
		if (n && (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)))
			n = 0;
		if (n) {
			memcpy(d, p, (size_t)n + 1);
			d += n + 1;
			p += n;
		} else {
			memcpy(d, "\xef\xbf\xbd", 3);
			d += 3;
		}
	}
	*d = '\0';
	return out;
}

void hcbs_json_string(struct hcbs_json *j, const char *s)
{
	json_t *v;
	char *valid;

	if (!s) {
		hcbs_json_null(j);
		return;
	}
	v = json_string(s);
	if (!v && (valid = utf8_valid(s))) {
		v = json_string(valid);
		free(valid);
	}
	add(j, v);
}

void hcbs_json_int(struct hcbs_json *j, int64_t v)
{
	add(j, json_integer((json_int_t)v));
}

void hcbs_json_uint(struct hcbs_json *j, uint64_t v)
{
	add(j, v > INT64_MAX ? json_real((double)v) : json_integer((json_int_t)v));
}

void hcbs_json_double(struct hcbs_json *j, double v)
{
	add(j, isfinite(v) ? json_real(v) : json_null());
}

void hcbs_json_bool(struct hcbs_json *j, bool v)
{
	add(j, json_boolean(v));
}

void hcbs_json_null(struct hcbs_json *j)
{
	add(j, json_null());
}
