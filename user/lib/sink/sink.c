// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Sink dispatch: a spec "NAME[:ARG]" picks a struct xrx_sink_ops by NAME
 * from the built-in table or from xrx_sink__register(). The wrappers count
 * what every sink has in common (pkts_in, bytes_in, flushes), so a sink
 * counts only what it alone knows (out, errors, drops).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xrx/engine.h>
#include <xrx/counters.h>
#include <xrx/sink.h>
#include "opts.h"

#define XRX_SINK_KINDS_MAX 16

/* Registered kinds. Registration happens at start-up, before workers. */
static const struct xrx_sink_ops *xrx_sink_kinds[XRX_SINK_KINDS_MAX];

static const struct xrx_sink_ops *xrx_sink_builtin(__u32 i)
{
	switch (i) {
	case 0:
		return &xrx_sink_null_ops;
	case 1:
		return &xrx_sink_pcap_ops;
	case 2:
		return &xrx_sink_tun_ops;
	case 3:
		return &xrx_sink_tap_ops;
	default:
		return NULL;
	}
}

#define XRX_SINK_BUILTINS 4

static const struct xrx_sink_ops *xrx_sink_find(const char *name, size_t len)
{
	const struct xrx_sink_ops *ops;
	__u32 i;

	for (i = 0; i < XRX_SINK_BUILTINS + XRX_SINK_KINDS_MAX; i++) {
		ops = i < XRX_SINK_BUILTINS ? xrx_sink_builtin(i) :
					      xrx_sink_kinds[i - XRX_SINK_BUILTINS];
		if (ops && ops->name && strlen(ops->name) == len &&
		    !memcmp(ops->name, name, len))
			return ops;
	}
	return NULL;
}

const struct xrx_sink_ops *xrx_sink__kind(const char *spec)
{
	const char *colon;

	if (!spec)
		return NULL;
	colon = strchr(spec, ':');
	return xrx_sink_find(spec, colon ? (size_t)(colon - spec) :
					   strlen(spec));
}

bool xrx_sink__known(const char *spec)
{
	return xrx_sink__kind(spec) != NULL;
}

const struct xrx_sink_ops *xrx_sink__kind_at(unsigned int i)
{
	unsigned int n = 0;

	if (i < XRX_SINK_BUILTINS)
		return xrx_sink_builtin(i);
	for (i -= XRX_SINK_BUILTINS; n < XRX_SINK_KINDS_MAX; n++)
		if (xrx_sink_kinds[n] && !i--)
			return xrx_sink_kinds[n];
	return NULL;
}

/* The spec's kind and argument, checked: see xrx_sink__check(). */
static int xrx_sink_check(const char *spec, const struct xrx_sink_opts *o,
			  const struct xrx_sink_ops **opsp, char *out,
			  size_t outlen, char *err, size_t errlen)
{
	const struct xrx_sink_ops *ops = xrx_sink__kind(spec);
	const char *colon = spec ? strchr(spec, ':') : NULL;

	*opsp = ops;
	if (outlen)
		out[0] = '\0';
	if (!ops) {
		snprintf(err, errlen, "%s names no sink kind", spec ? spec : "(null)");
		return -ENOENT;
	}
	/* struct xrx_sink keeps the spec it opened */
	if (strlen(spec) >= sizeof(((struct xrx_sink *)0)->spec)) {
		snprintf(err, errlen, "%.40s...: the spec is longer than %zu bytes; use a shorter one",
			 spec, sizeof(((struct xrx_sink *)0)->spec) - 1);
		return -ENAMETOOLONG;
	}
	if (!ops->check)
		return 0;
	return ops->check(colon ? colon + 1 : "", o, out, outlen, err, errlen);
}

int xrx_sink__check(const char *spec, const struct xrx_sink_opts *opts,
		    char *out, size_t outlen, char *err, size_t errlen)
{
	struct xrx_sink_opts o = { .sz = sizeof(o) };
	const struct xrx_sink_ops *ops;

	if (xrx_opts_copy(&o, sizeof(o), opts, XRX_SINK_OPTS_MIN) ||
	    xrx_opts_check(XRX_OPT_SET_SINK, &o)) {
		snprintf(err, errlen, "%s: the sink options are out of range",
			 spec ? spec : "(null)");
		return -EINVAL;
	}
	return xrx_sink_check(spec, &o, &ops, out, outlen, err, errlen);
}

/*
 * The name space of a kind's outputs: files and TUN/TAP devices are
 * shared between kinds, anything else is the kind's own.
 */
static const void *xrx_sink_space(const struct xrx_sink_ops *ops)
{
	static const char files, netdevs;

	if (ops->flags & XRX_SINK_F_FILES)
		return &files;
	if (ops->flags & XRX_SINK_F_NETDEV)
		return &netdevs;
	return ops;
}

bool xrx_sink__same_output(const char *a, const char *b)
{
	char oa[PATH_MAX], ob[PATH_MAX], err[PATH_MAX + 128];
	const struct xrx_sink_ops *ka, *kb;

	if (xrx_sink__check(a, NULL, oa, sizeof(oa), err, sizeof(err)) ||
	    xrx_sink__check(b, NULL, ob, sizeof(ob), err, sizeof(err)))
		return false;
	ka = xrx_sink__kind(a);
	kb = xrx_sink__kind(b);
	return oa[0] && xrx_sink_space(ka) == xrx_sink_space(kb) &&
	       !strcmp(oa, ob);
}

int xrx_sink__register(const struct xrx_sink_ops *ops)
{
	__u32 i;

	if (!ops || !ops->name || !*ops->name || !ops->open || !ops->deliver)
		return -EINVAL;
	if (xrx_sink_find(ops->name, strlen(ops->name)))
		return -EEXIST;
	for (i = 0; i < XRX_SINK_KINDS_MAX; i++) {
		if (!xrx_sink_kinds[i]) {
			xrx_sink_kinds[i] = ops;
			return 0;
		}
	}
	return -ENOSPC;
}

struct xrx_sink *xrx_sink__open(const char *spec,
				const struct xrx_sink_opts *opts)
{
	struct xrx_sink_opts o = { .sz = sizeof(o) };
	const struct xrx_sink_ops *ops;
	char out[PATH_MAX], msg[PATH_MAX + 128];
	const char *colon, *arg;
	struct xrx_sink *s;
	int err;

	if (!spec || strlen(spec) >= sizeof(s->spec)) {
		errno = EINVAL;
		return NULL;
	}
	/* Checked against the options table (include/xrx/options.h). */
	if (xrx_opts_copy(&o, sizeof(o), opts, XRX_SINK_OPTS_MIN) ||
	    xrx_opts_check(XRX_OPT_SET_SINK, &o)) {
		errno = EINVAL;
		return NULL;
	}
	if (!o.nr_queues)
		o.nr_queues = 1;
	if (o.queue >= o.nr_queues) {
		errno = EINVAL;
		return NULL;
	}
	/* The kind's own parser first: what a spec check passes opens. */
	err = xrx_sink_check(spec, &o, &ops, out, sizeof(out), msg,
			     sizeof(msg));
	if (err) {
		if (ops)
			fprintf(stderr, "xrx: %s\n", msg);
		errno = -err;
		return NULL;
	}
	colon = strchr(spec, ':');
	arg = colon ? colon + 1 : "";
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->ops = ops;
	s->queue = o.queue;
	s->nr_queues = o.nr_queues;
	strcpy(s->spec, spec);
	err = ops->open(s, arg, &o);
	if (err) {
		free(s);
		errno = -err;
		return NULL;
	}
	return s;
}

/* Close @s; its counters as the close left them into @vals, if any. */
static void sink_close(struct xrx_sink *s, __u64 *vals)
{
	if (!s) {
		if (vals)
			memset(vals, 0, XRX_SINK_STAT_MAX * sizeof(*vals));
		return;
	}
	if (s->ops->close)
		s->ops->close(s);
	if (vals)
		memcpy(vals, s->stats, sizeof(s->stats));
	free(s);
}

void xrx_sink__close(struct xrx_sink *s)
{
	sink_close(s, NULL);
}

void xrx_sink__close_stats(struct xrx_sink *s, __u64 vals[XRX_SINK_STAT_MAX])
{
	sink_close(s, vals);
}

void xrx_sink__bind(struct xrx_sink *s,
		    void (*release)(void *ctx, struct xrx_pkt *pkt), void *ctx)
{
	s->release = release;
	s->release_ctx = ctx;
}

int xrx_sink__deliver(struct xrx_sink *s, struct xrx_pkt *pkt)
{
	s->stats[XRX_SINK_STAT_PKTS_IN]++;
	s->stats[XRX_SINK_STAT_BYTES_IN] += pkt->len;
	s->stats[XRX_SINK_STAT_SEGS_IN] += pkt->gso_segs ? pkt->gso_segs : 1;
	return s->ops->deliver(s, pkt);
}

int xrx_sink__flush(struct xrx_sink *s)
{
	s->stats[XRX_SINK_STAT_FLUSHES]++;
	return s->ops->flush ? s->ops->flush(s) : 0;
}

void xrx_sink__stats(const struct xrx_sink *s, __u64 vals[XRX_SINK_STAT_MAX])
{
	memcpy(vals, s->stats, sizeof(s->stats));
}

XRX_COUNTERS_DEFINE(, xrx_sink_stat, XRX_SINK_STATS_TABLE, XRX_SINK_STAT_MAX,
		    XRX_COUNTER_NAME)

const char *xrx_sink__name(const struct xrx_sink *s)
{
	return s->ops->name;
}
