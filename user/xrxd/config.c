// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrxd's config file: trusted only if nobody but its owner can have
 * written it, parsed (ctl_conf.h), and meant for this daemon's
 * interface. The start, --check-config and every reload read it here.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "ctl_conf.h"
#include "ctl_log.h"
#include "ctl_unit.h"
#include "xrxd.h"

/* The config, or an exit status: one "FILE:LINE: ..." line on error. */
/*
 * The config decides which traffic leaves the kernel stack and which NIC
 * settings change: it is trusted only if nobody but its owner (root, or
 * xrxd's own uid) can have written it. A symlink is refused outright
 * (lstat), as is a file or directory that others may write (a directory
 * with the sticky bit, like /tmp, protects the file from renames by
 * others, so its mode is not held against it).
 */
static int conf_file_trusted(const char *file, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	struct stat st;

	if (lstat(file, &st) < 0)
		return 0;	/* the parser names a missing file */
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, errlen,
			 "%s: is a symlink; xrxd reads only a regular config file: name the file itself (or replace the link with a copy)",
			 file);
		return -EPERM;
	}
	if ((st.st_mode & 022) || (st.st_uid && st.st_uid != geteuid())) {
		snprintf(err, errlen,
			 "%s: refused: writable by others or not owned by root (uid %u, mode %04o), so anyone could have written it; chown root and chmod go-w it",
			 file, (unsigned int)st.st_uid,
			 (unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	snprintf(dir, sizeof(dir), "%s", file);
	if (stat(dirname(dir), &st) == 0 && (st.st_mode & 002) &&
	    !(st.st_mode & S_ISVTX)) {
		snprintf(err, errlen,
			 "%s: the config file's directory is writable by everyone, so anyone could have replaced the file; refused: chmod o-w it",
			 dir);
		return -EPERM;
	}
	return 0;
}

int xrxd_config_load(const struct xrxd_opts *o, struct xrx_conf *conf)
{
	char err[PATH_MAX + XRX_CONF_ERR_MAX], path[PATH_MAX];
	const char *file = o->config;

	if (!file) {
		snprintf(path, sizeof(path), XRX_CONF_DIR "/%s.conf", o->ifname);
		file = path;
	}
	if (conf_file_trusted(file, err, sizeof(err)) ||
	    xrx_conf_parse_file_for(file, o->ifname, conf, err, sizeof(err))) {
		ctl_log_plain(CTL_LOG_ERR, err);
		return EXIT_USAGE;
	}
	if (o->ifname && strcmp(o->ifname, conf->ifname)) {
		char unit[80];

		if (o->ifname_from_file)
			snprintf(err, sizeof(err),
				 "%s:%d: interface = %s, but this file is the config of %s (" XRX_CONF_DIR "/%s.conf); write interface = %s, or move the file to " XRX_CONF_DIR "/%s.conf",
				 conf->file, conf->ifname_line, conf->ifname,
				 xrx_unit_name(o->ifname, unit, sizeof(unit)),
				 o->ifname, o->ifname, conf->ifname);
		else
			snprintf(err, sizeof(err),
				 "%s:%d: interface = %s, but xrxd was started for %s; write interface = %s or start %s",
				 conf->file, conf->ifname_line, conf->ifname,
				 o->ifname, o->ifname,
				 xrx_unit_name(conf->ifname, unit, sizeof(unit)));
		ctl_log_plain(CTL_LOG_ERR, err);
		return EXIT_USAGE;
	}
	return 0;
}
