// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The null sink: count and give back at once. What benchmarks use to
 * measure the receive path without a consumer's cost.
 */
#include <errno.h>

#include <xrx/engine.h>
#include <xrx/sink.h>

static int null_open(struct xrx_sink *s, const char *arg,
		     const struct xrx_sink_opts *opts)
{
	return *arg ? -EINVAL : 0;
}

static int null_deliver(struct xrx_sink *s, struct xrx_pkt *pkt)
{
	xrx_sink__count(s, XRX_SINK_STAT_PKTS_OUT, 1);
	xrx_sink__count(s, XRX_SINK_STAT_BYTES_OUT, pkt->len);
	xrx_sink__release(s, pkt);
	return 0;
}

const struct xrx_sink_ops xrx_sink_null_ops = {
	.name = "null",
	.open = null_open,
	.deliver = null_deliver,
};
