// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Per flow, why its packets ended and what each reason cost
 * (xrx_explain__add(), include/xrx/explain.h): the reasons are rows of
 * the why-table (explain_why.c), each flow is named as the summary prints
 * it (explain_print.c prints the tally).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <xrx/engine.h>
#include <xrx/explain.h>
#include <xrx/bytes.h>
#include <xrx/hdr.h>
#include <xrx/tunnel.h>

#include "gro/explain_tally.h"
#include "gro/explain_why.h"

/* How the last packet with payload of a flow ended, for the next one. */
enum {
	XRX_LAST_FULL,		/* at a limit: nothing more fitted */
	XRX_LAST_ROOM,		/* held, and ended with room left */
	XRX_LAST_NEVER,		/* delivered alone, as it never merges */
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
	 * ETH_P_TEB, IPv4 or IPv6 gets this far, where VXLAN has reserved
	 * zeros. */
	vxh = p->outer_l4_off + XRX_UDPH_LEN;
	if (p->outer_l3_off && n < size && vxh + 8 <= p->head_len) {
		__u32 gp = xrx_get16(p->head + vxh + XRX_GENEVE_PROTO);

		snprintf(buf + n, size - n, " in %s %u",
			 gp == XRX_ETH_P_TEB || gp == XRX_ETH_P_IP ||
					 gp == XRX_ETH_P_IPV6 ?
				 "geneve" : "vxlan",
			 xrx_get32(p->head + vxh + 4) >> 8);
	}
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
