// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Applying a config's offload settings: plan each against what the NIC
 * supports, record the originals in the state file before the first
 * change, apply, read back, and roll everything back on a required
 * setting that failed.
 */
#include <errno.h>
#include <net/if.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

#include "ctl_log.h"
#include "ctl_nl.h"

/* ---- apply --------------------------------------------------------- */

struct plan {
	bool todo[XRX_OFF_MAX];
	unsigned int target[XRX_OFF_MAX];
};

static int size_index(enum xrx_offload_id id)
{
	switch (id) {
	case XRX_OFF_GSO_MAX_SIZE:
		return XRX_SIZE_GSO;
	case XRX_OFF_GRO_MAX_SIZE:
		return XRX_SIZE_GRO;
	case XRX_OFF_GSO_IPV4_MAX_SIZE:
		return XRX_SIZE_GSO_IPV4;
	case XRX_OFF_GRO_IPV4_MAX_SIZE:
		return XRX_SIZE_GRO_IPV4;
	default:
		return -1;
	}
}

/* The NAPI setting an XRX_OFFK_NAPI offload is. */
static enum xrx_napi_setting napi_index(enum xrx_offload_id id)
{
	return id == XRX_OFF_GRO_FLUSH_TIMEOUT ? XRX_NAPI_GRO_FLUSH_TIMEOUT :
						 XRX_NAPI_DEFER_HARD_IRQS;
}

/* NAPI instances of @nic whose setting @k is not @v. */
static unsigned int napis_differ(const struct xrx_nic *nic,
				 enum xrx_napi_setting k, unsigned long long v)
{
	unsigned int i, n = 0;

	for (i = 0; i < nic->nnapi; i++)
		n += nic->napi[i].value[k] != v;
	return n;
}

/* "offload.gro = on!" as the config wrote it. */
static const char *setting_text(enum xrx_offload_id id,
				const struct xrx_conf_offload *o, char *buf,
				size_t len)
{
	const struct xrx_offload_desc *d = &xrx_offload_desc[id];
	const char *bang = o->required ? "!" : "";

	if (d->kind == XRX_OFFK_FEATURE || d->kind == XRX_OFFK_SPLIT)
		snprintf(buf, len, "offload.%s = %s%s", d->key,
			 o->value ? "on" : "off", bang);
	else if (o->value == XRX_CONF_VAL_MAX)
		snprintf(buf, len, "offload.%s = max%s", d->key, bang);
	else
		snprintf(buf, len, "offload.%s = %u%s", d->key, o->value, bang);
	return buf;
}

/*
 * Whether setting id can and needs to change: 1 yes (target set), 0 it is
 * already there, negative errno when the interface cannot do it (why set).
 */
static int plan_one(const struct xrx_nic *nic, enum xrx_offload_id id,
		    const struct xrx_conf_offload *o, unsigned int *target,
		    char *why, size_t wlen)
{
	const struct xrx_offload_desc *d = &xrx_offload_desc[id];
	const struct xrx_nic_feature *f;
	unsigned int cur, max;
	int si;

	switch (d->kind) {
	case XRX_OFFK_FEATURE:
		f = xrx_nic_feature(nic, d->feature);
		*target = o->value;
		if (!f) {
			snprintf(why, wlen, "the kernel has no feature %s",
				 d->feature);
			return -EOPNOTSUPP;
		}
		if (f->active == !!o->value)
			return 0;
		if (!f->hw) {
			snprintf(why, wlen,
				 "%s is fixed %s on %s (the driver does not let it change)",
				 d->feature, f->active ? "on" : "off", nic->ifname);
			return -EOPNOTSUPP;
		}
		return 1;
	case XRX_OFFK_SIZE:
		si = size_index(id);
		*target = o->value;
		if (si < 0 || !(nic->have & XRX_HAVE_SIZE(si))) {
			snprintf(why, wlen, "this kernel does not report %s",
				 d->key);
			return -EOPNOTSUPP;
		}
		if ((si == XRX_SIZE_GSO || si == XRX_SIZE_GSO_IPV4) &&
		    nic->tso_max_size && o->value > nic->tso_max_size) {
			snprintf(why, wlen,
				 "%s segments at most %u bytes (tso_max_size)",
				 nic->ifname, nic->tso_max_size);
			return -ERANGE;
		}
		return nic->size[si] != o->value;
	case XRX_OFFK_RING:
		if (nic->rings_err) {
			snprintf(why, wlen, "the driver reports no ring sizes (%s)",
				 nic->rings_msg);
			return nic->rings_err;
		}
		if (!(nic->have & XRX_HAVE_RX_RING) || !nic->rx_ring_max) {
			snprintf(why, wlen, "the driver has no RX ring size");
			return -EOPNOTSUPP;
		}
		*target = o->value == XRX_CONF_VAL_MAX ? nic->rx_ring_max :
							 o->value;
		if (*target > nic->rx_ring_max) {
			snprintf(why, wlen, "%s's RX ring holds at most %u",
				 nic->ifname, nic->rx_ring_max);
			return -ERANGE;
		}
		return nic->rx_ring != *target;
	case XRX_OFFK_SPLIT:
		if (nic->rings_err || !(nic->have & XRX_HAVE_TCP_DATA_SPLIT)) {
			snprintf(why, wlen,
				 "the driver reports no tcp-data-split setting%s%s%s",
				 nic->rings_err ? " (" : "", nic->rings_msg,
				 nic->rings_err ? ")" : "");
			return -EOPNOTSUPP;
		}
		*target = o->value ? ETHTOOL_TCP_DATA_SPLIT_ENABLED :
				     ETHTOOL_TCP_DATA_SPLIT_DISABLED;
		return nic->tcp_data_split != *target;
	case XRX_OFFK_CHANNELS:
		if (nic->channels_err) {
			snprintf(why, wlen, "the driver reports no channels (%s)",
				 nic->channels_msg);
			return nic->channels_err;
		}
		/* Combined channels are the RX queues when a driver has them. */
		if (nic->ch_max_combined) {
			cur = nic->ch_combined;
			max = nic->ch_max_combined;
		} else if (nic->ch_max_rx) {
			cur = nic->ch_rx;
			max = nic->ch_max_rx;
		} else {
			snprintf(why, wlen, "the driver has no RX or combined channels");
			return -EOPNOTSUPP;
		}
		*target = o->value == XRX_CONF_VAL_MAX ? max : o->value;
		if (*target > max) {
			snprintf(why, wlen, "%s has at most %u channels",
				 nic->ifname, max);
			return -ERANGE;
		}
		return cur != *target;
	case XRX_OFFK_NAPI:
		*target = o->value;
		if (nic->napi_err) {
			snprintf(why, wlen, "%s", nic->napi_msg);
			return -EOPNOTSUPP;
		}
		/* veth, for one, has them only while an XDP program is
		 * attached or GRO is on (veth_napi_enable()). */
		if (!nic->nnapi) {
			snprintf(why, wlen, "%s has no NAPI instance now",
				 nic->ifname);
			return -EOPNOTSUPP;
		}
		return napis_differ(nic, napi_index(id), o->value) > 0;
	}
	return -EINVAL;
}

static bool recorded_feature(const struct xrx_state *st, const char *name)
{
	unsigned int i;

	for (i = 0; i < st->nfeatures; i++)
		if (!strcmp(st->features[i].name, name))
			return true;
	return false;
}

/*
 * Setting @k of every NAPI instance of @nic that @st does not hold yet.
 * Return: how many were added, or -E2BIG (nothing added) when they do not
 * all fit.
 */
static int record_napis(const struct xrx_nic *nic, enum xrx_napi_setting k,
			struct xrx_state *st)
{
	struct xrx_state_napi *n;
	unsigned int i, fresh = 0;
	int added = 0;

	for (i = 0; i < nic->nnapi; i++)
		fresh += !xrx_state_napi(st, nic->napi[i].id);
	if (st->nnapi + fresh > XRX_STATE_NAPI_MAX)
		return -E2BIG;
	for (i = 0; i < nic->nnapi; i++) {
		n = xrx_state_napi(st, nic->napi[i].id);
		if (!n) {
			n = &st->napi[st->nnapi++];
			memset(n, 0, sizeof(*n));
			n->id = nic->napi[i].id;
		}
		if (n->have & (1u << k))
			continue;
		n->have |= 1u << k;
		n->value[k] = nic->napi[i].value[k];
		added++;
	}
	return added;
}

/*
 * Record the original value of everything plan will touch that @st does
 * not hold yet: an original is what the interface had before xrxd's
 * first change, also when a later step changes more.
 */
static void record(const struct xrx_nic *nic, const struct plan *plan,
		   struct xrx_state *st)
{
	unsigned int i, size_mask = XRX_HAVE_SIZE(XRX_SIZE_MAX) - 1;
	unsigned int ch_mask = XRX_HAVE_CH_RX | XRX_HAVE_CH_TX |
			       XRX_HAVE_CH_OTHER | XRX_HAVE_CH_COMBINED;

	for (i = 0; i < XRX_OFF_MAX; i++) {
		const struct xrx_offload_desc *d = &xrx_offload_desc[i];
		const struct xrx_nic_feature *f;

		if (!plan->todo[i])
			continue;
		switch (d->kind) {
		case XRX_OFFK_FEATURE:
			if (recorded_feature(st, d->feature))
				break;
			f = xrx_nic_feature(nic, d->feature);
			snprintf(st->features[st->nfeatures].name,
				 sizeof(st->features[0].name), "%s", d->feature);
			/* "wanted", not "active": restore what was asked for. */
			st->features[st->nfeatures++].on = f->wanted;
			break;
		case XRX_OFFK_SIZE:
			/*
			 * All of them: a gso/gro_max_size change at or below
			 * 64 KiB also moves the IPv4 limit
			 * (netif_set_gro_max_size()).
			 */
			if (st->have & size_mask)
				break;
			memcpy(st->size, nic->size, sizeof(st->size));
			st->have |= nic->have & size_mask;
			break;
		case XRX_OFFK_RING:
			if (st->have & XRX_HAVE_RX_RING)
				break;
			st->rx_ring = nic->rx_ring;
			st->have |= XRX_HAVE_RX_RING;
			break;
		case XRX_OFFK_SPLIT:
			if (st->have & XRX_HAVE_TCP_DATA_SPLIT)
				break;
			st->tcp_data_split = nic->tcp_data_split;
			st->have |= XRX_HAVE_TCP_DATA_SPLIT;
			break;
		case XRX_OFFK_CHANNELS:
			if (st->have & ch_mask)
				break;
			st->ch_rx = nic->ch_rx;
			st->ch_tx = nic->ch_tx;
			st->ch_other = nic->ch_other;
			st->ch_combined = nic->ch_combined;
			st->have |= nic->have & ch_mask;
			break;
		case XRX_OFFK_NAPI:
			/* plan_one() refused more than fit. */
			record_napis(nic, napi_index(i), st);
			break;
		}
	}
}

/* The value id has now, to compare with the plan's target. */
static unsigned int current_value(const struct xrx_nic *nic,
				  enum xrx_offload_id id)
{
	const struct xrx_offload_desc *d = &xrx_offload_desc[id];
	const struct xrx_nic_feature *f;

	switch (d->kind) {
	case XRX_OFFK_FEATURE:
		f = xrx_nic_feature(nic, d->feature);
		return f ? f->active : 0;
	case XRX_OFFK_SIZE:
		return size_index(id) < 0 ? 0 : nic->size[size_index(id)];
	case XRX_OFFK_RING:
		return nic->rx_ring;
	case XRX_OFFK_SPLIT:
		return nic->tcp_data_split;
	case XRX_OFFK_CHANNELS:
		return nic->ch_max_combined ? nic->ch_combined : nic->ch_rx;
	case XRX_OFFK_NAPI:
		/* One value for all (the usual case), else none. */
		if (!nic->nnapi || napis_differ(nic, napi_index(id),
						nic->napi[0].value[napi_index(id)]))
			return XRX_CONF_VAL_MAX;
		return (unsigned int)nic->napi[0].value[napi_index(id)];
	}
	return 0;
}

/* Setting @k of every NAPI instance; the first error, a vanished one aside. */
static int apply_napis(struct xrx_nl *nl, const struct xrx_nic *nic,
		       enum xrx_napi_setting k, unsigned int target)
{
	unsigned int i;
	int ret, first = 0;

	for (i = 0; i < nic->nnapi; i++) {
		if (nic->napi[i].value[k] == target)
			continue;
		ret = ctl_set_napi(nl, nic->napi[i].id, k, target);
		if (ret && ret != -ENOENT && !first)
			first = ret;
	}
	return first;
}

static int apply_one(struct xrx_nl *nl, const struct xrx_nic *nic,
		     enum xrx_offload_id id, unsigned int target)
{
	const struct xrx_offload_desc *d = &xrx_offload_desc[id];
	struct xrx_state_feature f;
	unsigned int size[XRX_SIZE_MAX];
	int si;

	switch (d->kind) {
	case XRX_OFFK_FEATURE:
		snprintf(f.name, sizeof(f.name), "%s", d->feature);
		f.on = target;
		return ctl_set_features(nl, nic->ifindex, &f, 1);
	case XRX_OFFK_SIZE:
		si = size_index(id);
		if (si < 0)
			return -EINVAL;
		size[si] = target;
		return ctl_set_sizes(nl, nic->ifindex, size, XRX_HAVE_SIZE(si));
	case XRX_OFFK_RING:
		return ctl_set_rings(nl, nic->ifindex, XRX_HAVE_RX_RING, target, 0);
	case XRX_OFFK_SPLIT:
		return ctl_set_rings(nl, nic->ifindex, XRX_HAVE_TCP_DATA_SPLIT, 0,
				 target);
	case XRX_OFFK_CHANNELS:
		if (nic->ch_max_combined)
			return ctl_set_channels(nl, nic->ifindex,
					    XRX_HAVE_CH_COMBINED, 0, 0, 0,
					    target);
		return ctl_set_channels(nl, nic->ifindex, XRX_HAVE_CH_RX, target, 0,
				    0, 0);
	case XRX_OFFK_NAPI:
		return apply_napis(nl, nic, napi_index(id), target);
	}
	return -EINVAL;
}

static void rollback(struct xrx_nl *nl, const struct xrx_state *st,
		     const char *statedir)
{
	char err[512];

	if (xrx_offload_restore(nl, st, err, sizeof(err))) {
		ctl_err("%s", err);
		ctl_err("%s: the state file is kept; run 'xrxctl restore %s' once the cause is fixed",
			st->ifname, st->ifname);
		return;
	}
	if (xrx_state_remove(statedir, st->ifname, err, sizeof(err)))
		ctl_err("%s", err);
}

bool xrx_offload_has(const struct xrx_conf *c, enum xrx_offload_kind kind)
{
	unsigned int i;

	for (i = 0; i < XRX_OFF_MAX; i++)
		if (c->offload[i].set && xrx_offload_desc[i].kind == kind)
			return true;
	return false;
}

void xrx_offload_select(struct xrx_conf *c, enum xrx_offload_kind kind,
			bool only)
{
	unsigned int i;

	for (i = 0; i < XRX_OFF_MAX; i++)
		if ((xrx_offload_desc[i].kind == kind) != only)
			memset(&c->offload[i], 0, sizeof(c->offload[i]));
}

int xrx_offload_apply(struct xrx_nl *nl, const struct xrx_conf *conf,
		      const char *statedir, char *err, size_t errlen)
{
	const char *ifname = conf->ifname;
	char why[XRX_NL_MSG_MAX + 128], text[96];
	struct xrx_state *st = NULL;
	struct xrx_nic *nic;
	struct plan plan;
	unsigned int i;
	int ret;

	memset(&plan, 0, sizeof(plan));
	nic = malloc(sizeof(*nic));
	st = calloc(1, sizeof(*st));
	if (!nic || !st) {
		ret = -ENOMEM;
		goto out;
	}
	ret = xrx_nic_read(nl, ifname, nic, err, errlen);
	if (ret)
		goto out;

	/* Decide everything before touching anything. */
	for (i = 0; i < XRX_OFF_MAX; i++) {
		const struct xrx_conf_offload *o = &conf->offload[i];

		if (!o->set)
			continue;
		ret = plan_one(nic, i, o, &plan.target[i], why, sizeof(why));
		setting_text(i, o, text, sizeof(text));
		if (ret < 0 && o->required) {
			snprintf(err, errlen,
				 "%s: %s (%s:%d) cannot be applied: %s; nothing was changed",
				 ifname, text, conf->file, o->line, why);
			goto out;
		}
		if (ret < 0)
			ctl_warn("%s: %s not applied: %s; leaving it as it is",
				 ifname, text, why);
		plan.todo[i] = ret > 0;
	}
	ret = 0;

	/* A second apply by the same xrxd adds to its record. */
	if (xrx_state_read(statedir, ifname, st, why, sizeof(why)) ||
	    st->pid != getpid())
		memset(st, 0, sizeof(*st));
	st->pid = getpid();
	st->ifindex = nic->ifindex;
	snprintf(st->ifname, sizeof(st->ifname), "%s", ifname);
	record(nic, &plan, st);
	ret = xrx_state_write(statedir, st, err, errlen);
	if (ret)
		goto out;

	for (i = 0; i < XRX_OFF_MAX; i++) {
		const struct xrx_conf_offload *o = &conf->offload[i];
		unsigned int before, now;
		int set_ret, added;

		if (!plan.todo[i])
			continue;
		setting_text(i, o, text, sizeof(text));
		/*
		 * A step before (channels) may have made NAPI instances the
		 * plan did not see: their originals go on record first.
		 */
		added = xrx_offload_desc[i].kind == XRX_OFFK_NAPI ?
				record_napis(nic, napi_index(i), st) : 0;
		if (added > 0) {
			ret = xrx_state_write(statedir, st, err, errlen);
			if (ret) {
				rollback(nl, st, statedir);
				goto out;
			}
		}
		before = current_value(nic, i);
		if (added < 0) {
			set_ret = added;
			snprintf(why, sizeof(why),
				 "the state file has no room for the originals of more than %d NAPI instances",
				 XRX_STATE_NAPI_MAX);
		} else {
			set_ret = apply_one(nl, nic, i, plan.target[i]);
			if (set_ret)
				ctl_nl_reason(nl, set_ret, why, sizeof(why));
		}
		ret = xrx_nic_read(nl, ifname, nic, err, errlen);
		if (ret) {
			rollback(nl, st, statedir);
			goto out;
		}
		now = current_value(nic, i);
		if (!set_ret && now == plan.target[i]) {
			ctl_info("%s: %s (was %u, now %u)", ifname, text, before,
				 now);
			continue;
		}
		if (!set_ret)
			snprintf(why, sizeof(why),
				 "the kernel accepted it but reports %u, not %u",
				 now, plan.target[i]);
		if (o->required) {
			snprintf(err, errlen,
				 "%s: %s (%s:%d) was refused: %s; the settings already changed were restored",
				 ifname, text, conf->file, o->line, why);
			rollback(nl, st, statedir);
			ret = set_ret ? set_ret : -EIO;
			goto out;
		}
		ctl_warn("%s: %s was refused: %s; leaving it as it is", ifname,
			 text, why);
	}
	ret = 0;
out:
	free(st);
	free(nic);
	return ret;
}

