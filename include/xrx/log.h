/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libxrx's messages: their levels, as the log callbacks of the options
 * (struct xrx_prog_opts, struct xrx_live_opts) receive them. Without a
 * callback, warnings and info go to stderr.
 */
#ifndef XRX_LOG_H
#define XRX_LOG_H

#ifdef __cplusplus
extern "C" {
#endif

enum xrx_log_level {
	XRX_LOG_WARN = 0,
	XRX_LOG_INFO,
	XRX_LOG_DEBUG,
};

#ifdef __cplusplus
}
#endif

#endif /* XRX_LOG_H */
