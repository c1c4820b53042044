// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The frame builder every other test relies on: byte-exact against frames
 * that scapy built (fixtures below, made with scapy 2.5), and checksums
 * checked by a second, differently written summation.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "util/frames.h"

/*
 * Ether()/IP(ttl=64, flags="DF", id=0x1234)/TCP(40000 -> 5001, seq=1000,
 * ack=1, flags="A", window=8192, NOP NOP Timestamp(1, 0))/"hello, xrx!"
 */
static const __u8 ref_tcp4[77] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x00, 0x45, 0x00, 0x00, 0x3f, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06,
	0x9c, 0x5d, 0xc6, 0x12, 0x00, 0x01, 0xc6, 0x12, 0x00, 0x02, 0x9c, 0x40,
	0x13, 0x89, 0x00, 0x00, 0x03, 0xe8, 0x00, 0x00, 0x00, 0x01, 0x80, 0x10,
	0x20, 0x00, 0x1e, 0xe8, 0x00, 0x00, 0x01, 0x01, 0x08, 0x0a, 0x00, 0x00,
	0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x2c,
	0x20, 0x78, 0x72, 0x78, 0x21,
};

/* Ether()/Dot1Q(vlan=100)/IPv6(hlim=64)/UDP(40000 -> 5001)/"hello, xrx!" */
static const __u8 ref_udp6_vlan[77] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x81, 0x00, 0x00, 0x64, 0x86, 0xdd, 0x60, 0x00, 0x00, 0x00, 0x00, 0x13,
	0x11, 0x40, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x9c, 0x40,
	0x13, 0x89, 0x00, 0x13, 0xfc, 0x9a, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x2c,
	0x20, 0x78, 0x72, 0x78, 0x21,
};

/* Ether()/IPv6()/IPv6ExtHdrHopByHop(PadN 4)/TCP(as above)/"hello, xrx!" */
static const __u8 ref_tcp6_hbh[105] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x86, 0xdd, 0x60, 0x00, 0x00, 0x00, 0x00, 0x33, 0x00, 0x40, 0x20, 0x01,
	0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x06, 0x00, 0x01, 0x04, 0x00, 0x00,
	0x00, 0x00, 0x9c, 0x40, 0x13, 0x89, 0x00, 0x00, 0x03, 0xe8, 0x00, 0x00,
	0x00, 0x01, 0x80, 0x10, 0x20, 0x00, 0x4f, 0x9b, 0x00, 0x00, 0x01, 0x01,
	0x08, 0x0a, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x68, 0x65,
	0x6c, 0x6c, 0x6f, 0x2c, 0x20, 0x78, 0x72, 0x78, 0x21,
};

static const __u8 hello[] = "hello, xrx!";

static void assert_bytes(const __u8 *got, int got_len, const __u8 *want,
			 int want_len)
{
	int i;

	assert_int_equal(got_len, want_len);
	for (i = 0; i < want_len; i++) {
		if (got[i] != want[i])
			print_error("byte %d: got 0x%02x, want 0x%02x\n", i,
				    got[i], want[i]);
		assert_int_equal(got[i], want[i]);
	}
}

static void test_ref_tcp4(void **state)
{
	struct frame_spec s;
	__u8 buf[256];

	frame_spec_tcp4(&s);
	s.ip_id = 0x1234;
	s.payload = hello;
	s.payload_len = sizeof(hello) - 1;
	assert_bytes(buf, frame_build(&s, buf, sizeof(buf)), ref_tcp4,
		     sizeof(ref_tcp4));
}

static void test_ref_udp6_vlan(void **state)
{
	struct frame_spec s;
	__u8 buf[256];

	frame_spec_udp6(&s);
	s.nr_vlans = 1;
	s.vlan_tci[0] = 100;
	s.payload = hello;
	s.payload_len = sizeof(hello) - 1;
	assert_bytes(buf, frame_build(&s, buf, sizeof(buf)), ref_udp6_vlan,
		     sizeof(ref_udp6_vlan));
}

static void test_ref_tcp6_hbh(void **state)
{
	struct frame_spec s;
	__u8 buf[256];

	frame_spec_tcp6(&s);
	s.nr_ext = 1;
	s.ext[0].type = 0;
	s.ext[0].len = 8;
	s.payload = hello;
	s.payload_len = sizeof(hello) - 1;
	assert_bytes(buf, frame_build(&s, buf, sizeof(buf)), ref_tcp6_hbh,
		     sizeof(ref_tcp6_hbh));
}

/*
 * A second checksum: 32-bit little-endian word sums, folded at the end
 * and byte-swapped (RFC 1071 section 2(B): byte order independence), so
 * it shares no code path with the builder's big-endian 16-bit loop.
 */
static __u16 sum_check(const __u8 *p, __u32 len, __u64 acc)
{
	__u32 i, w;

	for (i = 0; i + 4 <= len; i += 4) {
		memcpy(&w, p + i, 4);
		acc += __builtin_bswap32(w);
	}
	for (; i < len; i++)
		acc += (__u64)p[i] << (i & 1 ? 0 : 8) << (i & 2 ? 0 : 16);
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return acc;
}

/* Return: 1 when the IPv4 header (if any) and the L4 checksum verify. */
static int csums_ok(const __u8 *f, const struct frame_info *fi, int family,
		    __u8 l4)
{
	const __u8 *ip = f + fi->l3_off;
	__u32 l4len = fi->l4_hdr_len + fi->payload_len;
	__u64 pseudo;

	if (family == 4) {
		if (sum_check(ip, (ip[0] & 0xf) * 4, 0) != 0xffff)
			return 0;
		pseudo = sum_check(ip + 12, 8, 0);
	} else {
		pseudo = sum_check(ip + 8, 32, 0);
	}
	if (!fi->l4_off)
		return 1;
	if (l4 == 17 && family == 4 && !f[fi->l4_off + 6] && !f[fi->l4_off + 7])
		return 1;	/* no checksum */
	if (l4 != 1)
		pseudo += l4 + l4len;
	else
		pseudo = 0;
	return sum_check(f + fi->l4_off, l4len, pseudo) == 0xffff;
}

struct csum_case {
	const char *name;
	void (*init)(struct frame_spec *s);
	int nr_vlans, nr_ext, ip_opts, payload_len, pad;
};

static const struct csum_case csum_cases[] = {
	{ "tcp4", frame_spec_tcp4, 0, 0, 0, 1448, 0 },
	{ "tcp4 odd", frame_spec_tcp4, 0, 0, 0, 1, 0 },
	{ "tcp4 ipopt", frame_spec_tcp4, 1, 0, 8, 333, 0 },
	{ "tcp4 pad", frame_spec_tcp4, 0, 0, 0, 0, 6 },
	{ "tcp6", frame_spec_tcp6, 0, 0, 0, 1440, 0 },
	{ "tcp6 ext", frame_spec_tcp6, 2, 3, 0, 777, 0 },
	{ "udp4", frame_spec_udp4, 0, 0, 0, 1472, 0 },
	{ "udp4 odd", frame_spec_udp4, 2, 0, 4, 9, 0 },
	{ "udp6", frame_spec_udp6, 0, 0, 0, 1231, 0 },
	{ "udp6 ext", frame_spec_udp6, 1, 2, 0, 64, 0 },
	{ "icmp4", frame_spec_icmp4, 0, 0, 0, 56, 0 },
	{ "icmp6", frame_spec_icmp6, 0, 0, 0, 57, 0 },
};

static void test_checksums(void **state)
{
	static const __u8 nop_opts[8] = { 1, 1, 1, 1, 1, 1, 1, 0 };
	static const __u8 ext_types[3] = { 0, 43, 60 };
	__u8 buf[2048];
	unsigned int i, bad;
	int j;

	for (i = 0; i < sizeof(csum_cases) / sizeof(csum_cases[0]); i++) {
		const struct csum_case *c = &csum_cases[i];

		for (bad = 0; bad < 3; bad++) {
			struct frame_info fi;
			struct frame_spec s;
			int len, ok;

			c->init(&s);
			s.nr_vlans = c->nr_vlans;
			s.nr_ext = c->nr_ext;
			for (j = 0; j < c->nr_ext; j++) {
				s.ext[j].type = ext_types[j];
				s.ext[j].len = 8 * (j + 1);
			}
			s.ip_opts = nop_opts;
			s.ip_opts_len = c->ip_opts;
			s.payload_len = c->payload_len;
			s.pad = c->pad;
			s.seq = 12345 + i;
			s.bad_ip_csum = bad == 1 && s.family == 4;
			s.bad_l4_csum = bad == 2;
			len = frame_build_info(&s, buf, sizeof(buf), &fi);
			assert_true(len > 0);
			ok = csums_ok(buf, &fi, s.family, s.l4);
			if (ok != (bad == 0 || (bad == 1 && s.family == 6)))
				fail_msg("%s: checksums %s with bad=%u", c->name,
					 ok ? "verify" : "fail", bad);
			/* The builder's own summation agrees. */
			if (s.family == 4)
				assert_int_equal(frame_csum(buf + fi.l3_off,
							    (buf[fi.l3_off] & 0xf) * 4,
							    0) == 0,
						 bad != 1);
		}
	}
}

static void test_lengths(void **state)
{
	struct frame_info fi;
	struct frame_spec s;
	__u8 buf[2048];

	frame_spec_tcp4(&s);	/* 14 + 20 + 32 + 100 */
	assert_int_equal(frame_build_info(&s, buf, sizeof(buf), &fi), 166);
	assert_int_equal(fi.l3_off, 14);
	assert_int_equal(fi.l4_off, 34);
	assert_int_equal(fi.l4_hdr_len, 32);
	assert_int_equal(fi.payload_off, 66);
	assert_int_equal(buf[46] >> 4, 8);
	assert_int_equal(buf[16] << 8 | buf[17], 152);

	s.nr_vlans = 2;
	s.vlan_tpid[0] = 0x88a8;
	s.pad = 10;
	s.tot_len_delta = 4;
	assert_int_equal(frame_build_info(&s, buf, sizeof(buf), &fi), 184);
	assert_int_equal(buf[12] << 8 | buf[13], 0x88a8);
	assert_int_equal(buf[16] << 8 | buf[17], 0x8100);
	assert_int_equal(buf[20] << 8 | buf[21], 0x0800);
	assert_int_equal(buf[24] << 8 | buf[25], 156);	/* tot_len + 4 */

	frame_spec_udp6(&s);
	s.nr_ext = 2;
	s.ext[0].type = 0;
	s.ext[0].len = 16;
	s.ext[1].type = 44;	/* first fragment: UDP header present */
	s.frag_off = 0x2000;
	assert_int_equal(frame_build_info(&s, buf, sizeof(buf), &fi),
			 14 + 40 + 16 + 8 + 8 + 100);
	assert_int_equal(fi.l4_off, 14 + 40 + 24);
	assert_int_equal(buf[20], 0);		/* next: hop-by-hop */
	assert_int_equal(buf[54], 44);		/* then fragment */
	assert_int_equal(buf[55], 1);		/* 16 bytes */
	assert_int_equal(buf[70], 17);		/* then UDP */
	assert_int_equal(buf[73], 1);		/* offset 0, M */

	s.frag_off = 0x0010;		/* non-first: no UDP header */
	assert_int_equal(frame_build_info(&s, buf, sizeof(buf), &fi),
			 14 + 40 + 16 + 8 + 100);
	assert_int_equal(fi.l4_off, 0);
	assert_int_equal(buf[72] << 8 | buf[73], 0x10 << 3);

	frame_spec_arp(&s);
	assert_int_equal(frame_build(&s, buf, sizeof(buf)), 42);
	assert_int_equal(buf[12] << 8 | buf[13], 0x0806);
	assert_int_equal(buf[41], 2);		/* target 198.18.0.2 */

	frame_spec_tcp4(&s);
	s.doff_override = 3;
	s.ihl_override = 4;
	assert_int_equal(frame_build(&s, buf, sizeof(buf)), 166);
	assert_int_equal(buf[14], 0x44);
	assert_int_equal(buf[46], 0x30);
}

static void test_errors(void **state)
{
	struct frame_spec s;
	__u8 buf[2048];

	frame_spec_tcp4(&s);
	assert_int_equal(frame_build(&s, buf, 165), -ENOSPC);
	assert_int_equal(frame_build(&s, buf, 10), -ENOSPC);
	s.family = 5;
	assert_int_equal(frame_build(&s, buf, sizeof(buf)), -EINVAL);
	frame_spec_tcp6(&s);
	s.nr_ext = 1;
	s.ext[0].len = 12;
	assert_int_equal(frame_build(&s, buf, sizeof(buf)), -EINVAL);
}

static void test_payload_stream(void **state)
{
	struct frame_info fa, fb;
	struct frame_spec s;
	__u8 a[2048], b[2048];
	__u32 i;

	/* Two segments of one stream carry consecutive stream bytes. */
	frame_spec_tcp4(&s);
	s.seq = 5000;
	s.payload_len = 700;
	frame_build_info(&s, a, sizeof(a), &fa);
	s.seq = 5700;
	frame_build_info(&s, b, sizeof(b), &fb);
	for (i = 0; i < 700; i++) {
		assert_int_equal(a[fa.payload_off + i],
				 frame_payload_byte(1, 5000 + i));
		assert_int_equal(b[fb.payload_off + i],
				 frame_payload_byte(1, 5700 + i));
	}
	/* Streams differ by seed, and the pattern is not constant. */
	assert_int_not_equal(memcmp(a + fa.payload_off, b + fb.payload_off, 700), 0);
	for (i = 0; i < 16; i++)
		if (frame_payload_byte(1, i) != frame_payload_byte(2, i))
			break;
	assert_true(i < 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ref_tcp4),
		cmocka_unit_test(test_ref_udp6_vlan),
		cmocka_unit_test(test_ref_tcp6_hbh),
		cmocka_unit_test(test_checksums),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_payload_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
