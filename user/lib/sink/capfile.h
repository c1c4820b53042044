/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Capture files on disk, as the pcap sink's two writers (sink/pcap.c,
 * one file per queue; sink/merge.c, one for all) keep them: the classic
 * pcap header, a set PATH, PATH.1, ... shifted one up, and a file an
 * earlier run left with records moved aside instead of emptied.
 */
#ifndef XRX_LIB_SINK_CAPFILE_H
#define XRX_LIB_SINK_CAPFILE_H

#include <linux/types.h>
#include <stddef.h>
#include <sys/uio.h>

#define PCAP_MAGIC_US 0xa1b2c3d4
#define PCAP_MAGIC_NS 0xa1b23c4d

struct pcap_file_hdr {
	__u32 magic;
	__u16 version_major;
	__u16 version_minor;
	__s32 thiszone;
	__u32 sigfigs;
	__u32 snaplen;
	__u32 linktype;
};

/* PATH.(count-1) -> PATH.count, ..., PATH -> PATH.1. Return: 0, -errno. */
int xrx_pcap__shift(const char *path, __u32 count);
/* PATH holding records of an earlier run is shifted out, said on stderr. */
int xrx_pcap__keep_earlier(const char *path, __u32 count);

/*
 * writev() @cnt iovecs to @fd until all went out or a write fails, a
 * short write going on with the rest (@iov is consumed). *@written: the
 * bytes that went out. Return: 0, or -errno of the failed write.
 */
int xrx_pcap__writev_all(int fd, struct iovec *iov, int cnt, __u64 *written);

struct xrx_pkt;
/* @pkt's arrival time (an aggregate's first segment's), ns since the
 * epoch; the clock's now for a packet that came without one. */
__u64 xrx_pcap__pkt_time(const struct xrx_pkt *pkt);

/*
 * A hand-off ring of @bytes (a multiple of 2 MiB): the one-file writer's
 * and the tee's, which a worker copies every record into and a writer
 * thread reads out again, round and round. In transparent huge pages
 * where the kernel gives them on request, and touched now, so the
 * receive path meets neither a page fault per 4 KiB nor a TLB miss per
 * record. Free with free(). Return: NULL with errno set on failure.
 */
void *xrx_pcap__ring_alloc(size_t bytes);

#endif /* XRX_LIB_SINK_CAPFILE_H */
