// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrxd's config parser (user/ctl/conf.c, rule.c): defaults, every key
 * with good and bad values, "FILE:LINE: what; what to write" messages,
 * accelerate rules as xrx_rules keys, and the shipped example config.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <xrx/sink.h>
#include <xrx/live.h>
#include "ctl_conf.h"

static struct xrx_conf *conf_new(void)
{
	struct xrx_conf *c = malloc(sizeof(*c));

	assert_non_null(c);
	return c;
}

static int parse(struct xrx_conf *c, const char *text, char *err)
{
	err[0] = '\0';
	return xrx_conf_parse_string("t.conf", text, c, err, XRX_CONF_ERR_MAX);
}

static void test_defaults(void **state)
{
	struct xrx_conf *c = conf_new();
	char err[XRX_CONF_ERR_MAX];
	int i;

	assert_int_equal(parse(c, "interface = eth0\n", err), 0);
	assert_string_equal(c->ifname, "eth0");
	assert_int_equal(c->ifname_line, 1);
	assert_int_equal(c->queues, 0);
	assert_int_equal(c->attach, XRX_CONF_ATTACH_AUTO);
	assert_string_equal(c->sink, "null");
	assert_int_equal(c->nrules, 0);
	assert_int_equal(c->default_action, XRX_ACT_PASS);
	assert_int_equal(c->engine.max_aggregate, 65536);
	assert_int_equal(c->engine.max_segs, 64);
	assert_int_equal(c->engine.flush_timeout_us, 0);
	assert_false(c->live.no_coalesce);
	assert_int_equal(c->live.coalesce_usec, 0);	/* by the sink */
	assert_int_equal(c->engine.flows, 4096);
	assert_int_equal(c->engine.copy, XRX_COPY_HEADER);
	assert_int_equal(c->engine.csum, XRX_CSUM_VERIFY);
	assert_false(c->engine.udp);
	assert_int_equal(c->sink_opts.tun_ipv6_jumbo, XRX_TUN_IPV6_JUMBO_AUTO);
	assert_string_equal(c->tee, "");
	assert_false(c->live.busy_poll);
	assert_int_equal(c->live.busy_poll_usec, 50);
	assert_int_equal(c->live.busy_poll_budget, 64);
	/* LRO off by default, not required; everything else kept (the NAPI
	 * settings too: busy polling is off). */
	assert_true(c->offload[XRX_OFF_LRO].set);
	assert_int_equal(c->offload[XRX_OFF_LRO].value, 0);
	assert_false(c->offload[XRX_OFF_LRO].required);
	for (i = 0; i < XRX_OFF_MAX; i++)
		if (i != XRX_OFF_LRO)
			assert_false(c->offload[i].set);
	free(c);
}

static const char full_conf[] =
	"# every key, none at its default\n"
	"interface = xd0\n"
	"queues = 3\n"
	"attach = native\n"
	"sink = pcap:/var/lib/xrx/cap.pcap\n"
	"accelerate = tcp/5001, udp/4789, tcp/any, tcp/5001@198.18.0.0/15, udp/53@2001:db8::/32, vxlan:tcp/5201\n"
	"default = accel\n"
	"max_aggregate = 524280\n"
	"max_segments = 45\n"
	"flush_timeout_us = 50   # trailing comment\n"
	"coalesce = off\n"
	"coalesce_us = 100\n"
	"flows = 65536\n"
	"copy = max-head\n"
	"csum = trust\n"
	"udp_gro = on\n"
	"vxlan_ports = 4789, 8472\n"
	"tun_ipv6_jumbo = split\n"
	"tee = pcap:/var/lib/xrx/tee.pcap,size=1M,files=2\n"
	"busy_poll = on\n"
	"busy_poll_us = 200\n"
	"busy_poll_budget = 128\n"
	"\n"
	"[offload]\n"
	"lro = on\n"
	"gro = off!\n"
	"hw_gro = on!\n"
	"gro_list = off\n"
	"udp_gro_forwarding = on\n"
	"rx_checksum = on\n"
	"rx_vlan = off\n"
	"rx_hash = on\n"
	"ntuple = off\n"
	"gro_max_size = 131072\n"
	"gso_max_size = 65536!\n"
	"gro_ipv4_max_size = 100000\n"
	"gso_ipv4_max_size = 1024\n"
	"rx_ring = max\n"
	"header_split = on\n"
	"channels = 4\n"
	"napi_defer_hard_irqs = 10\n"
	"gro_flush_timeout = 50000!\n";

static void test_every_key(void **state)
{
	struct xrx_conf *c = conf_new();
	char err[XRX_CONF_ERR_MAX];

	assert_int_equal(parse(c, full_conf, err), 0);
	assert_string_equal(c->ifname, "xd0");
	assert_int_equal(c->queues, 3);
	assert_int_equal(c->attach, XRX_CONF_ATTACH_NATIVE);
	assert_string_equal(c->sink, "pcap:/var/lib/xrx/cap.pcap");
	assert_int_equal(c->nrules, 6);
	assert_int_equal(c->rules[5].scope, XRX_RULE_SCOPE_INNER);
	assert_int_equal(c->default_action, XRX_ACT_ACCEL);
	assert_int_equal(c->engine.max_aggregate, 524280);
	assert_int_equal(c->engine.max_segs, 45);
	assert_int_equal(c->engine.flush_timeout_us, 50);
	assert_true(c->live.no_coalesce);
	assert_int_equal(c->live.coalesce_usec, 100);
	assert_int_equal(c->engine.flows, 65536);
	assert_int_equal(c->engine.copy, XRX_COPY_MAX_HEAD);
	assert_int_equal(c->engine.csum, XRX_CSUM_TRUST);
	assert_true(c->engine.udp);
	assert_int_equal(c->engine.nr_vxlan_ports, 2);
	assert_int_equal(c->engine.vxlan_ports[0], 4789);
	assert_int_equal(c->engine.vxlan_ports[1], 8472);
	assert_int_equal(c->sink_opts.tun_ipv6_jumbo, XRX_TUN_IPV6_JUMBO_SPLIT);
	assert_string_equal(c->tee, "pcap:/var/lib/xrx/tee.pcap,size=1M,files=2");
	assert_true(c->live.busy_poll);
	assert_int_equal(c->live.busy_poll_usec, 200);
	assert_int_equal(c->live.busy_poll_budget, 128);

	assert_true(c->offload[XRX_OFF_LRO].set);
	assert_int_equal(c->offload[XRX_OFF_LRO].value, 1);
	assert_int_equal(c->offload[XRX_OFF_GRO].value, 0);
	assert_true(c->offload[XRX_OFF_GRO].required);
	assert_int_equal(c->offload[XRX_OFF_GRO].line, 26);
	assert_true(c->offload[XRX_OFF_HW_GRO].required);
	assert_int_equal(c->offload[XRX_OFF_HW_GRO].value, 1);
	assert_false(c->offload[XRX_OFF_GRO_LIST].required);
	assert_int_equal(c->offload[XRX_OFF_UDP_GRO_FWD].value, 1);
	assert_int_equal(c->offload[XRX_OFF_RX_CSUM].value, 1);
	assert_int_equal(c->offload[XRX_OFF_RX_VLAN].value, 0);
	assert_int_equal(c->offload[XRX_OFF_RX_HASH].value, 1);
	assert_int_equal(c->offload[XRX_OFF_NTUPLE].value, 0);
	assert_int_equal(c->offload[XRX_OFF_GRO_MAX_SIZE].value, 131072);
	assert_int_equal(c->offload[XRX_OFF_GSO_MAX_SIZE].value, 65536);
	assert_true(c->offload[XRX_OFF_GSO_MAX_SIZE].required);
	assert_int_equal(c->offload[XRX_OFF_GRO_IPV4_MAX_SIZE].value, 100000);
	assert_int_equal(c->offload[XRX_OFF_GSO_IPV4_MAX_SIZE].value, 1024);
	assert_int_equal(c->offload[XRX_OFF_RX_RING].value, XRX_CONF_VAL_MAX);
	assert_int_equal(c->offload[XRX_OFF_HEADER_SPLIT].value, 1);
	assert_int_equal(c->offload[XRX_OFF_CHANNELS].value, 4);
	/* Written out, they win over busy_poll's values. */
	assert_int_equal(c->offload[XRX_OFF_NAPI_DEFER_HARD_IRQS].value, 10);
	assert_false(c->offload[XRX_OFF_NAPI_DEFER_HARD_IRQS].required);
	assert_int_equal(c->offload[XRX_OFF_GRO_FLUSH_TIMEOUT].value, 50000);
	assert_true(c->offload[XRX_OFF_GRO_FLUSH_TIMEOUT].required);
	free(c);
}

/*
 * busy_poll = on sets the NAPI deferral it needs where [offload] is
 * silent (on busy_poll's line, for messages), and never where it speaks.
 */
static void test_busy_poll(void **state)
{
	struct xrx_conf *c = conf_new();
	char err[XRX_CONF_ERR_MAX];
	int i;

	assert_int_equal(parse(c, "interface = a\nbusy_poll = on\n", err), 0);
	assert_true(c->live.busy_poll);
	assert_true(c->offload[XRX_OFF_NAPI_DEFER_HARD_IRQS].set);
	assert_int_equal(c->offload[XRX_OFF_NAPI_DEFER_HARD_IRQS].value, 2);
	assert_int_equal(c->offload[XRX_OFF_NAPI_DEFER_HARD_IRQS].line, 2);
	assert_false(c->offload[XRX_OFF_NAPI_DEFER_HARD_IRQS].required);
	assert_true(c->offload[XRX_OFF_GRO_FLUSH_TIMEOUT].set);
	assert_int_equal(c->offload[XRX_OFF_GRO_FLUSH_TIMEOUT].value, 200000);
	assert_int_equal(c->offload[XRX_OFF_GRO_FLUSH_TIMEOUT].line, 2);
	/* Nothing else changes. */
	for (i = 0; i < XRX_OFF_MAX; i++)
		if (i != XRX_OFF_LRO && i != XRX_OFF_NAPI_DEFER_HARD_IRQS &&
		    i != XRX_OFF_GRO_FLUSH_TIMEOUT)
			assert_false(c->offload[i].set);

	/* keep is kept; a value written is the value. */
	assert_int_equal(parse(c, "interface = a\nbusy_poll = on\n[offload]\n"
				  "napi_defer_hard_irqs = keep\n"
				  "gro_flush_timeout = 20000\n", err), 0);
	assert_false(c->offload[XRX_OFF_NAPI_DEFER_HARD_IRQS].set);
	assert_int_equal(c->offload[XRX_OFF_GRO_FLUSH_TIMEOUT].value, 20000);
	assert_int_equal(c->offload[XRX_OFF_GRO_FLUSH_TIMEOUT].line, 5);
	/* busy_poll = off: the NAPI settings are [offload]'s alone, 0 too. */
	assert_int_equal(parse(c, "interface = a\nbusy_poll = off\n", err), 0);
	assert_false(c->offload[XRX_OFF_NAPI_DEFER_HARD_IRQS].set);
	assert_false(c->offload[XRX_OFF_GRO_FLUSH_TIMEOUT].set);
	assert_int_equal(parse(c, "interface = a\noffload.napi_defer_hard_irqs = 0\n"
				  "offload.gro_flush_timeout = 1000000000\n", err), 0);
	assert_true(c->offload[XRX_OFF_NAPI_DEFER_HARD_IRQS].set);
	assert_int_equal(c->offload[XRX_OFF_NAPI_DEFER_HARD_IRQS].value, 0);
	assert_int_equal(c->offload[XRX_OFF_GRO_FLUSH_TIMEOUT].value, 1000000000);
	/* The bounds, both ends. */
	assert_int_equal(parse(c, "interface = a\nbusy_poll_us = 1\nbusy_poll_budget = 1\n"
				  "offload.napi_defer_hard_irqs = 2147483647\n", err), 0);
	assert_int_equal(c->live.busy_poll_usec, 1);
	assert_int_equal(c->live.busy_poll_budget, 1);
	assert_int_equal(c->offload[XRX_OFF_NAPI_DEFER_HARD_IRQS].value, 2147483647);
	assert_int_equal(parse(c, "interface = a\nbusy_poll_us = 100000\nbusy_poll_budget = 1024\n", err), 0);
	assert_int_equal(c->live.busy_poll_usec, 100000);
	assert_int_equal(c->live.busy_poll_budget, 1024);
	free(c);
}

static void test_other_values(void **state)
{
	struct xrx_conf *c = conf_new();
	char err[XRX_CONF_ERR_MAX];

	assert_int_equal(parse(c, "interface=a\nattach=skb\nsink=tun:xrx0\n"
				  "queues=all\ncopy=full\naccelerate=none\n"
				  "default=pass\nudp_gro=off\noffload.lro=keep\n"
				  "offload.channels=max!\nmax_aggregate=1024\n"
				  "flush_timeout_us=1000000\n",
			 err),
			 0);
	assert_int_equal(c->attach, XRX_CONF_ATTACH_SKB);
	assert_string_equal(c->sink, "tun:xrx0");
	assert_int_equal(c->queues, 0);
	assert_int_equal(c->engine.copy, XRX_COPY_FULL);
	assert_int_equal(c->nrules, 0);
	assert_false(c->offload[XRX_OFF_LRO].set);
	assert_int_equal(c->offload[XRX_OFF_CHANNELS].value, XRX_CONF_VAL_MAX);
	assert_true(c->offload[XRX_OFF_CHANNELS].required);
	assert_int_equal(c->engine.max_aggregate, 1024);
	assert_int_equal(c->engine.flush_timeout_us, 1000000);

	/* The top of every range is the engine's and the sink's own
	 * (include/xrx/options.h), as xrx-replay takes it too. */
	assert_int_equal(parse(c, "interface = a\nmax_segments = 65535\n"
				  "flows = 16777216\nmax_aggregate = 524280\n"
				  "sink = pcap:/x.pcap,snaplen=524792\n", err), 0);
	assert_int_equal(c->engine.max_segs, 65535);
	assert_int_equal(c->engine.flows, 16777216);
	assert_int_equal(parse(c, "interface = a\nmax_segments = 1025\n"
				  "flows = 2000000\n", err), 0);
	assert_int_equal(c->engine.max_segs, 1025);
	assert_int_equal(c->engine.flows, 2000000);

	/* VXLAN into the TUN and TAP sinks (whole or as segments) */
	assert_int_equal(parse(c, "interface = a\nvxlan_ports = 4789\nsink = tun:xt0\n", err), 0);
	assert_int_equal(c->engine.nr_vxlan_ports, 1);
	assert_string_equal(c->sink, "tun:xt0");
	assert_int_equal(parse(c, "interface = a\nsink = tap:xt0,nogso\nvxlan_ports = 4789, 8472\n", err), 0);
	assert_int_equal(c->engine.nr_vxlan_ports, 2);
	assert_string_equal(c->sink, "tap:xt0,nogso");

	/* A key under [offload] and the dotted form are the same key. */
	assert_int_equal(parse(c, "interface = a\n[offload]\ngro = on\n", err), 0);
	assert_true(c->offload[XRX_OFF_GRO].set);
	assert_int_equal(parse(c, "interface = a\noffload.gro = on\n", err), 0);
	assert_true(c->offload[XRX_OFF_GRO].set);
	/* CRLF line ends, blanks, no final newline. */
	assert_int_equal(parse(c, "  interface\t=  a \r\n\r\n  # c\r\nqueues = 2", err), 0);
	assert_int_equal(c->queues, 2);
	free(c);
}

struct bad {
	const char *text;
	int line;
	const char *says;	/* part of the message */
};

static const struct bad bad_confs[] = {
	{ "interface = eth0\nbogus = 1\n", 2, "unknown key 'bogus'" },
	{ "interface = eth0\nqueue = 1\n", 2, "did you mean 'queues'" },
	{ "interface = eth0\n[offload]\ngro_max = 1\n", 3, "did you mean 'offload.gro_max_size'" },
	/* Misspelt after [offload]: a top-level key, ethtool's name of an
	 * offload (with '_' or as ethtool -k writes it), upper case. */
	{ "interface = eth0\n[offload]\nmax_agregate = 1\n", 3, "unknown key 'offload.max_agregate'; did you mean 'max_aggregate'? It is a top-level key: move it above [offload]" },
	{ "interface = eth0\n[offload]\nrx_gro_hw = on\n", 3, "unknown key 'offload.rx_gro_hw'; did you mean 'offload.hw_gro'?" },
	{ "interface = eth0\n[offload]\nrx-gro-hw = on\n", 3, "did you mean 'offload.hw_gro'?" },
	{ "interface = eth0\n[offload]\nrx_vlan_hw_pars = on\n", 3, "did you mean 'offload.rx_vlan'?" },
	{ "interface = eth0\n[offload]\nRX_RING = 512\n", 3, "did you mean 'offload.rx_ring'?" },
	{ "interface = eth0\n[offload]\ntso = off\n", 3, "did you mean 'offload.lro'?" },
	{ "interface = eth0\nmax-aggregate = 1\n", 2, "did you mean 'max_aggregate'?" },
	/* An offload key above [offload]: the section, not a typo. */
	{ "interface = eth0\nlro = off\n", 2, "'lro' is an offload setting; write it under [offload]" },
	{ "interface = eth0\ngro_max_size = 65536\n[offload]\n", 2, "'gro_max_size' is an offload setting; write it under [offload]" },
	{ "interface = eth0\n[offload]\nsink = null\n", 3, "'sink' is a top-level key, not an offload setting; move it above [offload]" },
	{ "interface = eth0\nqueues = 2\nqueues = 3\n", 3, "duplicate key 'queues' (first set on line 2)" },
	{ "interface = eth0\noffload.gro = on\n[offload]\ngro = off\n", 4, "duplicate key 'offload.gro'" },
	{ "queues = 2\n", 1, "no interface; add a line 'interface = NAME'" },
	{ "\n\n# nothing\n", 3, "no interface" },
	{ "", 1, "no interface" },
	{ "interface = this-name-is-too-long\n", 1, "not a valid interface name" },
	{ "interface = a/b\n", 1, "not a valid interface name" },
	{ "interface = eth0\nqueues = 0\n", 2, "out of range" },
	{ "interface = eth0\nqueues = 4097\n", 2, "out of range" },
	{ "interface = eth0\nqueues = two\n", 2, "not a number" },
	{ "interface = eth0\nattach = nativ\n", 2, "write auto, native or skb" },
	{ "interface = eth0\nsink = file:/x\n", 2, "write null, pcap:/PATH[,size=N,files=N,snaplen=N,explain], tun:NAME or tap:NAME" },
	{ "interface = eth0\nsink = pcap:/x.pcap,size=1X\n", 2, "size=1X is not a size of at least 4096 bytes; write a byte count" },
	{ "interface = eth0\nsink = pcap:/x.pcap,size=100\n", 2, "size=100 is not a size" },
	{ "interface = eth0\nsink = pcap:/x.pcap,size=1M,files=1\n", 2, "files=1 is out of range; write how many files to keep in all, 2 to 1000" },
	{ "interface = eth0\nsink = pcap:/x.pcap,size=1M,files=4K\n", 2, "files=4K is out of range" },
	{ "interface = eth0\nsink = pcap:/x.pcap,files=4\n", 2, "files= needs size=" },
	{ "interface = eth0\nsink = pcap:/x.pcap,snaplen=10\n", 2, "sink = pcap:/x.pcap: snaplen=10 is out of range; write a byte count from 64 to 524792" },
	{ "interface = eth0\nsink = pcap:/x.pcap,snaplen=524793\n", 2, "snaplen=524793 is out of range" },
	{ "interface = eth0\nsink = pcap:/x.pcap,snaplen=1k\n", 2, "snaplen=1k is not a number" },
	{ "interface = eth0\nsink = pcap:/x.pcap,count=3\n", 2, "unknown option 'count=3'" },
	/* filter=: libpcap's own message, the expression named */
	{ "interface = eth0\nsink = pcap:/x.pcap,filter=tcp prot 80\n", 2, "sink = pcap:/x.pcap: filter=tcp prot 80: can't parse filter expression: syntax error; see pcap-filter(7)" },
	{ "interface = eth0\ntee = pcap:/x.pcap,filter=\n", 2, "tee = pcap:/x.pcap: filter= has no expression" },
	{ "interface = eth0\ntee = pcap:/x.pcap,filter=port 99999\n", 2, "filter=port 99999: illegal port number 99999 > 65535" },
	{ "interface = eth0\nsink = pcap:,size=1M\n", 2, "needs an absolute path" },
	{ "interface = eth0\nsink = pcap:rel.pcap\n", 2, "needs an absolute path" },
	{ "interface = eth0\nsink = tun:\n", 2, "not a valid TUN name" },
	{ "interface = eth0\ntee = null\n", 2, "tee = null is not a valid tee; write none, pcap:/PATH[,size=N,files=N,snaplen=N,explain], tun:NAME or tap:NAME" },
	{ "interface = eth0\ntee = file:/x\n", 2, "write none, pcap:" },
	{ "interface = eth0\ntee = pcap:rel.pcap\n", 2, "tee = pcap:rel.pcap needs an absolute path" },
	{ "interface = eth0\ntee = pcap:/x.pcap,snaplen=10\n", 2, "tee = pcap:/x.pcap: snaplen=10 is out of range" },
	{ "interface = eth0\ntee = tun:\n", 2, "tee = tun: is not a valid TUN name" },
	{ "interface = eth0\ntee = tap:a/b\n", 2, "not a valid TAP name" },
	{ "interface = eth0\nsink = tun:xrx0\ntee = tun:xrx0\n", 3,
	  "tee = tun:xrx0 names what sink = tun:xrx0 (line 2) writes to; give the tee its own file or device" },
	{ "interface = eth0\ntee = tap:xrx0\nsink = tun:xrx0\n", 2, "tee = tap:xrx0 names what sink = tun:xrx0 (line 3)" },
	{ "interface = eth0\nsink = pcap:/run/x.pcap\ntee = pcap:/run/x.pcap,snaplen=128\n", 3,
	  "names what sink = pcap:/run/x.pcap (line 2)" },
	{ "interface = eth0\ntee = tun:xrx0\ncsum = trust\n", 3,
	  "csum = trust with tee = tun:xrx0 (line 2) hands unverified segments" },
	{ "interface = eth0\naccelerate = sctp/1\n", 2, "write tcp or udp" },
	{ "interface = eth0\naccelerate = tcp/0\n", 2, "from 1 to 65535 or 'any'" },
	{ "interface = eth0\naccelerate = tcp/65536\n", 2, "from 1 to 65535 or 'any'" },
	{ "interface = eth0\naccelerate = tcp\n", 2, "has no port" },
	{ "interface = eth0\naccelerate = tcp/1,,udp/2\n", 2, "empty rule" },
	{ "interface = eth0\naccelerate = tcp/1,\n", 2, "empty rule" },
	{ "interface = eth0\naccelerate = tcp/1, tcp/1\n", 2, "twice" },
	{ "interface = eth0\naccelerate = tcp/1@198.18.0.1/15\n", 2, "network address" },
	{ "interface = eth0\naccelerate = tcp/1@198.18.0.0/33\n", 2, "write 0 to 32" },
	{ "interface = eth0\naccelerate = tcp/1@2001:db8::/129\n", 2, "write 0 to 128" },
	{ "interface = eth0\naccelerate = tcp/1@198.18.0\n", 2, "IPv4 or IPv6 prefix" },
	{ "interface = eth0\ndefault = drop\n", 2, "write pass or accel" },
	{ "interface = eth0\nmax_aggregate = 1023\n", 2, "from 1024 to 524280" },
	{ "interface = eth0\nmax_aggregate = 524281\n", 2, "from 1024 to 524280" },
	{ "interface = eth0\nmax_aggregate = 64k\n", 2, "not a number" },
	{ "interface = eth0\nmax_segments = 0\n", 2, "out of range" },
	{ "interface = eth0\nmax_segments = 65536\n", 2, "max_segments = 65536 is out of range; write a segment count from 1 to 65535" },
	{ "interface = eth0\nflows = 16777217\n", 2, "flows = 16777217 is out of range; write a flow count from 1 to 16777216" },
	{ "interface = eth0\nflush_timeout_us = 1000001\n", 2, "flush_timeout_us = 1000001 is out of range; write microseconds from 0 to 1000000" },
	{ "interface = eth0\nflush_timeout_us = -1\n", 2, "not a number" },
	{ "interface = eth0\ncoalesce_us = 1001\n", 2, "coalesce_us = 1001 is out of range; write microseconds from 0 to 1000" },
	{ "interface = eth0\ncoalesce_us = -1\n", 2, "coalesce_us = -1 is not a number; write microseconds from 0 to 1000 (decimal digits only)" },
	{ "interface = eth0\ncoalesce = no\n", 2, "coalesce = no is not a valid value; write on or off" },
	{ "interface = eth0\nflows = 0\n", 2, "out of range" },
	{ "interface = eth0\ncopy = headers\n", 2, "write header, max-head or full" },
	{ "interface = eth0\ncsum = none\n", 2, "write verify or trust" },
	{ "interface = eth0\nudp_gro = yes\n", 2, "write off or on" },
	{ "interface = eth0\nbusy_poll = yes\n", 2, "busy_poll = yes is not a valid value; write off or on" },
	{ "interface = eth0\nbusy_poll_us = 0\n", 2, "busy_poll_us = 0 is out of range; write microseconds from 1 to 100000" },
	{ "interface = eth0\nbusy_poll_us = 100001\n", 2, "write microseconds from 1 to 100000" },
	{ "interface = eth0\nbusy_poll_us = 50us\n", 2, "not a number" },
	{ "interface = eth0\nbusy_poll_budget = 0\n", 2, "busy_poll_budget = 0 is out of range; write a frame count from 1 to 1024" },
	{ "interface = eth0\nbusy_poll_budget = 1025\n", 2, "from 1 to 1024" },
	{ "interface = eth0\nbusy_pol = on\n", 2, "did you mean 'busy_poll'" },
	{ "interface = eth0\nnapi_defer_hard_irqs = 2\n", 2, "'napi_defer_hard_irqs' is an offload setting; write it under [offload]" },
	{ "interface = eth0\n[offload]\nbusy_poll = on\n", 3, "'busy_poll' is a top-level key" },
	{ "interface = eth0\noffload.napi_defer_hard_irqs = 2147483648\n", 2,
	  "offload.napi_defer_hard_irqs = 2147483648 is not valid; write keep or a count of empty polls from 0 to 2147483647" },
	{ "interface = eth0\noffload.napi_defer_hard_irqs = -1\n", 2, "write keep or a count of empty polls" },
	{ "interface = eth0\noffload.gro_flush_timeout = 1000000001!\n", 2,
	  "offload.gro_flush_timeout = 1000000001 is not valid; write keep or nanoseconds from 0 to 1000000000" },
	{ "interface = eth0\noffload.gro_flush_timeout = max\n", 2, "write keep or nanoseconds" },
	{ "interface = eth0\nbusy_poll = on\n[offload]\nnapi_defer_hard_irqs = 0\n", 4,
	  "offload.napi_defer_hard_irqs = 0 with busy_poll = on (line 2): the kernel would turn interrupts back on after every busy poll; write 2 (busy_poll's value), keep, or busy_poll = off" },
	{ "interface = eth0\noffload.gro_flush_timeout = 0!\nbusy_poll = on\n", 2,
	  "offload.gro_flush_timeout = 0 with busy_poll = on (line 3)" },
	{ "interface = eth0\nsink = tun:xrx0\ncsum = trust\n", 3,
	  "with sink = tun:xrx0 (line 2) hands unverified segments to the kernel stack, which does not check them again; write csum = verify, or add csum_trust_may_deliver_corrupt_data = on" },
	{ "interface = eth0\ncsum = trust\nsink = tun:xrx0\ncsum_trust_may_deliver_corrupt_data = off\n", 2,
	  "write csum = verify" },
	{ "interface = eth0\ncsum_trust_may_deliver_corrupt_data = yes\n", 2, "write off or on" },
	{ "interface = eth0\nsink = tap:\n", 2, "not a valid TAP name" },
	{ "interface = eth0\nsink = tap:xt0\ncsum = trust\n", 3, "with sink = tap:xt0 (line 2)" },
	{ "interface = eth0\nvxlan_ports = 0\n", 2, "out of range" },
	{ "interface = eth0\ntun_ipv6_jumbo = on\n", 2, "write auto, hbh, zero or split" },
	{ "interface = eth0\nvxlan_ports = 65536\n", 2, "out of range" },
	{ "interface = eth0\nvxlan_ports = vxlan\n", 2, "not a number" },
	{ "interface = eth0\nvxlan_ports = 4789,,8472\n", 2, "empty entry" },
	{ "interface = eth0\nvxlan_ports = 4789, 4789\n", 2, "lists 4789 twice" },
	{ "interface = eth0\nvxlan_ports = 1,2,3,4,5,6,7,8,9\n", 2, "more than 8 ports" },
	{ "interface = eth0\naccelerate = tcp/1, vxlan:tcp/5201\n", 2,
	  "accelerate has vxlan:tcp/5201, a rule on the frame inside VXLAN, but vxlan_ports is none; add vxlan_ports = 4789" },
	{ "interface = eth0\nvxlan_ports = 4789\naccelerate = vxlan:tcp/1, geneve:udp/53\n", 3,
	  "accelerate has geneve:udp/53, a rule on the frame inside GENEVE, but geneve_ports is none; add geneve_ports = 6081" },
	{ "interface = eth0\ngeneve_ports = 6081\naccelerate = geneve:tcp/1, vxlan:tcp/2\n", 3,
	  "accelerate has vxlan:tcp/2, a rule on the frame inside VXLAN, but vxlan_ports is none" },
	{ "interface = eth0\naccelerate = vxlan:sctp/1\n", 2, "has protocol 'sctp'; write tcp or udp" },
	{ "interface = eth0\naccelerate = geneve:sctp/1\n", 2, "has protocol 'sctp'; write tcp or udp" },
	{ "interface = eth0\naccelerate = vxlna:tcp/1\n", 2, "unknown scope" },
	{ "interface = eth0\noffload.gro = yes\n", 2, "write on, off or keep" },
	{ "interface = eth0\noffload.gro = keep!\n", 2, "cannot be required" },
	{ "interface = eth0\noffload.gro_max_size = 100\n", 2, "from 1024 to 524280" },
	{ "interface = eth0\noffload.gso_max_size = 600000!\n", 2, "from 1024 to 524280" },
	{ "interface = eth0\noffload.rx_ring = 0\n", 2, "keep, max or a count" },
	{ "interface = eth0\noffload.channels = lots\n", 2, "keep, max or a count" },
	{ "interface = eth0\noffload.header_split = auto\n", 2, "write on, off or keep" },
	{ "interface = eth0\nqueues = 8\noffload.channels = 4\n", 2, "more than offload.channels = 4 (line 3)" },
	{ "interface = eth0\n[main]\n", 2, "unknown section [main]" },
	{ "interface = eth0\n[offload\n", 2, "no closing ']'" },
	{ "interface = eth0\njust words\n", 2, "write key = value" },
	{ "interface = eth0\n= 3\n", 2, "a value without a key" },
	{ "interface = eth0\nqueues =\n", 2, "has no value" },
	{ "interface = eth0\nQueues = 2\n", 2, "lower case" },
	{ "interface = eth0\n[offload]\nqueues = 2\n", 3, "'queues' is a top-level key, not an offload setting; move it above [offload]" },
};

/*
 * csum = trust into a TUN sink needs the key that names the risk; trust
 * into other sinks, and verify into a TUN sink, need nothing.
 */
static void test_csum_trust_tun(void **state)
{
	static const char ack[] = "interface = eth0\nsink = tun:xrx0\n"
				  "csum = trust\n"
				  "csum_trust_may_deliver_corrupt_data = on\n";
	struct xrx_conf *c = conf_new(), *d = conf_new();
	char err[XRX_CONF_ERR_MAX], *text = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(parse(c, ack, err), 0);
	assert_int_equal(c->engine.csum, XRX_CSUM_TRUST);
	assert_true(c->csum_trust_ack);
	/* Written back, the acknowledgement stays: a reload keeps working. */
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(xrx_conf_write(f, c), 0);
	fclose(f);
	assert_non_null(strstr(text, "csum_trust_may_deliver_corrupt_data = on\n"));
	assert_int_equal(parse(d, text, err), 0);
	assert_true(d->csum_trust_ack);
	free(text);

	assert_int_equal(parse(c, "interface = eth0\nsink = pcap:/x.pcap\ncsum = trust\n", err), 0);
	assert_false(c->csum_trust_ack);
	assert_int_equal(parse(c, "interface = eth0\nsink = tun:xrx0\ncsum = verify\n", err), 0);
	free(c);
	free(d);
}

static void test_bad_values(void **state)
{
	struct xrx_conf *c = conf_new();
	char err[XRX_CONF_ERR_MAX], prefix[32];
	size_t i;

	for (i = 0; i < sizeof(bad_confs) / sizeof(bad_confs[0]); i++) {
		const struct bad *b = &bad_confs[i];
		int ret = parse(c, b->text, err);

		if (ret != -EINVAL || !strstr(err, b->says))
			fail_msg("config %zu \"%s\": ret %d, message \"%s\", expected \"%s\"",
				 i, b->text, ret, err, b->says);
		snprintf(prefix, sizeof(prefix), "t.conf:%d: ", b->line);
		if (strncmp(err, prefix, strlen(prefix)))
			fail_msg("config %zu: message \"%s\" does not start with \"%s\"",
				 i, err, prefix);
		/* One line: what is wrong; what to write instead. */
		assert_null(strchr(err, '\n'));
		assert_non_null(strchr(err, ';') ? strchr(err, ';') : strstr(err, "did you mean"));
	}
	free(c);
}

struct rule_case {
	const char *text;
	__u8 proto;
	__u16 port;
	__u32 prefixlen;
	const char *addr;	/* NULL: none; else the address as text */
	const char *canon;	/* xrx_rule_format(), NULL: same as text */
	__u8 scope;		/* enum xrx_rule_scope */
};

static const struct rule_case rules[] = {
	{ "tcp/5001", IPPROTO_TCP, 5001, 32, NULL, NULL, 0 },
	{ "udp/4789", IPPROTO_UDP, 4789, 32, NULL, NULL, 0 },
	{ "tcp/any", IPPROTO_TCP, 0, 32, NULL, NULL, 0 },
	{ "tcp/65535", IPPROTO_TCP, 65535, 32, NULL, NULL, 0 },
	{ "tcp/5001@198.18.0.0/15", IPPROTO_TCP, 5001, 32 + 96 + 15, "::ffff:198.18.0.0", NULL, 0 },
	{ "udp/any@198.18.0.7", IPPROTO_UDP, 0, 32 + 96 + 32, "::ffff:198.18.0.7", "udp/any@198.18.0.7/32", 0 },
	{ "tcp/80@0.0.0.0/0", IPPROTO_TCP, 80, 32 + 96, "::ffff:0.0.0.0", NULL, 0 },
	{ "tcp/5001@2001:db8::/32", IPPROTO_TCP, 5001, 32 + 32, "2001:db8::", NULL, 0 },
	{ "udp/53@2001:db8::1", IPPROTO_UDP, 53, 32 + 128, "2001:db8::1", "udp/53@2001:db8::1/128", 0 },
	{ "tcp/1@::/0", IPPROTO_TCP, 1, 32, "::", "tcp/1", 0 },
	{ "vxlan:tcp/5201", IPPROTO_TCP, 5201, 32, NULL, NULL,
	  XRX_RULE_SCOPE_INNER },
	{ "vxlan:udp/any@198.18.0.0/15", IPPROTO_UDP, 0, 32 + 96 + 15,
	  "::ffff:198.18.0.0", NULL, XRX_RULE_SCOPE_INNER },
	{ "vxlan:tcp/22@2001:db8:1::/48", IPPROTO_TCP, 22, 32 + 48,
	  "2001:db8:1::", NULL, XRX_RULE_SCOPE_INNER },
	{ "geneve:tcp/5201", IPPROTO_TCP, 5201, 32, NULL, NULL,
	  XRX_RULE_SCOPE_GENEVE },
	{ "geneve:udp/any@198.18.0.0/15", IPPROTO_UDP, 0, 32 + 96 + 15,
	  "::ffff:198.18.0.0", NULL, XRX_RULE_SCOPE_GENEVE },
	{ "geneve:tcp/any@2001:db8:1::/48", IPPROTO_TCP, 0, 32 + 48,
	  "2001:db8:1::", NULL, XRX_RULE_SCOPE_GENEVE },
};

static void test_rules(void **state)
{
	struct xrx_rule_key key, want;
	char err[256], text[96];
	size_t i;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct rule_case *r = &rules[i];

		memset(&want, 0, sizeof(want));
		want.prefixlen = r->prefixlen;
		want.proto = r->proto;
		want.port = htons(r->port);
		want.scope = r->scope;
		if (r->addr)
			assert_int_equal(inet_pton(AF_INET6, r->addr, want.addr), 1);
		if (xrx_rule_parse(r->text, &key, err, sizeof(err)))
			fail_msg("rule %s: %s", r->text, err);
		if (memcmp(&key, &want, sizeof(key)))
			fail_msg("rule %s: key differs (prefixlen %u want %u)",
				 r->text, key.prefixlen, want.prefixlen);
		assert_int_equal(xrx_rule_format(&key, text, sizeof(text)), 0);
		assert_string_equal(text, r->canon ? r->canon : r->text);
		/* The text form parses back to the same key. */
		assert_int_equal(xrx_rule_parse(text, &want, err, sizeof(err)), 0);
		assert_memory_equal(&key, &want, sizeof(key));
	}
	assert_int_equal(xrx_rule_parse("TCP/1", &key, err, sizeof(err)), -EINVAL);
	assert_int_equal(xrx_rule_parse("tcp/ 1", &key, err, sizeof(err)), -EINVAL);
	assert_int_equal(xrx_rule_parse("tcp/1@", &key, err, sizeof(err)), -EINVAL);
	assert_int_equal(xrx_rule_parse("tcp/1@2001:db8::1/64", &key, err, sizeof(err)), -EINVAL);
	assert_int_equal(xrx_rule_parse("tcp/1@1.2.3.4/", &key, err, sizeof(err)), -EINVAL);
	assert_int_equal(xrx_rule_parse("vxlan:", &key, err, sizeof(err)), -EINVAL);
	assert_int_equal(xrx_rule_parse("vxlan:vxlan:tcp/1", &key, err, sizeof(err)), -EINVAL);
	assert_int_equal(xrx_rule_parse("geneve:vxlan:tcp/1", &key, err, sizeof(err)), -EINVAL);
	assert_int_equal(xrx_rule_parse("genev:tcp/1", &key, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unknown scope; write vxlan:PROTO/PORT or geneve:PROTO/PORT"));
	assert_int_equal(xrx_rule_parse("vxlan-gpe:tcp/1", &key, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unknown scope"));
	/* A scope no text names is written as such, not as another's. */
	memset(&key, 0, sizeof(key));
	key.proto = IPPROTO_TCP;
	key.scope = XRX_RULE_SCOPES;
	key.prefixlen = 32;
	assert_int_equal(xrx_rule_format(&key, text, sizeof(text)), 0);
	assert_string_equal(text, "?:tcp/any");
}

/* Parse, write, parse again: the same configuration. */
static void test_write_roundtrip(void **state)
{
	struct xrx_conf *a = conf_new(), *b = conf_new();
	char err[XRX_CONF_ERR_MAX], *text = NULL;
	size_t len = 0;
	FILE *f;
	int i;

	assert_int_equal(parse(a, full_conf, err), 0);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(xrx_conf_write(f, a), 0);
	fclose(f);
	if (parse(b, text, err))
		fail_msg("written config does not parse: %s\n%s", err, text);
	/* Only where things were written may differ. */
	a->ifname_line = b->ifname_line = 0;
	for (i = 0; i < XRX_OFF_MAX; i++)
		a->offload[i].line = b->offload[i].line = 0;
	assert_memory_equal(a, b, sizeof(*a));
	free(text);
	free(a);
	free(b);
}

static void test_files(void **state)
{
	struct xrx_conf *c = conf_new();
	char err[XRX_CONF_ERR_MAX], path[] = "/tmp/xrx-test-conf.XXXXXX";
	int fd;

	assert_int_equal(xrx_conf_parse_file("/nonexistent/x.conf", c, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/x.conf: cannot open"));

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "interface = a\n\0x\n", 17), 17);
	close(fd);
	assert_int_equal(xrx_conf_parse_file(path, c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "NUL byte"));
	unlink(path);
	free(c);
}

/* pcap sink options: parsed by the sink's own parser, kept in the spec. */
static void test_pcap_options(void **state)
{
	struct xrx_sink_opts so = { .sz = sizeof(so) };
	struct xrx_conf *c = conf_new();
	char err[XRX_CONF_ERR_MAX], path[64];

	assert_int_equal(parse(c, "interface=a\nsink=pcap:/run/xrx/a.pcap,size=64M,files=4,snaplen=128\n",
			       err), 0);
	assert_string_equal(c->sink, "pcap:/run/xrx/a.pcap,size=64M,files=4,snaplen=128");
	assert_int_equal(xrx_sink_pcap__parse(c->sink + 5, path, sizeof(path), &so,
					      err, sizeof(err)), 0);
	assert_string_equal(path, "/run/xrx/a.pcap");
	assert_int_equal(so.rotate_bytes, 64ull << 20);
	assert_int_equal(so.rotate_count, 3);	/* a.pcap + 3 rotated */
	assert_int_equal(so.snaplen, 128);
	/* Options not named leave the caller's values alone. */
	so.snaplen = 200;
	assert_int_equal(xrx_sink_pcap__parse("/x,size=8K", path, sizeof(path), &so,
					      err, sizeof(err)), 0);
	assert_int_equal(so.rotate_bytes, 8192);
	assert_int_equal(so.snaplen, 200);
	/* explain: pcapng with a comment per packet; a flag, no value */
	assert_false(so.explain);
	assert_int_equal(parse(c, "interface=a\nsink=pcap:/run/xrx/a.pcapng,explain,size=1M\n",
			       err), 0);
	assert_int_equal(xrx_sink_pcap__parse(c->sink + 5, path, sizeof(path), &so,
					      err, sizeof(err)), 0);
	assert_true(so.explain);
	assert_string_equal(path, "/run/xrx/a.pcapng");
	assert_int_equal(xrx_sink_pcap__parse("/x,explain=yes", path, sizeof(path),
					      &so, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "explain=yes is not a valid value; write off or on"));
	/* filter=: the rest of the value, blanks and commas included, but
	 * not a comment after a blank */
	assert_null(so.filter);
	assert_int_equal(parse(c, "interface=a\nsink=pcap:/run/a.pcap,size=1M,filter=tcp port 80 and (host 198.18.0.1 or net 2001:db8::/32)  # web\n",
			       err), 0);
	assert_string_equal(c->sink, "pcap:/run/a.pcap,size=1M,filter=tcp port 80 and (host 198.18.0.1 or net 2001:db8::/32)");
	assert_int_equal(xrx_sink_pcap__parse(c->sink + 5, path, sizeof(path), &so,
					      err, sizeof(err)), 0);
	assert_string_equal(path, "/run/a.pcap");
	assert_string_equal(so.filter, "tcp port 80 and (host 198.18.0.1 or net 2001:db8::/32)");
	assert_int_equal(so.rotate_bytes, 1ull << 20);
	/* Last: what follows is the expression's, not another option. */
	assert_int_equal(xrx_sink_pcap__parse("/x,filter=udp,size=8K", path,
					      sizeof(path), &so, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "filter=udp,size=8K: can't parse filter expression"));
	free(c);
}

/* tee = : a second sink of the sink's forms, not the sink's own output. */
static void test_tee(void **state)
{
	struct xrx_conf *c = conf_new();
	char err[XRX_CONF_ERR_MAX];

	assert_int_equal(parse(c, "interface = a\nsink = tun:xrx0\ntee = pcap:/run/xrx/a.pcap,size=64M,files=4\n", err), 0);
	assert_string_equal(c->sink, "tun:xrx0");
	assert_string_equal(c->tee, "pcap:/run/xrx/a.pcap,size=64M,files=4");
	assert_int_equal(parse(c, "interface = a\nsink = pcap:/run/a.pcap\ntee = tap:xt0\n", err), 0);
	assert_string_equal(c->tee, "tap:xt0");
	/* Two pcap files, and a null sink with a tee. */
	assert_int_equal(parse(c, "interface = a\nsink = pcap:/run/a.pcap\ntee = pcap:/run/b.pcap\n", err), 0);
	assert_int_equal(parse(c, "interface = a\ntee = tun:xt0\n", err), 0);
	assert_string_equal(c->sink, "null");
	assert_int_equal(parse(c, "interface = a\ntee = none\n", err), 0);
	assert_string_equal(c->tee, "");
	/* A TUN tee is told the same as a TUN sink about trusted sums. */
	assert_int_equal(parse(c, "interface = a\ntee = tun:xt0\ncsum = trust\ncsum_trust_may_deliver_corrupt_data = on\n", err), 0);
	free(c);
}

/* Hints name the unit as systemd-escape would: a '-' would mean '/'. */
static void test_unit_name(void **state)
{
	char buf[80];

	assert_string_equal(xrx_unit_name("eth0", buf, sizeof(buf)), "xrxd@eth0");
	assert_string_equal(xrx_unit_name("op-b", buf, sizeof(buf)), "'xrxd@op\\x2db'");
	assert_string_equal(xrx_unit_name("vlan.10", buf, sizeof(buf)), "xrxd@vlan.10");
	assert_string_equal(xrx_unit_name(".x", buf, sizeof(buf)), "'xrxd@\\x2ex'");
}

/* xrxd@IFACE: the instance names the interface, the file may leave it out. */
static void test_interface_from_caller(void **state)
{
	struct xrx_conf *c = conf_new();
	char err[XRX_CONF_ERR_MAX], path[] = "/tmp/xrx-test-conf.XXXXXX";
	int fd;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "sink = null\n", 12), 12);
	close(fd);
	assert_int_equal(xrx_conf_parse_file_for(path, "op-b", c, err, sizeof(err)), 0);
	assert_string_equal(c->ifname, "op-b");
	/* Without a caller's interface the key is still required. */
	assert_int_equal(xrx_conf_parse_file(path, c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no interface"));
	/* A key in the file wins; xrxd then checks that the two agree. */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "interface = eth1\n", 17), 17);
	close(fd);
	assert_int_equal(xrx_conf_parse_file_for(path, "op-b", c, err, sizeof(err)), 0);
	assert_string_equal(c->ifname, "eth1");
	unlink(path);
	free(c);
}

/*
 * The shipped example: parses, accelerates nothing as shipped (a sink
 * that consumes would take the accelerated traffic from the host the
 * moment only "interface" is edited), and its commented capture recipes
 * are bounded: /run is RAM.
 */
static void test_example_conf(void **state)
{
	struct xrx_conf *c = conf_new();
	char err[XRX_CONF_ERR_MAX], line[512], path[PATH_MAX];
	unsigned int recipes = 0;
	FILE *f;

	if (xrx_conf_parse_file("etc/xrx/example.conf", c, err, sizeof(err)))
		fail_msg("%s", err);
	assert_string_equal(c->ifname, "eth0");
	assert_int_equal(c->nrules, 0);
	assert_int_equal(c->default_action, XRX_ACT_PASS);
	assert_true(c->offload[XRX_OFF_LRO].set);
	assert_int_equal(c->offload[XRX_OFF_LRO].value, 0);
	f = fopen("etc/xrx/example.conf", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		struct xrx_sink_opts so = { .sz = sizeof(so) };
		char *arg = strstr(line, "= pcap:");

		if (line[0] != '#' || !arg)
			continue;
		arg += strlen("= pcap:");
		arg[strcspn(arg, " \n")] = '\0';
		assert_int_equal(xrx_sink_pcap__parse(arg, path, sizeof(path),
						      &so, err, sizeof(err)), 0);
		assert_true(so.rotate_bytes > 0 && so.rotate_bytes <= 64ull << 20);
		assert_true(so.rotate_count > 0 && so.rotate_count < 8);
		recipes++;
	}
	fclose(f);
	assert_true(recipes >= 1);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_other_values),
		cmocka_unit_test(test_busy_poll),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_csum_trust_tun),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_write_roundtrip),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_pcap_options),
		cmocka_unit_test(test_tee),
		cmocka_unit_test(test_unit_name),
		cmocka_unit_test(test_interface_from_caller),
		cmocka_unit_test(test_example_conf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
