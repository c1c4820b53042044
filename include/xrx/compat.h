/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Definitions that newer kernels' uapi headers have and Debian 12's
 * linux-libc-dev (6.1) lacks. Values are the kernel's uapi values.
 */
#ifndef XRX_COMPAT_H
#define XRX_COMPAT_H

#include <linux/if_xdp.h>

#ifndef XDP_USE_SG
#define XDP_USE_SG (1 << 4)	/* bind flag: multi-buffer frames */
#endif
#ifndef XDP_PKT_CONTD
#define XDP_PKT_CONTD (1 << 0)	/* rx/tx desc option: more chunks follow */
#endif

#endif /* XRX_COMPAT_H */
