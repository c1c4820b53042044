/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Sinks: where delivered packets (struct xrx_pkt, include/xrx/engine.h) go.
 *
 *   "null"          count and release (benchmarks)
 *   "pcap:PATH[,size=N][,files=N][,snaplen=N][,explain]"
 *                   write every packet to a pcap file or FIFO (writev of
 *                   head + frags: no payload copy); size= rotates the file
 *                   before it passes N bytes (suffix K, M, G: KiB, MiB,
 *                   GiB), keeping files= files in all (PATH, PATH.1, ...;
 *                   default 9), like tcpdump -C/-W; snaplen= bytes kept
 *                   per packet; explain writes pcapng instead, each
 *                   packet with a comment that says why GRO ended it
 *                   (include/xrx/explain.h); format=pcap|pcapng
 *                   (nanosecond pcap, or pcapng with an interface per
 *                   queue); perqueue (PATH.qN per queue instead of one
 *                   file in time order); rotate=SECONDS (strftime names),
 *                   compress=zstd, hook=PROGRAM on each closed file.
 *                   Options in the spec override opts.
 *   "tun:NAME"      inject into the kernel stack through a TUN device with
 *                   a virtio_net_hdr carrying the GSO information
 *   "tap:NAME"      the same at L2 through a TAP device: MAC addresses and
 *                   VLAN tags kept (a stripped tag put back)
 *
 *   struct xrx_sink_opts so = { .sz = sizeof(so), .snaplen = 128 };
 *   struct xrx_sink *s = xrx_sink__open("pcap:/tmp/rx.pcap", &so);
 *   xrx_sink__bind(s, release_cb, ctx);	// who gets packets back
 *   ... per delivered packet:   xrx_sink__deliver(s, pkt);
 *   ... at the end of a batch:  xrx_sink__flush(s);
 *   xrx_sink__close(s);
 *
 * Ownership. xrx_sink__deliver() hands the packet to the sink: from then
 * on the sink owns it and must give it back exactly once, with
 * xrx_sink__release(), either before deliver returns (null, pcap: the
 * bytes are written synchronously) or later (a sink that queues packets,
 * e.g. for a batched write), at the latest in flush() or close(). A
 * deliver that fails still releases the packet (and counts an error).
 * Release goes to the callback given to xrx_sink__bind(); the live
 * receive path (include/xrx/live.h) binds it to xrx_pkt__release() on the
 * worker's engine. An unbound sink releases nothing (tests that build
 * packets by hand).
 *
 * Threading. A sink instance is used by one thread, like an engine. The
 * live path opens one instance per worker (queue) from the same spec and
 * tells the sink which one it is in opts->queue / opts->nr_queues: the
 * pcap sink then merges them into one file (PATH.qN with perqueue),
 * the tun sink may open one queue of a multi-queue TUN device per worker.
 *
 * Writing a sink: fill a struct xrx_sink_ops, keep private state in
 * s->priv (allocated in open(), freed in close()), and count with
 * xrx_sink__count(). Built-in sinks are found by the prefix of the spec
 * (everything before the first ':'); others can be added with
 * xrx_sink__register(). The ops also describe the kind to those that
 * hold a spec before anything opens it (xrxd's config and --check-config,
 * the live path): check() is the kind's spec parser, which
 * xrx_sink__open() runs before open(), so a spec that passes a check
 * opens; flags say what the kind does with the traffic; usage names the
 * spec in messages; coalesce_usec picks a worker's nap (xrx_live_opts).
 * A registered kind is then a sink of xrx.conf's sink = and tee = like
 * the built-in ones.
 */
#ifndef XRX_SINK_H
#define XRX_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <xrx/types.h>

struct xrx_pkt;

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Sink counters. X(enumerator suffix, name, description)
 * Every packet given to deliver() is counted in pkts_in, and then either
 * in pkts_out (written/injected whole or truncated to snaplen), in
 * filtered (a pcap sink's filter= left it out), or in errors or dropped.
 */
#define XRX_SINK_STATS_TABLE(X)                                                \
	X(PKTS_IN, "pkts_in", "packets given to the sink")                    \
	X(BYTES_IN, "bytes_in", "bytes of those packets")                     \
	X(PKTS_OUT, "pkts_out", "packets written or injected")                \
	X(BYTES_OUT, "bytes_out", "bytes written or injected (with headers)") \
	X(ERRORS, "errors", "packets lost to a write/inject error")           \
	X(NOSPACE, "nospace",                                                  \
	  "of the errors: lost to a full file system (ENOSPC, EDQUOT; pcap)")  \
	X(DROPPED, "dropped", "packets dropped by the sink (full, too big)")  \
	X(FLUSHES, "flushes", "flush calls (batch ends)")                     \
	X(ROTATIONS, "rotations", "output files rotated (pcap)")           \
	X(HANDOFF_FULL, "handoff_full",                                        \
	  "of the dropped: the one-file writer was behind, its hand-off full (pcap)") \
	X(COMPRESS_ERRORS, "compress_errors",                                  \
	  "closed files left uncompressed: compress= failed (pcap)")          \
	X(HOOK_ERRORS, "hook_errors",                                          \
	  "closed files whose hook= failed to run or exited non-zero (pcap)") \
	X(TNL_WHOLE, "tunnel_whole",                                           \
	  "VXLAN aggregates written whole, GSO over a UDP tunnel (tap)")       \
	X(TNL_SEGMENTED, "tunnel_segmented",                                   \
	  "VXLAN aggregates written as their segments (tun, tap)")            \
	X(TNL_SEG_WRITES, "tunnel_segment_writes",                             \
	  "VXLAN packets written for those segmented aggregates")             \
	X(BIG_WHOLE, "big_whole",                                              \
	  "aggregates too long for the IP length field written whole (tun, tap)") \
	X(JUMBO_WRITES, "jumbo_writes",                                        \
	  "IPv6 ones of them with the hop-by-hop jumbo option inserted")       \
	X(BIG_SPLIT, "big_split",                                              \
	  "aggregates too long for the IP length field written in pieces")    \
	X(FILTERED, "filtered",                                                \
	  "packets filter= did not match, not written (pcap; not a loss)")    \
	X(SEGS_IN, "segs_in",                                                  \
	  "segments (frames) of the packets given to the sink")               \
	X(SEGS_OUT, "segs_out",                                                \
	  "segments of the packets written (pcap), for the loss ledger")       \
	X(SEGS_FILTERED, "segs_filtered",                                      \
	  "segments of the packets filter= did not match (pcap)")

enum xrx_sink_stat {
#define XRX_X_ENUM(e, n, d) XRX_SINK_STAT_##e,
	XRX_SINK_STATS_TABLE(XRX_X_ENUM)
#undef XRX_X_ENUM
	XRX_SINK_STAT_MAX
};

/*
 * tun/tap: an IPv6 TCP aggregate above 65535 bytes of payload (BIG TCP)
 * arrives with payload_len 0 (xrx_engine_opts.ipv6_jumbo's default form).
 * Linux 6.x takes it into the stack only with a hop-by-hop jumbo option
 * (ip6_rcv_core()); Linux 7.0 takes it as it is.
 */
enum xrx_tun_ipv6_jumbo {
	XRX_TUN_IPV6_JUMBO_AUTO = 0,	/* hbh on kernels before 7.0, else
					 * zero (uname) */
	XRX_TUN_IPV6_JUMBO_HBH,		/* whole, the sink inserting the
					 * 8-byte option in the write */
	XRX_TUN_IPV6_JUMBO_ZERO,	/* whole, as it is */
	XRX_TUN_IPV6_JUMBO_SPLIT,	/* in GSO pieces of at most 64 KiB */
};

/* Bounds of snaplen (include/xrx/options.h). */
#define XRX_SNAPLEN_MIN 64		/* Ethernet + IPv6 + TCP headers */
#define XRX_SNAPLEN_DEFAULT 262144	/* libpcap's MAXIMUM_SNAPLEN */
#define XRX_SNAPLEN_MAX 524792		/* the longest packet: a BIG TCP
					 * aggregate (XRX_AGGREGATE_MAX from
					 * the network header) and its L2 */

struct xrx_sink_opts {
	size_t sz;			/* sizeof(struct xrx_sink_opts) */
	__u32 queue;			/* which worker opens this instance */
	__u32 nr_queues;		/* workers in all; 0 means 1 */
	/* pcap */
	__u32 snaplen;			/* bytes kept per packet; 0: 262144 */
	__u32 rotate_count;		/* files kept when rotating; 0: 8 */
	__u64 rotate_bytes;		/* rotate PATH -> PATH.1 -> ... when a
					 * file would exceed it; 0: never */
	bool nanosecond;		/* pcap: nanosecond timestamps */
	/* tun */
	bool tun_no_gso;		/* tun: write aggregates as segments
					 * (default: GSO via virtio_net_hdr) */
	__u32 tun_flags;		/* tun: sink-specific, zero */
	/* tun/tap: how IPv6 TCP aggregates above 64 KiB go in */
	enum xrx_tun_ipv6_jumbo tun_ipv6_jumbo;
	/* The writer must never wait for a reader (the live path's tee,
	 * include/xrx/live.h): pcap refuses a FIFO, whose reader could hold
	 * every write up. */
	bool no_wait;
	/* pcap: pcapng, every packet with an opt_comment saying why it
	 * ended (xrx_pkt__explain()), as tshark's frame.comment shows */
	bool explain;
	__u32 max_aggregate;		/* pcap explain: the engine's, named
					 * in size-limit comments; 0: not
					 * named */
	/* pcap: write only the packets this expression in tcpdump's
	 * syntax (pcap-filter(7)) matches; NULL or "": all. Read by open
	 * only; a spec's filter= overrides it. */
	const char *filter;
	/* pcap: pcapng, every aggregate with a record of its segments
	 * (include/xrx/segrec.h, docs/lossless.md) from which
	 * xrx-replay --split rebuilds the frames. Packets must come
	 * straight from an engine in copy = header; a tee (sink/tee.c)
	 * makes the records on its worker and hands them over. */
	bool lossless;
};

struct xrx_sink;

/*
 * What a sink kind does with the traffic (xrx_sink_ops.flags).
 *   STACK     delivers it into the kernel stack, which takes the GSO
 *             aggregates as CHECKSUM_PARTIAL and never verifies them
 *             again (xrxd asks for a key before csum = trust)
 *   CONSUMES  the traffic ends in it: what the rules steer to it never
 *             reaches the host stack (xrxd says so at start)
 *   FILES     writes the file whose path check() puts in @out (xrxd
 *             asks for an absolute path and looks at its directory)
 *   NETDEV    attaches to, or creates, the TUN/TAP device whose name
 *             check() puts in @out, with ethtool bus_info the kind's
 *             name (xrxd checks an existing device is one)
 */
#define XRX_SINK_F_STACK (1u << 0)
#define XRX_SINK_F_CONSUMES (1u << 1)
#define XRX_SINK_F_FILES (1u << 2)
#define XRX_SINK_F_NETDEV (1u << 3)

struct xrx_sink_ops {
	/* The spec prefix: "null", "pcap", "tun". */
	const char *name;
	/*
	 * @arg: the spec after "NAME:" ("" if there is none). Set up
	 * s->priv. Return: 0 or a negative errno; close() is not called
	 * after a failed open().
	 */
	int (*open)(struct xrx_sink *s, const char *arg,
		    const struct xrx_sink_opts *opts);
	/*
	 * Take one packet; release it with xrx_sink__release() now or
	 * later (see Ownership above). Return: 0 or a negative errno (the
	 * packet was still released and counted in errors or dropped).
	 */
	int (*deliver)(struct xrx_sink *s, struct xrx_pkt *pkt);
	/* End of a receive batch: push out and release what is queued.
	 * May be NULL. Return: 0 or a negative errno. */
	int (*flush)(struct xrx_sink *s);
	/* Flush, release everything still held, free s->priv. May be NULL. */
	void (*close)(struct xrx_sink *s);
	/*
	 * The kind's spec parser: check @arg (as open() gets it) with
	 * @opts, opening and creating nothing. xrx_sink__open() runs it
	 * before open(), so a spec it passes is one open() takes. @out
	 * (@outlen bytes) gets the output @arg names: the path (FILES),
	 * the device (NETDEV), else anything two specs of one output
	 * share, or "" (never the same output as another spec).
	 * Return: 0, or a negative errno with one line in @err that
	 * starts with the spec and says what to write instead. May be
	 * NULL: every @arg is taken.
	 */
	int (*check)(const char *arg, const struct xrx_sink_opts *opts,
		     char *out, size_t outlen, char *err, size_t errlen);
	unsigned int flags;		/* XRX_SINK_F_* */
	/* The spec in messages ("tun:NAME"); NULL: the name. */
	const char *usage;
	/*
	 * A worker's longest nap after a batch when coalesce_usec is
	 * unset (include/xrx/live.h); 0: XRX_LIVE_COALESCE_USEC_DEFAULT,
	 * for a kind a peer may wait on (an ACK, a reply).
	 */
	__u32 coalesce_usec;
	/*
	 * Arrival order (the pcap sink's one-file writer orders records by
	 * arrival time with it; may be NULL). begin(s, 0): a receive batch
	 * starts, before its frames' arrival time (xrx_frame.ts_ns) is read;
	 * what it delivers arrived then or later, but for packets held from
	 * before. begin(s, T), right before a flush(): the engine still
	 * holds packets, the earliest arrived at T
	 * (xrx_engine__held_since()); until the next flush() nothing
	 * delivered arrived before T.
	 */
	void (*begin)(struct xrx_sink *s, __u64 held_ns);
};

/* Public so that sinks can live in their own files; users treat it as
 * opaque and use the functions below. */
struct xrx_sink {
	const struct xrx_sink_ops *ops;
	void *priv;				/* the sink's own state */
	void (*release)(void *ctx, struct xrx_pkt *pkt);
	void *release_ctx;
	__u32 queue, nr_queues;
	__u64 stats[XRX_SINK_STAT_MAX];
	char spec[256];				/* as given to open */
};

/*
 * Open a sink from a spec: "null", "pcap:PATH", "tun:NAME", or the name
 * of a registered sink. @opts may be NULL (defaults).
 * Return: the sink, or NULL with errno set (ENOENT: unknown sink name,
 * EINVAL: bad spec or options, or what the sink's open() returned).
 */
XRX_API struct xrx_sink *xrx_sink__open(const char *spec,
					const struct xrx_sink_opts *opts);
/*
 * The pcap sink's argument
 * "PATH[,size=N][,files=N][,snaplen=N][,explain][,filter=EXPR]" (the
 * spec after "pcap:"): PATH into @path, the options into @opts (fields
 * not named stay as they are). filter= comes last and takes the rest of
 * the argument, blanks and commas included; opts->filter then points
 * into @arg, and the expression has been compiled (libpcap's message in
 * @err when it does not). Return: 0, or -EINVAL with one
 * line in @err naming the option and the accepted values (-ENAMETOOLONG:
 * PATH).
 */
XRX_API int xrx_sink_pcap__parse(const char *arg, char *path, size_t pathlen,
				 struct xrx_sink_opts *opts, char *err, size_t errlen);
/* True when the spec's prefix names a built-in or registered sink kind. */
XRX_API bool xrx_sink__known(const char *spec);
/* The kind the spec's prefix names, or NULL. */
XRX_API const struct xrx_sink_ops *xrx_sink__kind(const char *spec);
/*
 * The @i-th kind, built-in ones first, then the registered ones; NULL
 * past the last. For listing the specs in messages.
 */
XRX_API const struct xrx_sink_ops *xrx_sink__kind_at(unsigned int i);
/*
 * Check a spec as xrx_sink__open() would, opening nothing: its kind's
 * check() (xrx_sink_ops). @opts may be NULL (defaults); @out as check()'s.
 * Return: 0, -ENOENT (no such kind), or the check's negative errno;
 * @err holds one line then.
 */
XRX_API int xrx_sink__check(const char *spec, const struct xrx_sink_opts *opts,
			    char *out, size_t outlen, char *err, size_t errlen);
/*
 * Whether two specs that pass xrx_sink__check() name one output: one
 * file (FILES kinds), one device (NETDEV kinds: a TUN and a TAP cannot
 * share a name either), or one output of the same other kind.
 */
XRX_API bool xrx_sink__same_output(const char *a, const char *b);
/* Flush, close and free. NULL is a no-op. */
XRX_API void xrx_sink__close(struct xrx_sink *s);
/*
 * xrx_sink__close(), and the counters as the close left them into vals[]
 * (XRX_SINK_STAT_MAX entries): what a sink writes while it closes (the
 * records a file writer still queued, a writer thread's last pass) is
 * counted then, after any xrx_sink__stats() before the close could see
 * it. Read a sink's final counts so, never before closing it. NULL:
 * vals[] all 0.
 */
XRX_API void xrx_sink__close_stats(struct xrx_sink *s,
				   __u64 vals[XRX_SINK_STAT_MAX]);

/* Where the sink gives packets back (see Ownership). */
XRX_API void xrx_sink__bind(struct xrx_sink *s,
			    void (*release)(void *ctx, struct xrx_pkt *pkt), void *ctx);

/* Hand a packet to the sink. Return: 0 or a negative errno. */
XRX_API int xrx_sink__deliver(struct xrx_sink *s, struct xrx_pkt *pkt);
/* End of batch. Return: 0 or a negative errno. */
XRX_API int xrx_sink__flush(struct xrx_sink *s);

/* For sink implementations: give a packet back to its owner. */
static inline void xrx_sink__release(struct xrx_sink *s, struct xrx_pkt *pkt)
{
	if (s->release)
		s->release(s->release_ctx, pkt);
}

/* For sink implementations: add to a counter. */
static inline void xrx_sink__count(struct xrx_sink *s, enum xrx_sink_stat st,
				   __u64 v)
{
	s->stats[st] += v;
}

/* Copy the counters: vals[] has XRX_SINK_STAT_MAX entries. */
XRX_API void xrx_sink__stats(const struct xrx_sink *s,
			     __u64 vals[XRX_SINK_STAT_MAX]);
/* Name / description of a counter; NULL if out of range. */
XRX_API const char *xrx_sink_stat__name(int stat);
XRX_API const char *xrx_sink_stat__desc(int stat);
/* The sink's kind ("pcap"). */
XRX_API const char *xrx_sink__name(const struct xrx_sink *s);

/*
 * Add a sink kind found by its name as spec prefix. @ops must stay valid
 * for the life of the process; the built-in names cannot be replaced.
 * Return: 0, -EEXIST (name taken), -ENOSPC (table full), -EINVAL.
 */
XRX_API int xrx_sink__register(const struct xrx_sink_ops *ops);

/* The built-in sinks (user/lib/sink_*.c). */
extern const struct xrx_sink_ops xrx_sink_null_ops;
extern const struct xrx_sink_ops xrx_sink_pcap_ops;
extern const struct xrx_sink_ops xrx_sink_tun_ops;	/* user/lib/sink/tun.c */
extern const struct xrx_sink_ops xrx_sink_tap_ops;	/* user/lib/sink/tun.c */

#ifdef __cplusplus
}
#endif

#endif /* XRX_SINK_H */
