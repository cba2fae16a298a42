/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the libFuzzer targets of tests/fuzz (scripts/fuzz builds them
 * with clang -fsanitize=fuzzer,address,undefined against tools/lib).
 */
#ifndef HCBS_FUZZ_H
#define HCBS_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A NUL-terminated heap copy of the input, so ASan sees every overread. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* A property of the code under test does not hold: crash with the why. */
#define FUZZ_CHECK(cond, ...) do {					\
	if (!(cond)) {							\
		fprintf(stderr, "fuzz: %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		abort();						\
	}								\
} while (0)

/*
 * The error buffer contract of tools/lib (hcbs.h): on failure one line,
 * NUL-terminated within @len, no newline, not empty (when there is room).
 */
static inline void fuzz_check_err(const char *err, size_t len)
{
	size_t n = strnlen(err, len);

	FUZZ_CHECK(n < len, "error message not NUL-terminated within %zu bytes", len);
	FUZZ_CHECK(len < 2 || n > 0, "empty error message");
	FUZZ_CHECK(!memchr(err, '\n', n), "error message with a newline: '%s'", err);
}

#endif
