/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Counter tables. Every set of counters in xrx (xrx_rx's, the engine's,
 * the live path's, the sinks', xrxd's ustats header) is one X-macro table
 *
 *	#define FOO_TABLE(X) X(ENUM_SUFFIX, name, "description") ...
 *
 * from which its enum, its BTF member names and the names the CLI, JSON
 * and Prometheus show are all generated, so they cannot disagree. This
 * header turns a table into the names and descriptions arrays and their
 * bounds-checked accessors:
 *
 *	XRX_COUNTERS_DEFINE(, xrx_foo_stat, FOO_TABLE, FOO_MAX,
 *			    XRX_COUNTER_NAME)
 *
 * defines xrx_foo_stat_names[], xrx_foo_stat_descs[] (positional: the
 * enum comes from the same table, in the same order),
 * xrx_foo_stat__name(i) and xrx_foo_stat__desc(i), which return NULL for
 * an index outside the table. The first argument is the linkage of the
 * accessors (empty for exported ones, static inline in a header). The
 * table's names are strings (XRX_COUNTER_NAME) or, where they are also
 * struct members as in xrx_stats, identifiers (XRX_COUNTER_NAME_ID).
 */
#ifndef XRX_COUNTERS_H
#define XRX_COUNTERS_H

#include <stddef.h>

#define XRX_COUNTER_NAME(e, n, d) n,
#define XRX_COUNTER_NAME_ID(e, n, d) #n,
#define XRX_COUNTER_DESC(e, n, d) d,

#define XRX_COUNTERS_DEFINE(linkage, pfx, TABLE, MAX, NAME)                 \
	static const char *const pfx##_names[MAX] = { TABLE(NAME) };        \
	static const char *const pfx##_descs[MAX] = {                       \
		TABLE(XRX_COUNTER_DESC)                                     \
	};                                                                  \
	linkage const char *pfx##__name(int i)                              \
	{                                                                   \
		return i >= 0 && i < (MAX) ? pfx##_names[i] : NULL;         \
	}                                                                   \
	linkage const char *pfx##__desc(int i)                              \
	{                                                                   \
		return i >= 0 && i < (MAX) ? pfx##_descs[i] : NULL;         \
	}

#endif /* XRX_COUNTERS_H */
