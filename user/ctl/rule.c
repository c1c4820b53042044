// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Accelerate rules as text ("tcp/5001", "udp/any@2001:db8::/32", and
 * "vxlan:tcp/5201" or "geneve:tcp/5201" for the frame inside a tunnel:
 * the tunnel kind's name, include/xrx/tunnel.h) and as xrx_rules LPM
 * keys. The key layout, scopes and prefix arithmetic are defined in
 * include/xrx/rules.h; this file is their only text front end.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_conf.h"

static const __u8 v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

/* A scope's "NAME:" is its tunnel kind's name (XRX_RULE_SCOPE_TNL()). */
static const char *const tnl_names[XRX_TNL_KINDS] = XRX_TNL_NAMES;

/* The scope "NAME:" in front of @text names, with *@len its length; or
 * XRX_RULE_SCOPE_OUTER when none does. */
static __u8 scope_of(const char *text, size_t *len)
{
	size_t n;
	int k;

	for (k = 0; k < XRX_TNL_KINDS; k++) {
		n = strlen(tnl_names[k]);
		if (!strncmp(text, tnl_names[k], n) && text[n] == ':') {
			*len = n + 1;
			return XRX_RULE_SCOPE_TNL(k);
		}
	}
	*len = 0;
	return XRX_RULE_SCOPE_OUTER;
}

/* True when bits beyond plen of addr (len bytes) are all zero. */
static int host_bits_zero(const __u8 *addr, unsigned int len, unsigned int plen)
{
	unsigned int i;

	for (i = 0; i < len; i++) {
		unsigned int first = i * 8;
		__u8 keep;

		if (first >= plen)
			keep = 0;
		else if (first + 8 <= plen)
			keep = 0xff;
		else
			keep = (__u8)(0xff << (8 - (plen - first)));
		if (addr[i] & (__u8)~keep)
			return 0;
	}
	return 1;
}

/* A "WORD:" in front of the protocol that names no scope. */
static bool unknown_scope(const char *text)
{
	const char *colon = strchr(text, ':'), *slash = strchr(text, '/'),
		   *at = strchr(text, '@');

	return colon && (!slash || colon < slash) && (!at || colon < at);
}

int xrx_rule_parse(const char *text, struct xrx_rule_key *key, char *err,
		   size_t errlen)
{
	char buf[128], *slash, *at, *port, *addr = NULL, *plen_s = NULL;
	unsigned int port_v = 0, plen;
	const char *body;
	struct in6_addr a6;
	struct in_addr a4;
	size_t skip;
	__u8 scope;
	int is_v4;

	scope = scope_of(text, &skip);
	body = text + skip;
	if (scope == XRX_RULE_SCOPE_OUTER && unknown_scope(text)) {
		/* "vxlna:tcp/80", "gre:udp/53" */
		snprintf(err, errlen,
			 "rule '%s' has an unknown scope; write vxlan:PROTO/PORT or geneve:PROTO/PORT for the frame inside a tunnel, or PROTO/PORT",
			 text);
		return -EINVAL;
	}
	if (strlen(body) >= sizeof(buf)) {
		snprintf(err, errlen, "rule '%.40s...' is too long; write [vxlan:|geneve:]PROTO/PORT[@PREFIX]",
			 text);
		return -EINVAL;
	}
	strcpy(buf, body);
	memset(key, 0, sizeof(*key));
	key->scope = scope;

	at = strchr(buf, '@');
	if (at) {
		*at = '\0';
		addr = at + 1;
	}
	slash = strchr(buf, '/');
	if (!slash) {
		snprintf(err, errlen,
			 "rule '%s' has no port; write PROTO/PORT, e.g. tcp/5001 or tcp/any",
			 text);
		return -EINVAL;
	}
	*slash = '\0';
	port = slash + 1;

	if (!strcmp(buf, "tcp")) {
		key->proto = IPPROTO_TCP;
	} else if (!strcmp(buf, "udp")) {
		key->proto = IPPROTO_UDP;
	} else {
		snprintf(err, errlen, "rule '%s' has protocol '%s'; write tcp or udp",
			 text, buf);
		return -EINVAL;
	}

	if (strcmp(port, "any") &&
	    xrx_parse_u32(port, 1, 65535, &port_v)) {
		snprintf(err, errlen,
			 "rule '%s' has port '%s'; write a port from 1 to 65535 or 'any'",
			 text, port);
		return -EINVAL;
	}
	key->port = htons((__u16)port_v);
	key->prefixlen = XRX_RULE_PREFIX_BASE;
	if (!addr)
		return 0;

	plen_s = strchr(addr, '/');
	if (plen_s)
		*plen_s++ = '\0';
	is_v4 = !strchr(addr, ':');
	if (is_v4 ? inet_pton(AF_INET, addr, &a4) != 1 :
		    inet_pton(AF_INET6, addr, &a6) != 1) {
		snprintf(err, errlen,
			 "rule '%s' has address '%s'; write an IPv4 or IPv6 prefix such as 198.18.0.0/15 or 2001:db8::/32",
			 text, addr);
		return -EINVAL;
	}
	plen = is_v4 ? 32 : 128;
	if (plen_s && xrx_parse_u32(plen_s, 0, plen, &plen)) {
		snprintf(err, errlen,
			 "rule '%s' has prefix length '%s'; write 0 to %s",
			 text, plen_s, is_v4 ? "32" : "128");
		return -EINVAL;
	}
	if (is_v4) {
		memcpy(key->addr, v4mapped, sizeof(v4mapped));
		memcpy(key->addr + 12, &a4, 4);
		if (!host_bits_zero(key->addr + 12, 4, plen))
			goto host_bits;
		key->prefixlen = XRX_RULE_PREFIX_V4 + plen;
	} else {
		memcpy(key->addr, &a6, 16);
		if (!host_bits_zero(key->addr, 16, plen))
			goto host_bits;
		key->prefixlen = XRX_RULE_PREFIX_BASE + plen;
	}
	return 0;

host_bits:
	/* An LPM key ignores them; a rule that names them is a typo. */
	snprintf(err, errlen,
		 "rule '%s' has address bits set beyond /%u; write the network address of the prefix",
		 text, plen);
	return -EINVAL;
}

int xrx_rule_format(const struct xrx_rule_key *key, char *buf, size_t len)
{
	char port[8], addr[INET6_ADDRSTRLEN];
	const char *proto = key->proto == IPPROTO_TCP ? "tcp" :
			    key->proto == IPPROTO_UDP ? "udp" : "?";
	const char *scope = "?", *colon = ":";
	__u32 plen;
	int n;

	if (key->scope == XRX_RULE_SCOPE_OUTER)
		scope = colon = "";
	else if (key->scope < XRX_RULE_SCOPES)
		scope = tnl_names[key->scope - XRX_RULE_SCOPE_INNER];

	if (key->port)
		snprintf(port, sizeof(port), "%u", ntohs(key->port));
	else
		strcpy(port, "any");
	if (key->prefixlen <= XRX_RULE_PREFIX_BASE) {
		n = snprintf(buf, len, "%s%s%s/%s", scope, colon, proto, port);
	} else if (key->prefixlen >= XRX_RULE_PREFIX_V4 &&
		   !memcmp(key->addr, v4mapped, sizeof(v4mapped))) {
		plen = key->prefixlen - XRX_RULE_PREFIX_V4;
		inet_ntop(AF_INET, key->addr + 12, addr, sizeof(addr));
		n = snprintf(buf, len, "%s%s%s/%s@%s/%u", scope, colon, proto,
			     port, addr, plen);
	} else {
		plen = key->prefixlen - XRX_RULE_PREFIX_BASE;
		inet_ntop(AF_INET6, key->addr, addr, sizeof(addr));
		n = snprintf(buf, len, "%s%s%s/%s@%s/%u", scope, colon, proto,
			     port, addr, plen);
	}
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

/* dev_valid_name(): what the kernel accepts as an interface name. */
bool xrx_ifname_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= IF_NAMESIZE || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return false;
	for (; *name; name++)
		if (*name == '/' || *name == ':' || isspace((unsigned char)*name))
			return false;
	return true;
}

const char *xrx_unit_name(const char *ifname, char *buf, size_t len)
{
	char esc[4 * IF_NAMESIZE + 1];
	bool quote = false;
	size_t n = 0;
	const char *c;

	/* systemd-escape keeps [A-Za-z0-9:_.] (no leading '.'), else \xXX. */
	for (c = ifname; *c && n + 5 < sizeof(esc); c++) {
		if (isalnum((unsigned char)*c) || *c == ':' || *c == '_' ||
		    (*c == '.' && c != ifname)) {
			esc[n++] = *c;
		} else {
			n += (size_t)snprintf(esc + n, sizeof(esc) - n, "\\x%02x",
					      (unsigned char)*c);
			quote = true;
		}
	}
	esc[n] = '\0';
	snprintf(buf, len, quote ? "'xrxd@%s'" : "xrxd@%s", esc);
	return buf;
}
