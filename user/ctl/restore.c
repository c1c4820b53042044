// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Putting an interface's recorded settings back (the state file written
 * before the first change), in an order that never fails for ordering's
 * sake, and checking each against what the kernel then reports.
 */
#include <errno.h>
#include <net/if.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

#include "ctl_log.h"
#include "ctl_nl.h"

/* ---- restore ------------------------------------------------------- */

static int restore_failed(const char *ifname, const char *what,
			  const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int restore_failed(const char *ifname, const char *what,
			  const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ctl_err("%s: could not restore %s: %s", ifname, what, line);
	return 1;
}

#define CH_BITS (XRX_HAVE_CH_RX | XRX_HAVE_CH_TX | XRX_HAVE_CH_OTHER | \
		 XRX_HAVE_CH_COMBINED)
#define RING_BITS (XRX_HAVE_RX_RING | XRX_HAVE_TCP_DATA_SPLIT)
#define SIZE_BITS (XRX_HAVE_SIZE(XRX_SIZE_MAX) - 1)
#define ARRAY_END(a) ((a) + sizeof(a) / sizeof((a)[0]))

static int set_features(struct xrx_nl *nl, int ifindex,
			const struct xrx_state *st)
{
	return ctl_set_features(nl, ifindex, st->features, st->nfeatures);
}

/*
 * All recorded sizes in one message: do_setlink() applies the IPv4 ones
 * after gso/gro_max_size, which (netif_set_gso_max_size()) overwrite them
 * when at or below 64 KiB, so each ends up exact.
 */
static int set_sizes(struct xrx_nl *nl, int ifindex,
		     const struct xrx_state *st)
{
	return ctl_set_sizes(nl, ifindex, st->size, st->have & SIZE_BITS);
}

static int set_rings(struct xrx_nl *nl, int ifindex, const struct xrx_state *st)
{
	return ctl_set_rings(nl, ifindex, st->have, st->rx_ring,
			     st->tcp_data_split);
}

static int set_channels(struct xrx_nl *nl, int ifindex,
			const struct xrx_state *st)
{
	return ctl_set_channels(nl, ifindex, st->have, st->ch_rx, st->ch_tx,
				st->ch_other, st->ch_combined);
}

/*
 * Each recorded NAPI instance that still exists gets its originals back.
 * One that is gone (veth deletes its NAPIs with the XDP program unless
 * GRO is on, a driver re-creates them on a reset) took its settings with
 * it: a new instance starts from the device's (sysfs) values, which xrx
 * never changes (netif_napi_add_weight_locked()), or, where the driver
 * keeps a config per queue, comes back with the same id.
 */
static int set_napis(struct xrx_nl *nl, int ifindex, const struct xrx_state *st)
{
	unsigned int i, k;
	int ret, first = 0;

	(void)ifindex;
	for (i = 0; i < st->nnapi; i++)
		for (k = 0; k < XRX_NAPI_SETTING_MAX; k++) {
			if (!(st->napi[i].have & (1u << k)))
				continue;
			ret = ctl_set_napi(nl, st->napi[i].id, k,
					   st->napi[i].value[k]);
			if (ret && ret != -ENOENT && !first)
				first = ret;
		}
	return first;
}

static bool has_features(const struct xrx_state *st)
{
	return st->nfeatures > 0;
}

static bool has_sizes(const struct xrx_state *st)
{
	return st->have & SIZE_BITS;
}

static bool has_rings(const struct xrx_state *st)
{
	return st->have & RING_BITS;
}

static bool has_channels(const struct xrx_state *st)
{
	return st->have & CH_BITS;
}

static bool has_napis(const struct xrx_state *st)
{
	return st->nnapi > 0;
}

/* Each check returns how many settings differ, after saying which. */
static unsigned int check_features(const struct xrx_nic *nic,
				   const struct xrx_state *st)
{
	unsigned int i, failed = 0;

	for (i = 0; i < st->nfeatures; i++) {
		const struct xrx_nic_feature *f =
			xrx_nic_feature(nic, st->features[i].name);

		if (!f || f->wanted != st->features[i].on)
			failed += restore_failed(st->ifname,
						 st->features[i].name,
						 "wanted %s, the kernel reports %s",
						 st->features[i].on ? "on" : "off",
						 !f ? "no such feature" :
						 f->wanted ? "on" : "off");
	}
	return failed;
}

static unsigned int check_sizes(const struct xrx_nic *nic,
				const struct xrx_state *st)
{
	unsigned int i, failed = 0;

	for (i = 0; i < XRX_SIZE_MAX; i++)
		if ((st->have & XRX_HAVE_SIZE(i)) &&
		    nic->size[i] != st->size[i])
			failed += restore_failed(st->ifname, ctl_size_names[i],
						 "wanted %u, the kernel reports %u",
						 st->size[i], nic->size[i]);
	return failed;
}

static unsigned int check_rings(const struct xrx_nic *nic,
				const struct xrx_state *st)
{
	unsigned int failed = 0;

	if ((st->have & XRX_HAVE_RX_RING) && nic->rx_ring != st->rx_ring)
		failed += restore_failed(st->ifname, "the RX ring size",
					 "wanted %u, the driver reports %u",
					 st->rx_ring, nic->rx_ring);
	if ((st->have & XRX_HAVE_TCP_DATA_SPLIT) &&
	    nic->tcp_data_split != st->tcp_data_split)
		failed += restore_failed(st->ifname, "tcp-data-split",
					 "wanted %s, the driver reports %s",
					 ctl_split_name(st->tcp_data_split),
					 ctl_split_name(nic->tcp_data_split));
	return failed;
}

static unsigned int check_channels(const struct xrx_nic *nic,
				   const struct xrx_state *st)
{
	if (((st->have & XRX_HAVE_CH_RX) && nic->ch_rx != st->ch_rx) ||
	    ((st->have & XRX_HAVE_CH_TX) && nic->ch_tx != st->ch_tx) ||
	    ((st->have & XRX_HAVE_CH_OTHER) && nic->ch_other != st->ch_other) ||
	    ((st->have & XRX_HAVE_CH_COMBINED) &&
	     nic->ch_combined != st->ch_combined))
		return restore_failed(st->ifname, "channels",
				      "wanted rx %u tx %u other %u combined %u, the driver reports rx %u tx %u other %u combined %u",
				      st->ch_rx, st->ch_tx, st->ch_other,
				      st->ch_combined, nic->ch_rx, nic->ch_tx,
				      nic->ch_other, nic->ch_combined);
	return 0;
}

static unsigned int check_napis(const struct xrx_nic *nic,
				const struct xrx_state *st)
{
	unsigned int i, j, k, failed = 0, gone = 0;
	char what[64];

	for (i = 0; i < st->nnapi; i++) {
		for (j = 0; j < nic->nnapi; j++)
			if (nic->napi[j].id == st->napi[i].id)
				break;
		if (j == nic->nnapi) {
			gone++;
			continue;
		}
		for (k = 0; k < XRX_NAPI_SETTING_MAX; k++) {
			if (!(st->napi[i].have & (1u << k)) ||
			    nic->napi[j].value[k] == st->napi[i].value[k])
				continue;
			snprintf(what, sizeof(what), "%s of NAPI %u",
				 xrx_napi_setting_names[k], st->napi[i].id);
			failed += restore_failed(st->ifname, what,
						 "wanted %llu, the kernel reports %llu",
						 st->napi[i].value[k],
						 nic->napi[j].value[k]);
		}
	}
	if (gone)
		ctl_info("%s: %u of the %u NAPI instances on record are gone, and their settings with them; new ones start from the device's",
			 st->ifname, gone, st->nnapi);
	return failed;
}

/*
 * What a state file can record, in the order it is put back: features
 * and sizes first, as they never reallocate queues; rings and channels
 * later (and after xrx_rx is detached: veth refuses channel changes while
 * an XDP program is attached), the NAPI instances' settings last.
 */
static const struct restore_step {
	const char *what;
	bool (*recorded)(const struct xrx_state *st);
	int (*set)(struct xrx_nl *nl, int ifindex, const struct xrx_state *st);
	unsigned int (*check)(const struct xrx_nic *nic,
			      const struct xrx_state *st);
} restore_steps[] = {
	{ "features", has_features, set_features, check_features },
	{ "GRO/GSO sizes", has_sizes, set_sizes, check_sizes },
	{ "rings", has_rings, set_rings, check_rings },
	{ "channels", has_channels, set_channels, check_channels },
	/* After channels: the queues they bring back bring their NAPIs. */
	{ "NAPI settings", has_napis, set_napis, check_napis },
};

int xrx_offload_restore(struct xrx_nl *nl, const struct xrx_state *st,
			char *err, size_t errlen)
{
	char why[XRX_NL_MSG_MAX + 64], now[IF_NAMESIZE];
	const struct restore_step *step;
	const char *name = st->ifname;
	unsigned int failed = 0;
	struct xrx_nic *nic;
	int ret;

	nic = malloc(sizeof(*nic));
	if (!nic)
		return -ENOMEM;
	ret = xrx_nic_read(nl, name, nic, err, errlen);
	/*
	 * Renamed while xrxd ran (dev_change_name() keeps the ifindex):
	 * the state file and pins keep the old name, the settings belong
	 * to the device, which the recorded ifindex still names in this
	 * namespace (ifindexes are allocated cyclically, dev_index_reserve(),
	 * so a new device does not take a freed one soon).
	 */
	if (ret == -ENODEV && st->ifindex > 0 &&
	    if_indextoname((unsigned int)st->ifindex, now)) {
		ctl_notice("%s: renamed to %s (ifindex %d, as recorded); restoring %s",
			   st->ifname, now, st->ifindex, now);
		name = now;
		ret = xrx_nic_read(nl, name, nic, err, errlen);
	}
	if (ret)
		goto out;
	if (st->ifindex && nic->ifindex != st->ifindex)
		ctl_warn("%s: now has ifindex %d, the state file recorded %d: the interface was re-created; restoring anyway",
			 st->ifname, nic->ifindex, st->ifindex);

	for (step = restore_steps; step < ARRAY_END(restore_steps); step++) {
		if (!step->recorded(st))
			continue;
		ret = step->set(nl, nic->ifindex, st);
		if (ret)
			failed += restore_failed(st->ifname, step->what, "%s",
						 ctl_nl_reason(nl, ret, why,
							       sizeof(why)));
	}

	/* Read everything back: only what the kernel reports counts. */
	ret = xrx_nic_read(nl, name, nic, err, errlen);
	if (ret)
		goto out;
	for (step = restore_steps; step < ARRAY_END(restore_steps); step++)
		failed += step->check(nic, st);
	ret = 0;
	if (failed) {
		snprintf(err, errlen,
			 "%s: %u setting(s) could not be restored (see above); fix them by hand",
			 st->ifname, failed);
		ret = -EIO;
	}
out:
	free(nic);
	return ret;
}

int xrx_offload_restore_file(struct xrx_nl *nl, const char *statedir,
			     const char *ifname, char *err, size_t errlen)
{
	char path[PATH_MAX], rm_err[256];
	struct xrx_state *st;
	int ret;

	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	ret = xrx_state_read(statedir, ifname, st, err, errlen);
	if (ret)
		goto out;
	ret = xrx_offload_restore(nl, st, err, errlen);
	if (ret) {
		xrx_state_path(statedir, ifname, path, sizeof(path));
		snprintf(err + strlen(err), errlen - strlen(err),
			 "; %s is kept for another try", path);
		goto out;
	}
	ret = xrx_state_remove(statedir, ifname, rm_err, sizeof(rm_err));
	if (ret)
		snprintf(err, errlen, "%s", rm_err);
out:
	free(st);
	return ret;
}

