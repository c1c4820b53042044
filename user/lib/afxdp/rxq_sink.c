// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A queue's consumers: its sink, bound to give packets back to the
 * queue's engine, and its tee (xrx_live_opts.tee), the second sink beside
 * it, opened like it, flushed right after it at every batch end, and its
 * losses logged once when they begin and once when they stop, on the
 * worker that saw them. The pairing itself is sink/tee.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "afxdp/afxdp.h"

/* The sink gives packets back here (the tee writes copies: sink/tee.h). */
static void xrx_rxq_sink_release(void *ctx, struct xrx_pkt *pkt)
{
	struct xrx_rxq *q = ctx;

	xrx_pkt__release(q->e, pkt);
}

/* Every kind's spec, built-in and registered: "null, pcap:..., ...". */
static const char *xrx_rxq_sink_kinds(char *buf, size_t len)
{
	const struct xrx_sink_ops *ops;
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; (ops = xrx_sink__kind_at(i)) && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      ops->usage ? ops->usage : ops->name);
	return buf;
}

/*
 * Queue @q's instance of sink @spec, giving packets back to the queue's
 * engine. Return: the sink, or NULL with errno set (logged).
 */
struct xrx_sink *xrx_rxq_sink_open(struct xrx_live *l, struct xrx_rxq *q,
				   const char *spec,
				   const struct xrx_sink_opts *opts,
				   const struct xrx_engine_opts *eng)
{
	struct xrx_sink_opts so = *opts;
	struct xrx_sink *s;
	int err;

	so.sz = sizeof(so);
	so.queue = q->qi;
	so.nr_queues = l->nr_q;
	/* The size limit an explained packet names is the engine's that
	 * fills this sink (@eng: the one in use, or the one a reload brings
	 * with the sink). */
	if (!so.max_aggregate)
		so.max_aggregate = eng->max_aggregate ? eng->max_aggregate :
							 XRX_AGGREGATE_DEFAULT;
	s = xrx_sink__open(spec, &so);
	if (!s) {
		err = errno;
		/*
		 * A known kind that failed to open has said why (device, file,
		 * option); the list of specs helps only a spec whose kind is
		 * unknown.
		 */
		if (xrx_sink__known(spec)) {
			xrx_log(l, XRX_LOG_WARN, "%s: sink \"%s\": %s",
				l->ifname, spec, strerror(err));
		} else {
			char kinds[512];

			xrx_log(l, XRX_LOG_WARN,
				"%s: sink \"%s\": unknown sink (specs: %s)",
				l->ifname, spec,
				xrx_rxq_sink_kinds(kinds, sizeof(kinds)));
		}
		errno = err;
		return NULL;
	}
	xrx_sink__bind(s, xrx_rxq_sink_release, q);
	return s;
}

/*
 * Queue @q's tee of sink @spec: a sink instance with a writer thread of
 * its own (sink/tee.h), that must never wait for a reader either.
 * Return: the tee, or NULL with errno set (logged).
 */
struct xrx_tee *xrx_rxq_tee_open(struct xrx_live *l, struct xrx_rxq *q,
				 const char *spec,
				 const struct xrx_sink_opts *opts,
				 const struct xrx_engine_opts *eng)
{
	struct xrx_sink_opts so = *opts;
	struct xrx_sink *s;
	struct xrx_tee *t;
	int err;

	so.no_wait = true;
	s = xrx_rxq_sink_open(l, q, spec, &so, eng);
	if (!s)
		return NULL;
	t = xrx_tee__new(s);
	if (!t) {
		err = errno;
		xrx_log(l, XRX_LOG_WARN, "%s: tee \"%s\": cannot start its writer: %s",
			l->ifname, spec, strerror(err));
		xrx_sink__close(s);
		errno = err;
	}
	return t;
}

void xrx_rxq_tee_flush(struct xrx_rxq *q)
{
	struct xrx_tee *t = q->tee;

	switch (xrx_tee__flush(t)) {
	case XRX_TEE_LOSING:
		xrx_log(q->l, XRX_LOG_WARN,
			"%s queue %u: tee %s is losing packets (%s); the sink still gets every one; counted in the tee's errors and dropped, logged again when it writes again",
			q->l->ifname, q->xsk.queue, t->sink->spec,
			t->err ? strerror(-t->err) :
				 "dropped: its writer is behind, a slow disk?");
		break;
	case XRX_TEE_WRITING:
		xrx_log(q->l, XRX_LOG_WARN,
			"%s queue %u: tee %s writes again; %llu packets lost to it meanwhile",
			q->l->ifname, q->xsk.queue, t->sink->spec,
			(unsigned long long)xrx_tee__episode_lost(t));
		break;
	default:
		break;
	}
}

/* A batch starts, before its arrival time is read (xrx_sink_ops.begin). */
void xrx_rxq_begin_sinks(struct xrx_rxq *q)
{
	if (q->sink && q->sink->ops->begin)
		q->sink->ops->begin(q->sink, 0);
}

/* The end of a batch: the sink first, then its tee. */
void xrx_rxq_flush_sinks(struct xrx_rxq *q)
{
	__u64 held;

	if (!q->sink)
		return;
	/* what the engine holds past the batch arrived when? */
	held = xrx_engine__held_since(q->e);
	if (held && q->sink->ops->begin)
		q->sink->ops->begin(q->sink, held);
	xrx_sink__flush(q->sink);
	if (q->tee)
		xrx_rxq_tee_flush(q);
}
