/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the engine offers its own tests beyond include/xrx/engine.h: the
 * GRO state (gro/gro.h), the fast path's switch and the bucket bound's.
 * Not installed; not API.
 */
#ifndef XRX_LIB_GRO_ENGINE_PRIV_H
#define XRX_LIB_GRO_ENGINE_PRIV_H

#include "gro/gro.h"

/* Run every frame through the full path (@off) or not (fast.c). */
void xrx_engine_fast_disable(struct xrx_engine *e, bool off);
/* Aggregates per flow-table bucket, 0 for no bound (flow_table.c). */
void xrx_engine_bucket_max(struct xrx_engine *e, __u32 max);

#endif /* XRX_LIB_GRO_ENGINE_PRIV_H */
