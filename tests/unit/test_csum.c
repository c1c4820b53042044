// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The Internet checksum over plain bytes (user/lib/gro/csum.c): every
 * implementation of xrx_csum_add() this build has, on every CPU feature it
 * needs that this machine runs, against a byte-pair-at-a-time RFC 1071
 * sum (user/util/frames.c's, which the frame builder uses): random
 * lengths up to past a 9000-byte jumbo frame at every start offset 0..63
 * (so every vector step, tail and unaligned load is taken), odd lengths,
 * and carry-heavy data (all 0xff). Each buffer is allocated to its exact end,
 * so an implementation that reads one byte too far fails under ASan
 * (the -san build).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/frames.h"
#include "gro/csum.h"

#define MAX_LEN 9216		/* a jumbo frame's L4 bytes, and more */
#define OFFSETS 64		/* a cache line of start alignments */

/* xorshift64*: a fixed, portable sequence per seed. */
static __u64 rng_state = 0x9e3779b97f4a7c15ull;

static __u64 rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* RFC 1071 a byte pair at a time (the tests' frame builder's sum),
 * folded, not complemented. */
static __u16 ref_sum(const __u8 *p, __u32 len, __u32 start)
{
	return (__u16)~frame_csum(p, len, start);
}

/*
 * @len bytes at offset @off of a buffer that ends right after them, so
 * that a read past the end is a heap overflow ASan reports.
 */
static __u8 *buf_new(__u32 off, __u32 len)
{
	__u8 *b = malloc(off + len ? off + len : 1);

	assert_non_null(b);
	return b;
}

/* The implementation a test is given agrees with RFC 1071 on one buffer. */
static void check(const struct xrx_csum_impl *c, const __u8 *p, __u32 len,
		  __u32 start, const char *what, __u32 off)
{
	__u16 want = ref_sum(p, len, start);
	__u16 got = xrx_csum_fold(c->add(p, len, start));

	if (got != want)
		fail_msg("%s: %s over %u bytes at offset %u, start sum 0x%x: "
			 "0x%04x, RFC 1071 gives 0x%04x", c->name, what, len,
			 off, start, got, want);
}

/*
 * Random bytes: every length 0..200 (each tail and vector remainder) and
 * 48 random ones up to MAX_LEN, at every offset 0..63, with no sum and
 * with a running sum carried in (as the pseudo-header's is).
 */
static void random_lengths_offsets(const struct xrx_csum_impl *c)
{
	__u32 off, i, len, j;
	__u8 *b;

	for (off = 0; off < OFFSETS; off++) {
		for (i = 0; i < 201 + 48; i++) {
			len = i <= 200 ? i : rng() % (MAX_LEN + 1);
			b = buf_new(off, len);
			for (j = 0; j < off + len; j++)
				b[j] = (__u8)rng();
			check(c, b + off, len, 0, "random bytes", off);
			check(c, b + off, len, (__u32)rng(), "random bytes",
			      off);
			free(b);
		}
	}
}

/*
 * All 0xff: every add carries. Also with the largest start sum and on
 * buffers far larger than a frame, which the accumulators must hold
 * without overflowing.
 */
static void carries(const struct xrx_csum_impl *c)
{
	static const __u32 lens[] = { 1, 2, 3, 7, 8, 31, 32, 33, 63, 64, 65,
				      127, 128, 129, 1479, 1480, 8980, MAX_LEN,
				      65535, 65536, 1u << 20 };
	__u32 off, i, len;
	__u8 *b;

	for (off = 0; off < OFFSETS; off++) {
		for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			len = lens[i];
			b = buf_new(off, len);
			memset(b, 0xff, off + len);
			check(c, b + off, len, 0, "all 0xff", off);
			check(c, b + off, len, 0xffffffff, "all 0xff", off);
			free(b);
		}
	}
}

/*
 * Words at the edges of a signed 16-bit word (0x7fff, 0x8000, 0x0000,
 * 0xffff, 0x8001, 0x7ffe), drawn at random: an implementation that sums
 * words as signed and puts the offset back (avx512) gets the offset of
 * every word right, in either byte order. And random bytes over lengths
 * around the 1 MiB blocks whose 32-bit lanes such a sum adds up in 64
 * bits, at random offsets.
 */
static void sign_edges(const struct xrx_csum_impl *c)
{
	static const __u16 edge[] = { 0x7fff, 0x8000, 0x0000, 0xffff, 0x8001,
				      0x7ffe };
	static const __u32 big[] = { (1u << 20) - 64, (1u << 20) - 1,
				     1u << 20, (1u << 20) + 1,
				     (1u << 20) + 64, (1u << 20) + 127,
				     (2u << 20) + 65, (5u << 20) + 3 };
	__u32 off, i, len, j;
	__u16 w;
	__u8 *b;

	for (i = 0; i < 400; i++) {
		off = (__u32)rng() % OFFSETS;
		len = (__u32)rng() % (MAX_LEN + 1);
		b = buf_new(off, len);
		for (j = 0; j + 1 < off + len; j += 2) {
			w = edge[rng() % (sizeof(edge) / sizeof(edge[0]))];
			memcpy(b + j, &w, sizeof(w));
		}
		if ((off + len) & 1)
			b[off + len - 1] = (__u8)rng();
		check(c, b + off, len, (__u32)rng(), "signed-edge words", off);
		free(b);
	}
	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		off = (__u32)rng() % OFFSETS;
		len = big[i];
		b = buf_new(off, len);
		for (j = 0; j < off + len; j++)
			b[j] = (__u8)rng();
		check(c, b + off, len, (__u32)rng(), "random bytes, MiB", off);
		/* every word at its largest: what fills a lane fastest */
		memset(b, 0xff, off + len);
		check(c, b + off, len, 0, "all 0xff, MiB", off);
		free(b);
	}
}

/* All zero sums to zero, not to 0xffff (the other zero). */
static void zeros(const struct xrx_csum_impl *c)
{
	__u32 len;
	__u8 *b;

	for (len = 0; len <= 300; len++) {
		b = buf_new(5, len);
		memset(b, 0, 5 + len);
		assert_int_equal(xrx_csum_fold(c->add(b + 5, len, 0)), 0);
		free(b);
	}
}

/*
 * One implementation (the test's state); one that needs what this CPU
 * lacks is reported as skipped, since it is left untested here.
 */
static void test_impl(void **state)
{
	const struct xrx_csum_impl *c = *state;

	if (!c->usable()) {
		printf("# %s: this CPU does not run it\n", c->name);
		skip();
	}
	random_lengths_offsets(c);
	carries(c);
	sign_edges(c);
	zeros(c);
}

/*
 * The dispatcher: xrx_csum_add() is the implementation chosen for this
 * CPU, the last usable one (the fastest), and gives RFC 1071's sums.
 */
static void test_dispatch(void **state)
{
	const struct xrx_csum_impl *best = xrx_csum_impl_best(), *c, *last = NULL;
	__u8 b[1600];
	__u32 i;

	for (i = 0; (c = xrx_csum_impl_get(i)); i++)
		if (c->usable())
			last = c;
	assert_non_null(last);
	assert_ptr_equal(best, last);
	printf("# xrx_csum_add() on this CPU: %s\n", best->name);
#if defined(__x86_64__)
	/* The 64-byte VNNI sum, where the CPU has it: over payload not in
	 * the cache it keeps more lines in flight (csum.c). */
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512bw") &&
	    __builtin_cpu_supports("avx512vnni"))
		assert_string_equal(best->name, "avx512");
#endif
	for (i = 0; i < sizeof(b); i++)
		b[i] = (__u8)rng();
	for (i = 0; i + 64 <= sizeof(b); i += 37)
		assert_int_equal(xrx_csum_fold(xrx_csum_add(b + i % 64, i, 7)),
				 ref_sum(b + i % 64, i, 7));
	(void)state;
}

int main(void)
{
	struct CMUnitTest tests[16];
	const struct xrx_csum_impl *c;
	char names[16][48];
	int n = 0;

	for (; (c = xrx_csum_impl_get(n)) && n < 15; n++) {
		snprintf(names[n], sizeof(names[n]), "test_impl_%s", c->name);
		tests[n] = (struct CMUnitTest){
			.name = names[n],
			.test_func = test_impl,
			.initial_state = (void *)c,
		};
	}
	tests[n++] = (struct CMUnitTest){
		.name = "test_dispatch",
		.test_func = test_dispatch,
	};
	return _cmocka_run_group_tests("test_csum", tests, n, NULL, NULL);
}
