// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * teecap: capture beside delivery with libxrx's live API. The accelerated
 * traffic goes into the kernel stack through a TUN sink, as it would
 * without xrx, and a tee writes every packet the sink gets, aggregated,
 * to a pcap file: a serving host captures without taking its own traffic
 * away. The tee never holds the sink up; what it cannot write it counts
 * as its own loss.
 *
 *   teecap -i IFACE -p PORT [-p PORT]... -w FILE.pcap [-s SINK] [-q QUEUES]
 *          [-t SECONDS]
 *
 * SINK is tun:xrx0 by default (give the TUN no address and turn rp_filter
 * off on it, see xrx.conf(5), TUN sink). SIGUSR1 stops the capture in
 * place, and the next one starts it again into a fresh FILE; the sink
 * delivers throughout (xrx_live__reconfigure_opts()). At the end it
 * prints the sink's and the tee's counters.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>

#include <xrx/xrx.h>

#define MAX_PORTS 8

static volatile sig_atomic_t stop, toggle;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		toggle = 1;
	else
		stop = 1;
}

static void print_counters(const char *what, const __u64 *v)
{
	printf("%s pkts_in %llu pkts_out %llu errors %llu dropped %llu\n", what,
	       (unsigned long long)v[XRX_SINK_STAT_PKTS_IN],
	       (unsigned long long)v[XRX_SINK_STAT_PKTS_OUT],
	       (unsigned long long)v[XRX_SINK_STAT_ERRORS],
	       (unsigned long long)v[XRX_SINK_STAT_DROPPED]);
}

/* The tee off, or on again into @tee. Return: 0 or a negative errno. */
static int set_tee(struct xrx_live *l, const char *tee, bool on)
{
	struct xrx_live_reconfigure_opts r = {
		.sz = sizeof(r),
		.tee = on ? tee : NULL,
		.no_tee = !on,
	};

	return xrx_live__reconfigure_opts(l, &r);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: teecap -i IFACE -p PORT [-p PORT]... -w FILE.pcap [-s SINK] [-q QUEUES] [-t SECONDS]\n");
}

int main(int argc, char **argv)
{
	struct xrx_live_opts o = { .sz = sizeof(o), .sink = "tun:xrx0" };
	int nports = 0, seconds = 0, opt, err, i;
	const char *ifname = NULL, *file = NULL;
	char tee[256];
	struct xrx_live_stats st;
	__u16 ports[MAX_PORTS];
	struct xrx_live *l;
	bool on = true;

	while ((opt = getopt(argc, argv, "i:p:w:s:q:t:h")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'p':
			if (nports == MAX_PORTS)
				goto bad;
			ports[nports++] = (__u16)atoi(optarg);
			break;
		case 'w': file = optarg; break;
		case 's': o.sink = optarg; break;
		case 'q': o.nr_queues = atoi(optarg); break;
		case 't': seconds = atoi(optarg); break;
		case 'h': usage(stdout); return 0;
		default: goto bad;
		}
	}
	if (!ifname || !nports || !file ||
	    snprintf(tee, sizeof(tee), "pcap:%s", file) >= (int)sizeof(tee))
		goto bad;
	o.tee = tee;
	l = xrx_live__open(ifname, &o);
	if (!l) {
		fprintf(stderr, "teecap: %s: %s\n", ifname, strerror(errno));
		return 1;
	}
	for (i = 0; i < nports; i++) {
		err = xrx_live__rule_add_port(l, IPPROTO_TCP, ports[i]);
		if (err) {
			fprintf(stderr, "teecap: rule for port %u: %s\n",
				ports[i], strerror(-err));
			goto out;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGUSR1, on_signal);
	err = xrx_live__start(l);
	if (err) {
		fprintf(stderr, "teecap: start: %s\n", strerror(-err));
		goto out;
	}
	fprintf(stderr, "teecap: %s into %s, captured to %s\n", ifname, o.sink,
		file);
	for (i = 0; !stop && (!seconds || i < seconds * 10); i++) {
		if (toggle) {
			toggle = 0;
			err = set_tee(l, tee, !on);
			if (err) {
				fprintf(stderr, "teecap: capture %s: %s\n",
					on ? "off" : "on", strerror(-err));
				continue;
			}
			on = !on;
			fprintf(stderr, "teecap: capture %s\n", on ? "on" : "off");
		}
		usleep(100000);
	}
	err = xrx_live__stop(l);
	if (!err)
		err = xrx_live__stats(l, -1, &st);
	if (!err) {
		print_counters("sink", st.sink);
		print_counters("tee", st.tee);
	}
out:
	xrx_live__close(l);
	return err ? 1 : 0;
bad:
	usage(stderr);
	return 2;
}
