/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the engine offers its own tests beyond include/xrx/engine.h: the
 * GRO state (gro/gro.h) and the fast path's switch. Not installed; not
 * API.
 */
#ifndef XRX_LIB_GRO_ENGINE_PRIV_H
#define XRX_LIB_GRO_ENGINE_PRIV_H

#include "gro/gro.h"

/* Run every frame through the full path (@off) or not (fast.c). */
void xrx_engine_fast_disable(struct xrx_engine *e, bool off);

#endif /* XRX_LIB_GRO_ENGINE_PRIV_H */
