// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The BPF-vs-userspace parser differential of test_parse_diff.c on
 * build/xrx_rx_compat.bpf.o, the build for kernels without
 * bpf_cast_to_kern_ctx().
 */
#define XRX_RX_ENV_COMPAT 1
/* The builds differ in how they take a frame's length only: a tenth of
 * the plain build's frames by default (XRX_DIFF_FRAMES sets it). */
#define DEFAULT_FRAMES 100000
#include "test_parse_diff.c"
