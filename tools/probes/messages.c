// SPDX-License-Identifier: GPL-2.0
/*
 * hcbstrace: its one-line error messages.  A leaf: every other file may
 * call it, and it calls none of them.
 */
#include <stdarg.h>
#include <stdio.h>

#include "messages.h"
#include "opts.h"

void hcbs_err(const struct hcbs_opts *o, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	/* Container names and paths are the user's: escaped (hcbs_printable()). */
	va_start(ap, fmt);
	hcbs_vescapef(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "hcbstrace: %s%s%s\n", o && o->cmd ? o->cmd : "",
		o && o->cmd ? ": " : "", msg);
}
