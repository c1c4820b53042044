// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The pcap sink: every delivered packet as one record of a classic pcap
 * file (LINKTYPE_ETHERNET), readable by tcpdump, tshark and libpcap.
 *
 * No payload is copied: a record is written with writev() straight from
 * the packet's head buffer and its frags in the UMEM. To keep syscalls
 * off the per-packet path, packets are queued (the sink owns them until
 * written, as include/xrx/sink.h allows) and written with one writev() at
 * the end of the batch or when the queue or the iovec array is full.
 *
 * "pcap:PATH" writes PATH: with several queues (or rotate=) all of them
 * into one file in timestamp order through a writer thread that merges
 * per-queue hand-offs (sink/merge.c: the worker copies, never waits);
 * with "perqueue", or a single queue, each instance writes its own file
 * directly (PATH.qN per queue: one writer per file, no locks). Timestamps
 * are nanoseconds: the nanosecond pcap magic, or pcapng ("format=pcapng",
 * sink/pcapng.c) with an Interface Description Block per queue, whose
 * index is each packet's interface_id. Options after the path
 * (",size=64M,files=4,snaplen=128") set rotation and snaplen, so a
 * capture in a RAM-backed directory has a bound: size x files per queue. PATH may be a FIFO: its open()
 * waits for a reader, as a FIFO does, and a slow reader slows the worker
 * (the socket then drops and counts, never the sink); with opts->no_wait
 * (a tee, which must never hold the sink beside it up) a FIFO is refused.
 *
 * Rotation (opts->rotate_bytes): before a record would take the file past
 * the limit, PATH.(k-1) -> PATH.k ... PATH -> PATH.1 and a new PATH is
 * started, keeping rotate_count old files. FIFOs are never rotated.
 *
 * A start never empties a file that holds records (a restart of xrxd
 * must not destroy the capture it was making, least of all the one of a
 * crash): an existing PATH with more than a header in it is rotated out
 * first, as when it fills, so PATH is always the newest file, the set
 * keeps its bound (rotate_count old files, the oldest going out) across
 * runs, and one line says where the capture goes on. Appending to the
 * old PATH instead would have to trust the tail of a file a crash may
 * have torn and a header (snaplen, format) another config wrote; names
 * of their own per run would break both the bound and "PATH is newest".
 *
 * A file never ends in a torn record: when a write fails part way (a
 * full file system: ENOSPC, EDQUOT), the file is cut back with
 * ftruncate() to the end of its last whole record, the records that did
 * not make it are counted in errors (and nospace), and the next batch is
 * written from there, so the capture goes on by itself once space
 * returns. A file whose header could not be written (a rotation on a
 * full file system) is emptied, and the header tried again at the end of
 * each batch; the packets until then are lost and counted.
 *
 * ",filter=EXPR" (opts->filter), the last option, writes only the packets
 * the tcpdump expression EXPR matches (sink/filter.h), counting the
 * others in filtered, which is not a loss.
 *
 * ",explain" (opts->explain) writes pcapng instead: a Section Header and
 * an Interface Description block, then every packet as an Enhanced Packet
 * Block whose opt_comment says why GRO ended it (xrx_pkt__explain()),
 * which tshark shows as frame.comment and Wireshark in the packet list.
 * libpcap cannot write that: its only writer, pcap_dump(), takes a struct
 * pcap_pkthdr, which has no room for options, and 1.10 (Debian 12)
 * exports no pcapng writer. The blocks are written in host byte order,
 * which the byte-order magic tells readers, as tcpdump's pcap files are.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>

#include <linux/capability.h>
#include <linux/magic.h>
#include <sys/syscall.h>

#include <xrx/engine.h>
#include <xrx/explain.h>
#include <xrx/live.h>
#include <xrx/sink.h>
#include <xrx/options.h>
#include <xrx/segrec.h>
#include "sink/filter.h"

#include "sink/capfile.h"
#include "sink/merge.h"
#include "sink/pcapng.h"

#include "sink/lossless.h"

#define PCAP_LINKTYPE_ETHERNET 1
#define PCAP_ROTATE_COUNT_DEFAULT 8
#define PCAP_SIZE_MIN 4096		/* a header and a few records */
#define PCAP_FILES_MAX 1000
#define PCAP_QUEUE 64			/* packets per writev */
#define PCAP_IOVS 1024			/* UIO_MAXIOV */
#define PCAP_ARENA (1u << 20)		/* lossless: records of a queue */

/* The time option (include/xrx/segrec.h): code, length, PEN, value */
#define PCAPNG_TIME_OPT (8 + sizeof(struct xrx_time_opt))
/* After an EPB's data: its padding, opt_comment, the time option,
 * opt_endofopt and the block's length again */
#define PCAPNG_TRAILER (3 + 4 + XRX_PCAPNG_PAD4(XRX_EXPLAIN_MAX) + \
			PCAPNG_TIME_OPT + 4 + 4)
#define PCAP_HDR_MAX 512		/* the direct writer's file header */
#define PCAP_ROTATE_SECS_MAX (7 * 86400)

struct pcap_rec_hdr {
	__u32 ts_sec;
	__u32 ts_frac;			/* usec or nsec, as the magic says */
	__u32 incl_len;
	__u32 orig_len;
};

/* What a spec says beyond struct xrx_sink_opts (pcap_parse()). */
struct pcap_spec {
	char path[PATH_MAX];
	bool perqueue;			/* PATH.qN per queue, as before */
	bool ng;			/* format=pcapng */
	__u32 rotate_secs;		/* rotate=N */
	bool zstd;			/* compress=zstd */
	char hook[XRX_MERGE_HOOK_MAX];	/* hook=PROGRAM */
};

struct pcap_sink {
	int fd;
	struct xrx_merge_q *mq;		/* one file for all queues: the
					 * writer's hand-off (sink/merge.h) */
	__u64 held_ns;			/* ... the engine holds packets
					 * that arrived then (pcap_begin()) */
	__u32 queue;
	bool fifo;
	bool no_wait;			/* refuse a FIFO (opts->no_wait) */
	bool nsec;
	bool ng;			/* pcapng */
	bool explain;			/* ... with explanations */
	struct xrx_lossless *ll;	/* ... with segment records */
	__u8 *arena;			/* the queue's records, each followed
					 * by opt_endofopt and the block's
					 * length */
	__u32 arena_used;
	__u32 max_aggregate;		/* for them */
	__u32 hdr_bytes;		/* of the file header */
	__u32 snaplen;
	__u32 rotate_count;
	__u64 rotate_bytes;
	__u64 file_bytes;		/* written to the current file; 0:
					 * its header did not fit (hdr_err) */
	int hdr_err;
	bool full;			/* the last write found no space */
	bool root_reserve;		/* may write into ext4's reserved
					 * blocks (pcap_may_use_reserve()) */
	__u64 queued_bytes;		/* records waiting in the queue */
	__u32 nr_pkts;
	__u32 nr_iovs;
	struct xrx_pkt *pkts[PCAP_QUEUE];
	__u32 rec_bytes[PCAP_QUEUE];	/* each record, headers included */
	struct pcap_rec_hdr recs[PCAP_QUEUE];
	struct xrx_pcapng_epb epbs[PCAP_QUEUE];
	__u8 trailers[PCAP_QUEUE][PCAPNG_TRAILER];
	__u8 tags[PCAP_QUEUE][4];	/* out-of-band VLAN tags, put back */
	struct iovec iov[PCAP_IOVS];
	char path[PATH_MAX];
	struct xrx_filter *filter;	/* filter=: what to write */
};

static bool pcap_err_nospace(int err)
{
	return err == -ENOSPC || err == -EDQUOT;
}

/* The file header into @buf: pcap's, or a Section Header and one
 * Interface Description Block, the queue's. Return: its bytes. */
static __u32 pcap_build_header(const struct pcap_sink *p, __u8 *buf,
			       size_t cap)
{
	struct pcap_file_hdr h = {
		.magic = p->nsec ? PCAP_MAGIC_NS : PCAP_MAGIC_US,
		.version_major = 2,
		.version_minor = 4,
		.snaplen = p->snaplen,
		.linktype = PCAP_LINKTYPE_ETHERNET,
	};
	char name[32], comment[160];
	__u32 n;

	if (!p->ng) {
		memcpy(buf, &h, sizeof(h));
		return sizeof(h);
	}
	snprintf(name, sizeof(name), "q%u", p->queue);
	snprintf(comment, sizeof(comment), XRX_PCAPNG_IDB_COMMENT, p->queue);
	n = xrx_pcapng_shb(buf, cap, "xrx");
	return n + xrx_pcapng_idb(buf + n, cap - n, p->snaplen,
				  p->nsec ? 9 : 6, name, comment);
}

static int pcap_write_header(struct xrx_sink *s, struct pcap_sink *p)
{
	__u8 hdr[PCAP_HDR_MAX];
	ssize_t n;

	p->hdr_bytes = pcap_build_header(p, hdr, sizeof(hdr));
	n = write(p->fd, hdr, p->hdr_bytes);
	if (n != (ssize_t)p->hdr_bytes) {
		int err = n < 0 ? -errno : -ENOSPC;

		p->full = pcap_err_nospace(err);
		/* A header cut short is no pcap file: empty it, so the
		 * next record tries again (pcap_deliver()). */
		if (!p->fifo && n > 0 && !ftruncate(p->fd, 0))
			lseek(p->fd, 0, SEEK_SET);
		p->file_bytes = 0;
		p->hdr_err = err;
		return err;
	}
	p->file_bytes = p->hdr_bytes;
	xrx_sink__count(s, XRX_SINK_STAT_BYTES_OUT, p->hdr_bytes);
	return 0;
}

static int pcap_open_file(struct xrx_sink *s, struct pcap_sink *p)
{
	struct stat st;

	if (!stat(p->path, &st) && S_ISFIFO(st.st_mode)) {
		if (p->no_wait) {
			fprintf(stderr, "xrx: pcap %s is a FIFO: a slow reader would hold up every write, and this writer must never wait; write to a file\n",
				p->path);
			return -EINVAL;
		}
		p->fifo = true;
		p->fd = open(p->path, O_WRONLY | O_CLOEXEC);
	} else {
		p->fd = open(p->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0644);
	}
	if (p->fd < 0)
		return -errno;
	return pcap_write_header(s, p);
}

/* A packet lost to write error @err; a full file system also in nospace. */
static void pcap_count_lost(struct xrx_sink *s, int err)
{
	xrx_sink__count(s, XRX_SINK_STAT_ERRORS, 1);
	if (pcap_err_nospace(err))
		xrx_sink__count(s, XRX_SINK_STAT_NOSPACE, 1);
}

/* A record's bytes besides its packet's: pcap's header, or an EPB's
 * header, padding, comment and trailing length at their longest. */
static __u32 pcap_rec_overhead(const struct pcap_sink *p)
{
	return p->ng ? sizeof(struct xrx_pcapng_epb) + PCAPNG_TRAILER :
		       sizeof(struct pcap_rec_hdr);
}

/*
 * May this process write into the blocks ext2/3/4 reserve for root? ext4
 * lets a writer into them whose fsuid is the reserve's owner (s_resuid:
 * root unless tune2fs -u changed it), who is in its group (s_resgid) or
 * who has CAP_SYS_RESOURCE (ext4_has_free_clusters()). xrxd runs as root.
 */
static bool pcap_may_use_reserve(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };

	if (geteuid() == 0)
		return true;
	if (syscall(SYS_capget, &h, d))
		return false;
	return d[CAP_TO_INDEX(CAP_SYS_RESOURCE)].effective &
	       CAP_TO_MASK(CAP_SYS_RESOURCE);
}

/*
 * The bytes this writer can still put on the file system of @sf.
 * f_bavail leaves out ext4's root reserve (tune2fs -m, 5% by default),
 * yet a writer the reserve admits (above) writes into it: judged by
 * f_bavail, a capture by root that filled the disk would wait until more
 * than the whole reserve is free again. Such a writer may use f_bfree
 * less what ext4 keeps back from everyone, root included, and still
 * counts in f_bfree (ext4_statfs()): s_resv_clusters, 2% of the clusters
 * and at most 4096 (ext4_calculate_resv_clusters()), estimated here from
 * f_blocks (which lacks the metadata, so the estimate is a little low; a
 * write that then finds no room fails, is cut back and counted as any
 * other). Other file systems, and other writers: f_bavail.
 */
static __u64 pcap_writable_bytes(const struct pcap_sink *p,
				 const struct statfs *sf)
{
	__u64 avail = (__u64)sf->f_bavail, keep = (__u64)sf->f_blocks / 50;

	if (p->root_reserve && sf->f_type == EXT4_SUPER_MAGIC) {
		if (keep > 4096)
			keep = 4096;
		if ((__u64)sf->f_bfree > keep + avail)
			avail = (__u64)sf->f_bfree - keep;
	}
	return avail * (__u64)sf->f_bsize;
}

/*
 * Still no space since the last write found none? Cutting a torn record
 * back frees its blocks, so the next batch would fit them and the one
 * after fail again, an episode a batch. So once full, nothing is written
 * (one fstatfs() a batch instead of the writev()) until the file system
 * has room for the batch and for more than the largest record and a
 * block beyond it: more than a cut-back can have freed.
 */
static bool pcap_still_full(struct pcap_sink *p)
{
	struct statfs sf;

	if (p->full && !p->fifo && !fstatfs(p->fd, &sf) &&
	    pcap_writable_bytes(p, &sf) <
		    p->queued_bytes + p->snaplen + pcap_rec_overhead(p) +
		    (__u64)sf.f_bsize)
		return true;
	p->full = false;
	return false;
}

/*
 * A write that failed after @written bytes of the queue: keep the whole
 * records among them, cut the file back to the end of the last one.
 * Return: the bytes of those whole records.
 */
static __u64 pcap_keep_whole(struct pcap_sink *p, __u64 written)
{
	__u64 whole = 0, rec;
	__u32 i;

	for (i = 0; i < p->nr_pkts; i++) {
		rec = p->rec_bytes[i];
		if (whole + rec > written)
			break;
		whole += rec;
	}
	/* A FIFO cannot be cut back: what its reader got is gone. */
	if (written > whole && !p->fifo &&
	    !ftruncate(p->fd, (off_t)(p->file_bytes + whole)))
		lseek(p->fd, (off_t)(p->file_bytes + whole), SEEK_SET);
	return whole;
}

/* Write the queue in as few writev() calls as the kernel accepts. */
static int pcap_write_queue(struct xrx_sink *s, struct pcap_sink *p)
{
	struct iovec *iov = p->iov;
	int cnt = (int)p->nr_iovs, err = 0;
	__u64 written = 0, whole, rec, done = 0;
	__u32 i;

	if (pcap_still_full(p)) {
		err = -ENOSPC;
		cnt = 0;
	}
	if (cnt > 0)
		err = xrx_pcap__writev_all(p->fd, iov, cnt, &written);
	whole = err ? pcap_keep_whole(p, written) : p->queued_bytes;
	p->full = pcap_err_nospace(err);
	for (i = 0; i < p->nr_pkts; i++) {
		rec = p->rec_bytes[i];
		if (done + rec > whole) {
			pcap_count_lost(s, err);
		} else {
			done += rec;
			xrx_sink__count(s, XRX_SINK_STAT_PKTS_OUT, 1);
			xrx_sink__count(s, XRX_SINK_STAT_BYTES_OUT, rec);
			xrx_sink__count(s, XRX_SINK_STAT_SEGS_OUT,
					p->pkts[i]->gso_segs ?
						p->pkts[i]->gso_segs : 1);
		}
		xrx_sink__release(s, p->pkts[i]);
	}
	p->file_bytes += whole;
	p->nr_pkts = 0;
	p->nr_iovs = 0;
	p->queued_bytes = 0;
	p->arena_used = 0;
	return err;
}

/* The files one up, then a fresh PATH. */
static int pcap_rotate(struct xrx_sink *s, struct pcap_sink *p)
{
	int err;

	close(p->fd);
	p->fd = -1;
	err = xrx_pcap__shift(p->path, p->rotate_count);
	if (err)
		return err;
	xrx_sink__count(s, XRX_SINK_STAT_ROTATIONS, 1);
	return pcap_open_file(s, p);
}



/*
 * The time option of @pkt, whose EPB has the time @first (ns), into @buf
 * (PCAPNG_TIME_OPT bytes). Return: its bytes.
 */
static __u32 pcapng_time_opt(void *buf, size_t cap, const struct xrx_pkt *pkt,
			     __u64 first)
{
	struct xrx_time_opt v = {
		.kind = XRX_TIME_OPT_KIND,
		.flags = (pkt->ts_flags & XRX_PKT_TS_NIC ? XRX_TIME_OPT_F_NIC :
							    0) |
			 (pkt->ts_flags & XRX_PKT_TS_NIC_LAST ?
				  XRX_TIME_OPT_F_NIC_LAST : 0),
		.segs = pkt->gso_segs ? pkt->gso_segs : 1,
		.last_ns = pkt->ts_last_ns ? pkt->ts_last_ns : first,
	};

	return xrx_pcapng_opt_custom(buf, cap, XRX_PCAPNG_OPT_CUSTOM_BIN,
				     XRX_SEGREC_PEN, &v, sizeof(v));
}

/*
 * What follows an EPB's @cap_len data bytes into @t: the padding, the
 * opt_comment @c of @clen bytes, the time option of @pkt (its EPB's
 * time @first), opt_endofopt and the block's @total length. Return: its
 * bytes.
 */
static __u32 pcapng_trailer(__u8 *t, __u32 cap_len, const char *c,
			    __u32 clen, const struct xrx_pkt *pkt, __u64 first,
			    __u32 total, bool end)
{
	__u8 opts[4 + XRX_PCAPNG_PAD4(XRX_EXPLAIN_MAX) + PCAPNG_TIME_OPT + 4];
	__u32 n = 0, pad = XRX_PCAPNG_PAD4(cap_len) - cap_len;

	if (c)
		n = xrx_pcapng_opt(opts, sizeof(opts), XRX_PCAPNG_OPT_COMMENT,
				   c, (__u16)clen);
	n += pcapng_time_opt(opts + n, sizeof(opts) - n, pkt, first);
	if (end) {
		n += xrx_pcapng_opt_end(opts + n, sizeof(opts) - n);
		return xrx_pcapng_epb_tail(t, cap_len, opts, n, total);
	}
	/* more options follow (lossless): the padding and the comment */
	memset(t, 0, pad);
	memcpy(t + pad, opts, n);
	return pad + n;
}

/* @pkt's first @cap bytes into @d, a stripped VLAN tag put back. */
static void pcap_copy(const struct xrx_pkt *pkt, __u8 *d, __u32 cap)
{
	__u32 head = 0, take, i;

	if (pkt->vlan_proto && pkt->head_len >= 12) {
		__u8 t[4] = { pkt->vlan_proto >> 8, pkt->vlan_proto & 0xff,
			      pkt->vlan_tci >> 8, pkt->vlan_tci & 0xff };

		take = 12 < cap ? 12 : cap;
		memcpy(d, pkt->head, take);
		d += take;
		cap -= take;
		take = 4 < cap ? 4 : cap;
		memcpy(d, t, take);
		d += take;
		cap -= take;
		head = 12;
	}
	take = pkt->head_len - head < cap ? pkt->head_len - head : cap;
	memcpy(d, pkt->head + head, take);
	d += take;
	cap -= take;
	for (i = 0; i < pkt->nr_frags && cap; i++) {
		take = pkt->frags[i].len < cap ? pkt->frags[i].len : cap;
		memcpy(d, pkt->frags[i].data, take);
		d += take;
		cap -= take;
	}
}

/*
 * Lossless, an aggregate written without its record: what xrx-replay
 * --split makes of it is the aggregate. Said once per sink instance
 * (per file, or per queue of one file).
 */
static void pcap_unrecorded(struct pcap_sink *p, const struct xrx_pkt *pkt)
{
	if (p->ll->unrecorded++)
		return;
	fprintf(stderr, "xrx: pcap %s: an aggregate of %u segments is written without its segment record (%s); lossless needs copy = header, frames in one buffer and no VLAN tag out of band\n",
		p->path, pkt->gso_segs,
		pkt->vlan_proto ? "its VLAN tag was out of band" :
				  "its frames were not kept in place");
}

/*
 * Lossless: @pkt's record option (made here, or given by a tee's worker)
 * for @cap of its bytes, @now_ns the time if its first frame's is not
 * known; the block's time into *@ts_ns, the option's bytes into *@opt.
 * An aggregate without one is written as it is, counted and said once.
 * Return: the option's bytes, 0 for none.
 */
static __u32 pcap_lossless(struct pcap_sink *p, const struct xrx_pkt *pkt,
			   __u32 cap, __u64 now_ns, __u64 *ts_ns,
			   const __u8 **opt)
{
	__u32 n = xrx_lossless_record(p->ll, pkt, cap, now_ns, ts_ns, opt);

	if (pkt->gso_segs > 1 && !n)
		pcap_unrecorded(p, pkt);
	return n;
}

/*
 * One file for all queues: the record, as the file will hold it, into
 * the writer's hand-off (sink/merge.h); the packet goes back at once.
 * A lossless record is copied with its block, in the block's options
 * (opt_comment first, with explain), as the per-queue writer lays it out:
 * the writer moves whole blocks, so it travels with its packet.
 */
static int pcap_deliver_merged(struct xrx_sink *s, struct pcap_sink *p,
			       struct xrx_pkt *pkt)
{
	__u8 opts[4 + XRX_PCAPNG_PAD4(XRX_EXPLAIN_MAX) + PCAPNG_TIME_OPT];
	char why[XRX_EXPLAIN_MAX];
	__u32 wire, cap, len, olen = 0, clen, rlen = 0, all;
	const __u8 *rec = NULL;
	__u64 stamp, bts;
	__u8 *d;

	wire = pkt->len + (pkt->vlan_proto && pkt->head_len >= 12 ? 4 : 0);
	cap = wire < p->snaplen ? wire : p->snaplen;
	/* Busy before a clock read (a packet without a time): the writer
	 * orders by the time. */
	xrx_merge__begin(p->mq);
	stamp = xrx_pcap__pkt_time(pkt);
	/* The block's time: the packet's, or a tee's lossless record's
	 * (made with the packet's when the tee copied it). */
	bts = stamp;
	if (p->ll)
		rlen = pcap_lossless(p, pkt, cap, stamp, &bts, &rec);
	if (p->ng) {
		if (p->explain) {
			clen = xrx_pkt__explain(pkt, p->max_aggregate, why,
						sizeof(why));
			olen = xrx_pcapng_opt(opts, sizeof(opts),
					      XRX_PCAPNG_OPT_COMMENT, why,
					      (__u16)clen);
		}
		olen += pcapng_time_opt(opts + olen, sizeof(opts) - olen, pkt,
					bts);
	}
	all = olen + rlen ? olen + rlen + 4 : 0;	/* opt_endofopt */
	len = p->ng ? xrx_pcapng_epb_len(cap, all) :
		      (__u32)sizeof(struct pcap_rec_hdr) + cap;
	d = xrx_merge__reserve(p->mq, len, stamp,
			       pkt->gso_segs ? pkt->gso_segs : 1);
	if (!d) {
		xrx_sink__count(s, XRX_SINK_STAT_DROPPED, 1);
		xrx_sink__count(s, XRX_SINK_STAT_HANDOFF_FULL, 1);
		xrx_sink__release(s, pkt);
		return -ENOBUFS;
	}
	if (p->ng) {
		xrx_pcapng_epb_head((struct xrx_pcapng_epb *)d, p->queue, bts,
				    cap, wire, len);
		d += sizeof(struct xrx_pcapng_epb);
		pcap_copy(pkt, d, cap);
		d += cap;
		memset(d, 0, XRX_PCAPNG_PAD4(cap) - cap);
		d += XRX_PCAPNG_PAD4(cap) - cap;
		if (all) {
			memcpy(d, opts, olen);
			if (rlen)
				memcpy(d + olen, rec, rlen);
			memset(d + olen + rlen, 0, 4);
			d += all;
		}
		memcpy(d, &len, sizeof(len));
	} else {
		struct pcap_rec_hdr rec = {
			.ts_sec = (__u32)(stamp / 1000000000),
			.ts_frac = (__u32)(stamp % 1000000000),
			.incl_len = cap,
			.orig_len = wire,
		};

		memcpy(d, &rec, sizeof(rec));
		pcap_copy(pkt, d + sizeof(rec), cap);
	}
	xrx_merge__commit(p->mq);
	xrx_sink__release(s, pkt);
	return 0;
}

/*
 * Lossless: the segment record option of @optlen bytes at @opt,
 * opt_endofopt and the block's @total length, into the arena. Return:
 * where they start.
 */
static __u8 *pcapng_lossless_tail(struct pcap_sink *p, const __u8 *opt,
				  __u32 optlen, __u32 total)
{
	__u8 *t = p->arena + p->arena_used;

	if (optlen)
		memcpy(t, opt, optlen);
	memset(t + optlen, 0, 4);
	memcpy(t + optlen + 4, &total, sizeof(total));
	p->arena_used += optlen + 8;
	return t;
}

static int pcap_deliver(struct xrx_sink *s, struct xrx_pkt *pkt)
{
	struct pcap_sink *p = s->priv;
	struct pcap_rec_hdr *rec;
	struct xrx_pcapng_epb *epb;
	char why[XRX_EXPLAIN_MAX];
	__u32 left, take, i, rec_bytes, need, tag, wire, head, cap, clen = 0;
	__u32 optlen = 0;
	__u64 stamp, ts_ns;
	const __u8 *opt = NULL;
	int err = 0;

	/* Not written by choice: no loss, so before the checks of one. */
	if (p->filter && !xrx_filter__match(p->filter, pkt)) {
		xrx_sink__count(s, XRX_SINK_STAT_FILTERED, 1);
		xrx_sink__count(s, XRX_SINK_STAT_SEGS_FILTERED,
				pkt->gso_segs ? pkt->gso_segs : 1);
		xrx_sink__release(s, pkt);
		return 0;
	}
	if (p->mq)
		return pcap_deliver_merged(s, p, pkt);
	if (p->fd < 0) {
		xrx_sink__count(s, XRX_SINK_STAT_ERRORS, 1);
		xrx_sink__release(s, pkt);
		return -EBADF;
	}
	/* The header did not fit when the file was started: lost until
	 * a flush writes it (once a batch, not a write per packet). */
	if (!p->file_bytes) {
		pcap_count_lost(s, p->hdr_err);
		xrx_sink__release(s, pkt);
		return p->hdr_err;
	}
	/* A tag the NIC stripped goes back in front of the EtherType, as
	 * a packet socket shows it (libpcap from PACKET_AUXDATA). */
	tag = pkt->vlan_proto && pkt->head_len >= 12 ? 4 : 0;
	wire = pkt->len + tag;
	cap = left = wire < p->snaplen ? wire : p->snaplen;
	rec_bytes = sizeof(*rec) + left;
	/* the block's time as written: ns, or us */
	ts_ns = xrx_pcap__pkt_time(pkt);
	if (!p->nsec)
		ts_ns -= ts_ns % 1000;
	if (p->ng) {
		if (p->explain)
			clen = xrx_pkt__explain(pkt, p->max_aggregate, why,
						sizeof(why));
		rec_bytes = sizeof(*epb) + XRX_PCAPNG_PAD4(left) +
			    (p->explain ? 4 + XRX_PCAPNG_PAD4(clen) : 0) +
			    PCAPNG_TIME_OPT + 4 + 4;
	}
	if (p->ll) {
		optlen = pcap_lossless(p, pkt, cap, ts_ns, &ts_ns, &opt);
		rec_bytes += optlen;
	}
	need = 2 + pkt->nr_frags + (tag ? 2 : 0) + p->ng +
	       !!p->ll;		/* record header, head (split at the tag),
				 * frags, EPB trailer, lossless tail */
	if (need > PCAP_IOVS) {
		xrx_sink__count(s, XRX_SINK_STAT_DROPPED, 1);
		xrx_sink__release(s, pkt);
		return -E2BIG;
	}
	/* Errors of packets already queued are theirs: counted there. */
	if (p->nr_pkts == PCAP_QUEUE || p->nr_iovs + need > PCAP_IOVS ||
	    (p->ll && p->arena_used + optlen + 8 > PCAP_ARENA))
		pcap_write_queue(s, p);
	if (p->rotate_bytes && !p->fifo &&
	    p->file_bytes + p->queued_bytes + rec_bytes > p->rotate_bytes &&
	    p->file_bytes + p->queued_bytes > p->hdr_bytes) {
		if (p->nr_pkts)
			err = pcap_write_queue(s, p);
		if (!err)
			err = pcap_rotate(s, p);
		if (err) {
			pcap_count_lost(s, err);
			xrx_sink__release(s, pkt);
			return err;
		}
	}

	p->rec_bytes[p->nr_pkts] = rec_bytes;
	p->queued_bytes += rec_bytes;
	if (p->ng) {
		epb = &p->epbs[p->nr_pkts];
		stamp = p->nsec ? ts_ns : ts_ns / 1000;
		xrx_pcapng_epb_head(epb, 0, stamp, left, wire, rec_bytes);
		p->iov[p->nr_iovs].iov_base = epb;
		p->iov[p->nr_iovs++].iov_len = sizeof(*epb);
	} else {
		rec = &p->recs[p->nr_pkts];
		rec->ts_sec = (__u32)(ts_ns / 1000000000);
		rec->ts_frac = p->nsec ? (__u32)(ts_ns % 1000000000) :
					 (__u32)(ts_ns % 1000000000 / 1000);
		rec->incl_len = left;
		rec->orig_len = wire;
		p->iov[p->nr_iovs].iov_base = rec;
		p->iov[p->nr_iovs++].iov_len = sizeof(*rec);
	}
	head = 0;
	if (tag) {
		__u8 *t = p->tags[p->nr_pkts];

		t[0] = pkt->vlan_proto >> 8;
		t[1] = pkt->vlan_proto & 0xff;
		t[2] = pkt->vlan_tci >> 8;
		t[3] = pkt->vlan_tci & 0xff;
		take = 12 < left ? 12 : left;
		p->iov[p->nr_iovs].iov_base = pkt->head;
		p->iov[p->nr_iovs++].iov_len = take;
		left -= take;
		take = 4 < left ? 4 : left;
		if (take) {
			p->iov[p->nr_iovs].iov_base = t;
			p->iov[p->nr_iovs++].iov_len = take;
			left -= take;
		}
		head = 12;
	}
	take = pkt->head_len - head < left ? pkt->head_len - head : left;
	if (take) {
		p->iov[p->nr_iovs].iov_base = pkt->head + head;
		p->iov[p->nr_iovs++].iov_len = take;
		left -= take;
	}
	for (i = 0; i < pkt->nr_frags && left; i++) {
		take = pkt->frags[i].len < left ? pkt->frags[i].len : left;
		p->iov[p->nr_iovs].iov_base = (void *)pkt->frags[i].data;
		p->iov[p->nr_iovs++].iov_len = take;
		left -= take;
	}
	if (p->ng) {
		__u8 *tr = p->trailers[p->nr_pkts];

		p->iov[p->nr_iovs].iov_base = tr;
		p->iov[p->nr_iovs++].iov_len =
			pcapng_trailer(tr, cap, p->explain ? why : NULL, clen,
				       pkt, ts_ns, rec_bytes, !p->ll);
	}
	if (p->ll) {
		p->iov[p->nr_iovs].iov_base =
			pcapng_lossless_tail(p, opt, optlen, rec_bytes);
		p->iov[p->nr_iovs++].iov_len = optlen + 8;
	}
	p->pkts[p->nr_pkts++] = pkt;
	return err;
}

static void pcap_free(struct pcap_sink *p)
{
	xrx_filter__free(p->filter);
	xrx_lossless_free(p->ll);
	free(p->arena);
	free(p);
}

/* One file for all queues: this queue's batch is stamped after this;
 * at its end, what it still holds arrived at @held_ns. */
static void pcap_begin(struct xrx_sink *s, __u64 held_ns)
{
	struct pcap_sink *p = s->priv;

	if (!p->mq)
		return;
	if (held_ns)
		p->held_ns = held_ns;
	else
		xrx_merge__batch(p->mq);
}

static int pcap_flush(struct xrx_sink *s)
{
	struct pcap_sink *p = s->priv;
	struct timespec ts;

	if (p->mq) {
		/* Every record of this queue to come arrived later than now,
		 * or than what the engine still holds (pcap_begin()). */
		clock_gettime(CLOCK_REALTIME, &ts);
		xrx_merge__mark(p->mq, (__u64)ts.tv_sec * 1000000000ull +
					       (__u64)ts.tv_nsec, p->held_ns);
		p->held_ns = 0;
		return 0;
	}

	if (!p->file_bytes && p->fd >= 0)
		return pcap_still_full(p) ? -ENOSPC : pcap_write_header(s, p);
	return p->nr_pkts ? pcap_write_queue(s, p) : 0;
}

static void pcap_close(struct xrx_sink *s)
{
	struct pcap_sink *p = s->priv;

	if (p->mq)
		xrx_merge__leave(p->mq);
	else
		pcap_flush(s);
	if (p->fd >= 0)
		close(p->fd);
	pcap_free(p);
	s->priv = NULL;
}

/* "N", "NK", "NM", "NG" (powers of 1024) into @v; false if it is not. */
static bool pcap_parse_size(const char *s, size_t len, __u64 *v)
{
	__u64 n = 0, mul = 1;
	size_t i;

	if (len && (s[len - 1] == 'K' || s[len - 1] == 'k'))
		mul = 1ull << 10;
	else if (len && s[len - 1] == 'M')
		mul = 1ull << 20;
	else if (len && s[len - 1] == 'G')
		mul = 1ull << 30;
	if (mul > 1)
		len--;
	if (!len || len > 12)
		return false;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		n = n * 10 + (__u64)(s[i] - '0');
	}
	*v = n * mul;
	return true;
}

#define PCAP_SPEC_FORM "pcap:PATH[,size=N][,files=N][,snaplen=N][,explain][,format=pcap|pcapng][,perqueue][,rotate=SECONDS][,compress=zstd][,hook=PROGRAM]"

/* Is option @opt of @olen bytes "NAME" or "NAME=..."? Its value, if so. */
static bool pcap_key(const char *opt, size_t olen, const char *name,
		     const char **val, size_t *vlen)
{
	size_t n = strlen(name);

	if (olen < n || strncmp(opt, name, n) || (olen > n && opt[n] != '='))
		return false;
	*val = olen > n ? opt + n + 1 : NULL;
	*vlen = olen > n ? olen - n - 1 : 0;
	return true;
}

/*
 * The one parser of the pcap spec "PATH[,OPTION]...": PATH and what only
 * the pcap sink knows into @ps, the table's options into @opts.
 */
static int pcap_parse(const char *arg, struct pcap_spec *ps,
		      struct xrx_sink_opts *opts, char *err, size_t errlen)
{
	const char *comma = strchr(arg, ','), *opt, *val;
	size_t len = comma ? (size_t)(comma - arg) : strlen(arg), olen, vlen;
	const char *path = ps->path;
	bool size = false, files = false;
	__u64 v;

	memset(ps, 0, sizeof(*ps));
	if (!len) {
		snprintf(err, errlen, "pcap:%s has no path; write %s", arg,
			 PCAP_SPEC_FORM);
		return -EINVAL;
	}
	if (len >= sizeof(ps->path)) {
		snprintf(err, errlen, "pcap:%.*s...: the path is too long; use a shorter one", 40, arg);
		return -ENAMETOOLONG;
	}
	memcpy(ps->path, arg, len);
	ps->path[len] = '\0';
	while (comma) {
		opt = comma + 1;
		comma = strchr(opt, ',');
		olen = comma ? (size_t)(comma - opt) : strlen(opt);
		if (!strncmp(opt, "filter=", 7)) {
			/* The rest, as tcpdump takes the rest of its line. */
			struct xrx_filter *f;
			char msg[256];	/* PCAP_ERRBUF_SIZE */

			if (!opt[7]) {
				snprintf(err, errlen, "pcap:%s: filter= has no expression; write one in tcpdump's syntax (filter=tcp port 80), or leave filter= out",
					 path);
				return -EINVAL;
			}
			f = xrx_filter__new(opt + 7, msg, sizeof(msg));
			if (!f) {
				snprintf(err, errlen, "pcap:%s: filter=%s: %s; see pcap-filter(7)",
					 path, opt + 7, msg);
				return -EINVAL;
			}
			xrx_filter__free(f);
			opts->filter = opt + 7;
			break;
		} else if (pcap_key(opt, olen, "size", &val, &vlen) && val) {
			if (!pcap_parse_size(val, vlen, &v) ||
			    v < PCAP_SIZE_MIN) {
				snprintf(err, errlen, "pcap:%s: size=%.*s is not a size of at least %d bytes; write a byte count, with K, M or G for KiB, MiB, GiB (size=64M)",
					 path, (int)vlen, val, PCAP_SIZE_MIN);
				return -EINVAL;
			}
			opts->rotate_bytes = v;
			size = true;
		} else if (pcap_key(opt, olen, "files", &val, &vlen) && val) {
			if (!pcap_parse_size(val, vlen, &v) ||
			    !isdigit((unsigned char)opt[olen - 1]) ||
			    v < 2 || v > PCAP_FILES_MAX) {
				snprintf(err, errlen, "pcap:%s: files=%.*s is out of range; write how many files to keep in all, 2 to %d (files=4: PATH and PATH.1 to PATH.3)",
					 path, (int)vlen, val, PCAP_FILES_MAX);
				return -EINVAL;
			}
			opts->rotate_count = (__u32)v - 1;
			files = true;
		} else if (pcap_key(opt, olen, "snaplen", &val, &vlen) && val) {
			/* the option of the table, as xrx-replay's --snaplen */
			char vbuf[16], msg[160];

			snprintf(vbuf, sizeof(vbuf), "%.*s", (int)vlen, val);
			if (xrx_opt__parse(xrx_opt__get(XRX_OPT_SNAPLEN), opts,
					   vbuf, XRX_OPT_FORM_SPEC, msg,
					   sizeof(msg))) {
				snprintf(err, errlen, "pcap:%s: %s", path, msg);
				return -EINVAL;
			}
		} else if (pcap_key(opt, olen, "explain", &val, &vlen)) {
			/* the table's, as xrx-replay's --explain; alone: on */
			char vbuf[8], msg[160];

			snprintf(vbuf, sizeof(vbuf), "%.*s",
				 val ? (int)vlen : 2, val ? val : "on");
			if (xrx_opt__parse(xrx_opt__get(XRX_OPT_EXPLAIN), opts,
					   vbuf, XRX_OPT_FORM_SPEC, msg,
					   sizeof(msg))) {
				snprintf(err, errlen, "pcap:%s: %s", path, msg);
				return -EINVAL;
			}
		} else if (pcap_key(opt, olen, "format", &val, &vlen) && val) {
			if (vlen == 6 && !strncmp(val, "pcapng", 6)) {
				ps->ng = true;
			} else if (vlen == 4 && !strncmp(val, "pcap", 4)) {
				ps->ng = false;
			} else {
				snprintf(err, errlen, "pcap:%s: format=%.*s is not a format; write format=pcap (nanosecond pcap) or format=pcapng (an interface per queue)",
					 path, (int)vlen, val);
				return -EINVAL;
			}
		} else if (pcap_key(opt, olen, "perqueue", &val, &vlen) && !val) {
			ps->perqueue = true;
		} else if (pcap_key(opt, olen, "rotate", &val, &vlen) && val) {
			if (!pcap_parse_size(val, vlen, &v) ||
			    !isdigit((unsigned char)opt[olen - 1]) || !v ||
			    v > PCAP_ROTATE_SECS_MAX) {
				snprintf(err, errlen, "pcap:%s: rotate=%.*s is out of range; write seconds per file, 1 to %d (rotate=60: a file a minute, on the minute)",
					 path, (int)vlen, val, PCAP_ROTATE_SECS_MAX);
				return -EINVAL;
			}
			ps->rotate_secs = (__u32)v;
		} else if (pcap_key(opt, olen, "compress", &val, &vlen) && val) {
			if (vlen != 4 || strncmp(val, "zstd", 4)) {
				snprintf(err, errlen, "pcap:%s: compress=%.*s is not known; write compress=zstd",
					 path, (int)vlen, val);
				return -EINVAL;
			}
			ps->zstd = true;
		} else if (pcap_key(opt, olen, "hook", &val, &vlen) && val) {
			if (!vlen || vlen >= sizeof(ps->hook) || *val != '/') {
				snprintf(err, errlen, "pcap:%s: hook=%.*s: write the absolute path of a program to run on each closed file (hook=/usr/local/bin/ship)",
					 path, (int)vlen, val);
				return -EINVAL;
			}
			memcpy(ps->hook, val, vlen);
			ps->hook[vlen] = '\0';
		} else if (olen >= 8 && !strncmp(opt, "lossless", 8) &&
			   (olen == 8 || opt[8] == '=')) {
			char val[8], msg[160];

			snprintf(val, sizeof(val), "%.*s",
				 olen == 8 ? 2 : (int)(olen - 9),
				 olen == 8 ? "on" : opt + 9);
			if (xrx_opt__parse(xrx_opt__get(XRX_OPT_LOSSLESS), opts,
					   val, XRX_OPT_FORM_SPEC, msg,
					   sizeof(msg))) {
				snprintf(err, errlen, "pcap:%s: %s", path, msg);
				return -EINVAL;
			}
		} else {
			snprintf(err, errlen, "pcap:%s: unknown option '%.*s'; the options are size=N, files=N, snaplen=N, explain, format=pcap|pcapng, perqueue, rotate=SECONDS, compress=zstd, hook=PROGRAM, lossless, filter=EXPR (last) (a path may not contain ',')",
				 path, (int)olen, opt);
			return -EINVAL;
		}
	}
	if (opts->explain)
		ps->ng = true;		/* comments need pcapng */
	if (files && !size) {
		snprintf(err, errlen, "pcap:%s: files= needs size= (when to rotate); add size=N",
			 path);
		return -EINVAL;
	}
	if (ps->rotate_secs && files) {
		snprintf(err, errlen, "pcap:%s: files= counts size-rotated files; with rotate= every file has a name of its own, which the hook may remove: leave files= out",
			 path);
		return -EINVAL;
	}
	if ((ps->zstd || *ps->hook) && !ps->rotate_secs) {
		snprintf(err, errlen, "pcap:%s: compress= and hook= act on files a time rotation closes; add rotate=SECONDS",
			 path);
		return -EINVAL;
	}
	if (ps->rotate_secs && !strchr(path, '%')) {
		snprintf(err, errlen, "pcap:%s: with rotate= PATH names each file by its start time: put strftime(3) conversions in it (rx-%%Y%%m%%d-%%H%%M%%S.pcapng)",
			 path);
		return -EINVAL;
	}
	if (ps->rotate_secs && ps->perqueue) {
		snprintf(err, errlen, "pcap:%s: rotate=, compress= and hook= need the one file for all queues; leave perqueue out",
			 path);
		return -EINVAL;
	}
	return 0;
}

int xrx_sink_pcap__parse(const char *arg, char *path, size_t pathlen,
			 struct xrx_sink_opts *opts, char *err, size_t errlen)
{
	struct pcap_spec *ps = malloc(sizeof(*ps));
	int ret;

	if (!ps) {
		snprintf(err, errlen, "pcap:%s: out of memory", arg);
		return -ENOMEM;
	}
	ret = pcap_parse(arg, ps, opts, err, errlen);
	if (!ret && strlen(ps->path) >= pathlen) {
		snprintf(err, errlen, "pcap:%.*s...: the path is too long; use a shorter one", 40, arg);
		ret = -ENAMETOOLONG;
	}
	if (!ret)
		strcpy(path, ps->path);
	free(ps);
	return ret;
}

/* One file for all queues, through the writer (sink/merge.h). */
static int pcap_open_merged(struct xrx_sink *s, struct pcap_sink *p,
			    const struct pcap_spec *ps,
			    const struct xrx_sink_opts *o)
{
	struct xrx_merge_cfg *cfg = calloc(1, sizeof(*cfg));
	int ret;

	if (!cfg)
		return -ENOMEM;
	snprintf(cfg->path, sizeof(cfg->path), "%s", ps->path);
	cfg->nr_queues = o->nr_queues ? o->nr_queues : 1;
	cfg->snaplen = p->snaplen;
	cfg->ng = p->ng;
	cfg->no_wait = p->no_wait;
	cfg->rotate_bytes = p->rotate_bytes;
	cfg->rotate_count = p->rotate_count;
	cfg->rotate_secs = ps->rotate_secs;
	cfg->zstd = ps->zstd;
	snprintf(cfg->hook, sizeof(cfg->hook), "%s", ps->hook);
	ret = xrx_merge__join(cfg, p->queue, s, &p->mq);
	free(cfg);
	return ret;
}

/* The spec check of the kind (xrx_sink_ops.check): its own parser. */
static int pcap_check(const char *arg, const struct xrx_sink_opts *opts,
		      char *out, size_t outlen, char *err, size_t errlen)
{
	struct xrx_sink_opts o = *opts;

	return xrx_sink_pcap__parse(arg, out, outlen, &o, err, errlen);
}

static int pcap_open(struct xrx_sink *s, const char *arg,
		     const struct xrx_sink_opts *opts)
{
	struct xrx_sink_opts o = *opts;
	char err[PATH_MAX + 160];
	struct pcap_spec *ps;
	struct pcap_sink *p;
	int ret, n;

	ps = malloc(sizeof(*ps));
	p = calloc(1, sizeof(*p));
	if (!ps || !p) {
		free(ps);
		free(p);
		return -ENOMEM;
	}
	ret = pcap_parse(arg, ps, &o, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "xrx: %s\n", err);
		goto fail;
	}
	p->fd = -1;
	p->queue = o.queue;
	p->no_wait = o.no_wait;
	/* Nanoseconds always: the nanosecond pcap magic, if_tsresol 9. */
	p->nsec = true;
	p->explain = o.explain;
	p->ng = ps->ng || o.lossless;
	if (o.lossless) {
		p->ll = xrx_lossless_new();
		if (!p->ll) {
			ret = -ENOMEM;
			goto fail;
		}
	}
	p->max_aggregate = o.max_aggregate;
	p->snaplen = o.snaplen;		/* xrx_sink__open() filled it in */
	p->rotate_bytes = o.rotate_bytes;
	p->rotate_count = o.rotate_count ? o.rotate_count :
					   PCAP_ROTATE_COUNT_DEFAULT;
	s->priv = p;
	if (o.filter && *o.filter &&
	    !(p->filter = xrx_filter__new(o.filter, err, sizeof(err)))) {
		fprintf(stderr, "xrx: pcap:%s: filter=%s: %s; see pcap-filter(7)\n",
			ps->path, o.filter, err);
		ret = -EINVAL;
		goto fail;
	}
	snprintf(p->path, sizeof(p->path), "%s", ps->path);
	/* One file for the interface unless asked for one per queue; a
	 * single queue without time rotation writes it directly. */
	if (!ps->perqueue && (o.nr_queues > 1 || ps->rotate_secs)) {
		ret = pcap_open_merged(s, p, ps, &o);
		if (ret)
			goto fail;
		free(ps);
		return 0;
	}
	if (o.nr_queues > 1)
		n = snprintf(p->path, sizeof(p->path), "%s.q%u", ps->path,
			     o.queue);
	else
		n = snprintf(p->path, sizeof(p->path), "%s", ps->path);
	if (n < 0 || (size_t)n >= sizeof(p->path)) {
		ret = -ENAMETOOLONG;
		goto fail;
	}
	/* the direct writer's lossless records, until each writev() */
	if (p->ll && !(p->arena = malloc(PCAP_ARENA))) {
		ret = -ENOMEM;
		goto fail;
	}
	p->root_reserve = pcap_may_use_reserve();
	ret = xrx_pcap__keep_earlier(p->path, p->rotate_count);
	if (!ret)
		ret = pcap_open_file(s, p);
	if (ret)
		goto fail;
	free(ps);
	return 0;
fail:
	if (p->fd >= 0)
		close(p->fd);
	pcap_free(p);
	free(ps);
	s->priv = NULL;
	return ret;
}

const struct xrx_sink_ops xrx_sink_pcap_ops = {
	.name = "pcap",
	.open = pcap_open,
	.deliver = pcap_deliver,
	.flush = pcap_flush,
	.close = pcap_close,
	.check = pcap_check,
	/* a file nobody waits on: long naps save the worker's wake-ups */
	.flags = XRX_SINK_F_CONSUMES | XRX_SINK_F_FILES,
	.usage = "pcap:/PATH[,size=N,files=N,snaplen=N,explain]",
	.coalesce_usec = XRX_LIVE_COALESCE_USEC_FILE,
	.begin = pcap_begin,
};

struct xrx_lossless *xrx_sink_pcap__lossless(struct xrx_sink *s,
					     __u32 *snaplen)
{
	struct pcap_sink *p;

	if (s->ops != &xrx_sink_pcap_ops || !s->priv)
		return NULL;
	p = s->priv;
	*snaplen = p->snaplen;
	return p->ll;
}
