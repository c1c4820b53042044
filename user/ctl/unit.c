// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The paths xrxd@.service may write (ctl_unit.h), and an admin's
 * additions to them in drop-ins, for xrxd --check-config: a config whose
 * capture the unit's sandbox would refuse (EROFS at the start, exit 2)
 * is refused when it is checked, not only when the unit starts.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl_conf.h"
#include "ctl_unit.h"

const char *const xrx_unit_writable[] = {
	XRX_STATE_DIR,		/* RuntimeDirectory=xrx */
	XRX_CAPTURE_DIR,	/* StateDirectory=xrx */
	XRX_BPFFS_DIR,		/* ReadWritePaths=-/sys/fs/bpf */
	NULL,
};

static void add(struct xrx_unit_paths *up, char kind, const char *prefix,
		const char *word, size_t len)
{
	if (up->n >= XRX_UNIT_WRITABLE_MAX)
		return;
	snprintf(up->p[up->n].path, sizeof(up->p[up->n].path), "%s%.*s",
		 prefix, (int)len, word);
	up->p[up->n++].kind = kind;
}

static void reset(struct xrx_unit_paths *up, char kind)
{
	unsigned int i, k = 0;

	for (i = 0; i < up->n; i++)
		if (up->p[i].kind != kind)
			up->p[k++] = up->p[i];
	up->n = k;
}

void xrx_unit_parse_writable(FILE *f, struct xrx_unit_paths *up)
{
	static const struct {
		const char *key, *prefix;
		char kind;
	} keys[] = {
		{ "RuntimeDirectory=", "/run/", 'r' },
		{ "StateDirectory=", "/var/lib/", 's' },
		{ "ReadWritePaths=", "", 'w' },
	};
	char line[4096], *s, *w;
	size_t i, len;

	while (fgets(line, sizeof(line), f)) {
		for (s = line; isspace((unsigned char)*s); s++)
			;
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strncmp(s, keys[i].key, strlen(keys[i].key)))
				break;
		if (i == sizeof(keys) / sizeof(keys[0]))
			continue;
		s += strlen(keys[i].key);
		s[strcspn(s, "\n")] = '\0';
		if (!*s)
			reset(up, keys[i].kind);
		for (w = s; *w; w += len) {
			w += strspn(w, " \t");
			/* "-": ignored when missing; "+": outside the
			 * mount namespace (systemd.exec(5)) */
			while (keys[i].kind == 'w' && (*w == '-' || *w == '+'))
				w++;
			len = strcspn(w, " \t");
			if (len)
				add(up, keys[i].kind, keys[i].prefix, w, len);
		}
	}
}

static void parse_file(const char *path, struct xrx_unit_paths *up)
{
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	xrx_unit_parse_writable(f, up);
	fclose(f);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* The files NAME.conf in @dir, in name order, as systemd reads drop-ins. */
static void parse_dropins(const char *dir, struct xrx_unit_paths *up)
{
	struct dirent **de;
	char path[PATH_MAX + 256];
	int n, i;
	size_t len;

	n = scandir(dir, &de, NULL, by_name);
	for (i = 0; i < n; i++) {
		len = strlen(de[i]->d_name);
		if (len > 5 && !strcmp(de[i]->d_name + len - 5, ".conf")) {
			snprintf(path, sizeof(path), "%s/%s", dir,
				 de[i]->d_name);
			parse_file(path, up);
		}
		free(de[i]);
	}
	if (n >= 0)
		free(de);
}

/* Is @dir @top or below it? */
static bool under(const char *dir, const char *top)
{
	size_t n = strlen(top);

	while (n > 1 && top[n - 1] == '/')
		n--;
	return !strncmp(dir, top, n) && (dir[n] == '\0' || dir[n] == '/');
}

const char *xrx_unit_writable_list(char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; xrx_unit_writable[i] && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      xrx_unit_writable[i]);
	return buf;
}

bool xrx_unit_may_write(const char *ifname, const char *dir, char *list,
			size_t listlen)
{
	static const char *const roots[] = { "/etc/systemd/system",
					      "/run/systemd/system" };
	struct xrx_unit_paths up = { 0 };
	char unit[80], path[PATH_MAX + 128], real[PATH_MAX];
	const char *inst;
	size_t i, n = 0;
	int k;

	/* xrx_unit_name() quotes a name with escapes for a shell */
	xrx_unit_name(ifname, unit, sizeof(unit));
	inst = unit;
	if (*inst == '\'') {
		inst++;
		unit[strlen(unit) - 1] = '\0';
	}
	if (!access("/etc/systemd/system/xrxd@.service", F_OK)) {
		parse_file("/etc/systemd/system/xrxd@.service", &up);
	} else {
		for (k = 0; xrx_unit_writable[k]; k++)
			add(&up, 'w', "", xrx_unit_writable[k],
			    strlen(xrx_unit_writable[k]));
	}
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/xrxd@.service.d", roots[i]);
		parse_dropins(path, &up);
		snprintf(path, sizeof(path), "%s/%s.service.d", roots[i], inst);
		parse_dropins(path, &up);
	}
	if (!realpath(dir, real))
		snprintf(real, sizeof(real), "%s", dir);
	for (i = 0; i < up.n; i++)
		if (under(dir, up.p[i].path) || under(real, up.p[i].path))
			return true;
	if (listlen)
		list[0] = '\0';
	for (i = 0; i < up.n && n < listlen; i++)
		n += (size_t)snprintf(list + n, listlen - n, "%s%s",
				      i ? ", " : "", up.p[i].path);
	return false;
}
