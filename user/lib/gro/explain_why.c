// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Why a delivered packet ended, in words (include/xrx/explain.h); the
 * per-flow tally of those reasons is explain_tally.c, its printing
 * explain_print.c.
 *
 * The engine decides once, where it delivers, and leaves the reason in
 * pkt->reason (xrx_deliver()); nothing here runs unless asked, so the
 * receive path pays nothing for it. XRX_WHY_TABLE is the one place that
 * says what each reason counter means: the words, the kernel function
 * that makes the same decision, and whether the packet ended at a limit.
 * Its rows are keyed by the counters' own enumerators, so a renamed or
 * removed counter does not build, and tests/unit/test_explain.c fails for
 * a reason counter added without a row.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <xrx/engine.h>
#include <xrx/explain.h>
#include <xrx/bytes.h>
#include <xrx/hdr.h>
#include <xrx/tunnel.h>

#include "gro/csum.h"
#include "gro/explain_why.h"

#define FLUSHED XRX_WHY_FLUSHED
#define ENDED XRX_WHY_ENDED
#define NOT_MERGED XRX_WHY_NOT_MERGED
#define ANY 0

/*
 * X(counter, what the packet must have (all of it), kind, ended at a
 *   limit, what, kernel function)
 *
 * For one counter the first row the packet satisfies wins; a counter's
 * last row asks nothing, or (for a rule of one IP version only) is the
 * one used when no other fits. The functions are 6.10's and later's: see
 * include/xrx/explain.h.
 */
#define XRX_WHY_TABLE(X)                                                        \
	/* tcp_gro_receive(): the flag word (doff, flags, window), ack_seq,   \
	 * the options, then (len - 1) >= mss and the sequence */             \
	X(FLUSH_CWR, ANY, FLUSHED, false, "CWR set", "tcp_gro_receive")        \
	X(FLUSH_FLAGS, ANY, FLUSHED, false, "TCP flags or header length changed", \
	  "tcp_gro_receive")                                                   \
	X(FLUSH_WINDOW, ANY, FLUSHED, false, "window changed", "tcp_gro_receive") \
	X(FLUSH_ACK, ANY, FLUSHED, false, "ACK number changed", "tcp_gro_receive") \
	X(FLUSH_OPTS, ANY, FLUSHED, false, "TCP options changed", "tcp_gro_receive") \
	X(FLUSH_TTL, XF_V6, FLUSHED, false, "hop limit changed", "ipv6_gro_flush") \
	X(FLUSH_TTL, ANY, FLUSHED, false, "TTL changed", "inet_gro_flush")     \
	X(FLUSH_TOS, XF_V6, FLUSHED, false, "traffic class changed",          \
	  "ipv6_gro_flush")                                                    \
	X(FLUSH_TOS, ANY, FLUSHED, false, "TOS changed", "inet_gro_flush")     \
	X(FLUSH_DF, ANY, FLUSHED, false, "DF changed", "inet_gro_flush")       \
	X(FLUSH_IPID, ANY, FLUSHED, false,                                     \
	  "IP ID neither incrementing nor fixed", "inet_gro_flush")            \
	/* inet/ipv6_gro_receive() flag the segment, skb_gro_receive()        \
	 * refuses it */                                                       \
	X(FLUSH_IP_HDR, XF_V6, FLUSHED, false,                                 \
	  "next segment's payload length wrong", "ipv6_gro_receive")           \
	X(FLUSH_IP_HDR, ANY, FLUSHED, false,                                   \
	  "next segment's IP length wrong or reserved bit set",                \
	  "inet_gro_receive")                                                  \
	X(FLUSH_SEQ, ANY, FLUSHED, false, "sequence gap or retransmit",     \
	  "tcp_gro_receive")                                                   \
	X(FLUSH_MSS, ANY, FLUSHED, false, "next segment larger than mss",      \
	  "tcp_gro_receive")                                                   \
	X(FLUSH_NO_PAYLOAD, ANY, FLUSHED, false, "pure ACK", "tcp_gro_receive") \
	X(FLUSH_UDP_LEN, ANY, FLUSHED, false, "next datagram larger",          \
	  "udp_gro_receive_segment")                                           \
	X(FLUSH_SIZE, ANY, FLUSHED, true, "size limit", "skb_gro_receive")     \
	/* the kernel bounds a hash bucket (MAX_GRO_SKBS), xrx the bucket and \
	 * the table */                                                        \
	X(FLUSH_BUCKET_FULL, ANY, FLUSHED, false, "hash bucket full",          \
	  "gro_flush_oldest")                                                  \
	X(FLUSH_TABLE_FULL, ANY, FLUSHED, false, "flow table full",            \
	  "gro_flush_oldest")                                                  \
	/* napi_complete_done() flushes all at the end of a poll, or with     \
	 * gro_flush_timeout only what is older */                             \
	X(FLUSH_TIMEOUT, ANY, FLUSHED, false, "flush timeout",                 \
	  "napi_complete_done")                                                \
	X(FLUSH_BATCH_END, ANY, FLUSHED, false, "batch end", "napi_complete_done") \
	X(FLUSH_EXPLICIT, ANY, FLUSHED, false, "flushed by the application",  \
	  "xrx_engine__flush_all")                                             \
	X(FLUSH_PRESSURE, ANY, FLUSHED, false, "buffers low",                  \
	  "xrx_engine__flush_oldest")                                          \
	/* out_check_final: shorter than mss, or PSH/FIN merged last */        \
	X(COMPLETE_SHORT, XF_UDP, ENDED, false, "datagram shorter",            \
	  "udp_gro_receive_segment")                                           \
	X(COMPLETE_SHORT, ANY, ENDED, false, "segment shorter than mss",       \
	  "tcp_gro_receive")                                                   \
	X(COMPLETE_FLAGS, XF_PSH | XF_FIN, ENDED, false, "PSH and FIN set",    \
	  "tcp_gro_receive")                                                   \
	X(COMPLETE_FLAGS, XF_FIN, ENDED, false, "FIN set", "tcp_gro_receive")  \
	X(COMPLETE_FLAGS, ANY, ENDED, false, "PSH set", "tcp_gro_receive")     \
	/* UDP_GRO_CNT_MAX; the kernel has no TCP bound, xrx max_segs */       \
	X(COMPLETE_SEGS, XF_UDP, ENDED, true, "segment limit",                 \
	  "udp_gro_receive_segment")                                           \
	X(COMPLETE_SEGS, ANY, ENDED, true, "segment limit", "max_segs")        \
	/* never held */                                                       \
	X(SINGLE_NOT_TCP_UDP, XF_V4, NOT_MERGED, false, "not TCP or UDP",      \
	  "inet_gro_receive")                                                  \
	X(SINGLE_NOT_TCP_UDP, XF_V6, NOT_MERGED, false, "not TCP or UDP",      \
	  "ipv6_gro_receive")                                                  \
	X(SINGLE_NOT_TCP_UDP, ANY, NOT_MERGED, false, "not IP",                \
	  "dev_gro_receive")                                                   \
	X(SINGLE_MALFORMED, XF_V4, NOT_MERGED, false, "malformed headers",     \
	  "inet_gro_receive")                                                  \
	X(SINGLE_MALFORMED, XF_V6, NOT_MERGED, false, "malformed headers",     \
	  "ipv6_gro_receive")                                                  \
	X(SINGLE_MALFORMED, ANY, NOT_MERGED, false, "malformed headers",       \
	  "dev_gro_receive")                                                   \
	X(SINGLE_IP_OPTS, ANY, NOT_MERGED, false, "IPv4 options",              \
	  "inet_gro_receive")                                                  \
	X(SINGLE_FRAG, XF_V6, NOT_MERGED, false, "IPv6 fragment header",       \
	  "ipv6_gro_receive")                                                  \
	X(SINGLE_FRAG, ANY, NOT_MERGED, false, "IP fragment", "inet_gro_receive") \
	X(SINGLE_LEN, XF_V6, NOT_MERGED, false,                                \
	  "payload length differs from the frame", "ipv6_gro_receive")         \
	X(SINGLE_LEN, ANY, NOT_MERGED, false, "IP length differs from the frame", \
	  "inet_gro_receive")                                                  \
	X(SINGLE_IP_FLAGS, ANY, NOT_MERGED, false, "IPv4 reserved bit set",    \
	  "inet_gro_receive")                                                  \
	/* tcp_gro_receive() with no held packet: len < mss (1), the flags */  \
	X(SINGLE_PURE_ACK, XF_SYN, NOT_MERGED, false, "no payload, SYN",       \
	  "tcp_gro_receive")                                                   \
	X(SINGLE_PURE_ACK, XF_RST, NOT_MERGED, false, "no payload, RST",       \
	  "tcp_gro_receive")                                                   \
	X(SINGLE_PURE_ACK, XF_FIN, NOT_MERGED, false, "no payload, FIN",       \
	  "tcp_gro_receive")                                                   \
	X(SINGLE_PURE_ACK, ANY, NOT_MERGED, false, "pure ACK", "tcp_gro_receive") \
	X(SINGLE_TCP_FLAGS, XF_SYN, NOT_MERGED, false, "SYN set", "tcp_gro_receive") \
	X(SINGLE_TCP_FLAGS, XF_RST, NOT_MERGED, false, "RST set", "tcp_gro_receive") \
	X(SINGLE_TCP_FLAGS, XF_URG, NOT_MERGED, false, "URG set", "tcp_gro_receive") \
	/* nothing held to merge into: it ends itself, as it would end an   \
	 * aggregate it merged into */                                         \
	X(SINGLE_TCP_FLAGS, XF_PSH | XF_FIN, ENDED, false, "PSH and FIN set",  \
	  "tcp_gro_receive")                                                   \
	X(SINGLE_TCP_FLAGS, XF_FIN, ENDED, false, "FIN set", "tcp_gro_receive") \
	X(SINGLE_TCP_FLAGS, XF_PSH, ENDED, false, "PSH set", "tcp_gro_receive") \
	X(SINGLE_TCP_FLAGS, ANY, NOT_MERGED, false, "CWR set", "tcp_gro_receive") \
	X(SINGLE_UDP_OFF, ANY, NOT_MERGED, false, "UDP GRO off", "udp_gro_receive") \
	X(SINGLE_UDP_NO_CSUM, ANY, NOT_MERGED, false, "UDP checksum zero",     \
	  "udp_gro_receive_segment")                                           \
	X(SINGLE_UDP_LEN, ANY, NOT_MERGED, false,                              \
	  "UDP length differs from the frame", "udp_gro_receive_segment")      \
	/* skb_gro_checksum_validate() fails where no CHECKSUM_PARTIAL    \
	 * skb says the sum is unfinished: a NIC's frame (xrx/engine.h) */     \
	X(SINGLE_CSUM_PARTIAL, XF_V4 | XF_UDP, NOT_MERGED, false,              \
	  "partial L4 checksum (sender's TX offload)", "udp4_gro_receive")     \
	X(SINGLE_CSUM_PARTIAL, XF_V6 | XF_UDP, NOT_MERGED, false,              \
	  "partial L4 checksum (sender's TX offload)", "udp6_gro_receive")     \
	X(SINGLE_CSUM_PARTIAL, XF_V6, NOT_MERGED, false,                       \
	  "partial L4 checksum (sender's TX offload)", "tcp6_gro_receive")     \
	X(SINGLE_CSUM_PARTIAL, ANY, NOT_MERGED, false,                         \
	  "partial L4 checksum (sender's TX offload)", "tcp4_gro_receive")     \
	/* ip_fast_csum(); skb_gro_checksum_validate() in the L4 receive */    \
	X(CSUM_BAD, XF_V4 | XF_IPSUM, NOT_MERGED, false,                       \
	  "bad IPv4 header checksum", "inet_gro_receive")                      \
	X(CSUM_BAD, XF_V4 | XF_OUTER, NOT_MERGED, false,                       \
	  "bad outer UDP checksum", "udp4_gro_receive")                        \
	X(CSUM_BAD, XF_V6 | XF_OUTER, NOT_MERGED, false,                       \
	  "bad outer UDP checksum", "udp6_gro_receive")                        \
	X(CSUM_BAD, XF_V4 | XF_UDP, NOT_MERGED, false, "bad L4 checksum",      \
	  "udp4_gro_receive")                                                  \
	X(CSUM_BAD, XF_V6 | XF_UDP, NOT_MERGED, false, "bad L4 checksum",      \
	  "udp6_gro_receive")                                                  \
	X(CSUM_BAD, XF_V6, NOT_MERGED, false, "bad L4 checksum",               \
	  "tcp6_gro_receive")                                                  \
	X(CSUM_BAD, ANY, NOT_MERGED, false, "bad L4 checksum", "tcp4_gro_receive") \
	/* VXLAN: the outer header's inet/ipv6_gro_flush(), the tunnel */      \
	X(FLUSH_OUTER_TTL, XF_V6, FLUSHED, false, "outer hop limit changed",   \
	  "ipv6_gro_flush")                                                    \
	X(FLUSH_OUTER_TTL, ANY, FLUSHED, false, "outer TTL changed",           \
	  "inet_gro_flush")                                                    \
	X(FLUSH_OUTER_TOS, XF_V6, FLUSHED, false, "outer traffic class changed", \
	  "ipv6_gro_flush")                                                    \
	X(FLUSH_OUTER_TOS, ANY, FLUSHED, false, "outer TOS changed",           \
	  "inet_gro_flush")                                                    \
	X(FLUSH_OUTER_DF, ANY, FLUSHED, false, "outer DF changed",             \
	  "inet_gro_flush")                                                    \
	X(FLUSH_OUTER_IPID, ANY, FLUSHED, false,                               \
	  "outer IP ID neither incrementing nor fixed", "inet_gro_flush")      \
	X(SINGLE_VXLAN_SHORT, ANY, NOT_MERGED, false, "VXLAN headers cut short", \
	  "vxlan_gro_receive")                                                 \
	X(SINGLE_VXLAN_INNER, ANY, NOT_MERGED, false, "inner frame not TCP",   \
	  "eth_gro_receive")                                                   \
	X(SINGLE_GENEVE_SHORT, ANY, NOT_MERGED, false,                         \
	  "GENEVE headers cut short", "geneve_gro_receive")                    \
	X(SINGLE_GENEVE_OAM, ANY, NOT_MERGED, false,                           \
	  "GENEVE version not 0 or OAM set", "geneve_gro_receive")             \
	X(SINGLE_GENEVE_PROTO, ANY, NOT_MERGED, false,                         \
	  "GENEVE protocol type not Ethernet", "geneve_gro_receive")           \
	X(SINGLE_GENEVE_INNER, ANY, NOT_MERGED, false, "inner frame not TCP",  \
	  "eth_gro_receive")

#define XRX_WHY_ROW(e, m, k, f, w, fn)                                        \
	{ .stat = XRX_ENGINE_STAT_##e, .match = (m), .kind = (k), .full = (f), \
	  .what = (w), .func = (fn) },

const struct xrx_why_row xrx_why_rows[] = { XRX_WHY_TABLE(XRX_WHY_ROW) };

#define XRX_WHY_ROWS (sizeof(xrx_why_rows) / sizeof(xrx_why_rows[0]))

const __u32 xrx_why_nr_rows = XRX_WHY_ROWS;

const char *const xrx_why_kind_words[] = {
	[XRX_WHY_NONE] = "delivered",
	[XRX_WHY_FLUSHED] = "flushed",
	[XRX_WHY_ENDED] = "ended",
	[XRX_WHY_NOT_MERGED] = "not merged",
};

/*
 * The Internet sum of bytes [off, off + len) of a packet, head then
 * frags; a piece that starts at an odd offset counts byte-swapped, as
 * csum_block_add() does. False if the packet is shorter.
 */
static bool xrx_why_pkt_sum(const struct xrx_pkt *p, __u32 off, __u32 len,
			    __u32 *sum)
{
	__u32 pos = 0, plen = p->head_len, i = 0, lo, hi;
	const __u8 *base = p->head;
	__u16 h;

	for (;;) {
		lo = off > pos ? off : pos;
		hi = off + len < pos + plen ? off + len : pos + plen;
		if (lo < hi) {
			h = xrx_csum_fold(xrx_csum_add(base + (lo - pos),
						       hi - lo, 0));
			if ((lo - off) & 1)
				h = (__u16)(h << 8 | h >> 8);
			*sum = xrx_csum_fold(*sum) + h;
		}
		pos += plen;
		if (pos >= off + len)
			return true;
		if (i == p->nr_frags)
			return false;
		base = p->frags[i].data;
		plen = p->frags[i++].len;
	}
}

__u32 xrx_why_ip(const struct xrx_pkt *p, __u32 l3)
{
	if (!l3 || l3 + XRX_IPH_LEN > p->head_len)
		return 0;
	switch (p->head[l3] >> 4) {
	case 4:
		return XF_V4;
	case 6:
		return l3 + XRX_IP6H_LEN <= p->head_len ? XF_V6 : 0;
	default:
		return 0;
	}
}

/*
 * Which checksum made a frame csum_bad, in the order the engine checks
 * them (engine.c, tunnel.c): a VXLAN frame's outer IPv4 header and UDP
 * sum, then the IPv4 header of @facts's packet; else its L4 sum, whose
 * facts @facts already are.
 */
static __u32 xrx_why_csum(const struct xrx_pkt *p, __u32 facts)
{
	__u32 o3 = p->outer_l3_off, o4 = p->outer_l4_off, ulen, sum;
	const __u8 *oh = p->head + o3;
	__u32 outer;

	if (p->outer_l3_off) {
		outer = xrx_why_ip(p, o3);
		if (outer == XF_V4 && !xrx_ipv4_csum_ok(oh))
			return XF_V4 | XF_IPSUM;
		if (outer && o4 + XRX_UDPH_LEN <= p->head_len &&
		    xrx_get16(p->head + o4 + XRX_UDPH_CHECK)) {
			ulen = xrx_get16(p->head + o4 + XRX_UDPH_LEN_OFF);
			sum = xrx_csum_pseudo(oh, outer == XF_V6,
					      XRX_IPPROTO_UDP, ulen);
			if (xrx_why_pkt_sum(p, o4, ulen, &sum) &&
			    xrx_csum_fold(sum) != 0xffff)
				return outer | XF_OUTER;
		}
	}
	if ((facts & XF_V4) && !xrx_ipv4_csum_ok(p->head + p->l3_off))
		return XF_V4 | XF_IPSUM;
	return facts;
}

/* A VXLAN packet's reason that is about its outer IP header. */
static bool xrx_why_outer(int stat)
{
	switch (stat) {
	case XRX_ENGINE_STAT_FLUSH_OUTER_TTL:
	case XRX_ENGINE_STAT_FLUSH_OUTER_TOS:
	case XRX_ENGINE_STAT_FLUSH_OUTER_DF:
	case XRX_ENGINE_STAT_FLUSH_OUTER_IPID:
		return true;
	default:
		return false;
	}
}

/* What the rows may ask of @p, for its reason @stat. */
static __u32 xrx_why_facts(const struct xrx_pkt *p, int stat)
{
	__u32 f, l4 = p->l4_off;

	if (xrx_why_outer(stat))
		return xrx_why_ip(p, p->outer_l3_off) | XF_UDP | XF_TNL;
	f = xrx_why_ip(p, p->l3_off);
	if (p->outer_l3_off)
		f |= XF_TNL;
	if (f && l4 && p->l4_proto == XRX_IPPROTO_TCP &&
	    l4 + XRX_TCPH_LEN <= p->head_len)
		f |= XF_TCP | (__u32)p->head[l4 + XRX_TCPH_FLAGS] << 8;
	else if (f && l4 && p->l4_proto == XRX_IPPROTO_UDP)
		f |= XF_UDP;
	if (stat == XRX_ENGINE_STAT_CSUM_BAD)
		f = xrx_why_csum(p, f) | (f & XF_TNL);
	return f;
}

int xrx_why_row(const struct xrx_pkt *p)
{
	int stat = p->reason, last = -1;
	__u32 facts = 0, i;
	bool known = false;

	for (i = 0; i < XRX_WHY_ROWS; i++) {
		if (xrx_why_rows[i].stat != stat)
			continue;
		if (!known) {
			facts = xrx_why_facts(p, stat);
			known = true;
		}
		if ((xrx_why_rows[i].match & facts) == xrx_why_rows[i].match)
			return (int)i;
		last = (int)i;
	}
	return last;
}

static void xrx_why_fill(int row, struct xrx_why *why)
{
	const struct xrx_why_row *r = &xrx_why_rows[row];

	why->stat = r->stat;
	why->kind = r->kind;
	why->full = r->full;
	why->what = r->what;
	why->func = r->func;
}

int xrx_pkt__why(const struct xrx_pkt *pkt, struct xrx_why *why)
{
	int row = xrx_why_row(pkt);

	memset(why, 0, sizeof(*why));
	why->stat = pkt->reason;
	if (row < 0)
		return -EINVAL;
	xrx_why_fill(row, why);
	return 0;
}

/*
 * Text built by hand, not by snprintf(): the pcap sink writes one
 * explanation per packet on the live path, and this costs a tenth of
 * what formatting does. The caller's @end is one before the buffer's end.
 */
static char *xrx_put_str(char *p, const char *end, const char *s)
{
	while (*s && p < end)
		*p++ = *s++;
	return p;
}

static char *xrx_put_u32(char *p, const char *end, __u32 v)
{
	char d[10];
	int n = 0;

	do
		d[n++] = '0' + v % 10;
	while ((v /= 10));
	while (n && p < end)
		*p++ = d[--n];
	return p;
}

/*
 * "KIND: WHAT (FUNC)" of a row at @p; the size limit names @max_aggregate
 * and the segment limit the segments (@segs) it stopped at.
 */
static char *xrx_why_put(char *p, const char *end, int row,
			 __u32 max_aggregate, __u32 segs)
{
	const struct xrx_why_row *r = &xrx_why_rows[row];

	p = xrx_put_str(p, end, xrx_why_kind_words[r->kind]);
	p = xrx_put_str(p, end, ": ");
	p = xrx_put_str(p, end, r->what);
	if (r->stat == XRX_ENGINE_STAT_FLUSH_SIZE && max_aggregate) {
		p = xrx_put_str(p, end, " ");
		p = xrx_put_u32(p, end, max_aggregate);
	} else if (r->stat == XRX_ENGINE_STAT_COMPLETE_SEGS) {
		p = xrx_put_str(p, end, " ");
		p = xrx_put_u32(p, end, segs);
	}
	p = xrx_put_str(p, end, " (");
	p = xrx_put_str(p, end, r->func);
	return xrx_put_str(p, end, ")");
}

void xrx_why_format(int row, __u32 max_aggregate, __u32 segs, char *buf,
		    size_t size)
{
	*xrx_why_put(buf, buf + size - 1, row, max_aggregate, segs) = '\0';
}

int xrx_pkt__explain(const struct xrx_pkt *pkt, __u32 max_aggregate,
		     char *buf, size_t size)
{
	int row = xrx_why_row(pkt);
	const char *end = buf + size - 1, *name;
	char *p = buf;

	if (!size)
		return 0;
	p = xrx_put_u32(p, end, pkt->gso_segs);
	p = xrx_put_str(p, end, pkt->gso_segs == 1 ? " seg; " : " segs; ");
	if (row >= 0) {
		p = xrx_why_put(p, end, row, max_aggregate, pkt->gso_segs);
	} else {
		name = xrx_engine_stat__name(pkt->reason);
		p = xrx_put_str(p, end, "delivered (");
		p = xrx_put_str(p, end, name ? name : "no reason");
		p = xrx_put_str(p, end, ")");
	}
	*p = '\0';
	return (int)(p - buf);
}
