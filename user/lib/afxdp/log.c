// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libxrx's messages (log.h): the program's, the sockets' and the live
 * handle's, to the log callback their options name.
 */
#include <stdio.h>

#include "afxdp/log.h"

void xrx_vlog(void (*log)(void *ctx, enum xrx_log_level level, const char *msg),
	      void *ctx, enum xrx_log_level lvl, const char *fmt, va_list ap)
{
	char buf[768];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (log)
		log(ctx, lvl, buf);
	else if (lvl <= XRX_LOG_INFO)
		fprintf(stderr, "xrx: %s\n", buf);
}

void xrx_logf(void (*log)(void *ctx, enum xrx_log_level level, const char *msg),
	      void *ctx, enum xrx_log_level lvl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xrx_vlog(log, ctx, lvl, fmt, ap);
	va_end(ap);
}
