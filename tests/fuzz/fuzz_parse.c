// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target: the header parser (include/xrx/parse.h) through libxrx's
 * xrx_headlen() and directly, on the input taken as one Ethernet frame;
 * the flow hash keyed with FZ_HASH_KEY (xrx_headlen() leaves it out).
 *
 * Beyond "no crash, no out-of-bounds read" (the input buffer is exactly
 * the frame, so ASan sees any read past it) the result must keep the
 * invariants xrx_rx and the engine rely on, and must not depend on bytes
 * past the window: xrx_rx parses a per-CPU scratch buffer whose bytes
 * beyond the window are whatever the previous frame left there.
 */
#include "fuzz.h"

#include <xrx/parse.h>
#include <xrx/parse_tunnel.h>
#include <xrx/engine.h>

#define SCRATCH_FILLS 2

static const struct xrx_hash_key key = FZ_HASH_KEY;

static void check_invariants(const struct xrx_parsed *r, __u32 len, __u32 wire)
{
	FZ_CHECK(r->result <= XRX_PARSE_TOO_LONG, "result %u", r->result);
	FZ_CHECK(r->headlen <= wire, "headlen %u > frame %u", r->headlen, wire);
	FZ_CHECK(r->nr_vlans <= 2, "nr_vlans %u", r->nr_vlans);
	FZ_CHECK(!!(r->flags & XRX_META_F_VLAN) == (r->nr_vlans > 0),
		 "flags %#x nr_vlans %u", r->flags, r->nr_vlans);
	FZ_CHECK(!!(r->flags & XRX_META_F_QINQ) == (r->nr_vlans == 2),
		 "flags %#x nr_vlans %u", r->flags, r->nr_vlans);
	FZ_CHECK(!((r->flags & XRX_META_F_IPV4) && (r->flags & XRX_META_F_IPV6)),
		 "flags %#x: both IPv4 and IPv6", r->flags);
	FZ_CHECK(!((r->flags & XRX_META_F_TCP) && (r->flags & XRX_META_F_UDP)),
		 "flags %#x: both TCP and UDP", r->flags);
	FZ_CHECK(r->hash_type == XRX_HASH_SW, "hash_type %u", r->hash_type);
	if (r->l3_off)
		FZ_CHECK(r->l3_off == XRX_ETH_HLEN + 4 * r->nr_vlans,
			 "l3_off %u with %u tags", r->l3_off, r->nr_vlans);
	if (r->l4_off) {
		__u32 min = r->flags & XRX_META_F_IPV6 ? 40 : 20;

		FZ_CHECK(r->l3_off && r->l4_off >= r->l3_off + min,
			 "l4_off %u, l3_off %u", r->l4_off, r->l3_off);
		FZ_CHECK(r->l4_off <= len, "l4_off %u beyond the window %u",
			 r->l4_off, len);
	}
	if (r->flags & XRX_META_F_TCP)
		FZ_CHECK(r->l4_proto == 6, "TCP flag, l4_proto %u", r->l4_proto);
	if (r->flags & XRX_META_F_UDP)
		FZ_CHECK(r->l4_proto == 17, "UDP flag, l4_proto %u", r->l4_proto);

	switch (r->result) {
	case XRX_PARSE_L4:
		/* What the engine and xrx_rx's rule lookup take as given. */
		FZ_CHECK(r->flags & (XRX_META_F_TCP | XRX_META_F_UDP),
			 "L4 without TCP/UDP, flags %#x", r->flags);
		FZ_CHECK(!(r->flags & XRX_META_F_FRAG), "L4 and FRAG");
		FZ_CHECK(r->l4_off && r->headlen >= r->l4_off + 8 &&
			 r->headlen <= len,
			 "L4: l4_off %u headlen %u window %u", r->l4_off,
			 r->headlen, len);
		FZ_CHECK(r->hash == xrx_flow_hash(r, &key), "hash %#x",
			 r->hash);
		break;
	case XRX_PARSE_FRAG:
		FZ_CHECK(r->flags & XRX_META_F_FRAG, "FRAG, flags %#x", r->flags);
		break;
	case XRX_PARSE_TOO_LONG:
		/* Only a window shorter than the frame can cut headers short
		 * without the frame being malformed. */
		FZ_CHECK(wire > XRX_PARSE_WINDOW, "TOO_LONG for a %u-byte frame",
			 wire);
		break;
	default:
		break;
	}
}

/*
 * Any UDP frame read as VXLAN (include/xrx/parse_tunnel.h), as the engine
 * does for a configured port: the inner result keeps the plain parser's
 * invariants, shifted to the inner frame, stays inside the window, and
 * does not depend on bytes past it either.
 */
static void check_vxlan(const __u8 *data, __u8 *scratch,
			const struct xrx_parsed *r, __u32 len, __u32 wire)
{
	struct xrx_tnl_parsed t, u;
	int tr, i;

	tr = xrx_parse_vxlan(data, len, wire, r, &t, &key);
	if (tr == XRX_TNL_NONE) {
		FZ_CHECK(r->result != XRX_PARSE_L4 || r->l4_proto != 17,
			 "UDP frame not taken as VXLAN");
		return;
	}
	FZ_CHECK(t.inner_mac_off == r->l4_off + 16, "inner_mac_off %u",
		 t.inner_mac_off);
	if (tr == XRX_TNL_VXLAN) {
		FZ_CHECK(t.inner_mac_off + XRX_ETH_HLEN <= len,
			 "inner Ethernet header past the window");
		FZ_CHECK(t.inner.headlen <= wire, "inner headlen %u > %u",
			 t.inner.headlen, wire);
		FZ_CHECK(!t.inner.l3_off ||
			 t.inner.l3_off >= t.inner_mac_off + XRX_ETH_HLEN,
			 "inner l3_off %u", t.inner.l3_off);
		if (t.inner.result == XRX_PARSE_L4)
			FZ_CHECK(t.inner.l4_off && t.inner.headlen <= len &&
				 t.inner.headlen >= t.inner.l4_off + 8,
				 "inner L4: l4_off %u headlen %u window %u",
				 t.inner.l4_off, t.inner.headlen, len);
	}
	for (i = 0; i < SCRATCH_FILLS; i++) {
		memset(scratch, i ? 0x00 : 0xff, XRX_PARSE_SCRATCH);
		memcpy(scratch, data, len);
		FZ_CHECK(xrx_parse_vxlan(scratch, len, wire, r, &u, &key) == tr &&
			 !memcmp(&t, &u, sizeof(t)),
			 "VXLAN result depends on bytes past the window");
	}
}

/*
 * ... and as GENEVE, whose header has a length of its own (options): the
 * inner frame starts behind it, inside the window, and nothing depends on
 * bytes past the window.
 */
static void check_geneve(const __u8 *data, __u8 *scratch,
			 const struct xrx_parsed *r, __u32 len, __u32 wire)
{
	struct xrx_tnl_parsed t, u;
	int tr, i;

	tr = xrx_parse_tnl(data, len, wire, r, XRX_TNL_K_GENEVE, &t, &key);
	if (tr == XRX_TNL_NONE)
		return;
	if (tr != XRX_TNL_SHORT)
		FZ_CHECK(t.inner_mac_off + XRX_ETH_HLEN <= len &&
			 t.inner_mac_off >= r->l4_off + 16,
			 "GENEVE inner_mac_off %u, window %u", t.inner_mac_off,
			 len);
	if (tr == XRX_TNL_VXLAN) {
		FZ_CHECK(t.inner.headlen <= wire, "inner headlen %u > %u",
			 t.inner.headlen, wire);
		if (t.inner.result == XRX_PARSE_L4)
			FZ_CHECK(t.inner.headlen <= len &&
				 t.inner.headlen >= t.inner.l4_off + 8,
				 "GENEVE inner L4: l4_off %u headlen %u",
				 t.inner.l4_off, t.inner.headlen);
	}
	for (i = 0; i < SCRATCH_FILLS; i++) {
		memset(scratch, i ? 0x00 : 0xff, XRX_PARSE_SCRATCH);
		memcpy(scratch, data, len);
		FZ_CHECK(xrx_parse_tnl(scratch, len, wire, r, XRX_TNL_K_GENEVE,
				       &u, &key) == tr &&
			 !memcmp(&t, &u, sizeof(t)),
			 "GENEVE result depends on bytes past the window");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static __u8 scratch[XRX_PARSE_SCRATCH];
	struct xrx_parsed r, s, h;
	__u32 wire, len, hl;
	int i;

	if (size > 65535)
		return 0;
	wire = size;
	len = wire < XRX_PARSE_WINDOW ? wire : XRX_PARSE_WINDOW;

	/* libxrx's entry point, on the frame itself: the parse with the
	 * hash left out. */
	hl = xrx_headlen(data, wire, &h);
	xrx_parse(data, len, wire, &r, &key);
	FZ_CHECK(hl <= wire, "xrx_headlen %u > frame %u", hl, wire);
	FZ_CHECK(hl == (r.headlen < wire ? r.headlen : wire),
		 "xrx_headlen %u, parsed headlen %u", hl, r.headlen);
	FZ_CHECK(!h.hash, "xrx_headlen hashed: %#x", h.hash);
	h.hash = r.hash;
	FZ_CHECK(!memcmp(&h, &r, sizeof(r)), "xrx_headlen parses otherwise");
	check_invariants(&r, len, wire);

	/* As xrx_rx does it: the window in a scratch buffer with stale
	 * bytes behind it. The result must not see them. */
	for (i = 0; i < SCRATCH_FILLS; i++) {
		memset(scratch, i ? 0x00 : 0xff, sizeof(scratch));
		memcpy(scratch, data, len);
		xrx_parse(scratch, len, wire, &s, &key);
		FZ_CHECK(!memcmp(&r, &s, sizeof(r)),
			 "result depends on bytes past the %u-byte window "
			 "(result %u/%u headlen %u/%u)", len, r.result, s.result,
			 r.headlen, s.headlen);
	}
	check_vxlan(data, scratch, &r, len, wire);
	check_geneve(data, scratch, &r, len, wire);
	return 0;
}
