// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Levelled logging to stderr. One process-wide sink: the program name and
 * level are set once in main(), like libbpf's print callback, so library
 * code can report without threading a logger through every call.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl_log.h"

static const char *log_prog = "xrx";
static enum ctl_log_level log_max = CTL_LOG_NOTICE;
static int log_journal = -1;	/* -1: not probed yet */
/* Armed by ctl_log_capture(): this thread's first error line goes here. */
static __thread char *cap_buf;
static __thread size_t cap_len;

static const char *const level_names[] = {
	[CTL_LOG_ERR] = "error",     [CTL_LOG_WARN] = "warning",
	[CTL_LOG_NOTICE] = "notice", [CTL_LOG_INFO] = "info",
	[CTL_LOG_DEBUG] = "debug",
};

/*
 * systemd sets JOURNAL_STREAM=DEV:INODE when stdout/stderr is connected to
 * the journal; it is only ours if stderr is still that very stream (see
 * sd_journal_stream_fd(3)).
 */
static int stderr_is_journal(void)
{
	unsigned long long dev, ino;
	const char *js = getenv("JOURNAL_STREAM");
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2)
		return 0;
	if (fstat(2, &st) < 0)
		return 0;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void ctl_log_init(const char *prog, enum ctl_log_level max_level)
{
	const char *slash = strrchr(prog, '/');

	log_prog = slash ? slash + 1 : prog;
	log_max = max_level;
	log_journal = stderr_is_journal();
}

void ctl_log_set_level(enum ctl_log_level max_level)
{
	log_max = max_level;
}

enum ctl_log_level ctl_log_level(void)
{
	return log_max;
}

void ctl_log_capture(char *buf, size_t len)
{
	cap_buf = len ? buf : NULL;
	cap_len = len;
	if (cap_buf)
		cap_buf[0] = '\0';
}

/* Also when the level hides it: the reason must not depend on -q. */
static void capture(enum ctl_log_level level, const char *line)
{
	if (level != CTL_LOG_ERR || !cap_buf || cap_buf[0])
		return;
	snprintf(cap_buf, cap_len, "%s", line);
}

void ctl_vlog(enum ctl_log_level level, const char *fmt, va_list ap)
{
	char line[1024];
	int saved = errno;

	if (level > log_max && !cap_buf)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	capture(level, line);
	if (level > log_max) {
		errno = saved;
		return;
	}
	if (log_journal < 0)
		log_journal = stderr_is_journal();
	if (log_journal)
		fprintf(stderr, "<%d>%s\n", level, line);
	else if (level == CTL_LOG_NOTICE || level == CTL_LOG_INFO)
		fprintf(stderr, "%s: %s\n", log_prog, line);
	else
		fprintf(stderr, "%s: %s: %s\n", log_prog, level_names[level],
			line);
	errno = saved;
}

void ctl_log(enum ctl_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ctl_vlog(level, fmt, ap);
	va_end(ap);
}

void ctl_log_plain(enum ctl_log_level level, const char *line)
{
	capture(level, line);
	if (level > log_max)
		return;
	if (log_journal < 0)
		log_journal = stderr_is_journal();
	if (log_journal)
		fprintf(stderr, "<%d>%s\n", level, line);
	else
		fprintf(stderr, "%s\n", line);
}
