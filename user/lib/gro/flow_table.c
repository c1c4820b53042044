// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The flow table: the aggregates the engine holds, found by flow hash in
 * O(1) and ordered by age.
 *
 * The kernel keeps GRO_HASH_BUCKETS (8) lists of at most MAX_GRO_SKBS (8)
 * per NAPI instance and, when a bucket is full, completes its oldest
 * (gro_flush_oldest()). xrx keeps one table per worker with thousands of
 * entries: a power-of-two array of chained buckets (twice the entries,
 * so chains stay short) plus one age list, oldest first, which serves
 * eviction, the flush timeout and fill-ring pressure without a scan.
 */
#include <errno.h>
#include <stdlib.h>

#include "gro/gro.h"

int xrx_gro_table_init(struct xrx_gro_table *t, __u32 flows)
{
	__u32 n = 1;

	while (n < flows * 2)
		n <<= 1;
	memset(t, 0, sizeof(*t));
	t->buckets = calloc(n, sizeof(*t->buckets));
	if (!t->buckets)
		return -ENOMEM;
	t->mask = n - 1;
	t->max = flows;
	return 0;
}

void xrx_gro_table_fini(struct xrx_gro_table *t)
{
	free(t->buckets);
	t->buckets = NULL;
}

/* Add @a as the newest aggregate. The caller made room (t->held < max). */
void xrx_gro_table_insert(struct xrx_gro_table *t, struct xrx_agg *a)
{
	struct xrx_agg **b = &t->buckets[a->pkt.hash & t->mask];

	a->hnext = *b;
	*b = a;
	a->newer = NULL;
	a->older = t->newest;
	if (t->newest)
		t->newest->newer = a;
	else
		t->oldest = a;
	t->newest = a;
	t->held++;
	a->in_table = true;
}

void xrx_gro_table_remove(struct xrx_gro_table *t, struct xrx_agg *a)
{
	struct xrx_agg **pp = &t->buckets[a->pkt.hash & t->mask];

	while (*pp != a)
		pp = &(*pp)->hnext;
	*pp = a->hnext;
	a->hnext = NULL;
	if (a->older)
		a->older->newer = a->newer;
	else
		t->oldest = a->newer;
	if (a->newer)
		a->newer->older = a->older;
	else
		t->newest = a->older;
	a->older = NULL;
	a->newer = NULL;
	t->held--;
	a->in_table = false;
}
