/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libxrx, all of it: the one header an application includes. It includes
 * the eleven below; each stands alone and none includes this one, so a
 * program that uses only a part (the GRO engine, as xrx-replay does) can
 * include just that.
 *
 *   types.h   fixed-width types, as the XDP program has them
 *   meta.h    struct xrx_meta: what xrx_rx writes in front of a frame
 *   engine.h  header-only copy and the GRO engine; struct xrx_pkt
 *   explain.h why a packet ended, in words; per-flow summary
 *   sink.h    where packets go: null, pcap, tun, or a sink of your own
 *   options.h the options of both, and of live.h, in one table
 *   segrec.h  segment records of lossless captures: split them again
 *   stats.h   xrx_rx's counters (the xrx_stats map)
 *   rules.h   xrx_rx's accelerate rules (the xrx_rules and xrx_ports maps)
 *   log.h     the levels of libxrx's messages
 *   prog.h    xrx_rx: attach, pin, open pinned, detach
 *   live.h    AF_XDP receive: sockets, UMEM, a worker per queue
 *
 * Not included: parse.h, the frame parser xrx_rx and the engine share
 * (with bytes.h, hdr.h and parse_tunnel.h), counters.h, which turns a
 * counter table into names, and compat.h, for older kernel headers.
 */
#ifndef XRX_XRX_H
#define XRX_XRX_H

#include <xrx/types.h>
#include <xrx/meta.h>
#include <xrx/engine.h>
#include <xrx/explain.h>
#include <xrx/sink.h>
#include <xrx/options.h>
#include <xrx/segrec.h>
#include <xrx/stats.h>
#include <xrx/rules.h>
#include <xrx/log.h>
#include <xrx/prog.h>
#include <xrx/live.h>

/* What every xrx program prints with --version; also xrx.pc's Version. */
#ifndef XRX_VERSION
#define XRX_VERSION "0.1.0"
#endif

#endif /* XRX_XRX_H */
