// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target: xrxd's config parser (user/ctl/conf.c) on the input as the
 * text of a config file, and the rule parser on its first line.
 *
 * The contract in ctl_conf.h is what is checked: a parse either succeeds
 * or fails with one line of error (no newline) and a negative errno; a
 * config that parses writes back (xrx_conf_write()) to text that parses
 * to the same config, i.e. writes back identically; a rule that parses
 * formats to text that parses to the same key.
 */
#include "fuzz.h"

#include "ctl_conf.h"

#define TEXT_MAX 16384

static void check_err(int ret, const char *err, const char *what)
{
	FZ_CHECK(ret < 0, "%s: return %d", what, ret);
	FZ_CHECK(memchr(err, '\0', XRX_CONF_ERR_MAX), "%s: error not terminated",
		 what);
	FZ_CHECK(err[0] && !strchr(err, '\n'), "%s: error message '%s'", what,
		 err);
}

/* xrx_conf_write() into a string; the caller frees it. */
static char *conf_text(const struct xrx_conf *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	FZ_CHECK(f, "open_memstream: %s", strerror(errno));
	ret = xrx_conf_write(f, c);
	FZ_CHECK(fclose(f) == 0 && ret == 0, "xrx_conf_write: %d", ret);
	return buf;
}

static void fuzz_conf(const char *text)
{
	static struct xrx_conf c1, c2;
	char err[XRX_CONF_ERR_MAX];
	char *t1, *t2;
	int ret;

	memset(err, 0x55, sizeof(err));
	ret = xrx_conf_parse_string("fuzz.conf", text, &c1, err, sizeof(err));
	if (ret) {
		check_err(ret, err, "xrx_conf_parse_string");
		return;
	}
	FZ_CHECK(c1.nrules <= XRX_RULES_MAX, "nrules %u", c1.nrules);
	t1 = conf_text(&c1);
	ret = xrx_conf_parse_string("written.conf", t1, &c2, err, sizeof(err));
	FZ_CHECK(ret == 0, "written config does not parse back: %s\n---\n%s---",
		 err, t1);
	t2 = conf_text(&c2);
	FZ_CHECK(!strcmp(t1, t2), "written config changes on a round trip:\n"
		 "---\n%s---\n%s---", t1, t2);
	free(t1);
	free(t2);
}

static void fuzz_rule(const char *text)
{
	struct xrx_rule_key k1, k2;
	char err[XRX_CONF_ERR_MAX], buf[128];
	int ret;

	ret = xrx_rule_parse(text, &k1, err, sizeof(err));
	if (ret) {
		check_err(ret, err, "xrx_rule_parse");
		return;
	}
	FZ_CHECK(xrx_rule_format(&k1, buf, sizeof(buf)) == 0,
		 "rule '%s' does not format", text);
	ret = xrx_rule_parse(buf, &k2, err, sizeof(err));
	FZ_CHECK(ret == 0, "formatted rule '%s' (from '%s') does not parse: %s",
		 buf, text, err);
	FZ_CHECK(!memcmp(&k1, &k2, sizeof(k1)),
		 "rule '%s' formats to '%s', which is another key", text, buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *nl;

	if (size > TEXT_MAX)
		return 0;
	text = malloc(size + 1);
	FZ_CHECK(text, "out of memory");
	memcpy(text, data, size);
	text[size] = '\0';
	fuzz_conf(text);
	nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	fuzz_rule(text);
	free(text);
	return 0;
}
