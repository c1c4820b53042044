// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The keyed flow hash (include/xrx/hash.h, xrx_flow_hash() in parse.h):
 * SipHash-2-4 as its authors define it, the flow's words under it, and
 * the key deciding the result, so that nobody without the key can tell
 * which flows share a bucket.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include <xrx/hash.h>
#include <xrx/parse.h>
#include <xrx/parse_tunnel.h>

#include "util/frames.h"
#include "util/vxlan_frames.h"

/* The paper's key, bytes 00..0f (k[0] little-endian from byte 0). */
static const struct xrx_hash_key paper_key = {
	{ 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL }
};

/*
 * SipHash-2-4 of the messages 00, 00 01, ... with the paper's key
 * (vectors_sip64 of the reference code; openssl mac ... SIPHASH with
 * size:8 prints the same bytes): 0, 5, 8, 13, 15 and 16 bytes, whole
 * words and tails as the flow hash makes them.
 */
static void test_siphash_vectors(void **state)
{
	static const struct { __u32 len; __u64 want; } v[] = {
		{ 0, 0x726fdb47dd0e0e31ULL }, { 5, 0x18765564cd99a68dULL },
		{ 8, 0x93f5f5799a932462ULL }, { 13, 0x14ea5627c0843d90ULL },
		{ 15, 0xa129ca6149be45e5ULL }, { 16, 0x3f2acc7f57c29bdbULL },
	};
	__u8 msg[16];
	struct xrx_sip s;
	__u64 tail, w;
	__u32 i, k, j;

	for (i = 0; i < sizeof(msg); i++)
		msg[i] = i;
	for (k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		xrx_sip_init(&s, &paper_key);
		for (i = 0; i + 8 <= v[k].len; i += 8) {
			for (w = 0, j = 0; j < 8; j++)
				w |= (__u64)msg[i + j] << (8 * j);
			xrx_sip_word(&s, w);
		}
		for (tail = 0, j = 0; i + j < v[k].len; j++)
			tail |= (__u64)msg[i + j] << (8 * j);
		assert_int_equal(xrx_sip_final(&s, v[k].len, tail), v[k].want);
	}
	(void)state;
}

static void parse_spec(const struct frame_spec *s, struct xrx_parsed *r,
		       const struct xrx_hash_key *key)
{
	__u8 buf[2048];
	int len = frame_build(s, buf, sizeof(buf));

	assert_true(len > 0);
	assert_int_equal(xrx_parse(buf, len < XRX_PARSE_WINDOW ? len :
				   XRX_PARSE_WINDOW, len, r, key),
			 XRX_PARSE_L4);
}

/*
 * The flow hash is the low 32 bits of SipHash-2-4 over the flow: IPv4
 * addresses in one word (source low), IPv6 in four, then sport, dport and
 * protocol as the last 5 bytes. Written out here, apart from parse.h.
 */
static void test_flow_words(void **state)
{
	struct frame_spec s;
	struct xrx_parsed r;
	struct xrx_sip x;

	frame_spec_tcp4(&s);	/* 198.18.0.1:40000 -> 198.18.0.2:5001 */
	parse_spec(&s, &r, &paper_key);
	xrx_sip_init(&x, &paper_key);
	xrx_sip_word(&x, 0x020012c6ULL << 32 | 0x010012c6ULL);
	assert_int_equal(r.hash, (__u32)xrx_sip_final(&x, 13, 6ULL << 32 |
						      5001 << 16 | 40000));

	frame_spec_udp6(&s);	/* 2001:db8::1 -> 2001:db8::2 */
	parse_spec(&s, &r, &paper_key);
	xrx_sip_init(&x, &paper_key);
	xrx_sip_word(&x, 0xb80d0120ULL);
	xrx_sip_word(&x, 0x0100000000000000ULL);
	xrx_sip_word(&x, 0xb80d0120ULL);
	xrx_sip_word(&x, 0x0200000000000000ULL);
	assert_int_equal(r.hash, (__u32)xrx_sip_final(&x, 37, 17ULL << 32 |
						      (__u32)s.dport << 16 |
						      s.sport));
	(void)state;
}

/*
 * The key decides: the same flow under two keys hashes apart, and a parse
 * without a key leaves the hash out. The old fixed-seed hash gave every
 * xrx the same value for a flow.
 */
static void test_key_decides(void **state)
{
	static const struct xrx_hash_key other = { { 1, 0 } };
	struct xrx_parsed a, b, none;
	struct frame_spec s;

	frame_spec_tcp4(&s);
	parse_spec(&s, &a, &paper_key);
	parse_spec(&s, &b, &other);
	parse_spec(&s, &none, NULL);
	assert_int_not_equal(a.hash, b.hash);
	assert_int_equal(none.hash, 0);
	assert_int_equal(xrx_flow_hash(&none, &paper_key), a.hash);
	assert_int_equal(xrx_flow_hash(&none, &other), b.hash);
	/* Direction and ports count. */
	s.sport++;
	parse_spec(&s, &b, &paper_key);
	assert_int_not_equal(a.hash, b.hash);
	(void)state;
}

/*
 * A flow inside VXLAN: one SipHash over the outer flow's hash, the VNI
 * and the inner flow, under the same key. The same inner flow in another
 * VNI hashes apart.
 */
static void test_tunnel_hash(void **state)
{
	struct xrx_parsed outer, inner;
	struct xrx_tnl_parsed t, u;
	struct vxlan_outer o;
	struct frame_spec in;
	struct xrx_sip x;
	__u8 buf[2048];
	__u32 win;
	int len;

	frame_spec_tcp4(&in);
	vxlan_outer_default(&o, 1);
	o.vni = 0x123456;
	len = vxlan_frame_build(&in, &o, buf, sizeof(buf), NULL);
	assert_true(len > 0);
	win = len < XRX_PARSE_WINDOW ? len : XRX_PARSE_WINDOW;
	assert_int_equal(xrx_parse(buf, win, len, &outer, &paper_key),
			 XRX_PARSE_L4);
	assert_int_equal(xrx_parse_vxlan(buf, win, len, &outer, &t,
					 &paper_key), XRX_TNL_VXLAN);
	inner = t.inner;
	xrx_sip_init(&x, &paper_key);
	xrx_sip_word(&x, (__u64)outer.hash << 32 | 0x123456);
	xrx_sip_word(&x, 0x020012c6ULL << 32 | 0x010012c6ULL);
	assert_int_equal(t.inner.hash,
			 (__u32)xrx_sip_final(&x, 21, 6ULL << 32 |
					      (__u32)inner.dport << 16 |
					      inner.sport));
	assert_int_equal(t.inner.hash,
			 xrx_tnl_flow_hash(&inner, &paper_key, outer.hash,
					   0x123456));

	o.vni = 0x123457;
	len = vxlan_frame_build(&in, &o, buf, sizeof(buf), NULL);
	xrx_parse(buf, win, len, &outer, &paper_key);
	xrx_parse_vxlan(buf, win, len, &outer, &u, &paper_key);
	assert_int_not_equal(u.inner.hash, t.inner.hash);
	(void)state;
}

/* A drawn key is never "unset", and two draws differ. */
static void test_key_new(void **state)
{
	struct xrx_hash_key a, b;

	assert_int_equal(xrx_hash_key_new(&a), 0);
	assert_int_equal(xrx_hash_key_new(&b), 0);
	assert_false(xrx_hash_key_unset(&a));
	assert_memory_not_equal(&a, &b, sizeof(a));
	memset(&a, 0, sizeof(a));
	assert_true(xrx_hash_key_unset(&a));
	(void)state;
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_siphash_vectors),
		cmocka_unit_test(test_flow_words),
		cmocka_unit_test(test_key_decides),
		cmocka_unit_test(test_tunnel_hash),
		cmocka_unit_test(test_key_new),
	};

	return cmocka_run_group_tests_name("hash", tests, NULL, NULL);
}
