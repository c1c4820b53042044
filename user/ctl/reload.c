// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The reload outcome file (ctl_reload.h): "key value" lines, the reason
 * last and on one line (control characters become spaces). It is
 * replaced whole (rename), so a reader sees the old outcome or the new
 * one, never a mix.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl_reload.h"
#include "ctl_state.h"

#define RELOAD_FILE_MAX (XRX_RELOAD_REASON_MAX + 512)

int xrx_reload_format(const struct xrx_reload *r, char *buf, size_t len)
{
	char reason[XRX_RELOAD_REASON_MAX];
	size_t i;
	int n;

	snprintf(reason, sizeof(reason), "%s", r->reason);
	for (i = 0; reason[i]; i++)
		if (iscntrl((unsigned char)reason[i]))
			reason[i] = ' ';
	n = snprintf(buf, len,
		     "# xrx: outcome of the last reload, written by xrxd\n"
		     "xrx-reload 1\npid %d\ngeneration %llu\nstarted_mono_ns %llu\n"
		     "finished_ns %llu\nresult %s\nreason %s\n",
		     (int)r->pid, (unsigned long long)r->generation,
		     (unsigned long long)r->started_mono_ns,
		     (unsigned long long)r->finished_ns, r->ok ? "ok" : "failed",
		     reason);
	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

static int parse_u64(const char *s, __u64 *v)
{
	unsigned long long x;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*v = x;
	return 0;
}

int xrx_reload_parse(const char *name, const char *text, size_t len,
		     struct xrx_reload *r, char *err, size_t errlen)
{
	char *copy, *line, *next, *val;
	unsigned int seen = 0;
	int lineno = 0, ret = 0;
	__u64 v;

	memset(r, 0, sizeof(*r));
	if (memchr(text, '\0', len) || !len || text[len - 1] != '\n') {
		snprintf(err, errlen, "%s: not a reload outcome (cut short?)", name);
		return -EINVAL;
	}
	copy = strndup(text, len);
	if (!copy)
		return -ENOMEM;
	for (line = copy; *line; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		lineno++;
		if (line[0] == '#')
			continue;
		val = strchr(line, ' ');
		if (!val)
			goto bad;
		*val++ = '\0';
		if (!strcmp(line, "xrx-reload") && !strcmp(val, "1")) {
			seen |= 1;
		} else if (!strcmp(line, "pid") && !parse_u64(val, &v) &&
			   v && v <= INT_MAX) {
			r->pid = (pid_t)v;
			seen |= 2;
		} else if (!strcmp(line, "generation") && !parse_u64(val, &v)) {
			r->generation = v;
			seen |= 4;
		} else if (!strcmp(line, "started_mono_ns") &&
			   !parse_u64(val, &v)) {
			r->started_mono_ns = v;
			seen |= 8;
		} else if (!strcmp(line, "finished_ns") && !parse_u64(val, &v)) {
			r->finished_ns = v;
			seen |= 16;
		} else if (!strcmp(line, "result") &&
			   (!strcmp(val, "ok") || !strcmp(val, "failed"))) {
			r->ok = !strcmp(val, "ok");
			seen |= 32;
		} else if (!strcmp(line, "reason")) {
			snprintf(r->reason, sizeof(r->reason), "%s", val);
			seen |= 64;
		} else {
			goto bad;
		}
	}
	if (seen != 127) {
		snprintf(err, errlen, "%s: incomplete reload outcome", name);
		ret = -EINVAL;
	}
	free(copy);
	return ret;
bad:
	snprintf(err, errlen, "%s: line %d: not a reload outcome line", name,
		 lineno);
	free(copy);
	return -EINVAL;
}

int xrx_reload_write(const char *dir, const char *ifname,
		     const struct xrx_reload *r, char *err, size_t errlen)
{
	char buf[RELOAD_FILE_MAX], name[IF_NAMESIZE + 8];
	int n;

	n = xrx_reload_format(r, buf, sizeof(buf));
	if (n < 0) {
		snprintf(err, errlen, "%s: reload outcome too long", ifname);
		return n;
	}
	snprintf(name, sizeof(name), "%s.reload", ifname);
	return xrx_file_replace(dir, name, buf, (size_t)n, err, errlen);
}

int xrx_reload_read(const char *dir, const char *ifname, struct xrx_reload *r,
		    char *err, size_t errlen)
{
	char path[PATH_MAX], buf[RELOAD_FILE_MAX];
	int n;

	if (snprintf(path, sizeof(path), "%s/%s.reload", dir, ifname) >=
	    (int)sizeof(path)) {
		snprintf(err, errlen, "%s: state directory path too long", dir);
		return -ENAMETOOLONG;
	}
	n = xrx_own_file_read(dir, path, buf, sizeof(buf), "delete it", err,
			      errlen);
	if (n < 0)
		return n;
	return xrx_reload_parse(path, buf, (size_t)n, r, err, errlen);
}

void xrx_reload_remove(const char *dir, const char *ifname)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s.reload", dir, ifname) <
	    (int)sizeof(path))
		unlink(path);
}
