/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Levelled logging to stderr for xrxd and xrxctl. Levels are syslog
 * priorities so that, when stderr is the journal (systemd sets
 * JOURNAL_STREAM), each line carries a "<N>" prefix journald turns into
 * the record's priority; on a terminal the prefix is "PROG: level: ".
 */
#ifndef XRX_CTL_LOG_H
#define XRX_CTL_LOG_H

#include <stdarg.h>
#include <stddef.h>

enum ctl_log_level {
	CTL_LOG_ERR = 3,
	CTL_LOG_WARN = 4,
	CTL_LOG_NOTICE = 5,
	CTL_LOG_INFO = 6,
	CTL_LOG_DEBUG = 7,
};

/* Program name for the prefix and the most verbose level printed. */
void ctl_log_init(const char *prog, enum ctl_log_level max_level);
void ctl_log_set_level(enum ctl_log_level max_level);
enum ctl_log_level ctl_log_level(void);

void ctl_log(enum ctl_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ctl_vlog(enum ctl_log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/*
 * A line printed as is, without "PROG: level: " (journal priority prefix
 * still added): for messages whose format is fixed, such as a config
 * error's "FILE:LINE: ...".
 */
void ctl_log_plain(enum ctl_log_level level, const char *line);

/*
 * Keep the first error line this thread logs from now on in @buf (set to
 * "" here), whatever the level shown; ctl_log_capture(NULL, 0) stops.
 * For an outcome that must carry the reason the log gave, word for word.
 */
void ctl_log_capture(char *buf, size_t len);

#define ctl_err(...) ctl_log(CTL_LOG_ERR, __VA_ARGS__)
#define ctl_warn(...) ctl_log(CTL_LOG_WARN, __VA_ARGS__)
#define ctl_notice(...) ctl_log(CTL_LOG_NOTICE, __VA_ARGS__)
#define ctl_info(...) ctl_log(CTL_LOG_INFO, __VA_ARGS__)
#define ctl_debug(...) ctl_log(CTL_LOG_DEBUG, __VA_ARGS__)

#endif /* XRX_CTL_LOG_H */
