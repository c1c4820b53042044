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
 * queue (one writer per file, no locks). PATH may be a FIFO: its open()
 * waits for a reader, as a FIFO does, and a slow reader slows the worker
 * (the socket then drops and counts, never the sink).
 *
 * Rotation (opts->rotate_bytes): before a record would take the file past
 * the limit, PATH.(k-1) -> PATH.k ... PATH -> PATH.1 and a new PATH is
 * started, keeping rotate_count old files. FIFOs are never rotated.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <xrx/engine.h>
#include <xrx/sink.h>

#define PCAP_MAGIC_US 0xa1b2c3d4
#define PCAP_MAGIC_NS 0xa1b23c4d
#define PCAP_LINKTYPE_ETHERNET 1
#define PCAP_SNAPLEN_DEFAULT 262144	/* libpcap's MAXIMUM_SNAPLEN */
#define PCAP_ROTATE_COUNT_DEFAULT 8
#define PCAP_QUEUE 64			/* packets per writev */
#define PCAP_IOVS 1024			/* UIO_MAXIOV */

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

struct pcap_sink {
	int fd;
	bool fifo;
	bool nsec;
	__u32 snaplen;
	__u32 rotate_count;
	__u64 rotate_bytes;
	__u64 file_bytes;		/* written to the current file */
	__u64 queued_bytes;		/* records waiting in the queue */
	__u32 nr_pkts;
	__u32 nr_iovs;
	struct xrx_pkt *pkts[PCAP_QUEUE];
	struct pcap_rec_hdr recs[PCAP_QUEUE];
	__u8 tags[PCAP_QUEUE][4];	/* out-of-band VLAN tags, put back */
	struct iovec iov[PCAP_IOVS];
	char path[PATH_MAX];
};

static int pcap_write_header(struct xrx_sink *s, struct pcap_sink *p)
{
	struct pcap_file_hdr h = {
		.magic = p->nsec ? PCAP_MAGIC_NS : PCAP_MAGIC_US,
		.version_major = 2,
		.version_minor = 4,
		.snaplen = p->snaplen,
		.linktype = PCAP_LINKTYPE_ETHERNET,
	};
	ssize_t n;

	n = write(p->fd, &h, sizeof(h));
	if (n != sizeof(h))
		return n < 0 ? -errno : -EIO;
	p->file_bytes = sizeof(h);
	xrx_sink__count(s, XRX_SINK_STAT_BYTES_OUT, sizeof(h));
	return 0;
}

static int pcap_open_file(struct xrx_sink *s, struct pcap_sink *p)
{
	struct stat st;

	if (!stat(p->path, &st) && S_ISFIFO(st.st_mode)) {
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

/* Write the queue in as few writev() calls as the kernel accepts. */
static int pcap_write_queue(struct xrx_sink *s, struct pcap_sink *p)
{
	struct iovec *iov = p->iov;
	int cnt = (int)p->nr_iovs, err = 0;
	ssize_t n;
	__u32 i;

	while (cnt > 0) {
		n = writev(p->fd, iov, cnt);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
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
	for (i = 0; i < p->nr_pkts; i++) {
		if (err) {
			xrx_sink__count(s, XRX_SINK_STAT_ERRORS, 1);
		} else {
			xrx_sink__count(s, XRX_SINK_STAT_PKTS_OUT, 1);
			xrx_sink__count(s, XRX_SINK_STAT_BYTES_OUT,
					sizeof(p->recs[i]) + p->recs[i].incl_len);
		}
		xrx_sink__release(s, p->pkts[i]);
	}
	if (!err)
		p->file_bytes += p->queued_bytes;
	p->nr_pkts = 0;
	p->nr_iovs = 0;
	p->queued_bytes = 0;
	return err;
}

/* PATH.(k-1) -> PATH.k, ..., PATH -> PATH.1, then a fresh PATH. */
static int pcap_rotate(struct xrx_sink *s, struct pcap_sink *p)
{
	char from[PATH_MAX + 16], to[PATH_MAX + 16];
	__u32 k;

	close(p->fd);
	p->fd = -1;
	for (k = p->rotate_count; k >= 1; k--) {
		if (k == 1)
			snprintf(from, sizeof(from), "%s", p->path);
		else
			snprintf(from, sizeof(from), "%s.%u", p->path, k - 1);
		snprintf(to, sizeof(to), "%s.%u", p->path, k);
		if (rename(from, to) && errno != ENOENT)
			return -errno;
	}
	xrx_sink__count(s, XRX_SINK_STAT_ROTATIONS, 1);
	return pcap_open_file(s, p);
}

static int pcap_deliver(struct xrx_sink *s, struct xrx_pkt *pkt)
{
	struct pcap_sink *p = s->priv;
	struct pcap_rec_hdr *rec;
	struct timespec ts;
	__u32 left, take, i, rec_bytes, need, tag, wire, head;
	int err = 0;

	if (p->fd < 0) {
		xrx_sink__count(s, XRX_SINK_STAT_ERRORS, 1);
		xrx_sink__release(s, pkt);
		return -EBADF;
	}
	/* A tag the NIC stripped goes back in front of the EtherType, as
	 * a packet socket shows it (libpcap from PACKET_AUXDATA). */
	tag = pkt->vlan_proto && pkt->head_len >= 12 ? 4 : 0;
	wire = pkt->len + tag;
	left = wire < p->snaplen ? wire : p->snaplen;
	rec_bytes = sizeof(*rec) + left;
	need = 2 + pkt->nr_frags + (tag ? 2 : 0);	/* record header, head
							 * (split at the tag), frags */
	if (need > PCAP_IOVS) {
		xrx_sink__count(s, XRX_SINK_STAT_DROPPED, 1);
		xrx_sink__release(s, pkt);
		return -E2BIG;
	}
	/* Errors of packets already queued are theirs: counted there. */
	if (p->nr_pkts == PCAP_QUEUE || p->nr_iovs + need > PCAP_IOVS)
		pcap_write_queue(s, p);
	if (p->rotate_bytes && !p->fifo &&
	    p->file_bytes + p->queued_bytes + rec_bytes > p->rotate_bytes &&
	    p->file_bytes + p->queued_bytes > sizeof(struct pcap_file_hdr)) {
		if (p->nr_pkts)
			err = pcap_write_queue(s, p);
		if (!err)
			err = pcap_rotate(s, p);
		if (err) {
			xrx_sink__count(s, XRX_SINK_STAT_ERRORS, 1);
			xrx_sink__release(s, pkt);
			return err;
		}
	}

	clock_gettime(CLOCK_REALTIME, &ts);	/* vDSO: no syscall */
	rec = &p->recs[p->nr_pkts];
	rec->ts_sec = (__u32)ts.tv_sec;
	rec->ts_frac = p->nsec ? (__u32)ts.tv_nsec : (__u32)(ts.tv_nsec / 1000);
	rec->incl_len = left;
	rec->orig_len = wire;
	p->queued_bytes += rec_bytes;

	p->iov[p->nr_iovs].iov_base = rec;
	p->iov[p->nr_iovs++].iov_len = sizeof(*rec);
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
	p->pkts[p->nr_pkts++] = pkt;
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
	return err;
}

static int pcap_flush(struct xrx_sink *s)
{
	struct pcap_sink *p = s->priv;

	return p->nr_pkts ? pcap_write_queue(s, p) : 0;
}

static void pcap_close(struct xrx_sink *s)
{
	struct pcap_sink *p = s->priv;

	pcap_flush(s);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
	s->priv = NULL;
}

static int pcap_open(struct xrx_sink *s, const char *arg,
		     const struct xrx_sink_opts *opts)
{
	struct pcap_sink *p;
	int err, n;

	if (!*arg)
		return -EINVAL;	/* "pcap:PATH": a path is needed */
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->fd = -1;
	p->nsec = opts->nanosecond;
	p->snaplen = opts->snaplen ? opts->snaplen : PCAP_SNAPLEN_DEFAULT;
	p->rotate_bytes = opts->rotate_bytes;
	p->rotate_count = opts->rotate_count ? opts->rotate_count :
					       PCAP_ROTATE_COUNT_DEFAULT;
	if (opts->nr_queues > 1)
		n = snprintf(p->path, sizeof(p->path), "%s.q%u", arg,
			     opts->queue);
	else
		n = snprintf(p->path, sizeof(p->path), "%s", arg);
	if (n < 0 || (size_t)n >= sizeof(p->path)) {
		free(p);
		return -ENAMETOOLONG;
	}
	s->priv = p;
	err = pcap_open_file(s, p);
	if (err) {
		if (p->fd >= 0)
			close(p->fd);
		free(p);
		s->priv = NULL;
	}
	return err;
}

const struct xrx_sink_ops xrx_sink_pcap_ops = {
	.name = "pcap",
	.open = pcap_open,
	.deliver = pcap_deliver,
	.flush = pcap_flush,
	.close = pcap_close,
};
