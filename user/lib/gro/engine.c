// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The engine: creation, one receive batch, flushing, counters.
 *
 * Per frame: take xrx_meta (or parse with include/xrx/parse.h), sort out
 * what never enters GRO (the checks inet_gro_receive(),
 * ipv6_gro_receive(), tcp4_gro_receive() and udp4_gro_receive() make
 * before looking for a flow), and hand the rest to the GRO rules in receive.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <xrx/counters.h>
#include "gro/gro.h"
#include "gro/fast.h"
#include "gro/prefetch.h"
#include "opts.h"

/* Positional: the table is in enum order (XRX_ENGINE_STATS_TABLE). */
XRX_COUNTERS_DEFINE(, xrx_engine_stat, XRX_ENGINE_STATS_TABLE,
		    XRX_ENGINE_STAT_MAX, XRX_COUNTER_NAME)

/*
 * Options with defaults filled in. The user's options are checked against
 * their table (include/xrx/options.h); pkts and max_chunks, which libxrx
 * sets, here. Return: 0 or -EINVAL.
 */
static int xrx_engine_opts_check(struct xrx_engine_opts *o, bool *any_tnl)
{
	if (!o->region || !o->region_size)
		return -EINVAL;
	/* max_segs' default grows with a BIG TCP max_aggregate */
	if (!o->max_segs && o->max_aggregate / 1024 > XRX_SEGS_DEFAULT)
		o->max_segs = o->max_aggregate / 1024;
	if (xrx_opts_check(XRX_OPT_SET_ENGINE, o))
		return -EINVAL;
	if (!o->pkts)
		o->pkts = o->flows + 1024;
	if (o->pkts > (1u << 26))
		return -EINVAL;
	if (xrx_tnl_opts_check(o, any_tnl))
		return -EINVAL;
	if (!o->max_chunks)
		o->max_chunks = 1;
	if (o->max_chunks > XRX_CHUNKS_MAX)
		return -EINVAL;
	return 0;
}

static int xrx_engine_pools(struct xrx_engine *e)
{
	const struct xrx_engine_opts *o = &e->opts;
	/* A segment's payload is one fragment per piece it spans. */
	__u32 max_frags = o->copy == XRX_COPY_FULL ? 1 :
			  (o->max_segs + 1) * o->max_chunks;
	/* a segment's time each: UDP aggregates may reach
	 * XRX_UDP_SEGS_MAX whatever max_segs says */
	__u32 max_ts = (o->max_segs > XRX_UDP_SEGS_MAX ? o->max_segs :
						       XRX_UDP_SEGS_MAX) + 1;
	size_t stride;
	__u32 i;

	/* Full copy: an aggregate (limit from its network header) or the
	 * largest single frame, plus room for L2. Untouched pages of the
	 * mapping cost nothing. */
	e->head_size = XRX_HEAD_SIZE;
	/* room to insert the IPv6 jumbo option behind a full head */
	if (o->ipv6_jumbo == XRX_IPV6_JUMBO_HBH)
		e->head_size += XRX_HBH_JUMBO_LEN;
	if (o->copy == XRX_COPY_FULL)
		e->head_size += e->limit > 65536 ? e->limit : 65536;
	/* each on a cache line of its own (XRX_HEAD_ALIGN) */
	stride = (e->head_size + XRX_HEAD_ALIGN - 1) & ~(size_t)(XRX_HEAD_ALIGN - 1);
	e->heads_size = stride * o->pkts;
	e->heads = mmap(NULL, e->heads_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (e->heads == MAP_FAILED) {
		e->heads = NULL;
		return -ENOMEM;
	}
	e->aggs = calloc(o->pkts, sizeof(*e->aggs));
	e->frag_store = calloc((size_t)o->pkts * max_frags,
			       sizeof(*e->frag_store));
	e->ts_store = calloc((size_t)o->pkts * max_ts, sizeof(*e->ts_store));
	if (!e->aggs || !e->frag_store || !e->ts_store)
		return -ENOMEM;
	e->mem_bytes = e->heads_size + (size_t)o->pkts * sizeof(*e->aggs) +
		       (size_t)o->pkts * max_frags * sizeof(*e->frag_store) +
		       (size_t)o->pkts * max_ts * sizeof(*e->ts_store) +
		       ((size_t)e->table.mask + 1) * sizeof(*e->table.buckets);
	for (i = o->pkts; i-- > 0;) {
		struct xrx_agg *a = &e->aggs[i];

		a->head = e->heads + (size_t)i * stride;
		a->frags = e->frag_store + (size_t)i * max_frags;
		a->max_frags = max_frags;
		a->seg_ts = e->ts_store + (size_t)i * max_ts;
		a->max_ts = max_ts;
		a->pkt.head = a->head;
		a->pkt.frags = a->frags;
		xrx_agg_free(e, a);
	}
	return 0;
}

static void xrx_engine_destroy(struct xrx_engine *e)
{
	xrx_gro_table_fini(&e->table);
	if (e->heads)
		munmap(e->heads, e->heads_size);
	free(e->aggs);
	free(e->frag_store);
	free(e->ts_store);
	free(e);
}

struct xrx_engine *xrx_engine__new(const struct xrx_engine_opts *opts)
{
	struct xrx_engine *e;
	int err;

	if (!opts) {
		errno = EINVAL;
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		errno = ENOMEM;
		return NULL;
	}
	err = xrx_opts_copy(&e->opts, sizeof(e->opts), opts,
			    XRX_ENGINE_OPTS_MIN);
	if (!err)
		err = xrx_engine_opts_check(&e->opts, &e->tnl);
	/* No key given: one of its own */
	if (!err && xrx_hash_key_unset(&e->opts.hash_key))
		err = xrx_hash_key_new(&e->opts.hash_key);
	if (err)
		goto fail;
	e->region = e->opts.region;
	e->region_size = e->opts.region_size;
	e->limit = e->opts.max_aggregate;
	e->max_segs = e->opts.max_segs;
	e->timeout_ns = (__u64)e->opts.flush_timeout_us * 1000;
	err = xrx_gro_table_init(&e->table, e->opts.flows);
	if (err)
		goto fail;
	err = xrx_engine_pools(e);
	if (err)
		goto fail;
	return e;
fail:
	xrx_engine_destroy(e);
	errno = -err;
	return NULL;
}

__u64 xrx_engine__held_since(const struct xrx_engine *e)
{
	return e && e->table.oldest ? e->table.oldest->pkt.ts_ns : 0;
}

__u64 xrx_engine__memory(const struct xrx_engine *e)
{
	return e ? e->mem_bytes : 0;
}

void xrx_engine__free(struct xrx_engine *e)
{
	__u32 i;

	if (!e)
		return;
	xrx_engine__flush_all(e);
	/* Packets the consumer still holds: their frames go back too, so
	 * release_frame() has been called once for every frame. */
	for (i = 0; i < e->opts.pkts; i++)
		if (e->aggs[i].state == XRX_AGG_OUT)
			xrx_pkt__release(e, &e->aggs[i].pkt);
	xrx_engine_destroy(e);
}

/*
 * xrx_meta from xrx_rx, if present and consistent with the frame. The
 * out-of-band VLAN tag is taken even when the rest is parsed again: the
 * frame no longer holds it. A hash the NIC computed over addresses only
 * would put every flow between two hosts in one bucket; such a frame is
 * parsed, which computes xrx_flow_hash() with the engine's key.
 */
static bool xrx_seg_from_meta(struct xrx_seg *s, const struct xrx_meta *m)
{
	if (!m || m->magic != XRX_META_MAGIC || m->version != XRX_META_VERSION)
		return false;
	if (m->flags & XRX_META_F_HW_VLAN)
		s->vlan_all = (__u32)m->vlan_proto << 16 | m->vlan_tci;
	if (m->hash_type != XRX_HASH_SW && m->hash_type != XRX_HASH_HW_L4)
		return false;
	if (m->result != XRX_PARSE_L4 ||
	    !(m->flags & (XRX_META_F_TCP | XRX_META_F_UDP)) ||
	    (m->flags & XRX_META_F_FRAG) || !m->l4_off ||
	    m->l4_off + 8u > s->len || m->headlen > s->len ||
	    m->l3_off + 20 > m->l4_off)
		return false;
	s->hdrs = m->hdrs;
	s->meta = m;
	return true;
}

/*
 * The parser calls a frame whose IP length runs past its end malformed
 * (xrx_rx passes it to the kernel). GRO sees it otherwise: with the
 * network and transport headers present, inet_gro_receive() and
 * ipv6_gro_receive() only set flush, tcp_gro_receive() still finds the
 * flow, and skb_gro_receive() refuses the segment, which flushes the
 * held aggregate before the segment goes up alone. Parse again as if
 * the frame were as long as its IP header says; the headers must still
 * lie within the bytes present.
 * Return: true with @r filled in if the frame is such a segment.
 */
static bool xrx_seg_parse_short(const struct xrx_seg *s, struct xrx_parsed *r,
				const struct xrx_hash_key *key)
{
	const __u8 *l3 = s->data + r->l3_off;
	__u32 claim, window;

	if (!(r->flags & (XRX_META_F_IPV4 | XRX_META_F_IPV6)) ||
	    r->l3_off + 40u > s->first_len)
		return false;
	claim = r->l3_off + ((r->flags & XRX_META_F_IPV6) ?
				     XRX_IP6H_LEN +
					     xrx_get16(l3 + XRX_IP6H_PAYLOAD_LEN) :
				     xrx_get16(l3 + XRX_IPH_TOT_LEN));
	if (claim <= s->len)
		return false;
	window = s->first_len < XRX_PARSE_WINDOW ? s->first_len :
						   XRX_PARSE_WINDOW;
	if (xrx_parse(s->data, window, claim, r, key) != XRX_PARSE_L4 ||
	    r->headlen > s->len)
		return false;
	return true;
}

static void xrx_seg_parse(struct xrx_engine *e, struct xrx_seg *s)
{
	const struct xrx_hash_key *key = &e->opts.hash_key;
	struct xrx_parsed r;

	xrx_parse(s->data, s->len < XRX_PARSE_WINDOW ? s->len : XRX_PARSE_WINDOW,
		  s->len, &r, key);
	if (r.result == XRX_PARSE_MALFORMED && xrx_seg_parse_short(s, &r, key))
		s->ip_short = true;
	s->hdrs = r.hdrs;
}

/*
 * Lengths the GRO rules need, of the innermost frame: the header length
 * (computed here once for the segment and its aggregate: headlen, which
 * xrx_meta's is not trusted for), the payload as the IP length counts it
 * (padding excluded), and the network layer's own flush
 * (inet_gro_receive(): tot_len differs from the bytes present, or a
 * frag_off bit other than DF; ipv6_gro_receive(): payload_len differs).
 * Return: false if the headers are inconsistent (malformed).
 */
static bool xrx_seg_lengths(struct xrx_seg *s)
{
	const __u8 *l3 = s->data + s->l3_off;
	__u32 ip_len, hdr_len, thl = XRX_UDPH_LEN;
	bool ipv6 = s->flags & XRX_META_F_IPV6;

	if (s->l4_proto == XRX_IPPROTO_TCP) {
		if ((__u32)s->l4_off + XRX_TCPH_LEN > s->len)
			return false;
		thl = (s->data[s->l4_off + XRX_TCPH_DOFF] >> 4) * 4;
		if (thl < XRX_TCPH_LEN)
			return false;
	}
	hdr_len = s->l4_off + thl;
	if (hdr_len > s->len)
		return false;
	ip_len = ipv6 ? XRX_IP6H_LEN + xrx_get16(l3 + XRX_IP6H_PAYLOAD_LEN) :
			xrx_get16(l3 + XRX_IPH_TOT_LEN);
	if (s->l3_off + ip_len > s->len) {
		if (!s->ip_short)
			return false;
		/* skb_gro_len(): the bytes present, whatever the header says */
		ip_len = s->len - s->l3_off;
	}
	s->headlen = hdr_len;
	s->payload_len = s->l3_off + ip_len > hdr_len ?
				 s->l3_off + ip_len - hdr_len : 0;
	s->ip_flush |= s->ip_short || s->l3_off + ip_len != s->len;
	if (!ipv6 && (xrx_get16(l3 + XRX_IPH_FRAG_OFF) & XRX_IP_RF))
		s->ip_flush = true;	/* inet_gro_receive(): reserved bit */
	return true;
}

/*
 * What keeps a frame out of GRO altogether; the held aggregate of its
 * flow is not touched. A frame to a tunnel port goes through the tunnel's
 * entry stage first (tunnel.c), and the rules below then judge the frame
 * inside it. Return: 0, or the single_* / csum_bad counter.
 */
static int xrx_seg_no_gro(struct xrx_engine *e, struct xrx_seg *s)
{
	const __u8 *l4;
	__u32 ulen;
	bool inner;
	int why, inner_why;

	if (unlikely(e->tnl)) {
		why = xrx_tnl_frame(e, s);
		if (why)
			return why;
	}
	/* inside a tunnel: the kind's reason for an inner frame without GRO */
	inner = s->nr_lvls > 1;
	inner_why = inner ? xrx_tnl_descs[s->lvl[0].tnl - 1].single_inner : 0;
	switch (s->result) {
	case XRX_PARSE_L4:
		break;
	case XRX_PARSE_FRAG:
		return XRX_ENGINE_STAT_SINGLE_FRAG;
	case XRX_PARSE_NOT_IP:		/* eth_gro_receive(): no ptype */
	case XRX_PARSE_NOT_L4:
		return inner ? inner_why : XRX_ENGINE_STAT_SINGLE_NOT_TCP_UDP;
	default:
		return XRX_ENGINE_STAT_SINGLE_MALFORMED;
	}
	if (s->l4_proto != XRX_IPPROTO_TCP && s->l4_proto != XRX_IPPROTO_UDP)
		return XRX_ENGINE_STAT_SINGLE_NOT_TCP_UDP;
	if (s->flags & XRX_META_F_IPV4_OPT)	/* *(u8 *)iph != 0x45 */
		return XRX_ENGINE_STAT_SINGLE_IP_OPTS;
	if (!xrx_seg_lengths(s))
		return XRX_ENGINE_STAT_SINGLE_MALFORMED;
	if (!(s->flags & XRX_META_F_IPV6) &&
	    !xrx_ipv4_csum_ok(s->data + s->l3_off))
		return XRX_ENGINE_STAT_CSUM_BAD;	/* ip_fast_csum() */
	if (s->l4_proto == XRX_IPPROTO_UDP) {
		/* In a tunnel: udp_gro_receive() with no socket and no
		 * rx-udp-gro-forwarding delivers it alone. */
		if (inner)
			return inner_why;
		if (!e->opts.udp)
			return XRX_ENGINE_STAT_SINGLE_UDP_OFF;
	}
	/* "Don't bother verifying checksum if we're going to flush anyway" */
	if (e->opts.csum == XRX_CSUM_VERIFY && !s->ip_flush) {
		if (xrx_l4_csum_ok(s)) {
			s->csum_ok = true;
		} else if (!xrx_l4_csum_partial(s)) {
			return XRX_ENGINE_STAT_CSUM_BAD;
		} else {
			/* A sender's unfinished offload, not corruption
			 * (enum xrx_csum_partial in xrx/engine.h). */
			xrx_count(e, XRX_ENGINE_STAT_CSUM_PARTIAL);
			if (e->opts.csum_partial != XRX_CSUM_PARTIAL_ACCEPT)
				return XRX_ENGINE_STAT_SINGLE_CSUM_PARTIAL;
			s->csum_partial = true;
		}
	}
	if (s->l4_proto == XRX_IPPROTO_UDP) {
		l4 = s->data + s->l4_off;
		/* "requires non zero csum" */
		if (!xrx_get16(l4 + XRX_UDPH_CHECK))
			return XRX_ENGINE_STAT_SINGLE_UDP_NO_CSUM;
		ulen = xrx_get16(l4 + XRX_UDPH_LEN_OFF);
		if (ulen <= XRX_UDPH_LEN || ulen != s->len - s->l4_off)
			return XRX_ENGINE_STAT_SINGLE_UDP_LEN;
	}
	return 0;
}

static void xrx_engine_frame(struct xrx_engine *e, const struct xrx_frame *f,
			     __u64 now_ns)
{
	__u32 nc = 0, len = f->len, i;
	struct xrx_seg s;
	bool bad;
	int why;

	bad = f->addr > e->region_size || f->len > e->region_size - f->addr;
	if (unlikely(f->flags & XRX_FRAME_F_CHAIN)) {
		/* Multi-buffer: the headers (and the parse window) must be
		 * in the first piece, every piece in the region. */
		nc = f->chunks ? f->nr_chunks : 0;
		bad |= !f->chunks || nc + 1 > e->opts.max_chunks ||
		       f->len < XRX_HEAD_SIZE;
		for (i = 0; i < nc; i++) {
			bad |= f->chunks[i].addr > e->region_size ||
			       f->chunks[i].len >
				       e->region_size - f->chunks[i].addr;
			len += f->chunks[i].len;
		}
	}
	xrx_count_frames(e, 1, len);
	if (unlikely(bad ||
		     (e->opts.copy == XRX_COPY_FULL && len > e->head_size))) {
		xrx_count(e, XRX_ENGINE_STAT_DROP_BAD_FRAME);
		xrx_release_frame(e, f->addr);
		for (i = 0; i < nc; i++)
			xrx_release_frame(e, f->chunks[i].addr);
		return;
	}
	memset(&s, 0, sizeof(s));
	s.data = e->region + f->addr;
	s.addr = f->addr;
	s.len = len;
	s.first_len = f->len;
	s.chunks = nc ? f->chunks : NULL;
	s.nr_chunks = nc;
	s.region = e->region;
	s.ts_ns = f->ts_ns;
	s.ts_nic = f->flags & XRX_FRAME_F_TS_NIC;
	if (unlikely(!xrx_seg_from_meta(&s, f->meta))) {
		/* Not an error (replay has no metadata), but on the live
		 * path every frame xrx_rx redirects should carry it: the
		 * tests hold this counter at 0 there. */
		if (f->meta)
			xrx_count(e, XRX_ENGINE_STAT_FRAMES_NO_META);
		xrx_seg_parse(e, &s);
	}
	xrx_seg_enter(&s, 0, 0);
	why = xrx_seg_no_gro(e, &s);
	if (unlikely(why))
		xrx_gro_single(e, &s, why);
	else
		xrx_gro_receive(e, &s, now_ns);
}

int xrx_engine__rx(struct xrx_engine *e, const struct xrx_frame *frames,
		   __u32 n, __u64 now_ns)
{
	const struct xrx_frame *f, *end = frames + n;
	struct xrx_ahead ah;
	__u32 k;

	if (!e || (n && !frames))
		return -EINVAL;
	xrx_prefetch_start(e, frames, n, &ah);
	for (f = frames; f < end; f += k) {
		/* a run of segments that merge into their flow's held
		 * aggregate (fast.h); every other frame takes the full
		 * path */
		k = xrx_fast_run(e, f, end, &ah);
		if (k)
			continue;
		xrx_prefetch_step(&ah, f);
		xrx_engine_frame(e, f, now_ns);
		k = 1;
	}
	if (e->timeout_ns)
		xrx_engine__flush(e, now_ns);
	else
		while (e->table.oldest)
			xrx_deliver(e, e->table.oldest,
				    XRX_ENGINE_STAT_FLUSH_BATCH_END);
	return (int)n;
}

void xrx_engine__flush(struct xrx_engine *e, __u64 now_ns)
{
	struct xrx_agg *a;

	while ((a = e->table.oldest) && now_ns - a->born_ns >= e->timeout_ns)
		xrx_deliver(e, a, XRX_ENGINE_STAT_FLUSH_TIMEOUT);
}

void xrx_engine__flush_all(struct xrx_engine *e)
{
	while (e->table.oldest)
		xrx_deliver(e, e->table.oldest, XRX_ENGINE_STAT_FLUSH_EXPLICIT);
}

__u32 xrx_engine__flush_oldest(struct xrx_engine *e, __u32 n)
{
	__u32 done = 0;

	while (done < n && e->table.oldest) {
		xrx_deliver(e, e->table.oldest, XRX_ENGINE_STAT_FLUSH_PRESSURE);
		done++;
	}
	return done;
}

__u32 xrx_engine__held(const struct xrx_engine *e)
{
	return e->table.held;
}

__u64 xrx_engine__next_timeout(const struct xrx_engine *e)
{
	if (!e->table.oldest)
		return 0;
	return e->table.oldest->born_ns + e->timeout_ns;
}

void xrx_engine__stats(const struct xrx_engine *e,
		       __u64 vals[XRX_ENGINE_STAT_MAX])
{
	memcpy(vals, e->stats, sizeof(e->stats));
}
