// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The pcap sink across starts (user/lib/sink/pcap.c): a start never
 * empties a file that holds records. An earlier run's PATH is rotated
 * out as a full one is (PATH -> PATH.1 ...), byte for byte; the set
 * keeps its files= bound across any number of restarts, the newest run
 * always in PATH; a file with only a header is simply started again; a
 * file that is no capture is moved aside, not emptied.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include <xrx/engine.h>
#include <xrx/sink.h>

#include "sink/merge.h"

struct fx {
	char dir[64];
	char path[128];
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/xrx-test-pcap.XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	snprintf(fx->path, sizeof(fx->path), "%s/cap.pcap", fx->dir);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->dir);
	if (system(cmd))
		return -1;
	free(fx);
	return 0;
}

/* One run: open @spec, deliver @n 60-byte frames whose byte 20 is @tag,
 * close. */
/* Deliver @n packets of the @len-byte @frame to @s, then flush it. */
static void deliver_n(struct xrx_sink *s, __u8 *frame, __u32 len,
		      unsigned int n)
{
	struct xrx_pkt pkt;
	unsigned int i;

	for (i = 0; i < n; i++) {
		memset(&pkt, 0, sizeof(pkt));
		pkt.head = frame;
		pkt.head_len = len;
		pkt.len = len;
		assert_int_equal(xrx_sink__deliver(s, &pkt), 0);
	}
	assert_int_equal(xrx_sink__flush(s), 0);
}

/* Queue @queue's instance of the sink @spec for @nr_queues queues. */
static struct xrx_sink *open_queue(const char *spec, __u32 nr_queues,
				   __u32 queue)
{
	struct xrx_sink_opts o = { .sz = sizeof(o), .nr_queues = nr_queues,
				   .queue = queue };
	struct xrx_sink *s = xrx_sink__open(spec, &o);

	assert_non_null(s);
	return s;
}

static void run(const char *spec, unsigned int n, __u8 tag)
{
	struct xrx_sink *s = xrx_sink__open(spec, NULL);
	__u8 frame[60];

	assert_non_null(s);
	memset(frame, 0, sizeof(frame));
	frame[12] = 0x08;		/* IPv4 */
	frame[20] = tag;
	deliver_n(s, frame, sizeof(frame), n);
	xrx_sink__close(s);
}

/* The file @path's bytes into @buf (at most @len); -1 if it is absent. */
static long slurp(const char *path, __u8 *buf, size_t len)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len, f);
	fclose(f);
	return (long)n;
}

static bool exists(const char *path)
{
	return !access(path, F_OK);
}

/* pcap: 24 bytes of header, then 16 + 60 per record. */
#define HDR 24
#define REC (16 + 60)

/* The tag of every record of @path, which must all be @tag, and how
 * many there are. */
static long records_tagged(const char *path, __u8 tag)
{
	static __u8 buf[1 << 16];
	long n = slurp(path, buf, sizeof(buf)), off;

	if (n < HDR || (n - HDR) % REC)
		return -1;
	for (off = HDR; off < n; off += REC)
		if (buf[off + 16 + 20] != tag)
			return -1;
	return (n - HDR) / REC;
}

static void test_restart_keeps_records(void **state)
{
	struct fx *fx = *state;
	char spec[160], one[160];
	static __u8 before[1 << 16], after[1 << 16];
	long n0, n1;

	snprintf(spec, sizeof(spec), "pcap:%s,size=64K,files=4", fx->path);
	snprintf(one, sizeof(one), "%s.1", fx->path);
	run(spec, 10, 1);
	n0 = slurp(fx->path, before, sizeof(before));
	assert_int_equal(n0, HDR + 10 * REC);
	/* A restart that captures nothing yet. */
	run(spec, 0, 2);
	n1 = slurp(one, after, sizeof(after));
	assert_int_equal(n1, n0);
	assert_memory_equal(before, after, (size_t)n0);
	assert_int_equal(slurp(fx->path, after, sizeof(after)), HDR);
}

static void test_bound_across_restarts(void **state)
{
	struct fx *fx = *state;
	char spec[160], name[160];
	unsigned int run_no, k;

	snprintf(spec, sizeof(spec), "pcap:%s,size=64K,files=3", fx->path);
	for (run_no = 1; run_no <= 6; run_no++)
		run(spec, run_no, (__u8)run_no);
	/* files=3: PATH (run 6), PATH.1 (run 5), PATH.2 (run 4), no more */
	assert_int_equal(records_tagged(fx->path, 6), 6);
	for (k = 1; k <= 2; k++) {
		snprintf(name, sizeof(name), "%s.%u", fx->path, k);
		assert_int_equal(records_tagged(name, (__u8)(6 - k)), 6 - k);
	}
	snprintf(name, sizeof(name), "%s.3", fx->path);
	assert_false(exists(name));
}

static void test_rotation_then_restart(void **state)
{
	struct fx *fx = *state;
	char spec[160], name[160];
	unsigned int k;

	/* 4096-byte files hold 53 records: 120 make PATH.1 and PATH.2 of
	 * run 1 (rotated by size) and a PATH of it with 14. */
	snprintf(spec, sizeof(spec), "pcap:%s,size=4096,files=4", fx->path);
	run(spec, 120, 1);
	assert_int_equal(records_tagged(fx->path, 1), 14);
	run(spec, 5, 2);
	assert_int_equal(records_tagged(fx->path, 2), 5);
	snprintf(name, sizeof(name), "%s.1", fx->path);
	assert_int_equal(records_tagged(name, 1), 14);
	for (k = 2; k <= 3; k++) {
		snprintf(name, sizeof(name), "%s.%u", fx->path, k);
		assert_int_equal(records_tagged(name, 1), 53);
	}
	snprintf(name, sizeof(name), "%s.4", fx->path);
	assert_false(exists(name));
}

static void test_header_only_restarts_in_place(void **state)
{
	struct fx *fx = *state;
	char spec[160], one[160];

	snprintf(spec, sizeof(spec), "pcap:%s,size=64K,files=4", fx->path);
	snprintf(one, sizeof(one), "%s.1", fx->path);
	run(spec, 0, 1);
	run(spec, 0, 1);
	run(spec, 3, 1);
	assert_false(exists(one));
	assert_int_equal(records_tagged(fx->path, 1), 3);
}

static void test_without_size(void **state)
{
	struct fx *fx = *state;
	char spec[160], one[160];

	snprintf(spec, sizeof(spec), "pcap:%s", fx->path);
	snprintf(one, sizeof(one), "%s.1", fx->path);
	run(spec, 7, 1);
	run(spec, 2, 2);
	assert_int_equal(records_tagged(one, 1), 7);
	assert_int_equal(records_tagged(fx->path, 2), 2);
}

static void test_foreign_file_moved_aside(void **state)
{
	struct fx *fx = *state;
	char spec[160], one[160];
	static const char text[] = "not a capture, but someone's data\n";
	__u8 buf[64];
	FILE *f = fopen(fx->path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	snprintf(spec, sizeof(spec), "pcap:%s", fx->path);
	snprintf(one, sizeof(one), "%s.1", fx->path);
	run(spec, 1, 1);
	assert_int_equal(slurp(one, buf, sizeof(buf)), (long)strlen(text));
	assert_memory_equal(buf, text, strlen(text));
	assert_int_equal(records_tagged(fx->path, 1), 1);
}

/* One 60-byte frame with byte 20 @tag to @s. */
static void put(struct xrx_sink *s, __u8 tag)
{
	static __u8 frame[4][60];
	static unsigned int k;
	struct xrx_pkt pkt;
	__u8 *f = frame[k++ % 4];

	memset(f, 0, 60);
	f[12] = 0x08;
	f[20] = tag;
	memset(&pkt, 0, sizeof(pkt));
	pkt.head = f;
	pkt.head_len = 60;
	pkt.len = 60;
	assert_int_equal(xrx_sink__deliver(s, &pkt), 0);
}

/*
 * Two queues, one file: records reach the two instances in the order
 * q1, q0, q1, q0 (each queue ending its batch after each), and the file
 * holds them in that order (their times), each in an EPB whose
 * interface is its queue, after an SHB and one IDB per queue with
 * if_tsresol 9. No PATH.qN.
 */
static void test_two_queues_one_file(void **state)
{
	struct fx *fx = *state;
	struct xrx_sink_opts o = { .sz = sizeof(o), .nr_queues = 2 };
	struct xrx_sink *s[2];
	char spec[192], q0[160];
	static __u8 buf[8192];
	__u32 off, type, len, nidb = 0, nepb = 0, ifs[8], tags[8];
	__u64 ts, prev = 0;
	unsigned int i;
	long n;

	snprintf(spec, sizeof(spec), "pcap:%s,format=pcapng", fx->path);
	for (i = 0; i < 2; i++) {
		o.queue = i;
		s[i] = xrx_sink__open(spec, &o);
		assert_non_null(s[i]);
	}
	for (i = 0; i < 4; i++) {
		put(s[1 - i % 2], (__u8)(10 + i));
		assert_int_equal(xrx_sink__flush(s[1 - i % 2]), 0);
	}
	xrx_sink__close(s[1]);
	xrx_sink__close(s[0]);
	snprintf(q0, sizeof(q0), "%s.q0", fx->path);
	assert_false(exists(q0));
	n = slurp(fx->path, buf, sizeof(buf));
	assert_true(n > 0);
	for (off = 0; off + 12 <= (__u32)n; off += len) {
		memcpy(&type, buf + off, 4);
		memcpy(&len, buf + off + 4, 4);
		assert_true(len >= 12 && off + len <= (__u32)n);
		if (type == 1) {
			/* linktype, reserved, snaplen, then if_tsresol */
			__u16 code;

			memcpy(&code, buf + off + 16, 2);
			assert_int_equal(code, 9);
			assert_int_equal(buf[off + 20], 9);
			nidb++;
		} else if (type == 6) {
			assert_true(nepb < 8);
			memcpy(&ifs[nepb], buf + off + 8, 4);
			memcpy(&ts, buf + off + 12, 8);
			ts = ts >> 32 | ts << 32;	/* high word first */
			assert_true(ts >= prev);
			prev = ts;
			tags[nepb++] = buf[off + 28 + 20];
		}
	}
	assert_int_equal(nidb, 2);
	assert_int_equal(nepb, 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(ifs[i], 1 - i % 2);
		assert_int_equal(tags[i], 10 + i);
	}
}

/*
 * A sink's last records are written as it closes: the per-queue writer's
 * queue (nothing flushed before), the one-file writer's last pass (the
 * last queue to leave, its records not yet taken by the writer). Read
 * before the close, the counters miss them (live swaps once folded them
 * so: a packet in, never out); xrx_sink__close_stats() has them all.
 */
static void test_close_stats(void **state)
{
	static __u8 f[3][60];
	static struct xrx_pkt pkt[3];
	struct fx *fx = *state;
	__u64 v[XRX_SINK_STAT_MAX];
	char spec[192];
	unsigned int k, i;

	/* k 0: one queue, its own file; k 1: two queues, one file */
	for (k = 0; k < 2; k++) {
		struct xrx_sink *s, *s1 = NULL;

		snprintf(spec, sizeof(spec), "pcap:%s.%u,format=pcapng",
			 fx->path, k);
		if (k)
			s1 = open_queue(spec, k + 1, 1);
		s = open_queue(spec, k + 1, 0);
		/* kept until the close: the per-queue writer writes them
		 * from where they are (put()'s packet is on its stack) */
		for (i = 0; i < 3; i++) {
			memset(f[i], 0, sizeof(f[i]));
			f[i][12] = 0x08;
			f[i][20] = (__u8)i;
			memset(&pkt[i], 0, sizeof(pkt[i]));
			pkt[i].head = f[i];
			pkt[i].head_len = sizeof(f[i]);
			pkt[i].len = sizeof(f[i]);
			assert_int_equal(xrx_sink__deliver(s, &pkt[i]), 0);
		}
		if (!k) {
			/* queued, not yet written: what a count read
			 * before the close sees */
			xrx_sink__stats(s, v);
			assert_int_equal(v[XRX_SINK_STAT_PKTS_OUT], 0);
		}
		xrx_sink__close(s1);
		xrx_sink__close_stats(s, v);
		assert_int_equal(v[XRX_SINK_STAT_PKTS_IN], 3);
		assert_int_equal(v[XRX_SINK_STAT_PKTS_OUT], 3);
		assert_int_equal(v[XRX_SINK_STAT_ERRORS] +
					 v[XRX_SINK_STAT_DROPPED], 0);
	}
}

/*
 * A queue that leaves the one file while the writer cannot take its
 * records (here: the other queue in a batch that never ends, the hold
 * out of reach; live, a file system that hangs) gives them up after its
 * wait, and counts them: every packet in is out, an error or dropped.
 */
static void test_leave_counts_untaken(void **state)
{
	static __u8 f[60];
	__u64 hold = xrx_merge__hold_ns, v[XRX_SINK_STAT_MAX];
	__u32 wait = xrx_merge__leave_ms;
	struct fx *fx = *state;
	struct xrx_sink *s0, *s1;
	char spec[192];

	xrx_merge__hold_ns = 3600ull * 1000000000ull;
	xrx_merge__leave_ms = 50;
	snprintf(spec, sizeof(spec), "pcap:%s", fx->path);
	s0 = open_queue(spec, 2, 0);
	s1 = open_queue(spec, 2, 1);
	s0->ops->begin(s0, 0);		/* queue 0: in a batch, no mark */
	f[12] = 0x08;
	deliver_n(s1, f, sizeof(f), 3);
	xrx_sink__close_stats(s1, v);
	assert_int_equal(v[XRX_SINK_STAT_PKTS_IN], 3);
	assert_int_equal(v[XRX_SINK_STAT_PKTS_OUT] + v[XRX_SINK_STAT_ERRORS] +
				 v[XRX_SINK_STAT_DROPPED], 3);
	assert_int_equal(v[XRX_SINK_STAT_ERRORS], 3);
	assert_int_equal(xrx_sink__flush(s0), 0);
	xrx_sink__close(s0);
	xrx_merge__hold_ns = hold;
	xrx_merge__leave_ms = wait;
}

/* xrx_sink__stats(@s)[@st], read while the writer thread adds to it. */
static __u64 stat_of(struct xrx_sink *s, enum xrx_sink_stat st)
{
	__u64 v[XRX_SINK_STAT_MAX];

	xrx_sink__stats(s, v);
	return v[st];
}

/*
 * One file, two queues, one of them idle (one flow, which RSS keeps on
 * one queue): the busy queue's records are written without waiting on
 * the idle one. With the hold out of reach, each batch must be written
 * while queue 1, open, never delivers nor ends a batch; in all more than
 * a ring holds, none lost, and segs_out counts each record's segments.
 */
static void test_idle_queue_holds_no_one_up(void **state)
{
	enum { LEN = 60000, SEGS = 41, BATCH = 40, BATCHES = 8 };
	struct fx *fx = *state;
	struct xrx_sink_opts o = { .sz = sizeof(o), .nr_queues = 2 };
	static __u8 frame[LEN];
	__u64 hold = xrx_merge__hold_ns, sent = 0;
	struct xrx_sink *s[2];
	struct timespec ms = { .tv_nsec = 1000000 };
	struct xrx_pkt pkt;
	struct stat st;
	char spec[192];
	unsigned int b, i, w;

	xrx_merge__hold_ns = 3600ull * 1000000000ull;
	snprintf(spec, sizeof(spec), "pcap:%s,snaplen=65535", fx->path);
	for (i = 0; i < 2; i++) {
		o.queue = i;
		s[i] = xrx_sink__open(spec, &o);
		assert_non_null(s[i]);
	}
	frame[12] = 0x08;
	for (b = 0; b < BATCHES; b++) {
		for (i = 0; i < BATCH; i++) {
			memset(&pkt, 0, sizeof(pkt));
			pkt.head = frame;
			pkt.head_len = LEN;
			pkt.len = LEN;
			pkt.gso_segs = SEGS;
			assert_int_equal(xrx_sink__deliver(s[0], &pkt), 0);
		}
		sent += BATCH;
		assert_int_equal(xrx_sink__flush(s[0]), 0);
		/* Written (bounded: 20 s on a loaded machine), before the
		 * next batch reuses the ring. */
		for (w = 0; w < 20000 &&
			    stat_of(s[0], XRX_SINK_STAT_PKTS_OUT) < sent; w++)
			nanosleep(&ms, NULL);
		assert_int_equal(stat_of(s[0], XRX_SINK_STAT_PKTS_OUT), sent);
	}
	assert_true(sent * (16 + LEN) > XRX_MERGE_RING_BYTES);
	assert_int_equal(stat_of(s[0], XRX_SINK_STAT_DROPPED), 0);
	assert_int_equal(stat_of(s[0], XRX_SINK_STAT_HANDOFF_FULL), 0);
	assert_int_equal(stat_of(s[0], XRX_SINK_STAT_SEGS_OUT), sent * SEGS);
	assert_int_equal(stat_of(s[0], XRX_SINK_STAT_SEGS_IN), sent * SEGS);
	xrx_sink__close(s[1]);
	xrx_sink__close(s[0]);
	xrx_merge__hold_ns = hold;
	assert_int_equal(stat(fx->path, &st), 0);
	assert_int_equal(st.st_size, HDR + sent * (16 + LEN));
}

/* A single queue: pcap with the nanosecond magic. */
static void test_nanosecond_magic(void **state)
{
	struct fx *fx = *state;
	char spec[160];
	__u8 buf[HDR];

	snprintf(spec, sizeof(spec), "pcap:%s", fx->path);
	run(spec, 1, 1);
	assert_int_equal(slurp(fx->path, buf, sizeof(buf)), HDR);
	assert_int_equal(*(__u32 *)buf, 0xa1b23c4d);
}

/* The new options' mistakes, each refused with one line naming it. */
static void test_spec_errors(void **state)
{
	static const char *const bad[][2] = {
		{ "/x/rx.pcap,rotate=60", "strftime" },
		{ "/x/rx-%s.pcap,rotate=0", "rotate=0" },
		{ "/x/rx.pcap,compress=zstd", "rotate=" },
		{ "/x/rx-%s.pcap,rotate=5,compress=gzip", "compress=gzip" },
		{ "/x/rx-%s.pcap,rotate=5,hook=ship", "absolute path" },
		{ "/x/rx.pcap,format=erf", "format=erf" },
		{ "/x/rx-%s.pcap,rotate=5,perqueue", "perqueue" },
		{ "/x/rx-%s.pcap,rotate=5,size=1M,files=3", "files=" },
	};
	struct xrx_sink_opts o = { .sz = sizeof(o) };
	char path[256], err[512];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o = (struct xrx_sink_opts){ .sz = sizeof(o) };
		assert_int_equal(xrx_sink_pcap__parse(bad[i][0], path,
						      sizeof(path), &o, err,
						      sizeof(err)), -EINVAL);
		if (!strstr(err, bad[i][1]))
			fail_msg("%s: '%s' lacks '%s'", bad[i][0], err,
				 bad[i][1]);
	}
	o = (struct xrx_sink_opts){ .sz = sizeof(o) };
	assert_int_equal(xrx_sink_pcap__parse("/x/rx-%s.pcapng,format=pcapng,rotate=5,compress=zstd,hook=/bin/true",
					      path, sizeof(path), &o, err,
					      sizeof(err)), 0);
	assert_string_equal(path, "/x/rx-%s.pcapng");
	/* lossless goes through the one-file writer: rotate= and all */
	o = (struct xrx_sink_opts){ .sz = sizeof(o) };
	assert_int_equal(xrx_sink_pcap__parse("/x/rx-%s.pcapng,lossless,rotate=5,compress=zstd,hook=/bin/true",
					      path, sizeof(path), &o, err,
					      sizeof(err)), 0);
	assert_true(o.lossless);
}

/*
 * filter=: the view is the packet as written. A tag the NIC stripped
 * (vlan_proto/vlan_tci) is put back before the program runs, and the
 * payload bytes after a short head come from the frags: "vlan 10 and
 * tcp[20:4] = 'GET '" matches the tagged aggregate whose payload, in
 * its first frag, starts "GET "; the same bytes with tag 20, or "PUT ",
 * do not. What is left out counts in filtered and segs_filtered, what
 * is written in segs_out, by segments.
 */
static void test_filter_view(void **state)
{
	struct fx *fx = *state;
	__u64 st[XRX_SINK_STAT_MAX];
	__u8 head[54], pay[2][1000];
	struct xrx_frag frags[2];
	struct xrx_pkt pkt;
	struct xrx_sink *s;
	char spec[256];
	int i;

	snprintf(spec, sizeof(spec),
		 "pcap:%s,filter=vlan 10 and tcp[20:4] = 0x47455420", fx->path);
	s = xrx_sink__open(spec, NULL);
	assert_non_null(s);
	memset(head, 0, sizeof(head));
	head[12] = 0x08;			/* IPv4 */
	head[14] = 0x45;			/* IHL 5 */
	head[14 + 9] = 6;			/* TCP */
	head[14 + 20 + 12] = 5 << 4;		/* doff 5 */
	for (i = 0; i < 4; i++) {
		memset(pay, 'x', sizeof(pay));
		memcpy(pay[0], i == 2 ? "PUT " : "GET ", 4);
		frags[0] = (struct xrx_frag){ .data = pay[0], .len = 1000 };
		frags[1] = (struct xrx_frag){ .data = pay[1], .len = 1000 };
		memset(&pkt, 0, sizeof(pkt));
		pkt.head = head;
		pkt.head_len = sizeof(head);
		pkt.frags = frags;
		pkt.nr_frags = 2;
		pkt.len = sizeof(head) + 2000;
		pkt.gso_segs = 2;
		pkt.vlan_proto = 0x8100;
		pkt.vlan_tci = i == 1 ? 20 : 10;	/* 0, 3 match */
		assert_int_equal(xrx_sink__deliver(s, &pkt), 0);
	}
	assert_int_equal(xrx_sink__flush(s), 0);
	xrx_sink__stats(s, st);
	xrx_sink__close(s);
	assert_int_equal(st[XRX_SINK_STAT_PKTS_OUT], 2);
	assert_int_equal(st[XRX_SINK_STAT_FILTERED], 2);
	assert_int_equal(st[XRX_SINK_STAT_SEGS_IN], 8);
	assert_int_equal(st[XRX_SINK_STAT_SEGS_OUT], 4);
	assert_int_equal(st[XRX_SINK_STAT_SEGS_FILTERED], 4);
	assert_int_equal(st[XRX_SINK_STAT_ERRORS], 0);
	/* a refused expression: no sink */
	snprintf(spec, sizeof(spec), "pcap:%s,filter=tcp prot 80", fx->path);
	assert_null(xrx_sink__open(spec, NULL));
	assert_int_equal(errno, EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_restart_keeps_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bound_across_restarts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rotation_then_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_header_only_restarts_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_without_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_file_moved_aside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leave_counts_untaken,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_stats, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_two_queues_one_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_queue_holds_no_one_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nanosecond_magic, setup, teardown),
		cmocka_unit_test(test_spec_errors),
		cmocka_unit_test_setup_teardown(test_filter_view, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
