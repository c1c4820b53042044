// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An interface's settings as the kernel reports them (features, GRO/GSO
 * sizes, rings, channels), and the setters that change them. Reading is
 * how every change is verified: only what the kernel reports back counts.
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

/* ---- reading ------------------------------------------------------- */

struct feat_parse {
	struct xrx_nic *nic;
	int which;	/* ETHTOOL_A_FEATURES_HW/WANTED/ACTIVE */
	bool nomask;
	const char *name;
	bool value;
};

static struct xrx_nic_feature *feature_slot(struct xrx_nic *nic,
					    const char *name)
{
	struct xrx_nic_feature *f;
	unsigned int i;

	for (i = 0; i < nic->nfeatures; i++)
		if (!strcmp(nic->features[i].name, name))
			return &nic->features[i];
	if (nic->nfeatures == XRX_NIC_FEATURES_MAX)
		return NULL;
	f = &nic->features[nic->nfeatures++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	return f;
}

static int bit_cb(const struct nlattr *attr, void *data)
{
	struct feat_parse *fp = data;

	switch (mnl_attr_get_type(attr)) {
	case ETHTOOL_A_BITSET_BIT_NAME:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
			fp->name = mnl_attr_get_str(attr);
		break;
	case ETHTOOL_A_BITSET_BIT_VALUE:
		fp->value = true;
		break;
	}
	return MNL_CB_OK;
}

static int bits_cb(const struct nlattr *attr, void *data)
{
	struct feat_parse *fp = data;
	struct xrx_nic_feature *f;
	bool on;

	if (mnl_attr_get_type(attr) != ETHTOOL_A_BITSET_BITS_BIT)
		return MNL_CB_OK;
	fp->name = NULL;
	fp->value = false;
	mnl_attr_parse_nested(attr, bit_cb, fp);
	if (!fp->name)
		return MNL_CB_OK;
	/* A list without a mask names only the bits that are set. */
	on = fp->nomask || fp->value;
	f = feature_slot(fp->nic, fp->name);
	if (!f)
		return MNL_CB_OK;
	if (fp->which == ETHTOOL_A_FEATURES_HW)
		f->hw = on;
	else if (fp->which == ETHTOOL_A_FEATURES_WANTED)
		f->wanted = on;
	else
		f->active = on;
	return MNL_CB_OK;
}

static int bitset_nomask_cb(const struct nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) == ETHTOOL_A_BITSET_NOMASK)
		((struct feat_parse *)data)->nomask = true;
	return MNL_CB_OK;
}

static int bitset_bits_cb(const struct nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) == ETHTOOL_A_BITSET_BITS)
		mnl_attr_parse_nested(attr, bits_cb, data);
	return MNL_CB_OK;
}

static int features_attr_cb(const struct nlattr *attr, void *data)
{
	struct feat_parse fp = { .nic = data };
	int type = mnl_attr_get_type(attr);

	if (type != ETHTOOL_A_FEATURES_HW && type != ETHTOOL_A_FEATURES_WANTED &&
	    type != ETHTOOL_A_FEATURES_ACTIVE)
		return MNL_CB_OK;
	fp.which = type;
	mnl_attr_parse_nested(attr, bitset_nomask_cb, &fp);
	mnl_attr_parse_nested(attr, bitset_bits_cb, &fp);
	return MNL_CB_OK;
}

static int features_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), features_attr_cb,
			      data);
}

static int u32_attr(const struct nlattr *attr, unsigned int *out)
{
	if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
		return 0;
	*out = mnl_attr_get_u32(attr);
	return 1;
}

static int rings_attr_cb(const struct nlattr *attr, void *data)
{
	struct xrx_nic *nic = data;

	switch (mnl_attr_get_type(attr)) {
	case ETHTOOL_A_RINGS_RX:
		if (u32_attr(attr, &nic->rx_ring))
			nic->have |= XRX_HAVE_RX_RING;
		break;
	case ETHTOOL_A_RINGS_RX_MAX:
		u32_attr(attr, &nic->rx_ring_max);
		break;
	case ETHTOOL_A_RINGS_TCP_DATA_SPLIT:
		if (mnl_attr_validate(attr, MNL_TYPE_U8) >= 0) {
			nic->tcp_data_split = mnl_attr_get_u8(attr);
			nic->have |= XRX_HAVE_TCP_DATA_SPLIT;
		}
		break;
	}
	return MNL_CB_OK;
}

static int rings_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), rings_attr_cb,
			      data);
}

static int channels_attr_cb(const struct nlattr *attr, void *data)
{
	struct xrx_nic *nic = data;

	switch (mnl_attr_get_type(attr)) {
	case ETHTOOL_A_CHANNELS_RX_MAX:
		u32_attr(attr, &nic->ch_max_rx);
		break;
	case ETHTOOL_A_CHANNELS_TX_MAX:
		u32_attr(attr, &nic->ch_max_tx);
		break;
	case ETHTOOL_A_CHANNELS_OTHER_MAX:
		u32_attr(attr, &nic->ch_max_other);
		break;
	case ETHTOOL_A_CHANNELS_COMBINED_MAX:
		u32_attr(attr, &nic->ch_max_combined);
		break;
	case ETHTOOL_A_CHANNELS_RX_COUNT:
		if (u32_attr(attr, &nic->ch_rx))
			nic->have |= XRX_HAVE_CH_RX;
		break;
	case ETHTOOL_A_CHANNELS_TX_COUNT:
		if (u32_attr(attr, &nic->ch_tx))
			nic->have |= XRX_HAVE_CH_TX;
		break;
	case ETHTOOL_A_CHANNELS_OTHER_COUNT:
		if (u32_attr(attr, &nic->ch_other))
			nic->have |= XRX_HAVE_CH_OTHER;
		break;
	case ETHTOOL_A_CHANNELS_COMBINED_COUNT:
		if (u32_attr(attr, &nic->ch_combined))
			nic->have |= XRX_HAVE_CH_COMBINED;
		break;
	}
	return MNL_CB_OK;
}

static int channels_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), channels_attr_cb,
			      data);
}

static int link_attr_cb(const struct nlattr *attr, void *data)
{
	struct xrx_nic *nic = data;
	int type = mnl_attr_get_type(attr), i;

	if (type == IFLA_TSO_MAX_SIZE) {
		u32_attr(attr, &nic->tso_max_size);
		return MNL_CB_OK;
	}
	for (i = 0; i < XRX_SIZE_MAX; i++)
		if (type == ctl_size_attrs[i] && u32_attr(attr, &nic->size[i]))
			nic->have |= XRX_HAVE_SIZE(i);
	return MNL_CB_OK;
}

static int link_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct xrx_nic *nic = data;

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return MNL_CB_OK;
	nic->ifindex = ifi->ifi_index;
	return mnl_attr_parse(nlh, sizeof(*ifi), link_attr_cb, data);
}

/* One NAPI instance of a napi-get dump. */
struct napi_parse {
	struct xrx_nic *nic;
	struct xrx_nic_napi n;
	unsigned int have;	/* 1u << enum xrx_napi_setting */
	bool mine;		/* of nic->ifindex */
};

static int napi_attr_cb(const struct nlattr *attr, void *data)
{
	struct napi_parse *np = data;
	unsigned int v;
	int k = -1;

	switch (mnl_attr_get_type(attr)) {
	case XRX_NETDEV_A_NAPI_IFINDEX:
		np->mine = u32_attr(attr, &v) && (int)v == np->nic->ifindex;
		return MNL_CB_OK;
	case XRX_NETDEV_A_NAPI_ID:
		u32_attr(attr, &np->n.id);
		return MNL_CB_OK;
	case XRX_NETDEV_A_NAPI_DEFER_HARD_IRQS:
		k = XRX_NAPI_DEFER_HARD_IRQS;
		break;
	case XRX_NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT:
		k = XRX_NAPI_GRO_FLUSH_TIMEOUT;
		break;
	default:
		return MNL_CB_OK;
	}
	/* A "uint" attribute: 4 or 8 bytes (nla_put_uint()). */
	if (mnl_attr_get_payload_len(attr) == 8)
		np->n.value[k] = mnl_attr_get_u64(attr);
	else if (mnl_attr_get_payload_len(attr) == 4)
		np->n.value[k] = mnl_attr_get_u32(attr);
	else
		return MNL_CB_OK;
	np->have |= 1u << k;
	return MNL_CB_OK;
}

static int napi_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct napi_parse np = { .nic = data };
	struct xrx_nic *nic = data;

	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), napi_attr_cb, &np);
	if (!np.mine || !np.n.id)
		return MNL_CB_OK;
	/* A kernel before 6.13 lists NAPIs without their settings. */
	if (np.have != (1u << XRX_NAPI_SETTING_MAX) - 1)
		nic->napi_err = -EOPNOTSUPP;
	else if (nic->nnapi == XRX_STATE_NAPI_MAX)
		nic->napi_err = -E2BIG;
	else
		nic->napi[nic->nnapi++] = np.n;
	return MNL_CB_OK;
}

/*
 * The interface's NAPI instances and their own settings. Return: 0, or a
 * negative errno with nic->napi_msg saying why (not fatal: an old kernel).
 */
static int read_napis(struct xrx_nl *nl, struct xrx_nic *nic)
{
	struct nlmsghdr *nlh;
	int ret;

	nic->nnapi = 0;
	nic->napi_err = 0;
	nlh = ctl_netdev_msg(nl, XRX_NETDEV_CMD_NAPI_GET, NLM_F_DUMP, &ret);
	if (nlh) {
		mnl_attr_put_u32(nlh, XRX_NETDEV_A_NAPI_IFINDEX,
				 (__u32)nic->ifindex);
		ret = ctl_genl_talk(nl, nlh, napi_msg_cb, nic);
	}
	if (!ret)
		ret = nic->napi_err;
	if (ret == -EOPNOTSUPP || ret == -ENOENT || ret == -EINVAL)
		snprintf(nic->napi_msg, sizeof(nic->napi_msg),
			 "this kernel has no per-NAPI settings (netdev netlink family napi-get/napi-set, Linux 6.13)");
	else if (ret == -E2BIG)
		snprintf(nic->napi_msg, sizeof(nic->napi_msg),
			 "more than %d NAPI instances", XRX_STATE_NAPI_MAX);
	else if (ret)
		ctl_nl_reason(nl, ret, nic->napi_msg, sizeof(nic->napi_msg));
	if (ret == -ENOENT || ret == -EINVAL)
		ret = -EOPNOTSUPP;
	nic->napi_err = ret;
	return ret;
}

static int read_link(struct xrx_nl *nl, struct xrx_nic *nic)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->sbuf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_GETLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, nic->ifname);
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	return ctl_nl_talk(nl, nl->rtnl, nl->rtnl_portid, nlh, link_msg_cb, nic);
}

int xrx_nic_read(struct xrx_nl *nl, const char *ifname, struct xrx_nic *nic,
		 char *err, size_t errlen)
{
	struct nlmsghdr *nlh;
	char why[XRX_NL_MSG_MAX + 64];
	int ret;

	memset(nic, 0, sizeof(*nic));
	snprintf(nic->ifname, sizeof(nic->ifname), "%s", ifname);
	ret = read_link(nl, nic);
	if (ret || !nic->ifindex) {
		ret = ret ? ret : -ENODEV;
		if (ret == -ENODEV)
			snprintf(err, errlen,
				 "%s: no such interface in this network namespace; check the name with 'ip link'",
				 ifname);
		else
			snprintf(err, errlen, "%s: cannot read link settings: %s",
				 ifname, ctl_nl_reason(nl, ret, why, sizeof(why)));
		return ret;
	}
	nic->have &= ~(XRX_HAVE_RX_RING | XRX_HAVE_TCP_DATA_SPLIT |
		       XRX_HAVE_CH_RX | XRX_HAVE_CH_TX | XRX_HAVE_CH_OTHER |
		       XRX_HAVE_CH_COMBINED);

	nlh = ctl_ethtool_msg(nl, ETHTOOL_MSG_FEATURES_GET,
			  ETHTOOL_A_FEATURES_HEADER, nic->ifindex, 0);
	nic->features_err = ctl_genl_talk(nl, nlh, features_msg_cb, nic);
	if (nic->features_err) {
		snprintf(err, errlen, "%s: cannot read features: %s", ifname,
			 ctl_nl_reason(nl, nic->features_err, why, sizeof(why)));
		return nic->features_err;
	}

	/* Rings and channels are optional driver operations. */
	nlh = ctl_ethtool_msg(nl, ETHTOOL_MSG_RINGS_GET, ETHTOOL_A_RINGS_HEADER,
			  nic->ifindex, 0);
	nic->rings_err = ctl_genl_talk(nl, nlh, rings_msg_cb, nic);
	if (nic->rings_err)
		ctl_nl_reason(nl, nic->rings_err, nic->rings_msg,
			  sizeof(nic->rings_msg));

	nlh = ctl_ethtool_msg(nl, ETHTOOL_MSG_CHANNELS_GET,
			  ETHTOOL_A_CHANNELS_HEADER, nic->ifindex, 0);
	nic->channels_err = ctl_genl_talk(nl, nlh, channels_msg_cb, nic);
	if (nic->channels_err)
		ctl_nl_reason(nl, nic->channels_err, nic->channels_msg,
			  sizeof(nic->channels_msg));
	read_napis(nl, nic);
	return 0;
}

const struct xrx_nic_feature *xrx_nic_feature(const struct xrx_nic *nic,
					      const char *name)
{
	unsigned int i;

	for (i = 0; i < nic->nfeatures; i++)
		if (!strcmp(nic->features[i].name, name))
			return &nic->features[i];
	return NULL;
}

const char *ctl_split_name(unsigned int v)
{
	return v == ETHTOOL_TCP_DATA_SPLIT_ENABLED  ? "on" :
	       v == ETHTOOL_TCP_DATA_SPLIT_DISABLED ? "off" : "auto";
}

void xrx_nic_print(FILE *f, const struct xrx_nic *nic)
{
	const struct xrx_nic_feature *ft;
	unsigned int i;

	fprintf(f, "interface %s ifindex %d\n", nic->ifname, nic->ifindex);
	for (i = 0; i < XRX_OFF_MAX; i++) {
		const struct xrx_offload_desc *d = &xrx_offload_desc[i];

		if (d->kind != XRX_OFFK_FEATURE)
			continue;
		ft = xrx_nic_feature(nic, d->feature);
		if (!ft)
			fprintf(f, "%s -\n", d->key);
		else
			fprintf(f, "%s %s%s\n", d->key, ft->active ? "on" : "off",
				ft->hw ? "" : " fixed");
	}
	for (i = 0; i < XRX_SIZE_MAX; i++) {
		if (nic->have & XRX_HAVE_SIZE(i))
			fprintf(f, "%s %u\n", ctl_size_names[i], nic->size[i]);
		else
			fprintf(f, "%s -\n", ctl_size_names[i]);
	}
	if (nic->have & XRX_HAVE_RX_RING)
		fprintf(f, "rx_ring %u max %u\n", nic->rx_ring, nic->rx_ring_max);
	else
		fprintf(f, "rx_ring - (%s)\n",
			nic->rings_err ? nic->rings_msg : "not reported");
	if (nic->have & XRX_HAVE_TCP_DATA_SPLIT)
		fprintf(f, "header_split %s\n", ctl_split_name(nic->tcp_data_split));
	else
		fprintf(f, "header_split -\n");
	if (nic->channels_err)
		fprintf(f, "channels - (%s)\n", nic->channels_msg);
	else
		fprintf(f, "channels rx %u/%u tx %u/%u other %u/%u combined %u/%u\n",
			nic->ch_rx, nic->ch_max_rx, nic->ch_tx, nic->ch_max_tx,
			nic->ch_other, nic->ch_max_other, nic->ch_combined,
			nic->ch_max_combined);
	if (nic->napi_err)
		fprintf(f, "napi - (%s)\n", nic->napi_msg);
	else if (!nic->nnapi)
		fprintf(f, "napi - (no NAPI instance now)\n");
	for (i = 0; i < nic->nnapi; i++)
		fprintf(f, "napi %u %s %llu %s %llu\n", nic->napi[i].id,
			xrx_napi_setting_names[XRX_NAPI_DEFER_HARD_IRQS],
			nic->napi[i].value[XRX_NAPI_DEFER_HARD_IRQS],
			xrx_napi_setting_names[XRX_NAPI_GRO_FLUSH_TIMEOUT],
			nic->napi[i].value[XRX_NAPI_GRO_FLUSH_TIMEOUT]);
}


/* ---- writing ------------------------------------------------------- */

int ctl_set_features(struct xrx_nl *nl, int ifindex,
			const struct xrx_state_feature *feat, unsigned int n)
{
	struct nlattr *wanted, *bits, *bit;
	struct nlmsghdr *nlh;
	unsigned int i;

	/* No NOMASK: only the listed bits change (ethnl_update_bitset()). */
	nlh = ctl_ethtool_msg(nl, ETHTOOL_MSG_FEATURES_SET,
			  ETHTOOL_A_FEATURES_HEADER, ifindex,
			  ETHTOOL_FLAG_OMIT_REPLY);
	wanted = mnl_attr_nest_start(nlh, ETHTOOL_A_FEATURES_WANTED);
	bits = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS);
	for (i = 0; i < n; i++) {
		bit = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS_BIT);
		mnl_attr_put_strz(nlh, ETHTOOL_A_BITSET_BIT_NAME, feat[i].name);
		if (feat[i].on)
			mnl_attr_put(nlh, ETHTOOL_A_BITSET_BIT_VALUE, 0, NULL);
		mnl_attr_nest_end(nlh, bit);
	}
	mnl_attr_nest_end(nlh, bits);
	mnl_attr_nest_end(nlh, wanted);
	return ctl_genl_talk(nl, nlh, NULL, NULL);
}

/* Sizes whose bit is in mask, in one RTM_NEWLINK. */
int ctl_set_sizes(struct xrx_nl *nl, int ifindex, const unsigned int *size,
		     unsigned int mask)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->sbuf);
	struct ifinfomsg *ifi;
	int i;

	nlh->nlmsg_type = RTM_NEWLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	for (i = 0; i < XRX_SIZE_MAX; i++)
		if (mask & XRX_HAVE_SIZE(i))
			mnl_attr_put_u32(nlh, ctl_size_attrs[i], size[i]);
	return ctl_nl_talk(nl, nl->rtnl, nl->rtnl_portid, nlh, NULL, NULL);
}

int ctl_set_rings(struct xrx_nl *nl, int ifindex, unsigned int have,
		     unsigned int rx, unsigned int split)
{
	struct nlmsghdr *nlh;

	nlh = ctl_ethtool_msg(nl, ETHTOOL_MSG_RINGS_SET, ETHTOOL_A_RINGS_HEADER,
			  ifindex, 0);
	if (have & XRX_HAVE_RX_RING)
		mnl_attr_put_u32(nlh, ETHTOOL_A_RINGS_RX, rx);
	if (have & XRX_HAVE_TCP_DATA_SPLIT)
		mnl_attr_put_u8(nlh, ETHTOOL_A_RINGS_TCP_DATA_SPLIT, (__u8)split);
	return ctl_genl_talk(nl, nlh, NULL, NULL);
}

int ctl_set_channels(struct xrx_nl *nl, int ifindex, unsigned int have,
			unsigned int rx, unsigned int tx, unsigned int other,
			unsigned int combined)
{
	struct nlmsghdr *nlh;

	nlh = ctl_ethtool_msg(nl, ETHTOOL_MSG_CHANNELS_SET,
			  ETHTOOL_A_CHANNELS_HEADER, ifindex, 0);
	if (have & XRX_HAVE_CH_RX)
		mnl_attr_put_u32(nlh, ETHTOOL_A_CHANNELS_RX_COUNT, rx);
	if (have & XRX_HAVE_CH_TX)
		mnl_attr_put_u32(nlh, ETHTOOL_A_CHANNELS_TX_COUNT, tx);
	if (have & XRX_HAVE_CH_OTHER)
		mnl_attr_put_u32(nlh, ETHTOOL_A_CHANNELS_OTHER_COUNT, other);
	if (have & XRX_HAVE_CH_COMBINED)
		mnl_attr_put_u32(nlh, ETHTOOL_A_CHANNELS_COMBINED_COUNT,
				 combined);
	return ctl_genl_talk(nl, nlh, NULL, NULL);
}

int ctl_set_napi(struct xrx_nl *nl, unsigned int id, enum xrx_napi_setting s,
		 unsigned long long value)
{
	struct nlmsghdr *nlh;
	int ret;

	nlh = ctl_netdev_msg(nl, XRX_NETDEV_CMD_NAPI_SET, 0, &ret);
	if (!nlh)
		return ret;
	mnl_attr_put_u32(nlh, XRX_NETDEV_A_NAPI_ID, id);
	if (s == XRX_NAPI_DEFER_HARD_IRQS)
		mnl_attr_put_u32(nlh, XRX_NETDEV_A_NAPI_DEFER_HARD_IRQS,
				 (__u32)value);
	else
		mnl_attr_put_u64(nlh, XRX_NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT, value);
	return ctl_genl_talk(nl, nlh, NULL, NULL);
}
