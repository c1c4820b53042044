/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where xrxd@.service lets xrxd write. ProtectSystem=strict makes the
 * whole file system read-only to the unit but for its RuntimeDirectory=,
 * StateDirectory= and ReadWritePaths=. xrx_unit_writable is the one
 * list of them on the C side: systemd/xrxd@.service says the same, which
 * tests/unit/test_unit.c checks by reading the unit file with
 * xrx_unit_parse_writable(), the parser that also reads an admin's
 * drop-ins for xrxd --check-config.
 */
#ifndef XRX_CTL_UNIT_H
#define XRX_CTL_UNIT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ctl_state.h"

/* StateDirectory=xrx: captures, on disk, kept across restarts */
#define XRX_CAPTURE_DIR "/var/lib/xrx"
#define XRX_BPFFS_DIR "/sys/fs/bpf"
#define XRX_UNIT_WRITABLE_MAX 32

/* NULL-terminated: RuntimeDirectory=, StateDirectory=, ReadWritePaths=
 * of the unit as shipped. */
extern const char *const xrx_unit_writable[];

struct xrx_unit_paths {
	unsigned int n;
	struct {
		char path[PATH_MAX];
		char kind;		/* 'r'untime, 's'tate, 'w'ritable */
	} p[XRX_UNIT_WRITABLE_MAX];
};

/* Apply the directives of the unit file or drop-in @f to @up, as systemd
 * does: each adds its paths, an empty assignment empties its list. */
void xrx_unit_parse_writable(FILE *f, struct xrx_unit_paths *up);

/*
 * Is @dir writable to xrxd@@ifname? The shipped list (or an admin's
 * copy of the whole unit in /etc/systemd/system), with the drop-ins in
 * /etc and /run for the template and the instance. On false, @list has
 * the writable paths, comma separated.
 */
bool xrx_unit_may_write(const char *ifname, const char *dir, char *list,
			size_t listlen);

/* The shipped list, ", " separated, into @buf. */
const char *xrx_unit_writable_list(char *buf, size_t len);

#endif /* XRX_CTL_UNIT_H */
