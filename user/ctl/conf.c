// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Parser for xrxd's config file: "key = value" lines, '#' comments and
 * "[section]" headers (a key x under [offload] is offload.x). The first
 * error ends parsing with one message "FILE:LINE: what; what to write".
 * The keys of the engine, sink and live options come from libxrx's
 * options table (include/xrx/options.h), which also parses their values;
 * xrxd's own keys and the offloads are in the tables here. Every key, its
 * default and its range are documented in docs/xrx.conf.md and xrx.conf(5)
 * (tests/integration/test_man.sh holds them to the options table).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <xrx/sink.h>

#include "ctl_conf.h"

#define CONF_FILE_MAX (1 << 20)
#define SIZE_MIN 1024
/*
 * What busy_poll = on sets on every NAPI instance unless [offload] says
 * otherwise: the recipe of the series that added preferred busy polling
 * (Linux 5.11, 7fd3253a7de6) and of DPDK's AF_XDP PMD. Interrupts stay off
 * while busy polls come within 200 us of each other; a worker that blocks
 * gets its frames from softirq at most 200 us late, and the device is back
 * on interrupts after two empty timer polls.
 */
#define NAPI_DEFER_BUSY_POLL 2
#define GRO_FLUSH_TIMEOUT_BUSY_POLL 200000

const struct xrx_offload_desc xrx_offload_desc[XRX_OFF_MAX] = {
	[XRX_OFF_LRO] = { "lro", XRX_OFFK_FEATURE, "rx-lro" },
	[XRX_OFF_GRO] = { "gro", XRX_OFFK_FEATURE, "rx-gro" },
	[XRX_OFF_HW_GRO] = { "hw_gro", XRX_OFFK_FEATURE, "rx-gro-hw" },
	[XRX_OFF_GRO_LIST] = { "gro_list", XRX_OFFK_FEATURE, "rx-gro-list" },
	[XRX_OFF_UDP_GRO_FWD] = { "udp_gro_forwarding", XRX_OFFK_FEATURE,
				  "rx-udp-gro-forwarding" },
	[XRX_OFF_RX_CSUM] = { "rx_checksum", XRX_OFFK_FEATURE, "rx-checksum" },
	[XRX_OFF_RX_VLAN] = { "rx_vlan", XRX_OFFK_FEATURE, "rx-vlan-hw-parse" },
	[XRX_OFF_RX_HASH] = { "rx_hash", XRX_OFFK_FEATURE, "rx-hashing" },
	[XRX_OFF_NTUPLE] = { "ntuple", XRX_OFFK_FEATURE, "rx-ntuple-filter" },
	[XRX_OFF_GRO_MAX_SIZE] = { "gro_max_size", XRX_OFFK_SIZE, NULL,
				   SIZE_MIN, XRX_AGGREGATE_MAX },
	[XRX_OFF_GSO_MAX_SIZE] = { "gso_max_size", XRX_OFFK_SIZE, NULL,
				   SIZE_MIN, XRX_AGGREGATE_MAX },
	[XRX_OFF_GRO_IPV4_MAX_SIZE] = { "gro_ipv4_max_size", XRX_OFFK_SIZE,
					NULL, SIZE_MIN, XRX_AGGREGATE_MAX },
	[XRX_OFF_GSO_IPV4_MAX_SIZE] = { "gso_ipv4_max_size", XRX_OFFK_SIZE,
					NULL, SIZE_MIN, XRX_AGGREGATE_MAX },
	[XRX_OFF_RX_RING] = { "rx_ring", XRX_OFFK_RING, NULL, 1, 1u << 20 },
	[XRX_OFF_HEADER_SPLIT] = { "header_split", XRX_OFFK_SPLIT },
	[XRX_OFF_CHANNELS] = { "channels", XRX_OFFK_CHANNELS, NULL, 1, 4096 },
	/* The kernel's bounds (netdev.yaml: defer-hard-irqs at most
	 * S32_MAX); a timeout past 1 s would leave a queue whose worker
	 * stopped polling that long undelivered. */
	[XRX_OFF_NAPI_DEFER_HARD_IRQS] = { "napi_defer_hard_irqs",
					   XRX_OFFK_NAPI, NULL, 0, 2147483647u,
					   "a count of empty polls" },
	[XRX_OFF_GRO_FLUSH_TIMEOUT] = { "gro_flush_timeout", XRX_OFFK_NAPI,
					NULL, 0, 1000000000u, "nanoseconds" },
};

/*
 * The keys: xrxd's own, then those of the options table
 * (include/xrx/options.h) at K_OPT + enum xrx_opt_id, then the offloads;
 * the "seen" table is indexed the same way.
 */
enum conf_key {
#define XRX_X_ENUM(id, key, reload) K_##id = XRX_CONF_KEY_##id,
	XRX_CONF_KEYS(XRX_X_ENUM)
#undef XRX_X_ENUM
	K_TOP_MAX = XRX_CONF_KEY_TOP_MAX,
	K_OPT = K_TOP_MAX,
	K_OFFLOAD = K_OPT + XRX_OPT_MAX,
	K_MAX = K_OFFLOAD + XRX_OFF_MAX
};

static const char *const key_names[K_TOP_MAX] = {
#define XRX_X_NAME(id, key, reload) [K_##id] = key,
	XRX_CONF_KEYS(XRX_X_NAME)
#undef XRX_X_NAME
};

static const char *const attach_words[] = { "auto", "native", "skb", NULL };
static const char *const default_words[] = { "pass", "accel", NULL };
static const char *const onoff_words[] = { "off", "on", NULL };

struct parser {
	const char *file;
	int line;
	char *err;
	size_t errlen;
	struct xrx_conf *conf;
	const char *ifname;	/* the caller's interface, if it has one */
	char section[32];
	int seen[K_MAX];	/* line a key was set on, 0 = not yet */
};

static int perr(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int perr(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(p->err, p->errlen, "%s:%d: ", p->file, p->line);
	if (n < 0 || (size_t)n >= p->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void *xrx_conf_opts(struct xrx_conf *c, enum xrx_opt_set set)
{
	switch (set) {
	case XRX_OPT_SET_ENGINE:
		return &c->engine;
	case XRX_OPT_SET_SINK:
		return &c->sink_opts;
	default:
		return &c->live;
	}
}

bool xrx_conf_opts_equal(const struct xrx_conf *a, const struct xrx_conf *b,
			 enum xrx_opt_set set)
{
	char va[128], vb[128];
	const struct xrx_opt *o;
	int i;

	for (i = 0; (o = xrx_opt__get(i)); i++) {
		if (o->set != set)
			continue;
		xrx_opt__format(o, xrx_conf_opts((struct xrx_conf *)a, set), va,
				sizeof(va));
		xrx_opt__format(o, xrx_conf_opts((struct xrx_conf *)b, set), vb,
				sizeof(vb));
		if (strcmp(va, vb))
			return false;
	}
	return true;
}

static void key_name(int k, char *buf, size_t len);

unsigned int xrx_conf_key_max(void)
{
	return K_MAX;
}

const char *xrx_conf_key_name(unsigned int k, char *buf, size_t len)
{
	if (k >= K_MAX)
		return NULL;
	key_name((int)k, buf, len);
	return buf[0] ? buf : NULL;
}

enum xrx_conf_reload xrx_conf_key_reload(unsigned int k)
{
	static const enum xrx_conf_reload top[K_TOP_MAX] = {
#define XRX_X_RELOAD(id, key, reload) [K_##id] = XRX_RELOAD_##reload,
		XRX_CONF_KEYS(XRX_X_RELOAD)
#undef XRX_X_RELOAD
	};

	if (k < K_TOP_MAX)
		return top[k];
	/* The engines, sinks and sockets take the options when they
	 * open; the offloads are applied at the start only. */
	return k < K_OFFLOAD ? XRX_RELOAD_REOPEN : XRX_RELOAD_RESTART;
}

/* No default: a key added to XRX_CONF_KEYS without a case here does not
 * compile (-Wswitch). */
static bool top_key_differs(const struct xrx_conf *a, const struct xrx_conf *b,
			    enum xrx_conf_top_key k)
{
	switch (k) {
	case XRX_CONF_KEY_INTERFACE:
		return strcmp(a->ifname, b->ifname);
	case XRX_CONF_KEY_QUEUES:
		return a->queues != b->queues;
	case XRX_CONF_KEY_ATTACH:
		return a->attach != b->attach;
	case XRX_CONF_KEY_SINK:
		return strcmp(a->sink, b->sink);
	case XRX_CONF_KEY_ACCELERATE:
		return a->nrules != b->nrules ||
		       memcmp(a->rules, b->rules, a->nrules * sizeof(a->rules[0]));
	case XRX_CONF_KEY_DEFAULT:
		return a->default_action != b->default_action;
	case XRX_CONF_KEY_CSUM_TRUST_ACK:
		return a->csum_trust_ack != b->csum_trust_ack;
	case XRX_CONF_KEY_TEE:
		return strcmp(a->tee, b->tee);
	case XRX_CONF_KEY_TOP_MAX:
		break;
	}
	return false;
}

bool xrx_conf_key_differs(const struct xrx_conf *a, const struct xrx_conf *b,
			  unsigned int k)
{
	const struct xrx_conf_offload *oa, *ob;
	const struct xrx_opt *o;
	char va[128], vb[128];

	if (k < K_TOP_MAX)
		return top_key_differs(a, b, (enum xrx_conf_top_key)k);
	if (k < K_OFFLOAD) {
		o = xrx_opt__get((int)(k - K_OPT));
		xrx_opt__format(o, xrx_conf_opts((struct xrx_conf *)a, o->set),
				va, sizeof(va));
		xrx_opt__format(o, xrx_conf_opts((struct xrx_conf *)b, o->set),
				vb, sizeof(vb));
		return strcmp(va, vb);
	}
	if (k >= K_MAX)
		return false;
	oa = &a->offload[k - K_OFFLOAD];
	ob = &b->offload[k - K_OFFLOAD];
	return oa->set != ob->set || oa->required != ob->required ||
	       (oa->set && oa->value != ob->value);
}

void xrx_conf_defaults(struct xrx_conf *conf)
{
	const struct xrx_opt *o;
	int i;

	memset(conf, 0, sizeof(*conf));
	conf->attach = XRX_CONF_ATTACH_AUTO;
	strcpy(conf->sink, "null");
	conf->default_action = XRX_ACT_PASS;
	conf->engine.sz = sizeof(conf->engine);
	conf->sink_opts.sz = sizeof(conf->sink_opts);
	conf->live.sz = sizeof(conf->live);
	for (i = 0; (o = xrx_opt__get(i)); i++)
		xrx_opt__set_default(o, xrx_conf_opts(conf, o->set));
	/*
	 * LRO merges segments before XDP sees them and loses the boundaries
	 * GRO needs (dev_disable_lro() is what the kernel does for
	 * forwarding and XDP for the same reason), so it is off unless the
	 * config says otherwise. Everything else is left as it is.
	 */
	conf->offload[XRX_OFF_LRO].set = true;
	conf->offload[XRX_OFF_LRO].value = 0;
}

static int word_index(const char *const *words, const char *val)
{
	int i;

	for (i = 0; words[i]; i++)
		if (!strcmp(words[i], val))
			return i;
	return -1;
}

/* "a, b or c" for messages. */
static void word_list(const char *const *words, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; words[i] && n < len; i++) {
		const char *sep = i == 0 ? "" : words[i + 1] ? ", " : " or ";

		n += (size_t)snprintf(buf + n, len - n, "%s%s", sep, words[i]);
	}
}

static int parse_word(struct parser *p, const char *key, const char *val,
		      const char *const *words, int *out)
{
	char list[128];
	int i = word_index(words, val);

	if (i >= 0) {
		*out = i;
		return 0;
	}
	word_list(words, list, sizeof(list));
	return perr(p, "%s = %s is not a valid value; write %s", key, val, list);
}

static int parse_number(struct parser *p, const char *key, const char *val,
			unsigned int min, unsigned int max, const char *unit,
			unsigned int *out)
{
	int ret = xrx_parse_u32(val, min, max, out);

	if (ret == -EINVAL)
		return perr(p, "%s = %s is not a number; write %s from %u to %u (decimal digits only)",
			    key, val, unit, min, max);
	if (ret)
		return perr(p, "%s = %s is out of range; write %s from %u to %u",
			    key, val, unit, min, max);
	return 0;
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static int parse_rules(struct parser *p, char *val)
{
	struct xrx_conf *c = p->conf;
	char msg[256], *tok, *next;
	unsigned int i;

	c->nrules = 0;
	if (!strcmp(val, "none"))
		return 0;
	for (tok = val; tok; tok = next) {
		struct xrx_rule_key *key = &c->rules[c->nrules];

		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		tok = trim(tok);
		if (!*tok)
			return perr(p, "accelerate has an empty rule; separate rules with one comma, e.g. tcp/5001, udp/4789");
		if (c->nrules == XRX_RULES_MAX)
			return perr(p, "accelerate has more than %d rules; merge rules with prefixes or 'any'",
				    XRX_RULES_MAX);
		if (xrx_rule_parse(tok, key, msg, sizeof(msg)))
			return perr(p, "accelerate: %s", msg);
		for (i = 0; i < c->nrules; i++)
			if (!memcmp(&c->rules[i], key, sizeof(*key)))
				return perr(p, "accelerate lists rule '%s' twice; remove one",
					    tok);
		c->nrules++;
	}
	return 0;
}

/*
 * "KINDS" of a message: @none ("null" or "none"), then the spec of every
 * kind but null, built-in and registered ("..., tun:NAME or tap:NAME").
 */
static const char *sink_kinds(const char *none, char *buf, size_t len)
{
	const struct xrx_sink_ops *ops, *next;
	size_t n = (size_t)snprintf(buf, len, "%s", none);
	unsigned int i = 0;

	next = xrx_sink__kind_at(i++);
	while ((ops = next) && n < len) {
		next = xrx_sink__kind_at(i++);
		if (ops == &xrx_sink_null_ops)
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s",
				      next ? ", " : " or ",
				      ops->usage ? ops->usage : ops->name);
	}
	return buf;
}

/*
 * sink = null | KIND[:ARG], and the same for tee with "none" for no tee
 * (null is no tee's kind): the spec into @spec (PATH_MAX bytes), checked
 * by the kind's own parser, the one its sink runs when it opens.
 */
static int parse_sink(struct parser *p, const char *key, const char *val,
		      char *spec)
{
	struct xrx_sink_opts so = { .sz = sizeof(so) };
	const char *none = strcmp(key, "tee") ? "null" : "none";
	const char *colon = strchr(val, ':');
	char out[PATH_MAX], err[PATH_MAX + 128], kinds[512];
	const struct xrx_sink_ops *ops;

	if (!strcmp(val, none)) {
		strcpy(spec, strcmp(key, "tee") ? "null" : "");
		return 0;
	}
	ops = xrx_sink__kind(val);
	if (!ops || ops == &xrx_sink_null_ops)
		return perr(p, "%s = %s is not a valid %s; write %s", key, val,
			    key, sink_kinds(none, kinds, sizeof(kinds)));
	/* xrxd's working directory is not the user's. */
	if ((ops->flags & XRX_SINK_F_FILES) && (!colon || colon[1] != '/'))
		return perr(p, "%s = %s needs an absolute path; write %s:/PATH/FILE",
			    key, val, ops->name);
	if (xrx_sink__check(val, &so, out, sizeof(out), err, sizeof(err)))
		return perr(p, "%s = %s", key, err);
	strcpy(spec, val);
	return 0;
}

static int parse_offload(struct parser *p, enum xrx_offload_id id,
			 const char *key, char *val)
{
	const struct xrx_offload_desc *d = &xrx_offload_desc[id];
	struct xrx_conf_offload *o = &p->conf->offload[id];
	size_t n = strlen(val);
	bool required = false;
	int w;

	if (n > 1 && val[n - 1] == '!') {
		required = true;
		val[--n] = '\0';
		while (n && isspace((unsigned char)val[n - 1]))
			val[--n] = '\0';
	}
	if (!strcmp(val, "keep")) {
		if (required)
			return perr(p, "%s = keep! cannot be required; write keep, or a value followed by '!'",
				    key);
		o->set = false;
		o->required = false;
		o->line = p->line;
		return 0;
	}

	switch (d->kind) {
	case XRX_OFFK_FEATURE:
	case XRX_OFFK_SPLIT:
		w = word_index(onoff_words, val);
		if (w < 0)
			return perr(p, "%s = %s is not a valid value; write on, off or keep (add '!' to require it)",
				    key, val);
		o->value = (unsigned int)w;
		break;
	case XRX_OFFK_SIZE:
		if (xrx_parse_u32(val, d->min, d->max, &o->value))
			return perr(p, "%s = %s is not valid; write keep or a byte count from %u to %u (add '!' to require it)",
				    key, val, d->min, d->max);
		break;
	case XRX_OFFK_RING:
	case XRX_OFFK_CHANNELS:
		if (!strcmp(val, "max")) {
			o->value = XRX_CONF_VAL_MAX;
			break;
		}
		if (xrx_parse_u32(val, d->min, d->max, &o->value))
			return perr(p, "%s = %s is not valid; write keep, max or a count from %u to %u (add '!' to require it)",
				    key, val, d->min, d->max);
		break;
	case XRX_OFFK_NAPI:
		if (xrx_parse_u32(val, d->min, d->max, &o->value))
			return perr(p, "%s = %s is not valid; write keep or %s from %u to %u (add '!' to require it)",
				    key, val, d->unit, d->min, d->max);
		break;
	}
	o->set = true;
	o->required = required;
	o->line = p->line;
	return 0;
}

/* Levenshtein distance, for "did you mean" on unknown keys. */
static unsigned int edit_distance(const char *a, const char *b)
{
	unsigned int row[64], i, j, prev, tmp;
	size_t la = strlen(a), lb = strlen(b);

	if (la >= 64 || lb >= 64)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			unsigned int best = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

/* The key of @k ("" for a row of the options table without one). */
static void key_name(int k, char *buf, size_t len)
{
	const struct xrx_opt *o = xrx_opt__get(k - K_OPT);

	if (k < K_TOP_MAX)
		snprintf(buf, len, "%s", key_names[k]);
	else if (k < K_OFFLOAD)
		snprintf(buf, len, "%s", o->key ? o->key : "");
	else
		snprintf(buf, len, "offload.%s", xrx_offload_desc[k - K_OFFLOAD].key);
}

/*
 * The key @key most likely meant, into @name; -1 if none is close. Under
 * [offload] (@key "offload.X"), X is compared with the offloads' keys,
 * with ethtool's names of the features (rx_gro_hw for hw_gro, as
 * ethtool -k lists rx-gro-hw) and with the top-level keys (written after
 * the section header by mistake), which @top then says.
 */
static int suggest(const char *key, char *name, size_t len, bool *top)
{
	bool off = !strncmp(key, "offload.", 8);
	unsigned int d, best_d = 3;
	char feat[64];
	int i, best = -1;
	size_t j;

	*top = false;
	for (i = 0; i < K_MAX; i++) {
		key_name(i, name, len);
		if (!*name)
			continue;
		/* A typo, or a key cut short ("gro_max" for gro_max_size). */
		d = edit_distance(key, name);
		if (strlen(key) >= 4 && !strncmp(name, key, strlen(key)) && d > 1)
			d = 2;
		if (off && i < K_OFFLOAD && edit_distance(key + 8, name) < d)
			d = edit_distance(key + 8, name);
		if (off && i >= K_OFFLOAD &&
		    xrx_offload_desc[i - K_OFFLOAD].feature) {
			snprintf(feat, sizeof(feat), "%s",
				 xrx_offload_desc[i - K_OFFLOAD].feature);
			for (j = 0; feat[j]; j++)
				if (feat[j] == '-')
					feat[j] = '_';
			if (edit_distance(key + 8, feat) < d)
				d = edit_distance(key + 8, feat);
		}
		/* Under [offload], an offload before a top-level key as
		 * close. */
		if (d < best_d || (d == best_d && off && i >= K_OFFLOAD &&
				   best < K_OFFLOAD)) {
			best_d = d;
			best = i;
		}
	}
	if (best >= 0) {
		key_name(best, name, len);
		*top = off && best < K_OFFLOAD;
	}
	return best;
}

static int unknown_key(struct parser *p, const char *key)
{
	char name[64];
	bool top;
	int i;

	/* An offload written before (or without) its section header, or a
	 * top-level key after it. */
	for (i = 0; !strchr(key, '.') && i < XRX_OFF_MAX; i++)
		if (!strcmp(key, xrx_offload_desc[i].key))
			return perr(p, "'%s' is an offload setting; write it under [offload] (a section header on a line of its own, after the top-level keys)",
				    key);
	for (i = 0; !strncmp(key, "offload.", 8) && i < K_OFFLOAD; i++) {
		key_name(i, name, sizeof(name));
		if (*name && !strcmp(key + 8, name))
			return perr(p, "'%s' is a top-level key, not an offload setting; move it above [offload]",
				    key + 8);
	}

	if (suggest(key, name, sizeof(name), &top) >= 0)
		return perr(p, top ? "unknown key '%s'; did you mean '%s'? It is a top-level key: move it above [offload]" :
				     "unknown key '%s'; did you mean '%s'?",
			    key, name);
	return perr(p, "unknown key '%s'; remove the line (the keys are listed in xrx.conf(5))",
		    key);
}

/* A key with a character no key has: with '-' for '_' and in lower
 * case (as ethtool -k writes rx-gro-hw), is it one, or close to one? */
static int bad_key_chars(struct parser *p, const char *k)
{
	char key[96], name[64];
	bool top;
	size_t n, i;

	n = (size_t)snprintf(key, sizeof(key), "%s%s", p->section,
			     *p->section ? "." : "");
	for (i = 0; k[i] && n + 1 < sizeof(key); i++)
		key[n++] = k[i] == '-' ? '_' : (char)tolower((unsigned char)k[i]);
	key[n] = '\0';
	if (strlen(k) < 60 && suggest(key, name, sizeof(name), &top) >= 0)
		return perr(p, "key '%s' has a character other than a-z, 0-9, '_' or '.' (keys are lower case, with '_'); did you mean '%s'?%s",
			    k, name, top ? " It is a top-level key: move it above [offload]" : "");
	return perr(p, "key '%.60s' has a character other than a-z, 0-9, '_' or '.'; keys are lower case, e.g. max_aggregate",
		    k);
}

static int find_key(const char *key)
{
	const struct xrx_opt *o;
	int i;

	for (i = 0; i < K_TOP_MAX; i++)
		if (!strcmp(key, key_names[i]))
			return i;
	for (i = 0; (o = xrx_opt__get(i)); i++)
		if (o->key && !strcmp(key, o->key))
			return K_OPT + i;
	if (strncmp(key, "offload.", 8))
		return -1;
	for (i = 0; i < XRX_OFF_MAX; i++)
		if (!strcmp(key + 8, xrx_offload_desc[i].key))
			return K_OFFLOAD + i;
	return -1;
}

/* A key of the options table: the library parses it. */
static int parse_option(struct parser *p, const struct xrx_opt *o, char *val)
{
	char msg[XRX_CONF_ERR_MAX];

	if (xrx_opt__parse(o, xrx_conf_opts(p->conf, o->set), val,
			   XRX_OPT_FORM_CONF, msg, sizeof(msg)))
		return perr(p, "%s", msg);
	return 0;
}

static int set_key(struct parser *p, const char *key, char *val)
{
	struct xrx_conf *c = p->conf;
	int k = find_key(key), w, ret;

	if (k < 0)
		return unknown_key(p, key);
	if (p->seen[k])
		return perr(p, "duplicate key '%s' (first set on line %d); keep one of the two lines",
			    key, p->seen[k]);
	p->seen[k] = p->line;
	if (k >= K_OFFLOAD)
		return parse_offload(p, (enum xrx_offload_id)(k - K_OFFLOAD),
				     key, val);
	if (k >= K_OPT)
		return parse_option(p, xrx_opt__get(k - K_OPT), val);

	switch ((enum conf_key)k) {
	case K_INTERFACE:
		/* A leading '#' would be written back as a comment. */
		if (!xrx_ifname_valid(val) || val[0] == '#')
			return perr(p, "interface = %s is not a valid interface name; write 1 to 15 characters, no '/', ':' or blanks, not starting with '#'",
				    val);
		strcpy(c->ifname, val);
		c->ifname_line = p->line;
		return 0;
	case K_QUEUES:
		if (!strcmp(val, "all")) {
			c->queues = 0;
			return 0;
		}
		return parse_number(p, key, val, 1, 4096, "all or a queue count",
				    &c->queues);
	case K_ATTACH:
		ret = parse_word(p, key, val, attach_words, &w);
		c->attach = (enum xrx_conf_attach)w;
		return ret;
	case K_SINK:
		return parse_sink(p, key, val, c->sink);
	case K_TEE:
		return parse_sink(p, key, val, c->tee);
	case K_ACCELERATE:
		return parse_rules(p, val);
	case K_DEFAULT:
		ret = parse_word(p, key, val, default_words, &w);
		c->default_action = w ? XRX_ACT_ACCEL : XRX_ACT_PASS;
		return ret;
	case K_CSUM_TRUST_ACK:
		ret = parse_word(p, key, val, onoff_words, &w);
		c->csum_trust_ack = w == 1;
		return ret;
	default:
		return perr(p, "key '%s' has no parser; this is a bug in xrx",
			    key);
	}
}

/* '#' starts a comment at the start of a line or after a blank. */
static void strip_comment(char *s)
{
	char *q;

	for (q = s; *q; q++) {
		if (*q == '#' && (q == s || isspace((unsigned char)q[-1]))) {
			*q = '\0';
			return;
		}
	}
}

static int parse_section(struct parser *p, char *s)
{
	size_t n = strlen(s);
	char *name;

	if (s[n - 1] != ']')
		return perr(p, "section header '%s' has no closing ']'; write [offload]",
			    s);
	s[n - 1] = '\0';
	name = trim(s + 1);
	if (!strcmp(name, "offload")) {
		strcpy(p->section, name);
		return 0;
	}
	return perr(p, "unknown section [%s]; the only section is [offload] (top-level keys go before any section)",
		    name);
}

static int parse_line(struct parser *p, char *s)
{
	char key[96], *eq, *k, *v, *q;

	strip_comment(s);
	s = trim(s);
	if (!*s)
		return 0;
	if (*s == '[')
		return parse_section(p, s);

	eq = strchr(s, '=');
	if (!eq)
		return perr(p, "'%.60s' is not a setting; write key = value", s);
	*eq = '\0';
	k = trim(s);
	v = trim(eq + 1);
	if (!*k)
		return perr(p, "a value without a key; write key = value");
	for (q = k; *q; q++)
		if (!islower((unsigned char)*q) && !isdigit((unsigned char)*q) &&
		    *q != '_' && *q != '.')
			return bad_key_chars(p, k);
	if (snprintf(key, sizeof(key), "%s%s%s", p->section,
		     *p->section ? "." : "", k) >= (int)sizeof(key))
		return perr(p, "key '%.60s' is too long; see xrx.conf(5) for the keys",
			    k);
	if (!*v)
		return perr(p, "%s has no value; write %s = VALUE, or remove the line for the default",
			    key, key);
	return set_key(p, key, v);
}

/*
 * busy_poll = on wants the NAPI instances to defer interrupts: what the
 * config leaves unsaid gets busy_poll's values (on busy_poll's line), and
 * a 0 written out is refused, since the kernel then re-enables interrupts
 * after every busy poll and busy polling never takes over
 * (Documentation/networking/napi.rst, "IRQ mitigation").
 */
static int check_busy_poll(struct parser *p)
{
	static const struct {
		enum xrx_offload_id id;
		unsigned int value;
	} busy[] = {
		{ XRX_OFF_NAPI_DEFER_HARD_IRQS, NAPI_DEFER_BUSY_POLL },
		{ XRX_OFF_GRO_FLUSH_TIMEOUT, GRO_FLUSH_TIMEOUT_BUSY_POLL },
	};
	struct xrx_conf *c = p->conf;
	struct xrx_conf_offload *o;
	unsigned int i, id;

	if (!c->live.busy_poll)
		return 0;
	for (i = 0; i < sizeof(busy) / sizeof(busy[0]); i++) {
		id = busy[i].id;
		o = &c->offload[id];
		if (!p->seen[K_OFFLOAD + id]) {
			o->set = true;
			o->value = busy[i].value;
			o->line = p->seen[K_OPT + XRX_OPT_BUSY_POLL];
		} else if (o->set && !o->value) {
			p->line = o->line;
			return perr(p, "offload.%s = 0 with busy_poll = on (line %d): the kernel would turn interrupts back on after every busy poll; write %u (busy_poll's value), keep, or busy_poll = off",
				    xrx_offload_desc[id].key,
				    p->seen[K_OPT + XRX_OPT_BUSY_POLL], busy[i].value);
		}
	}
	return 0;
}

/* Checks that need the whole file. */
static int check_conf(struct parser *p)
{
	struct xrx_conf *c = p->conf;
	const struct xrx_conf_offload *ch = &c->offload[XRX_OFF_CHANNELS];
	unsigned int i;
	int ret;

	/* xrxd@IFACE names the interface already: the key may be left out. */
	if (!c->ifname[0] && p->ifname)
		snprintf(c->ifname, sizeof(c->ifname), "%s", p->ifname);
	if (!c->ifname[0])
		return perr(p, "no interface; add a line 'interface = NAME' (e.g. interface = eth0)");
	if (c->queues && ch->set && ch->value != XRX_CONF_VAL_MAX &&
	    c->queues > ch->value) {
		p->line = p->seen[K_QUEUES];
		return perr(p, "queues = %u is more than offload.channels = %u (line %d); write queues = %u or raise offload.channels",
			    c->queues, ch->value, ch->line, ch->value);
	}
	/*
	 * A TUN sink hands aggregates to the stack as CHECKSUM_PARTIAL, which
	 * it never verifies again, and AF_XDP carries no per-frame checksum
	 * verdict from the NIC that could justify trusting the segments: a
	 * corrupt one would reach applications. Only an explicit key that
	 * names the risk allows it.
	 */
	for (i = 0; i < 2; i++) {
		const char *spec = i ? c->tee : c->sink;
		const struct xrx_sink_ops *ops = xrx_sink__kind(spec);

		if (c->engine.csum != XRX_CSUM_TRUST || c->csum_trust_ack ||
		    !ops || !(ops->flags & XRX_SINK_F_STACK))
			continue;
		p->line = p->seen[K_OPT + XRX_OPT_CSUM];
		return perr(p, "csum = trust with %s = %s (line %d) hands unverified segments to the kernel stack, which does not check them again; write csum = verify, or add csum_trust_may_deliver_corrupt_data = on to accept that",
			    i ? "tee" : "sink", spec,
			    p->seen[i ? K_TEE : K_SINK]);
	}
	/* One pcap path, or one device name (a TUN and a TAP neither). */
	if (c->tee[0] && xrx_sink__same_output(c->sink, c->tee)) {
		p->line = p->seen[K_TEE];
		return perr(p, "tee = %s names what sink = %s (line %d) writes to; give the tee its own file or device",
			    c->tee, c->sink, p->seen[K_SINK]);
	}
	ret = check_busy_poll(p);
	if (ret)
		return ret;
	for (i = 0; i < c->nrules; i++) {
		bool vx = c->rules[i].scope == XRX_RULE_SCOPE_INNER;
		char rule[96];

		if (!(vx && !c->engine.nr_vxlan_ports) &&
		    !(c->rules[i].scope == XRX_RULE_SCOPE_GENEVE &&
		      !c->engine.nr_geneve_ports))
			continue;
		xrx_rule_format(&c->rules[i], rule, sizeof(rule));
		p->line = p->seen[K_ACCELERATE];
		return perr(p, "accelerate has %s, a rule on the frame inside %s, but %s is none; add %s (the %s device's dstport)",
			    rule, vx ? "VXLAN" : "GENEVE",
			    vx ? "vxlan_ports" : "geneve_ports",
			    vx ? "vxlan_ports = 4789" : "geneve_ports = 6081",
			    vx ? "VXLAN" : "GENEVE");
	}
	return 0;
}

static int parse_text(const char *name, const char *text, const char *ifname,
		      struct xrx_conf *conf, char *err, size_t errlen)
{
	struct parser p = {
		.file = name, .err = err, .errlen = errlen, .conf = conf,
		.ifname = ifname,
	};
	char *copy, *line, *next;
	int ret = 0;

	xrx_conf_defaults(conf);
	snprintf(conf->file, sizeof(conf->file), "%s", name);
	copy = strdup(text);
	if (!copy) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	for (line = copy; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else if (!*line)
			break;	/* text ended with a newline */
		p.line++;
		ret = parse_line(&p, line);
		if (ret)
			goto out;
	}
	if (!p.line)
		p.line = 1;
	ret = check_conf(&p);
out:
	free(copy);
	return ret;
}

int xrx_conf_parse_string(const char *name, const char *text,
			  struct xrx_conf *conf, char *err, size_t errlen)
{
	return parse_text(name, text, NULL, conf, err, errlen);
}

int xrx_conf_parse_file(const char *path, struct xrx_conf *conf, char *err,
			size_t errlen)
{
	return xrx_conf_parse_file_for(path, NULL, conf, err, errlen);
}

int xrx_conf_parse_file_for(const char *path, const char *ifname,
			    struct xrx_conf *conf, char *err, size_t errlen)
{
	struct stat st;
	char *text = NULL;
	size_t n;
	FILE *f;
	int ret;

	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot open: %s; create it (" XRX_CONF_DIR "/example.conf is a start) or name another file",
			 path, strerror(-ret));
		return ret;
	}
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > CONF_FILE_MAX) {
		snprintf(err, errlen, "%s: not a regular file of at most %d bytes; name the config file itself",
			 path, CONF_FILE_MAX);
		ret = -EINVAL;
		goto out;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		ret = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	n = fread(text, 1, (size_t)st.st_size, f);
	if (ferror(f)) {
		ret = -EIO;
		snprintf(err, errlen, "%s: read error", path);
		goto out;
	}
	text[n] = '\0';
	if (strlen(text) != n) {
		snprintf(err, errlen, "%s:%d: the file contains a NUL byte; a config file is text",
			 path, 1);
		ret = -EINVAL;
		goto out;
	}
	ret = parse_text(path, text, ifname, conf, err, errlen);
out:
	free(text);
	fclose(f);
	return ret;
}

static const char *offload_value(const struct xrx_offload_desc *d,
				 const struct xrx_conf_offload *o, char *buf,
				 size_t len)
{
	if (!o->set)
		return "keep";
	if (d->kind == XRX_OFFK_FEATURE || d->kind == XRX_OFFK_SPLIT)
		snprintf(buf, len, "%s%s", o->value ? "on" : "off",
			 o->required ? "!" : "");
	else if (o->value == XRX_CONF_VAL_MAX)
		snprintf(buf, len, "max%s", o->required ? "!" : "");
	else
		snprintf(buf, len, "%u%s", o->value, o->required ? "!" : "");
	return buf;
}

int xrx_conf_write(FILE *f, const struct xrx_conf *c)
{
	char rule[96], val[128];
	const struct xrx_opt *o;
	unsigned int i;

	fprintf(f, "interface = %s\n", c->ifname);
	if (c->queues)
		fprintf(f, "queues = %u\n", c->queues);
	else
		fprintf(f, "queues = all\n");
	fprintf(f, "attach = %s\n", attach_words[c->attach]);
	fprintf(f, "sink = %s\n", c->sink);
	fprintf(f, "tee = %s\n", c->tee[0] ? c->tee : "none");
	fprintf(f, "accelerate = ");
	if (!c->nrules)
		fprintf(f, "none");
	for (i = 0; i < c->nrules; i++) {
		if (xrx_rule_format(&c->rules[i], rule, sizeof(rule)))
			return -EINVAL;
		fprintf(f, "%s%s", i ? ", " : "", rule);
	}
	fprintf(f, "\ndefault = %s\n",
		c->default_action == XRX_ACT_ACCEL ? "accel" : "pass");
	if (c->csum_trust_ack)
		fprintf(f, "csum_trust_may_deliver_corrupt_data = on\n");
	for (i = 0; (o = xrx_opt__get((int)i)); i++) {
		if (!o->key)
			continue;
		xrx_opt__format(o, xrx_conf_opts((struct xrx_conf *)c, o->set),
				val, sizeof(val));
		fprintf(f, "%s = %s\n", o->key, val);
	}
	fprintf(f, "\n[offload]\n");
	for (i = 0; i < XRX_OFF_MAX; i++)
		fprintf(f, "%s = %s\n", xrx_offload_desc[i].key,
			offload_value(&xrx_offload_desc[i], &c->offload[i], val,
				      sizeof(val)));
	return ferror(f) ? -EIO : 0;
}
