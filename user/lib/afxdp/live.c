// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libxrx live receive, the public side (include/xrx/live.h): options,
 * open/close order, rules, counters and the ownership check. The work is
 * in prog.c (xrx_rx, include/xrx/prog.h), xsk.c (sockets), umem.c
 * (frames) and rx_loop.c (the receive loop), which never call back into
 * this file (afxdp.h).
 *
 * Open order: program first (the sockets go into its xrx_xsks), then per
 * queue UMEM + engine + sink, then the socket, then the fill ring. Close
 * undoes it backwards: workers, sockets (the kernel stops writing into
 * the UMEMs), engines and sinks (held packets delivered and released),
 * UMEMs, and last the program and its pins.
 */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <bpf/bpf.h>

#include <xrx/prog.h>
#include <xrx/rules.h>

#include <xrx/counters.h>
#include "afxdp/afxdp.h"
#include "opts.h"

static bool xrx_pow2(__u32 v)
{
	return v && !(v & (v - 1));
}

static int xrx_live_defaults(struct xrx_live *l, const struct xrx_live_opts *opts)
{
	struct xrx_live_opts *o = &l->o;

	if (xrx_opts_copy(o, sizeof(*o), opts, XRX_LIVE_OPTS_MIN) ||
	    xrx_opts_copy(&l->eng, sizeof(l->eng), o->engine,
			  XRX_ENGINE_OPTS_MIN) ||
	    xrx_opts_copy(&l->sink_o, sizeof(l->sink_o), o->sink_opts,
			  XRX_SINK_OPTS_MIN) ||
	    xrx_opts_copy(&l->tee_o, sizeof(l->tee_o), o->tee_opts,
			  XRX_SINK_OPTS_MIN))
		return -EINVAL;
	o->engine = &l->eng;
	o->sink_opts = &l->sink_o;
	o->tee_opts = &l->tee_o;
	if (!o->nr_queues)
		o->nr_queues = 1;
	if (!o->frame_size)
		o->frame_size = XRX_FRAME_SIZE_DEFAULT;
	if (!o->fill_size)
		o->fill_size = XRX_RING_DEFAULT;
	if (!o->rx_size)
		o->rx_size = XRX_RING_DEFAULT;
	if (!o->nr_frames)
		o->nr_frames = 2 * o->fill_size;
	if (!o->batch)
		o->batch = XRX_BATCH_DEFAULT;
	if (o->nr_queues > XRX_LIVE_QUEUES_MAX || !xrx_pow2(o->fill_size) ||
	    !xrx_pow2(o->rx_size) || o->batch > XRX_BATCH_MAX ||
	    (o->sink && o->cb) || (o->tee && !o->sink) ||
	    o->attach > XRX_LIVE_ATTACH_NONE ||
	    o->bind > XRX_LIVE_BIND_ZEROCOPY)
		return -EINVAL;
	/* The options of the table (include/xrx/options.h). */
	return xrx_opts_check(XRX_OPT_SET_LIVE, o);
}

/*
 * The link speed of @ifname in Mbit/s (ETHTOOL_GSET, which every driver
 * with link settings answers), 0 where it reports none or cannot be
 * asked: what bounds the nap (nap.h). An ioctl rather than sysfs, which
 * shows the devices of the namespace it was mounted in, not ours. Read at
 * open: a link renegotiated to another speed later keeps the bound of
 * the speed at open until the sockets are reopened.
 */
static __u32 xrx_live_speed(const char *ifname)
{
	struct ethtool_cmd ec = { .cmd = ETHTOOL_GSET };
	struct ifreq ifr = { 0 };
	__u32 speed = 0;
	int fd;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&ec;
	if (!ioctl(fd, SIOCETHTOOL, &ifr)) {
		speed = ethtool_cmd_speed(&ec);
		if (speed == (__u32)SPEED_UNKNOWN)
			speed = 0;
	}
	close(fd);
	return speed;
}

/* xrx_rx: attached by this handle, or someone else's through its pins. */
static int xrx_live_prog_open(struct xrx_live *l)
{
	struct xrx_prog_opts po = {
		.sz = sizeof(po),
		.attach = l->o.attach,
		.pin_root = l->o.pin_root,
		.log = l->o.log,
		.log_ctx = l->o.log_ctx,
		.no_hw_meta = l->o.no_hw_meta,
		.no_hw_hash = l->o.no_hw_hash,
	};

	if (l->o.attach == XRX_LIVE_ATTACH_NONE)
		l->prog = xrx_prog__open_pinned(l->ifname, &po);
	else
		l->prog = xrx_prog__attach(l->ifname, &po);
	if (!l->prog)
		return -errno;
	/* The engines hash as the program does. */
	return xrx_prog_hash_key(l->prog, &l->hash_key);
}

struct xrx_live *xrx_live__open(const char *ifname,
				const struct xrx_live_opts *opts)
{
	struct xrx_live *l;
	struct xrx_rxq *q;
	__u32 i;
	int err;

	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	err = xrx_live_defaults(l, opts);
	if (err) {
		xrx_log(l, XRX_LOG_WARN,
			"%s: bad live options (ring sizes powers of two, at most %d queues, batch <= %d, coalesce_usec <= %d, sink or callback, not both, a tee only beside a sink)",
			ifname ? ifname : "?", XRX_LIVE_QUEUES_MAX, XRX_BATCH_MAX,
			XRX_LIVE_COALESCE_USEC_MAX);
		goto fail;
	}
	if (!ifname || strlen(ifname) >= sizeof(l->ifname)) {
		err = -EINVAL;
		goto fail;
	}
	strcpy(l->ifname, ifname);
	if (l->o.sink) {
		if (strlen(l->o.sink) >= sizeof(l->sink_spec)) {
			err = -EINVAL;
			goto fail;
		}
		strcpy(l->sink_spec, l->o.sink);
		/* The caller's string need not outlive open(). */
		l->o.sink = l->sink_spec;
	}
	if (l->o.tee) {
		if (strlen(l->o.tee) >= sizeof(l->tee_spec)) {
			err = -EINVAL;
			goto fail;
		}
		strcpy(l->tee_spec, l->o.tee);
		l->o.tee = l->tee_spec;
	}
	l->ifindex = if_nametoindex(ifname);
	if (!l->ifindex) {
		err = -ENODEV;
		xrx_log(l, XRX_LOG_WARN,
			"%s: no such interface in this network namespace", ifname);
		goto fail;
	}
	l->speed_mbps = xrx_live_speed(ifname);
	l->nr_q = l->o.nr_queues;
	l->q = calloc(l->nr_q, sizeof(*l->q));
	if (!l->q) {
		err = -ENOMEM;
		goto fail;
	}
	err = xrx_live_prog_open(l);
	if (err)
		goto fail;
	for (i = 0; i < l->nr_q; i++) {
		q = &l->q[i];
		q->qi = i;
		q->xsk.fd = -1;
		err = xrx_rxq_init(l, q);
		if (err)
			goto fail;
		err = xrx_xsk_open(l, q, l->o.first_queue + i);
		if (err)
			goto fail;
		xrx_umem_refill(&q->umem);
	}
	/*
	 * Into xrx_xsks only now that every queue has its socket and its
	 * fill ring: a socket redirected to while a later queue's bind is
	 * still failing (EBUSY, tried again for up to bind_busy_ms) would
	 * take frames that its close then loses with no counter to say so.
	 * A failure here closes every socket, which takes them out again.
	 */
	for (i = 0; i < l->nr_q; i++) {
		err = xrx_xsk_map_insert(l, &l->q[i]);
		if (err)
			goto fail;
	}
	return l;
fail:
	xrx_live__close(l);
	errno = -err;
	return NULL;
}

int xrx_live__start(struct xrx_live *l)
{
	__u32 i;
	int err;

	if (!l || (!l->o.sink && !l->o.cb))
		return -EINVAL;	/* poll mode has no workers */
	if (l->started)
		return -EALREADY;
	for (i = 0; i < l->nr_q; i++) {
		/* Back into xrx_xsks after a stop (a no-op after open). */
		err = xrx_xsk_map_insert(l, &l->q[i]);
		if (!err)
			err = xrx_rxq_start(&l->q[i]);
		if (err) {
			xrx_log(l, XRX_LOG_WARN, "%s: worker thread for queue %u: %s",
				l->ifname, l->q[i].xsk.queue, strerror(-err));
			xrx_live__stop(l);
			return err;
		}
	}
	l->started = true;
	return 0;
}

/* The control thread: take back the swaps the workers have applied. */
static void xrx_live_collect(struct xrx_live *l)
{
	__u64 v[XRX_ENGINE_STAT_MAX], vs[XRX_SINK_STAT_MAX];
	struct xrx_rxq *q;
	__u32 i;
	int j;

	for (i = 0; l->q && i < l->nr_q; i++) {
		q = &l->q[i];
		if (!q->swap_pending ||
		    atomic_load_explicit(&q->swap, memory_order_acquire))
			continue;
		xrx_engine__stats(q->sw.old_e, v);
		for (j = 0; j < XRX_ENGINE_STAT_MAX; j++)
			q->base_engine[j] += v[j];
		/* Empty: the worker delivered and got back everything. */
		xrx_engine__free(q->sw.old_e);
		if (q->sw.old_sink) {
			/* Closed first: what its close writes (a file writer's
			 * queue, the one-file writer's last pass) is counted
			 * then, and a count read before it lost them. */
			xrx_sink__close_stats(q->sw.old_sink, vs);
			for (j = 0; j < XRX_SINK_STAT_MAX; j++)
				q->base_sink[j] += vs[j];
		}
		if (q->sw.old_tee) {
			/* Its writer done: the counters are final. */
			xrx_tee__stop(q->sw.old_tee);
			xrx_tee__stats(q->sw.old_tee, vs);
			for (j = 0; j < XRX_SINK_STAT_MAX; j++)
				q->base_tee[j] += vs[j];
			xrx_tee__free(q->sw.old_tee);
		}
		memset(&q->sw, 0, sizeof(q->sw));
		q->swap_pending = false;
	}
}

static bool xrx_live_swaps_pending(const struct xrx_live *l)
{
	__u32 i;

	for (i = 0; i < l->nr_q; i++)
		if (l->q[i].swap_pending)
			return true;
	return false;
}

/* Queue @qi's new pair (or trio), opened by the control thread. */
struct xrx_live_new {
	struct xrx_engine *e;
	struct xrx_sink *sink;
	struct xrx_tee *tee;
};

int xrx_live__reconfigure_opts(struct xrx_live *l,
			       const struct xrx_live_reconfigure_opts *opts)
{
	struct xrx_live_reconfigure_opts r;
	struct xrx_engine_opts eng;
	struct xrx_sink_opts so, to;
	struct timespec ms = { 0, 1000000 };
	struct xrx_live_new *n = NULL;
	const char *sink, *tee;
	const struct xrx_engine_opts *engine;
	const struct xrx_sink_opts *sink_opts, *tee_opts;
	struct xrx_rxq *q;
	bool set_tee;
	__u32 i, waited;
	int err = 0;

	if (!l || !l->o.sink ||
	    xrx_opts_copy(&r, sizeof(r), opts, XRX_LIVE_RECONF_OPTS_MIN))
		return -EINVAL;
	sink = r.sink;
	tee = r.tee;
	if ((sink && strlen(sink) >= sizeof(l->sink_spec)) ||
	    (tee && strlen(tee) >= sizeof(l->tee_spec)) || (tee && r.no_tee))
		return -EINVAL;
	/* The caller's structs by their own sz, as at open. */
	engine = r.engine;
	if (engine) {
		if (xrx_opts_copy(&eng, sizeof(eng), engine, XRX_ENGINE_OPTS_MIN))
			return -EINVAL;
		engine = &eng;
	}
	sink_opts = r.sink_opts;
	if (sink_opts) {
		if (xrx_opts_copy(&so, sizeof(so), sink_opts, XRX_SINK_OPTS_MIN))
			return -EINVAL;
		sink_opts = &so;
	}
	tee_opts = r.tee_opts;
	if (tee_opts) {
		if (xrx_opts_copy(&to, sizeof(to), tee_opts, XRX_SINK_OPTS_MIN))
			return -EINVAL;
		tee_opts = &to;
	}
	if (sink && !sink_opts && !strcmp(sink, l->sink_spec))
		sink = NULL;	/* the same sink: keep it */
	if (tee && !tee_opts && !strcmp(tee, l->tee_spec))
		tee = NULL;	/* the same tee: keep it */
	set_tee = tee || (r.no_tee && l->tee_spec[0]);
	if (!sink && !engine && !set_tee)
		return 0;
	xrx_live_collect(l);
	if (xrx_live_swaps_pending(l)) {
		xrx_log(l, XRX_LOG_WARN,
			"%s: a worker has not taken the previous sink/engine change yet (blocked in its sink?); try again later",
			l->ifname);
		return -EBUSY;
	}
	n = calloc(l->nr_q, sizeof(*n));
	if (!n)
		return -ENOMEM;
	/*
	 * Everything new first: a failure leaves the handle as it was. A
	 * kept engine is swapped for a fresh one of the same options, so
	 * that the worker's switch is one code path.
	 */
	for (i = 0; i < l->nr_q; i++) {
		q = &l->q[i];
		n[i].e = xrx_rxq_engine_new(l, q, engine ? engine : &l->eng);
		if (!n[i].e)
			goto fail;
		if (sink) {
			n[i].sink = xrx_rxq_sink_open(l, q, sink,
						      sink_opts ? sink_opts :
								  &l->sink_o,
						      engine ? engine : &l->eng);
			if (!n[i].sink)
				goto fail;
		}
		if (tee) {
			n[i].tee = xrx_rxq_tee_open(l, q, tee,
						    tee_opts ? tee_opts : &l->tee_o,
						    engine ? engine : &l->eng);
			if (!n[i].tee)
				goto fail;
		}
	}
	for (i = 0; i < l->nr_q; i++) {
		q = &l->q[i];
		q->sw.e = n[i].e;
		q->sw.sink = n[i].sink;
		q->sw.old_e = q->e;
		q->sw.old_sink = n[i].sink ? q->sink : NULL;
		q->sw.set_tee = set_tee;
		q->sw.tee = n[i].tee;
		q->sw.old_tee = set_tee ? q->tee : NULL;
		q->swap_pending = true;
		memset(&n[i], 0, sizeof(n[i]));
		atomic_store_explicit(&q->swap, &q->sw, memory_order_release);
		if (!q->running)
			xrx_rxq_apply_swap(q);	/* no worker: here and now */
	}
	if (engine)
		l->eng = *engine;
	if (sink) {
		strcpy(l->sink_spec, sink);
		if (sink_opts)
			l->sink_o = *sink_opts;
	}
	if (set_tee) {
		strcpy(l->tee_spec, tee ? tee : "");
		if (tee_opts)
			l->tee_o = *tee_opts;
	}
	/* Each worker goes round its loop at least every 100 ms. */
	for (waited = 0; waited < XRX_SWAP_WAIT_MS; waited++) {
		xrx_live_collect(l);
		if (!xrx_live_swaps_pending(l))
			break;
		nanosleep(&ms, NULL);
	}
	if (xrx_live_swaps_pending(l))
		xrx_log(l, XRX_LOG_WARN,
			"%s: a worker has not switched after %d ms (blocked in its sink?); it switches when it runs again",
			l->ifname, XRX_SWAP_WAIT_MS);
	goto out;
fail:
	err = -errno;
out:
	for (i = 0; i < l->nr_q; i++) {
		xrx_engine__free(n[i].e);
		xrx_sink__close(n[i].sink);
		xrx_tee__free(n[i].tee);
	}
	free(n);
	return err;
}

int xrx_live__reconfigure(struct xrx_live *l, const char *sink,
			  const struct xrx_sink_opts *sink_opts,
			  const struct xrx_engine_opts *engine)
{
	struct xrx_live_reconfigure_opts r = {
		.sz = sizeof(r),
		.sink = sink,
		.sink_opts = sink_opts,
		.engine = engine,
	};

	return xrx_live__reconfigure_opts(l, &r);
}

/*
 * With the worker joined: receive what is still in the RX ring. The
 * socket left xrx_xsks first, so only a NAPI run that looked it up
 * before can still add frames; three empty looks 1 ms apart outlast it.
 */
static void xrx_rxq_drain(struct xrx_rxq *q)
{
	struct timespec ms = { 0, 1000000 };
	int empty = 0, rounds;

	for (rounds = 0; rounds < 10000 && empty < 3; rounds++) {
		if (xrx_rxq_batch(q, 0) > 0) {
			empty = 0;
			continue;
		}
		empty++;
		nanosleep(&ms, NULL);
	}
	xrx_engine__flush_all(q->e);
	xrx_rxq_flush_sinks(q);
}

int xrx_live__stop(struct xrx_live *l)
{
	bool ran[XRX_LIVE_QUEUES_MAX] = { false };
	__u32 i;

	if (!l)
		return -EINVAL;
	/* Tell every worker first, then wait: they stop in parallel. */
	for (i = 0; i < l->nr_q; i++) {
		ran[i] = l->q[i].running;
		if (!ran[i])
			continue;
		xrx_xsk_map_remove(l, &l->q[i]);
		atomic_store(&l->q[i].stop, true);
	}
	for (i = 0; i < l->nr_q; i++)
		xrx_rxq_stop(&l->q[i]);
	for (i = 0; i < l->nr_q; i++)
		if (ran[i])
			xrx_rxq_drain(&l->q[i]);
	xrx_live_collect(l);
	l->started = false;
	return 0;
}

void xrx_live__close(struct xrx_live *l)
{
	__u32 i;

	if (!l)
		return;
	xrx_live__stop(l);
	/* A swap a blocked worker never took: the pair was never used. */
	for (i = 0; l->q && i < l->nr_q; i++) {
		if (!l->q[i].swap_pending)
			continue;
		xrx_engine__free(l->q[i].sw.e);
		xrx_sink__close(l->q[i].sw.sink);
		xrx_tee__free(l->q[i].sw.tee);
		l->q[i].swap_pending = false;
	}
	for (i = 0; l->q && i < l->nr_q; i++)
		xrx_xsk_close(&l->q[i]);
	for (i = 0; l->q && i < l->nr_q; i++)
		xrx_rxq_fini(&l->q[i]);
	xrx_prog__close(l->prog);
	free(l->q);
	free(l);
}

int xrx_live__poll(struct xrx_live *l, __u32 qi, struct xrx_pkt **pkts,
		   __u32 max, int timeout_ms)
{
	struct xrx_rxq *q;
	__u32 n = 0;
	int err;

	if (!l || qi >= l->nr_q || !l->q[qi].pend || (max && !pkts))
		return -EINVAL;
	q = &l->q[qi];
	if (!q->pend_len) {
		err = xrx_rxq_batch(q, timeout_ms);
		if (err < 0)
			return err;
	}
	while (n < max && q->pend_len) {
		pkts[n++] = q->pend[q->pend_head];
		q->pend_head = (q->pend_head + 1) % q->pend_cap;
		q->pend_len--;
	}
	return (int)n;
}

void xrx_live__release(struct xrx_live *l, __u32 qi, struct xrx_pkt *pkt)
{
	if (l && qi < l->nr_q && pkt)
		xrx_pkt__release(l->q[qi].e, pkt);
}

int xrx_live__set_default_action(struct xrx_live *l, __u32 act)
{
	struct xrx_cfg cfg = { 0 };
	__u32 zero = 0;
	int fd;

	if (!l || act > XRX_ACT_ACCEL)
		return -EINVAL;
	/* Only the default: VXLAN ports, flags and key stay as they are. */
	fd = xrx_prog__map_fd(l->prog, XRX_PROG_MAP_CFG);
	if (bpf_map_lookup_elem(fd, &zero, &cfg))
		return -errno;
	cfg.default_action = act;
	if (bpf_map_update_elem(fd, &zero, &cfg, BPF_ANY))
		return -errno;
	/* xrx_ports says "default" for ports without a rule only once it
	 * has been filled; until then every frame asks the trie. */
	return xrx_rules__update(xrx_prog__map_fd(l->prog, XRX_PROG_MAP_RULES),
				 xrx_prog__map_fd(l->prog, XRX_PROG_MAP_PORTS),
				 NULL, 0, NULL, NULL, 0);
}

int xrx_live__rule_add(struct xrx_live *l, const struct xrx_rule_key *key,
		       const struct xrx_rule_val *val)
{
	if (!l || !key || !val)
		return -EINVAL;
	return xrx_rules__update(xrx_prog__map_fd(l->prog, XRX_PROG_MAP_RULES),
				 xrx_prog__map_fd(l->prog, XRX_PROG_MAP_PORTS),
				 NULL, 0, key, val, 1);
}

int xrx_live__rule_del(struct xrx_live *l, const struct xrx_rule_key *key)
{
	if (!l || !key)
		return -EINVAL;
	/* A rule that is not there is an error here, as it was before. */
	if (bpf_map_lookup_elem(xrx_prog__map_fd(l->prog, XRX_PROG_MAP_RULES),
				key, &(struct xrx_rule_val){ 0 }))
		return -errno;
	return xrx_rules__update(xrx_prog__map_fd(l->prog, XRX_PROG_MAP_RULES),
				 xrx_prog__map_fd(l->prog, XRX_PROG_MAP_PORTS),
				 key, 1, NULL, NULL, 0);
}

int xrx_live__rule_add_port(struct xrx_live *l, __u8 proto, __u16 port)
{
	struct xrx_rule_key key = {
		.prefixlen = XRX_RULE_PREFIX_BASE,
		.proto = proto,
		.port = (__be16)__builtin_bswap16(port),
	};
	struct xrx_rule_val val = { .action = XRX_ACT_ACCEL, .id = port };

	return xrx_live__rule_add(l, &key, &val);
}

__u32 xrx_live__nr_queues(const struct xrx_live *l)
{
	return l ? l->nr_q : 0;
}

int xrx_live__queue_info(const struct xrx_live *l, __u32 qi,
			 struct xrx_live_queue_info *info)
{
	const struct xrx_rxq *q;

	if (!l || qi >= l->nr_q || !info)
		return -EINVAL;
	q = &l->q[qi];
	memset(info, 0, sizeof(*info));
	info->queue = q->xsk.queue;
	info->zerocopy = q->xsk.zerocopy;
	info->multi_buffer = q->xsk.sg;
	info->need_wakeup = q->xsk.need_wakeup;
	info->busy_poll = q->xsk.busy_poll;
	info->fd = q->xsk.fd;
	info->nr_frames = q->umem.nr_frames;
	info->frame_size = q->umem.frame_size;
	info->umem_bytes = q->umem.size +
			   (__u64)q->umem.nr_frames * (sizeof(*q->umem.free) + 1);
	info->engine_bytes = xrx_engine__memory(q->swap_pending ? q->sw.old_e :
							       q->e);
	info->heartbeat_ns = atomic_load_explicit(
		&((struct xrx_rxq *)q)->heartbeat_ns, memory_order_relaxed);
	return 0;
}

const char *xrx_live__attach_mode(const struct xrx_live *l)
{
	return xrx_prog__mode_name(l ? l->prog : NULL);
}

static void xrx_rxq_stats(struct xrx_rxq *q, struct xrx_live_stats *st)
{
	__u64 live[XRX_LIVE_STAT_MAX], eng[XRX_ENGINE_STAT_MAX];
	__u64 snk[XRX_SINK_STAT_MAX];
	/* Until a swap is collected the worker may be switching: read the
	 * pair it is leaving, which stays alive until then. */
	struct xrx_engine *e = q->swap_pending ? q->sw.old_e : q->e;
	struct xrx_sink *sink = q->swap_pending && q->sw.old_sink ?
					q->sw.old_sink : q->sink;
	struct xrx_tee *tee = q->swap_pending && q->sw.set_tee ?
				      q->sw.old_tee : q->tee;
	int i;

	memcpy(live, q->stats, sizeof(live));
	xrx_xsk_stats(&q->xsk, live);
	live[XRX_LIVE_STAT_OWNERSHIP_ERRORS] = q->umem.errors;
	live[XRX_LIVE_STAT_UMEM_FRAMES] = q->umem.nr_frames;
	live[XRX_LIVE_STAT_UMEM_FREE] = q->umem.nr_free;
	live[XRX_LIVE_STAT_UMEM_KERNEL] = q->umem.nr_kernel;
	live[XRX_LIVE_STAT_UMEM_ENGINE] = q->umem.nr_engine;
	/* Set by the worker when it starts and at each swap. */
	live[XRX_LIVE_STAT_NAP_MAX_US] = 0;
	for (i = 0; i < XRX_LIVE_STAT_MAX; i++)
		st->live[i] += live[i];
	/* A setting, not a sum: the most of any queue. */
	if (q->nap_max_ns / 1000 > st->live[XRX_LIVE_STAT_NAP_MAX_US])
		st->live[XRX_LIVE_STAT_NAP_MAX_US] = q->nap_max_ns / 1000;
	xrx_engine__stats(e, eng);
	for (i = 0; i < XRX_ENGINE_STAT_MAX; i++)
		st->engine[i] += eng[i] + q->base_engine[i];
	memset(snk, 0, sizeof(snk));
	if (sink)
		xrx_sink__stats(sink, snk);
	for (i = 0; i < XRX_SINK_STAT_MAX; i++)
		st->sink[i] += snk[i] + q->base_sink[i];
	memset(snk, 0, sizeof(snk));
	if (tee)
		xrx_tee__stats(tee, snk);
	for (i = 0; i < XRX_SINK_STAT_MAX; i++)
		st->tee[i] += snk[i] + q->base_tee[i];
}

int xrx_live__stats(struct xrx_live *l, int qi, struct xrx_live_stats *st)
{
	__u32 i;

	if (!l || !st || qi >= (int)l->nr_q)
		return -EINVAL;
	xrx_live_collect(l);
	memset(st, 0, sizeof(*st));
	for (i = 0; i < l->nr_q; i++)
		if (qi < 0 || (__u32)qi == i)
			xrx_rxq_stats(&l->q[i], st);
	xrx_prog__stats(l->prog, st->prog, st->prog_bytes);
	return 0;
}

XRX_COUNTERS_DEFINE(, xrx_live_stat, XRX_LIVE_STATS_TABLE, XRX_LIVE_STAT_MAX,
		    XRX_COUNTER_NAME)

int xrx_live__check_frames(struct xrx_live *l, int qi, char *why,
			   size_t why_len)
{
	__u64 eng[XRX_ENGINE_STAT_MAX];
	char buf[256];
	__u32 i;
	int err;

	if (!l || qi >= (int)l->nr_q)
		return -EINVAL;
	for (i = 0; i < l->nr_q; i++) {
		if (qi >= 0 && (__u32)qi != i)
			continue;
		xrx_engine__stats(l->q[i].e, eng);
		err = xrx_umem_check(&l->q[i].umem,
				     eng[XRX_ENGINE_STAT_FRAMES_RELEASED] +
				     l->q[i].base_engine[XRX_ENGINE_STAT_FRAMES_RELEASED],
				     buf, sizeof(buf));
		if (err) {
			if (why)
				snprintf(why, why_len, "queue %u: %s",
					 l->q[i].xsk.queue, buf);
			return err;
		}
	}
	return 0;
}
