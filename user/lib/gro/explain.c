// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Why a delivered packet ended, in words, and per flow what that cost
 * (include/xrx/explain.h).
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

/*
 * What a row asks of the packet, and what xrx_why_facts() finds: the IP
 * version and transport of the header the reason is about (the outer one
 * for flush_outer_*), the TCP flags, and for csum_bad which sum failed.
 */
enum {
	XF_V4 = 1 << 0,
	XF_V6 = 1 << 1,
	XF_TCP = 1 << 2,
	XF_UDP = 1 << 3,
	XF_TNL = 1 << 4,	/* VXLAN or GENEVE */
	XF_IPSUM = 1 << 5,	/* csum_bad: an IPv4 header's sum */
	XF_OUTER = 1 << 6,	/* csum_bad: the outer UDP sum */
	XF_FIN = 1 << 8,	/* TCP flags, XRX_TH_* << 8 */
	XF_SYN = 1 << 9,
	XF_RST = 1 << 10,
	XF_PSH = 1 << 11,
	XF_URG = 1 << 13,
	XF_CWR = 1 << 15,
};

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

struct xrx_why_row {
	__u16 stat;
	__u16 match;
	__u8 kind;
	bool full;
	const char *what;
	const char *func;
};

#define XRX_WHY_ROW(e, m, k, f, w, fn)                                        \
	{ .stat = XRX_ENGINE_STAT_##e, .match = (m), .kind = (k), .full = (f), \
	  .what = (w), .func = (fn) },

static const struct xrx_why_row xrx_why_rows[] = { XRX_WHY_TABLE(XRX_WHY_ROW) };

#define XRX_WHY_ROWS (sizeof(xrx_why_rows) / sizeof(xrx_why_rows[0]))

/* Words of the kinds, as the comments and the summary print them. */
static const char *const xrx_why_kind_words[] = {
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

/* XF_V4 or XF_V6 for the IP header at @l3 of @p, 0 if there is none. */
static __u32 xrx_why_ip(const struct xrx_pkt *p, __u32 l3)
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

/* The row for @p, or -1 if its reason is not one. */
static int xrx_why_row(const struct xrx_pkt *p)
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

static void xrx_why_format(int row, __u32 max_aggregate, __u32 segs,
			   char *buf, size_t size)
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

/* ---- the per-flow summary ---------------------------------------------- */

#define XRX_FLOW_NAME 112

/* One reason in one flow: packets that ended with it, and their cost. */
struct xrx_explain_cnt {
	__u32 row;
	__u32 segs;		/* segments of the first such packet */
	__u64 pkts;
	__u64 cost;
};

/* How the last packet with payload of a flow ended, for the next one. */
enum {
	XRX_LAST_FULL,		/* at a limit: nothing more fitted */
	XRX_LAST_ROOM,		/* held, and ended with room left */
	XRX_LAST_NEVER,		/* delivered alone, as it never merges */
};

struct xrx_explain_flow {
	char name[XRX_FLOW_NAME];
	__u64 segs_in;
	__u64 pkts_out;
	__u64 aggs_out;
	__u64 cost;
	int last_row;		/* of its last packet with payload; -1 */
	int last;		/* XRX_LAST_* of that packet */
	__u32 nr_cnt;
	__u32 cap_cnt;
	struct xrx_explain_cnt *cnt;
};

struct xrx_explain {
	__u32 max_aggregate;
	__u32 nr_flows;
	__u32 cap_flows;
	struct xrx_explain_flow *flows;
	__u32 *slots;		/* open addressing: flow index + 1, 0 free */
	__u32 nr_slots;		/* a power of two, at least 2 x nr_flows */
	__u64 unexplained;	/* packets whose reason is not one */
};

struct xrx_explain *xrx_explain__new(__u32 max_aggregate)
{
	struct xrx_explain *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->max_aggregate = max_aggregate;
	return x;
}

void xrx_explain__free(struct xrx_explain *x)
{
	__u32 i;

	if (!x)
		return;
	for (i = 0; i < x->nr_flows; i++)
		free(x->flows[i].cnt);
	free(x->flows);
	free(x->slots);
	free(x);
}

/*
 * The Ethernet header whose tags and type pkt->nr_vlans describes: the
 * frame's, or inside VXLAN the inner one (struct xrx_pkt).
 */
static __u32 xrx_flow_mac(const struct xrx_pkt *p)
{
	return p->outer_l3_off ? p->inner_mac_off : 0;
}

/* Append "vlan A[.B] " for the tags of @p (a stripped one first). */
static size_t xrx_flow_vlans(const struct xrx_pkt *p, char *buf, size_t size)
{
	__u32 i, tci = XRX_ETH_HLEN + xrx_flow_mac(p);
	size_t n = 0;

	if (p->vlan_proto)
		n += snprintf(buf + n, size - n, "vlan %u", p->vlan_tci & 0xfff);
	for (i = 0; i < p->nr_vlans && tci + 2 <= p->head_len && n < size;
	     i++, tci += 4)
		n += snprintf(buf + n, size - n, "%s%u", n ? "." : "vlan ",
			      xrx_get16(p->head + tci) & 0xfff);
	if (n && n < size)
		n += snprintf(buf + n, size - n, " ");
	return n < size ? n : size - 1;
}

/*
 * What @p's flow prints as: "198.18.0.1:40000 > 198.18.0.2:5201 tcp",
 * IPv6 addresses in brackets, after its VLAN tags and with its VXLAN
 * VNI; "198.18.0.1 > 198.18.0.2 proto 1" without ports; "ethertype
 * 0x0806" for what is not IP.
 */
static void xrx_flow_name(const struct xrx_pkt *p, char *buf, size_t size)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	__u32 ip = xrx_why_ip(p, p->l3_off), l3 = p->l3_off, l4 = p->l4_off;
	__u32 et = xrx_flow_mac(p) + XRX_ETH_HLEN - 2 + 4 * p->nr_vlans, vxh;
	const char *proto = p->l4_proto == XRX_IPPROTO_TCP ? "tcp" :
			    p->l4_proto == XRX_IPPROTO_UDP ? "udp" : NULL;
	size_t n = xrx_flow_vlans(p, buf, size);

	if (!ip) {
		if (et + 2 <= p->head_len)
			snprintf(buf + n, size - n, "ethertype 0x%04x",
				 xrx_get16(p->head + et));
		else
			snprintf(buf + n, size - n, "frame of %u bytes",
				 p->len);
		return;
	}
	if (ip == XF_V4) {
		inet_ntop(AF_INET, p->head + l3 + XRX_IPH_SADDR, s, sizeof(s));
		inet_ntop(AF_INET, p->head + l3 + XRX_IPH_DADDR, d, sizeof(d));
	} else {
		inet_ntop(AF_INET6, p->head + l3 + XRX_IP6H_SADDR, s, sizeof(s));
		inet_ntop(AF_INET6, p->head + l3 + XRX_IP6H_DADDR, d, sizeof(d));
	}
	if (proto && l4 && l4 + 4 <= p->head_len)
		n += snprintf(buf + n, size - n, ip == XF_V4 ? "%s:%u > %s:%u %s" :
				     "[%s]:%u > [%s]:%u %s",
			      s, xrx_get16(p->head + l4), d,
			      xrx_get16(p->head + l4 + 2), proto);
	else
		n += snprintf(buf + n, size - n, "%s > %s proto %u", s, d,
			      p->l4_proto);
	/* Both kinds have the VNI at 4; only GENEVE of protocol type
	 * ETH_P_TEB gets this far, where VXLAN has reserved zeros. */
	vxh = p->outer_l4_off + XRX_UDPH_LEN;
	if (p->outer_l3_off && n < size && vxh + 8 <= p->head_len)
		snprintf(buf + n, size - n, " in %s %u",
			 xrx_get16(p->head + vxh + XRX_GENEVE_PROTO) ==
					 XRX_ETH_P_TEB ?
				 "geneve" : "vxlan",
			 xrx_get32(p->head + vxh + 4) >> 8);
}

/* FNV-1a: the names are ours, not the network's to choose freely. */
static __u32 xrx_flow_hash(const char *name)
{
	__u32 h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (__u8)*name) * 16777619u;
	return h;
}

static int xrx_flow_slots_grow(struct xrx_explain *x)
{
	__u32 n = x->nr_slots ? 2 * x->nr_slots : 64, i, j;
	__u32 *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < x->nr_flows; i++) {
		j = xrx_flow_hash(x->flows[i].name) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = i + 1;
	}
	free(x->slots);
	x->slots = slots;
	x->nr_slots = n;
	return 0;
}

static struct xrx_explain_flow *xrx_flow_get(struct xrx_explain *x,
					     const char *name)
{
	struct xrx_explain_flow *f;
	__u32 j;

	if (2 * (x->nr_flows + 1) > x->nr_slots && xrx_flow_slots_grow(x))
		return NULL;
	j = xrx_flow_hash(name) & (x->nr_slots - 1);
	for (; x->slots[j]; j = (j + 1) & (x->nr_slots - 1))
		if (!strcmp(x->flows[x->slots[j] - 1].name, name))
			return &x->flows[x->slots[j] - 1];
	if (x->nr_flows == x->cap_flows) {
		__u32 cap = x->cap_flows ? 2 * x->cap_flows : 16;

		f = realloc(x->flows, cap * sizeof(*f));
		if (!f)
			return NULL;
		x->flows = f;
		x->cap_flows = cap;
	}
	f = &x->flows[x->nr_flows];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->last_row = -1;
	x->slots[j] = ++x->nr_flows;
	return f;
}

static struct xrx_explain_cnt *xrx_flow_cnt(struct xrx_explain_flow *f,
					    int row, __u32 segs)
{
	struct xrx_explain_cnt *c;
	__u32 i;

	for (i = 0; i < f->nr_cnt; i++)
		if (f->cnt[i].row == (__u32)row)
			return &f->cnt[i];
	if (f->nr_cnt == f->cap_cnt) {
		__u32 cap = f->cap_cnt ? 2 * f->cap_cnt : 4;

		c = realloc(f->cnt, cap * sizeof(*c));
		if (!c)
			return NULL;
		f->cnt = c;
		f->cap_cnt = cap;
	}
	c = &f->cnt[f->nr_cnt++];
	memset(c, 0, sizeof(*c));
	c->row = row;
	c->segs = segs;
	return c;
}

/* Payload bytes of a TCP or UDP packet as it was delivered, else 0. */
static __u32 xrx_why_payload(const struct xrx_pkt *p)
{
	__u32 hdr = p->l4_off;

	if (!hdr || !xrx_why_ip(p, p->l3_off))
		return 0;
	if (p->l4_proto == XRX_IPPROTO_TCP && hdr + XRX_TCPH_LEN <= p->head_len)
		hdr += (p->head[hdr + XRX_TCPH_DOFF] >> 4) * 4;
	else if (p->l4_proto == XRX_IPPROTO_UDP)
		hdr += XRX_UDPH_LEN;
	else
		return 0;
	return p->len > hdr ? p->len - hdr : 0;
}

/*
 * Whether a held packet ended with room for one more segment of its
 * size: skb_gro_receive()'s limit, counted as the engine counts it (from
 * the end of the Ethernet header, in-band tags included; inside VXLAN
 * from the outer IP header, and 64 KiB there and for UDP).
 */
static bool xrx_why_room(const struct xrx_explain *x, const struct xrx_pkt *p,
			 int row, __u32 payload)
{
	__u32 limit = x->max_aggregate ? x->max_aggregate : XRX_AGGREGATE_DEFAULT;
	__u32 held, mss = p->gso_segs >= 2 ? p->gso_size : payload;

	if (xrx_why_rows[row].full)
		return false;
	held = p->outer_l3_off ? p->len - p->outer_l3_off :
				 p->len - XRX_ETH_HLEN;
	if ((p->outer_l3_off || p->l4_proto != XRX_IPPROTO_TCP) &&
	    limit > XRX_AGGREGATE_DEFAULT)
		limit = XRX_AGGREGATE_DEFAULT;
	return held + mss < limit;
}

/*
 * Every packet of a flow after its first splits the flow once more, and
 * the split is charged to one reason: none if the packet before ended
 * full (the limits are no cost), else the later packet's if it is a
 * frame that never merges (a bad checksum, SYN, ...), else the earlier
 * packet's. Packets without payload are counted but split nothing: they
 * could never have merged.
 */
int xrx_explain__add(struct xrx_explain *x, const struct xrx_pkt *pkt)
{
	int row = xrx_why_row(pkt), charge;
	struct xrx_explain_flow *f;
	struct xrx_explain_cnt *c;
	char name[XRX_FLOW_NAME];
	__u32 payload;
	bool never;

	xrx_flow_name(pkt, name, sizeof(name));
	f = xrx_flow_get(x, name);
	if (!f)
		return -ENOMEM;
	f->segs_in += pkt->gso_segs;
	f->pkts_out++;
	f->aggs_out += pkt->gso_segs >= 2;
	if (row < 0) {
		x->unexplained++;
		return 0;
	}
	c = xrx_flow_cnt(f, row, pkt->gso_segs);
	if (!c)
		return -ENOMEM;
	c->pkts++;
	payload = xrx_why_payload(pkt);
	if (!payload)
		return 0;
	never = xrx_why_rows[row].kind == XRX_WHY_NOT_MERGED;
	if (f->last_row >= 0 && f->last != XRX_LAST_FULL) {
		charge = never ? row : f->last_row;
		c = xrx_flow_cnt(f, charge, 0);
		if (!c)
			return -ENOMEM;
		c->cost++;
		f->cost++;
	}
	f->last_row = row;
	f->last = never ? XRX_LAST_NEVER :
		  xrx_why_room(x, pkt, row, payload) ? XRX_LAST_ROOM :
						       XRX_LAST_FULL;
	return 0;
}

/* Most cost first, then most packets, then in table order. */
static int xrx_cnt_cmp(const void *a, const void *b)
{
	const struct xrx_explain_cnt *x = a, *y = b;

	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	if (x->pkts != y->pkts)
		return x->pkts > y->pkts ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

static int xrx_flow_cmp(const void *a, const void *b)
{
	const struct xrx_explain_flow *x = *(const struct xrx_explain_flow **)a;
	const struct xrx_explain_flow *y = *(const struct xrx_explain_flow **)b;

	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	if (x->segs_in != y->segs_in)
		return x->segs_in > y->segs_in ? -1 : 1;
	return x < y ? -1 : x > y;	/* the order they came in */
}

static void xrx_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* One flow's (or all flows') figures and reasons; @cnt gets sorted. */
static void xrx_explain_print_one(const struct xrx_explain *x, FILE *out,
				  bool json, const char *name,
				  const struct xrx_explain_flow *f,
				  struct xrx_explain_cnt *cnt, __u32 nr)
{
	double per = f->pkts_out ? (double)f->segs_in / f->pkts_out : 0;
	const struct xrx_why_row *r;
	char text[XRX_EXPLAIN_MAX];
	__u32 i;

	qsort(cnt, nr, sizeof(*cnt), xrx_cnt_cmp);
	if (json) {
		fprintf(out, "{\"flow\": ");
		xrx_json_str(out, name);
		fprintf(out, ", \"segs_in\": %llu, \"pkts_out\": %llu, \"aggs_out\": %llu, \"segs_per_pkt\": %.2f, \"cost\": %llu, \"reasons\": [",
			(unsigned long long)f->segs_in,
			(unsigned long long)f->pkts_out,
			(unsigned long long)f->aggs_out, per,
			(unsigned long long)f->cost);
	} else {
		fprintf(out, "%s: %llu segment%s in, %llu packet%s out, %.2f segments per packet\n",
			name, (unsigned long long)f->segs_in,
			f->segs_in == 1 ? "" : "s",
			(unsigned long long)f->pkts_out,
			f->pkts_out == 1 ? "" : "s", per);
		if (nr)
			fprintf(out, "  %8s %8s  %s\n", "cost", "packets", "why");
	}
	for (i = 0; i < nr; i++) {
		r = &xrx_why_rows[cnt[i].row];
		xrx_why_format(cnt[i].row, x->max_aggregate, cnt[i].segs, text,
			       sizeof(text));
		if (!json) {
			fprintf(out, "  %8llu %8llu  %s  [%s]\n",
				(unsigned long long)cnt[i].cost,
				(unsigned long long)cnt[i].pkts, text,
				xrx_engine_stat__name(r->stat));
			continue;
		}
		fprintf(out, "%s{\"reason\": \"%s\", \"kind\": \"%s\", \"text\": ",
			i ? ", " : "", xrx_engine_stat__name(r->stat),
			xrx_why_kind_words[r->kind]);
		xrx_json_str(out, text);
		fprintf(out, ", \"func\": \"%s\", \"packets\": %llu, \"cost\": %llu}",
			r->func, (unsigned long long)cnt[i].pkts,
			(unsigned long long)cnt[i].cost);
	}
	if (json)
		fprintf(out, "]}");
}

int xrx_explain__print(const struct xrx_explain *x, FILE *out, bool json)
{
	const struct xrx_explain_flow **order;
	struct xrx_explain_flow sum = { .last_row = -1 };
	struct xrx_explain_cnt *all, *c;
	__u32 i, j, nr = 0;
	char name[64];
	int ret = 0;

	/* a scratch copy of a flow's reasons fits in all[] to be sorted */
	all = calloc(XRX_WHY_ROWS, sizeof(*all));
	order = calloc(x->nr_flows + 1, sizeof(*order));
	if (!all || !order) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < x->nr_flows; i++) {
		const struct xrx_explain_flow *f = &x->flows[i];

		order[i] = f;
		sum.segs_in += f->segs_in;
		sum.pkts_out += f->pkts_out;
		sum.aggs_out += f->aggs_out;
		sum.cost += f->cost;
		for (j = 0; j < f->nr_cnt; j++) {
			c = &all[f->cnt[j].row];
			if (!c->pkts && !c->cost)
				c->segs = f->cnt[j].segs;
			c->pkts += f->cnt[j].pkts;
			c->cost += f->cnt[j].cost;
		}
	}
	/* the rows that occurred, packed */
	for (i = 0; i < XRX_WHY_ROWS; i++) {
		if (!all[i].pkts && !all[i].cost)
			continue;
		all[i].row = i;
		all[nr++] = all[i];
	}
	qsort(order, x->nr_flows, sizeof(*order), xrx_flow_cmp);
	snprintf(name, sizeof(name), json ? "all" : "all %u flow%s",
		 x->nr_flows, x->nr_flows == 1 ? "" : "s");
	if (json)
		fprintf(out, "{\"flows_seen\": %u, \"unexplained\": %llu, \"total\": ",
			x->nr_flows, (unsigned long long)x->unexplained);
	else
		fprintf(out, "Why GRO ended each packet. cost: packets it added, each a segment that would\n"
			"otherwise have merged into the packet before it (limits cost nothing)\n");
	xrx_explain_print_one(x, out, json, name, &sum, all, nr);
	if (json)
		fprintf(out, ", \"flows\": [");
	for (i = 0; i < x->nr_flows; i++) {
		const struct xrx_explain_flow *f = order[i];

		if (json)
			fprintf(out, "%s", i ? ", " : "");
		else
			fprintf(out, "\nflow ");
		/* a flow has at most one entry per row */
		memcpy(all, f->cnt, f->nr_cnt * sizeof(*all));
		xrx_explain_print_one(x, out, json, f->name, f, all,
				      f->nr_cnt);
	}
	if (json)
		fprintf(out, "]}");
	else if (x->unexplained)
		fprintf(out, "\n%llu packet(s) without a reason counter\n",
			(unsigned long long)x->unexplained);
	if (ferror(out))
		ret = -EIO;
out:
	free(all);
	free(order);
	return ret;
}
