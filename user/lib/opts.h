/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Options structs across library versions, as libbpf's OPTS_VALID() does
 * it. Every public options struct starts with size_t sz = sizeof() as the
 * caller compiled it:
 *  - smaller than the fields every version has (@min_sz): refused;
 *  - smaller than ours (an older caller): the missing fields are zero;
 *  - larger (a newer caller): accepted only if every byte past the end of
 *    our struct is zero, so an option this version cannot honour is
 *    refused instead of silently ignored.
 */
#ifndef XRX_LIB_OPTS_H
#define XRX_LIB_OPTS_H

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <xrx/options.h>

/*
 * Copy @src (may be NULL: all defaults) into @dst of @dst_sz bytes, zero
 * first, and set dst's sz to @dst_sz. Return: 0, or -EINVAL.
 */
static inline int xrx_opts_copy(void *dst, size_t dst_sz, const void *src,
				size_t min_sz)
{
	const unsigned char *tail = src;
	size_t sz, i;

	memset(dst, 0, dst_sz);
	if (src) {
		memcpy(&sz, src, sizeof(sz));
		if (sz < min_sz)
			return -EINVAL;
		for (i = dst_sz; i < sz; i++)
			if (tail[i])
				return -EINVAL;
		memcpy(dst, src, sz < dst_sz ? sz : dst_sz);
	}
	memcpy(dst, &dst_sz, sizeof(dst_sz));
	return 0;
}

/*
 * Check @opts, a struct of @set, against the options table
 * (include/xrx/options.h): a number that is 0 takes its default, and
 * every option must be within its bounds. Return: 0 or -EINVAL.
 */
int xrx_opts_check(enum xrx_opt_set set, void *opts);

/* The fields every version of each options struct has (@min_sz). */
#define XRX_ENGINE_OPTS_MIN offsetof(struct xrx_engine_opts, ctx)
#define XRX_SINK_OPTS_MIN offsetof(struct xrx_sink_opts, snaplen)
#define XRX_LIVE_OPTS_MIN offsetof(struct xrx_live_opts, engine)
#define XRX_LIVE_RECONF_OPTS_MIN                                              \
	(offsetof(struct xrx_live_reconfigure_opts, no_tee) + sizeof(bool))

#endif /* XRX_LIB_OPTS_H */
