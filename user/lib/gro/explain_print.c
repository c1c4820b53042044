// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The per-flow tally of why packets ended (explain_tally.c), printed as
 * text or JSON (xrx_explain__print(), include/xrx/explain.h): the most
 * costly flows and reasons first, each reason in the why-table's words
 * (explain_why.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xrx/engine.h>
#include <xrx/explain.h>

#include "gro/explain_tally.h"
#include "gro/explain_why.h"

/* Most cost first, then most packets, then in table order. */
static int xrx_cnt_cmp(const void *a, const void *b)
{
	const struct xrx_explain_cnt *x = a, *y = b;

	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	if (x->pkts != y->pkts)
		return x->pkts > y->pkts ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

static int xrx_flow_cmp(const void *a, const void *b)
{
	const struct xrx_explain_flow *x = *(const struct xrx_explain_flow **)a;
	const struct xrx_explain_flow *y = *(const struct xrx_explain_flow **)b;

	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	if (x->segs_in != y->segs_in)
		return x->segs_in > y->segs_in ? -1 : 1;
	return x < y ? -1 : x > y;	/* the order they came in */
}

static void xrx_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* One flow's (or all flows') figures and reasons; @cnt gets sorted. */
static void xrx_explain_print_one(const struct xrx_explain *x, FILE *out,
				  bool json, const char *name,
				  const struct xrx_explain_flow *f,
				  struct xrx_explain_cnt *cnt, __u32 nr)
{
	double per = f->pkts_out ? (double)f->segs_in / f->pkts_out : 0;
	const struct xrx_why_row *r;
	char text[XRX_EXPLAIN_MAX];
	__u32 i;

	qsort(cnt, nr, sizeof(*cnt), xrx_cnt_cmp);
	if (json) {
		fprintf(out, "{\"flow\": ");
		xrx_json_str(out, name);
		fprintf(out, ", \"segs_in\": %llu, \"pkts_out\": %llu, \"aggs_out\": %llu, \"segs_per_pkt\": %.2f, \"cost\": %llu, \"reasons\": [",
			(unsigned long long)f->segs_in,
			(unsigned long long)f->pkts_out,
			(unsigned long long)f->aggs_out, per,
			(unsigned long long)f->cost);
	} else {
		fprintf(out, "%s: %llu segment%s in, %llu packet%s out, %.2f segments per packet\n",
			name, (unsigned long long)f->segs_in,
			f->segs_in == 1 ? "" : "s",
			(unsigned long long)f->pkts_out,
			f->pkts_out == 1 ? "" : "s", per);
		if (nr)
			fprintf(out, "  %8s %8s  %s\n", "cost", "packets", "why");
	}
	for (i = 0; i < nr; i++) {
		r = &xrx_why_rows[cnt[i].row];
		xrx_why_format(cnt[i].row, x->max_aggregate, cnt[i].segs, text,
			       sizeof(text));
		if (!json) {
			fprintf(out, "  %8llu %8llu  %s  [%s]\n",
				(unsigned long long)cnt[i].cost,
				(unsigned long long)cnt[i].pkts, text,
				xrx_engine_stat__name(r->stat));
			continue;
		}
		fprintf(out, "%s{\"reason\": \"%s\", \"kind\": \"%s\", \"text\": ",
			i ? ", " : "", xrx_engine_stat__name(r->stat),
			xrx_why_kind_words[r->kind]);
		xrx_json_str(out, text);
		fprintf(out, ", \"func\": \"%s\", \"packets\": %llu, \"cost\": %llu}",
			r->func, (unsigned long long)cnt[i].pkts,
			(unsigned long long)cnt[i].cost);
	}
	if (json)
		fprintf(out, "]}");
}

int xrx_explain__print(const struct xrx_explain *x, FILE *out, bool json)
{
	const struct xrx_explain_flow **order;
	struct xrx_explain_flow sum = { .last_row = -1 };
	struct xrx_explain_cnt *all, *c;
	__u32 i, j, nr = 0;
	char name[64];
	int ret = 0;

	/* a scratch copy of a flow's reasons fits in all[] to be sorted */
	all = calloc(xrx_why_nr_rows, sizeof(*all));
	order = calloc(x->nr_flows + 1, sizeof(*order));
	if (!all || !order) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < x->nr_flows; i++) {
		const struct xrx_explain_flow *f = &x->flows[i];

		order[i] = f;
		sum.segs_in += f->segs_in;
		sum.pkts_out += f->pkts_out;
		sum.aggs_out += f->aggs_out;
		sum.cost += f->cost;
		for (j = 0; j < f->nr_cnt; j++) {
			c = &all[f->cnt[j].row];
			if (!c->pkts && !c->cost)
				c->segs = f->cnt[j].segs;
			c->pkts += f->cnt[j].pkts;
			c->cost += f->cnt[j].cost;
		}
	}
	/* the rows that occurred, packed */
	for (i = 0; i < xrx_why_nr_rows; i++) {
		if (!all[i].pkts && !all[i].cost)
			continue;
		all[i].row = i;
		all[nr++] = all[i];
	}
	qsort(order, x->nr_flows, sizeof(*order), xrx_flow_cmp);
	snprintf(name, sizeof(name), json ? "all" : "all %u flow%s",
		 x->nr_flows, x->nr_flows == 1 ? "" : "s");
	if (json)
		fprintf(out, "{\"flows_seen\": %u, \"unexplained\": %llu, \"total\": ",
			x->nr_flows, (unsigned long long)x->unexplained);
	else
		fprintf(out, "Why GRO ended each packet. cost: packets it added, each a segment that would\n"
			"otherwise have merged into the packet before it (limits cost nothing)\n");
	xrx_explain_print_one(x, out, json, name, &sum, all, nr);
	if (json)
		fprintf(out, ", \"flows\": [");
	for (i = 0; i < x->nr_flows; i++) {
		const struct xrx_explain_flow *f = order[i];

		if (json)
			fprintf(out, "%s", i ? ", " : "");
		else
			fprintf(out, "\nflow ");
		/* a flow has at most one entry per row */
		memcpy(all, f->cnt, f->nr_cnt * sizeof(*all));
		xrx_explain_print_one(x, out, json, f->name, f, all,
				      f->nr_cnt);
	}
	if (json)
		fprintf(out, "]}");
	else if (x->unexplained)
		fprintf(out, "\n%llu packet(s) without a reason counter\n",
			(unsigned long long)x->unexplained);
	if (ferror(out))
		ret = -EIO;
out:
	free(all);
	free(order);
	return ret;
}
