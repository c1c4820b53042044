// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Segment records (include/xrx/segrec.h, docs/lossless.md): frames
 * through the engine into the pcap sink with its lossless option, the
 * file read back, every aggregate split with xrx_segrec__split(): the
 * frames come back byte for byte with their times, also where a sender
 * did what the rebuild does not (a jumping IP ID cannot merge, so: a
 * checksum left for offload, PSH on the last, CWR on the first). Every
 * frame's arrival time (xrx_frame.ts_ns) travels through the engine: the
 * EPB has the first segment's, its time option the last one's, and the
 * record each segment's. The spec's lossless option, and its refusal
 * for a tee.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <xrx/engine.h>
#include <xrx/sink.h>
#include <xrx/segrec.h>
#include "util/frames.h"

#define NF 12
#define ALIGN 2048

struct rt {
	__u8 region[NF * ALIGN];
	struct xrx_frame frames[NF];
	__u64 ts[NF];
	struct xrx_engine *e;
	struct xrx_sink *s;
	/* what the split gave back */
	__u8 out[NF][ALIGN];
	__u32 out_len[NF];
	__u64 out_ts[NF];
	__u32 nr_out;
	/* the time options read: per EPB, the EPB's time and the option */
	__u64 epb_ts[NF];
	struct xrx_time_opt topt[NF];
	__u32 nr_epb;
};

static void deliver(void *ctx, struct xrx_pkt *pkt)
{
	struct rt *r = ctx;

	assert_int_equal(xrx_sink__deliver(r->s, pkt), 0);
}

static void release(void *ctx, struct xrx_pkt *pkt)
{
	struct rt *r = ctx;

	xrx_pkt__release(r->e, pkt);
}

static void release_frame(void *ctx, __u64 addr)
{
	(void)ctx;
	(void)addr;
}

static int emit(void *ctx, const __u8 *data, __u32 cap, __u32 len,
		__u64 ts_ns)
{
	struct rt *r = ctx;

	assert_true(r->nr_out < NF);
	assert_int_equal(cap, len);
	memcpy(r->out[r->nr_out], data, len);
	r->out_len[r->nr_out] = len;
	r->out_ts[r->nr_out++] = ts_ns;
	return 0;
}

/*
 * Every EPB of the file at @path: split with its record, or taken as is
 * (@want_records: whether there must be records); its time option into
 * r->topt[].
 */
static void split_file(struct rt *r, const char *path, bool want_records)
{
	static __u8 buf[1 << 20];
	FILE *f = fopen(path, "rb");
	__u32 off = 0, n, type, blen, cap, len, th, tl, o, end, pen;
	__u32 records = 0, rec_len = 0, topts;
	const __u8 *rec;
	__u16 code, olen;

	assert_non_null(f);
	n = (__u32)fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (off + 12 <= n) {
		memcpy(&type, buf + off, 4);
		memcpy(&blen, buf + off + 4, 4);
		assert_true(blen >= 12 && off + blen <= n);
		if (type == 6) {
			memcpy(&th, buf + off + 12, 4);
			memcpy(&tl, buf + off + 16, 4);
			memcpy(&cap, buf + off + 20, 4);
			memcpy(&len, buf + off + 24, 4);
			rec = NULL;
			topts = 0;
			end = off + blen - 4;
			/* the options: the time option, a record */
			for (o = off + 28 + ((cap + 3) & ~3u); o + 4 <= end;
			     o += 4 + ((olen + 3u) & ~3u)) {
				memcpy(&code, buf + o, 2);
				memcpy(&olen, buf + o + 2, 2);
				if (!code)
					break;
				assert_int_equal(code, XRX_SEGREC_OPT_CODE);
				memcpy(&pen, buf + o + 4, 4);
				assert_int_equal(pen, XRX_SEGREC_PEN);
				if (buf[o + 8] == XRX_TIME_OPT_KIND) {
					assert_int_equal(olen, 4 + sizeof(struct xrx_time_opt));
					assert_true(r->nr_epb < NF);
					memcpy(&r->topt[r->nr_epb], buf + o + 8,
					       sizeof(struct xrx_time_opt));
					topts++;
				} else {
					assert_int_equal(buf[o + 8],
							 XRX_SEGREC_VERSION);
					rec = buf + o + 8;
					rec_len = olen - 4u;
				}
			}
			/* every EPB has one time option */
			assert_int_equal(topts, 1);
			r->epb_ts[r->nr_epb++] = (__u64)th << 32 | tl;
			if (rec) {
				assert_int_equal(xrx_segrec__split(
					buf + off + 28, cap, len,
					(__u64)th << 32 | tl,
					rec, rec_len, emit, r), 0);
				records++;
			} else {
				emit(r, buf + off + 28, cap, len,
				     (__u64)th << 32 | tl);
			}
		}
		off += blen;
	}
	assert_true(want_records ? records >= 1 : records == 0);
}

/*
 * @n TCP/IPv4 frames of one flow, @mod() changing each spec, each with
 * its own arrival time, through the engine into a capture (@lossless,
 * or plain pcapng) and back.
 */
static void roundtrip_as(const char *dir, __u32 n,
			 void (*mod)(struct frame_spec *s, __u32 i),
			 bool lossless)
{
	struct rt *r = calloc(1, sizeof(*r));
	struct xrx_engine_opts eo = { .sz = sizeof(eo) };
	struct xrx_sink_opts so = { .sz = sizeof(so) };
	char spec[256];
	__u32 i, seg, aggs = 0;

	assert_non_null(r);
	for (i = 0; i < n; i++) {
		struct frame_spec fs;
		int len;

		frame_spec_tcp4(&fs);
		fs.seq = 1000 + i * 1000;
		fs.payload_len = 1000;
		fs.ip_id = 7 + i;
		fs.tcp_flags = 0x10;
		if (mod)
			mod(&fs, i);
		len = frame_build(&fs, r->region + i * ALIGN, ALIGN);
		assert_true(len > 0);
		r->frames[i].addr = i * ALIGN;
		r->frames[i].len = (__u32)len;
		r->ts[i] = 1700000000123456789ull + i * 1234567;
		r->frames[i].ts_ns = r->ts[i];
	}
	snprintf(spec, sizeof(spec), "pcap:%s/ll.pcapng,%s", dir,
		 lossless ? "lossless" : "format=pcapng");
	r->s = xrx_sink__open(spec, &so);
	assert_non_null(r->s);
	xrx_sink__bind(r->s, release, r);
	eo.region = r->region;
	eo.region_size = sizeof(r->region);
	eo.deliver = deliver;
	eo.release_frame = release_frame;
	eo.ctx = r;
	r->e = xrx_engine__new(&eo);
	assert_non_null(r->e);
	assert_true(xrx_engine__rx(r->e, r->frames, n, 0) >= 0);
	xrx_engine__flush_all(r->e);
	xrx_sink__close(r->s);
	xrx_engine__free(r->e);

	snprintf(spec, sizeof(spec), "%s/ll.pcapng", dir);
	split_file(r, spec, lossless);
	/* each EPB: its first segment's time, the last's in the option,
	 * software times (no NIC stamp came with the frames) */
	for (i = 0, seg = 0; i < r->nr_epb; i++) {
		assert_int_equal(r->topt[i].kind, XRX_TIME_OPT_KIND);
		assert_int_equal(r->topt[i].flags, 0);
		assert_int_equal(r->topt[i].reserved, 0);
		assert_true(r->topt[i].segs >= 1);
		assert_true(seg + r->topt[i].segs <= n);
		assert_true(r->epb_ts[i] == r->ts[seg]);
		seg += r->topt[i].segs;
		assert_true(r->topt[i].last_ns == r->ts[seg - 1]);
		if (r->topt[i].segs > 1)
			aggs++;
	}
	assert_int_equal(seg, n);
	assert_true(aggs >= 1);
	if (!lossless) {
		free(r);
		return;
	}
	assert_int_equal(r->nr_out, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(r->out_len[i], r->frames[i].len);
		assert_memory_equal(r->out[i], r->region + i * ALIGN,
				    r->frames[i].len);
		/* ns, also of a frame that went as it came (the CWR) */
		assert_true(r->out_ts[i] == r->ts[i]);
	}
	free(r);
}

static void roundtrip(const char *dir, __u32 n,
		      void (*mod)(struct frame_spec *s, __u32 i))
{
	roundtrip_as(dir, n, mod, true);
}

static void mod_offload(struct frame_spec *s, __u32 i)
{
	/* a wrong TCP checksum would not merge; a PSH on the last and a
	 * CWR on the first are what GRO keeps */
	if (i == 0)
		s->tcp_flags |= 0x80;
	if (i == 7)
		s->tcp_flags |= 0x08;
}

static void mod_fixed_id(struct frame_spec *s, __u32 i)
{
	(void)i;
	s->ip_id = 0;
	s->frag_off = 0x4000;
}

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/xrx-test-segrec.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static void test_bulk(void **state)
{
	(void)state;
	roundtrip(dir, NF, NULL);
}

static void test_flags(void **state)
{
	(void)state;
	roundtrip(dir, 8, mod_offload);
}

static void test_fixed_id(void **state)
{
	(void)state;
	roundtrip(dir, NF, mod_fixed_id);
}

/* Not lossless: the EPB and its time option alone say when the first and
 * the last segment came. */
static void test_times_plain(void **state)
{
	(void)state;
	roundtrip_as(dir, NF, mod_offload, false);
}

static void test_spec(void **state)
{
	struct xrx_sink_opts o = { .sz = sizeof(o) };
	char path[64], err[256];

	(void)state;
	assert_int_equal(xrx_sink_pcap__parse("/x,lossless", path,
					      sizeof(path), &o, err,
					      sizeof(err)), 0);
	assert_true(o.lossless);
	assert_int_equal(xrx_sink_pcap__parse("/x,lossless=off", path,
					      sizeof(path), &o, err,
					      sizeof(err)), 0);
	assert_false(o.lossless);
	assert_int_equal(xrx_sink_pcap__parse("/x,lossless=yes", path,
					      sizeof(path), &o, err,
					      sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "lossless"));
}

static void test_tee_refused(void **state)
{
	struct xrx_sink_opts o = { .sz = sizeof(o), .no_wait = true };
	char spec[128];

	(void)state;
	snprintf(spec, sizeof(spec), "pcap:%s/tee.pcapng,lossless", dir);
	errno = 0;
	assert_null(xrx_sink__open(spec, &o));
	assert_int_equal(errno, EINVAL);
}

/* A record that does not add up to its packet: refused, nothing out. */
static void test_malformed(void **state)
{
	static const __u8 rec[] = { 1, 2, 54, 0, 14, 34, 0,
				    0x80, 0x0f, 0, 0, 0, 0, 0 };
	__u8 pkt[600] = { 0 };
	struct rt *r = calloc(1, sizeof(*r));

	(void)state;
	assert_non_null(r);
	assert_int_equal(xrx_segrec__split(pkt, sizeof(pkt), sizeof(pkt), 0,
					   rec, sizeof(rec), emit, r),
			 -EINVAL);
	assert_int_equal(r->nr_out, 0);
	assert_int_equal(xrx_segrec__split(pkt, sizeof(pkt), sizeof(pkt), 0,
					   rec, 3, emit, r), -EINVAL);
	free(r);
}

/*
 * Length deltas are the file's: one that leaves [0, packet length] is
 * malformed, also where the sum would wrap back to a length that adds
 * up (2^32 + 1 as a __u32 is 1) or overflow (INT64_MAX, found by
 * fuzz_segrec). The same record with a delta of 0 is taken: 2 frames.
 */
static void test_delta_out_of_range(void **state)
{
	/* n 2, hlen 54, aoff 54, l3 14, l4 34, TCP/IPv4; segment 1 is 1
	 * byte (zigzag 2), segment 2 is 1 + DELTA */
	static const __u8 head[] = { 1, 2, 54, 0, 14, 34, 0, 2, 0, 0 };
	static const __u8 zero[] = { 0 };
	static const __u8 wrap[] = { 0x80, 0x80, 0x80, 0x80, 0x20 };
	static const __u8 huge[] = { 0xfe, 0xff, 0xff, 0xff, 0xff,
				     0xff, 0xff, 0xff, 0xff, 0x01 };
	const struct { const __u8 *d; size_t n; int ret; } c[] = {
		{ zero, sizeof(zero), 0 },
		{ wrap, sizeof(wrap), -EINVAL },
		{ huge, sizeof(huge), -EINVAL },
	};
	__u8 pkt[56] = { 0 }, rec[32];
	size_t i, l;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct rt *r = calloc(1, sizeof(*r));

		assert_non_null(r);
		memcpy(rec, head, sizeof(head));
		memcpy(rec + sizeof(head), c[i].d, c[i].n);
		l = sizeof(head) + c[i].n;
		rec[l++] = 0;	/* time delta */
		rec[l++] = 0;	/* runs */
		assert_int_equal(xrx_segrec__split(pkt, sizeof(pkt),
						   sizeof(pkt), 0, rec,
						   (__u32)l, emit, r),
				 c[i].ret);
		assert_int_equal(r->nr_out, c[i].ret ? 0 : 2);
		free(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bulk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fixed_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_times_plain, setup, teardown),
		cmocka_unit_test(test_spec),
		cmocka_unit_test_setup_teardown(test_tee_refused, setup, teardown),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_delta_out_of_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
