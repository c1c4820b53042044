// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Capture files on disk: see sink/capfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <xrx/engine.h>

#include "sink/capfile.h"
#include "sink/pcapng.h"

/* PATH.(k-1) -> PATH.k, ..., PATH -> PATH.1: the oldest goes. */
int xrx_pcap__shift(const char *path, __u32 count)
{
	char from[PATH_MAX + 16], to[PATH_MAX + 16];
	__u32 k;

	for (k = count; k >= 1; k--) {
		if (k == 1)
			snprintf(from, sizeof(from), "%s", path);
		else
			snprintf(from, sizeof(from), "%s.%u", path, k - 1);
		snprintf(to, sizeof(to), "%s.%u", path, k);
		if (rename(from, to) && errno != ENOENT)
			return -errno;
	}
	return 0;
}

/*
 * Does the regular file @fd of @size bytes hold more than a header? A
 * pcap or pcapng file as long as the header xrx writes has no record; a
 * file shorter than a magic number holds nothing either (a header cut
 * short by a crash). Anything else, a file that is no capture included,
 * counts as records: it is moved aside, never emptied.
 */
static bool pcapng_holds_records(int fd, off_t size)
{
	__u32 b[2];
	off_t off = 0;

	/* Any block but section and interface headers is a record. */
	while (off + 8 <= size) {
		if (pread(fd, b, sizeof(b), off) != (ssize_t)sizeof(b) ||
		    b[1] < 12 || (b[1] & 3))
			return true;
		if (b[0] != XRX_PCAPNG_SHB && b[0] != XRX_PCAPNG_IDB)
			return true;
		off += b[1];
	}
	return off != size && size - off >= 4;
}

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
	case XRX_PCAPNG_SHB:
		return pcapng_holds_records(fd, size);
	default:
		return true;
	}
}

/*
 * At the start: a PATH left by an earlier run that holds records is
 * rotated out (the file comment says why), with one line saying so.
 */
int xrx_pcap__keep_earlier(const char *path, __u32 count)
{
	struct stat st;
	bool keep;
	int fd, err;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;		/* none, or a FIFO: nothing to keep */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;		/* the open for writing says why */
	keep = pcap_holds_records(fd, st.st_size);
	close(fd);
	if (!keep)
		return 0;
	err = xrx_pcap__shift(path, count);
	if (err) {
		fprintf(stderr, "xrx: pcap %s holds records of an earlier run, which cannot be moved to %s.1 to keep them: %s; make the directory writable or write another path\n",
			path, path, strerror(-err));
		return err;
	}
	fprintf(stderr, "xrx: pcap %s held %lld bytes of an earlier run: kept as %s.1, older files moved up, at most %u older kept (files=%u); the capture continues in a new %s\n",
		path, (long long)st.st_size, path, count, count + 1, path);
	return 0;
}

int xrx_pcap__writev_all(int fd, struct iovec *iov, int cnt, __u64 *written)
{
	ssize_t n;

	*written = 0;
	while (cnt > 0) {
		n = writev(fd, iov, cnt);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		*written += (__u64)n;
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
	return 0;
}

__u64 xrx_pcap__pkt_time(const struct xrx_pkt *pkt)
{
	struct timespec ts;

	if (pkt->ts_ns)
		return pkt->ts_ns;
	clock_gettime(CLOCK_REALTIME, &ts);	/* vDSO: no syscall */
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

#define RING_HUGE_PAGE (2u << 20)

void *xrx_pcap__ring_alloc(size_t bytes)
{
	void *p = aligned_alloc(RING_HUGE_PAGE, bytes);

	if (!p)
		return NULL;
	/* Only a request: without THP (or with it off) base pages, as a
	 * malloc() gives, and no failure. */
	madvise(p, bytes, MADV_HUGEPAGE);
	memset(p, 0, bytes);
	return p;
}
