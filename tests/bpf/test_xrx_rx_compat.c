// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Every test of test_xrx_rx.c on build/xrx_rx_compat.bpf.o, the build for
 * kernels without bpf_cast_to_kern_ctx(): it must give the same verdicts,
 * counters and metadata as the plain build.
 */
#define XRX_RX_ENV_COMPAT 1
#include "test_xrx_rx.c"
