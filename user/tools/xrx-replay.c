// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrx-replay: run the frames of a pcap file through libxrx's GRO engine
 * and write what it delivers to another pcap file.
 *
 * The frames are laid out in one memory region, as a UMEM holds them, and
 * handed to the same engine and the same pcap sink the live receive path
 * uses, in batches of --batch frames (one batch = one NAPI poll of the
 * kernel: the engine flushes everything it holds at the end of each).
 * Every delivered packet, aggregate or single frame, becomes one record of
 * OUT, assembled with writev() from its head buffer and its payload
 * fragments, in delivery order. This makes the tool both a way to look at
 * what xrx would do with a capture and the conformance interface the
 * tests compare with the kernel's own GRO.
 *
 * OUT is written to a temporary file next to it and renamed at the end, so
 * a failed run leaves no partial OUT behind.
 *
 * --explain (the pcap sink's explain option) writes OUT as pcapng, every
 * packet with a comment that says why GRO ended it, and prints a
 * per-flow summary of those reasons (include/xrx/explain.h): the sink and
 * the summary read pkt->reason, which the engine sets where it decides.
 *
 * --lossless (the pcap sink's lossless option) writes OUT as pcapng with
 * a record of every aggregate's segments, their arrival times those of
 * IN; --split IN.pcapng OUT.pcap turns such a file back into the frames
 * (docs/lossless.md, include/xrx/segrec.h).
 *
 * Exit status: 0 success, 1 runtime failure, 2 bad usage or bad input.
 */
#include <errno.h>
#include <limits.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <xrx/xrx.h>
#include <xrx/sink.h>
#include <xrx/options.h>
#include <xrx/parse.h>

#include "util/cli.h"

#define EXIT_USAGE 2
#define FRAME_ALIGN 64		/* frames start on cache lines, as in a UMEM */
#define FRAME_MAX 65536		/* largest input frame accepted (jumbo) */
#define BATCH_MAX (1u << 20)

struct replay_opts {
	const char *in, *out;
	__u32 batch;
	bool json;
	bool meta;
	/* The engine's and the pcap sink's options, set by the flags the
	 * options table gives them (include/xrx/options.h). */
	struct xrx_engine_opts eng;
	struct xrx_sink_opts sink;
};

struct replay {
	struct xrx_engine *e;
	struct xrx_sink *sink;
	struct xrx_explain *x;	/* --explain */
	int x_err;
	__u8 *region;
	size_t region_size;
	struct xrx_frame *frames;
	struct xrx_meta *metas;	/* --meta: what xrx_rx would write */
	__u8 *released;		/* per frame: times released */
	__u32 nr_frames;
	__u64 in_bytes;
	__u32 truncated;	/* input records shorter than the frame */
	__u64 double_release;
	__u64 bad_release;
};

static void replay_opts_init(struct replay_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->batch = 64;
	o->eng.sz = sizeof(o->eng);
	o->sink.sz = sizeof(o->sink);
	/* Whole records by default, the largest BIG TCP aggregate included.
	 * Debian 12's libpcap (1.10) and Wireshark (4.0) refuse records
	 * above 262144 bytes: --snaplen 262144 writes those truncated, as
	 * a live capture of BIG TCP shows them. */
	o->sink.snaplen = XRX_SNAPLEN_MAX;
}

/* Where the flags of a row of the options table go; NULL: not ours. */
static void *replay_opts_of(struct replay_opts *o, enum xrx_opt_set set)
{
	switch (set) {
	case XRX_OPT_SET_ENGINE:
		return &o->eng;
	case XRX_OPT_SET_SINK:
		return &o->sink;
	default:
		return NULL;
	}
}

/* The --help text of a row of the options table: its bounds and default. */
static void row_help(const struct xrx_opt *t, const void *opts, char *text,
		     size_t size)
{
	char def[32];
	int n, i;

	xrx_opt__format(t, opts, def, sizeof(def));
	if (t->type == XRX_OPT_T_U32 && !strcmp(def, "0"))
		snprintf(def, sizeof(def), "%u", t->def);
	n = snprintf(text, size, "%s", t->help);
	switch (t->type) {
	case XRX_OPT_T_U32:
		snprintf(text + n, size - (size_t)n, ", %u..%u; %s", t->min,
			 t->max, def);
		break;
	case XRX_OPT_T_ENUM:
		for (i = 0; t->words[i] && n < (int)size; i++)
			n += snprintf(text + n, size - (size_t)n, "%s%s",
				      i ? " | " : ": ", t->words[i]);
		if (n < (int)size)
			snprintf(text + n, size - (size_t)n, "; %s", def);
		break;
	case XRX_OPT_T_PORTS:
		snprintf(text + n, size - (size_t)n, ", %u..%u, up to %u",
			 t->min, t->max, t->max_count);
		break;
	default:
		break;
	}
}

/*
 * The command line: xrx-replay's own options around a row for each
 * engine and pcap sink option of libxrx's table, which has its flag,
 * letter, value's name and help (include/xrx/options.h).
 */
enum { OPT_ROW = CLI_KEY };	/* + the row's index, for one without a letter */

struct replay_cli {
	struct cli_cmd cmd;
	struct cli_opt opts[8 + XRX_OPT_MAX];
	char help[XRX_OPT_MAX][128];
};

static void replay_cli_init(struct replay_cli *rc)
{
	static const struct cli_opt before[] = {
		CLI_OPT("batch", 'b', "N",
			"frames per receive batch (flush at its end); 64"),
	};
	static const struct cli_opt after[] = {
		CLI_OPT("meta", 'M', NULL,
			"frames carry xrx_rx's xrx_meta, as on the live path"),
		CLI_OPT("hash-key", 'K', "HEX",
			"flow hash key, 32 hex digits; default: random per run"),
		CLI_OPT("filter", 'F', "EXPR",
			"write only the packets EXPR (tcpdump's syntax) matches"),
		CLI_OPT("json", 'j', NULL,
			"print the engine's and the sink's counters as JSON"),
		CLI_OPT_HELP,
		CLI_OPT_VERSION,
		CLI_OPT_END,
	};
	const struct xrx_opt *t;
	struct replay_opts o;
	size_t n = 0;
	int i;

	replay_opts_init(&o);
	memset(rc, 0, sizeof(*rc));
	memcpy(rc->opts, before, sizeof(before));
	n = sizeof(before) / sizeof(before[0]);
	for (i = 0; (t = xrx_opt__get(i)); i++) {
		if (!t->flag || !replay_opts_of(&o, t->set))
			continue;
		row_help(t, replay_opts_of(&o, t->set), rc->help[i],
			 sizeof(rc->help[i]));
		rc->opts[n++] = (struct cli_opt)CLI_OPT(
			t->flag, t->short_flag ? t->short_flag : OPT_ROW + i,
			t->type == XRX_OPT_T_BOOL ? NULL : t->arg, rc->help[i]);
	}
	memcpy(rc->opts + n, after, sizeof(after));
	rc->cmd = (struct cli_cmd){
		.name = "xrx-replay",
		.version = XRX_VERSION,
		.usage = "Usage: xrx-replay [OPTIONS] IN.pcap OUT.pcap|OUT.pcapng\n"
			 "       xrx-replay --split IN.pcapng OUT.pcap   (a --lossless OUT's frames)\n"
			 "Run IN's frames through xrx's GRO engine; write what it delivers to OUT.\n",
		.opts = rc->opts,
		.width = 21,
		.footer = "Exit: 0 done, 1 runtime failure, 2 bad usage or unreadable input.\n",
		.on_error = CLI_ERR_OWN,
	};
}

/*
 * --hash-key: 32 hex digits, the key's 16 bytes in order (as openssl's
 * SIPHASH hexkey), k[0] from the first eight, little-endian.
 */
static int parse_hash_key(const char *s, struct xrx_hash_key *key)
{
	unsigned int i, v;

	memset(key, 0, sizeof(*key));
	for (i = 0; i < 16 && strlen(s) == 32; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1 ||
		    !strchr("0123456789abcdefABCDEF", s[2 * i]) ||
		    !strchr("0123456789abcdefABCDEF", s[2 * i + 1]))
			break;
		key->k[i / 8] |= (__u64)v << (8 * (i % 8));
	}
	if (i < 16 || xrx_hash_key_unset(key)) {
		fprintf(stderr, "xrx-replay: --hash-key '%s' is not 32 hex digits, not all zero; give e.g. 000102030405060708090a0b0c0d0e0f\n",
			s);
		return -EINVAL;
	}
	return 0;
}

/* The row of the options table whose flag is @k (a key of replay_cli's). */
static const struct xrx_opt *flag_row(int k)
{
	const struct xrx_opt *t;
	int i;

	for (i = 0; (t = xrx_opt__get(i)); i++)
		if (t->flag && (k == OPT_ROW + i || (t->short_flag &&
						     k == t->short_flag)))
			return t;
	return NULL;
}

/* Return: 0, 1 after --help or --version (exit 0), or -EINVAL (said). */
static int parse_args(int argc, char **argv, struct replay_opts *o)
{
	struct replay_cli rc;
	const struct xrx_opt *t;
	char err[256];
	struct cli c;
	int k;

	replay_opts_init(o);
	replay_cli_init(&rc);
	if (cli_init(&c, &rc.cmd, argc, argv))
		return -EINVAL;
	while ((k = cli_next(&c)) > 0) {
		switch (k) {
		case 'b':
			if (xrx_parse_u32(c.arg, 1, BATCH_MAX, &o->batch)) {
				fprintf(stderr, "xrx-replay: --batch %s is not a frame count from 1 to %u; write one in that range\n",
					c.arg, BATCH_MAX);
				return -EINVAL;
			}
			continue;
		case 'M':
			o->meta = true;
			continue;
		case 'K':
			if (parse_hash_key(c.arg, &o->eng.hash_key))
				return -EINVAL;
			continue;
		case 'F':
			o->sink.filter = c.arg;
			continue;
		case 'j':
			o->json = true;
			continue;
		}
		t = flag_row(k);
		/* a flag without a value turns its option on */
		if (t && xrx_opt__parse(t, replay_opts_of(o, t->set),
					t->type == XRX_OPT_T_BOOL ? "on" : c.arg,
					XRX_OPT_FORM_FLAG, err, sizeof(err))) {
			fprintf(stderr, "xrx-replay: %s\n", err);
			return -EINVAL;
		}
	}
	if (k < 0)
		return k == CLI_EXIT_OK ? 1 : -EINVAL;
	if (argc - c.ind != 2) {
		fprintf(stderr, "xrx-replay: expected IN.pcap and OUT.pcap, got %d file name(s); see --help\n",
			argc - c.ind);
		return -EINVAL;
	}
	o->in = argv[c.ind];
	o->out = argv[c.ind + 1];
	return 0;
}

/*
 * Read every frame of @path into one anonymous mapping, each at a
 * FRAME_ALIGN boundary. Two passes over the file: sizes, then bytes.
 * Return: 0, or -EINVAL with a message naming the file printed.
 */
static int load_pcap(struct replay *r, const char *path)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	size_t need = 0, off = 0;
	__u32 n = 0, i = 0;
	pcap_t *p;
	int ret, pass;

	for (pass = 0; pass < 2; pass++) {
		p = pcap_open_offline_with_tstamp_precision(
			path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
		if (!p) {
			fprintf(stderr, "xrx-replay: %s: %s; give a readable pcap or pcapng file (tcpdump -w)\n",
				path, errbuf);
			return -EINVAL;
		}
		if (pcap_datalink(p) != DLT_EN10MB) {
			fprintf(stderr, "xrx-replay: %s: link type %s, not Ethernet; capture on an Ethernet interface (not 'any')\n",
				path,
				pcap_datalink_val_to_name(pcap_datalink(p)) ?: "unknown");
			pcap_close(p);
			return -EINVAL;
		}
		while ((ret = pcap_next_ex(p, &h, &data)) == 1) {
			if (h->caplen > FRAME_MAX) {
				fprintf(stderr, "xrx-replay: %s: frame %u is %u bytes, more than %u; split it or capture with a smaller MTU\n",
					path, i + 1, h->caplen, FRAME_MAX);
				pcap_close(p);
				return -EINVAL;
			}
			/* An empty record still gets its own address. */
			if (pass == 0) {
				need += ((h->caplen ?: 1) + FRAME_ALIGN - 1) &
					~(size_t)(FRAME_ALIGN - 1);
				n++;
				continue;
			}
			if (i == n)	/* the file grew between passes */
				break;
			memcpy(r->region + off, data, h->caplen);
			r->frames[i].addr = off;
			r->frames[i].len = h->caplen;
			/* its time in IN travels with it into the packet */
			r->frames[i].ts_ns =
				(__u64)h->ts.tv_sec * 1000000000ull +
				(__u64)h->ts.tv_usec;	/* ns: NANO */
			r->in_bytes += h->caplen;
			if (h->caplen < h->len)
				r->truncated++;
			off += ((h->caplen ?: 1) + FRAME_ALIGN - 1) &
			       ~(size_t)(FRAME_ALIGN - 1);
			i++;
		}
		if (ret == -1) {
			fprintf(stderr, "xrx-replay: %s: %s; the file is damaged or truncated, capture it again\n",
				path, pcap_geterr(p));
			pcap_close(p);
			return -EINVAL;
		}
		pcap_close(p);
		if (pass == 0) {
			r->region_size = need ? need : FRAME_ALIGN;
			r->region = mmap(NULL, r->region_size,
					 PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (r->region == MAP_FAILED) {
				r->region = NULL;
				fprintf(stderr, "xrx-replay: %s: no memory for %zu bytes of frames\n",
					path, need);
				return -ENOMEM;
			}
			r->frames = calloc(n ? n : 1, sizeof(*r->frames));
			r->released = calloc(n ? n : 1, 1);
			r->metas = calloc(n ? n : 1, sizeof(*r->metas));
			if (!r->frames || !r->released || !r->metas) {
				fprintf(stderr, "xrx-replay: %s: no memory for %u frames\n",
					path, n);
				return -ENOMEM;
			}
		}
	}
	r->nr_frames = i;
	return 0;
}

static void on_deliver(void *ctx, struct xrx_pkt *pkt)
{
	struct replay *r = ctx;

	if (r->x && !r->x_err)
		r->x_err = xrx_explain__add(r->x, pkt);
	/* The sink owns the packet now and gives it back through
	 * on_sink_release() once it is written. */
	xrx_sink__deliver(r->sink, pkt);
}

static void on_sink_release(void *ctx, struct xrx_pkt *pkt)
{
	struct replay *r = ctx;

	xrx_pkt__release(r->e, pkt);
}

/*
 * The engine no longer references the frame at @addr. Frames are laid
 * out in address order, so the index is found by binary search; each
 * must come back exactly once (include/xrx/engine.h, Ownership).
 */
static __u32 frame_index(const struct replay *r, __u64 addr)
{
	__u32 lo = 0, hi = r->nr_frames;

	while (lo < hi) {
		__u32 mid = lo + (hi - lo) / 2;

		if (r->frames[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void on_release_frame(void *ctx, __u64 addr)
{
	struct replay *r = ctx;
	__u32 lo = frame_index(r, addr);

	if (lo == r->nr_frames || r->frames[lo].addr != addr) {
		r->bad_release++;
		return;
	}
	if (r->released[lo]++)
		r->double_release++;
}

/* A temporary file in OUT's directory: rename() then replaces OUT atomically. */
static int make_tmp(const char *out, char *tmp, size_t sz)
{
	const char *slash = strrchr(out, '/');
	mode_t mask;
	int n, fd;

	if (slash)
		n = snprintf(tmp, sz, "%.*s/.%s.XXXXXX", (int)(slash - out),
			     out, slash + 1);
	else
		n = snprintf(tmp, sz, ".%s.XXXXXX", out);
	if (n < 0 || (size_t)n >= sz)
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	/* mkstemp() makes it 0600; OUT gets what a plain creat() gives. */
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	close(fd);
	return 0;
}

static void print_json(const struct replay *r, const struct replay_opts *o)
{
	__u64 ev[XRX_ENGINE_STAT_MAX], sv[XRX_SINK_STAT_MAX];
	int i;

	xrx_engine__stats(r->e, ev);
	xrx_sink__stats(r->sink, sv);
	printf("{\"input\": {\"file\": \"");
	for (i = 0; o->in[i]; i++) {
		unsigned char ch = o->in[i];

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	printf("\", \"frames\": %u, \"bytes\": %llu, \"truncated\": %u},\n",
	       r->nr_frames, (unsigned long long)r->in_bytes, r->truncated);
	printf(" \"engine\": {");
	for (i = 0; i < XRX_ENGINE_STAT_MAX; i++)
		printf("%s\"%s\": %llu", i ? ", " : "",
		       xrx_engine_stat__name(i), (unsigned long long)ev[i]);
	printf("},\n \"sink\": {");
	for (i = 0; i < XRX_SINK_STAT_MAX; i++)
		printf("%s\"%s\": %llu", i ? ", " : "",
		       xrx_sink_stat__name(i), (unsigned long long)sv[i]);
	printf("}");
	if (r->x) {
		printf(",\n \"explain\": ");
		xrx_explain__print(r->x, stdout, true);
	}
	printf("}\n");
}

/*
 * --split: the frames of a lossless capture (--lossless, or a pcap sink
 * with ",lossless") back as they arrived: each Enhanced Packet Block with
 * a segment record (include/xrx/segrec.h) becomes its segments, every
 * other one its packet, all in the order of the file, written as a
 * nanosecond pcap file. Blocks this reader does not know are skipped, as
 * any pcapng reader does.
 */
#define PCAPNG_SHB 0x0a0d0d0a
#define PCAPNG_IDB 0x00000001
#define PCAPNG_EPB 0x00000006
#define PCAPNG_BOM 0x1a2b3c4d

/*
 * The engine delivers a frame it does not hold (a bad checksum, a cut
 * frame) ahead of the aggregate of its flow it still holds, as the kernel
 * does: in the file such a frame comes before segments that arrived
 * earlier. The split puts the frames back in the order of their arrival
 * times (equal times: the file's order), through a heap of the last
 * SPLIT_WINDOW frames: an aggregate is held at most a batch or a flush
 * timeout, far fewer frames than that.
 */
#define SPLIT_WINDOW 16384

struct split_frame {
	__u64 ts, nr;			/* arrival time; place in the file */
	__u32 cap, len;
	__u8 data[];
};

/* Interfaces a file may describe: xrx writes one per queue. */
#define SPLIT_IFS_MAX 1024

struct split {
	FILE *out;
	__u32 snaplen;
	__u32 nr_ifs;
	__u8 tsresol[SPLIT_IFS_MAX];	/* each interface's: 6 or 9 */
	__u64 frames;
	struct split_frame **heap;	/* min-heap by (ts, nr) */
	__u32 nr_heap;
};

static bool split_before(const struct split_frame *a,
			 const struct split_frame *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->nr < b->nr);
}

/* Write the earliest frame held. Return: 0 or -EIO. */
static int split_pop(struct split *sp)
{
	struct split_frame *f = sp->heap[0], *t;
	__u32 i = 0, c, rec[4] = { (__u32)(f->ts / 1000000000),
				   (__u32)(f->ts % 1000000000), f->cap,
				   f->len };
	int ret = 0;

	if (fwrite(rec, sizeof(rec), 1, sp->out) != 1 ||
	    fwrite(f->data, 1, f->cap, sp->out) != f->cap)
		ret = -EIO;
	free(f);
	sp->heap[0] = sp->heap[--sp->nr_heap];
	for (;;) {
		c = 2 * i + 1;
		if (c >= sp->nr_heap)
			break;
		if (c + 1 < sp->nr_heap &&
		    split_before(sp->heap[c + 1], sp->heap[c]))
			c++;
		if (!split_before(sp->heap[c], sp->heap[i]))
			break;
		t = sp->heap[c];
		sp->heap[c] = sp->heap[i];
		sp->heap[i] = t;
		i = c;
	}
	return ret;
}

static int split_emit(void *ctx, const __u8 *data, __u32 cap, __u32 len,
		      __u64 ts_ns)
{
	struct split *sp = ctx;
	struct split_frame *f, *t;
	__u32 i;

	if (cap > sp->snaplen)
		cap = sp->snaplen;
	if (sp->nr_heap == SPLIT_WINDOW && split_pop(sp))
		return -EIO;
	f = malloc(sizeof(*f) + cap);
	if (!f)
		return -ENOMEM;
	*f = (struct split_frame){ .ts = ts_ns, .nr = sp->frames++,
				   .cap = cap, .len = len };
	memcpy(f->data, data, cap);
	i = sp->nr_heap++;
	sp->heap[i] = f;
	while (i && split_before(sp->heap[i], sp->heap[(i - 1) / 2])) {
		t = sp->heap[(i - 1) / 2];
		sp->heap[(i - 1) / 2] = sp->heap[i];
		sp->heap[i] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

/* The segment record among the options at @o (@n bytes), or NULL; the
 * time option, with the same code and PEN, is not one. */
static const __u8 *split_find_rec(const __u8 *o, __u32 n, __u32 *len)
{
	__u32 pos = 0, pen;
	__u16 code, olen;

	while (pos + 4 <= n) {
		memcpy(&code, o + pos, 2);
		memcpy(&olen, o + pos + 2, 2);
		if (!code || pos + 4 + olen > n)
			break;
		if (code == XRX_SEGREC_OPT_CODE && olen >= 4) {
			memcpy(&pen, o + pos + 4, 4);
			if (pen == XRX_SEGREC_PEN &&
			    (olen == 4 || o[pos + 8] != XRX_TIME_OPT_KIND)) {
				*len = olen - 4u;
				return o + pos + 8;
			}
		}
		pos += 4 + ((olen + 3u) & ~3u);
	}
	return NULL;
}

static int split_main(int argc, char **argv)
{
	struct split sp = { .snaplen = 262144 };
	__u32 tsresol, hdr[2], blen, cap, len, rlen, blocks = 0, snaplen;
	__u32 file_hdr[6] = { 0xa1b23c4d, 2 | 4 << 16, 0, 0, 262144, 1 };
	const __u8 *rec;
	__u8 *b = NULL;
	bool idb = false;
	FILE *in;
	char tmp[PATH_MAX];
	int ret, status = 1;

	if (argc != 4) {
		fprintf(stderr, "xrx-replay: --split takes IN.pcapng and OUT.pcap, got %d argument(s); see --help\n",
			argc - 2);
		return EXIT_USAGE;
	}
	in = fopen(argv[2], "rb");
	if (!in) {
		fprintf(stderr, "xrx-replay: %s: %s; give a lossless capture (xrx-replay --lossless)\n",
			argv[2], strerror(errno));
		return EXIT_USAGE;
	}
	if (fread(hdr, sizeof(hdr), 1, in) != 1 || hdr[0] != PCAPNG_SHB) {
		fprintf(stderr, "xrx-replay: %s: not pcapng; give a lossless capture (xrx-replay --lossless)\n",
			argv[2]);
		fclose(in);
		return EXIT_USAGE;
	}
	rewind(in);
	sp.heap = calloc(SPLIT_WINDOW, sizeof(*sp.heap));
	if (!sp.heap) {
		fprintf(stderr, "xrx-replay: no memory for --split\n");
		fclose(in);
		return 1;
	}
	ret = make_tmp(argv[3], tmp, sizeof(tmp));
	if (ret || !(sp.out = fopen(tmp, "wb"))) {
		fprintf(stderr, "xrx-replay: %s: cannot create a file next to it: %s; check the directory exists and is writable\n",
			argv[3], strerror(ret ? -ret : errno));
		if (!ret)
			unlink(tmp);
		fclose(in);
		free(sp.heap);
		return EXIT_USAGE;
	}
	while (fread(hdr, sizeof(hdr), 1, in) == 1) {
		blocks++;
		blen = hdr[1];
		if (blen < 12 || blen % 4 || blen > (1u << 26))
			goto bad;
		free(b);
		b = malloc(blen);
		if (!b || fread(b + 8, blen - 8, 1, in) != 1)
			goto bad;
		memcpy(b, hdr, 8);
		if (hdr[0] == PCAPNG_SHB) {
			__u32 bom;

			memcpy(&bom, b + 8, 4);
			if (bom != PCAPNG_BOM) {
				fprintf(stderr, "xrx-replay: %s: written in the other byte order; split it on a host of that order\n",
					argv[2]);
				status = EXIT_USAGE;
				goto out;
			}
			sp.nr_ifs = 0;	/* a section's interfaces are its own */
		} else if (hdr[0] == PCAPNG_IDB) {
			/* one per queue: the same link type, snaplen and
			 * resolution in xrx's files, yet each is read */
			__u32 pos = 16, n = blen - 4;
			__u16 code, olen, lt;

			if (blen < 20)
				goto bad;
			if (sp.nr_ifs == SPLIT_IFS_MAX) {
				fprintf(stderr, "xrx-replay: %s: more than %d interfaces; not a capture xrx wrote\n",
					argv[2], SPLIT_IFS_MAX);
				status = EXIT_USAGE;
				goto out;
			}
			tsresol = 6;
			memcpy(&lt, b + 8, 2);
			memcpy(&snaplen, b + 12, 4);
			if (lt != 1) {
				fprintf(stderr, "xrx-replay: %s: link type %u, not Ethernet\n",
					argv[2], lt);
				status = EXIT_USAGE;
				goto out;
			}
			while (pos + 4 <= n) {
				memcpy(&code, b + pos, 2);
				memcpy(&olen, b + pos + 2, 2);
				if (!code)
					break;
				if (code == 9 && olen == 1)	/* if_tsresol */
					tsresol = b[pos + 4];
				pos += 4 + ((olen + 3u) & ~3u);
			}
			if (tsresol != 6 && tsresol != 9) {
				fprintf(stderr, "xrx-replay: %s: time resolution 10^-%u; --split reads 6 (us) and 9 (ns)\n",
					argv[2], tsresol);
				status = EXIT_USAGE;
				goto out;
			}
			sp.tsresol[sp.nr_ifs++] = (__u8)tsresol;
			if (!snaplen)
				snaplen = 262144;
			/* the output's header: the first interface's
			 * snaplen, the largest if they differ (rewritten
			 * at the end) */
			if (!idb || snaplen > file_hdr[4]) {
				file_hdr[4] = snaplen;
				sp.snaplen = snaplen;
			}
			if (!idb &&
			    fwrite(file_hdr, sizeof(file_hdr), 1, sp.out) != 1)
				goto io;
			idb = true;
		} else if (hdr[0] == PCAPNG_EPB) {
			__u32 if_id, th, tl, opt_off;
			__u64 ts;

			if (!idb || blen < 32)
				goto bad;
			memcpy(&if_id, b + 8, 4);
			memcpy(&th, b + 12, 4);
			memcpy(&tl, b + 16, 4);
			memcpy(&cap, b + 20, 4);
			memcpy(&len, b + 24, 4);
			opt_off = 28 + ((cap + 3u) & ~3u);
			if (if_id >= sp.nr_ifs || cap > len ||
			    opt_off + 4 > blen)
				goto bad;
			ts = (__u64)th << 32 | tl;
			if (sp.tsresol[if_id] == 6)
				ts *= 1000;
			rec = split_find_rec(b + opt_off, blen - 4 - opt_off,
					     &rlen);
			if (rec) {
				ret = xrx_segrec__split(b + 28, cap, len, ts, rec,
							rlen, split_emit, &sp);
				if (ret == -EIO || ret == -ENOMEM)
					goto io;
				if (ret) {
					fprintf(stderr, "xrx-replay: %s: block %u: its segment record does not fit the packet: %s; the file is damaged\n",
						argv[2], blocks, strerror(-ret));
					status = EXIT_USAGE;
					goto out;
				}
			} else if (split_emit(&sp, b + 28, cap, len, ts)) {
				goto io;
			}
		}
	}
	if (ferror(in) || !feof(in))
		goto bad;
	while (sp.nr_heap)
		if (split_pop(&sp))
			goto io;
	if (!idb) {
		fprintf(stderr, "xrx-replay: %s: no interface description block; not a capture xrx wrote\n",
			argv[2]);
		status = EXIT_USAGE;
		goto out;
	}
	if (fseek(sp.out, 0, SEEK_SET) ||
	    fwrite(file_hdr, sizeof(file_hdr), 1, sp.out) != 1)
		goto io;
	if (fclose(sp.out)) {
		sp.out = NULL;
		goto io;
	}
	sp.out = NULL;
	if (rename(tmp, argv[3])) {
		fprintf(stderr, "xrx-replay: %s: cannot rename %s to it: %s\n",
			argv[3], tmp, strerror(errno));
		goto out;
	}
	status = 0;
	goto out;
bad:
	fprintf(stderr, "xrx-replay: %s: block %u is damaged or cut short; the file is not whole\n",
		argv[2], blocks);
	status = EXIT_USAGE;
	goto out;
io:
	fprintf(stderr, "xrx-replay: %s: write failed: %s; check the disk\n",
		argv[3], strerror(errno));
out:
	if (sp.out)
		fclose(sp.out);
	if (status)
		unlink(tmp);
	fclose(in);
	free(b);
	while (sp.nr_heap)
		free(sp.heap[--sp.nr_heap]);
	free(sp.heap);
	return status;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Return: 0, or 1 (runtime failure, message printed). */
static int replay_run(struct replay *r, const struct replay_opts *o)
{
	__u64 sv[XRX_SINK_STAT_MAX];
	__u32 i, n, missing = 0;
	int ret;

	for (i = 0; o->meta && i < r->nr_frames; i++) {
		struct xrx_parsed p;

		/* xrx_rx writes metadata only for a frame parsed to L4, its
		 * hash keyed as the engine's */
		n = r->frames[i].len;
		xrx_parse(r->region + r->frames[i].addr,
			  n < XRX_PARSE_WINDOW ? n : XRX_PARSE_WINDOW, n, &p,
			  &o->eng.hash_key);
		if (p.result != XRX_PARSE_L4)
			continue;
		xrx_meta_fill(&r->metas[i], &p);
		r->frames[i].meta = &r->metas[i];
	}
	for (i = 0; i < r->nr_frames; i += n) {
		n = r->nr_frames - i < o->batch ? r->nr_frames - i : o->batch;
		ret = xrx_engine__rx(r->e, r->frames + i, n, now_ns());
		if (ret < 0) {
			fprintf(stderr, "xrx-replay: %s: the engine refused frames %u..%u: %s\n",
				o->in, i + 1, i + n, strerror(-ret));
			return 1;
		}
		ret = xrx_sink__flush(r->sink);
		if (ret < 0) {
			fprintf(stderr, "xrx-replay: %s: write failed: %s; check the disk\n",
				o->out, strerror(-ret));
			return 1;
		}
	}
	xrx_engine__flush_all(r->e);
	ret = xrx_sink__flush(r->sink);
	if (ret < 0) {
		fprintf(stderr, "xrx-replay: %s: write failed: %s; check the disk\n",
			o->out, strerror(-ret));
		return 1;
	}
	xrx_sink__stats(r->sink, sv);
	if (sv[XRX_SINK_STAT_ERRORS] || sv[XRX_SINK_STAT_DROPPED]) {
		fprintf(stderr, "xrx-replay: %s: %llu packet(s) not written (%llu errors, %llu dropped)\n",
			o->out,
			(unsigned long long)(sv[XRX_SINK_STAT_ERRORS] +
					     sv[XRX_SINK_STAT_DROPPED]),
			(unsigned long long)sv[XRX_SINK_STAT_ERRORS],
			(unsigned long long)sv[XRX_SINK_STAT_DROPPED]);
		return 1;
	}
	if (r->x_err) {
		fprintf(stderr, "xrx-replay: --explain: %s\n", strerror(-r->x_err));
		return 1;
	}
	for (i = 0; i < r->nr_frames; i++)
		missing += !r->released[i];
	if (missing || r->double_release || r->bad_release) {
		fprintf(stderr, "xrx-replay: engine frame accounting broken: %u not released, %llu twice, %llu unknown\n",
			missing, (unsigned long long)r->double_release,
			(unsigned long long)r->bad_release);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct replay_opts o;
	struct replay r = { 0 };
	char tmp[PATH_MAX], spec[PATH_MAX + 8];
	bool tmp_made = false;
	int ret, status = 1;

	if (argc > 1 && !strcmp(argv[1], "--split"))
		return split_main(argc, argv);
	ret = parse_args(argc, argv, &o);
	if (ret > 0)
		return 0;	/* --help, --version */
	if (ret < 0)
		return EXIT_USAGE;
	if (o.sink.lossless && o.eng.copy != XRX_COPY_HEADER) {
		fprintf(stderr, "xrx-replay: --lossless records the segments the engine keeps in place: it needs --copy header\n");
		return EXIT_USAGE;
	}

	if (load_pcap(&r, o.in)) {
		status = EXIT_USAGE;
		goto out;
	}

	ret = make_tmp(o.out, tmp, sizeof(tmp));
	if (ret) {
		fprintf(stderr, "xrx-replay: %s: cannot create a file next to it: %s; check the directory exists and is writable\n",
			o.out, strerror(-ret));
		status = EXIT_USAGE;
		goto out;
	}
	tmp_made = true;
	snprintf(spec, sizeof(spec), "pcap:%s", tmp);
	/* what an explanation names as the size limit */
	o.sink.max_aggregate = o.eng.max_aggregate ? o.eng.max_aggregate :
						     XRX_AGGREGATE_DEFAULT;
	r.sink = xrx_sink__open(spec, &o.sink);
	if (!r.sink && errno == EINVAL && o.sink.filter) {
		/* the sink said what libpcap refused */
		status = EXIT_USAGE;
		goto out;
	}
	if (!r.sink) {
		fprintf(stderr, "xrx-replay: %s: cannot open for writing: %s\n",
			tmp, strerror(errno));
		goto out;
	}
	xrx_sink__bind(r.sink, on_sink_release, &r);
	if (o.sink.explain &&
	    !(r.x = xrx_explain__new(o.sink.max_aggregate))) {
		fprintf(stderr, "xrx-replay: no memory for --explain\n");
		goto out;
	}

	/* The engine would draw its own; --meta must hash as it does. */
	if (xrx_hash_key_unset(&o.eng.hash_key)) {
		ret = xrx_hash_key_new(&o.eng.hash_key);
		if (ret) {
			fprintf(stderr, "xrx-replay: no random flow hash key: %s; give one with --hash-key\n",
				strerror(-ret));
			goto out;
		}
	}
	o.eng.region = r.region;
	o.eng.region_size = r.region_size;
	o.eng.deliver = on_deliver;
	o.eng.release_frame = on_release_frame;
	o.eng.ctx = &r;
	r.e = xrx_engine__new(&o.eng);
	if (!r.e) {
		fprintf(stderr, "xrx-replay: engine options refused: %s; see --help for the ranges\n",
			strerror(errno));
		status = EXIT_USAGE;
		goto out;
	}

	status = replay_run(&r, &o);
	if (status)
		goto out;
	if (o.json)
		print_json(&r, &o);
	else if (r.x)
		xrx_explain__print(r.x, stdout, false);
	/* Packets go back to the engine on close: close before free. */
	xrx_sink__close(r.sink);
	r.sink = NULL;
	if (rename(tmp, o.out)) {
		fprintf(stderr, "xrx-replay: %s: cannot rename %s to it: %s\n",
			o.out, tmp, strerror(errno));
		status = 1;
		goto out;
	}
	tmp_made = false;
	status = 0;
out:
	xrx_sink__close(r.sink);
	xrx_engine__free(r.e);
	xrx_explain__free(r.x);
	if (tmp_made)
		unlink(tmp);
	free(r.frames);
	free(r.metas);
	free(r.released);
	if (r.region)
		munmap(r.region, r.region_size);
	return status;
}
