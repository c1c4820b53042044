// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Capture filters (sink/filter.h). libpcap compiles the expression on a
 * "dead" handle (pcap_open_dead(): no device, only a link type and a
 * snapshot length), as tcpdump -r compiles it for a pcap file of
 * LINKTYPE_ETHERNET, so an expression means here what it means to
 * tcpdump reading the capture. bpf_filter() is libpcap's interpreter, the
 * one pcap_offline_filter() calls, without the pcap_pkthdr around it.
 *
 * The view is bounded (XRX_FILTER_VIEW) so that the verdict does not hang
 * on how much of a packet the engine happened to copy into its head
 * (copy = header, max-head or full, a tee's linear copy): the same packet
 * gets the same verdict in a sink and in a tee. Only a packet whose head
 * is shorter than the view, or whose tag the NIC stripped, is copied
 * (at most XRX_FILTER_VIEW bytes, once per aggregate).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>

#include <xrx/sink.h>
#include "sink/filter.h"

struct xrx_filter {
	struct bpf_program prog;
	/* the view, when it is not pkt->head as it is */
	__u8 buf[XRX_FILTER_VIEW];
};

struct xrx_filter *xrx_filter__new(const char *expr, char *err, size_t errlen)
{
	struct xrx_filter *f;
	pcap_t *p;

	f = calloc(1, sizeof(*f));
	p = f ? pcap_open_dead(DLT_EN10MB, XRX_SNAPLEN_MAX) : NULL;
	if (!p) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		free(f);
		return NULL;
	}
	if (pcap_compile(p, &f->prog, expr, 1, PCAP_NETMASK_UNKNOWN)) {
		snprintf(err, errlen, "%s", pcap_geterr(p));
		pcap_close(p);
		free(f);
		return NULL;
	}
	pcap_close(p);
	return f;
}

/* Up to @n of the @len bytes at @src into @dst. Return: the bytes copied. */
static __u32 filter_take(__u8 *dst, const __u8 *src, __u32 len, __u32 n)
{
	n = n < len ? n : len;
	memcpy(dst, src, n);
	return n;
}

bool xrx_filter__match(struct xrx_filter *f, const struct xrx_pkt *pkt)
{
	/* A tag the NIC stripped, put back at 12 as the pcap sink writes
	 * it (pcap_deliver()). */
	__u32 tag = pkt->vlan_proto && pkt->head_len >= 12 ? 4 : 0;
	__u32 wire = pkt->len + tag, want, n, i;
	const __u8 *view = pkt->head;

	want = wire < XRX_FILTER_VIEW ? wire : XRX_FILTER_VIEW;
	if (tag || pkt->head_len < want) {
		n = 0;
		if (tag) {
			memcpy(f->buf, pkt->head, 12);
			f->buf[12] = pkt->vlan_proto >> 8;
			f->buf[13] = pkt->vlan_proto & 0xff;
			f->buf[14] = pkt->vlan_tci >> 8;
			f->buf[15] = pkt->vlan_tci & 0xff;
			n = 16;
		}
		n += filter_take(f->buf + n, pkt->head + (tag ? 12 : 0),
				 pkt->head_len - (tag ? 12 : 0), want - n);
		for (i = 0; i < pkt->nr_frags && n < want; i++)
			n += filter_take(f->buf + n, pkt->frags[i].data,
					 pkt->frags[i].len, want - n);
		view = f->buf;
		want = n;
	}
	return bpf_filter(f->prog.bf_insns, view, wire, want) != 0;
}

void xrx_filter__free(struct xrx_filter *f)
{
	if (!f)
		return;
	pcap_freecode(&f->prog);
	free(f);
}
