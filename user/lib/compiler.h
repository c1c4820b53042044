/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Branch hints for the per-segment paths, as the kernel's likely() and
 * unlikely(): used where the common case is known (a segment that merges,
 * metadata that is present and valid), never to change what is decided.
 */
#ifndef XRX_LIB_COMPILER_H
#define XRX_LIB_COMPILER_H

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/*
 * The kernel's OPTIMIZER_HIDE_VAR(): the compiler no longer knows where
 * @var's value came from, so it keeps the value instead of working it
 * out again at each use.
 */
#define xrx_hide_var(var) __asm__("" : "=r"(var) : "0"(var))

#endif /* XRX_LIB_COMPILER_H */
