// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xsk_smoke: attach xrx_rx to an interface through libxdp, bind a
 * copy-mode AF_XDP socket to one queue, accelerate TCP and UDP to one
 * port, and check the xrx_meta in front of every frame received.
 *
 *   xsk_smoke -i IFACE -o OBJ -P PINDIR [-q QUEUE] [-p PORT] [-n COUNT]
 *             [-t SECONDS] [-m native|skb]
 *
 * Prints "ready" once the socket is in xrx_xsks, then, on COUNT frames
 * or the timeout, one line:
 *   rx N tcp N udp N meta N nometa N bad N
 * meta: frames whose xrx_meta matches what xrx_parse() computes on the
 * received bytes, the hash under the random key it writes into xrx_cfg
 * (as a control plane does); nometa: no magic in front (xrx_rx wrote none, or the kernel did not
 * copy it); bad: magic present but the fields disagree.
 * Exit 0 when it ran (the test judges the counts), 1 on a setup failure,
 * 2 on bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/mman.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>

#include <xrx/meta.h>
#include <xrx/parse.h>
#include <xrx/prog.h>
#include <xrx/rules.h>

#define NUM_FRAMES 1024
#define FRAME_SIZE XSK_UMEM__DEFAULT_FRAME_SIZE
#define BATCH 64

struct opts {
	const char *ifname, *obj, *pin;
	__u32 queue;
	__u16 port;
	int count, timeout;
	enum xdp_attach_mode mode;
};

struct counts {
	int rx, tcp, udp, meta, nometa, bad;
};

static volatile sig_atomic_t stop;
static struct xrx_hash_key key;		/* the one in xrx_cfg */

static void on_signal(int sig)
{
	stop = 1;
}

static int rule_accel(struct bpf_object *obj, __u8 proto, __u16 port)
{
	struct xrx_rule_key key = {
		.prefixlen = XRX_RULE_PREFIX_BASE,
		.proto = proto,
		.port = htons(port),
	};
	struct xrx_rule_val val = { .action = XRX_ACT_ACCEL, .id = proto };

	return xrx_rules__update(bpf_object__find_map_fd_by_name(obj, "xrx_rules"),
				 bpf_object__find_map_fd_by_name(obj, "xrx_ports"),
				 NULL, 0, &key, &val, 1);
}

/* A random flow hash key into xrx_cfg, the rest of it kept. */
static int key_set(int fd)
{
	struct xrx_cfg cfg;
	__u32 zero = 0;
	int err;

	if (bpf_map_lookup_elem(fd, &zero, &cfg))
		return -errno;
	err = xrx_hash_key_new(&key);
	if (err)
		return err;
	cfg.hash_key = key;
	return bpf_map_update_elem(fd, &zero, &cfg, 0) ? -errno : 0;
}

/* One received frame: its metadata against userspace parsing. */
static void check_frame(const __u8 *pkt, __u32 len, struct counts *c)
{
	const struct xrx_meta *m = (const void *)(pkt - sizeof(*m));
	struct xrx_parsed p;
	struct xrx_meta want;

	c->rx++;
	xrx_parse(pkt, len < XRX_PARSE_WINDOW ? len : XRX_PARSE_WINDOW, len, &p,
		  &key);
	if (p.flags & XRX_META_F_TCP)
		c->tcp++;
	if (p.flags & XRX_META_F_UDP)
		c->udp++;
	if (m->magic != XRX_META_MAGIC) {
		c->nometa++;
		return;
	}
	xrx_meta_fill(&want, &p);
	if (memcmp(m, &want, sizeof(want))) {
		fprintf(stderr, "xsk_smoke: frame %d: metadata headlen %u l3 %u l4 %u flags %#x proto %u, parsed %u %u %u %#x %u\n",
			c->rx, m->headlen, m->l3_off, m->l4_off, m->flags,
			m->l4_proto, want.headlen, want.l3_off, want.l4_off,
			want.flags, want.l4_proto);
		c->bad++;
		return;
	}
	c->meta++;
}

static int fill(struct xsk_ring_prod *fq, __u64 *addrs, int n)
{
	__u32 idx;
	int i;

	if (xsk_ring_prod__reserve(fq, n, &idx) != (__u32)n)
		return -ENOSPC;
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(fq, idx + i) = addrs[i];
	xsk_ring_prod__submit(fq, n);
	return 0;
}

static int receive(struct xsk_socket *xsk, struct xsk_ring_cons *rx,
		   struct xsk_ring_prod *fq, void *area, const struct opts *o,
		   struct counts *c)
{
	struct pollfd pfd = { .fd = xsk_socket__fd(xsk), .events = POLLIN };
	time_t deadline = time(NULL) + o->timeout;
	__u64 back[BATCH];
	__u32 idx, n, i;

	while (!stop && c->rx < o->count && time(NULL) < deadline) {
		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			return -errno;
		n = xsk_ring_cons__peek(rx, BATCH, &idx);
		for (i = 0; i < n; i++) {
			const struct xdp_desc *d = xsk_ring_cons__rx_desc(rx, idx + i);

			check_frame(xsk_umem__get_data(area, d->addr), d->len, c);
			back[i] = xsk_umem__extract_addr(d->addr);
		}
		if (n) {
			xsk_ring_cons__release(rx, n);
			if (fill(fq, back, n))
				return -ENOSPC;
		}
	}
	return 0;
}

static int run(const struct opts *o)
{
	DECLARE_LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = o->pin);
	struct xsk_socket_config xcfg = {
		.rx_size = XSK_RING_CONS__DEFAULT_NUM_DESCS,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_COPY,
	};
	struct xsk_umem_config ucfg = {
		.fill_size = XSK_RING_PROD__DEFAULT_NUM_DESCS,
		.comp_size = XSK_RING_CONS__DEFAULT_NUM_DESCS,
		.frame_size = FRAME_SIZE,
	};
	struct xdp_program *prog = NULL;
	struct xsk_socket *xsk = NULL;
	struct xsk_umem *umem = NULL;
	struct xsk_ring_prod fq;
	struct xsk_ring_cons cq, rx;
	struct counts c = { 0 };
	struct bpf_object *obj;
	__u64 addrs[NUM_FRAMES];
	int ifindex, err, i, attached = 0;
	void *area = MAP_FAILED;

	ifindex = if_nametoindex(o->ifname);
	if (!ifindex) {
		fprintf(stderr, "xsk_smoke: no interface %s\n", o->ifname);
		return -ENODEV;
	}
	prog = xdp_program__open_file(o->obj, "xdp.frags", &oo);
	err = libxdp_get_error(prog);
	if (err) {
		prog = NULL;
		fprintf(stderr, "xsk_smoke: open %s: %s (run make)\n", o->obj,
			strerror(-err));
		goto out;
	}
	xdp_program__set_xdp_frags_support(prog, true);
	err = xdp_program__attach(prog, ifindex, o->mode, 0);
	if (err) {
		fprintf(stderr, "xsk_smoke: attach xrx_rx to %s: %s\n",
			o->ifname, strerror(-err));
		goto out;
	}
	attached = 1;
	obj = xdp_program__bpf_obj(prog);
	err = rule_accel(obj, IPPROTO_TCP, o->port);
	if (!err)
		err = rule_accel(obj, IPPROTO_UDP, o->port);
	if (!err)
		err = key_set(bpf_object__find_map_fd_by_name(obj, "xrx_cfg"));
	if (err) {
		fprintf(stderr, "xsk_smoke: xrx_rules/xrx_cfg: %s\n",
			strerror(-err));
		goto out;
	}

	area = mmap(NULL, (size_t)NUM_FRAMES * FRAME_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		err = -errno;
		fprintf(stderr, "xsk_smoke: UMEM: %s\n", strerror(errno));
		goto out;
	}
	err = xsk_umem__create(&umem, area, (__u64)NUM_FRAMES * FRAME_SIZE,
			       &fq, &cq, &ucfg);
	if (err) {
		fprintf(stderr, "xsk_smoke: UMEM: %s\n", strerror(-err));
		goto out;
	}
	err = xsk_socket__create(&xsk, o->ifname, o->queue, umem, &rx, NULL,
				 &xcfg);
	if (err) {
		fprintf(stderr, "xsk_smoke: AF_XDP socket on %s queue %u: %s\n",
			o->ifname, o->queue, strerror(-err));
		goto out;
	}
	err = xsk_socket__update_xskmap(xsk,
					bpf_object__find_map_fd_by_name(obj, "xrx_xsks"));
	if (err) {
		fprintf(stderr, "xsk_smoke: xrx_xsks: %s\n", strerror(-err));
		goto out;
	}
	for (i = 0; i < NUM_FRAMES; i++)
		addrs[i] = (__u64)i * FRAME_SIZE;
	err = fill(&fq, addrs, XSK_RING_PROD__DEFAULT_NUM_DESCS < NUM_FRAMES ?
			       XSK_RING_PROD__DEFAULT_NUM_DESCS : NUM_FRAMES);
	if (err)
		goto out;

	printf("ready\n");
	fflush(stdout);
	err = receive(xsk, &rx, &fq, area, o, &c);
	printf("rx %d tcp %d udp %d meta %d nometa %d bad %d\n", c.rx, c.tcp,
	       c.udp, c.meta, c.nometa, c.bad);
	fflush(stdout);
out:
	xsk_socket__delete(xsk);
	xsk_umem__delete(umem);
	if (area != MAP_FAILED)
		munmap(area, (size_t)NUM_FRAMES * FRAME_SIZE);
	if (attached)
		xdp_program__detach(prog, ifindex, o->mode, 0);
	xdp_program__close(prog);
	return err;
}

/* libbpf/libxdp chatter (unknown ELF sections, ...) is not news here. */
static int print_warnings(enum libbpf_print_level level, const char *fmt,
			  va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: xsk_smoke -i IFACE -o OBJ -P PINDIR [-q QUEUE] [-p PORT] [-n COUNT] [-t SECONDS] [-m native|skb]\n");
}

int main(int argc, char **argv)
{
	struct opts o = { .port = 5001, .count = 20, .timeout = 10,
			  .mode = XDP_MODE_NATIVE };
	int opt;

	while ((opt = getopt(argc, argv, "i:o:P:q:p:n:t:m:h")) != -1) {
		switch (opt) {
		case 'i': o.ifname = optarg; break;
		case 'o': o.obj = optarg; break;
		case 'P': o.pin = optarg; break;
		case 'q': o.queue = atoi(optarg); break;
		case 'p': o.port = atoi(optarg); break;
		case 'n': o.count = atoi(optarg); break;
		case 't': o.timeout = atoi(optarg); break;
		case 'm':
			if (!strcmp(optarg, "skb"))
				o.mode = XDP_MODE_SKB;
			else if (!strcmp(optarg, "native"))
				o.mode = XDP_MODE_NATIVE;
			else {
				usage(stderr);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!o.ifname || !o.obj || !o.pin || o.count <= 0 || o.timeout <= 0) {
		usage(stderr);
		return 2;
	}
	libbpf_set_print(print_warnings);
	libxdp_set_print((libxdp_print_fn_t)print_warnings);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	return run(&o) ? 1 : 0;
}
