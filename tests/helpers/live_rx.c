// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * live_rx: the receive side of the AF_XDP integration tests. Opens an
 * interface with libxrx's live API (include/xrx/live.h), accelerates
 * TCP and UDP to the given ports, receives until told to stop, and prints
 * every counter and the frame-ownership check.
 *
 *   live_rx -i IFACE [-P PINROOT] [-Q NQUEUES] [-p PORT]... [-s SINK] [-e TEE]
 *           [-m sink|cb|poll] [-S USEC] [-t SECONDS] [-n FRAMES]
 *           [-T FLUSH_US] [-A MAX_AGGREGATE] [-u] [-a auto|native|skb] [-f NFRAMES]
 *           [-r RINGSIZE] [-c CPU,CPU] [-L SNAPLEN] [-B ROTATE_BYTES] [-H] [-W]
 *           [-F] [-N COALESCE_USEC] [-b BUSY_USEC] [-v]
 *
 * -b: preferred busy polling by the workers (xrx_live_opts.busy_poll),
 * BUSY_USEC of polls on an empty ring before poll(); the device's NAPI
 * deferral is the caller's to set. "info ... busy_poll N" says whether
 * queue 0 still busy-polls at the end (0: it had no NAPI, or never did).
 * -H: attach the plain xrx_rx only, not the device-bound build that reads
 * the NIC's VLAN tag and hash (include/xrx/prog.h). -W: the device-bound
 * build, hashing in software even where the NIC gives an L4 hash.
 * -F (with -m cb): account every TCP packet to its flow (ports) and print
 *   flow SPORT DPORT hash H pkts N segs N bytes N sw N rehash N gaps N
 * H: the first packet's xrx_pkt.hash; sw: packets whose hash is
 * xrx_flow_hash() of their own headers, keyed with xrx_cfg's key (read
 * from its pin); rehash: packets of the flow with
 * another hash; bytes: TCP payload; gaps: packets whose sequence number
 * is not where the flow's previous packet ended.
 * -m cb: a callback that sleeps -S microseconds per packet (a slow
 * consumer) and then releases it; it also records per-queue packet
 * counts, and with -R PORT counts packets from source ports >= PORT
 * ("cb late N"). -L/-B: pcap sink snaplen and rotation size. -n: stop when this many frames have reached the engines.
 * -N: the workers' coalesce_usec (0: no_coalesce, block in poll()).
 * -e: a tee beside the sink (xrx_live_opts.tee); its counters as "tee".
 * Prints "ready" once the sockets are bound, then at the end
 *   info attach MODE queues N zerocopy 0 multi_buffer 1
 *   q0 pkts N ...
 *   live NAME VALUE / engine NAME VALUE / sink NAME VALUE / tee NAME VALUE
 *   prog NAME VALUE
 *   check ok | check FAIL reason
 * Exit 0 when it ran (the test judges the numbers), 1 on setup failure,
 * 2 on bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <netinet/in.h>

#include <bpf/bpf.h>

#include <xrx/xrx.h>
#include <xrx/parse.h>
#include <xrx/rules.h>

#define MAX_PORTS 16
#define MAX_FLOWS 64

struct flow_acct {
	__u16 sport, dport;
	__u32 hash, next_seq;
	__u64 pkts, segs, bytes, sw, rehash, gaps;
};

static volatile sig_atomic_t stop;

struct cb_state {
	unsigned int sleep_us;
	__u16 late_port;		/* -R: count packets from sport >= it */
	__u64 late;
	__u64 pkts[XRX_LIVE_QUEUES_MAX];
	__u64 segs[XRX_LIVE_QUEUES_MAX];
	bool per_flow;			/* -F */
	struct xrx_hash_key key;	/* xrx_rx's, for the sw count */
	pthread_mutex_t lock;		/* flows: one worker per queue */
	struct flow_acct flows[MAX_FLOWS];
	__u32 nr_flows;
	__u64 flow_other;		/* not TCP, or beyond MAX_FLOWS */
};

/* -F: one delivered packet into its flow's account. */
static void flow_account(struct cb_state *cs, const struct xrx_pkt *pkt)
{
	struct xrx_parsed r;
	struct flow_acct *f = NULL;
	__u32 win, seq, i;

	win = pkt->head_len < XRX_PARSE_WINDOW ? pkt->head_len : XRX_PARSE_WINDOW;
	if (xrx_parse(pkt->head, win, pkt->len, &r, &cs->key) != XRX_PARSE_L4 ||
	    r.l4_proto != IPPROTO_TCP) {
		pthread_mutex_lock(&cs->lock);
		cs->flow_other++;
		pthread_mutex_unlock(&cs->lock);
		return;
	}
	seq = xrx_get32(pkt->head + r.l4_off + 4);
	pthread_mutex_lock(&cs->lock);
	for (i = 0; i < cs->nr_flows; i++)
		if (cs->flows[i].sport == r.sport && cs->flows[i].dport == r.dport)
			f = &cs->flows[i];
	if (!f && cs->nr_flows < MAX_FLOWS) {
		f = &cs->flows[cs->nr_flows++];
		f->sport = r.sport;
		f->dport = r.dport;
		f->hash = pkt->hash;
		f->next_seq = seq;
	}
	if (!f) {
		cs->flow_other++;
	} else {
		f->pkts++;
		f->segs += pkt->gso_segs;
		f->bytes += pkt->len - r.headlen;
		f->sw += pkt->hash == r.hash;
		f->rehash += pkt->hash != f->hash;
		f->gaps += seq != f->next_seq;
		f->next_seq = seq + (pkt->len - r.headlen);
	}
	pthread_mutex_unlock(&cs->lock);
}

/* -F: the flow hash key the program and the engines use, from xrx_cfg. */
static int read_key(const char *pin_root, const char *ifname,
		    struct xrx_hash_key *key)
{
	struct xrx_cfg cfg;
	char path[512];
	__u32 zero = 0;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s/xrx_cfg",
		 pin_root ? pin_root : XRX_PIN_ROOT_DEFAULT, ifname);
	fd = bpf_obj_get(path);
	if (fd < 0 || bpf_map_lookup_elem(fd, &zero, &cfg)) {
		fprintf(stderr, "live_rx: %s: %s\n", path, strerror(errno));
		err = -1;
	} else {
		*key = cfg.hash_key;
	}
	if (fd >= 0)
		close(fd);
	return err;
}

static void on_signal(int sig)
{
	stop = 1;
}

static void slow_cb(void *ctx, struct xrx_live *l, __u32 qi,
		    struct xrx_pkt *pkt)
{
	struct cb_state *cs = ctx;

	cs->pkts[qi]++;
	cs->segs[qi] += pkt->gso_segs;
	if (cs->per_flow)
		flow_account(cs, pkt);
	if (cs->late_port && pkt->l4_off && pkt->l4_off + 2u <= pkt->head_len &&
	    (pkt->head[pkt->l4_off] << 8 | pkt->head[pkt->l4_off + 1]) >=
		    cs->late_port)
		cs->late++;
	if (cs->sleep_us)
		usleep(cs->sleep_us);
	xrx_live__release(l, qi, pkt);
}

static void log_cb(void *ctx, enum xrx_log_level lvl, const char *msg)
{
	int verbose = *(int *)ctx;

	if (lvl <= XRX_LOG_INFO || verbose)
		fprintf(stderr, "live_rx: %s\n", msg);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: live_rx -i IFACE [-P PINROOT] [-Q NQUEUES] [-p PORT]... [-s SINK] [-e TEE]\n"
		"               [-m sink|cb|poll] [-S USEC] [-t SECONDS] [-n FRAMES]\n"
		"               [-T FLUSH_US] [-A MAX_AGGREGATE] [-u] [-a auto|native|skb] [-f NFRAMES]\n"
		"               [-r RINGSIZE] [-c CPU,CPU] [-L SNAPLEN] [-B ROTATE_BYTES]\n"
		"               [-R PORT] [-H] [-W] [-F] [-N COALESCE_USEC] [-b BUSY_USEC] [-v]\n");
}

static __u64 frames_in(struct xrx_live *l)
{
	struct xrx_live_stats st;

	if (xrx_live__stats(l, -1, &st))
		return 0;
	return st.live[XRX_LIVE_STAT_RX_FRAMES];
}

static void print_stats(struct xrx_live *l, const struct cb_state *cs)
{
	struct xrx_live_queue_info qi;
	struct xrx_live_stats st;
	char why[256] = "";
	__u32 i;
	int j;

	xrx_live__queue_info(l, 0, &qi);
	printf("info attach %s queues %u zerocopy %d multi_buffer %d busy_poll %d\n",
	       xrx_live__attach_mode(l), xrx_live__nr_queues(l), qi.zerocopy,
	       qi.multi_buffer, qi.busy_poll);
	for (i = 0; i < xrx_live__nr_queues(l); i++) {
		xrx_live__stats(l, (int)i, &st);
		printf("q%u frames %llu pkts %llu cb_pkts %llu\n", i,
		       (unsigned long long)st.live[XRX_LIVE_STAT_RX_FRAMES],
		       (unsigned long long)st.engine[XRX_ENGINE_STAT_PKTS_OUT],
		       (unsigned long long)cs->pkts[i]);
	}
	xrx_live__stats(l, -1, &st);
	for (j = 0; j < XRX_LIVE_STAT_MAX; j++)
		printf("live %s %llu\n", xrx_live_stat__name(j),
		       (unsigned long long)st.live[j]);
	for (j = 0; j < XRX_ENGINE_STAT_MAX; j++)
		printf("engine %s %llu\n", xrx_engine_stat__name(j),
		       (unsigned long long)st.engine[j]);
	for (j = 0; j < XRX_SINK_STAT_MAX; j++)
		printf("sink %s %llu\n", xrx_sink_stat__name(j),
		       (unsigned long long)st.sink[j]);
	for (j = 0; j < XRX_SINK_STAT_MAX; j++)
		printf("tee %s %llu\n", xrx_sink_stat__name(j),
		       (unsigned long long)st.tee[j]);
	for (j = 0; j < XRX_STAT_MAX; j++)
		printf("prog %s %llu\n", xrx_stat_names[j],
		       (unsigned long long)st.prog[j]);
	printf("cb late %llu\n", (unsigned long long)cs->late);
	for (i = 0; i < cs->nr_flows; i++) {
		const struct flow_acct *f = &cs->flows[i];

		printf("flow %u %u hash %#010x pkts %llu segs %llu bytes %llu sw %llu rehash %llu gaps %llu\n",
		       f->sport, f->dport, f->hash, (unsigned long long)f->pkts,
		       (unsigned long long)f->segs, (unsigned long long)f->bytes,
		       (unsigned long long)f->sw, (unsigned long long)f->rehash,
		       (unsigned long long)f->gaps);
	}
	if (cs->per_flow)
		printf("flow other %llu\n", (unsigned long long)cs->flow_other);
	if (xrx_live__check_frames(l, -1, why, sizeof(why)))
		printf("check FAIL %s\n", why);
	else
		printf("check ok\n");
}

int main(int argc, char **argv)
{
	struct xrx_live_opts o = { .sz = sizeof(o) };
	struct xrx_engine_opts eo = { .sz = sizeof(eo) };
	struct xrx_sink_opts so = { .sz = sizeof(so) };
	struct cb_state cs = { 0 };
	const char *ifname = NULL, *mode = "sink";
	struct xrx_pkt *pkts[64];
	int cpus[XRX_LIVE_QUEUES_MAX];
	__u16 ports[MAX_PORTS];
	int nports = 0, timeout = 20, verbose = 0, opt, err, i, n;
	unsigned long long want = 0;
	struct xrx_live *l;
	time_t deadline;
	char *tok;

	pthread_mutex_init(&cs.lock, NULL);
	o.sink = "null";
	while ((opt = getopt(argc, argv, "i:P:Q:p:s:e:m:S:t:n:T:A:ua:f:r:c:L:B:R:N:HWFb:vh")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'P': o.pin_root = optarg; break;
		case 'Q': o.nr_queues = atoi(optarg); break;
		case 'p':
			if (nports == MAX_PORTS) {
				usage(stderr);
				return 2;
			}
			ports[nports++] = atoi(optarg);
			break;
		case 's': o.sink = optarg; break;
		case 'e': o.tee = optarg; break;
		case 'm': mode = optarg; break;
		case 'S': cs.sleep_us = atoi(optarg); break;
		case 't': timeout = atoi(optarg); break;
		case 'n': want = strtoull(optarg, NULL, 0); break;
		case 'T': eo.flush_timeout_us = atoi(optarg); break;
		case 'A': eo.max_aggregate = atoi(optarg); break;
		case 'u': eo.udp = true; break;
		case 'a':
			if (!strcmp(optarg, "native"))
				o.attach = XRX_LIVE_ATTACH_NATIVE;
			else if (!strcmp(optarg, "skb"))
				o.attach = XRX_LIVE_ATTACH_SKB;
			else if (strcmp(optarg, "auto")) {
				usage(stderr);
				return 2;
			}
			break;
		case 'f': o.nr_frames = atoi(optarg); break;
		case 'r': o.fill_size = o.rx_size = atoi(optarg); break;
		case 'c':
			i = 0;
			for (tok = strtok(optarg, ","); tok && i < XRX_LIVE_QUEUES_MAX;
			     tok = strtok(NULL, ","))
				cpus[i++] = atoi(tok);
			while (i < XRX_LIVE_QUEUES_MAX)
				cpus[i++] = -1;
			o.cpus = cpus;
			break;
		case 'L': so.snaplen = atoi(optarg); break;
		case 'B': so.rotate_bytes = strtoull(optarg, NULL, 0); break;
		case 'R': cs.late_port = atoi(optarg); break;
		case 'N':
			o.coalesce_usec = atoi(optarg);
			o.no_coalesce = !o.coalesce_usec;
			break;
		case 'H': o.no_hw_meta = true; break;
		case 'W': o.no_hw_hash = true; break;
		case 'F': cs.per_flow = true; break;
		case 'b':
			o.busy_poll = true;
			o.busy_poll_usec = (__u32)atoi(optarg);
			break;
		case 'v': verbose = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!ifname || timeout <= 0 || (cs.per_flow && strcmp(mode, "cb"))) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(mode, "cb")) {
		o.sink = NULL;
		o.cb = slow_cb;
		o.cb_ctx = &cs;
	} else if (!strcmp(mode, "poll")) {
		o.sink = NULL;
	} else if (strcmp(mode, "sink")) {
		usage(stderr);
		return 2;
	}
	o.log = log_cb;
	o.log_ctx = &verbose;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	o.engine = &eo;
	o.sink_opts = &so;
	l = xrx_live__open(ifname, &o);
	if (!l) {
		fprintf(stderr, "live_rx: open %s: %s\n", ifname, strerror(errno));
		return 1;
	}
	if (cs.per_flow && read_key(o.pin_root, ifname, &cs.key)) {
		xrx_live__close(l);
		return 1;
	}
	for (i = 0; i < nports; i++) {
		err = xrx_live__rule_add_port(l, IPPROTO_TCP, ports[i]);
		if (!err)
			err = xrx_live__rule_add_port(l, IPPROTO_UDP, ports[i]);
		if (err) {
			fprintf(stderr, "live_rx: rule for port %u: %s\n", ports[i],
				strerror(-err));
			xrx_live__close(l);
			return 1;
		}
	}
	if (strcmp(mode, "poll")) {
		err = xrx_live__start(l);
		if (err) {
			fprintf(stderr, "live_rx: start: %s\n", strerror(-err));
			xrx_live__close(l);
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	deadline = time(NULL) + timeout;
	while (!stop && time(NULL) < deadline) {
		if (want && frames_in(l) >= want)
			break;
		if (!strcmp(mode, "poll")) {
			for (i = 0; i < (int)xrx_live__nr_queues(l); i++) {
				n = xrx_live__poll(l, i, pkts, 64, 10);
				for (int k = 0; k < n; k++) {
					cs.pkts[i]++;
					cs.segs[i] += pkts[k]->gso_segs;
					xrx_live__release(l, i, pkts[k]);
				}
			}
		} else {
			usleep(10000);
		}
	}
	xrx_live__stop(l);
	print_stats(l, &cs);
	fflush(stdout);
	xrx_live__close(l);
	return 0;
}
