// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xsk_hold: bind a copy-mode AF_XDP socket to one queue of an interface
 * and keep it, so that anyone else's bind to that queue gets EBUSY (the
 * queue has a buffer pool, xp_assign_dev()). No program is loaded and no
 * frame is received: it only holds the queue.
 *
 *   xsk_hold -i IFACE [-q QUEUE] [-t SECONDS]
 *
 * A queue still busy (EBUSY: a socket closed a moment ago is released
 * asynchronously by the kernel) is tried again for up to 5 s. Prints
 * "bound" once the socket is bound, then waits for SIGTERM/SIGINT or the
 * timeout (default 60 s). Exit 0 after holding, 1 when the bind
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
	const char *ifname = NULL;
	unsigned int queue = 0, secs = 60, i;
	void *area;
	int opt, err, ret = 1;

	while ((opt = getopt(argc, argv, "i:q:t:h")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'q': queue = (unsigned int)atoi(optarg); break;
		case 't': secs = (unsigned int)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: xsk_hold -i IFACE [-q QUEUE] [-t SECONDS]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!ifname) {
		fprintf(stderr, "xsk_hold: give -i IFACE\n");
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
	for (i = 0; i < secs * 10 && !stop; i++)
		usleep(100000);
	ret = 0;
out:
	if (xsk && !err)
		xsk_socket__delete(xsk);
	if (umem)
		xsk_umem__delete(umem);
	munmap(area, FRAMES * FRAME_SIZE);
	return ret;
}
