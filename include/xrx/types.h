/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Fixed-width types and a static assertion usable from both BPF (clang
 * -target bpf) and userspace C. Everything in include/xrx/ that crosses
 * the BPF/user boundary builds on this header only.
 */
#ifndef XRX_TYPES_H
#define XRX_TYPES_H

#include <linux/types.h>

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define XRX_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)

/*
 * libxrx's exported functions, as LIBBPF_API marks libbpf's: the library
 * is built with -fvisibility=hidden, so what is not marked stays inside
 * it, and user/lib/libxrx.map names each export with its version.
 */
#ifndef XRX_API
#define XRX_API __attribute__((visibility("default")))
#endif

#endif /* XRX_TYPES_H */
