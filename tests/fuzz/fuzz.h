/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Shared by the libFuzzer targets in tests/fuzz/: a cursor that takes
 * choices (option bits, lengths, frame bytes) from the fuzz input, and
 * an invariant check that reports and aborts, so libFuzzer records the
 * input as a crash.
 *
 * Running out of input is not an error: take_*() then return zeros, so
 * every input, however short, is a complete test case.
 */
#ifndef XRX_TESTS_FUZZ_H
#define XRX_TESTS_FUZZ_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

/*
 * The flow hash key (struct xrx_hash_key) the targets' engines and parses
 * use: fixed, so that an input replays the same run.
 */
#define FZ_HASH_KEY { { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL } }

struct fz {
	const __u8 *p;
	size_t len;
	size_t off;
};

static inline void fz_init(struct fz *c, const __u8 *p, size_t len)
{
	c->p = p;
	c->len = len;
	c->off = 0;
}

static inline size_t fz_left(const struct fz *c)
{
	return c->len - c->off;
}

static inline __u32 fz_u8(struct fz *c)
{
	return c->off < c->len ? c->p[c->off++] : 0;
}

static inline __u32 fz_u16(struct fz *c)
{
	__u32 v = fz_u8(c) << 8;

	return v | fz_u8(c);
}

static inline __u32 fz_u32(struct fz *c)
{
	__u32 v = fz_u16(c) << 16;

	return v | fz_u16(c);
}

/* Up to @n bytes in place; *@got says how many there were. */
static inline const __u8 *fz_bytes(struct fz *c, size_t n, size_t *got)
{
	const __u8 *p = c->p + c->off;

	if (n > fz_left(c))
		n = fz_left(c);
	c->off += n;
	*got = n;
	return p;
}

/*
 * An invariant the code under test must keep: on violation print what
 * broke (libFuzzer shows stderr with the crash) and abort.
 */
#define FZ_CHECK(cond, ...)                                                   \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "%s:%d: invariant '%s' broken: ",     \
				__FILE__, __LINE__, #cond);                   \
			fprintf(stderr, __VA_ARGS__);                         \
			fputc('\n', stderr);                                  \
			abort();                                              \
		}                                                             \
	} while (0)

#endif /* XRX_TESTS_FUZZ_H */
