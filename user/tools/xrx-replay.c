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
			 "Run IN's frames through xrx's GRO engine; write what it delivers to OUT.\n"
			 "\n",
		.opts = rc->opts,
		.width = 21,
		.footer = "\nExit status: 0 done, 1 runtime failure, 2 bad usage or unreadable input.\n",
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
		p = pcap_open_offline(path, errbuf);
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
static void on_release_frame(void *ctx, __u64 addr)
{
	struct replay *r = ctx;
	__u32 lo = 0, hi = r->nr_frames;

	while (lo < hi) {
		__u32 mid = lo + (hi - lo) / 2;

		if (r->frames[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
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

	ret = parse_args(argc, argv, &o);
	if (ret > 0)
		return 0;	/* --help, --version */
	if (ret < 0)
		return EXIT_USAGE;

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
