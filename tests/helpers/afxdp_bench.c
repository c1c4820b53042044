// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * afxdp_bench: one receiver of the AF_XDP benchmark; scripts/bench/
 * bench_afxdp.sh runs it three times on the same veth, against the same
 * traffic.
 *
 *   afxdp_bench -i IFACE -m plain|null|pcap:PATH|tun:DEV [-p PORT] [-t SECS]
 *               [-W WARMUP] [-c CPU] [-T WAIT] [-N COALESCE_USEC]
 *               [-C verify|trust] [-R RING] [-B USEC]
 *
 * plain  the baseline: xrx_rx in front (attached with xrx_prog__attach(),
 *        the same program and rule as the other modes, so only the
 *        userspace side differs), one AF_XDP socket bound like libxrx
 *        binds it (copy mode on veth, multi-buffer, need_wakeup), UMEM,
 *        rings and batch of libxrx's defaults, and a loop that reads the
 *        RX ring and puts every frame straight back on the fill ring: no
 *        header copy, no aggregation, the frame's bytes never touched
 *        (the rxdrop of the kernel's xdpsock sample).
 * null, pcap:PATH
 *        libxrx's live API with default options and that sink: header
 *        copy, GRO, flush at the end of every batch, one worker thread.
 *
 * -B USEC: preferred busy polling in either (libxrx's busy_poll, and the
 * same socket options and loop in plain): one NAPI poll after every
 * batch, and with an empty ring polls for up to USEC microseconds before
 * blocking in poll(); no -N naps meanwhile, as in libxrx, until a socket
 * without a NAPI falls back. The device's napi_defer_hard_irqs and
 * gro_flush_timeout are the caller's (bench_busy_poll.sh sets them).
 *
 * It prints "ready" once the socket is bound, waits (up to WAIT seconds)
 * for the first frame, lets WARMUP seconds pass, then measures SECS
 * seconds and prints "key value" lines: frames and bytes received, what
 * xrx_rx saw and redirected, the socket's drops, the receiving process's
 * CPU time, the CPU time of each of its threads (user and system, from
 * /proc/self/task/TID/stat, and the run time from .../schedstat, which
 * counts nanoseconds), and its memory (VmRSS, VmHWM, and the sizes libxrx
 * allocates per queue with these options). The receiver's threads are
 * every thread but the main one, which only samples; their CPU time per
 * frame is the headline: on veth the sender's CPU bounds the rate, so
 * the rate alone cannot tell two receivers apart. Exit 0 when it
 * measured, 1 on failure (including no traffic), 2 on bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <dirent.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <bpf/bpf.h>
#include <xdp/xsk.h>

#include <xrx/xrx.h>
#include <xrx/compat.h>
#include <xrx/rules.h>

/* libxrx's private sizes, for the memory figures (Makefile: -Iuser/lib). */
#include "afxdp/afxdp.h"

#ifndef SOL_XDP
#define SOL_XDP 283
#endif

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

#define MAX_THREADS 16

/* One thread's CPU time: clock ticks (stat) and nanoseconds (schedstat). */
struct thread_cpu {
	int tid;
	char comm[20];
	unsigned long long utime, stime, run_ns;
};

/* Counters read by the main thread while the receiver runs. */
struct sample {
	struct thread_cpu th[MAX_THREADS];
	int nr_th;
	__u64 frames, bytes;		/* reached userspace */
	__u64 prog_rx, prog_redirect;	/* xrx_rx */
	__u64 xsk_dropped, xsk_fill_empty, xsk_ring_full;
	__u64 pkts_out, aggs_out, segs_merged;	/* live modes */
	__u64 batches, polls, naps;	/* receive loop */
	double cpu_s;			/* this process, user + system */
	double t;			/* CLOCK_MONOTONIC seconds */
};

/* The baseline's socket and its loop. */
struct plain {
	struct xrx_prog *prog;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fq;
	struct xsk_ring_cons cq, rx;
	void *area;
	size_t area_size;
	__u32 nr_frames, frame_size, fill_size, batch;
	__u32 busy_usec;		/* -B: busy polling, 0 off */
	unsigned int napi_id;		/* the socket's, once frames came */
	__u64 nap_ns;			/* -N: as libxrx's coalesce_usec */
	bool sg;
	int fd, cpu;
	pthread_t thread;
	bool running;
	atomic_bool stop;
	_Atomic __u64 frames, bytes, batches, polls, naps;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* One thread's times from /proc/self/task/TID/{stat,schedstat}. */
static int thread_read(int tid, struct thread_cpu *t)
{
	char path[64], buf[512], *p;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = 0;
	/* comm may hold blanks: the fields count from its closing paren. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			 "%llu %llu", &t->utime, &t->stime) != 2)
		return -EINVAL;
	*p = 0;
	snprintf(t->comm, sizeof(t->comm), "%s", strchr(buf, '(') + 1);
	t->tid = tid;
	t->run_ns = 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu", &t->run_ns) != 1)
			t->run_ns = 0;
		fclose(f);
	}
	return 0;
}

static void threads_read(struct sample *s)
{
	struct dirent *de;
	DIR *d;

	s->nr_th = 0;
	d = opendir("/proc/self/task");
	if (!d)
		return;
	while ((de = readdir(d)) && s->nr_th < MAX_THREADS)
		if (de->d_name[0] != '.' &&
		    !thread_read(atoi(de->d_name), &s->th[s->nr_th]))
			s->nr_th++;
	closedir(d);
}

static const struct thread_cpu *thread_find(const struct sample *s, int tid)
{
	int i;

	for (i = 0; i < s->nr_th; i++)
		if (s->th[i].tid == tid)
			return &s->th[i];
	return NULL;
}

/*
 * Print each thread's CPU time between @a and @b, and the receiver's
 * (every thread but the main one) per frame.
 */
static void threads_print(const struct sample *a, const struct sample *b,
			  __u64 frames)
{
	static const struct thread_cpu none;
	double hz = sysconf(_SC_CLK_TCK), us = 0, ss = 0, run = 0;
	const struct thread_cpu *t0, *t1;
	int i, me = getpid();

	for (i = 0; i < b->nr_th; i++) {
		t1 = &b->th[i];
		t0 = thread_find(a, t1->tid);
		if (!t0)
			t0 = &none;
		printf("thread %d %s %s user_s %.3f sys_s %.3f run_s %.4f\n",
		       t1->tid, t1->comm, t1->tid == me ? "main" : "rx",
		       (t1->utime - t0->utime) / hz,
		       (t1->stime - t0->stime) / hz,
		       (t1->run_ns - t0->run_ns) / 1e9);
		if (t1->tid == me)
			continue;
		us += (t1->utime - t0->utime) / hz;
		ss += (t1->stime - t0->stime) / hz;
		run += (t1->run_ns - t0->run_ns) / 1e9;
	}
	printf("rx_threads_user_s %.3f\nrx_threads_sys_s %.3f\n"
	       "rx_threads_run_s %.4f\n", us, ss, run);
	printf("rx_ns_per_frame %.1f\nrx_user_ns_per_frame %.1f\n"
	       "rx_sys_ns_per_frame %.1f\n",
	       frames ? run * 1e9 / frames : 0, frames ? us * 1e9 / frames : 0,
	       frames ? ss * 1e9 / frames : 0);
}

/* A "Vm...:" line of /proc/self/status, in KiB; 0 if absent. */
static unsigned long long vm_kib(const char *key)
{
	unsigned long long v = 0;
	size_t klen = strlen(key);
	char line[256];
	FILE *f;

	f = fopen("/proc/self/status", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			sscanf(line + klen + 1, "%llu", &v);
			break;
		}
	fclose(f);
	return v;
}

static void pin_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		fprintf(stderr, "afxdp_bench: cannot pin to CPU %d; running unpinned\n",
			cpu);
}

/* The same rule the live modes get from xrx_live__rule_add_port(). */
static int accel_port(const struct xrx_prog *prog, __u8 proto, __u16 port)
{
	struct xrx_rule_key key = {
		.prefixlen = XRX_RULE_PREFIX_BASE,
		.proto = proto,
		.port = htons(port),
	};
	struct xrx_rule_val val = { .action = XRX_ACT_ACCEL, .id = port };

	return xrx_rules__update(xrx_prog__map_fd(prog, XRX_PROG_MAP_RULES),
				 xrx_prog__map_fd(prog, XRX_PROG_MAP_PORTS),
				 NULL, 0, &key, &val, 1);
}

static void plain_refill(struct plain *p, const __u64 *addrs, __u32 n)
{
	__u32 idx, i;

	/* The fill ring holds every frame the RX ring can hand back. */
	while (xsk_ring_prod__reserve(&p->fq, n, &idx) != n)
		sched_yield();
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&p->fq, idx + i) = addrs[i];
	xsk_ring_prod__submit(&p->fq, n);
}

/*
 * -B: the empty ring, as libxrx's xrx_rxq_busy_wait(): NAPI polls for up
 * to busy_usec. A socket that still has no NAPI once frames came cannot
 * busy poll: then polled normally, as libxrx does (xrx_rxq_busy_check()).
 * Return: whether the ring has frames now.
 */
static bool plain_busy_wait(struct plain *p)
{
	double end = now_s() + p->busy_usec / 1e6;
	socklen_t len = sizeof(p->napi_id);

	if (!p->busy_usec)
		return false;
	if (!p->napi_id && p->frames &&
	    (getsockopt(p->fd, SOL_SOCKET, SO_INCOMING_NAPI_ID, &p->napi_id,
			&len) || !p->napi_id)) {
		fprintf(stderr, "afxdp_bench: the socket has no NAPI: busy polling off\n");
		p->busy_usec = 0;
		return false;
	}
	do {
		recvfrom(p->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
		if (xsk_cons_nb_avail(&p->rx, 1))
			return true;
	} while (now_s() < end);
	return false;
}

static void *plain_main(void *arg)
{
	struct plain *p = arg;
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
	__u64 addrs[XRX_BATCH_MAX + XRX_CHUNKS_MAX];
	const struct xdp_desc *d;
	struct timespec nap = { 0, (long)p->nap_ns };
	__u64 bytes;
	__u32 n = 0, idx, i;

	pin_cpu(p->cpu);
	if (p->nap_ns)
		prctl(PR_SET_TIMERSLACK, p->nap_ns / 4 ? p->nap_ns / 4 : 1);
	while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) {
		/* As xrx_rxq_main(): a batch that emptied the ring, nap,
		 * unless busy polling. */
		if (p->nap_ns && !p->busy_usec && n && n < p->batch) {
			clock_nanosleep(CLOCK_MONOTONIC, 0, &nap, NULL);
			atomic_store_explicit(&p->naps, p->naps + 1,
					      memory_order_relaxed);
		}
		n = xsk_ring_cons__peek(&p->rx, p->batch, &idx);
		if (!n) {
			/* As xrx_rxq_refill()/xrx_rxq_wait(): kick if asked, else
			 * sleep in poll() until the ring has frames. */
			if (xsk_ring_prod__needs_wakeup(&p->fq))
				recvfrom(p->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
			if (!plain_busy_wait(p)) {
				poll(&pfd, 1, 100);
				atomic_store_explicit(&p->polls, p->polls + 1,
						      memory_order_relaxed);
			}
			continue;
		}
		bytes = 0;
		for (i = 0; i < n; i++) {
			d = xsk_ring_cons__rx_desc(&p->rx, idx + i);
			addrs[i] = xsk_umem__extract_addr(d->addr);
			bytes += d->len;
		}
		xsk_ring_cons__release(&p->rx, n);
		plain_refill(p, addrs, n);
		/* -B: one NAPI poll per batch, as xrx_rxq_refill(). */
		if (p->busy_usec || xsk_ring_prod__needs_wakeup(&p->fq))
			recvfrom(p->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
		/* Counted once per batch: a single writer, relaxed. */
		atomic_store_explicit(&p->frames, p->frames + n,
				      memory_order_relaxed);
		atomic_store_explicit(&p->bytes, p->bytes + bytes,
				      memory_order_relaxed);
		atomic_store_explicit(&p->batches, p->batches + 1,
				      memory_order_relaxed);
	}
	return NULL;
}

static void plain_close(struct plain *p)
{
	if (p->running) {
		atomic_store(&p->stop, true);
		pthread_join(p->thread, NULL);
	}
	if (p->xsk)
		xsk_socket__delete(p->xsk);
	if (p->umem)
		xsk_umem__delete(p->umem);
	if (p->area)
		munmap(p->area, p->area_size);
	xrx_prog__close(p->prog);
}

/* Bind copy mode with multi-buffer as libxrx does on veth, else without. */
static int plain_bind(struct plain *p, const char *ifname)
{
	static const __u16 tries[] = { XDP_COPY | XDP_USE_SG, XDP_COPY };
	struct xsk_umem_config uc = {
		.fill_size = p->fill_size,
		.comp_size = XRX_COMP_SIZE,
		.frame_size = p->frame_size,
	};
	struct xsk_socket_config sc = {
		.rx_size = p->fill_size,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
	};
	unsigned int i;
	int err = -EINVAL;

	for (i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		/* libxdp cannot bind again over a UMEM whose bind failed. */
		err = xsk_umem__create(&p->umem, p->area, p->area_size, &p->fq,
				       &p->cq, &uc);
		if (err)
			return err;
		sc.bind_flags = tries[i] | XDP_USE_NEED_WAKEUP;
		err = xsk_socket__create(&p->xsk, ifname, 0, p->umem, &p->rx,
					 NULL, &sc);
		if (!err) {
			p->sg = tries[i] & XDP_USE_SG;
			return 0;
		}
		p->xsk = NULL;
		xsk_umem__delete(p->umem);
		p->umem = NULL;
	}
	return err;
}

static int plain_open(struct plain *p, const char *ifname, __u16 port, int cpu)
{
	struct xrx_prog_opts po = { .sz = sizeof(po) };
	__u64 addrs[256];
	__u32 i, k;
	int err;

	p->fd = -1;
	p->cpu = cpu;
	p->frame_size = XRX_FRAME_SIZE_DEFAULT;
	p->fill_size = p->fill_size ? p->fill_size : XRX_RING_DEFAULT;
	p->nr_frames = 2 * p->fill_size;
	p->batch = XRX_BATCH_DEFAULT;
	p->area_size = (size_t)p->nr_frames * p->frame_size;
	p->prog = xrx_prog__attach(ifname, &po);
	if (!p->prog)
		return -errno;
	err = accel_port(p->prog, IPPROTO_TCP, port);
	if (err) {
		fprintf(stderr, "afxdp_bench: rule for tcp/%u: %s\n", port,
			strerror(-err));
		return err;
	}
	p->area = mmap(NULL, p->area_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p->area == MAP_FAILED) {
		p->area = NULL;
		return -errno;
	}
	err = plain_bind(p, ifname);
	if (err) {
		fprintf(stderr, "afxdp_bench: %s queue 0: cannot bind an AF_XDP socket in copy mode: %s\n",
			ifname, strerror(-err));
		return err;
	}
	p->fd = xsk_socket__fd(p->xsk);
	if (p->busy_usec) {
		/* What libxrx's xrx_xsk_busy_poll() sets. */
		int one = 1, usec = (int)p->busy_usec, budget = (int)p->batch;

		if (setsockopt(p->fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one)) ||
		    setsockopt(p->fd, SOL_SOCKET, SO_BUSY_POLL, &usec, sizeof(usec)) ||
		    setsockopt(p->fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget,
			       sizeof(budget))) {
			fprintf(stderr, "afxdp_bench: busy polling: %s\n",
				strerror(errno));
			return -errno;
		}
	}
	err = xsk_socket__update_xskmap(p->xsk,
					xrx_prog__map_fd(p->prog, XRX_PROG_MAP_XSKS));
	if (err) {
		fprintf(stderr, "afxdp_bench: %s: cannot insert the socket into xrx_xsks: %s\n",
			ifname, strerror(-err));
		return err;
	}
	/* The fill ring's worth of frames to the kernel, the rest unused
	 * (libxrx keeps them for held aggregates). */
	for (i = 0; i < p->fill_size; i += k) {
		for (k = 0; k < 256 && i + k < p->fill_size; k++)
			addrs[k] = (__u64)(i + k) * p->frame_size;
		plain_refill(p, addrs, k);
	}
	atomic_init(&p->stop, false);
	err = pthread_create(&p->thread, NULL, plain_main, p);
	if (err)
		return -err;
	p->running = true;
	return 0;
}

static void xsk_stats(int fd, struct sample *s)
{
	struct xdp_statistics xs;
	socklen_t len = sizeof(xs);

	if (fd < 0 || getsockopt(fd, SOL_XDP, XDP_STATISTICS, &xs, &len))
		return;
	s->xsk_dropped = xs.rx_dropped;
	s->xsk_fill_empty = xs.rx_fill_ring_empty_descs;
	s->xsk_ring_full = xs.rx_ring_full;
}

static void sample_plain(struct plain *p, struct sample *s)
{
	__u64 pk[XRX_STAT_MAX] = { 0 }, by[XRX_STAT_MAX] = { 0 };

	memset(s, 0, sizeof(*s));
	threads_read(s);
	s->t = now_s();
	s->cpu_s = cpu_s();
	s->frames = atomic_load_explicit(&p->frames, memory_order_relaxed);
	s->bytes = atomic_load_explicit(&p->bytes, memory_order_relaxed);
	s->batches = atomic_load_explicit(&p->batches, memory_order_relaxed);
	s->polls = atomic_load_explicit(&p->polls, memory_order_relaxed);
	s->naps = atomic_load_explicit(&p->naps, memory_order_relaxed);
	xrx_prog__stats(p->prog, pk, by);
	s->prog_rx = pk[XRX_STAT_RX];
	s->prog_redirect = pk[XRX_STAT_REDIRECT];
	xsk_stats(p->fd, s);
}

static void sample_live(struct xrx_live *l, struct sample *s)
{
	struct xrx_live_stats st;

	memset(s, 0, sizeof(*s));
	threads_read(s);
	s->t = now_s();
	s->cpu_s = cpu_s();
	if (xrx_live__stats(l, -1, &st))
		return;
	s->frames = st.live[XRX_LIVE_STAT_RX_FRAMES];
	s->bytes = st.engine[XRX_ENGINE_STAT_BYTES_IN];
	s->prog_rx = st.prog[XRX_STAT_RX];
	s->prog_redirect = st.prog[XRX_STAT_REDIRECT];
	s->xsk_dropped = st.live[XRX_LIVE_STAT_XSK_RX_DROPPED];
	s->xsk_fill_empty = st.live[XRX_LIVE_STAT_XSK_FILL_EMPTY];
	s->xsk_ring_full = st.live[XRX_LIVE_STAT_XSK_RX_RING_FULL];
	s->pkts_out = st.engine[XRX_ENGINE_STAT_PKTS_OUT];
	s->aggs_out = st.engine[XRX_ENGINE_STAT_AGGS_OUT];
	s->segs_merged = st.engine[XRX_ENGINE_STAT_SEGS_MERGED];
	s->batches = st.live[XRX_LIVE_STAT_RX_BATCHES];
	s->polls = st.live[XRX_LIVE_STAT_POLLS];
	s->naps = st.live[XRX_LIVE_STAT_NAPS];
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: afxdp_bench -i IFACE -m plain|null|pcap:PATH|tun:DEV[,gso] [-p PORT] [-t SECS]\n"
		"                   [-W WARMUP] [-c CPU] [-T WAIT] [-N COALESCE_USEC] [-C verify|trust]\n"
		"                   [-R RING] [-B USEC]\n"
		"  plain: xrx_rx + AF_XDP receive-and-drop; otherwise libxrx live with that sink\n"
		"  -N: sleep after a batch that emptied the ring (libxrx's coalesce_usec;\n"
		"      default libxrx's default, 0 off), the same in every mode\n"
		"  -C: the live modes' L4 checksum mode (default verify)\n"
		"  -R: fill and RX ring size, a power of two >= 64 (default libxrx's)\n"
		"  -B: preferred busy polling, USEC of polls on an empty ring before poll()\n");
}

int main(int argc, char **argv)
{
	struct xrx_live_opts o = { .sz = sizeof(o) };
	struct xrx_engine_opts eo = { .sz = sizeof(eo) };
	struct xrx_live_queue_info qi = { 0 };
	struct sample a, b;
	struct plain p = { .fd = -1 };
	const char *ifname = NULL, *mode = NULL;
	double secs = 5, warm = 1, wait = 20, t0, dt, cpu;
	unsigned long long umem = 0, pools = 0;
	struct xrx_live *l = NULL;
	int cpus[XRX_LIVE_QUEUES_MAX];
	int opt, cpu_nr = -1, rc = 1, err;
	__u16 port = 5001;
	long coalesce = XRX_LIVE_COALESCE_USEC_DEFAULT;
	__u32 ring = 0, busy_usec = 0;
	bool plain;

	while ((opt = getopt(argc, argv, "i:m:p:t:W:c:T:N:C:R:B:h")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'm': mode = optarg; break;
		case 'p': port = (__u16)atoi(optarg); break;
		case 't': secs = atof(optarg); break;
		case 'W': warm = atof(optarg); break;
		case 'c': cpu_nr = atoi(optarg); break;
		case 'T': wait = atof(optarg); break;
		case 'B': busy_usec = (__u32)atoi(optarg); break;
		case 'N': coalesce = atol(optarg); break;
		case 'R': ring = (__u32)atol(optarg); break;
		case 'C':
			if (!strcmp(optarg, "trust"))
				eo.csum = XRX_CSUM_TRUST;
			else if (strcmp(optarg, "verify"))
				port = 0;	/* usage */
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!ifname || !mode || secs <= 0 || warm < 0 || wait <= 0 || !port ||
	    coalesce < 0 || coalesce > XRX_LIVE_COALESCE_USEC_MAX ||
	    (ring & (ring - 1)) || (ring && ring < 64)) {
		usage(stderr);
		return 2;
	}
	plain = !strcmp(mode, "plain");
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	if (plain) {
		p.busy_usec = busy_usec;
		p.nap_ns = (__u64)coalesce * 1000;
		p.fill_size = ring;
		err = plain_open(&p, ifname, port, cpu_nr);
		if (err) {
			fprintf(stderr, "afxdp_bench: %s: %s\n", ifname, strerror(-err));
			goto out;
		}
		umem = (unsigned long long)p.nr_frames * p.frame_size;
		pools = 0;
		printf("attach %s\nbind copy%s%s\n", xrx_prog__mode_name(p.prog),
		       p.sg ? " multi-buffer" : "", p.busy_usec ? " busy-poll" : "");
	} else {
		for (int i = 0; i < XRX_LIVE_QUEUES_MAX; i++)
			cpus[i] = cpu_nr;
		o.cpus = cpus;
		o.sink = mode;
		o.bind = XRX_LIVE_BIND_AUTO;
		o.busy_poll = busy_usec > 0;
		o.busy_poll_usec = busy_usec;
		o.coalesce_usec = (__u32)coalesce;
		o.fill_size = ring;
		o.rx_size = ring;
		o.engine = &eo;
		o.no_coalesce = !coalesce;
		l = xrx_live__open(ifname, &o);
		if (!l) {
			fprintf(stderr, "afxdp_bench: open %s with sink %s: %s\n",
				ifname, mode, strerror(errno));
			goto out;
		}
		err = xrx_live__rule_add_port(l, IPPROTO_TCP, port);
		if (!err)
			err = xrx_live__start(l);
		if (err) {
			fprintf(stderr, "afxdp_bench: %s: rule or start: %s\n",
				ifname, strerror(-err));
			goto out;
		}
		xrx_live__queue_info(l, 0, &qi);
		/* What libxrx itself says it allocated for the queue. */
		umem = qi.umem_bytes;
		pools = qi.engine_bytes;
		printf("attach %s\nbind %s%s%s\n", xrx_live__attach_mode(l),
		       qi.zerocopy ? "zero-copy" : "copy",
		       qi.multi_buffer ? " multi-buffer" : "",
		       qi.busy_poll ? " busy-poll" : "");
	}
	printf("ready\n");
	fflush(stdout);

	/* Traffic first, then a warm-up, then the measured window. */
	t0 = now_s();
	do {
		if (plain)
			sample_plain(&p, &a);
		else
			sample_live(l, &a);
		if (a.frames)
			break;
		usleep(10000);
	} while (!stop && now_s() - t0 < wait);
	if (!a.frames) {
		fprintf(stderr, "afxdp_bench: %s: no frame within %.0f s (is the sender running, to tcp/%u?)\n",
			ifname, wait, port);
		goto out;
	}
	usleep((useconds_t)(warm * 1e6));
	if (plain)
		sample_plain(&p, &a);
	else
		sample_live(l, &a);
	usleep((useconds_t)(secs * 1e6));
	if (plain)
		sample_plain(&p, &b);
	else
		sample_live(l, &b);
	if (stop) {
		fprintf(stderr, "afxdp_bench: interrupted\n");
		goto out;
	}
	dt = b.t - a.t;
	cpu = b.cpu_s - a.cpu_s;
	printf("mode %s\n", mode);
	printf("secs %.3f\n", dt);
	printf("frames %llu\n", (unsigned long long)(b.frames - a.frames));
	printf("bytes %llu\n", (unsigned long long)(b.bytes - a.bytes));
	printf("mpps %.4f\n", (b.frames - a.frames) / dt / 1e6);
	printf("gbps %.4f\n", (b.bytes - a.bytes) * 8 / dt / 1e9);
	printf("prog_rx %llu\n", (unsigned long long)(b.prog_rx - a.prog_rx));
	printf("prog_redirect %llu\n",
	       (unsigned long long)(b.prog_redirect - a.prog_redirect));
	printf("xsk_rx_dropped %llu\n",
	       (unsigned long long)(b.xsk_dropped - a.xsk_dropped));
	printf("xsk_fill_empty %llu\n",
	       (unsigned long long)(b.xsk_fill_empty - a.xsk_fill_empty));
	printf("xsk_ring_full %llu\n",
	       (unsigned long long)(b.xsk_ring_full - a.xsk_ring_full));
	printf("pkts_out %llu\n", (unsigned long long)(b.pkts_out - a.pkts_out));
	printf("aggs_out %llu\n", (unsigned long long)(b.aggs_out - a.aggs_out));
	printf("segs_merged %llu\n",
	       (unsigned long long)(b.segs_merged - a.segs_merged));
	printf("batches %llu\n", (unsigned long long)(b.batches - a.batches));
	printf("polls %llu\n", (unsigned long long)(b.polls - a.polls));
	printf("naps %llu\n", (unsigned long long)(b.naps - a.naps));
	printf("frames_per_batch %.2f\n", b.batches > a.batches ?
	       (double)(b.frames - a.frames) / (b.batches - a.batches) : 0);
	printf("coalesce_usec %ld\n", coalesce);
	printf("cpu_secs %.4f\n", cpu);
	/* Receiver CPU per frame, and the rate one core would sustain. */
	printf("cpu_ns_per_frame %.1f\n",
	       b.frames > a.frames ? cpu * 1e9 / (b.frames - a.frames) : 0);
	printf("capacity_mpps %.4f\n",
	       cpu > 0 ? (b.frames - a.frames) / cpu / 1e6 : 0);
	threads_print(&a, &b, b.frames - a.frames);
	if (!plain)
		xrx_live__queue_info(l, 0, &qi);
	printf("busy_poll_active %d\n", plain ? p.busy_usec > 0 : qi.busy_poll);
	printf("rss_kib %llu\n", vm_kib("VmRSS"));
	printf("hwm_kib %llu\n", vm_kib("VmHWM"));
	printf("umem_bytes %llu\n", umem);
	printf("pools_bytes %llu\n", pools);
	fflush(stdout);
	rc = 0;
out:
	if (plain)
		plain_close(&p);
	else
		xrx_live__close(l);
	return rc;
}
