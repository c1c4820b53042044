// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xsk_hold: bind a copy-mode AF_XDP socket to one queue of an interface
 * and keep it, so that anyone else's bind to that queue gets EBUSY (the
 * queue has a buffer pool, xp_assign_dev()). No program is loaded and no
 * frame is received: it only holds the queue.
 *
 *   xsk_hold -i IFACE [-q QUEUE] [-t SECONDS] [-u FILE -m TEXT]
 *
 * A queue still busy (EBUSY: a socket closed a moment ago is released
 * asynchronously by the kernel) is tried again for up to 5 s. Prints
 * "bound" once the socket is bound, then waits for SIGTERM/SIGINT or the
 * timeout (default 60 s). With -u and -m it lets go as soon as FILE
 * holds TEXT (looked for every 10 ms): a daemon's log line saying that
 * it met this very EBUSY, so that its bind retry meets a free queue well
 * within its retry window. Exit 0 after holding, 1 when the bind
 * failed, 2 on bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <xdp/xsk.h>

#define FRAMES 64
#define FRAME_SIZE 4096

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

/* Does @path hold @text? A file not there yet holds nothing. */
static int file_has(const char *path, const char *text)
{
	char buf[4096];
	size_t keep = strlen(text), n, have = 0;
	int found = 0;
	FILE *f;

	if (keep >= sizeof(buf) / 2)
		return 0;
	f = fopen(path, "r");
	if (!f)
		return 0;
	/* in chunks, each after the last bytes of the one before, so a
	 * text across two reads is found */
	while (!found && (n = fread(buf + have, 1, sizeof(buf) - 1 - have,
				    f)) > 0) {
		have += n;
		buf[have] = 0;
		found = memmem(buf, have, text, keep) != NULL;
		if (have > keep) {
			memmove(buf, buf + have - keep, keep);
			have = keep;
		}
	}
	fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	struct xsk_socket_config cfg = {
		.rx_size = 64,
		.tx_size = 0,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_COPY,
	};
	struct xsk_ring_prod fq;
	struct xsk_ring_cons cq, rx;
	struct xsk_socket *xsk = NULL;
	struct xsk_umem *umem = NULL;
	const char *ifname = NULL, *until = NULL, *text = NULL;
	unsigned int queue = 0, secs = 60, i;
	void *area;
	int opt, err, ret = 1;

	while ((opt = getopt(argc, argv, "i:q:t:u:m:h")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'q': queue = (unsigned int)atoi(optarg); break;
		case 't': secs = (unsigned int)atoi(optarg); break;
		case 'u': until = optarg; break;
		case 'm': text = optarg; break;
		default:
			fprintf(stderr, "usage: xsk_hold -i IFACE [-q QUEUE] [-t SECONDS] [-u FILE -m TEXT]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!ifname || !until != !text) {
		fprintf(stderr, "xsk_hold: give -i IFACE, and -u FILE with -m TEXT or neither\n");
		return 2;
	}
	area = mmap(NULL, FRAMES * FRAME_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		perror("xsk_hold: mmap");
		return 1;
	}
	/* A UMEM whose bind failed cannot be bound again: a fresh one each
	 * try. */
	for (i = 0; i < 50; i++) {
		err = xsk_umem__create(&umem, area, FRAMES * FRAME_SIZE, &fq, &cq,
				       NULL);
		if (!err)
			err = xsk_socket__create(&xsk, ifname, queue, umem, &rx,
						 NULL, &cfg);
		if (err != -EBUSY)
			break;
		xsk = NULL;
		xsk_umem__delete(umem);
		umem = NULL;
		usleep(100000);
	}
	if (err) {
		fprintf(stderr, "xsk_hold: %s queue %u: cannot bind: %s\n", ifname,
			queue, strerror(-err));
		goto out;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("bound\n");
	fflush(stdout);
	for (i = 0; i < secs * 100 && !stop; i++) {
		if (until && file_has(until, text)) {
			printf("released: %s has \"%s\"\n", until, text);
			break;
		}
		usleep(10000);
	}
	fflush(stdout);
	ret = 0;
out:
	if (xsk && !err)
		xsk_socket__delete(xsk);
	if (umem)
		xsk_umem__delete(umem);
	munmap(area, FRAMES * FRAME_SIZE);
	return ret;
}
