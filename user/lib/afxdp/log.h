/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libxrx's messages from the program and the live path (log.c): to the
 * log callback their options name (include/xrx/log.h). Not installed;
 * not API.
 */
#ifndef XRX_LIB_AFXDP_LOG_H
#define XRX_LIB_AFXDP_LOG_H

#include <stdarg.h>

#include <xrx/log.h>

/* A message to @log, or with none, warnings and info to stderr. */
void xrx_vlog(void (*log)(void *ctx, enum xrx_log_level level, const char *msg),
	      void *ctx, enum xrx_log_level lvl, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
void xrx_logf(void (*log)(void *ctx, enum xrx_log_level level, const char *msg),
	      void *ctx, enum xrx_log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* XRX_LIB_AFXDP_LOG_H */
