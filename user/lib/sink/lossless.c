// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The pcap sink's lossless mode: each aggregate's segments, as the engine
 * kept them in place (gro/segrec.c), encoded against what splitting the
 * aggregate rebuilds, into one pcapng custom option of the aggregate's
 * Enhanced Packet Block (docs/lossless.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <xrx/engine.h>

#include "gro/segrec.h"
#include "sink/lossless.h"

#define PCAPNG_PAD4(n) (((n) + 3u) & ~3u)

struct xrx_lossless *xrx_lossless_new(void)
{
	return calloc(1, sizeof(struct xrx_lossless));
}

void xrx_lossless_free(struct xrx_lossless *l)
{
	if (!l)
		return;
	free(l->segs);
	free(l);
}

/* Room for @n segments. */
static int lossless_room(struct xrx_lossless *l, __u32 n)
{
	struct xrx_segrec_seg *s;

	if (n <= l->nr_segs)
		return 0;
	s = realloc(l->segs, n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	l->segs = s;
	l->nr_segs = n;
	return 0;
}

__u32 xrx_lossless_option(struct xrx_lossless *l, const struct xrx_pkt *pkt,
			  __u32 cap, __u64 ts_ns, __u8 *out)
{
	struct xrx_segrec_layout lay;
	__u32 hlen, pen = XRX_SEGREC_PEN;
	__u8 ok;
	__u16 opt[2];
	int n, len;

	if (pkt->gso_segs < 2)
		return 0;
	if (lossless_room(l, pkt->gso_segs))
		return 0;
	n = xrx_pkt_segs(pkt, l->segs, l->nr_segs, &hlen, &ok);
	/* each segment with its arrival time, as the engine carried it */
	if (n < 2 || xrx_segrec_layout_of(pkt, hlen, &lay) ||
	    cap < lay.aoff)
		return 0;
	len = xrx_segrec_encode(&lay, pkt->head, cap, l->segs, (__u32)n, ts_ns,
				ok, out + 8, XRX_SEGREC_MAX);
	if (len < 0)
		return 0;
	/* code and length in the section's (host) byte order, as every
	 * other field of the block; then the PEN, also so */
	opt[0] = XRX_SEGREC_OPT_CODE;
	opt[1] = (__u16)(len + 4);
	memcpy(out, opt, sizeof(opt));
	memcpy(out + 4, &pen, sizeof(pen));
	memset(out + 8 + len, 0, PCAPNG_PAD4(len) - (__u32)len);
	return 8 + PCAPNG_PAD4(len);
}

void xrx_lossless_give(struct xrx_lossless *l, const __u8 *opt, __u32 len,
		       __u64 ts_ns)
{
	l->given = opt;
	l->given_len = len;
	l->given_ts = ts_ns;
}

__u32 xrx_lossless_record(struct xrx_lossless *l, const struct xrx_pkt *pkt,
			  __u32 cap, __u64 now_ns, __u64 *ts_ns,
			  const __u8 **opt)
{
	__u32 n;

	if (l->given_only) {
		/* a copy: its frames are not there to make one from */
		n = l->given ? l->given_len : 0;
		*ts_ns = l->given ? l->given_ts : now_ns;
		*opt = l->given;
		l->given = NULL;
		return n;
	}
	*ts_ns = now_ns;
	*opt = l->opt;
	return xrx_lossless_option(l, pkt, cap, *ts_ns, l->opt);
}
