// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The options table (include/xrx/options.h, user/lib/opts.c), row by row,
 * so that an option added later is held to the same rules without a test
 * of its own: each row is well formed; its text parses and formats back;
 * the parser, the config file, the engine, the sinks and the library's
 * check all take exactly MIN..MAX (every word of an enum, every port of a
 * list) and refuse what lies past it, with messages that name the bounds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <xrx/options.h>
#include <xrx/live.h>
#include "opts.h"
#include "ctl_conf.h"

/* One struct of each set, zeroed, with sz set. */
struct sets {
	struct xrx_engine_opts engine;
	struct xrx_sink_opts sink;
	struct xrx_live_opts live;
};

static void *set_of(struct sets *s, enum xrx_opt_set set)
{
	memset(s, 0, sizeof(*s));
	s->engine.sz = sizeof(s->engine);
	s->sink.sz = sizeof(s->sink);
	s->live.sz = sizeof(s->live);
	return set == XRX_OPT_SET_ENGINE ? (void *)&s->engine :
	       set == XRX_OPT_SET_SINK ? (void *)&s->sink : (void *)&s->live;
}

static const char *row_name(const struct xrx_opt *o)
{
	return o->key ? o->key : o->flag;
}

static int nr_words(const struct xrx_opt *o)
{
	int n = 0;

	while (o->words && o->words[n])
		n++;
	return n;
}

static void test_rows(void **state)
{
	const struct xrx_opt *o, *p;
	int i, j;

	assert_non_null(xrx_opt__get(0));
	assert_null(xrx_opt__get(-1));
	assert_null(xrx_opt__get(XRX_OPT_MAX));
	for (i = 0; (o = xrx_opt__get(i)); i++) {
		if (!o->key && !o->flag)
			fail_msg("row %d has neither a key nor a flag", i);
		if (!o->help || !*o->help || strlen(o->help) > 40)
			fail_msg("%s: help must be one short line", row_name(o));
		if (o->set >= XRX_OPT_SET_MAX)
			fail_msg("%s: no set", row_name(o));
		switch (o->type) {
		case XRX_OPT_T_U32:
		case XRX_OPT_T_PORTS:
			if (o->min > o->max || !o->unit || !o->arg)
				fail_msg("%s: bounds %u..%u, unit, arg", row_name(o),
					 o->min, o->max);
			/* 0 in a struct means the default */
			if (o->type == XRX_OPT_T_U32 &&
			    (o->def < o->min || o->def > o->max))
				fail_msg("%s: default %u outside %u..%u",
					 row_name(o), o->def, o->min, o->max);
			break;
		case XRX_OPT_T_ENUM:
		case XRX_OPT_T_BOOL:
			if (nr_words(o) != (int)o->max + 1 || o->min ||
			    o->def > o->max)
				fail_msg("%s: %d words for 0..%u", row_name(o),
					 nr_words(o), o->max);
			break;
		}
		if (o->type == XRX_OPT_T_PORTS && !o->max_count)
			fail_msg("%s: a list of no ports", row_name(o));
		/* names and letters are unique */
		for (j = 0; j < i; j++) {
			p = xrx_opt__get(j);
			if ((o->key && p->key && !strcmp(o->key, p->key)) ||
			    (o->flag && p->flag && !strcmp(o->flag, p->flag)) ||
			    (o->short_flag && o->short_flag == p->short_flag))
				fail_msg("%s and %s share a name", row_name(o),
					 row_name(p));
		}
	}
	assert_int_equal(i, XRX_OPT_MAX);
	(void)state;
}

/* Every value of a row written as text: the bounds, each word, a port. */
static int good_values(const struct xrx_opt *o, char vals[][32])
{
	int n = 0, i;

	switch (o->type) {
	case XRX_OPT_T_U32:
	case XRX_OPT_T_PORTS:
		snprintf(vals[n++], 32, "%u", o->min);
		snprintf(vals[n++], 32, "%u", o->max);
		snprintf(vals[n++], 32, "%u", o->min + (o->max - o->min) / 2);
		break;
	default:
		for (i = 0; o->words[i]; i++)
			snprintf(vals[n++], 32, "%s", o->words[i]);
	}
	return n;
}

/* The text just past the bounds, and what its message must say. */
static int bad_values(const struct xrx_opt *o, char vals[][32],
		      char says[][64])
{
	int n = 0;

	switch (o->type) {
	case XRX_OPT_T_U32:
	case XRX_OPT_T_PORTS:
		snprintf(vals[n], 32, "%llu", (unsigned long long)o->max + 1);
		snprintf(says[n++], 64, "out of range; write %s from %u to %u",
			 o->unit, o->min, o->max);
		if (o->min) {
			snprintf(vals[n], 32, "%u", o->min - 1);
			snprintf(says[n++], 64, "from %u to %u", o->min, o->max);
		}
		snprintf(vals[n], 32, "1k");
		snprintf(says[n++], 64, "is not a number");
		break;
	default:
		snprintf(vals[n], 32, "maybe");
		snprintf(says[n++], 64, "is not a valid value; write %s",
			 o->words[0]);
	}
	return n;
}

/* Text in, the same text out; a bad value leaves the struct alone. */
static void test_parse_format(void **state)
{
	char vals[64][32], says[8][64], err[256], out[128];
	const struct xrx_opt *o;
	struct sets s, before;
	void *opts;
	int i, k, n;

	for (i = 0; (o = xrx_opt__get(i)); i++) {
		n = good_values(o, vals);
		for (k = 0; k < n; k++) {
			opts = set_of(&s, o->set);
			if (xrx_opt__parse(o, opts, vals[k], XRX_OPT_FORM_CONF,
					   err, sizeof(err)))
				fail_msg("%s = %s refused: %s", row_name(o),
					 vals[k], err);
			xrx_opt__format(o, opts, out, sizeof(out));
			if (strcmp(out, vals[k]))
				fail_msg("%s = %s formats as %s", row_name(o),
					 vals[k], out);
		}
		n = bad_values(o, vals, says);
		for (k = 0; k < n; k++) {
			opts = set_of(&s, o->set);
			xrx_opt__set_default(o, opts);
			before = s;
			if (!xrx_opt__parse(o, opts, vals[k], XRX_OPT_FORM_CONF,
					    err, sizeof(err)) ||
			    !strstr(err, says[k]) || strchr(err, '\n') ||
			    !strchr(err, ';'))
				fail_msg("%s = %s: message \"%s\", wanted \"%s\"",
					 row_name(o), vals[k], err, says[k]);
			assert_memory_equal(&s, &before, sizeof(s));
		}
		/* The default formats as the table says and parses back. */
		opts = set_of(&s, o->set);
		xrx_opt__set_default(o, opts);
		xrx_opt__format(o, opts, out, sizeof(out));
		assert_int_equal(xrx_opt__parse(o, opts, out, XRX_OPT_FORM_FLAG,
						err, sizeof(err)), 0);
	}
	(void)state;
}

/* A list of ports: none, a comma list, each once, at most max_count. */
static void test_ports(void **state)
{
	const struct xrx_opt *o = xrx_opt__get(XRX_OPT_VXLAN_PORTS);
	char err[256], out[128], text[256] = "";
	struct xrx_engine_opts e = { .sz = sizeof(e) };
	__u32 i;

	assert_int_equal(xrx_opt__parse(o, &e, " 4789 , 8472", XRX_OPT_FORM_CONF,
					err, sizeof(err)), 0);
	assert_int_equal(e.nr_vxlan_ports, 2);
	xrx_opt__format(o, &e, out, sizeof(out));
	assert_string_equal(out, "4789, 8472");
	/* a flag adds one; a port given before is refused */
	assert_int_equal(xrx_opt__parse(o, &e, "1", XRX_OPT_FORM_FLAG, err,
					sizeof(err)), 0);
	assert_int_equal(e.nr_vxlan_ports, 3);
	assert_int_equal(xrx_opt__parse(o, &e, "8472", XRX_OPT_FORM_FLAG, err,
					sizeof(err)), -EINVAL);
	assert_string_equal(err, "--vxlan-port lists 8472 twice; remove one");
	assert_int_equal(e.nr_vxlan_ports, 3);
	assert_int_equal(xrx_opt__parse(o, &e, "none", XRX_OPT_FORM_CONF, err,
					sizeof(err)), 0);
	assert_int_equal(e.nr_vxlan_ports, 0);
	for (i = 1; i <= o->max_count + 1; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "%s%u", i > 1 ? "," : "", i);
	assert_int_equal(xrx_opt__parse(o, &e, text, XRX_OPT_FORM_CONF, err,
					sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "list at most"));
	assert_int_equal(e.nr_vxlan_ports, 0);
	assert_int_equal(xrx_opt__parse(o, &e, "4789,,1", XRX_OPT_FORM_CONF,
					err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "vxlan_ports has an empty entry"));
	(void)state;
}

/* How the three forms name an option in a message. */
static void test_forms(void **state)
{
	const struct xrx_opt *o = xrx_opt__get(XRX_OPT_MAX_AGGREGATE);
	struct xrx_engine_opts e = { .sz = sizeof(e) };
	char err[256];

	xrx_opt__parse(o, &e, "600000", XRX_OPT_FORM_CONF, err, sizeof(err));
	assert_string_equal(err, "max_aggregate = 600000 is out of range; write a byte count from 1024 to 524280");
	xrx_opt__parse(o, &e, "600000", XRX_OPT_FORM_FLAG, err, sizeof(err));
	assert_string_equal(err, "--max-size 600000 is out of range; write a byte count from 1024 to 524280");
	xrx_opt__parse(o, &e, "600000", XRX_OPT_FORM_SPEC, err, sizeof(err));
	assert_string_equal(err, "max-size=600000 is out of range; write a byte count from 1024 to 524280");
	assert_int_equal(xrx_parse_u32("+5", 0, 9, &e.flows), -EINVAL);
	assert_int_equal(xrx_parse_u32(" 5", 0, 9, &e.flows), -EINVAL);
	assert_int_equal(xrx_parse_u32("", 0, 9, &e.flows), -EINVAL);
	assert_int_equal(xrx_parse_u32("99999999999999999999", 0, 9, &e.flows),
			 -ERANGE);
	assert_int_equal(xrx_parse_u32("4", 5, 9, &e.flows), -ERANGE);
	assert_int_equal(xrx_parse_u32("9", 5, 9, &e.flows), 0);
	assert_int_equal(e.flows, 9);
	(void)state;
}

/*
 * Put @v in the row's field as a caller of the library would (PORTS: one
 * port, or @v ports 1, 2, ... when @count).
 */
static void raw_set(const struct xrx_opt *o, void *opts, __u32 v, bool count)
{
	char *p = (char *)opts + o->off;
	__u32 i;

	if (o->type == XRX_OPT_T_BOOL) {
		*(bool *)p = v;
	} else if (o->type != XRX_OPT_T_PORTS) {
		memcpy(p, &v, sizeof(v));
	} else if (count) {
		for (i = 0; i < v && i < o->max_count; i++)
			((__u16 *)p)[i] = (__u16)(i + 1);
		memcpy((char *)opts + o->count_off, &v, sizeof(v));
	} else {
		((__u16 *)p)[0] = (__u16)v;
		i = 1;
		memcpy((char *)opts + o->count_off, &i, sizeof(i));
	}
}

static void quiet_log(void *ctx, enum xrx_log_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	(void)msg;
}

/*
 * Does the library take @v for the row? Checked by the code that owns the
 * set: a real engine or sink, and xrx_opts_check() for each.
 */
static bool library_takes(const struct xrx_opt *o, __u32 v, bool count)
{
	static __u8 region[4096];
	struct xrx_engine *e;
	struct xrx_sink *sk;
	struct xrx_live *l;
	struct sets s;
	void *opts = set_of(&s, o->set);
	bool checked, made = true;

	raw_set(o, opts, v, count);
	checked = !xrx_opts_check(o->set, opts);
	opts = set_of(&s, o->set);
	raw_set(o, opts, v, count);
	if (o->set == XRX_OPT_SET_ENGINE) {
		s.engine.region = region;
		s.engine.region_size = sizeof(region);
		s.engine.pkts = 16;	/* the pools small, whatever flows is */
		e = xrx_engine__new(&s.engine);
		made = e != NULL;
		if (!e && errno != EINVAL)
			fail_msg("%s = %u: engine failed with %s", row_name(o), v,
				 strerror(errno));
		xrx_engine__free(e);
	} else if (o->set == XRX_OPT_SET_SINK) {
		sk = xrx_sink__open("null", &s.sink);
		made = sk != NULL;
		xrx_sink__close(sk);
	} else {
		/* The live path checks its options before it looks for the
		 * interface: on one that does not exist, good options fail
		 * with ENODEV and bad ones with EINVAL. */
		s.live.log = quiet_log;
		l = xrx_live__open("xrx-nosuch0", &s.live);
		made = !l && errno != EINVAL;
		xrx_live__close(l);
	}
	if (made != checked)
		fail_msg("%s = %u: the %s says %s, xrx_opts_check() %s",
			 row_name(o), v, o->set == XRX_OPT_SET_ENGINE ? "engine" :
			 o->set == XRX_OPT_SET_SINK ? "sink" : "live path",
			 made ? "yes" : "no", checked ? "yes" : "no");
	return made;
}

static void test_library_bounds(void **state)
{
	const struct xrx_opt *o;
	int i;

	for (i = 0; (o = xrx_opt__get(i)); i++) {
		switch (o->type) {
		case XRX_OPT_T_U32:
			if (!library_takes(o, o->max, false) ||
			    (o->min && !library_takes(o, o->min, false)) ||
			    !library_takes(o, 0, false) ||	/* the default */
			    library_takes(o, o->max + 1, false) ||
			    (o->min > 1 && library_takes(o, o->min - 1, false)))
				fail_msg("%s: the library does not take exactly %u..%u",
					 row_name(o), o->min, o->max);
			break;
		case XRX_OPT_T_ENUM:
			if (!library_takes(o, o->max, false) ||
			    library_takes(o, o->max + 1, false))
				fail_msg("%s: the library does not take exactly 0..%u",
					 row_name(o), o->max);
			break;
		case XRX_OPT_T_PORTS:
			if (!library_takes(o, o->max, false) ||
			    !library_takes(o, o->min, false) ||
			    library_takes(o, o->min - 1, false) ||
			    !library_takes(o, o->max_count, true) ||
			    library_takes(o, o->max_count + 1, true))
				fail_msg("%s: the library does not take exactly %u..%u, at most %u",
					 row_name(o), o->min, o->max, o->max_count);
			break;
		default:
			break;
		}
	}
	(void)state;
}

/* xrx.conf takes each key at its bounds, and nothing past them. */
static void test_conf_bounds(void **state)
{
	char vals[64][32], says[8][64], err[XRX_CONF_ERR_MAX], text[4096];
	struct xrx_conf *c = malloc(sizeof(*c));
	const struct xrx_opt *o;
	int i, k, n;

	assert_non_null(c);
	for (i = 0; (o = xrx_opt__get(i)); i++) {
		if (!o->key)
			continue;
		n = good_values(o, vals);
		for (k = 0; k < n; k++) {
			snprintf(text, sizeof(text), "interface = a\n%s = %s\n",
				 o->key, vals[k]);
			if (xrx_conf_parse_string("t.conf", text, c, err,
						  sizeof(err)))
				fail_msg("%s", err);
		}
		n = bad_values(o, vals, says);
		for (k = 0; k < n; k++) {
			snprintf(text, sizeof(text), "interface = a\n%s = %s\n",
				 o->key, vals[k]);
			if (!xrx_conf_parse_string("t.conf", text, c, err,
						   sizeof(err)) ||
			    strncmp(err, "t.conf:2: ", 10) || !strstr(err, says[k]))
				fail_msg("%s = %s: \"%s\", wanted \"%s\"", o->key,
					 vals[k], err, says[k]);
		}
	}
	free(c);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_parse_format),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_library_bounds),
		cmocka_unit_test(test_conf_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
