/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The options a user sets on libxrx's engine, sinks and live path, in one
 * table: each option once, with its name, type, default, bounds and a line
 * of help. From the table come
 *   - the library's checks of the options structs (0 takes the default,
 *     anything outside the bounds is EINVAL),
 *   - xrxd's config keys (xrx.conf(5): "max_aggregate = 65536"),
 *   - xrx-replay's command-line flags and their --help lines,
 *   - the pcap sink's snaplen= in a sink spec,
 * and the tests hold the man pages and docs/xrx.conf.md to it, so a bound
 * cannot differ between them. The counters do the same with their tables
 * (counters.h); xdp-tools describes a tool's options the same way
 * (struct prog_option, lib/util/params.h).
 *
 *	X(ID, SET, FIELD, KEY, FLAG, SHORT, TYPE, DEF, MIN, MAX, WORDS,
 *	  ARG, UNIT, HELP)
 *
 *   ID     enum xrx_opt_id suffix: XRX_OPT_ID
 *   SET    the struct the option is a field of: ENGINE (xrx_engine_opts),
 *          SINK (xrx_sink_opts), LIVE (xrx_live_opts)
 *   FIELD  the field
 *   KEY    its xrx.conf key, or NULL (not in the config file)
 *   FLAG   its long command-line flag (xrx-replay; "snaplen" and "explain"
 *          are also the pcap sink spec's snaplen= and explain), or NULL;
 *          SHORT its letter or 0
 *   TYPE   U32   a number, MIN..MAX; 0 in the struct takes DEF
 *          BOOL  off | on (a flag without a value sets it)
 *          ENUM  one of WORDS, indexed by the field's enum value
 *          PORTS a list of UDP ports MIN..MAX in the __u16 array FIELD,
 *                counted in nr_FIELD, each once, as many as FIELD holds;
 *                "none" is the empty list, a flag adds one port
 *   ARG    the value's name in --help ("BYTES"); UNIT what a number
 *          counts in messages ("a byte count")
 *   HELP   one line for --help
 *
 * Adding an option: a field in its options struct (at the end: see
 * docs/architecture.md on the options ABI) and one X() line here. The
 * library then checks it, xrxd's config takes KEY, xrx-replay takes FLAG,
 * and the man page test asks for its entry in xrx.conf(5).
 */
#ifndef XRX_OPTIONS_H
#define XRX_OPTIONS_H

#include <stddef.h>
#include <xrx/types.h>
#include <xrx/engine.h>
#include <xrx/sink.h>
/* The LIVE rows' bounds (XRX_LIVE_COALESCE_USEC_*,
 * XRX_LIVE_BUSY_POLL_*, XRX_LIVE_BIND_*) are in xrx/live.h,
 * which includes nothing of this; expand the table where it is included. */

#ifdef __cplusplus
extern "C" {
#endif

/* The words of each option of type ENUM or BOOL, by value. */
#define XRX_OPT_WORDS_ONOFF ((const char *const[]){ "off", "on", NULL })
#define XRX_OPT_WORDS_COPY                                                     \
	((const char *const[]){ [XRX_COPY_HEADER] = "header",                  \
				[XRX_COPY_MAX_HEAD] = "max-head",              \
				[XRX_COPY_FULL] = "full", NULL })
#define XRX_OPT_WORDS_CSUM                                                     \
	((const char *const[]){ [XRX_CSUM_VERIFY] = "verify",                  \
				[XRX_CSUM_TRUST] = "trust", NULL })
#define XRX_OPT_WORDS_CSUM_PARTIAL                                             \
	((const char *const[]){ [XRX_CSUM_PARTIAL_AUTO] = "auto",              \
				[XRX_CSUM_PARTIAL_ACCEPT] = "accept",          \
				[XRX_CSUM_PARTIAL_REFUSE] = "refuse", NULL })
#define XRX_OPT_WORDS_IPV6_JUMBO                                               \
	((const char *const[]){ [XRX_IPV6_JUMBO_ZERO] = "zero",                \
				[XRX_IPV6_JUMBO_HBH] = "hbh", NULL })
/* The field is no_coalesce (zero: on, as every option's zero is its
 * default), so its words read "on" at 0. */
#define XRX_OPT_WORDS_COALESCE ((const char *const[]){ "on", "off", NULL })
#define XRX_OPT_WORDS_BIND                                                     \
	((const char *const[]){ [XRX_LIVE_BIND_AUTO] = "auto",                 \
				[XRX_LIVE_BIND_COPY] = "copy",                 \
				[XRX_LIVE_BIND_ZEROCOPY] = "zero-copy", NULL })
#define XRX_OPT_WORDS_TUN_IPV6_JUMBO                                           \
	((const char *const[]){ [XRX_TUN_IPV6_JUMBO_AUTO] = "auto",            \
				[XRX_TUN_IPV6_JUMBO_HBH] = "hbh",              \
				[XRX_TUN_IPV6_JUMBO_ZERO] = "zero",            \
				[XRX_TUN_IPV6_JUMBO_SPLIT] = "split", NULL })

#define XRX_OPTIONS_TABLE(X)                                                   \
	X(MAX_AGGREGATE, ENGINE, max_aggregate, "max_aggregate", "max-size",   \
	  's', U32, XRX_AGGREGATE_DEFAULT, XRX_AGGREGATE_MIN,                  \
	  XRX_AGGREGATE_MAX, NULL, "BYTES", "a byte count",                    \
	  "largest aggregate (gro_max_size)")                               \
	X(MAX_SEGS, ENGINE, max_segs, "max_segments", "max-segs", 'n', U32,    \
	  XRX_SEGS_DEFAULT, 1, XRX_SEGS_MAX, NULL, "N", "a segment count",     \
	  "segments per aggregate")                                            \
	X(FLUSH_TIMEOUT, ENGINE, flush_timeout_us, "flush_timeout_us", NULL,   \
	  0, U32, 0, 0, XRX_FLUSH_TIMEOUT_MAX, NULL, "USEC", "microseconds",   \
	  "how long aggregates may be held")                                   \
	X(FLOWS, ENGINE, flows, "flows", "flows", 'f', U32, XRX_FLOWS_DEFAULT, \
	  1, XRX_FLOWS_MAX, NULL, "N", "a flow count",                         \
	  "aggregates held at once")                                           \
	X(COPY, ENGINE, copy, "copy", "copy", 'C', ENUM, XRX_COPY_HEADER, 0,   \
	  XRX_COPY_FULL, XRX_OPT_WORDS_COPY, "MODE", NULL,                     \
	  "copied per frame")                                                  \
	X(CSUM, ENGINE, csum, "csum", "csum", 'c', ENUM, XRX_CSUM_VERIFY, 0,   \
	  XRX_CSUM_TRUST, XRX_OPT_WORDS_CSUM, "MODE", NULL, "L4 checksums")    \
	X(CSUM_PARTIAL, ENGINE, csum_partial, "csum_partial", "csum-partial",  \
	  'P', ENUM, XRX_CSUM_PARTIAL_AUTO, 0, XRX_CSUM_PARTIAL_REFUSE,        \
	  XRX_OPT_WORDS_CSUM_PARTIAL, "MODE", NULL,                            \
	  "sums left to TX offload")                                           \
	X(UDP, ENGINE, udp, "udp_gro", "udp", 'u', BOOL, 0, 0, 1,              \
	  XRX_OPT_WORDS_ONOFF, NULL, NULL, "aggregate UDP too (UDP GRO)")      \
	X(VXLAN_PORTS, ENGINE, vxlan_ports, "vxlan_ports", "vxlan-port", 'x',  \
	  PORTS, 0, 1, 65535, NULL, "PORT", "a UDP port",                      \
	  "UDP port carrying VXLAN")                                           \
	X(GENEVE_PORTS, ENGINE, geneve_ports, "geneve_ports", "geneve-port",   \
	  'g', PORTS, 0, 1, 65535, NULL, "PORT", "a UDP port",                 \
	  "UDP port carrying GENEVE")                                          \
	X(IPV6_JUMBO, ENGINE, ipv6_jumbo, NULL, "ipv6-jumbo", 'J', ENUM,       \
	  XRX_IPV6_JUMBO_ZERO, 0, XRX_IPV6_JUMBO_HBH, XRX_OPT_WORDS_IPV6_JUMBO, \
	  "FORM", NULL, "IPv6 BIG TCP form (hbh: Linux 6.x)")          \
	X(TUN_IPV6_JUMBO, SINK, tun_ipv6_jumbo, "tun_ipv6_jumbo", NULL, 0,     \
	  ENUM, XRX_TUN_IPV6_JUMBO_AUTO, 0, XRX_TUN_IPV6_JUMBO_SPLIT,          \
	  XRX_OPT_WORDS_TUN_IPV6_JUMBO, "FORM", NULL,                          \
	  "IPv6 BIG TCP into a TUN or TAP")                                    \
	X(SNAPLEN, SINK, snaplen, NULL, "snaplen", 'S', U32,                   \
	  XRX_SNAPLEN_DEFAULT, XRX_SNAPLEN_MIN, XRX_SNAPLEN_MAX, NULL, "BYTES", \
	  "a byte count", "bytes kept per pcap record")                        \
	X(EXPLAIN, SINK, explain, NULL, "explain", 'e', BOOL, 0, 0, 1,         \
	  XRX_OPT_WORDS_ONOFF, NULL, NULL,                                     \
	  "pcapng saying why each packet ended")                               \
	X(LOSSLESS, SINK, lossless, NULL, "lossless", 'L', BOOL, 0, 0, 1,      \
	  XRX_OPT_WORDS_ONOFF, NULL, NULL,                                     \
	  "pcapng, each packet's segment record")                      \
	X(COALESCE, LIVE, no_coalesce, "coalesce", NULL, 0, BOOL, 0, 0, 1,     \
	  XRX_OPT_WORDS_COALESCE, NULL, NULL,                                  \
	  "sleep when a batch empties the RX ring")                            \
	X(COALESCE_USEC, LIVE, coalesce_usec, "coalesce_us", NULL, 0, U32, 0, \
	  0, XRX_LIVE_COALESCE_USEC_MAX, NULL, "USEC", "microseconds",         \
	  "the longest that sleep is (0: by sink)")                            \
	X(BUSY_POLL, LIVE, busy_poll, "busy_poll", NULL, 0, BOOL, 0, 0, 1,     \
	  XRX_OPT_WORDS_ONOFF, NULL, NULL,                                     \
	  "workers run their queue's NAPI")                                    \
	X(BUSY_POLL_USEC, LIVE, busy_poll_usec, "busy_poll_us", NULL, 0, U32,  \
	  XRX_LIVE_BUSY_POLL_USEC_DEFAULT, 1, XRX_LIVE_BUSY_POLL_USEC_MAX,     \
	  NULL, "USEC", "microseconds",                                        \
	  "polls of an empty ring before poll()")                              \
	X(BUSY_POLL_BUDGET, LIVE, busy_poll_budget, "busy_poll_budget", NULL,  \
	  0, U32, XRX_LIVE_BUSY_POLL_BUDGET_DEFAULT, 1,                        \
	  XRX_LIVE_BUSY_POLL_BUDGET_MAX, NULL, "N", "a frame count",           \
	  "frames per busy poll")                                              \
	X(BIND, LIVE, bind, "bind", NULL, 0, ENUM, XRX_LIVE_BIND_AUTO,         \
	  XRX_LIVE_BIND_AUTO, XRX_LIVE_BIND_ZEROCOPY, XRX_OPT_WORDS_BIND,      \
	  "MODE", NULL, "AF_XDP bind: auto, copy or zero-copy")

enum xrx_opt_id {
#define XRX_X_ENUM(id, ...) XRX_OPT_##id,
	XRX_OPTIONS_TABLE(XRX_X_ENUM)
#undef XRX_X_ENUM
	XRX_OPT_MAX
};

enum xrx_opt_set {
	XRX_OPT_SET_ENGINE,	/* struct xrx_engine_opts */
	XRX_OPT_SET_SINK,	/* struct xrx_sink_opts */
	XRX_OPT_SET_LIVE,	/* struct xrx_live_opts */
	XRX_OPT_SET_MAX
};

enum xrx_opt_type {
	XRX_OPT_T_U32,
	XRX_OPT_T_BOOL,
	XRX_OPT_T_ENUM,
	XRX_OPT_T_PORTS,
};

/*
 * One row of the table, as the library describes it (xrx_opt__get()).
 * Read-only: rows are only ever handed out by the library, which may add
 * fields at the end.
 */
struct xrx_opt {
	const char *key;		/* xrx.conf key, or NULL */
	const char *flag;		/* long flag, or NULL */
	int short_flag;			/* 0: none */
	enum xrx_opt_set set;
	enum xrx_opt_type type;
	__u32 def, min, max;		/* PORTS: bounds of each port */
	__u32 max_count;		/* PORTS: ports at most */
	const char *const *words;	/* ENUM, BOOL: by value, NULL ends */
	const char *arg;		/* --help's name of the value */
	const char *unit;		/* what a number counts, in messages */
	const char *help;
	size_t off;			/* the field in the set's struct */
	size_t count_off;		/* PORTS: nr_FIELD */
};

/* How the value was written, for the message of a bad one. */
enum xrx_opt_form {
	XRX_OPT_FORM_CONF,	/* "KEY = VALUE", an xrx.conf line */
	XRX_OPT_FORM_FLAG,	/* "--FLAG VALUE", a command line */
	XRX_OPT_FORM_SPEC,	/* "FLAG=VALUE", in a sink spec */
};

/* Row @id (enum xrx_opt_id), or NULL past the end of the table. */
XRX_API const struct xrx_opt *xrx_opt__get(int id);
/*
 * Parse @text into the option's field of @opts, a struct of the row's
 * set. A PORTS option adds the ports of a comma-separated list ("none"
 * empties it). Return: 0, or -EINVAL with one line in @err saying what is
 * wrong and what to write instead, e.g. "max_aggregate = 600000 is out of
 * range; write a byte count from 1024 to 524280" (@form decides how the
 * option is named); @opts is then unchanged.
 */
XRX_API int xrx_opt__parse(const struct xrx_opt *o, void *opts,
			   const char *text, enum xrx_opt_form form, char *err,
			   size_t errlen);
/*
 * The field's value as xrx_opt__parse() reads it back ("65536", "header",
 * "4789, 8472", "none"). Return: the length of the text (as snprintf()).
 */
XRX_API int xrx_opt__format(const struct xrx_opt *o, const void *opts,
			    char *buf, size_t len);
/* Set the field to the row's default (PORTS: none). */
XRX_API void xrx_opt__set_default(const struct xrx_opt *o, void *opts);
/*
 * Decimal digits only (no sign, blanks or base prefix, unlike strtoul()),
 * @min <= value <= @max. Return: 0, -EINVAL (not a number) or -ERANGE.
 */
XRX_API int xrx_parse_u32(const char *s, __u32 min, __u32 max, __u32 *out);

#ifdef __cplusplus
}
#endif

#endif /* XRX_OPTIONS_H */
