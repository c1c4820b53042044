// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target: xrx_segrec__split() (user/lib/gro/segrec.c), the reader of
 * lossless captures' segment records, on a record and a packet the input
 * gives: what xrx-replay --split does with any file it is handed.
 *
 * Input: 2 bytes, the record's length (big-endian; the rest if longer),
 * the record, then the packet; with the length's top bit set only the
 * first half of the packet counts as captured (cap < len, a snaplen).
 *
 * Checked: the split returns 0 or -EINVAL (malformed: nothing emitted
 * then), never reads outside the record or the packet (ASan), and every
 * frame it emits has cap <= len and all of its cap bytes readable.
 */
#include "fuzz.h"

#include <stdbool.h>

#include <xrx/segrec.h>

struct emitted {
	__u32 frames;
	__u64 bytes;		/* frame lengths */
	__u64 sum;		/* of the bytes read, so that they are */
};

static int on_frame(void *ctx, const __u8 *data, __u32 cap, __u32 len,
		    __u64 ts_ns)
{
	struct emitted *e = ctx;
	__u8 x = 0;
	__u32 i;

	(void)ts_ns;
	FZ_CHECK(cap <= len, "cap %u > len %u", cap, len);
	for (i = 0; i < cap; i++)	/* every byte readable (ASan) */
		x ^= data[i];
	e->sum += x;
	e->frames++;
	e->bytes += len;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct emitted e = { 0 };
	__u32 rl, len, cap;
	__u8 *rec, *pkt;
	bool cut;
	int ret;

	if (size < 2 || size > (1 << 20))
		return 0;
	rl = (__u32)(data[0] & 0x7f) << 8 | data[1];
	cut = data[0] & 0x80;
	data += 2;
	size -= 2;
	if (rl > size)
		rl = (__u32)size;
	len = (__u32)(size - rl);
	cap = cut ? len / 2 : len;
	/* copies of their own: a read past either end is ASan's to see */
	rec = malloc(rl ? rl : 1);
	pkt = malloc(len ? len : 1);
	FZ_CHECK(rec && pkt, "malloc");
	memcpy(rec, data, rl);
	memcpy(pkt, data + rl, len);
	ret = xrx_segrec__split(pkt, cap, len, 1000, rec, rl, on_frame, &e);
	FZ_CHECK(ret == 0 || ret == -EINVAL, "split returned %d", ret);
	if (ret)
		FZ_CHECK(!e.frames, "%u frames emitted before -EINVAL", e.frames);
	else
		FZ_CHECK(e.frames >= 1, "a record of no frame taken");
	free(rec);
	free(pkt);
	return 0;
}
