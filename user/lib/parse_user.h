/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * include/xrx/parse.h for a gcc build: its loops carry clang's
 * "#pragma unroll" for the BPF verifier, which gcc does not know.
 */
#ifndef XRX_LIB_PARSE_USER_H
#define XRX_LIB_PARSE_USER_H

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#include <xrx/parse.h>
#pragma GCC diagnostic pop

#endif /* XRX_LIB_PARSE_USER_H */
