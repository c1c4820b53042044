/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The keyed function behind xrx's flow hash (xrx_flow_hash(), parse.h),
 * compiled into both xrx_rx (BPF) and libxrx.
 *
 * The flow hash picks the flow-table bucket an aggregate lives in, so
 * whoever can predict it can put every flow they send into one bucket.
 * Like the kernel's flow dissector (__flow_hash_from_keys(): siphash()
 * with hashrnd, a random key chosen once per boot), xrx hashes with
 * SipHash-2-4 (Aumasson and Bernstein) under a random 128-bit key chosen
 * when xrx_rx is attached (include/xrx/prog.h), which the engine is
 * given too (xrx_engine_opts.hash_key). Without the key, which flows
 * share a bucket cannot be told from their headers.
 *
 * The message is a few 64-bit words and a tail of up to 7 bytes, the same
 * on both sides; on a little-endian host the result is the SipHash-2-4 of
 * those bytes (tests/unit/test_hash.c holds it to the paper's vectors).
 * Rotations are shifts in BPF, which has no rotate instruction; a round
 * costs xrx_rx about 2 ns.
 */
#ifndef XRX_HASH_H
#define XRX_HASH_H

#include <xrx/types.h>

/* 128 bits, as the kernel's siphash_key_t. All zero: "not chosen yet". */
struct xrx_hash_key {
	__u64 k[2];
};

XRX_STATIC_ASSERT(sizeof(struct xrx_hash_key) == 16, "xrx_hash_key ABI");

/* SipHash state */
struct xrx_sip {
	__u64 v0, v1, v2, v3;
};

static __always_inline __u64 xrx_rotl64(__u64 x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static __always_inline void xrx_sip_round(struct xrx_sip *s)
{
	s->v0 += s->v1;
	s->v1 = xrx_rotl64(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = xrx_rotl64(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = xrx_rotl64(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = xrx_rotl64(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = xrx_rotl64(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = xrx_rotl64(s->v2, 32);
}

static __always_inline void xrx_sip_init(struct xrx_sip *s,
					 const struct xrx_hash_key *key)
{
	s->v0 = 0x736f6d6570736575ULL ^ key->k[0];
	s->v1 = 0x646f72616e646f6dULL ^ key->k[1];
	s->v2 = 0x6c7967656e657261ULL ^ key->k[0];
	s->v3 = 0x7465646279746573ULL ^ key->k[1];
}

/* One message word: two compression rounds (the "2" of SipHash-2-4). */
static __always_inline void xrx_sip_word(struct xrx_sip *s, __u64 m)
{
	s->v3 ^= m;
	xrx_sip_round(s);
	xrx_sip_round(s);
	s->v0 ^= m;
}

/*
 * The last block and four finalization rounds, for a message of @bytes
 * whose whole words went through xrx_sip_word(): @tail holds its last
 * @bytes % 8 bytes (little-endian, the rest zero), and the length goes in
 * the top byte, as SipHash pads. Return: the 64-bit SipHash-2-4.
 */
static __always_inline __u64 xrx_sip_final(struct xrx_sip *s, __u32 bytes,
					   __u64 tail)
{
	xrx_sip_word(s, (__u64)bytes << 56 | tail);
	s->v2 ^= 0xff;
	xrx_sip_round(s);
	xrx_sip_round(s);
	xrx_sip_round(s);
	xrx_sip_round(s);
	return s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
}

#ifndef __bpf__
#include <errno.h>
#include <sys/types.h>
#include <sys/random.h>

/* Nobody has chosen @k yet (all zero). */
static inline int xrx_hash_key_unset(const struct xrx_hash_key *k)
{
	return !(k->k[0] | k->k[1]);
}

/*
 * A new random key, drawn as the kernel draws hashrnd
 * (net_get_random_once()): getrandom() waits only until the kernel's
 * pool is first ready. Return: 0, or a negative errno.
 */
static inline int xrx_hash_key_new(struct xrx_hash_key *k)
{
	ssize_t n;

	do
		n = getrandom(k, sizeof(*k), 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*k))
		return n < 0 ? -errno : -EIO;
	return 0;
}
#endif

#endif /* XRX_HASH_H */
