// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The TUN sink: delivered packets go into the kernel stack through a TUN
 * device, aggregates as GSO packets described by a virtio_net_hdr, so the
 * stack takes one 64 KiB TCP packet where it would have taken 45 frames.
 *
 * "tun:NAME[,gso|,nogso]" attaches to TUN device NAME in the caller's
 * network namespace, creating it (gone again on close) if it does not
 * exist, and sets it up. Addresses and routes are the user's: give the
 * TUN the address the accelerated traffic is sent to.
 *
 * L3, not L2. The device is IFF_TUN | IFF_NO_PI: the packet is written
 * from its IP header, tun_get_user() picks the protocol from the version
 * nibble, and the stack accepts it by address alone. IFF_TAP would need
 * every frame's destination MAC rewritten to the TAP's own (or the TAP
 * to carry the receiving NIC's MAC) and VLAN devices on the TAP for
 * tagged traffic; what L2 carries is not needed past this point. So all
 * virtio_net_hdr offsets are relative to the IP header, and VLAN tags
 * are not passed on.
 *
 * What the kernel accepts, probed at open: TUNSETOFFLOAD refuses a flag
 * it does not know (set_offload()), so each of TUN_F_CSUM, TSO4, TSO6,
 * TSO_ECN and USO4|USO6 (Linux 6.2+) is tried alone. An aggregate whose
 * GSO type was refused (UDP on a kernel without USO), or every aggregate
 * with ",nogso" / opts->tun_no_gso, is written cut back into its
 * segments with the headers tcp_gso_segment()/__udp_gso_segment() would
 * give them (vnet.c); the first such packet logs one line.
 *
 * Size (BIG TCP, IP length above 65535). Measured on Linux 6.18: a TCPv4
 * aggregate of up to 512 KiB with tot_len 0 goes in whole and reaches the
 * socket intact (ip_rcv_core() takes the length from the skb through
 * iph_totlen(), Linux 6.3+). A TCPv6 one with payload_len 0 and no
 * hop-by-hop jumbo option, the form the engine delivers by default, is
 * accepted by the TUN write and then dropped by the IPv6 input of 6.x
 * (counted in Ip6InHdrErrors; no byte reaches the socket), which takes
 * payload_len 0 only with an RFC 2675 jumbo option after the IPv6
 * header (ipv6_hop_jumbo() then takes the length from it; mainline 7.0
 * reads the length from the skb and has no option). So the sink
 * writes a TCPv6 aggregate above 64 KiB as opts->tun_ipv6_jumbo says:
 * "hbh" (the default before Linux 7.0, from uname) inserts the 8 bytes
 * Linux 6.x's own ipv6_gro_complete() inserts, in the write's header
 * iovec (payload_len 0, next header 0, then next header TCP, type 0xC2,
 * length 4, the payload length counted from the option), and the packet
 * goes in whole; "zero" writes it as it is (7.0); "split" writes GSO
 * pieces of at most 65535 bytes of IP length, cut at segment boundaries,
 * which every kernel takes. An aggregate the engine already built with
 * the option (xrx_engine_opts.ipv6_jumbo) is written whole as it is, or,
 * where it has to be cut (,nogso, too many iovecs), in pieces without
 * it, as ipv6_gso_segment() cuts one. Counted: big_whole (jumbo_writes
 * those with the option inserted here) and big_split.
 * Linux 6.1's tun_alloc_skb() also refuses writes past MAX_SKB_FRAGS
 * order-0 pages (68 KiB) with EMSGSIZE. IPv4 aggregates go whole on
 * 6.3+ and in pieces on older kernels.
 *
 * "tap:NAME[,gso|,nogso]" is the same at L2 (IFF_TAP): the packet is
 * written from its Ethernet header, MAC addresses and VLAN tags kept, and
 * a tag the NIC stripped (xrx_pkt.vlan_proto/vlan_tci) is put back in
 * front of the EtherType; virtio_net_hdr offsets then count from the
 * frame start, tag included. The stack takes the frames as arriving on
 * the TAP: give it the receiving NIC's MAC (or make it promiscuous) and
 * put VLAN devices on it for tagged traffic.
 *
 * VXLAN (packets with outer headers, xrx_engine_opts.vxlan_ports). A
 * single goes in as received, from its outer IP header (tun) or frame
 * start (tap), for the host's VXLAN socket to take. An aggregate goes
 * whole as GSO over a UDP tunnel (the 24-byte virtio_net_hdr of Linux
 * 6.17+, vnet.h) where the kernel takes that: TUNSETOFFLOAD accepts
 * TUN_F_UDP_TUNNEL_GSO, the sink is tap (6.18's
 * virtio_net_hdr_tnl_to_skb() wants ETH_HLEN before the outer IP header,
 * so no IFF_TUN write passes; measured: EINVAL), GSO is on and the host is
 * little-endian. Otherwise it is cut into full VXLAN packets as the
 * kernel's GSO would (xrx_vnet_tnl_seg()), and the first logs one line
 * saying why. Counted in tunnel_whole / tunnel_segmented.
 *
 * Cost. One writev() per packet (TUN has no batched write); no payload
 * copy in userspace: the iovecs point at the head buffer and the frags
 * in the UMEM. The kernel copies once into its skb, as for any write.
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>

#include <xrx/engine.h>
#include <xrx/sink.h>
#include "sink/tun.h"
#include "sink/vnet.h"

#define TUN_DEV "/dev/net/tun"
#define TUN_IOVS 1024			/* UIO_MAXIOV */

struct tun_sink {
	int fd;
	bool tap;			/* IFF_TAP: from the Ethernet header */
	bool gso;			/* write aggregates as GSO */
	bool csum;			/* TUN_F_CSUM: partial sums taken */
	bool warned;			/* the one fallback log line */
	bool big4;			/* IPv4 tot_len 0 taken (6.3+) */
	enum xrx_tun_ipv6_jumbo jumbo;	/* resolved: never AUTO */
	__u32 offloads;			/* TUN_F_* accepted */
	struct xrx_tun_info info;
	union {				/* vnet_sz bytes of it are written */
		struct virtio_net_hdr vh;
		struct xrx_vnet_hdr_tnl vht;	/* GSO over a UDP tunnel */
	};
	__u32 vnet_sz;			/* TUNSETVNETHDRSZ: 10, or 24 */
	bool tnl_gso;			/* VXLAN aggregates written whole */
	bool tnl_warned;		/* ... or the one line saying why not */
	const char *tnl_why;
	__u8 tag[4];			/* tap: the stripped VLAN tag */
	__u8 hdr[XRX_HEAD_SIZE + 4 + XRX_HBH_JUMBO_LEN];
					/* headers of a piece (+ tag), or of
					 * a jumbo write (+ tag + option) */
	struct iovec iov[TUN_IOVS];
};

/* Does the kernel take this aggregate's GSO type from us? */
static bool tun_type_ok(const struct tun_sink *t, const struct xrx_pkt *pkt)
{
	switch (pkt->gso_type) {
	case XRX_GSO_TCPV4:
		return t->offloads & TUN_F_TSO4;
	case XRX_GSO_TCPV6:
		return t->offloads & TUN_F_TSO6;
	case XRX_GSO_UDP_L4:
		return (t->offloads & (TUN_F_USO4 | TUN_F_USO6)) ==
		       (TUN_F_USO4 | TUN_F_USO6);
	default:
		return false;
	}
}

static int tun_writev(struct tun_sink *t, int cnt)
{
	ssize_t n;

	do {
		n = writev(t->fd, t->iov, cnt);
	} while (n < 0 && errno == EINTR);
	/* tun_get_user() takes a write whole or not at all */
	return n < 0 ? -errno : 0;
}

/*
 * Where a write starts: the IP header (tun) or the frame (tap). VXLAN:
 * the outer IP header, so the host's VXLAN socket takes it.
 */
static __u32 tun_base(const struct tun_sink *t, const struct xrx_pkt *pkt)
{
	if (t->tap)
		return 0;
	return pkt->outer_l3_off ? pkt->outer_l3_off : pkt->l3_off;
}

/*
 * tap: a tag the NIC stripped goes back at byte 12, so the headers the
 * virtio_net_hdr describes move 4 bytes on. Return: 4 if so, else 0.
 */
static __u32 tun_tag(struct tun_sink *t, const struct xrx_pkt *pkt,
		     struct virtio_net_hdr *vh)
{
	if (!t->tap || !pkt->vlan_proto || pkt->head_len < 12)
		return 0;
	t->tag[0] = pkt->vlan_proto >> 8;
	t->tag[1] = pkt->vlan_proto & 0xff;
	t->tag[2] = pkt->vlan_tci >> 8;
	t->tag[3] = pkt->vlan_tci & 0xff;
	if (vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
		vh->csum_start += 4;
	if (vh->hdr_len)
		vh->hdr_len += 4;
	return 4;
}

/* The packet as it is, from its IP header (tun) or frame start (tap). */
static int tun_write_whole(struct tun_sink *t, const struct xrx_pkt *pkt)
{
	__u32 base = tun_base(t, pkt), tag, off;
	int n, err, first = 1;

	err = xrx_vnet_hdr_from_pkt(pkt, base, &t->vh);
	if (err)
		return err;
	t->iov[0].iov_base = &t->vh;
	t->iov[0].iov_len = t->vnet_sz;
	tag = tun_tag(t, pkt, &t->vh);
	off = base;
	if (tag) {
		t->iov[1].iov_base = pkt->head;
		t->iov[1].iov_len = 12;
		t->iov[2].iov_base = t->tag;
		t->iov[2].iov_len = 4;
		first = 3;
		off = 12;
	}
	n = xrx_vnet_iov(pkt, off, pkt->len - off, t->iov + first,
			 TUN_IOVS - first);
	if (n < 0)
		return n;
	err = tun_writev(t, n + first);
	if (!err) {
		if (pkt->gso_type != XRX_GSO_NONE)
			t->info.gso_writes++;
		else
			t->info.plain_writes++;
	}
	return err;
}

/*
 * An IPv6 TCP aggregate above 64 KiB does not carry the jumbo option yet
 * (the engine's default form): Linux 6.x needs it inserted.
 */
static bool tun_ipv6_has_jumbo(const struct xrx_pkt *pkt)
{
	const __u8 *ip = pkt->head + pkt->l3_off;

	return pkt->head_len >= pkt->l3_off + 40u + XRX_HBH_JUMBO_LEN &&
	       ip[6] == 0 && ip[41] == 0 && ip[42] == 0xc2 && ip[43] == 4;
}

/*
 * The Linux 6.x form written whole: the headers up to the end of the
 * IPv6 header are copied into t->hdr (the tap's stripped tag put back),
 * payload_len and next header set to 0, and the 8-byte hop-by-hop jumbo
 * option appended, as ipv6_gro_complete() builds it; the rest of the
 * packet follows by reference. The TCP pseudo-header sum stays.
 */
static int tun_write_jumbo(struct tun_sink *t, const struct xrx_pkt *pkt)
{
	__u32 base = tun_base(t, pkt), nh = pkt->l3_off + 40u, hlen, tag;
	__u32 jumbo = pkt->len - nh + XRX_HBH_JUMBO_LEN;
	__u8 *ip, *opt;
	int n, err;

	if (pkt->head_len < nh)
		return -EINVAL;
	err = xrx_vnet_hdr_from_pkt(pkt, base, &t->vh);
	if (err)
		return err;
	tag = tun_tag(t, pkt, &t->vh);
	if (tag) {
		memcpy(t->hdr, pkt->head, 12);
		memcpy(t->hdr + 12, t->tag, 4);
		memcpy(t->hdr + 16, pkt->head + 12, nh - 12);
		hlen = nh + 4;
	} else {
		memcpy(t->hdr, pkt->head + base, nh - base);
		hlen = nh - base;
	}
	ip = t->hdr + hlen - 40;
	opt = t->hdr + hlen;
	opt[0] = ip[6];			/* hop_jumbo->nexthdr */
	opt[1] = 0;			/* hdrlen: 8 bytes */
	opt[2] = 0xc2;			/* IPV6_TLV_JUMBO */
	opt[3] = 4;
	opt[4] = jumbo >> 24;
	opt[5] = jumbo >> 16;
	opt[6] = jumbo >> 8;
	opt[7] = jumbo;
	ip[4] = ip[5] = 0;		/* payload_len */
	ip[6] = 0;			/* NEXTHDR_HOP */
	hlen += XRX_HBH_JUMBO_LEN;
	t->vh.csum_start += XRX_HBH_JUMBO_LEN;
	t->vh.hdr_len += XRX_HBH_JUMBO_LEN;
	n = xrx_vnet_iov(pkt, nh, pkt->len - nh, t->iov + 2, TUN_IOVS - 2);
	if (n < 0)
		return n;
	t->iov[0].iov_base = &t->vh;
	t->iov[0].iov_len = t->vnet_sz;
	t->iov[1].iov_base = t->hdr;
	t->iov[1].iov_len = hlen;
	err = tun_writev(t, n + 2);
	if (!err) {
		t->info.gso_writes++;
		t->info.jumbo_writes++;
	}
	return err;
}

/*
 * An aggregate in pieces of at most @per segments (1: plain segments).
 * A piece whose payload needs more iovecs than a writev takes is cut
 * smaller.
 */
static int tun_write_pieces(struct tun_sink *t, const struct xrx_pkt *pkt,
			    __u32 per)
{
	__u32 base = tun_base(t, pkt), nsegs = xrx_vnet_nr_segs(pkt), seg, n;
	__u32 pay_off, pay_len, tag;
	int hlen, cnt, err;

	for (seg = 0; seg < nsegs; seg += n) {
		n = per < nsegs - seg ? per : nsegs - seg;
		for (;;) {
			hlen = xrx_vnet_piece(pkt, base, seg, n, !t->csum,
					      t->hdr, sizeof(t->hdr) - 4, &t->vh,
					      &pay_off, &pay_len);
			if (hlen < 0)
				return hlen;
			cnt = xrx_vnet_iov(pkt, pay_off, pay_len, t->iov + 2,
					   TUN_IOVS - 2);
			if (cnt != -E2BIG || n == 1)
				break;
			n /= 2;
		}
		if (cnt < 0)
			return cnt;
		tag = tun_tag(t, pkt, &t->vh);
		if (tag) {
			memmove(t->hdr + 16, t->hdr + 12, (size_t)hlen - 12);
			memcpy(t->hdr + 12, t->tag, 4);
			hlen += 4;
		}
		t->iov[0].iov_base = &t->vh;
		t->iov[0].iov_len = t->vnet_sz;
		t->iov[1].iov_base = t->hdr;
		t->iov[1].iov_len = (size_t)hlen;
		err = tun_writev(t, cnt + 2);
		if (err)
			return err;
		if (n >= 2)
			t->info.gso_writes++;
		else
			t->info.plain_writes++;
	}
	t->info.split_pkts++;
	return 0;
}

static void tun_warn_fallback(struct xrx_sink *s, struct tun_sink *t,
			      const struct xrx_pkt *pkt)
{
	static const char *const types[] = { "none", "TCPv4", "TCPv6", "UDP" };

	if (t->warned)
		return;
	t->warned = true;
	if (!t->gso)
		fprintf(stderr, "xrx: tun %s: GSO off for this sink: aggregates are written as their segments\n",
			t->info.name);
	else
		fprintf(stderr, "xrx: tun %s: this kernel refuses %s GSO from TUN: those aggregates are written as their segments (UDP needs Linux 6.2+ USO)\n",
			t->info.name,
			types[pkt->gso_type < 4 ? pkt->gso_type : 0]);
}

/* The end of every deliver: count, give the packet back. */
static int tun_done(struct xrx_sink *s, struct xrx_pkt *pkt, int err,
		    __u32 bytes)
{
	if (err) {
		xrx_sink__count(s, XRX_SINK_STAT_ERRORS, 1);
	} else {
		xrx_sink__count(s, XRX_SINK_STAT_PKTS_OUT, 1);
		xrx_sink__count(s, XRX_SINK_STAT_BYTES_OUT, bytes);
	}
	xrx_sink__release(s, pkt);
	return err;
}

static void tun_warn_tnl(struct tun_sink *t)
{
	if (t->tnl_warned || !t->tnl_why)
		return;
	t->tnl_warned = true;
	fprintf(stderr, "xrx: %s %s: VXLAN aggregates are written as their segments: %s\n",
		t->tap ? "tap" : "tun", t->info.name, t->tnl_why);
}

/*
 * Header bytes t->hdr[0, hlen) (from the write's start), then packet
 * bytes [pay_off, pay_off + pay_len) in place, behind vnet_sz bytes of
 * t->vht; a tag the NIC stripped goes back in (tap).
 */
static int tun_write_tnl(struct tun_sink *t, const struct xrx_pkt *pkt,
			 int hlen, __u32 pay_off, __u32 pay_len)
{
	int cnt = xrx_vnet_iov(pkt, pay_off, pay_len, t->iov + 2,
			       TUN_IOVS - 2);

	if (cnt < 0)
		return cnt;
	if (tun_tag(t, pkt, &t->vh)) {
		memmove(t->hdr + 16, t->hdr + 12, (size_t)hlen - 12);
		memcpy(t->hdr + 12, t->tag, 4);
		hlen += 4;
		if (t->vht.outer_th_offset) {
			t->vht.outer_th_offset = htole16(le16toh(t->vht.outer_th_offset) + 4);
			t->vht.inner_nh_offset = htole16(le16toh(t->vht.inner_nh_offset) + 4);
		}
	}
	t->iov[0].iov_base = &t->vht;
	t->iov[0].iov_len = t->vnet_sz;
	t->iov[1].iov_base = t->hdr;
	t->iov[1].iov_len = (size_t)hlen;
	return tun_writev(t, cnt + 2);
}

/*
 * A VXLAN aggregate as full VXLAN packets, one per segment, each as the
 * kernel's GSO would have cut it (xrx_vnet_tnl_seg()): complete
 * checksums, no offload asked of the stack.
 */
static int tun_write_tnl_segs(struct xrx_sink *s, struct tun_sink *t,
			      const struct xrx_pkt *pkt)
{
	__u32 base = tun_base(t, pkt), nsegs = xrx_vnet_nr_segs(pkt), seg;
	__u32 pay_off, pay_len;
	int hlen, err;

	tun_warn_tnl(t);
	for (seg = 0; seg < nsegs; seg++) {
		hlen = xrx_vnet_tnl_seg(pkt, base, seg, t->hdr,
					sizeof(t->hdr) - 4, &pay_off, &pay_len);
		if (hlen < 0)
			return hlen;
		memset(&t->vht, 0, sizeof(t->vht));
		t->vh.flags = VIRTIO_NET_HDR_F_DATA_VALID; /* informational */
		err = tun_write_tnl(t, pkt, hlen, pay_off, pay_len);
		if (err)
			return err;
		xrx_sink__count(s, XRX_SINK_STAT_TNL_SEG_WRITES, 1);
	}
	xrx_sink__count(s, XRX_SINK_STAT_TNL_SEGMENTED, 1);
	return 0;
}

/*
 * A VXLAN packet (outer_l3_off set). A single goes as received; an
 * aggregate whole, GSO over a UDP tunnel, where the kernel takes that
 * (tun_open_tnl()), else as its segments. A whole write the kernel
 * refuses after all turns whole writes off for this sink, with the
 * reason logged, and goes as segments.
 */
static int tun_deliver_vxlan(struct xrx_sink *s, struct tun_sink *t,
			     struct xrx_pkt *pkt)
{
	__u32 hlen = xrx_vnet_hdr_len(pkt);
	int err;

	if (!xrx_vnet_is_tnl(pkt))
		err = tun_write_whole(t, pkt);
	else if (!t->tnl_gso || xrx_vnet_tnl_hdr_from_pkt(pkt, 0, &t->vht))
		err = tun_write_tnl_segs(s, t, pkt);
	else {
		memcpy(t->hdr, pkt->head, hlen);
		err = tun_write_tnl(t, pkt, (int)hlen, hlen, pkt->len - hlen);
		t->vht.outer_th_offset = 0;	/* the next write may be plain */
		t->vht.inner_nh_offset = 0;
		if (!err) {
			xrx_sink__count(s, XRX_SINK_STAT_TNL_WHOLE, 1);
		} else if (err == -EINVAL) {
			t->tnl_gso = false;
			t->info.tnl_gso = false;
			t->tnl_why = "the kernel refused one written whole (EINVAL), so none is any more";
			err = tun_write_tnl_segs(s, t, pkt);
		}
	}
	return tun_done(s, pkt, err, pkt->len - tun_base(t, pkt));
}

static int tun_deliver(struct xrx_sink *s, struct xrx_pkt *pkt)
{
	struct tun_sink *t = s->priv;
	__u8 ver = pkt->head_len > pkt->l3_off ? pkt->head[pkt->l3_off] >> 4 : 0;
	__u32 ip_len = pkt->len - pkt->l3_off, hlen, per;
	enum xrx_sink_stat big_how = XRX_SINK_STAT_MAX;	/* none */
	bool big6, big;
	int err;

	if (pkt->outer_l3_off)		/* VXLAN: the outer headers count */
		return tun_deliver_vxlan(s, t, pkt);
	if (ver != 4 && ver != 6 && !t->tap) {
		/* IFF_TUN carries IP only; the rest was the kernel's to
		 * keep (xrx_rx passes it) */
		xrx_sink__count(s, XRX_SINK_STAT_DROPPED, 1);
		xrx_sink__release(s, pkt);
		return -EPROTONOSUPPORT;
	}
	big6 = ver == 6 && pkt->gso_type == XRX_GSO_TCPV6 &&
	       ip_len - 40 > XRX_VNET_MAX_IP_LEN;
	/* too long for the length field: IPv4 tot_len, IPv6 payload_len */
	big = pkt->gso_type != XRX_GSO_NONE &&
	      (ver == 6 ? ip_len - 40 : ip_len) > XRX_VNET_MAX_IP_LEN;
	if (big6 && tun_ipv6_has_jumbo(pkt) && t->gso && tun_type_ok(t, pkt) &&
	    pkt->nr_frags + 2 <= TUN_IOVS) {
		/* already the 6.x form, whatever tun_ipv6_jumbo says (cut,
		 * below, its pieces lose the option: xrx_vnet_piece()) */
		err = tun_write_whole(t, pkt);
		big_how = XRX_SINK_STAT_BIG_WHOLE;
	} else if (pkt->gso_type == XRX_GSO_NONE) {
		err = tun_write_whole(t, pkt);
	} else if (!t->gso || !tun_type_ok(t, pkt)) {
		tun_warn_fallback(s, t, pkt);
		err = tun_write_pieces(t, pkt, 1);
		big_how = XRX_SINK_STAT_BIG_SPLIT;
	} else if (big6 && t->jumbo == XRX_TUN_IPV6_JUMBO_HBH &&
		   pkt->nr_frags + 2 <= TUN_IOVS) {
		err = tun_write_jumbo(t, pkt);
		if (!err)
			xrx_sink__count(s, XRX_SINK_STAT_JUMBO_WRITES, 1);
		big_how = XRX_SINK_STAT_BIG_WHOLE;
	} else if ((ip_len > XRX_VNET_MAX_IP_LEN &&
		    (ver == 6 ? t->jumbo != XRX_TUN_IPV6_JUMBO_ZERO :
				!t->big4)) ||
		   pkt->nr_frags + 2 > TUN_IOVS) {
		hlen = xrx_vnet_hdr_len(pkt);
		per = hlen && pkt->gso_size ?
			      (XRX_VNET_MAX_IP_LEN - (hlen - pkt->l3_off)) /
				      pkt->gso_size : 1;
		t->info.split_big++;
		err = tun_write_pieces(t, pkt, per ? per : 1);
		big_how = XRX_SINK_STAT_BIG_SPLIT;
	} else {
		err = tun_write_whole(t, pkt);
		big_how = XRX_SINK_STAT_BIG_WHOLE;
	}
	if (!err && big && big_how != XRX_SINK_STAT_MAX)
		xrx_sink__count(s, big_how, 1);
	return tun_done(s, pkt, err, ip_len);
}

/* Each flag alone: set_offload() answers EINVAL for one it does not know. */
static __u32 tun_probe_offloads(int fd)
{
	static const unsigned int probes[] = {
		TUN_F_TSO4, TUN_F_TSO6, TUN_F_TSO_ECN,
		TUN_F_USO4 | TUN_F_USO6,
	};
	__u32 ok = 0, i;

	if (ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM))
		return 0;	/* no partial sums, so no GSO either */
	ok = TUN_F_CSUM;
	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		/* TSO_ECN only counts next to a TSO flag */
		unsigned int f = probes[i] == TUN_F_TSO_ECN ?
					 TUN_F_TSO4 | TUN_F_TSO_ECN : probes[i];

		if (!ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | f))
			ok |= probes[i];
	}
	if (ioctl(fd, TUNSETOFFLOAD, ok))
		return 0;
	return ok;
}

/*
 * GSO over a UDP tunnel (Linux 6.17+): set_offload() takes
 * TUN_F_UDP_TUNNEL_GSO(_CSUM) only next to a plain TSO/USO flag, and
 * refuses it on older kernels. Written whole only where it can pass
 * virtio_net_hdr_tnl_to_skb() (see vnet.h): an L2 write (tap), a
 * little-endian host, GSO on for the sink; then every write carries the
 * 24-byte header (TUNSETVNETHDRSZ is the device's, so every queue's
 * instance decides the same). Otherwise the tunnel flags stay off and
 * t->tnl_why says why VXLAN aggregates go as segments.
 */
static void tun_open_tnl(struct tun_sink *t)
{
	const unsigned int tnl = TUN_F_UDP_TUNNEL_GSO | TUN_F_UDP_TUNNEL_GSO_CSUM;
	int sz = sizeof(struct xrx_vnet_hdr_tnl);
	const char *why = NULL;

	t->vnet_sz = sizeof(struct virtio_net_hdr);
	if (ioctl(t->fd, TUNSETOFFLOAD, t->offloads | tnl)) {
		why = "this kernel's TUN does not take GSO over a UDP tunnel (TUN_F_UDP_TUNNEL_GSO: Linux 6.17+, with TSO)";
	} else {
		t->offloads |= tnl;
		if (!t->gso)
			why = "GSO is off for this sink (,nogso)";
		else if (!t->tap)
			why = "the kernel takes GSO over a UDP tunnel from an L2 write only (virtio_net_hdr_tnl_to_skb() counts an Ethernet header before the outer IP header); write them whole with tap:NAME";
		else if (__BYTE_ORDER != __LITTLE_ENDIAN)
			why = "the tunnel virtio_net_hdr is little-endian and this host is not";
		else if (ioctl(t->fd, TUNSETVNETHDRSZ, &sz))
			why = "TUNSETVNETHDRSZ 24 refused";
		if (why && ioctl(t->fd, TUNSETOFFLOAD, t->offloads & ~tnl) == 0)
			t->offloads &= ~tnl;
	}
	t->tnl_why = why;
	if (why)
		return;
	t->vnet_sz = (__u32)sz;
	t->tnl_gso = true;
}

/* The running kernel is at least @maj.@min (uname). */
static bool tun_kernel_at_least(unsigned int maj, unsigned int min)
{
	struct utsname u;
	unsigned int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return false;
	return major > maj || (major == maj && minor >= min);
}

/*
 * auto: Linux 7.0 takes IPv6 payload_len 0 from the skb's length and no
 * longer builds or expects the jumbo option (ipv6_gro_complete(),
 * ip6_rcv_core()); every kernel before it needs the option.
 */
static enum xrx_tun_ipv6_jumbo tun_jumbo_resolve(enum xrx_tun_ipv6_jumbo j)
{
	if (j != XRX_TUN_IPV6_JUMBO_AUTO)
		return j;
	return tun_kernel_at_least(7, 0) ? XRX_TUN_IPV6_JUMBO_ZERO :
					   XRX_TUN_IPV6_JUMBO_HBH;
}

/*
 * A TUN device that is down refuses writes with EIO: bring it up.
 *
 * SIOC[GS]IFFLAGS reach dev_ioctl() through any socket whose family does
 * not claim them (sock_do_ioctl()), so a netlink socket does: a sandbox
 * that allows only AF_UNIX, AF_NETLINK and AF_XDP (xrxd@.service's
 * RestrictAddressFamilies=) refuses AF_INET with EAFNOSUPPORT.
 */
static int tun_up(const char *name)
{
	struct ifreq ifr = { 0 };
	int sk, err = 0;

	sk = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (sk < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(sk, SIOCGIFFLAGS, &ifr)) {
		err = -errno;
	} else if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(sk, SIOCSIFFLAGS, &ifr))
			err = -errno;
	}
	close(sk);
	return err;
}

/*
 * "NAME[,gso|,nogso]" of a tun: or tap: (@kind) spec: the device into
 * @name (IF_NAMESIZE bytes), ,gso / ,nogso into *@gso. NAME as the
 * kernel takes it (dev_valid_name()): 1 to 15 bytes, not "." or "..",
 * no '/', ':' or blanks. Return: 0, or -EINVAL with one line in @err.
 */
static int tun_parse(const char *kind, const char *arg, char *name, bool *gso,
		     char *err, size_t errlen)
{
	const char *comma = strchr(arg, ','), *c;
	size_t len = comma ? (size_t)(comma - arg) : strlen(arg);
	bool ok = len && len < IF_NAMESIZE;

	for (c = arg; ok && c < arg + len; c++)
		ok = *c != '/' && *c != ':' && !isspace((unsigned char)*c);
	if (!ok || (len == 1 && arg[0] == '.') ||
	    (len == 2 && !strncmp(arg, "..", 2))) {
		snprintf(err, errlen, "%s:%s is not a valid %s name; write %s:NAME[,gso|,nogso] with NAME 1 to %d characters, no '/', ':' or blanks",
			 kind, arg, !strcmp(kind, "tap") ? "TAP" : "TUN", kind,
			 IF_NAMESIZE - 1);
		return -EINVAL;
	}
	memcpy(name, arg, len);
	name[len] = '\0';
	while (comma) {
		const char *opt = comma + 1;

		comma = strchr(opt, ',');
		len = comma ? (size_t)(comma - opt) : strlen(opt);
		if (len == 3 && !strncmp(opt, "gso", 3)) {
			*gso = true;
		} else if (len == 5 && !strncmp(opt, "nogso", 5)) {
			*gso = false;
		} else {
			snprintf(err, errlen, "%s:%s: unknown option '%.*s'; the options are gso and nogso",
				 kind, arg, (int)len, opt);
			return -EINVAL;
		}
	}
	return 0;
}

static int tun_check_kind(const char *kind, const char *arg,
			  const struct xrx_sink_opts *opts, char *out,
			  size_t outlen, char *err, size_t errlen)
{
	char name[IF_NAMESIZE];
	bool gso = true;
	int ret;

	ret = tun_parse(kind, arg, name, &gso, err, errlen);
	if (ret)
		return ret;
	if (opts->tun_flags) {
		snprintf(err, errlen, "%s:%s: tun_flags must be 0", kind, arg);
		return -EINVAL;
	}
	if (outlen)
		snprintf(out, outlen, "%s", name);
	return 0;
}

static int tun_check(const char *arg, const struct xrx_sink_opts *opts,
		     char *out, size_t outlen, char *err, size_t errlen)
{
	return tun_check_kind("tun", arg, opts, out, outlen, err, errlen);
}

static int tap_check(const char *arg, const struct xrx_sink_opts *opts,
		     char *out, size_t outlen, char *err, size_t errlen)
{
	return tun_check_kind("tap", arg, opts, out, outlen, err, errlen);
}

static int tun_open_kind(struct xrx_sink *s, const char *arg,
			 const struct xrx_sink_opts *opts, bool tap)
{
	const char *kind = tap ? "tap" : "tun";
	struct ifreq ifr = { 0 };
	struct tun_sink *t;
	unsigned int features = 0;
	int vnet_sz = sizeof(struct virtio_net_hdr), err;
	char msg[160];

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->fd = -1;
	t->tap = tap;
	t->gso = !opts->tun_no_gso;
	/* xrx_sink__open() ran tun_check_kind() on it: no error here */
	err = tun_parse(kind, arg, t->info.name, &t->gso, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "xrx: %s\n", msg);
		goto fail;
	}
	t->fd = open(TUN_DEV, O_RDWR | O_CLOEXEC);
	if (t->fd < 0) {
		err = -errno;
		fprintf(stderr, "xrx: tun %s: cannot open %s: %s (load the tun module: modprobe tun)\n",
			t->info.name, TUN_DEV, strerror(-err));
		goto fail;
	}
	if (!ioctl(t->fd, TUNGETFEATURES, &features) &&
	    !(features & IFF_VNET_HDR)) {
		fprintf(stderr, "xrx: tun %s: this kernel's TUN has no IFF_VNET_HDR\n",
			t->info.name);
		err = -EOPNOTSUPP;
		goto fail;
	}
	ifr.ifr_flags = (tap ? IFF_TAP : IFF_TUN) | IFF_NO_PI | IFF_VNET_HDR;
	if (s->nr_queues > 1)
		ifr.ifr_flags |= IFF_MULTI_QUEUE;
	memcpy(ifr.ifr_name, t->info.name, sizeof(ifr.ifr_name));
	if (ioctl(t->fd, TUNSETIFF, &ifr)) {
		err = -errno;
		fprintf(stderr, "xrx: %s %s: TUNSETIFF: %s (an existing device must be a %s%s: ip tuntap add dev %s mode %s%s)\n",
			kind, t->info.name, strerror(-err), kind,
			s->nr_queues > 1 ? " with multi_queue" : " without multi_queue",
			t->info.name, kind, s->nr_queues > 1 ? " multi_queue" : "");
		goto fail;
	}
	if (ioctl(t->fd, TUNSETVNETHDRSZ, &vnet_sz)) {
		err = -errno;
		fprintf(stderr, "xrx: tun %s: TUNSETVNETHDRSZ %d: %s\n",
			t->info.name, vnet_sz, strerror(-err));
		goto fail;
	}
	t->offloads = tun_probe_offloads(t->fd);
	tun_open_tnl(t);
	t->csum = t->offloads & TUN_F_CSUM;
	t->big4 = tun_kernel_at_least(6, 3);	/* iph_totlen() */
	t->jumbo = tun_jumbo_resolve(opts->tun_ipv6_jumbo);
	err = tun_up(t->info.name);
	if (err) {
		fprintf(stderr, "xrx: tun %s: cannot set it up: %s\n",
			t->info.name, strerror(-err));
		goto fail;
	}
	t->info.ifindex = (int)if_nametoindex(t->info.name);
	t->info.offloads = t->offloads;
	t->info.gso = t->gso;
	t->info.big_ipv4 = t->big4;
	t->info.tnl_gso = t->tnl_gso;
	t->info.ipv6_jumbo = t->jumbo;
	s->priv = t;
	return 0;
fail:
	if (t->fd >= 0)
		close(t->fd);
	free(t);
	return err;
}

static int tun_open(struct xrx_sink *s, const char *arg,
		    const struct xrx_sink_opts *opts)
{
	return tun_open_kind(s, arg, opts, false);
}

static int tap_open(struct xrx_sink *s, const char *arg,
		    const struct xrx_sink_opts *opts)
{
	return tun_open_kind(s, arg, opts, true);
}

static void tun_close(struct xrx_sink *s)
{
	struct tun_sink *t = s->priv;

	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	free(t);
	s->priv = NULL;
}

int xrx_sink_tun__info(const struct xrx_sink *s, struct xrx_tun_info *info)
{
	const struct tun_sink *t;

	if (!s || (s->ops != &xrx_sink_tun_ops && s->ops != &xrx_sink_tap_ops) ||
	    !s->priv)
		return -EINVAL;
	t = s->priv;
	*info = t->info;
	info->fd = t->fd;
	return 0;
}

const struct xrx_sink_ops xrx_sink_tun_ops = {
	.name = "tun",
	.open = tun_open,
	.deliver = tun_deliver,
	.close = tun_close,
	.check = tun_check,
	.flags = XRX_SINK_F_STACK | XRX_SINK_F_NETDEV,
	.usage = "tun:NAME",
};

const struct xrx_sink_ops xrx_sink_tap_ops = {
	.name = "tap",
	.open = tap_open,
	.deliver = tun_deliver,
	.close = tun_close,
	.check = tap_check,
	.flags = XRX_SINK_F_STACK | XRX_SINK_F_NETDEV,
	.usage = "tap:NAME",
};
