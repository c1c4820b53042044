/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A capture filter in tcpdump's syntax (pcap-filter(7)) for the pcap
 * sink's filter= option (and so the tee's): compiled once by libpcap's
 * pcap_compile() for Ethernet, run per packet by its bpf_filter().
 *
 * What the program sees (the view): the packet's first
 * XRX_FILTER_VIEW bytes as the sink writes them, a VLAN tag the NIC
 * stripped put back, and the packet's whole length as its wire length.
 * Headers are in the engine's header copy (pkt->head); the payload bytes
 * up to the view's end are those at the start of the aggregate (its
 * first segment's). A load beyond the view fails the match, as a load
 * beyond the snapshot length does in libpcap: "tcp[300] = 1" matches
 * nothing.
 */
#ifndef XRX_SINK_FILTER_H
#define XRX_SINK_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <xrx/engine.h>

#define XRX_FILTER_VIEW 256

struct xrx_filter;

/*
 * Compile @expr. Return: the filter, or NULL with libpcap's message
 * (or strerror(ENOMEM)) in @err.
 */
struct xrx_filter *xrx_filter__new(const char *expr, char *err, size_t errlen);
/* Does @pkt match? */
bool xrx_filter__match(struct xrx_filter *f, const struct xrx_pkt *pkt);
/* NULL is a no-op. */
void xrx_filter__free(struct xrx_filter *f);

#endif /* XRX_SINK_FILTER_H */
