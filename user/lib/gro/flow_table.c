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
 *
 * A chain is newest first and never grows beyond XRX_GRO_BUCKET_MAX: a
 * new flow for a full bucket first delivers the bucket's oldest, as
 * dev_gro_receive() calls gro_flush_oldest() when gro_list->count
 * reaches MAX_GRO_SKBS. As the kernel's gro_list keeps its count and a
 * list_head whose prev is the oldest, the chain head keeps the length
 * (hcount) and a pointer to the oldest (its hprev; every other entry's
 * hprev is its newer neighbour), so that the check, the eviction and
 * any removal cost no walk: under attack a lookup walks the one chain
 * of at most 8. The hash is keyed (include/xrx/hash.h), so honest flows
 * fill a bucket that far only by chance: with the table at most half
 * full, the odds that a new flow meets a full bucket are below 1 in
 * 10^7. The bound is for flows chosen to collide, by someone who learnt
 * the key, or the NIC's hash.
 */
#include <errno.h>
#include <stdlib.h>

#include "gro/engine_priv.h"	/* gro/gro.h, and the bound's switch */

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
	t->bucket_max = XRX_GRO_BUCKET_MAX;
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
	struct xrx_agg **b = &t->buckets[a->pkt.hash & t->mask], *old = *b;

	a->hnext = old;
	if (old) {
		a->hprev = old->hprev;		/* the oldest */
		a->hcount = old->hcount + 1;
		old->hprev = a;
	} else {
		a->hprev = a;
		a->hcount = 1;
	}
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

void xrx_engine_bucket_max(struct xrx_engine *e, __u32 max)
{
	e->table.bucket_max = max;
}

void xrx_gro_table_remove(struct xrx_gro_table *t, struct xrx_agg *a)
{
	struct xrx_agg **b = &t->buckets[a->pkt.hash & t->mask], *head = *b;

	if (a == head) {
		*b = a->hnext;
		if (a->hnext) {
			a->hnext->hprev = a->hprev;
			a->hnext->hcount = a->hcount - 1;
		}
	} else {
		a->hprev->hnext = a->hnext;
		if (a->hnext)
			a->hnext->hprev = a->hprev;
		else
			head->hprev = a->hprev;	/* the oldest now */
		head->hcount--;
	}
	a->hnext = NULL;
	a->hprev = NULL;
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
