/* SPDX-License-Identifier: GPL-2.0 */
/* hcbstrace: its one-line error messages (messages.c). */
#ifndef HCBSTRACE_MESSAGES_H
#define HCBSTRACE_MESSAGES_H

struct hcbs_opts;

/* "hcbstrace: CMD: " and the message, one line on stderr. */
void hcbs_err(const struct hcbs_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* HCBSTRACE_MESSAGES_H */
