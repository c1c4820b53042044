// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * opt_table: libxrx's options table (include/xrx/options.h), one row a
 * line, for the tests that hold the man pages and docs to it:
 *
 *	KEY FLAG SET TYPE DEFAULT MIN MAX MAX_COUNT WORDS
 *
 * tab-separated; "-" where a row has no key or flag; SET engine, sink or
 * live; TYPE u32, bool, enum or ports; DEFAULT as xrx.conf writes it;
 * WORDS comma-separated.
 */
#include <stdio.h>
#include <string.h>

#include <xrx/options.h>
#include <xrx/live.h>

int main(void)
{
	static const char *const sets[] = {
		[XRX_OPT_SET_ENGINE] = "engine", [XRX_OPT_SET_SINK] = "sink",
		[XRX_OPT_SET_LIVE] = "live",
	};
	static const char *const types[] = {
		[XRX_OPT_T_U32] = "u32", [XRX_OPT_T_BOOL] = "bool",
		[XRX_OPT_T_ENUM] = "enum", [XRX_OPT_T_PORTS] = "ports",
	};
	struct {
		struct xrx_engine_opts engine;
		struct xrx_sink_opts sink;
		struct xrx_live_opts live;
	} s;
	const struct xrx_opt *o;
	char def[128];
	void *opts;
	int i, w;

	memset(&s, 0, sizeof(s));
	for (i = 0; (o = xrx_opt__get(i)); i++) {
		opts = o->set == XRX_OPT_SET_ENGINE ? (void *)&s.engine :
		       o->set == XRX_OPT_SET_SINK ? (void *)&s.sink : &s.live;
		xrx_opt__set_default(o, opts);
		xrx_opt__format(o, opts, def, sizeof(def));
		printf("%s\t%s\t%s\t%s\t%s\t%u\t%u\t%u\t",
		       o->key ? o->key : "-", o->flag ? o->flag : "-",
		       sets[o->set], types[o->type], def, o->min, o->max,
		       o->max_count);
		for (w = 0; o->words && o->words[w]; w++)
			printf("%s%s", w ? "," : "", o->words[w]);
		printf("\n");
	}
	return 0;
}
