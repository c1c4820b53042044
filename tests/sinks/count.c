// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A sink kind of the tests' own, the whole of what a new kind takes: this
 * file and its registration at the end. "count:/PATH" counts what it is
 * given and writes "packets N bytes M" to PATH at every batch end (PATH
 * alone with one queue, PATH.qN per queue with more, as pcap does).
 * Linked into a build of xrxd (build/tests/xrxd-sinks), it is a sink
 * kind of xrx.conf like the built-in ones: sink = count:/PATH.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xrx/engine.h>
#include <xrx/live.h>
#include <xrx/sink.h>

struct count_sink {
	char path[256];
	__u64 pkts, bytes;
};

/* "PATH", no options: the kind's one parser (xrx_sink_ops.check). */
static int count_check(const char *arg, const struct xrx_sink_opts *opts,
		       char *out, size_t outlen, char *err, size_t errlen)
{
	size_t len = strlen(arg);

	if (!len || strchr(arg, ',') || len + 8 >= sizeof(((struct count_sink *)0)->path)) {
		snprintf(err, errlen, "count:%s is not a path the count sink takes; write count:PATH (no options, at most %zu bytes)",
			 arg, sizeof(((struct count_sink *)0)->path) - 9);
		return -EINVAL;
	}
	if (outlen)
		snprintf(out, outlen, "%s", arg);
	return 0;
}

static int count_write(struct count_sink *c)
{
	FILE *f = fopen(c->path, "w");
	int ret;

	if (!f)
		return -errno;
	fprintf(f, "packets %llu bytes %llu\n", (unsigned long long)c->pkts,
		(unsigned long long)c->bytes);
	ret = ferror(f) ? -EIO : 0;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

static int count_open(struct xrx_sink *s, const char *arg,
		      const struct xrx_sink_opts *opts)
{
	struct count_sink *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return -ENOMEM;
	if (s->nr_queues > 1)
		snprintf(c->path, sizeof(c->path), "%s.q%u", arg, s->queue);
	else
		snprintf(c->path, sizeof(c->path), "%s", arg);
	ret = count_write(c);
	if (ret) {
		free(c);
		return ret;
	}
	s->priv = c;
	return 0;
}

static int count_deliver(struct xrx_sink *s, struct xrx_pkt *pkt)
{
	struct count_sink *c = s->priv;

	c->pkts++;
	c->bytes += pkt->len;
	xrx_sink__count(s, XRX_SINK_STAT_PKTS_OUT, 1);
	xrx_sink__count(s, XRX_SINK_STAT_BYTES_OUT, pkt->len);
	xrx_sink__release(s, pkt);
	return 0;
}

static int count_flush(struct xrx_sink *s)
{
	return count_write(s->priv);
}

static void count_close(struct xrx_sink *s)
{
	count_write(s->priv);
	free(s->priv);
	s->priv = NULL;
}

static const struct xrx_sink_ops count_ops = {
	.name = "count",
	.open = count_open,
	.deliver = count_deliver,
	.flush = count_flush,
	.close = count_close,
	.check = count_check,
	.flags = XRX_SINK_F_CONSUMES | XRX_SINK_F_FILES,
	.usage = "count:/PATH",
	.coalesce_usec = XRX_LIVE_COALESCE_USEC_FILE,
};

/* The registration: before main(), so before xrxd reads its config. */
__attribute__((constructor)) static void count_register(void)
{
	if (xrx_sink__register(&count_ops))
		abort();
}
