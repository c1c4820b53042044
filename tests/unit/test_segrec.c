// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Segment records (include/xrx/segrec.h, docs/lossless.md): frames
 * through the engine into the pcap sink with its lossless option, the
 * file read back, every aggregate split with xrx_segrec__split(): the
 * frames come back byte for byte with their times, also where a sender
 * did what the rebuild does not (a jumping IP ID cannot merge, so: a
 * checksum left for offload, PSH on the last, CWR on the first). Also
 * through the one-file writer: two queues into one file, and a file a
 * second (rotate=), each file split on its own; and through a tee, whose
 * copies no longer have the frames (they are scribbled over once the
 * primary gives them back): the records come from the worker. The
 * spec's lossless option. Every frame's arrival time (xrx_frame.ts_ns)
 * travels through the engine: the EPB has the first segment's, its time
 * option the last one's, and the record each segment's; a plain pcapng
 * capture has the time options too.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <cmocka.h>

#include <xrx/engine.h>
#include <xrx/sink.h>
#include <xrx/segrec.h>
#include "util/frames.h"
#include "sink/lossless.h"
#include "sink/tee.h"

#define NF 12
#define ALIGN 2048

/* Where the engine's packets go. */
enum rt_mode {
	RT_DIRECT,			/* one queue, the per-queue writer */
	RT_TWO_QUEUES,			/* odd sports on queue 1: one file */
	RT_ROTATE,			/* rotate=1: the second half a second
					 * later, into another file */
	RT_TEE,				/* a null primary, the capture a tee */
	RT_PLAIN,			/* not lossless: plain pcapng */
};

struct rt {
	__u8 region[NF * ALIGN];
	__u8 orig[NF * ALIGN];		/* the frames as built */
	struct xrx_frame frames[NF];
	__u64 ts[NF];
	struct xrx_engine *e;
	struct xrx_sink *s, *s1;	/* queue 0's (or the tee's), 1's */
	struct xrx_sink *primary;	/* RT_TEE */
	struct xrx_tee *tee;
	enum rt_mode mode;
	/* what the split gave back */
	__u8 out[NF][ALIGN];
	__u32 out_len[NF];
	__u64 out_ts[NF];
	/* the time options read: per EPB, the EPB's time and the option */
	__u64 epb_ts[NF];
	struct xrx_time_opt topt[NF];
	__u32 nr_epb;
	__u32 nr_out;
};

static void deliver(void *ctx, struct xrx_pkt *pkt)
{
	struct rt *r = ctx;
	__u16 sport = (__u16)(pkt->head[pkt->l4_off] << 8 |
			      pkt->head[pkt->l4_off + 1]);

	if (r->mode == RT_TEE)
		assert_int_equal(xrx_tee__deliver(r->tee, r->primary, pkt), 0);
	else if (r->mode == RT_TWO_QUEUES && (sport & 1))
		assert_int_equal(xrx_sink__deliver(r->s1, pkt), 0);
	else
		assert_int_equal(xrx_sink__deliver(r->s, pkt), 0);
}

static void release(void *ctx, struct xrx_pkt *pkt)
{
	struct rt *r = ctx;

	xrx_pkt__release(r->e, pkt);
}

static void release_frame(void *ctx, __u64 addr)
{
	struct rt *r = ctx;

	/* Back to the UMEM: the next frame may be there by now. */
	if (r->mode == RT_TEE)
		memset(r->region + addr, 0xee, ALIGN);
}

static int emit(void *ctx, const __u8 *data, __u32 cap, __u32 len,
		__u64 ts_ns)
{
	struct rt *r = ctx;

	assert_true(r->nr_out < NF);
	assert_int_equal(cap, len);
	/* an aggregate without its record is longer than a frame */
	memcpy(r->out[r->nr_out], data, len < ALIGN ? len : ALIGN);
	r->out_len[r->nr_out] = len;
	r->out_ts[r->nr_out++] = ts_ns;
	return 0;
}

/*
 * Every EPB of the file at @path: split with its record, or taken as is;
 * its time option into r->topt[]. Return: the records in it.
 */
static __u32 split_file(struct rt *r, const char *path)
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
	assert_int_equal(off, n);
	return records;
}

/* Every file in @dir, each split on its own. Return: the records. */
static __u32 split_dir(struct rt *r, const char *dir, __u32 *files)
{
	char path[512];
	struct dirent *de;
	__u32 records = 0;
	DIR *d = opendir(dir);

	assert_non_null(d);
	*files = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		records += split_file(r, path);
		(*files)++;
	}
	closedir(d);
	return records;
}

/* Wait (bounded) until the clock is in the second after @sec. */
static void wait_next_second(time_t sec)
{
	struct timespec ts, nap = { .tv_nsec = 10000000 };
	int i;

	for (i = 0; i < 300; i++) {
		clock_gettime(CLOCK_REALTIME, &ts);
		if (ts.tv_sec > sec)
			return;
		nanosleep(&nap, NULL);
	}
	fail_msg("the clock did not move on in 3 s");
}

/* What the split gave back in the order of arrival (xrx-replay --split's:
 * by time, ties in the file's order), as two flows' blocks interleave. */
static void sort_out(struct rt *r)
{
	static __u8 d[ALIGN];
	__u32 i, j, l;
	__u64 t;

	for (i = 1; i < r->nr_out; i++) {
		for (j = i; j && r->out_ts[j - 1] > r->out_ts[j]; j--) {
			memcpy(d, r->out[j], ALIGN);
			memcpy(r->out[j], r->out[j - 1], ALIGN);
			memcpy(r->out[j - 1], d, ALIGN);
			l = r->out_len[j];
			r->out_len[j] = r->out_len[j - 1];
			r->out_len[j - 1] = l;
			t = r->out_ts[j];
			r->out_ts[j] = r->out_ts[j - 1];
			r->out_ts[j - 1] = t;
		}
	}
}

/* The capture's sinks for @r->mode, from @spec. */
static void rt_open(struct rt *r, const char *spec)
{
	struct xrx_sink_opts so = { .sz = sizeof(so) };

	if (r->mode == RT_TWO_QUEUES) {
		so.nr_queues = 2;
		so.queue = 1;
		r->s1 = xrx_sink__open(spec, &so);
		assert_non_null(r->s1);
		xrx_sink__bind(r->s1, release, r);
		so.queue = 0;
	}
	if (r->mode == RT_TEE) {
		/* as the live path opens a tee (afxdp/rxq_sink.c) */
		so.no_wait = true;
		r->s = xrx_sink__open(spec, &so);
		assert_non_null(r->s);
		r->tee = xrx_tee__new(r->s);
		assert_non_null(r->tee);
		so.no_wait = false;
		r->primary = xrx_sink__open("null", &so);
		assert_non_null(r->primary);
		xrx_sink__bind(r->primary, release, r);
		return;
	}
	r->s = xrx_sink__open(spec, &so);
	assert_non_null(r->s);
	xrx_sink__bind(r->s, release, r);
}

static void rt_close(struct rt *r)
{
	if (r->mode == RT_TEE) {
		xrx_tee__free(r->tee);	/* writes everything, closes */
		xrx_sink__close(r->primary);
		return;
	}
	xrx_sink__close(r->s);
	if (r->s1)
		xrx_sink__close(r->s1);
}

/*
 * @n TCP/IPv4 frames of one flow (two with RT_TWO_QUEUES: odd frames on
 * sport + 1), @mod() changing each spec, through the engine (copy @copy)
 * into a lossless capture as @mode says and back. Return: the records
 * of the files (in @dir/ll).
 */
static __u32 roundtrip_as(const char *dir, __u32 n,
			  void (*mod)(struct frame_spec *s, __u32 i),
			  enum rt_mode mode, enum xrx_copy_mode copy)
{
	struct rt *r = calloc(1, sizeof(*r));
	struct xrx_engine_opts eo = { .sz = sizeof(eo) };
	struct timespec now;
	char spec[320], cap[128];
	__u32 i, files = 0, records, half = n, aggs = 0;
	__u64 base;

	assert_non_null(r);
	r->mode = mode;
	clock_gettime(CLOCK_REALTIME, &now);
	base = (__u64)now.tv_sec * 1000000000ull + (__u64)now.tv_nsec;
	for (i = 0; i < n; i++) {
		struct frame_spec fs;
		int len;

		frame_spec_tcp4(&fs);
		fs.seq = 1000 + i * 1000;
		fs.payload_len = 1000;
		fs.ip_id = 7 + i;
		fs.tcp_flags = 0x10;
		if (mode == RT_TWO_QUEUES) {
			/* two flows, each in order */
			fs.sport += i & 1;
			fs.seq = 1000 + i / 2 * 1000;
			fs.ip_id = 7 + i / 2;
		}
		if (mod)
			mod(&fs, i);
		len = frame_build(&fs, r->region + i * ALIGN, ALIGN);
		assert_true(len > 0);
		r->frames[i].addr = i * ALIGN;
		r->frames[i].len = (__u32)len;
		/* arrival times as a capture has them, now or so (rotate=
		 * goes by them, and by the clock when none comes) */
		r->ts[i] = base + i * 1234567;
		/* the second half of a rotate= run a second later */
		if (mode == RT_ROTATE && i >= n / 2)
			r->ts[i] += 1000000000ull;
		r->frames[i].ts_ns = r->ts[i];
	}
	memcpy(r->orig, r->region, sizeof(r->orig));
	snprintf(cap, sizeof(cap), "%s/ll", dir);
	assert_int_equal(mkdir(cap, 0700), 0);
	if (mode == RT_TWO_QUEUES)
		snprintf(spec, sizeof(spec), "pcap:%s/ll.pcapng,lossless",
			 cap);
	else if (mode == RT_ROTATE)
		snprintf(spec, sizeof(spec),
			 "pcap:%s/ll-%%s.pcapng,lossless,rotate=1", cap);
	else
		snprintf(spec, sizeof(spec), "pcap:%s/ll.pcapng,%s", cap,
			 mode == RT_PLAIN ? "format=pcapng" : "lossless");
	rt_open(r, spec);
	eo.region = r->region;
	eo.region_size = sizeof(r->region);
	eo.deliver = deliver;
	eo.release_frame = release_frame;
	eo.copy = copy;
	eo.ctx = r;
	r->e = xrx_engine__new(&eo);
	assert_non_null(r->e);
	if (mode == RT_ROTATE)
		half = n / 2;
	clock_gettime(CLOCK_REALTIME, &now);
	assert_true(xrx_engine__rx(r->e, r->frames, half, 0) >= 0);
	xrx_engine__flush_all(r->e);
	if (half < n) {
		/* the rest in the next second: the next file */
		xrx_sink__flush(r->s);
		wait_next_second(now.tv_sec);
		assert_true(xrx_engine__rx(r->e, r->frames + half, n - half,
					   0) >= 0);
		xrx_engine__flush_all(r->e);
	}
	if (mode == RT_TEE)
		xrx_tee__drain(r->tee);
	if (mode == RT_TEE && copy != XRX_COPY_HEADER) {
		struct xrx_lossless *ll;
		__u32 snap;

		/* no record to make: each aggregate as it is, counted */
		ll = xrx_sink_pcap__lossless(r->s, &snap);
		assert_non_null(ll);
		aggs = (__u32)r->s->stats[XRX_SINK_STAT_PKTS_OUT];
		assert_true(aggs >= 1 && aggs < n);
		assert_int_equal(ll->unrecorded, aggs);
		assert_int_equal(r->s->stats[XRX_SINK_STAT_SEGS_OUT], n);
	}
	rt_close(r);
	xrx_engine__free(r->e);

	records = split_dir(r, cap, &files);
	if (mode == RT_ROTATE)
		assert_true(files >= 2);
	else
		assert_int_equal(files, 1);
	if (mode == RT_DIRECT || mode == RT_PLAIN) {
		__u32 seg = 0, multi = 0;

		/* each EPB: its first segment's time, the last's in the
		 * option, software times (no NIC stamp came with them) */
		for (i = 0; i < r->nr_epb; i++) {
			assert_int_equal(r->topt[i].kind, XRX_TIME_OPT_KIND);
			assert_int_equal(r->topt[i].flags, 0);
			assert_int_equal(r->topt[i].reserved, 0);
			assert_true(r->topt[i].segs >= 1);
			assert_true(seg + r->topt[i].segs <= n);
			assert_true(r->epb_ts[i] == r->ts[seg]);
			seg += r->topt[i].segs;
			assert_true(r->topt[i].last_ns == r->ts[seg - 1]);
			if (r->topt[i].segs > 1)
				multi++;
		}
		assert_int_equal(seg, n);
		assert_true(multi >= 1);
	}
	if (mode == RT_PLAIN) {
		assert_int_equal(records, 0);
		free(r);
		return records;
	}
	sort_out(r);
	if (copy != XRX_COPY_HEADER) {
		/* the aggregates, whole: a header each and every payload */
		__u32 sum = 0;

		assert_int_equal(r->nr_out, aggs);
		for (i = 0; i < aggs; i++) {
			sum += r->out_len[i] - (r->frames[0].len - 1000);
			/* Ethernet, version to TOS; addresses, ports */
			assert_memory_equal(r->out[i], r->orig, 16);
			assert_memory_equal(r->out[i] + 26, r->orig + 26, 12);
		}
		assert_int_equal(sum, n * 1000);
		free(r);
		return records;
	}
	assert_int_equal(r->nr_out, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(r->out_len[i], r->frames[i].len);
		assert_memory_equal(r->out[i], r->orig + i * ALIGN,
				    r->frames[i].len);
		/* ns, also of a frame that went as it came (the CWR) */
		assert_true(r->out_ts[i] == r->ts[i]);
	}
	free(r);
	return records;
}

static void roundtrip(const char *dir, __u32 n,
		      void (*mod)(struct frame_spec *s, __u32 i))
{
	assert_true(roundtrip_as(dir, n, mod, RT_DIRECT, XRX_COPY_HEADER) >= 1);
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
	roundtrip_as(dir, NF, mod_offload, RT_PLAIN, XRX_COPY_HEADER);
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

/* Two queues, one file: an IDB each, the records in their blocks. */
static void test_two_queues(void **state)
{
	(void)state;
	assert_int_equal(roundtrip_as(dir, NF, NULL, RT_TWO_QUEUES,
				      XRX_COPY_HEADER), 2);
}

/* rotate=1: each file splits on its own, together they are the frames. */
static void test_rotate(void **state)
{
	(void)state;
	assert_int_equal(roundtrip_as(dir, NF, NULL, RT_ROTATE,
				      XRX_COPY_HEADER), 2);
}

/* A tee: the records made while the frames were there. */
static void test_tee(void **state)
{
	(void)state;
	assert_true(roundtrip_as(dir, NF, mod_offload, RT_TEE,
				 XRX_COPY_HEADER) >= 1);
}

/* A tee whose engine keeps no frame in place: the aggregate written, no
 * record, counted; nothing lost. */
static void test_tee_unrecorded(void **state)
{
	(void)state;
	assert_int_equal(roundtrip_as(dir, 4, NULL, RT_TEE, XRX_COPY_FULL),
			 0);
}

/* Split @rec against a zeroed packet of @plen bytes: refused, nothing out. */
static void refused(__u32 plen, const __u8 *rec, __u32 rec_len)
{
	__u8 *pkt = calloc(1, plen);
	struct rt *r = calloc(1, sizeof(*r));

	assert_non_null(pkt);
	assert_non_null(r);
	assert_int_equal(xrx_segrec__split(pkt, plen, plen, 0, rec, rec_len,
					   emit, r),
			 -EINVAL);
	assert_int_equal(r->nr_out, 0);
	free(r);
	free(pkt);
}

/* A record that does not add up to its packet: refused, nothing out. */
static void test_malformed(void **state)
{
	static const __u8 rec[] = { 1, 2, 54, 0, 14, 34, 0,
				    0x80, 0x0f, 0, 0, 0, 0, 0 };

	(void)state;
	refused(600, rec, sizeof(rec));
	refused(600, rec, 3);
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

/*
 * Header offsets are the file's too: one near 2^32 must not wrap the
 * layout's bounds checks into passing (an L4 offset of 0xfffffff0 plus
 * a TCP header is 4, found by fuzz_segrec).
 */
static void test_offset_wrap(void **state)
{
	static const __u8 rec[] = { 1, 2, 54, 0, 14,
				    0xf0, 0xff, 0xff, 0xff, 0x0f, 0,
				    2, 0, 0, 0, 0, 0 };

	(void)state;
	refused(56, rec, sizeof(rec));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bulk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fixed_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_times_plain, setup, teardown),
		cmocka_unit_test(test_spec),
		cmocka_unit_test_setup_teardown(test_two_queues, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rotate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tee, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tee_unrecorded, setup,
						teardown),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_delta_out_of_range),
		cmocka_unit_test(test_offset_wrap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
