// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * flowcount: bytes and packets per flow, received through libxrx's live
 * API. An example of the callback consumer: one worker per queue calls
 * count() for every delivered packet (an aggregate counts its segments),
 * each queue has its own table so no lock is taken, and the tables are
 * merged once at the end.
 *
 *   flowcount -i IFACE -p PORT [-p PORT]... [-q QUEUES] [-t SECONDS] [-s skb]
 *
 * Prints one line per flow: proto, source, destination, packets
 * (delivered), segments (as sent), bytes (as on the wire).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <xrx/xrx.h>

#define FLOWS 4096		/* per queue; a power of two */
#define MAX_PORTS 8

struct flow {
	__u8 used;
	__u8 proto;
	__u8 v6;
	__u8 addr[32];		/* source then destination */
	__u16 sport, dport;
	__u64 pkts, segs, bytes;
};

struct table {
	struct flow f[FLOWS];
	__u64 other;		/* packets without a TCP/UDP header */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static __u16 get16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

/* The flow key comes from the head: every header byte is there. */
static void count(void *ctx, struct xrx_live *l, __u32 qi, struct xrx_pkt *p)
{
	struct table *t = &((struct table *)ctx)[qi];
	const __u8 *h = p->head, *l3 = h + p->l3_off;
	struct flow key = { .used = 1 }, *f;
	__u32 i, n, alen;

	if (!p->l4_off || p->l4_off + 4u > p->head_len ||
	    (p->l4_proto != IPPROTO_TCP && p->l4_proto != IPPROTO_UDP)) {
		t->other++;
		goto out;
	}
	key.proto = p->l4_proto;
	key.v6 = (l3[0] >> 4) == 6;
	alen = key.v6 ? 16 : 4;
	memcpy(key.addr, l3 + (key.v6 ? 8 : 12), alen);
	memcpy(key.addr + 16, l3 + (key.v6 ? 24 : 16), alen);
	key.sport = get16(h + p->l4_off);
	key.dport = get16(h + p->l4_off + 2);
	/* Open addressing from the flow hash xrx_rx computed. */
	for (n = 0, i = p->hash & (FLOWS - 1); n < FLOWS;
	     n++, i = (i + 1) & (FLOWS - 1)) {
		f = &t->f[i];
		if (!f->used) {
			*f = key;
			break;
		}
		if (f->proto == key.proto && f->v6 == key.v6 &&
		    f->sport == key.sport && f->dport == key.dport &&
		    !memcmp(f->addr, key.addr, sizeof(key.addr)))
			break;
	}
	if (n == FLOWS) {
		t->other++;	/* table full */
		goto out;
	}
	f->pkts++;
	f->segs += p->gso_segs;
	/* On the wire every segment carries its own headers. */
	f->bytes += p->len + (__u64)(p->gso_segs - 1) * (p->l4_off +
			(p->l4_proto == IPPROTO_TCP ? (h[p->l4_off + 12] >> 4) * 4 : 8));
out:
	xrx_live__release(l, qi, p);
}

static void print_flows(const struct table *tabs, __u32 nq)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	const struct flow *f;
	__u64 other = 0;
	__u32 q, i;

	printf("%-4s %-40s %-40s %10s %10s %14s\n", "prot", "source",
	       "destination", "packets", "segments", "bytes");
	for (q = 0; q < nq; q++) {
		other += tabs[q].other;
		for (i = 0; i < FLOWS; i++) {
			f = &tabs[q].f[i];
			if (!f->used)
				continue;
			inet_ntop(f->v6 ? AF_INET6 : AF_INET, f->addr, s, sizeof(s));
			inet_ntop(f->v6 ? AF_INET6 : AF_INET, f->addr + 16, d,
				  sizeof(d));
			printf("%-4s %-34s %5u %-34s %5u %10llu %10llu %14llu\n",
			       f->proto == IPPROTO_TCP ? "tcp" : "udp", s, f->sport,
			       d, f->dport, (unsigned long long)f->pkts,
			       (unsigned long long)f->segs,
			       (unsigned long long)f->bytes);
		}
	}
	if (other)
		printf("other %llu\n", (unsigned long long)other);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: flowcount -i IFACE -p PORT [-p PORT]... [-q QUEUES] [-t SECONDS] [-s skb]\n");
}

int main(int argc, char **argv)
{
	struct xrx_live_opts o = { .sz = sizeof(o) };
	struct xrx_engine_opts eo = { .sz = sizeof(eo), .udp = true };
	__u16 ports[MAX_PORTS];
	int nports = 0, seconds = 0, opt, err, i;
	const char *ifname = NULL;
	struct table *tabs;
	struct xrx_live *l;

	while ((opt = getopt(argc, argv, "i:p:q:t:s:h")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'p':
			if (nports == MAX_PORTS)
				goto bad;
			ports[nports++] = (__u16)atoi(optarg);
			break;
		case 'q': o.nr_queues = atoi(optarg); break;
		case 't': seconds = atoi(optarg); break;
		case 's':
			if (strcmp(optarg, "skb"))
				goto bad;
			o.attach = XRX_LIVE_ATTACH_SKB;
			break;
		case 'h': usage(stdout); return 0;
		default: goto bad;
		}
	}
	if (!ifname || !nports)
		goto bad;
	if (!o.nr_queues)
		o.nr_queues = 1;
	tabs = calloc(o.nr_queues, sizeof(*tabs));
	if (!tabs)
		return 1;
	o.cb = count;
	o.cb_ctx = tabs;
	o.engine = &eo;
	l = xrx_live__open(ifname, &o);
	if (!l) {
		fprintf(stderr, "flowcount: %s: %s\n", ifname, strerror(errno));
		free(tabs);
		return 1;
	}
	for (i = 0; i < nports; i++) {
		err = xrx_live__rule_add_port(l, IPPROTO_TCP, ports[i]);
		if (!err)
			err = xrx_live__rule_add_port(l, IPPROTO_UDP, ports[i]);
		if (err) {
			fprintf(stderr, "flowcount: rule for port %u: %s\n",
				ports[i], strerror(-err));
			goto out;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	err = xrx_live__start(l);
	if (err) {
		fprintf(stderr, "flowcount: start: %s\n", strerror(-err));
		goto out;
	}
	fprintf(stderr, "flowcount: counting on %s until %s\n", ifname,
		seconds ? "the time is up or SIGINT/SIGTERM" : "SIGINT/SIGTERM");
	for (i = 0; !stop && (!seconds || i < seconds * 10); i++)
		usleep(100000);
	xrx_live__stop(l);	/* the tables are ours alone from here */
	print_flows(tabs, o.nr_queues);
out:
	xrx_live__close(l);
	free(tabs);
	return err ? 1 : 0;
bad:
	usage(stderr);
	return 2;
}
