// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tun_inject: put engine-built packets into the kernel stack through the
 * TUN sink and check what a socket of that stack receives.
 *
 *   tun_inject -d DEV -f 4|6 -p udp|tcp [-n SEGS] [-s SIZE] [-P PORT]
 *              [-A MAX_AGGREGATE] [-g gso|nogso] [-t SECONDS]
 *              [-j auto|hbh|zero|split] [-e zero|hbh]
 *
 * Frames are built in memory (user/util/frames.h) from the peer
 * 198.18.1.1 / 2001:db8:1::1 to the local end 198.18.1.2 / 2001:db8:1::2,
 * which the test has put on DEV, and go through a GRO engine into the
 * sink "tun:DEV[,nogso]".
 *   udp  SEGS datagrams of SIZE bytes to a socket bound on PORT; each
 *        received datagram must be the one sent, in order.
 *   tcp  a real connection to a listening socket: our SYN goes in through
 *        the sink, the SYN-ACK is read back from the TUN, then the ACK
 *        and SEGS segments of SIZE bytes go in (aggregated), and the
 *        accepted socket must read exactly the bytes sent.
 * -j is the sink's tun_ipv6_jumbo (IPv6 aggregates above 64 KiB), -e the
 * engine's ipv6_jumbo form.
 * Prints one line:
 *   result bytes N expected N match 0|1 aggs N gso_writes N plain_writes N
 *          split N split_big N errors N offloads 0xN jumbo_writes N
 *          ipv6_jumbo hbh|zero|split
 * Exit 0 when the bytes match, 1 when not or on a setup failure, 2 on
 * bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/virtio_net.h>

#include <xrx/xrx.h>
#include <xrx/sink.h>
#include "sink/tun.h"
#include "util/frames.h"

#define SLOT 2048
#define SEED 7
#define ISN 1000000u

struct inj {
	const char *dev;
	int family;
	bool tcp;
	bool gso;
	__u32 nsegs, size, max_agg;
	__u16 port;
	__u16 sport;		/* per run: a closed run's connection
				 * lingers in FIN_WAIT and would answer
				 * a new SYN on the same ports */
	int timeout_ms;
	__u8 *region;
	size_t region_size;
	struct xrx_frame *frames;
	__u32 nframes;
	struct xrx_engine *e;
	struct xrx_sink *sink;
	__u8 peer[16], local[16];
};

static void on_deliver(void *ctx, struct xrx_pkt *pkt)
{
	struct inj *j = ctx;

	xrx_sink__deliver(j->sink, pkt);
}

static void on_sink_release(void *ctx, struct xrx_pkt *pkt)
{
	struct inj *j = ctx;

	xrx_pkt__release(j->e, pkt);
}

static void spec_init(const struct inj *j, struct frame_spec *s)
{
	if (j->tcp)
		(j->family == 4 ? frame_spec_tcp4 : frame_spec_tcp6)(s);
	else
		(j->family == 4 ? frame_spec_udp4 : frame_spec_udp6)(s);
	memcpy(s->saddr, j->peer, 16);
	memcpy(s->daddr, j->local, 16);
	s->sport = j->sport;
	s->dport = j->port;
	s->stream_seed = SEED;
	s->tcp_opts = NULL;
	s->tcp_opts_len = 0;
	s->window = 65535;
}

/* Append a frame to the region; it is given to the engine later. */
static int add_frame(struct inj *j, const struct frame_spec *s)
{
	__u64 addr = (__u64)j->nframes * SLOT;
	int len;

	if (addr + SLOT > j->region_size)
		return -ENOSPC;
	len = frame_build(s, j->region + addr, SLOT);
	if (len < 0)
		return len;
	j->frames[j->nframes].addr = addr;
	j->frames[j->nframes].len = (__u32)len;
	j->frames[j->nframes].meta = NULL;
	j->nframes++;
	return 0;
}

static int run_batch(struct inj *j, __u32 from)
{
	struct timespec ts;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = xrx_engine__rx(j->e, j->frames + from, j->nframes - from,
			   (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec);
	xrx_engine__flush_all(j->e);
	return n < 0 ? n : 0;
}

static socklen_t local_sockaddr(const struct inj *j,
				struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (j->family == 4) {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(j->port);
		memcpy(&a->sin_addr, j->local + 12, 4);
		return sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(j->port);
		memcpy(&a->sin6_addr, j->local, 16);
		return sizeof(*a);
	}
}

static int wait_in(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 ? 0 : -ETIMEDOUT;
}

/* Compare @n received bytes at stream offset @off. */
static bool bytes_ok(const __u8 *buf, __u32 n, __u32 seq0)
{
	__u32 i;

	for (i = 0; i < n; i++)
		if (buf[i] != frame_payload_byte(SEED, seq0 + i))
			return false;
	return true;
}

static int run_udp(struct inj *j, __u64 *got, bool *match)
{
	struct sockaddr_storage ss;
	socklen_t sl = local_sockaddr(j, &ss);
	struct frame_spec s;
	__u8 *buf;
	int fd, err, rcvbuf = 32 << 20;
	__u32 i;
	ssize_t n;

	fd = socket(j->family == 4 ? AF_INET : AF_INET6,
		    SOCK_DGRAM | SOCK_CLOEXEC, 0);
	/* Every datagram is queued before the first is read: room for all
	 * (FORCE: above rmem_max; we run as root) */
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
			   sizeof(rcvbuf));
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, sl)) {
		fprintf(stderr, "tun_inject: UDP socket on port %u: %s (is the local address on %s?)\n",
			j->port, strerror(errno), j->dev);
		return -errno;
	}
	for (i = 0; i < j->nsegs; i++) {
		spec_init(j, &s);
		s.payload_len = j->size;
		s.seq = i * j->size;	/* the payload's stream offset */
		s.ip_id = (__u16)(100 + i);
		err = add_frame(j, &s);
		if (err)
			return err;
	}
	err = run_batch(j, 0);
	if (err)
		return err;
	buf = malloc(65536);
	if (!buf)
		return -ENOMEM;
	*match = true;
	for (i = 0; i < j->nsegs; i++) {
		if (wait_in(fd, j->timeout_ms))
			break;
		n = recv(fd, buf, 65536, 0);
		if (n < 0)
			break;
		*got += (__u64)n;
		if ((__u32)n != j->size || !bytes_ok(buf, (__u32)n, i * j->size))
			*match = false;
	}
	if (i < j->nsegs)
		*match = false;
	free(buf);
	close(fd);
	return 0;
}

/* Read the TUN until the SYN-ACK to our port; return its sequence number. */
static int read_synack(struct inj *j, int tfd, __u32 *srv_isn)
{
	__u8 buf[4096], *ip, *th;
	struct timespec t0, t;
	ssize_t n;
	__u32 l4;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 > j->timeout_ms)
			return -ETIMEDOUT;
		if (wait_in(tfd, 200))
			continue;
		n = read(tfd, buf, sizeof(buf));
		if (n < (ssize_t)(sizeof(struct virtio_net_hdr) + 40))
			continue;
		ip = buf + sizeof(struct virtio_net_hdr);
		if ((ip[0] >> 4) == 4 && ip[9] == IPPROTO_TCP)
			l4 = (ip[0] & 0xf) * 4u;
		else if ((ip[0] >> 4) == 6 && ip[6] == IPPROTO_TCP)
			l4 = 40;
		else
			continue;
		if ((ssize_t)(sizeof(struct virtio_net_hdr) + l4 + 20) > n)
			continue;
		th = ip + l4;
		if ((th[2] << 8 | th[3]) != j->sport || (th[13] & 0x12) != 0x12)
			continue;
		*srv_isn = (__u32)th[4] << 24 | th[5] << 16 | th[6] << 8 | th[7];
		return 0;
	}
}

static int run_tcp(struct inj *j, __u64 *got, bool *match)
{
	static const __u8 syn_opts[8] = { 2, 4, 0x05, 0xa8,	/* MSS 1448 */
					   1, 3, 3, 7 };	/* NOP, WS 7 */
	struct sockaddr_storage ss;
	socklen_t sl = local_sockaddr(j, &ss);
	struct xrx_tun_info info;
	__u64 want = (__u64)j->nsegs * j->size;
	struct frame_spec s;
	int lfd, cfd = -1, one = 1, rcvbuf = 8 << 20, err;
	__u32 srv_isn, i, first;
	__u8 *buf = NULL;
	ssize_t n;

	lfd = socket(j->family == 4 ? AF_INET : AF_INET6,
		     SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return -errno;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(lfd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	if (bind(lfd, (struct sockaddr *)&ss, sl) || listen(lfd, 4)) {
		fprintf(stderr, "tun_inject: TCP listen on port %u: %s (is the local address on %s?)\n",
			j->port, strerror(errno), j->dev);
		err = -errno;
		goto out;
	}
	err = xrx_sink_tun__info(j->sink, &info);
	if (err)
		goto out;

	spec_init(j, &s);
	s.tcp_flags = 0x02;	/* SYN */
	s.seq = ISN;
	s.ack = 0;
	s.payload_len = 0;
	s.tcp_opts = syn_opts;
	s.tcp_opts_len = sizeof(syn_opts);
	s.ip_id = 1;
	err = add_frame(j, &s);
	if (!err)
		err = run_batch(j, 0);
	if (!err)
		err = read_synack(j, info.fd, &srv_isn);
	if (err) {
		fprintf(stderr, "tun_inject: no SYN-ACK from the stack through %s: %s\n",
			j->dev, strerror(-err));
		goto out;
	}

	first = j->nframes;
	spec_init(j, &s);	/* the handshake's ACK */
	s.seq = ISN + 1;
	s.ack = srv_isn + 1;
	s.payload_len = 0;
	s.ip_id = 2;
	err = add_frame(j, &s);
	for (i = 0; !err && i < j->nsegs; i++) {
		spec_init(j, &s);
		s.seq = ISN + 1 + i * j->size;
		s.ack = srv_isn + 1;
		s.payload_len = j->size;
		s.ip_id = (__u16)(3 + i);
		if (i == j->nsegs - 1)
			s.tcp_flags |= 0x08;	/* PSH on the last */
		err = add_frame(j, &s);
	}
	if (!err)
		err = run_batch(j, first);
	if (err)
		goto out;

	if (wait_in(lfd, j->timeout_ms)) {
		fprintf(stderr, "tun_inject: no connection accepted on port %u\n",
			j->port);
		err = -ETIMEDOUT;
		goto out;
	}
	cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	buf = malloc(want + 1);
	if (cfd < 0 || !buf) {
		err = -ENOMEM;
		goto out;
	}
	while (*got < want && !wait_in(cfd, j->timeout_ms)) {
		n = read(cfd, buf + *got, want + 1 - *got);
		if (n <= 0)
			break;
		*got += (__u64)n;
	}
	*match = *got == want && bytes_ok(buf, (__u32)want, ISN + 1);
out:
	free(buf);
	if (cfd >= 0)
		close(cfd);
	close(lfd);
	return err;
}

static void usage(void)
{
	fprintf(stderr, "usage: tun_inject -d DEV -f 4|6 -p udp|tcp [-n SEGS] [-s SIZE] [-P PORT]\n"
			"                  [-A MAX_AGGREGATE] [-g gso|nogso] [-t SECONDS]\n"
			"                  [-j auto|hbh|zero|split] [-e zero|hbh]\n");
}

int main(int argc, char **argv)
{
	static const __u8 v6p[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1 };
	static const __u8 v6l[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2 };
	struct inj j = { .family = 4, .gso = true, .nsegs = 40, .size = 1448,
			 .port = 5201, .timeout_ms = 3000 };
	struct xrx_sink_opts so = { .sz = sizeof(so) };
	struct xrx_engine_opts eo = { .sz = sizeof(eo) };
	__u64 es[XRX_ENGINE_STAT_MAX], ss[XRX_SINK_STAT_MAX], got = 0;
	struct xrx_tun_info info = { 0 };
	const char *proto = "udp";
	char spec[64];
	bool match = false;
	int c, err;

	static const char *const jumbos[] = { "auto", "hbh", "zero", "split" };
	unsigned int k;

	while ((c = getopt(argc, argv, "d:f:p:n:s:P:A:g:t:j:e:h")) != -1) {
		switch (c) {
		case 'd': j.dev = optarg; break;
		case 'f': j.family = atoi(optarg); break;
		case 'p': proto = optarg; break;
		case 'n': j.nsegs = (__u32)strtoul(optarg, NULL, 0); break;
		case 's': j.size = (__u32)strtoul(optarg, NULL, 0); break;
		case 'P': j.port = (__u16)strtoul(optarg, NULL, 0); break;
		case 'A': j.max_agg = (__u32)strtoul(optarg, NULL, 0); break;
		case 'g': j.gso = strcmp(optarg, "nogso") != 0; break;
		case 't': j.timeout_ms = atoi(optarg) * 1000; break;
		case 'j':
			for (k = 0; k < 4 && strcmp(optarg, jumbos[k]); k++)
				;
			if (k == 4) {
				usage();
				return 2;
			}
			so.tun_ipv6_jumbo = (enum xrx_tun_ipv6_jumbo)k;
			break;
		case 'e':
			eo.ipv6_jumbo = strcmp(optarg, "hbh") ?
				XRX_IPV6_JUMBO_ZERO : XRX_IPV6_JUMBO_HBH;
			break;
		default: usage(); return c == 'h' ? 0 : 2;
		}
	}
	j.tcp = !strcmp(proto, "tcp");
	j.sport = (__u16)(20000 + getpid() % 30000);
	if (!j.dev || (j.family != 4 && j.family != 6) ||
	    (!j.tcp && strcmp(proto, "udp")) || !j.nsegs || !j.size ||
	    j.size > 1460 || j.nsegs > 4096) {
		usage();
		return 2;
	}
	if (j.family == 4) {
		const __u8 p4[4] = { 198, 18, 1, 1 }, l4[4] = { 198, 18, 1, 2 };

		memcpy(j.peer + 12, p4, 4);
		memcpy(j.local + 12, l4, 4);
	} else {
		memcpy(j.peer, v6p, 16);
		memcpy(j.local, v6l, 16);
	}

	j.region_size = (size_t)(j.nsegs + 4) * SLOT;
	j.region = mmap(NULL, j.region_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	j.frames = calloc(j.nsegs + 4, sizeof(*j.frames));
	if (j.region == MAP_FAILED || !j.frames)
		return 1;

	so.tun_no_gso = !j.gso;
	snprintf(spec, sizeof(spec), "tun:%s", j.dev);
	j.sink = xrx_sink__open(spec, &so);
	if (!j.sink) {
		fprintf(stderr, "tun_inject: sink %s: %s\n", spec, strerror(errno));
		return 1;
	}
	xrx_sink__bind(j.sink, on_sink_release, &j);

	eo.region = j.region;
	eo.region_size = j.region_size;
	eo.udp = !j.tcp;
	eo.max_aggregate = j.max_agg;
	eo.deliver = on_deliver;
	eo.ctx = &j;
	j.e = xrx_engine__new(&eo);
	if (!j.e) {
		fprintf(stderr, "tun_inject: engine: %s\n", strerror(errno));
		xrx_sink__close(j.sink);
		return 1;
	}

	err = j.tcp ? run_tcp(&j, &got, &match) : run_udp(&j, &got, &match);
	xrx_engine__stats(j.e, es);
	xrx_sink__stats(j.sink, ss);
	xrx_sink_tun__info(j.sink, &info);
	printf("result bytes %llu expected %llu match %d aggs %llu gso_writes %llu plain_writes %llu split %llu split_big %llu errors %llu offloads 0x%x jumbo_writes %llu ipv6_jumbo %s\n",
	       (unsigned long long)got,
	       (unsigned long long)j.nsegs * j.size, match,
	       (unsigned long long)es[XRX_ENGINE_STAT_AGGS_OUT],
	       (unsigned long long)info.gso_writes,
	       (unsigned long long)info.plain_writes,
	       (unsigned long long)info.split_pkts,
	       (unsigned long long)info.split_big,
	       (unsigned long long)ss[XRX_SINK_STAT_ERRORS], info.offloads,
	       (unsigned long long)info.jumbo_writes,
	       jumbos[info.ipv6_jumbo < 4 ? info.ipv6_jumbo : 0]);
	xrx_engine__free(j.e);
	xrx_sink__close(j.sink);
	munmap(j.region, j.region_size);
	free(j.frames);
	if (err)
		fprintf(stderr, "tun_inject: %s\n", strerror(-err));
	return !err && match ? 0 : 1;
}
