// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrx-send: put crafted traffic on an interface, bounded in count and
 * rate: a pcap file replayed, or generated TCP/UDP segment trains with
 * optional reordering, duplicates, loss and malformed frames. For tests
 * and benchmarks of xrx inside network namespaces; it sends with
 * AF_PACKET (PACKET_QDISC_BYPASS, sendmmsg() batches), so no qdisc, no
 * netem and no pktgen are needed; --qdisc sends through the qdisc layer
 * instead, where tc egress programs see the frames.
 *
 * Generated trains: --flows flows (source ports sport, sport+1, ...), each
 * --segs segments of --mss payload bytes, --trains times; flows
 * interleaved segment by segment with --interleave, else one flow's train
 * after the other. TCP segments carry ACK, the last of a train also PSH;
 * sequence numbers continue across trains. Payload byte k of a flow's
 * stream is a hash of (flow, k), so a receiver can check every byte.
 * --write FILE records exactly what was sent (pcap), drops excluded.
 */
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <pcap/pcap.h>

#include <xrx/xrx.h>

#include "util/cli.h"
#include "util/frames.h"

#define FRAME_MAX 9216
#define BATCH_MAX 256
#define RNG_PCT(r) ((r) % 100)

struct opts {
	const char *ifname, *pcap_in, *write;
	__u8 dmac[6], smac[6];
	bool have_dmac, have_smac;
	int family;		/* 4 or 6 */
	__u8 proto;		/* IPPROTO_TCP / IPPROTO_UDP */
	__u8 saddr[16], daddr[16];
	__u16 sport, dport;
	__u32 flows, segs, mss, trains;
	bool interleave, no_psh;
	__u32 reorder, dup, loss, malformed;	/* percent */
	__u32 seed;
	__u64 count;		/* frames at most; 0: all */
	__u64 rate;		/* frames per second; 0: as fast as possible */
	__u32 batch;
	__u32 gap_us;		/* pause between trains */
	__u32 repeat;		/* pcap replays */
	bool qdisc;		/* through the qdisc layer (tc egress) */
	bool verbose;
};

struct frame {
	__u32 len;
	__u8 data[FRAME_MAX];
};

struct sender {
	const struct opts *o;
	int fd;
	struct frame *buf;	/* one batch */
	__u32 n;
	__u64 sent, bytes, dropped, dups, malformed, reordered;
	struct timespec start;
	pcap_t *wp;
	pcap_dumper_t *wd;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static __u32 rng(__u32 *s)
{
	/* xorshift32: reproducible with --seed, good enough for test choices. */
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static __u8 payload_byte(__u32 flow, __u32 off)
{
	__u32 h = flow * 0x9e3779b1u + off;

	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	return (__u8)h;
}

/*
 * One segment of flow @flow: @plen payload bytes from stream offset @off.
 * @bad: 0 good, 1 bad L4 checksum, 2 bad IPv4 header checksum (IPv6: L4),
 * 3 IP length longer than the frame. Return: the frame length.
 */
static __u32 build(const struct opts *o, __u8 *f, __u32 flow, __u32 seq,
		   __u32 off, __u32 plen, bool psh, __u16 ipid, int bad)
{
	static __u8 payload[FRAME_MAX];
	struct frame_spec s;
	bool tcp = o->proto == IPPROTO_TCP;
	__u32 i;
	int len;

	if (o->family == 4)
		tcp ? frame_spec_tcp4(&s) : frame_spec_udp4(&s);
	else
		tcp ? frame_spec_tcp6(&s) : frame_spec_udp6(&s);
	memcpy(s.dmac, o->dmac, sizeof(s.dmac));
	memcpy(s.smac, o->smac, sizeof(s.smac));
	memcpy(s.saddr, o->saddr, sizeof(s.saddr));
	memcpy(s.daddr, o->daddr, sizeof(s.daddr));
	s.sport = (__u16)(o->sport + flow);
	s.dport = o->dport;
	s.ip_id = ipid;
	if (tcp) {
		s.seq = seq;
		s.ack = 1;
		s.tcp_flags = 0x10 | (psh ? 0x08 : 0);	/* ACK, PSH */
		s.window = 65535;
		s.tcp_opts = NULL;
		s.tcp_opts_len = 0;
	}
	if (plen > sizeof(payload))
		return 0;
	for (i = 0; i < plen; i++)
		payload[i] = payload_byte(flow, off + i);
	s.payload = payload;
	s.payload_len = plen;
	s.bad_l4_csum = bad == 1 || (bad == 2 && o->family == 6);
	s.bad_ip_csum = bad == 2 && o->family == 4;
	s.tot_len_delta = bad == 3 ? 100 : 0;
	len = frame_build(&s, f, FRAME_MAX);
	return len > 0 ? (__u32)len : 0;
}

static int flush_batch(struct sender *s)
{
	struct mmsghdr msg[BATCH_MAX];
	struct iovec iov[BATCH_MAX];
	struct pcap_pkthdr ph;
	__u32 i, done = 0;
	int n;

	if (!s->n)
		return 0;
	memset(msg, 0, sizeof(msg[0]) * s->n);
	for (i = 0; i < s->n; i++) {
		iov[i].iov_base = s->buf[i].data;
		iov[i].iov_len = s->buf[i].len;
		msg[i].msg_hdr.msg_iov = &iov[i];
		msg[i].msg_hdr.msg_iovlen = 1;
	}
	while (done < s->n) {
		n = sendmmsg(s->fd, msg + done, s->n - done, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS || errno == EAGAIN) {
				usleep(100);	/* device queue full: wait */
				continue;
			}
			fprintf(stderr, "xrx-send: send on %s: %s\n", s->o->ifname,
				strerror(errno));
			return -errno;
		}
		done += n;
	}
	for (i = 0; i < s->n; i++) {
		s->bytes += s->buf[i].len;
		if (s->wd) {
			/* Timestamps count frames: the order is what matters. */
			ph.ts.tv_usec = (long)s->sent % 1000000;
			ph.ts.tv_sec = (long)(s->sent / 1000000);
			ph.caplen = ph.len = s->buf[i].len;
			pcap_dump((u_char *)s->wd, &ph, s->buf[i].data);
		}
		s->sent++;
	}
	s->n = 0;
	return 0;
}

/* Keep to --rate: sleep until frame @k is due. */
static void pace(struct sender *s)
{
	struct timespec now, due;
	__u64 ns;

	if (!s->o->rate)
		return;
	ns = s->sent * 1000000000ull / s->o->rate;
	due.tv_sec = s->start.tv_sec + (time_t)(ns / 1000000000ull);
	due.tv_nsec = s->start.tv_nsec + (long)(ns % 1000000000ull);
	if (due.tv_nsec >= 1000000000L) {
		due.tv_sec++;
		due.tv_nsec -= 1000000000L;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec < due.tv_sec ||
	    (now.tv_sec == due.tv_sec && now.tv_nsec < due.tv_nsec))
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL);
}

static bool full(const struct sender *s)
{
	return s->o->count && s->sent + s->n >= s->o->count;
}

/* Queue a frame; send the batch when full. Return: <0 error, 1 stop. */
static int queue_frame(struct sender *s, const __u8 *data, __u32 len)
{
	__u32 batch = s->o->rate ? 1 : s->o->batch;
	int err;

	if (stop || full(s))
		return 1;
	if (len > FRAME_MAX)
		return -EMSGSIZE;
	memcpy(s->buf[s->n].data, data, len);
	s->buf[s->n++].len = len;
	if (s->n >= batch) {
		pace(s);
		err = flush_batch(s);
		if (err)
			return err;
	}
	return 0;
}

static int run_pcap(struct sender *s)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	__u32 r;
	int rc = 0, err;
	pcap_t *p;

	for (r = 0; r < s->o->repeat && !rc; r++) {
		p = pcap_open_offline(s->o->pcap_in, errbuf);
		if (!p) {
			fprintf(stderr, "xrx-send: %s: %s\n", s->o->pcap_in, errbuf);
			return -EINVAL;
		}
		if (pcap_datalink(p) != DLT_EN10MB) {
			fprintf(stderr, "xrx-send: %s: not an Ethernet capture (link type %d)\n",
				s->o->pcap_in, pcap_datalink(p));
			pcap_close(p);
			return -EINVAL;
		}
		while (!rc && pcap_next_ex(p, &h, &data) == 1) {
			if (h->caplen != h->len) {
				fprintf(stderr, "xrx-send: %s: frame truncated by the capture's snaplen; skipped\n",
					s->o->pcap_in);
				continue;
			}
			err = queue_frame(s, data, h->caplen);
			if (err == -EMSGSIZE) {
				fprintf(stderr, "xrx-send: %s: frame of %u bytes too long; skipped\n",
					s->o->pcap_in, h->caplen);
				continue;
			}
			rc = err;
		}
		pcap_close(p);
	}
	return rc < 0 ? rc : 0;
}

struct seg {
	__u32 flow, seq, off, len;
	bool psh;
};

static int run_trains(struct sender *s)
{
	const struct opts *o = s->o;
	__u32 total = o->flows * o->segs, t, i, k, r = o->seed ? o->seed : 1;
	__u32 *seq = calloc(o->flows, sizeof(*seq));
	__u32 *off = calloc(o->flows, sizeof(*off));
	__u16 *ipid = calloc(o->flows, sizeof(*ipid));
	struct seg *segs = calloc(total, sizeof(*segs)), tmp;
	__u8 *f = malloc(FRAME_MAX);
	int rc = 0, bad;
	__u32 len;

	if (!seq || !off || !ipid || !segs || !f) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < o->flows; i++)
		seq[i] = 1000000 * (i + 1);
	for (t = 0; t < o->trains && !rc; t++) {
		/* The train in send order. */
		for (k = 0; k < total; k++) {
			struct seg *g = &segs[k];

			g->flow = o->interleave ? k % o->flows : k / o->segs;
			i = o->interleave ? k / o->flows : k % o->segs;
			g->len = o->mss;
			g->psh = !o->no_psh && i == o->segs - 1;
			g->seq = seq[g->flow];
			g->off = off[g->flow];
			seq[g->flow] += g->len;
			off[g->flow] += g->len;
		}
		/* Reorder: swap with the next segment. */
		for (k = 0; k + 1 < total && o->reorder; k++) {
			if (RNG_PCT(rng(&r)) >= o->reorder)
				continue;
			tmp = segs[k];
			segs[k] = segs[k + 1];
			segs[k + 1] = tmp;
			s->reordered++;
			k++;
		}
		for (k = 0; k < total && !rc; k++) {
			struct seg *g = &segs[k];
			int copies = 1;

			if (o->loss && RNG_PCT(rng(&r)) < o->loss) {
				s->dropped++;
				continue;
			}
			if (o->dup && RNG_PCT(rng(&r)) < o->dup) {
				copies = 2;
				s->dups++;
			}
			bad = 0;
			if (o->malformed && RNG_PCT(rng(&r)) < o->malformed)
				bad = 1 + (int)(rng(&r) % 3);
			len = build(o, f, g->flow, g->seq, g->off, g->len, g->psh,
				    ipid[g->flow]++, bad);
			/* Count what was queued: the frame that meets --count is not. */
			while (copies-- && !rc) {
				rc = queue_frame(s, f, len);
				if (bad && rc == 0)
					s->malformed++;
			}
		}
		if (!rc && o->gap_us && t + 1 < o->trains) {
			rc = flush_batch(s);
			usleep(o->gap_us);
		}
	}
out:
	free(seq);
	free(off);
	free(ipid);
	free(segs);
	free(f);
	return rc < 0 ? rc : 0;
}

static int parse_mac(const char *s, __u8 *mac)
{
	unsigned int b[6];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5]) != 6)
		return -EINVAL;
	for (i = 0; i < 6; i++) {
		if (b[i] > 255)
			return -EINVAL;
		mac[i] = (__u8)b[i];
	}
	return 0;
}

static int parse_addr(const char *s, __u8 *a, int *family)
{
	memset(a, 0, 16);
	if (inet_pton(AF_INET, s, a + 12) == 1) {
		a[10] = a[11] = 0xff;
		if (*family && *family != 4)
			return -EINVAL;
		*family = 4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a) == 1) {
		if (*family && *family != 6)
			return -EINVAL;
		*family = 6;
		return 0;
	}
	return -EINVAL;
}

/* Stringified, for BATCH_MAX in the help. */
#define STR_(x) #x
#define STR(x) STR_(x)

enum {
	OPT_DMAC = CLI_KEY, OPT_SMAC, OPT_PCAP, OPT_REPEAT, OPT_SRC, OPT_DST,
	OPT_UDP, OPT_SPORT, OPT_DPORT, OPT_FLOWS, OPT_SEGS, OPT_MSS,
	OPT_TRAINS, OPT_INTERLEAVE, OPT_NO_PSH, OPT_REORDER, OPT_DUP,
	OPT_LOSS, OPT_MALFORMED, OPT_SEED, OPT_GAP_US, OPT_QDISC,
};

/*
 * Options that go together share a line of the help: the first of them
 * shows them all (CLI_OPT_SHOW), the others have no line (help NULL).
 * Those lines put their text in a column of their own, at 30.
 */
static const struct cli_opt opts[] = {
	CLI_OPT("iface", 'i', "IFACE", "interface to send on (required)"),
	CLI_OPT("dmac", OPT_DMAC, "MAC",
		"destination MAC (required for generated trains)"),
	CLI_OPT("smac", OPT_SMAC, "MAC", "source MAC (default: the interface's)"),
	CLI_OPT("pcap", OPT_PCAP, "FILE",
		"replay FILE's frames (--repeat N times)"),
	CLI_OPT("repeat", OPT_REPEAT, "N", NULL),
	CLI_OPT_SHOW("src", OPT_SRC, "ADDR",
		     "IPv4 or IPv6 (default 198.18.0.1 -> .2)",
		     "    --src ADDR --dst ADDR  "),
	CLI_OPT("dst", OPT_DST, "ADDR", NULL),
	CLI_OPT("udp", OPT_UDP, NULL, "UDP datagrams instead of TCP segments"),
	CLI_OPT_SHOW("sport", OPT_SPORT, "P",
		     "ports (default 40000, 5001; flow k: sport+k)",
		     "    --sport P --dport P    "),
	CLI_OPT("dport", OPT_DPORT, "P", NULL),
	CLI_OPT_SHOW("flows", OPT_FLOWS, "N", "(default 1, 20, 1448, 1)",
		     "    --flows N --segs N --mss N --trains N  "),
	CLI_OPT("segs", OPT_SEGS, "N", NULL),
	CLI_OPT("mss", OPT_MSS, "N", NULL),
	CLI_OPT("trains", OPT_TRAINS, "N", NULL),
	CLI_OPT("interleave", OPT_INTERLEAVE, NULL,
		"alternate flows segment by segment"),
	CLI_OPT("no-psh", OPT_NO_PSH, NULL, "no PSH on a train's last segment"),
	CLI_OPT_SHOW("reorder", OPT_REORDER, "PCT", "(default 0)",
		     "    --reorder PCT --dup PCT --loss PCT --malformed PCT  "),
	CLI_OPT("dup", OPT_DUP, "PCT", NULL),
	CLI_OPT("loss", OPT_LOSS, "PCT", NULL),
	CLI_OPT("malformed", OPT_MALFORMED, "PCT", NULL),
	CLI_OPT("seed", OPT_SEED, "N", "random choices (default 1)"),
	CLI_OPT("gap-us", OPT_GAP_US, "N", "pause between trains"),
	CLI_OPT("qdisc", OPT_QDISC, NULL,
		"through the qdisc layer, so tc egress programs run"),
	CLI_OPT("count", 'c', "N", "send at most N frames"),
	CLI_OPT("rate", 'r', "PPS", "at most PPS frames per second"),
	CLI_OPT("batch", 'b', "N",
		"frames per sendmmsg() (default 64, max " STR(BATCH_MAX) ")"),
	CLI_OPT("write", 'w', "FILE", "record what was sent as pcap"),
	CLI_OPT_VERBOSE("print a summary on stderr"),
	CLI_OPT_SHOW("help", 'h', NULL, "", "-h, --help / -V, --version"),
	CLI_OPT("version", 'V', NULL, NULL),
	CLI_OPT_END,
};

static const struct cli_cmd send_cli = {
	.name = "xrx-send",
	.version = XRX_VERSION,
	.usage = "usage: xrx-send -i IFACE --dmac MAC [options]\n"
		 "Send a pcap (--pcap FILE) or generated TCP/UDP segment trains with AF_PACKET.\n",
	.opts = opts,
	.width = 22,
	.footer = "Exit: 0 sent, 1 runtime failure, 2 bad usage.\n",
	.on_error = CLI_ERR_HELP,
};

static int open_socket(const struct opts *o, int *ifindex, __u8 *mac)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct ifreq ifr = { 0 };
	int fd, one = 1;

	*ifindex = (int)if_nametoindex(o->ifname);
	if (!*ifindex) {
		fprintf(stderr, "xrx-send: no interface %s in this network namespace\n",
			o->ifname);
		return -ENODEV;
	}
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "xrx-send: AF_PACKET socket: %s (needs CAP_NET_RAW)\n",
			strerror(errno));
		return -errno;
	}
	/* Straight to the driver: no qdisc in the way of a burst. */
	if (!o->qdisc &&
	    setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)))
		fprintf(stderr, "xrx-send: %s: PACKET_QDISC_BYPASS: %s; sending through the qdisc\n",
			o->ifname, strerror(errno));
	sll.sll_ifindex = *ifindex;
	sll.sll_protocol = 0;	/* send only: receive nothing */
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "xrx-send: bind to %s: %s\n", o->ifname,
			strerror(errno));
		close(fd);
		return -errno;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", o->ifname);
	if (!ioctl(fd, SIOCGIFHWADDR, &ifr))
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return fd;
}

int main(int argc, char **argv)
{
	struct opts o = {
		.proto = IPPROTO_TCP, .sport = 40000, .dport = 5001,
		.flows = 1, .segs = 20, .mss = 1448, .trains = 1,
		.batch = 64, .repeat = 1, .seed = 1,
	};
	const char *src = "198.18.0.1", *dst = "198.18.0.2";
	struct sender s = { .o = &o, .fd = -1 };
	int k, ifindex, rc = 1, err;
	struct cli c;
	__u8 mac[6];
	__u32 hl;

	if (cli_init(&c, &send_cli, argc, argv))
		return 2;
	while ((k = cli_next(&c)) > 0) {
		const char *v = c.arg;

		switch (k) {
		case 'i': o.ifname = v; break;
		case OPT_DMAC:
			if (parse_mac(v, o.dmac))
				goto bad;
			o.have_dmac = true;
			break;
		case OPT_SMAC:
			if (parse_mac(v, o.smac))
				goto bad;
			o.have_smac = true;
			break;
		case OPT_PCAP: o.pcap_in = v; break;
		case OPT_REPEAT: o.repeat = strtoul(v, NULL, 0); break;
		case OPT_SRC: src = v; break;
		case OPT_DST: dst = v; break;
		case OPT_UDP: o.proto = IPPROTO_UDP; break;
		case OPT_SPORT: o.sport = strtoul(v, NULL, 0); break;
		case OPT_DPORT: o.dport = strtoul(v, NULL, 0); break;
		case OPT_FLOWS: o.flows = strtoul(v, NULL, 0); break;
		case OPT_SEGS: o.segs = strtoul(v, NULL, 0); break;
		case OPT_MSS: o.mss = strtoul(v, NULL, 0); break;
		case OPT_TRAINS: o.trains = strtoul(v, NULL, 0); break;
		case OPT_INTERLEAVE: o.interleave = true; break;
		case OPT_NO_PSH: o.no_psh = true; break;
		case OPT_REORDER: o.reorder = strtoul(v, NULL, 0); break;
		case OPT_DUP: o.dup = strtoul(v, NULL, 0); break;
		case OPT_LOSS: o.loss = strtoul(v, NULL, 0); break;
		case OPT_MALFORMED: o.malformed = strtoul(v, NULL, 0); break;
		case OPT_SEED: o.seed = strtoul(v, NULL, 0); break;
		case OPT_GAP_US: o.gap_us = strtoul(v, NULL, 0); break;
		case OPT_QDISC: o.qdisc = true; break;
		case 'c': o.count = strtoull(v, NULL, 0); break;
		case 'r': o.rate = strtoull(v, NULL, 0); break;
		case 'b': o.batch = strtoul(v, NULL, 0); break;
		case 'w': o.write = v; break;
		}
	}
	if (k < 0)
		return k == CLI_EXIT_OK ? 0 : 2;
	o.verbose = c.verbosity > 0;
	if (!o.ifname || c.ind != argc) {
		fprintf(stderr, "xrx-send: an interface is needed (-i IFACE)\n");
		goto bad;
	}
	if (!o.pcap_in) {
		if (!o.have_dmac) {
			fprintf(stderr, "xrx-send: generated trains need --dmac (the receiver's MAC)\n");
			goto bad;
		}
		if (parse_addr(src, o.saddr, &o.family) ||
		    parse_addr(dst, o.daddr, &o.family)) {
			fprintf(stderr, "xrx-send: --src/--dst: two IPv4 or two IPv6 addresses\n");
			goto bad;
		}
		hl = 14 + (o.family == 4 ? 20 : 40) + (o.proto == IPPROTO_TCP ? 20 : 8);
		if (!o.flows || !o.segs || !o.trains || !o.mss ||
		    o.mss + hl > FRAME_MAX || o.flows * (__u64)o.segs > 1000000 ||
		    o.reorder > 100 || o.dup > 100 || o.loss > 100 ||
		    o.malformed > 100) {
			fprintf(stderr, "xrx-send: bad train: flows, segs, trains >= 1; mss 1..%u; flows*segs <= 1000000; percentages 0..100\n",
				FRAME_MAX - hl);
			goto bad;
		}
	}
	if (!o.batch || o.batch > BATCH_MAX || !o.repeat) {
		fprintf(stderr, "xrx-send: --batch 1..%d, --repeat >= 1\n", BATCH_MAX);
		goto bad;
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	s.fd = open_socket(&o, &ifindex, o.have_smac ? mac : o.smac);
	if (s.fd < 0)
		return 1;
	s.buf = calloc(BATCH_MAX, sizeof(*s.buf));
	if (!s.buf) {
		fprintf(stderr, "xrx-send: out of memory\n");
		goto out;
	}
	if (o.write) {
		s.wp = pcap_open_dead(DLT_EN10MB, FRAME_MAX);
		s.wd = s.wp ? pcap_dump_open(s.wp, o.write) : NULL;
		if (!s.wd) {
			fprintf(stderr, "xrx-send: cannot write %s: %s\n", o.write,
				s.wp ? pcap_geterr(s.wp) : "pcap_open_dead failed");
			goto out;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &s.start);
	err = o.pcap_in ? run_pcap(&s) : run_trains(&s);
	if (!err)
		err = flush_batch(&s);
	if (o.verbose || err)
		fprintf(stderr, "xrx-send: %s: sent %llu frames, %llu bytes; lost %llu, duplicated %llu, malformed %llu, reordered %llu\n",
			o.ifname, (unsigned long long)s.sent,
			(unsigned long long)s.bytes, (unsigned long long)s.dropped,
			(unsigned long long)s.dups, (unsigned long long)s.malformed,
			(unsigned long long)s.reordered);
	rc = err ? 1 : 0;
out:
	if (s.wd)
		pcap_dump_close(s.wd);
	if (s.wp)
		pcap_close(s.wp);
	free(s.buf);
	close(s.fd);
	return rc;
bad:
	cli_help(&send_cli, stderr);
	return 2;
}
