// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * sink_open SPEC: open SPEC as the live path does (xrx_sink__open(), one
 * queue, default options) and close it again. Exit 0 if it opened, 2 if
 * the sink refused the spec (EINVAL, ENOENT: no such kind, ENAMETOOLONG),
 * 1 if it failed for another reason (a device, a file), with the errno
 * on stderr. tests/integration/test_sink_specs.sh holds this verdict
 * against xrxd --check-config's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <xrx/sink.h>

int main(int argc, char **argv)
{
	struct xrx_sink_opts so = { .sz = sizeof(so) };
	struct xrx_sink *s;

	if (argc != 2) {
		fprintf(stderr, "usage: sink_open SPEC\n");
		return 2;
	}
	s = xrx_sink__open(argv[1], &so);
	if (!s) {
		fprintf(stderr, "sink_open: %s: %s\n", argv[1], strerror(errno));
		return errno == EINVAL || errno == ENOENT ||
		       errno == ENAMETOOLONG ? 2 : 1;
	}
	xrx_sink__close(s);
	return 0;
}
