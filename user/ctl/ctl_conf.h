/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xrxd's configuration: /etc/xrx/IFACE.conf parsed into struct xrx_conf.
 * The file format and every key are documented in docs/xrx.conf.md.
 *
 * Parsing either succeeds completely or fails with one message of the form
 * "FILE:LINE: what is wrong; what to write instead", so a caller can print
 * it and exit 2 before touching anything.
 */
#ifndef XRX_CTL_CONF_H
#define XRX_CTL_CONF_H

#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>

#include <xrx/rules.h>
#include <xrx/engine.h>
#include <xrx/live.h>
#include <xrx/options.h>

#define XRX_CONF_DIR "/etc/xrx"
#define XRX_CONF_ERR_MAX 512	/* room for one error message */

enum xrx_conf_attach {
	XRX_CONF_ATTACH_AUTO,	/* native if the driver has it, else skb */
	XRX_CONF_ATTACH_NATIVE,
	XRX_CONF_ATTACH_SKB,
};

/*
 * xrxd's own keys, each with what a reload does with a change of it (the
 * engine's, sinks' and live path's keys are the options table's,
 * include/xrx/options.h; the offloads are xrx_offload_desc's):
 *   IN_PLACE  applied while everything runs (the rules' maps), or a
 *             check of the keys it goes with (csum_trust_...)
 *   REOPEN    what it sets is opened anew while xrxd runs: the sink or
 *             tee swapped in, the sockets reopened (queues)
 *   RESTART   takes effect when xrxd restarts; a reload says so
 *   REFUSE    a reload that changes it fails (another interface is
 *             another instance)
 * Adding a key: a row here, its parsing in conf.c, and its case in
 * xrx_conf_key_differs(), which the compiler asks for; a reload then
 * acts on it by its class (user/xrxd/reload.c).
 *
 *	X(ID, KEY, RELOAD)
 */
#define XRX_CONF_KEYS(X)                                                       \
	X(INTERFACE, "interface", REFUSE)                                      \
	X(QUEUES, "queues", REOPEN)                                            \
	X(ATTACH, "attach", RESTART)                                           \
	X(SINK, "sink", REOPEN)                                                \
	X(ACCELERATE, "accelerate", IN_PLACE)                                  \
	X(DEFAULT, "default", IN_PLACE)                                        \
	X(CSUM_TRUST_ACK, "csum_trust_may_deliver_corrupt_data", IN_PLACE)     \
	X(TEE, "tee", REOPEN)

enum xrx_conf_top_key {
#define XRX_X_ENUM(id, key, reload) XRX_CONF_KEY_##id,
	XRX_CONF_KEYS(XRX_X_ENUM)
#undef XRX_X_ENUM
	XRX_CONF_KEY_TOP_MAX
};

enum xrx_conf_reload {
	XRX_RELOAD_IN_PLACE,
	XRX_RELOAD_REOPEN,
	XRX_RELOAD_RESTART,
	XRX_RELOAD_REFUSE,
};

/*
 * NIC settings xrxd can change, in the order it applies and restores them:
 * features and sizes first, then rings, then channels (a channel change
 * may reallocate rings, so it goes last on the way back), then the NAPI
 * instances' own settings (a channel change may re-create them).
 */
enum xrx_offload_id {
	XRX_OFF_LRO,
	XRX_OFF_GRO,
	XRX_OFF_HW_GRO,
	XRX_OFF_GRO_LIST,
	XRX_OFF_UDP_GRO_FWD,
	XRX_OFF_RX_CSUM,
	XRX_OFF_RX_VLAN,
	XRX_OFF_RX_HASH,
	XRX_OFF_NTUPLE,
	XRX_OFF_GRO_MAX_SIZE,
	XRX_OFF_GSO_MAX_SIZE,
	XRX_OFF_GRO_IPV4_MAX_SIZE,
	XRX_OFF_GSO_IPV4_MAX_SIZE,
	XRX_OFF_RX_RING,
	XRX_OFF_HEADER_SPLIT,
	XRX_OFF_CHANNELS,
	XRX_OFF_NAPI_DEFER_HARD_IRQS,
	XRX_OFF_GRO_FLUSH_TIMEOUT,
	XRX_OFF_MAX
};

enum xrx_offload_kind {
	XRX_OFFK_FEATURE,	/* netdev feature: on | off */
	XRX_OFFK_SIZE,		/* rtnetlink IFLA_*_MAX_SIZE: bytes */
	XRX_OFFK_RING,		/* ethtool rings: entries | max */
	XRX_OFFK_SPLIT,		/* ethtool rings tcp-data-split: on | off */
	XRX_OFFK_CHANNELS,	/* ethtool channels: count | max */
	XRX_OFFK_NAPI,		/* every NAPI instance's own setting (netdev
				 * napi-set): a number */
};

struct xrx_offload_desc {
	const char *key;	/* config key without "offload." */
	enum xrx_offload_kind kind;
	const char *feature;	/* kernel feature name (netdev_features_strings) */
	unsigned int min, max;	/* numeric range */
	const char *unit;	/* XRX_OFFK_NAPI: what the number counts */
};

extern const struct xrx_offload_desc xrx_offload_desc[XRX_OFF_MAX];

#define XRX_CONF_VAL_MAX 0xffffffffu	/* "max": the driver's maximum */

struct xrx_conf_offload {
	bool set;	/* false: keep, leave the setting as it is */
	bool required;	/* "VALUE!": failing to apply it is an error */
	unsigned int value;	/* 0/1 for on/off, a number, XRX_CONF_VAL_MAX */
	int line;	/* config line, 0 for a built-in default */
};

struct xrx_conf {
	char file[PATH_MAX];	/* for messages */
	char ifname[IF_NAMESIZE];
	int ifname_line;	/* line of the interface key */
	unsigned int queues;	/* 0: every RX channel of the interface */
	enum xrx_conf_attach attach;
	/*
	 * The libxrx sink spec ("null", "pcap:/PATH,size=1M", "tun:NAME",
	 * or a registered kind's), as written and checked by the kind's own
	 * parser (xrx_sink__check()): what the kind does with the traffic
	 * is in its ops (xrx_sink__kind()).
	 */
	char sink[PATH_MAX];
	/* A second sink beside it (tee =), "": none */
	char tee[PATH_MAX];
	unsigned int nrules;
	struct xrx_rule_key rules[XRX_RULES_MAX];	/* xrx_rules keys */
	enum xrx_action default_action;
	bool csum_trust_ack;	/* csum_trust_may_deliver_corrupt_data: trust
				 * allowed with a TUN sink */
	struct xrx_conf_offload offload[XRX_OFF_MAX];
	/*
	 * The keys of the options table (include/xrx/options.h), in the
	 * structs the library takes them in: xrxd hands these to the engines,
	 * the sinks and the live path as they are. Defaults from the table;
	 * fields without a key stay at their defaults (or zero).
	 */
	struct xrx_engine_opts engine;
	struct xrx_sink_opts sink_opts;
	struct xrx_live_opts live;
};

/* The options struct of @set in @c (engine, sink_opts or live). */
void *xrx_conf_opts(struct xrx_conf *c, enum xrx_opt_set set);
/* Whether @a and @b give every option of the table in @set one value. */
bool xrx_conf_opts_equal(const struct xrx_conf *a, const struct xrx_conf *b,
			 enum xrx_opt_set set);

/*
 * Every key a config can hold, numbered 0 .. xrx_conf_key_max() - 1:
 * xrxd's own (XRX_CONF_KEYS), then the options table's rows, then the
 * offloads. The name ("queues", "max_aggregate", "offload.gro") into
 * @buf; NULL for a number that is no key (an option without one).
 */
unsigned int xrx_conf_key_max(void);
const char *xrx_conf_key_name(unsigned int k, char *buf, size_t len);
/* What a reload does with a change of key @k: the options are the
 * engines', sinks' and workers' (REOPEN), the offloads RESTART. */
enum xrx_conf_reload xrx_conf_key_reload(unsigned int k);
/* Whether @a and @b give key @k different values. */
bool xrx_conf_key_differs(const struct xrx_conf *a, const struct xrx_conf *b,
			  unsigned int k);

/* Fill every key with its default (interface empty). */
void xrx_conf_defaults(struct xrx_conf *conf);

/*
 * Parse a config file / text. Return 0, -EINVAL for a config error, or
 * another negative errno when the file cannot be read; err then holds one
 * line (no newline). conf is only meaningful on success.
 */
int xrx_conf_parse_file(const char *path, struct xrx_conf *conf, char *err,
			size_t errlen);
int xrx_conf_parse_string(const char *name, const char *text,
			  struct xrx_conf *conf, char *err, size_t errlen);
/*
 * The same for the daemon of one interface: @ifname (xrxd -i, the unit
 * instance) is the interface when the file has no interface key.
 */
int xrx_conf_parse_file_for(const char *path, const char *ifname,
			    struct xrx_conf *conf, char *err, size_t errlen);

/* Write conf as a config file that parses back to the same conf. */
int xrx_conf_write(FILE *f, const struct xrx_conf *conf);

/*
 * An accelerate rule "[vxlan:]PROTO/PORT[@PREFIX]" (see include/xrx/rules.h) as an
 * xrx_rules key. Return 0 or -EINVAL with err saying what is wrong and what
 * to write instead.
 */
int xrx_rule_parse(const char *text, struct xrx_rule_key *key, char *err,
		   size_t errlen);
/* The rule text of a key, as xrx_rule_parse accepts it. */
int xrx_rule_format(const struct xrx_rule_key *key, char *buf, size_t len);

/* Interface name as the kernel accepts it (dev_valid_name()). */
bool xrx_ifname_valid(const char *name);

/*
 * The unit of @ifname, as a shell word for a hint: xrxd@eth0, or
 * 'xrxd@op\x2db' when the name must be escaped like systemd-escape does
 * (a '-' in an instance would stand for '/').
 */
const char *xrx_unit_name(const char *ifname, char *buf, size_t len);


#endif /* XRX_CTL_CONF_H */
