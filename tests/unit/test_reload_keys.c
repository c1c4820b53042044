// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Every key of xrx.conf has a reload behaviour (ctl_conf.h, XRX_CONF_KEYS
 * and the classes of the options and offloads), and a change of it is
 * seen by xrx_conf_key_differs(), which xrxd's reload walks: a key a
 * reload would ignore fails here. Each key is set to a value other than
 * its default and compared with a config that leaves it out.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ctl_conf.h"

/* xrxd's own keys: a line that sets each to what its default is not. */
static const struct {
	const char *key, *line;
} top[] = {
	{ "interface", "interface = b" },
	{ "queues", "queues = 2" },
	{ "attach", "attach = skb" },
	{ "sink", "sink = pcap:/run/x.pcap" },
	{ "accelerate", "accelerate = tcp/80" },
	{ "default", "default = accel" },
	{ "csum_trust_may_deliver_corrupt_data",
	  "csum_trust_may_deliver_corrupt_data = on" },
	{ "tee", "tee = pcap:/run/y.pcap" },
};

/* A line that sets key @k (named @name) away from its default in @base. */
static int change_line(unsigned int k, const char *name,
		       const struct xrx_conf *base, char *line, size_t len)
{
	const struct xrx_conf_offload *off;
	const struct xrx_offload_desc *d;
	const struct xrx_opt *o;
	unsigned int i, nopt = 0;

	for (i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		if (!strcmp(top[i].key, name))
			return snprintf(line, len, "%s", top[i].line);
	while (xrx_opt__get((int)nopt))
		nopt++;
	if (k < XRX_CONF_KEY_TOP_MAX)
		return -1;	/* a key of xrxd's own without a line above */
	if (k < XRX_CONF_KEY_TOP_MAX + nopt) {
		o = xrx_opt__get((int)(k - XRX_CONF_KEY_TOP_MAX));
		switch (o->type) {
		case XRX_OPT_T_U32:
			return snprintf(line, len, "%s = %u", name,
					o->def == o->max ? o->min : o->max);
		case XRX_OPT_T_BOOL:
		case XRX_OPT_T_ENUM:
			return snprintf(line, len, "%s = %s", name,
					o->words[o->def ? 0 : 1]);
		case XRX_OPT_T_PORTS:
			return snprintf(line, len, "%s = 4789", name);
		}
		return -1;
	}
	off = &base->offload[k - XRX_CONF_KEY_TOP_MAX - nopt];
	d = &xrx_offload_desc[k - XRX_CONF_KEY_TOP_MAX - nopt];
	if (off->set)
		return snprintf(line, len, "%s = keep", name);
	switch (d->kind) {
	case XRX_OFFK_FEATURE:
	case XRX_OFFK_SPLIT:
		return snprintf(line, len, "%s = on", name);
	default:
		return snprintf(line, len, "%s = %u", name, d->min ? d->min : 1);
	}
}

static void test_every_key_reloads(void **state)
{
	struct xrx_conf *base = calloc(1, sizeof(*base));
	struct xrx_conf *ch = calloc(1, sizeof(*ch));
	char name[64], line[128], text[256], err[XRX_CONF_ERR_MAX];
	enum xrx_conf_reload r;
	unsigned int k, keys = 0;

	(void)state;
	assert_non_null(base);
	assert_non_null(ch);
	assert_int_equal(xrx_conf_parse_string("base", "interface = a\n", base,
					       err, sizeof(err)), 0);
	for (k = 0; k < xrx_conf_key_max(); k++) {
		if (!xrx_conf_key_name(k, name, sizeof(name)))
			continue;
		keys++;
		r = xrx_conf_key_reload(k);
		if (r != XRX_RELOAD_IN_PLACE && r != XRX_RELOAD_REOPEN &&
		    r != XRX_RELOAD_RESTART && r != XRX_RELOAD_REFUSE)
			fail_msg("%s: no reload behaviour (%d)", name, (int)r);
		if (change_line(k, name, base, line, sizeof(line)) < 0)
			fail_msg("%s: no value to change it to: add one to top[]", name);
		snprintf(text, sizeof(text), "interface = a\n%s\n", line);
		if (!strncmp(line, "interface", 9))
			snprintf(text, sizeof(text), "%s\n", line);
		if (!strncmp(line, "offload.", 8))
			snprintf(text, sizeof(text), "interface = a\n[offload]\n%s\n",
				 line + 8);
		if (xrx_conf_parse_string("changed", text, ch, err, sizeof(err)))
			fail_msg("%s: '%s' does not parse: %s", name, line, err);
		if (xrx_conf_key_differs(base, base, k))
			fail_msg("%s: differs from itself", name);
		if (!xrx_conf_key_differs(base, ch, k))
			fail_msg("%s: '%s' is not seen as a change, so a reload would ignore it",
				 name, line);
	}
	/* xrxd's own, the options with a key, the offloads */
	assert_true(keys > XRX_CONF_KEY_TOP_MAX + XRX_OFF_MAX);
	free(base);
	free(ch);
}

/* The classes of the keys a reload treats apart. */
static void test_classes(void **state)
{
	char name[64];
	unsigned int k;

	(void)state;
	for (k = 0; k < xrx_conf_key_max(); k++) {
		if (!xrx_conf_key_name(k, name, sizeof(name)))
			continue;
		if (!strcmp(name, "interface"))
			assert_int_equal(xrx_conf_key_reload(k), XRX_RELOAD_REFUSE);
		else if (!strcmp(name, "sink") || !strcmp(name, "tee") ||
			 !strcmp(name, "queues") || !strcmp(name, "max_aggregate"))
			assert_int_equal(xrx_conf_key_reload(k), XRX_RELOAD_REOPEN);
		else if (!strcmp(name, "attach") || !strncmp(name, "offload.", 8))
			assert_int_equal(xrx_conf_key_reload(k), XRX_RELOAD_RESTART);
		else if (!strcmp(name, "accelerate"))
			assert_int_equal(xrx_conf_key_reload(k), XRX_RELOAD_IN_PLACE);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_key_reloads),
		cmocka_unit_test(test_classes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
