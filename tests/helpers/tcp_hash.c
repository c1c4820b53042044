// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tcp_hash: a TCP byte stream whose two ends each print a hash of what
 * they sent or received, so a test can prove a transfer arrived intact.
 *
 *   tcp_hash recv -b ADDR -p PORT [-t SECONDS]
 *   tcp_hash send -a ADDR -p PORT -n BYTES [-s SEED] [-t SECONDS]
 *
 * The stream is a xorshift64 sequence from SEED (cheap, not compressible
 * by accident). Both ends hash with FNV-1a 64 over 8-byte words (the
 * tail byte-wise) and print one line:
 *   recv bytes N hash 0x... secs S gbps G
 *   send bytes N hash 0x... secs S gbps G
 * recv prints "ready" once listening; it takes one connection and reads
 * to EOF. Every wait is bounded by -t (default 60 s). Exit 0 when the
 * transfer completed, 1 on failure, 2 on bad usage.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <linux/types.h>

#define BUF (256 * 1024)
#define FNV_OFF 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

struct hasher {
	__u64 h;
	__u8 tail[8];
	unsigned int nt;	/* bytes in tail */
};

static void hash_add(struct hasher *s, const __u8 *p, size_t n)
{
	__u64 w;

	while (n && s->nt) {
		s->tail[s->nt++] = *p++;
		n--;
		if (s->nt == 8) {
			memcpy(&w, s->tail, 8);
			s->h = (s->h ^ w) * FNV_PRIME;
			s->nt = 0;
		}
	}
	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		s->h = (s->h ^ w) * FNV_PRIME;
	}
	while (n--)
		s->tail[s->nt++] = *p++;
}

static __u64 hash_end(struct hasher *s)
{
	unsigned int i;

	for (i = 0; i < s->nt; i++)
		s->h = (s->h ^ s->tail[i]) * FNV_PRIME;
	return s->h;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int resolve(const char *addr, const char *port, struct addrinfo **ai,
		   int flags)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = flags | AI_NUMERICHOST };

	return getaddrinfo(addr, port, &hints, ai);
}

static int do_recv(const char *addr, const char *port, int timeout)
{
	struct hasher hs = { .h = FNV_OFF };
	struct addrinfo *ai;
	struct pollfd pfd;
	int lfd, fd, one = 1;
	__u64 total = 0;
	double t0, t;
	__u8 *buf;
	ssize_t n;

	if (resolve(addr, port, &ai, AI_PASSIVE)) {
		fprintf(stderr, "tcp_hash: bad address %s port %s\n", addr, port);
		return 2;
	}
	lfd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, ai->ai_addr, ai->ai_addrlen) ||
	    listen(lfd, 1)) {
		fprintf(stderr, "tcp_hash: listen on %s port %s: %s\n", addr,
			port, strerror(errno));
		return 1;
	}
	freeaddrinfo(ai);
	printf("ready\n");
	fflush(stdout);
	pfd.fd = lfd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, timeout * 1000) != 1) {
		fprintf(stderr, "tcp_hash: no connection within %d s\n", timeout);
		return 1;
	}
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	buf = malloc(BUF);
	if (fd < 0 || !buf)
		return 1;
	t0 = now();
	pfd.fd = fd;
	for (;;) {
		t = now();
		if (t - t0 > timeout) {
			fprintf(stderr, "tcp_hash: receive not done after %d s\n",
				timeout);
			return 1;
		}
		if (poll(&pfd, 1, 1000) != 1)
			continue;
		n = read(fd, buf, BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		hash_add(&hs, buf, (size_t)n);
		total += (__u64)n;
	}
	t = now() - t0;
	printf("recv bytes %llu hash 0x%016llx secs %.3f gbps %.3f\n",
	       (unsigned long long)total, (unsigned long long)hash_end(&hs),
	       t, t > 0 ? total * 8 / t / 1e9 : 0);
	close(fd);
	close(lfd);
	free(buf);
	return n < 0 ? 1 : 0;
}

static int do_send(const char *addr, const char *port, __u64 bytes,
		   __u64 seed, int timeout)
{
	struct hasher hs = { .h = FNV_OFF };
	__u64 x = seed ? seed : 1, total = 0, *w;
	struct addrinfo *ai;
	struct timeval tv = { .tv_sec = timeout };
	size_t chunk, off, i;
	double t0, t;
	ssize_t n;
	int fd;

	if (resolve(addr, port, &ai, 0)) {
		fprintf(stderr, "tcp_hash: bad address %s port %s\n", addr, port);
		return 2;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen)) {
		fprintf(stderr, "tcp_hash: connect to %s port %s: %s\n", addr,
			port, strerror(errno));
		return 1;
	}
	freeaddrinfo(ai);
	w = malloc(BUF);
	if (!w)
		return 1;
	t0 = now();
	while (total < bytes) {
		if (now() - t0 > timeout) {
			fprintf(stderr, "tcp_hash: send not done after %d s\n",
				timeout);
			return 1;
		}
		for (i = 0; i < BUF / 8; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			w[i] = x;
		}
		chunk = bytes - total < BUF ? (size_t)(bytes - total) : BUF;
		hash_add(&hs, (__u8 *)w, chunk);
		for (off = 0; off < chunk; off += (size_t)n) {
			n = write(fd, (__u8 *)w + off, chunk - off);
			if (n < 0 && errno == EINTR) {
				n = 0;
				continue;
			}
			if (n <= 0) {
				fprintf(stderr, "tcp_hash: write: %s\n",
					strerror(errno));
				return 1;
			}
		}
		total += chunk;
	}
	shutdown(fd, SHUT_WR);
	/* wait for the receiver to close: everything was read */
	{
		char c;
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (poll(&pfd, 1, timeout * 1000) == 1)
			(void)!read(fd, &c, 1);
	}
	t = now() - t0;
	printf("send bytes %llu hash 0x%016llx secs %.3f gbps %.3f\n",
	       (unsigned long long)total, (unsigned long long)hash_end(&hs),
	       t, t > 0 ? total * 8 / t / 1e9 : 0);
	close(fd);
	free(w);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: tcp_hash recv -b ADDR -p PORT [-t SECONDS]\n"
			"       tcp_hash send -a ADDR -p PORT -n BYTES [-s SEED] [-t SECONDS]\n");
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL;
	__u64 bytes = 0, seed = 1;
	int timeout = 60, opt;

	if (argc < 2) {
		usage();
		return 2;
	}
	optind = 2;
	while ((opt = getopt(argc, argv, "a:b:p:n:s:t:")) != -1) {
		switch (opt) {
		case 'a':
		case 'b': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'n': bytes = strtoull(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 't': timeout = atoi(optarg); break;
		default: usage(); return 2;
		}
	}
	if (!addr || !port || timeout <= 0) {
		usage();
		return 2;
	}
	if (!strcmp(argv[1], "recv"))
		return do_recv(addr, port, timeout);
	if (!strcmp(argv[1], "send") && bytes)
		return do_send(addr, port, bytes, seed, timeout);
	usage();
	return 2;
}
