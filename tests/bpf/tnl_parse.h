/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What tests/bpf/tnl_parse.bpf.c leaves in its map for each frame. */
#ifndef XRX_TESTS_TNL_PARSE_H
#define XRX_TESTS_TNL_PARSE_H

#include <xrx/parse.h>
#include <xrx/parse_tunnel.h>

enum { TNL_PATH_NONE, TNL_PATH_LINEAR, TNL_PATH_COPY };

struct tnl_out {
	struct xrx_parsed outer;
	struct xrx_tnl_parsed t;
	__s32 tnl;		/* enum xrx_tnl_result */
	__u32 path;		/* TNL_PATH_* */
};

#endif /* XRX_TESTS_TNL_PARSE_H */
