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
 * "pcap:PATH" with one queue writes PATH; with several, PATH.qN per
 * queue (one writer per file, no locks). Options after the path
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
#include <xrx/sink.h>
#include <xrx/options.h>

#include "sink/lossless.h"

#define PCAP_MAGIC_US 0xa1b2c3d4
#define PCAP_MAGIC_NS 0xa1b23c4d
#define PCAP_LINKTYPE_ETHERNET 1
#define PCAP_ROTATE_COUNT_DEFAULT 8
#define PCAP_SIZE_MIN 4096		/* a header and a few records */
#define PCAP_FILES_MAX 1000
#define PCAP_QUEUE 64			/* packets per writev */
#define PCAP_IOVS 1024			/* UIO_MAXIOV */
#define PCAP_ARENA (1u << 20)		/* lossless: records of a queue */

/* pcapng (draft-ietf-opsawg-pcapng) */
#define PCAPNG_SHB 0x0a0d0d0a
#define PCAPNG_IDB 0x00000001
#define PCAPNG_EPB 0x00000006
#define PCAPNG_BOM 0x1a2b3c4d		/* byte-order magic */
#define PCAPNG_OPT_END 0		/* opt_endofopt */
#define PCAPNG_OPT_COMMENT 1		/* opt_comment, UTF-8 */
#define PCAPNG_SHB_USERAPPL 4
#define PCAPNG_IF_TSRESOL 9
#define PCAPNG_PAD4(n) (((n) + 3u) & ~3u)
/* After an EPB's data: its padding, opt_comment, opt_endofopt and the
 * block's length again */
#define PCAPNG_TRAILER (3 + 4 + PCAPNG_PAD4(XRX_EXPLAIN_MAX) + 4 + 4)

struct pcap_file_hdr {
	__u32 magic;
	__u16 version_major;
	__u16 version_minor;
	__s32 thiszone;
	__u32 sigfigs;
	__u32 snaplen;
	__u32 linktype;
};

struct pcap_rec_hdr {
	__u32 ts_sec;
	__u32 ts_frac;			/* usec or nsec, as the magic says */
	__u32 incl_len;
	__u32 orig_len;
};

/* An Enhanced Packet Block up to its data. */
struct pcapng_epb_hdr {
	__u32 type;
	__u32 total_len;
	__u32 if_id;
	__u32 ts_high;			/* usec or nsec, as if_tsresol says */
	__u32 ts_low;
	__u32 cap_len;
	__u32 orig_len;
};

/* A Section Header Block with shb_userappl "xrx", then an Interface
 * Description Block with if_tsresol: what a pcapng file starts with. */
struct pcapng_hdr {
	__u32 shb_type;
	__u32 shb_len;
	__u32 bom;
	__u16 major;
	__u16 minor;
	__s64 section_len;		/* -1: not given */
	__u16 appl_code;
	__u16 appl_len;
	char appl[4];
	__u32 shb_end;			/* opt_endofopt */
	__u32 shb_len2;
	__u32 idb_type;
	__u32 idb_len;
	__u16 linktype;
	__u16 reserved;
	__u32 snaplen;
	__u16 tsresol_code;
	__u16 tsresol_len;
	__u8 tsresol[4];		/* 6: usec, 9: nsec; then padding */
	__u32 idb_end;
	__u32 idb_len2;
};

XRX_STATIC_ASSERT(sizeof(struct pcapng_hdr) == 40 + 32,
		  "pcapng_hdr: an SHB of 40 bytes and an IDB of 32, no holes");

struct pcap_sink {
	int fd;
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
	struct pcapng_epb_hdr epbs[PCAP_QUEUE];
	__u8 trailers[PCAP_QUEUE][PCAPNG_TRAILER];
	__u8 tags[PCAP_QUEUE][4];	/* out-of-band VLAN tags, put back */
	struct iovec iov[PCAP_IOVS];
	char path[PATH_MAX];
};

static bool pcap_err_nospace(int err)
{
	return err == -ENOSPC || err == -EDQUOT;
}

static int pcap_write_header(struct xrx_sink *s, struct pcap_sink *p)
{
	struct pcap_file_hdr h = {
		.magic = p->nsec ? PCAP_MAGIC_NS : PCAP_MAGIC_US,
		.version_major = 2,
		.version_minor = 4,
		.snaplen = p->snaplen,
		.linktype = PCAP_LINKTYPE_ETHERNET,
	};
	struct pcapng_hdr ng = {
		.shb_type = PCAPNG_SHB,
		.shb_len = 40,
		.bom = PCAPNG_BOM,
		.major = 1,
		.section_len = -1,
		.appl_code = PCAPNG_SHB_USERAPPL,
		.appl_len = 3,
		.appl = "xrx",
		.shb_len2 = 40,
		.idb_type = PCAPNG_IDB,
		.idb_len = 32,
		.linktype = PCAP_LINKTYPE_ETHERNET,
		.snaplen = p->snaplen,
		.tsresol_code = PCAPNG_IF_TSRESOL,
		.tsresol_len = 1,
		.tsresol = { p->nsec ? 9 : 6 },
		.idb_len2 = 32,
	};
	const void *hdr = p->ng ? (const void *)&ng : (const void *)&h;
	ssize_t n;

	p->hdr_bytes = p->ng ? sizeof(ng) : sizeof(h);
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
	return p->ng ? sizeof(struct pcapng_epb_hdr) + PCAPNG_TRAILER :
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
	ssize_t n;
	__u32 i;

	if (pcap_still_full(p)) {
		err = -ENOSPC;
		cnt = 0;
	}
	while (cnt > 0) {
		n = writev(p->fd, iov, cnt);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		written += (__u64)n;
		/* A short write: skip what went out, go on with the rest. */
		while (cnt > 0 && (size_t)n >= iov->iov_len) {
			n -= iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0 && n > 0) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= n;
		}
	}
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

/* PATH.(k-1) -> PATH.k, ..., PATH -> PATH.1: the oldest goes. */
static int pcap_shift(struct pcap_sink *p)
{
	char from[PATH_MAX + 16], to[PATH_MAX + 16];
	__u32 k;

	for (k = p->rotate_count; k >= 1; k--) {
		if (k == 1)
			snprintf(from, sizeof(from), "%s", p->path);
		else
			snprintf(from, sizeof(from), "%s.%u", p->path, k - 1);
		snprintf(to, sizeof(to), "%s.%u", p->path, k);
		if (rename(from, to) && errno != ENOENT)
			return -errno;
	}
	return 0;
}

/* The files one up, then a fresh PATH. */
static int pcap_rotate(struct xrx_sink *s, struct pcap_sink *p)
{
	int err;

	close(p->fd);
	p->fd = -1;
	err = pcap_shift(p);
	if (err)
		return err;
	xrx_sink__count(s, XRX_SINK_STAT_ROTATIONS, 1);
	return pcap_open_file(s, p);
}

/*
 * Does the regular file @fd of @size bytes hold more than a header? A
 * pcap or pcapng file as long as the header xrx writes has no record; a
 * file shorter than a magic number holds nothing either (a header cut
 * short by a crash). Anything else, a file that is no capture included,
 * counts as records: it is moved aside, never emptied.
 */
static bool pcap_holds_records(int fd, off_t size)
{
	__u32 magic;

	if (size < (off_t)sizeof(magic))
		return false;
	if (pread(fd, &magic, sizeof(magic), 0) != (ssize_t)sizeof(magic))
		return true;
	switch (magic) {
	case PCAP_MAGIC_US:
	case PCAP_MAGIC_NS:
	case __builtin_bswap32(PCAP_MAGIC_US):
	case __builtin_bswap32(PCAP_MAGIC_NS):
		return size > (off_t)sizeof(struct pcap_file_hdr);
	case PCAPNG_SHB:
		return size > (off_t)sizeof(struct pcapng_hdr);
	default:
		return true;
	}
}

/*
 * At the start: a PATH left by an earlier run that holds records is
 * rotated out (the file comment says why), with one line saying so.
 */
static int pcap_keep_earlier(struct pcap_sink *p)
{
	struct stat st;
	bool keep;
	int fd, err;

	if (stat(p->path, &st) || !S_ISREG(st.st_mode))
		return 0;		/* none, or a FIFO: nothing to keep */
	fd = open(p->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;		/* the open for writing says why */
	keep = pcap_holds_records(fd, st.st_size);
	close(fd);
	if (!keep)
		return 0;
	err = pcap_shift(p);
	if (err) {
		fprintf(stderr, "xrx: pcap %s holds records of an earlier run, which cannot be moved to %s.1 to keep them: %s; make the directory writable or write another path\n",
			p->path, p->path, strerror(-err));
		return err;
	}
	fprintf(stderr, "xrx: pcap %s held %lld bytes of an earlier run: kept as %s.1, older files moved up, at most %u older kept (files=%u); the capture continues in a new %s\n",
		p->path, (long long)st.st_size, p->path, p->rotate_count,
		p->rotate_count + 1, p->path);
	return 0;
}

/*
 * What follows an EPB's @cap_len data bytes into @t: the padding, the
 * opt_comment @c of @clen bytes (padded), opt_endofopt and the block's
 * @total length. Return: its bytes.
 */
static __u32 pcapng_trailer(__u8 *t, __u32 cap_len, const char *c,
			    __u32 clen, __u32 total, bool end)
{
	__u32 n = PCAPNG_PAD4(cap_len) - cap_len;
	__u16 opt[2] = { PCAPNG_OPT_COMMENT, (__u16)clen };

	memset(t, 0, PCAPNG_TRAILER);
	if (c) {
		memcpy(t + n, opt, sizeof(opt));
		memcpy(t + n + 4, c, clen);
		n += 4 + PCAPNG_PAD4(clen);
	}
	if (!end)		/* more options follow (lossless) */
		return n;
	n += 4;			/* zeros: opt_endofopt */
	memcpy(t + n, &total, sizeof(total));
	return n + 4;
}

/*
 * Lossless: the segment record option of @optlen bytes (in p->ll->opt),
 * opt_endofopt and the block's @total length, into the arena. Return:
 * where they start.
 */
static __u8 *pcapng_lossless_tail(struct pcap_sink *p, __u32 optlen,
				  __u32 total)
{
	__u8 *t = p->arena + p->arena_used;

	memcpy(t, p->ll->opt, optlen);
	memset(t + optlen, 0, 4);
	memcpy(t + optlen + 4, &total, sizeof(total));
	p->arena_used += optlen + 8;
	return t;
}

/*
 * Lossless, an aggregate written without its record: what xrx-replay
 * --split makes of it is the aggregate. Said once per file.
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

static int pcap_deliver(struct xrx_sink *s, struct xrx_pkt *pkt)
{
	struct pcap_sink *p = s->priv;
	struct pcap_rec_hdr *rec;
	struct pcapng_epb_hdr *epb;
	char why[XRX_EXPLAIN_MAX];
	struct timespec ts;
	__u32 left, take, i, rec_bytes, need, tag, wire, head, cap, clen = 0;
	__u32 optlen = 0;
	__u64 stamp, ts_ns = 0;
	int err = 0;

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
	if (p->ng) {
		if (p->explain)
			clen = xrx_pkt__explain(pkt, p->max_aggregate, why,
						sizeof(why));
		rec_bytes = sizeof(*epb) + PCAPNG_PAD4(left) +
			    (p->explain ? 4 + PCAPNG_PAD4(clen) : 0) + 4 + 4;
	}
	if (p->ll) {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		ts_ns = xrx_lossless_time(p->ll, pkt,
					  (__u64)now.tv_sec * 1000000000 +
						  now.tv_nsec);
		/* the block's time as written: ns, or us */
		if (!p->nsec)
			ts_ns -= ts_ns % 1000;
		optlen = tag ? 0 :
			       xrx_lossless_option(p->ll, pkt, cap, ts_ns,
						   p->ll->opt);
		if (tag || (pkt->gso_segs > 1 && !optlen))
			pcap_unrecorded(p, pkt);
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

	clock_gettime(CLOCK_REALTIME, &ts);	/* vDSO: no syscall */
	if (p->ll) {
		ts.tv_sec = (time_t)(ts_ns / 1000000000);
		ts.tv_nsec = (long)(ts_ns % 1000000000);
	}
	p->rec_bytes[p->nr_pkts] = rec_bytes;
	p->queued_bytes += rec_bytes;
	if (p->ng) {
		epb = &p->epbs[p->nr_pkts];
		stamp = p->nsec ? (__u64)ts.tv_sec * 1000000000 + ts.tv_nsec :
				  (__u64)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
		epb->type = PCAPNG_EPB;
		epb->total_len = rec_bytes;
		epb->if_id = 0;
		epb->ts_high = (__u32)(stamp >> 32);
		epb->ts_low = (__u32)stamp;
		epb->cap_len = left;
		epb->orig_len = wire;
		p->iov[p->nr_iovs].iov_base = epb;
		p->iov[p->nr_iovs++].iov_len = sizeof(*epb);
	} else {
		rec = &p->recs[p->nr_pkts];
		rec->ts_sec = (__u32)ts.tv_sec;
		rec->ts_frac = p->nsec ? (__u32)ts.tv_nsec :
					 (__u32)(ts.tv_nsec / 1000);
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
				       rec_bytes, !p->ll);
	}
	if (p->ll) {
		p->iov[p->nr_iovs].iov_base =
			pcapng_lossless_tail(p, optlen, rec_bytes);
		p->iov[p->nr_iovs++].iov_len = optlen + 8;
	}
	p->pkts[p->nr_pkts++] = pkt;
	return err;
}

static void pcap_free(struct pcap_sink *p)
{
	xrx_lossless_free(p->ll);
	free(p->arena);
	free(p);
}

static int pcap_flush(struct xrx_sink *s)
{
	struct pcap_sink *p = s->priv;

	if (!p->file_bytes && p->fd >= 0)
		return pcap_still_full(p) ? -ENOSPC : pcap_write_header(s, p);
	return p->nr_pkts ? pcap_write_queue(s, p) : 0;
}

static void pcap_close(struct xrx_sink *s)
{
	struct pcap_sink *p = s->priv;

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

int xrx_sink_pcap__parse(const char *arg, char *path, size_t pathlen,
			 struct xrx_sink_opts *opts, char *err, size_t errlen)
{
	const char *comma = strchr(arg, ','), *opt, *eq;
	size_t len = comma ? (size_t)(comma - arg) : strlen(arg), olen;
	bool size = false, files = false;
	__u64 v;

	if (!len) {
		snprintf(err, errlen, "pcap:%s has no path; write pcap:PATH[,size=N][,files=N][,snaplen=N][,explain]",
			 arg);
		return -EINVAL;
	}
	if (len >= pathlen) {
		snprintf(err, errlen, "pcap:%.*s...: the path is too long; use a shorter one", 40, arg);
		return -ENAMETOOLONG;
	}
	memcpy(path, arg, len);
	path[len] = '\0';
	while (comma) {
		opt = comma + 1;
		comma = strchr(opt, ',');
		olen = comma ? (size_t)(comma - opt) : strlen(opt);
		eq = memchr(opt, '=', olen);
		if (eq && eq - opt == 4 && !strncmp(opt, "size", 4)) {
			if (!pcap_parse_size(eq + 1, olen - 5, &v) ||
			    v < PCAP_SIZE_MIN) {
				snprintf(err, errlen, "pcap:%s: size=%.*s is not a size of at least %d bytes; write a byte count, with K, M or G for KiB, MiB, GiB (size=64M)",
					 path, (int)(olen - 5), eq + 1, PCAP_SIZE_MIN);
				return -EINVAL;
			}
			opts->rotate_bytes = v;
			size = true;
		} else if (eq && eq - opt == 5 && !strncmp(opt, "files", 5)) {
			if (!pcap_parse_size(eq + 1, olen - 6, &v) ||
			    !isdigit((unsigned char)opt[olen - 1]) ||
			    v < 2 || v > PCAP_FILES_MAX) {
				snprintf(err, errlen, "pcap:%s: files=%.*s is out of range; write how many files to keep in all, 2 to %d (files=4: PATH and PATH.1 to PATH.3)",
					 path, (int)(olen - 6), eq + 1, PCAP_FILES_MAX);
				return -EINVAL;
			}
			opts->rotate_count = (__u32)v - 1;
			files = true;
		} else if (eq && eq - opt == 7 && !strncmp(opt, "snaplen", 7)) {
			/* the option of the table, as xrx-replay's --snaplen */
			char val[16], msg[160];

			snprintf(val, sizeof(val), "%.*s", (int)(olen - 8), eq + 1);
			if (xrx_opt__parse(xrx_opt__get(XRX_OPT_SNAPLEN), opts,
					   val, XRX_OPT_FORM_SPEC, msg,
					   sizeof(msg))) {
				snprintf(err, errlen, "pcap:%s: %s", path, msg);
				return -EINVAL;
			}
		} else if (olen >= 7 && !strncmp(opt, "explain", 7) &&
			   (olen == 7 || opt[7] == '=')) {
			/* the table's, as xrx-replay's --explain; alone: on */
			char val[8], msg[160];

			snprintf(val, sizeof(val), "%.*s",
				 olen == 7 ? 2 : (int)(olen - 8),
				 olen == 7 ? "on" : opt + 8);
			if (xrx_opt__parse(xrx_opt__get(XRX_OPT_EXPLAIN), opts,
					   val, XRX_OPT_FORM_SPEC, msg,
					   sizeof(msg))) {
				snprintf(err, errlen, "pcap:%s: %s", path, msg);
				return -EINVAL;
			}
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
			snprintf(err, errlen, "pcap:%s: unknown option '%.*s'; the options are size=N, files=N, snaplen=N, explain, lossless (a path may not contain ',')",
				 path, (int)olen, opt);
			return -EINVAL;
		}
	}
	if (files && !size) {
		snprintf(err, errlen, "pcap:%s: files= needs size= (when to rotate); add size=N",
			 path);
		return -EINVAL;
	}
	return 0;
}

static int pcap_open(struct xrx_sink *s, const char *arg,
		     const struct xrx_sink_opts *opts)
{
	struct xrx_sink_opts o = *opts;
	char base[PATH_MAX], err[PATH_MAX + 128];
	struct pcap_sink *p;
	int ret, n;

	ret = xrx_sink_pcap__parse(arg, base, sizeof(base), &o, err,
				   sizeof(err));
	if (ret) {
		fprintf(stderr, "xrx: %s\n", err);
		return ret;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->fd = -1;
	p->no_wait = o.no_wait;
	/* lossless: a frame written as it came keeps its ns time too */
	p->nsec = o.nanosecond || o.lossless;
	p->explain = o.explain;
	p->ng = o.explain || o.lossless;
	if (o.lossless && o.no_wait) {
		/* a tee hands the sink copies: the frames a record is made
		 * of are gone by then */
		fprintf(stderr, "xrx: pcap %s: lossless is for the primary sink, not a tee (its copies no longer hold the segments); make the lossless capture the sink\n",
			base);
		free(p);
		return -EINVAL;
	}
	if (o.lossless) {
		p->ll = xrx_lossless_new(o.seg_time, o.seg_time_ctx);
		p->arena = malloc(PCAP_ARENA);
		if (!p->ll || !p->arena) {
			pcap_free(p);
			return -ENOMEM;
		}
	}
	p->max_aggregate = o.max_aggregate;
	p->snaplen = o.snaplen;		/* xrx_sink__open() filled it in */
	p->rotate_bytes = o.rotate_bytes;
	p->rotate_count = o.rotate_count ? o.rotate_count :
					   PCAP_ROTATE_COUNT_DEFAULT;
	if (o.nr_queues > 1)
		n = snprintf(p->path, sizeof(p->path), "%s.q%u", base,
			     o.queue);
	else
		n = snprintf(p->path, sizeof(p->path), "%s", base);
	if (n < 0 || (size_t)n >= sizeof(p->path)) {
		pcap_free(p);
		return -ENAMETOOLONG;
	}
	p->root_reserve = pcap_may_use_reserve();
	s->priv = p;
	ret = pcap_keep_earlier(p);
	if (!ret)
		ret = pcap_open_file(s, p);
	if (ret) {
		if (p->fd >= 0)
			close(p->fd);
		pcap_free(p);
		s->priv = NULL;
	}
	return ret;
}

const struct xrx_sink_ops xrx_sink_pcap_ops = {
	.name = "pcap",
	.open = pcap_open,
	.deliver = pcap_deliver,
	.flush = pcap_flush,
	.close = pcap_close,
};
