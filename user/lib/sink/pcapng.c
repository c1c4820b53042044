// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pcapng blocks and options (sink/pcapng.h): plain byte layout, no I/O,
 * so the writers that use them choose how and when bytes go out.
 */
#include <string.h>

#include "sink/pcapng.h"

__u32 xrx_pcapng_opt(void *buf, size_t cap, __u16 code, const void *val,
		     __u16 len)
{
	__u32 n = 4 + XRX_PCAPNG_PAD4(len);
	__u16 h[2] = { code, len };
	__u8 *b = buf;

	if (n > cap)
		return 0;
	memcpy(b, h, sizeof(h));
	if (len)
		memcpy(b + 4, val, len);
	memset(b + 4 + len, 0, n - 4 - len);
	return n;
}

__u32 xrx_pcapng_opt_custom(void *buf, size_t cap, __u16 code, __u32 pen,
			    const void *val, __u16 len)
{
	__u32 n = 4 + XRX_PCAPNG_PAD4(4u + len);
	__u16 h[2] = { code, (__u16)(4 + len) };
	__u8 *b = buf;

	if (n > cap || len > 0xffff - 4)
		return 0;
	memcpy(b, h, sizeof(h));
	memcpy(b + 4, &pen, 4);
	if (len)
		memcpy(b + 8, val, len);
	memset(b + 8 + len, 0, n - 8 - len);
	return n;
}

__u32 xrx_pcapng_opt_end(void *buf, size_t cap)
{
	if (cap < 4)
		return 0;
	memset(buf, 0, 4);
	return 4;
}

/* A block's type and length in front of @body_len bytes the caller has
 * put at @b + 8, and its length again behind them. */
static __u32 pcapng_frame(__u8 *b, __u32 type, __u32 body_len)
{
	__u32 total = 8 + body_len + 4;

	memcpy(b, &type, 4);
	memcpy(b + 4, &total, 4);
	memcpy(b + 8 + body_len, &total, 4);
	return total;
}

__u32 xrx_pcapng_shb(void *buf, size_t cap, const char *appl)
{
	__u32 bom = XRX_PCAPNG_BOM, n;
	__u16 ver[2] = { 1, 0 };
	__s64 section_len = -1;
	__u8 *b = buf;
	size_t alen = appl ? strlen(appl) : 0;

	if (cap < 28 + 4 + XRX_PCAPNG_PAD4(alen) + 4 || alen > 0xffff)
		return 0;
	memcpy(b + 8, &bom, 4);
	memcpy(b + 12, ver, 4);
	memcpy(b + 16, &section_len, 8);
	n = 16;
	if (alen)
		n += xrx_pcapng_opt(b + 8 + n, cap - 8 - n,
				    XRX_PCAPNG_SHB_USERAPPL, appl, (__u16)alen);
	n += xrx_pcapng_opt_end(b + 8 + n, cap - 8 - n);
	return pcapng_frame(b, XRX_PCAPNG_SHB, n);
}

__u32 xrx_pcapng_idb(void *buf, size_t cap, __u32 snaplen, __u8 tsresol,
		     const char *name, const char *comment)
{
	size_t nlen = name ? strlen(name) : 0;
	size_t clen = comment ? strlen(comment) : 0;
	__u16 lt[2] = { XRX_PCAPNG_LINKTYPE_ETHERNET, 0 };
	__u8 *b = buf;
	__u32 n;

	if (nlen > 0xffff || clen > 0xffff ||
	    cap < 20 + 8 + 4 + XRX_PCAPNG_PAD4(nlen) + 4 +
			  XRX_PCAPNG_PAD4(clen) + 4)
		return 0;
	memcpy(b + 8, lt, 4);
	memcpy(b + 12, &snaplen, 4);
	n = 8;
	n += xrx_pcapng_opt(b + 8 + n, cap - 8 - n, XRX_PCAPNG_IF_TSRESOL,
			    &tsresol, 1);
	if (nlen)
		n += xrx_pcapng_opt(b + 8 + n, cap - 8 - n, XRX_PCAPNG_IF_NAME,
				    name, (__u16)nlen);
	if (clen)
		n += xrx_pcapng_opt(b + 8 + n, cap - 8 - n,
				    XRX_PCAPNG_OPT_COMMENT, comment,
				    (__u16)clen);
	n += xrx_pcapng_opt_end(b + 8 + n, cap - 8 - n);
	return pcapng_frame(b, XRX_PCAPNG_IDB, n);
}

void xrx_pcapng_epb_head(struct xrx_pcapng_epb *h, __u32 if_id, __u64 ts,
			 __u32 cap_len, __u32 orig_len, __u32 total_len)
{
	h->type = XRX_PCAPNG_EPB;
	h->total_len = total_len;
	h->if_id = if_id;
	h->ts_high = (__u32)(ts >> 32);
	h->ts_low = (__u32)ts;
	h->cap_len = cap_len;
	h->orig_len = orig_len;
}

__u32 xrx_pcapng_epb_tail(void *t, __u32 cap_len, const void *opts,
			  __u32 opts_len, __u32 total_len)
{
	__u32 n = XRX_PCAPNG_PAD4(cap_len) - cap_len;
	__u8 *b = t;

	memset(b, 0, n);
	if (opts_len)
		memcpy(b + n, opts, opts_len);
	n += opts_len;
	memcpy(b + n, &total_len, 4);
	return n + 4;
}

__u32 xrx_pcapng_custom(void *buf, size_t cap, __u32 pen, bool copy,
			const void *data, __u32 len)
{
	__u32 body = 4 + XRX_PCAPNG_PAD4(len);
	__u8 *b = buf;

	if (cap < 8 + (size_t)body + 4)
		return 0;
	memcpy(b + 8, &pen, 4);
	if (len)
		memcpy(b + 12, data, len);
	memset(b + 12 + len, 0, XRX_PCAPNG_PAD4(len) - len);
	/* no options: opt_endofopt may be left out */
	return pcapng_frame(b, copy ? XRX_PCAPNG_CB_COPY :
				      XRX_PCAPNG_CB_NOCOPY, body);
}
