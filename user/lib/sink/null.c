// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The null sink: count and give back at once. What benchmarks use to
 * measure the receive path without a consumer's cost.
 */
#include <errno.h>
#include <stdio.h>

#include <xrx/engine.h>
#include <xrx/live.h>
#include <xrx/sink.h>

static int null_check(const char *arg, const struct xrx_sink_opts *opts,
		      char *out, size_t outlen, char *err, size_t errlen)
{
	if (!*arg)
		return 0;
	snprintf(err, errlen, "null:%s: the null sink takes no argument; write null",
		 arg);
	return -EINVAL;
}

static int null_open(struct xrx_sink *s, const char *arg,
		     const struct xrx_sink_opts *opts)
{
	return 0;	/* null_check() took the spec */
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
	.check = null_check,
	/* nothing waits on what it takes, and nothing else sees it */
	.flags = XRX_SINK_F_CONSUMES,
	.usage = "null",
	.coalesce_usec = XRX_LIVE_COALESCE_USEC_FILE,
};
