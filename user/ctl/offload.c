// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * NIC offloads over netlink. Everything goes through two libmnl sockets:
 * NETLINK_GENERIC for the "ethtool" family (features, rings, channels) and
 * NETLINK_ROUTE for the GRO/GSO size limits, which ethtool does not
 * carry. No legacy ethtool ioctl is needed for anything xrx changes.
 *
 * Every request asks for an ACK with extended ACK messages, so a refusal
 * reaches the operator in the driver's own words.
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
#include "ctl_offload.h"

/* rtnetlink attributes newer than Debian 12's uapi headers (6.1). */
#define XRX_IFLA_GSO_IPV4_MAX_SIZE 63
#define XRX_IFLA_GRO_IPV4_MAX_SIZE 64

#define NL_RECV_BUF (64 * 1024)
#define NL_SEND_BUF 8192

struct xrx_nl {
	struct mnl_socket *rtnl;
	struct mnl_socket *genl;
	unsigned int rtnl_portid;
	unsigned int genl_portid;
	unsigned int seq;
	__u16 ethtool_family;
	char msg[XRX_NL_MSG_MAX];	/* extack of the last request */
	/* Netlink messages are read in place as struct nlmsghdr. */
	char sbuf[NL_SEND_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));
	char rbuf[NL_RECV_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));
};

static const __u16 size_attrs[XRX_SIZE_MAX] = {
	[XRX_SIZE_GSO] = IFLA_GSO_MAX_SIZE,
	[XRX_SIZE_GRO] = IFLA_GRO_MAX_SIZE,
	[XRX_SIZE_GSO_IPV4] = XRX_IFLA_GSO_IPV4_MAX_SIZE,
	[XRX_SIZE_GRO_IPV4] = XRX_IFLA_GRO_IPV4_MAX_SIZE,
};

static const char *const size_names[XRX_SIZE_MAX] = {
	[XRX_SIZE_GSO] = "gso_max_size",
	[XRX_SIZE_GRO] = "gro_max_size",
	[XRX_SIZE_GSO_IPV4] = "gso_ipv4_max_size",
	[XRX_SIZE_GRO_IPV4] = "gro_ipv4_max_size",
};

/* ---- netlink plumbing ------------------------------------------------ */

struct talk {
	struct xrx_nl *nl;
	mnl_cb_t cb;
	void *data;
	int error;
};

static int extack_attr_cb(const struct nlattr *attr, void *data)
{
	struct talk *t = data;

	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
		snprintf(t->nl->msg, sizeof(t->nl->msg), "%s",
			 mnl_attr_get_str(attr));
	return MNL_CB_OK;
}

/* NLMSG_ERROR: an ACK (error 0) or a failure, with extack TLVs after it. */
static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	struct talk *t = data;
	size_t off = sizeof(*e);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
		t->error = -EBADMSG;
		return MNL_CB_ERROR;
	}
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - sizeof(e->msg);
		off = MNL_ALIGN(off);
		if (mnl_nlmsg_size(off) <= nlh->nlmsg_len)
			mnl_attr_parse(nlh, (unsigned int)off, extack_attr_cb, t);
	}
	if (e->error == 0)
		return MNL_CB_STOP;
	t->error = e->error;
	return MNL_CB_ERROR;
}

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;

	return t->cb ? t->cb(nlh, t->data) : MNL_CB_OK;
}

/*
 * Send nlh on sk and run cb on every reply until the ACK. Returns 0 or the
 * kernel's negative errno; nl->msg then holds its extack message, if any.
 */
static int nl_talk(struct xrx_nl *nl, struct mnl_socket *sk,
		   unsigned int portid, struct nlmsghdr *nlh, mnl_cb_t cb,
		   void *data)
{
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = { [NLMSG_ERROR] = error_cb };
	struct talk t = { .nl = nl, .cb = cb, .data = data };
	ssize_t n;
	int ret;

	nl->msg[0] = '\0';
	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++nl->seq;
	if (mnl_socket_sendto(sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(sk, nl->rbuf, sizeof(nl->rbuf));
		if (n < 0)
			return -errno;
		ret = mnl_cb_run2(nl->rbuf, (size_t)n, nlh->nlmsg_seq, portid,
				  data_cb, &t, ctl, NLMSG_MIN_TYPE);
		if (ret == MNL_CB_STOP)
			return 0;
		if (ret == MNL_CB_ERROR)
			return t.error ? t.error : (errno ? -errno : -EIO);
	}
}

static struct mnl_socket *nl_socket(int bus, unsigned int *portid)
{
	struct mnl_socket *sk = mnl_socket_open(bus);
	int one = 1;

	if (!sk)
		return NULL;
	if (mnl_socket_bind(sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		mnl_socket_close(sk);
		return NULL;
	}
	/* Best effort: without them errors come without a reason. */
	mnl_socket_setsockopt(sk, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(sk, NETLINK_CAP_ACK, &one, sizeof(one));
	*portid = mnl_socket_get_portid(sk);
	return sk;
}

static int family_cb(const struct nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID &&
	    mnl_attr_validate(attr, MNL_TYPE_U16) >= 0)
		*(__u16 *)data = mnl_attr_get_u16(attr);
	return MNL_CB_OK;
}

static int family_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_cb, data);
}

int xrx_nl_open(struct xrx_nl **out, char *err, size_t errlen)
{
	struct xrx_nl *nl = calloc(1, sizeof(*nl));
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	int ret;

	if (!nl)
		return -ENOMEM;
	nl->rtnl = nl_socket(NETLINK_ROUTE, &nl->rtnl_portid);
	nl->genl = nl_socket(NETLINK_GENERIC, &nl->genl_portid);
	if (!nl->rtnl || !nl->genl) {
		ret = -errno;
		snprintf(err, errlen, "cannot open a netlink socket: %s",
			 strerror(errno));
		goto fail;
	}
	nlh = mnl_nlmsg_put_header(nl->sbuf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME);
	ret = nl_talk(nl, nl->genl, nl->genl_portid, nlh, family_msg_cb,
		      &nl->ethtool_family);
	if (ret || !nl->ethtool_family) {
		ret = ret ? ret : -ENOENT;
		snprintf(err, errlen,
			 "the kernel has no ethtool netlink family (%s); xrx needs Linux 5.6 or later with CONFIG_ETHTOOL_NETLINK",
			 strerror(-ret));
		goto fail;
	}
	*out = nl;
	return 0;
fail:
	xrx_nl_close(nl);
	return ret;
}

void xrx_nl_close(struct xrx_nl *nl)
{
	if (!nl)
		return;
	if (nl->rtnl)
		mnl_socket_close(nl->rtnl);
	if (nl->genl)
		mnl_socket_close(nl->genl);
	free(nl);
}

/* The netdev family (include/uapi/linux/netdev.h, newer than Debian 12's). */
#define XRX_NETDEV_FAMILY_NAME "netdev"
#define XRX_NETDEV_CMD_DEV_GET 1
#define XRX_NETDEV_A_DEV_IFINDEX 1
#define XRX_NETDEV_A_DEV_XDP_RX_METADATA_FEATURES 5

static int netdev_dev_cb(const struct nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) == XRX_NETDEV_A_DEV_XDP_RX_METADATA_FEATURES &&
	    mnl_attr_validate(attr, MNL_TYPE_U64) >= 0)
		*(__u64 *)data = mnl_attr_get_u64(attr);
	return MNL_CB_OK;
}

static int netdev_dev_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), netdev_dev_cb,
			      data);
}

int xrx_nic_xdp_rx_metadata(struct xrx_nl *nl, int ifindex, __u64 *features)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	__u16 family = 0;
	int ret;

	*features = 0;
	nlh = mnl_nlmsg_put_header(nl->sbuf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, XRX_NETDEV_FAMILY_NAME);
	ret = nl_talk(nl, nl->genl, nl->genl_portid, nlh, family_msg_cb,
		      &family);
	if (ret || !family)
		return ret ? ret : -ENOENT;
	nlh = mnl_nlmsg_put_header(nl->sbuf);
	nlh->nlmsg_type = family;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = XRX_NETDEV_CMD_DEV_GET;
	g->version = 1;
	mnl_attr_put_u32(nlh, XRX_NETDEV_A_DEV_IFINDEX, (__u32)ifindex);
	return nl_talk(nl, nl->genl, nl->genl_portid, nlh, netdev_dev_msg_cb,
		       features);
}

/* An ethtool request with its header nest: device by index, flags. */
static struct nlmsghdr *ethtool_msg(struct xrx_nl *nl, __u8 cmd,
				    __u16 hdr_attr, int ifindex, __u32 flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->sbuf);
	struct genlmsghdr *g;
	struct nlattr *nest;

	nlh->nlmsg_type = nl->ethtool_family;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = ETHTOOL_GENL_VERSION;
	nest = mnl_attr_nest_start(nlh, hdr_attr);
	mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_DEV_INDEX, (__u32)ifindex);
	if (flags)
		mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_FLAGS, flags);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

static int genl_talk(struct xrx_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		     void *data)
{
	return nl_talk(nl, nl->genl, nl->genl_portid, nlh, cb, data);
}

/* "Operation not supported: <extack>" for messages. */
static const char *nl_reason(const struct xrx_nl *nl, int err, char *buf,
			     size_t len)
{
	if (nl->msg[0])
		snprintf(buf, len, "%s: %s", strerror(-err), nl->msg);
	else
		snprintf(buf, len, "%s", strerror(-err));
	return buf;
}

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
		if (type == size_attrs[i] && u32_attr(attr, &nic->size[i]))
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

static int read_link(struct xrx_nl *nl, struct xrx_nic *nic)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->sbuf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_GETLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, nic->ifname);
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	return nl_talk(nl, nl->rtnl, nl->rtnl_portid, nlh, link_msg_cb, nic);
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
				 ifname, nl_reason(nl, ret, why, sizeof(why)));
		return ret;
	}
	nic->have &= ~(XRX_HAVE_RX_RING | XRX_HAVE_TCP_DATA_SPLIT |
		       XRX_HAVE_CH_RX | XRX_HAVE_CH_TX | XRX_HAVE_CH_OTHER |
		       XRX_HAVE_CH_COMBINED);

	nlh = ethtool_msg(nl, ETHTOOL_MSG_FEATURES_GET,
			  ETHTOOL_A_FEATURES_HEADER, nic->ifindex, 0);
	nic->features_err = genl_talk(nl, nlh, features_msg_cb, nic);
	if (nic->features_err) {
		snprintf(err, errlen, "%s: cannot read features: %s", ifname,
			 nl_reason(nl, nic->features_err, why, sizeof(why)));
		return nic->features_err;
	}

	/* Rings and channels are optional driver operations. */
	nlh = ethtool_msg(nl, ETHTOOL_MSG_RINGS_GET, ETHTOOL_A_RINGS_HEADER,
			  nic->ifindex, 0);
	nic->rings_err = genl_talk(nl, nlh, rings_msg_cb, nic);
	if (nic->rings_err)
		nl_reason(nl, nic->rings_err, nic->rings_msg,
			  sizeof(nic->rings_msg));

	nlh = ethtool_msg(nl, ETHTOOL_MSG_CHANNELS_GET,
			  ETHTOOL_A_CHANNELS_HEADER, nic->ifindex, 0);
	nic->channels_err = genl_talk(nl, nlh, channels_msg_cb, nic);
	if (nic->channels_err)
		nl_reason(nl, nic->channels_err, nic->channels_msg,
			  sizeof(nic->channels_msg));
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

static const char *split_name(unsigned int v)
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
			fprintf(f, "%s %u\n", size_names[i], nic->size[i]);
		else
			fprintf(f, "%s -\n", size_names[i]);
	}
	if (nic->have & XRX_HAVE_RX_RING)
		fprintf(f, "rx_ring %u max %u\n", nic->rx_ring, nic->rx_ring_max);
	else
		fprintf(f, "rx_ring - (%s)\n",
			nic->rings_err ? nic->rings_msg : "not reported");
	if (nic->have & XRX_HAVE_TCP_DATA_SPLIT)
		fprintf(f, "header_split %s\n", split_name(nic->tcp_data_split));
	else
		fprintf(f, "header_split -\n");
	if (nic->channels_err)
		fprintf(f, "channels - (%s)\n", nic->channels_msg);
	else
		fprintf(f, "channels rx %u/%u tx %u/%u other %u/%u combined %u/%u\n",
			nic->ch_rx, nic->ch_max_rx, nic->ch_tx, nic->ch_max_tx,
			nic->ch_other, nic->ch_max_other, nic->ch_combined,
			nic->ch_max_combined);
}

/* ---- writing ------------------------------------------------------- */

static int set_features(struct xrx_nl *nl, int ifindex,
			const struct xrx_state_feature *feat, unsigned int n)
{
	struct nlattr *wanted, *bits, *bit;
	struct nlmsghdr *nlh;
	unsigned int i;

	/* No NOMASK: only the listed bits change (ethnl_update_bitset()). */
	nlh = ethtool_msg(nl, ETHTOOL_MSG_FEATURES_SET,
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
	return genl_talk(nl, nlh, NULL, NULL);
}

/* Sizes whose bit is in mask, in one RTM_NEWLINK. */
static int set_sizes(struct xrx_nl *nl, int ifindex, const unsigned int *size,
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
			mnl_attr_put_u32(nlh, size_attrs[i], size[i]);
	return nl_talk(nl, nl->rtnl, nl->rtnl_portid, nlh, NULL, NULL);
}

static int set_rings(struct xrx_nl *nl, int ifindex, unsigned int have,
		     unsigned int rx, unsigned int split)
{
	struct nlmsghdr *nlh;

	nlh = ethtool_msg(nl, ETHTOOL_MSG_RINGS_SET, ETHTOOL_A_RINGS_HEADER,
			  ifindex, 0);
	if (have & XRX_HAVE_RX_RING)
		mnl_attr_put_u32(nlh, ETHTOOL_A_RINGS_RX, rx);
	if (have & XRX_HAVE_TCP_DATA_SPLIT)
		mnl_attr_put_u8(nlh, ETHTOOL_A_RINGS_TCP_DATA_SPLIT, (__u8)split);
	return genl_talk(nl, nlh, NULL, NULL);
}

static int set_channels(struct xrx_nl *nl, int ifindex, unsigned int have,
			unsigned int rx, unsigned int tx, unsigned int other,
			unsigned int combined)
{
	struct nlmsghdr *nlh;

	nlh = ethtool_msg(nl, ETHTOOL_MSG_CHANNELS_SET,
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
	return genl_talk(nl, nlh, NULL, NULL);
}

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

int xrx_offload_restore(struct xrx_nl *nl, const struct xrx_state *st,
			char *err, size_t errlen)
{
	const unsigned int ch_bits = XRX_HAVE_CH_RX | XRX_HAVE_CH_TX |
				     XRX_HAVE_CH_OTHER | XRX_HAVE_CH_COMBINED;
	const unsigned int ring_bits = XRX_HAVE_RX_RING |
				       XRX_HAVE_TCP_DATA_SPLIT;
	const unsigned int size_bits = XRX_HAVE_SIZE(XRX_SIZE_MAX) - 1;
	char why[XRX_NL_MSG_MAX + 64], now[IF_NAMESIZE];
	const char *name = st->ifname;
	struct xrx_nic *nic;
	unsigned int i, failed = 0;
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

	/* Features and sizes first: they never reallocate queues. */
	if (st->nfeatures) {
		ret = set_features(nl, nic->ifindex, st->features,
				   st->nfeatures);
		if (ret)
			failed += restore_failed(st->ifname, "features", "%s",
						 nl_reason(nl, ret, why,
							   sizeof(why)));
	}
	/*
	 * All recorded sizes in one message: do_setlink() applies the IPv4
	 * ones after gso/gro_max_size, which (netif_set_gso_max_size())
	 * overwrite them when at or below 64 KiB, so each ends up exact.
	 */
	if (st->have & size_bits) {
		ret = set_sizes(nl, nic->ifindex, st->size, st->have & size_bits);
		if (ret)
			failed += restore_failed(st->ifname, "GRO/GSO sizes",
						 "%s", nl_reason(nl, ret, why,
								 sizeof(why)));
	}
	if (st->have & ring_bits) {
		ret = set_rings(nl, nic->ifindex, st->have, st->rx_ring,
				st->tcp_data_split);
		if (ret)
			failed += restore_failed(st->ifname, "rings", "%s",
						 nl_reason(nl, ret, why,
							   sizeof(why)));
	}
	if (st->have & ch_bits) {
		ret = set_channels(nl, nic->ifindex, st->have, st->ch_rx,
				   st->ch_tx, st->ch_other, st->ch_combined);
		if (ret)
			failed += restore_failed(st->ifname, "channels", "%s",
						 nl_reason(nl, ret, why,
							   sizeof(why)));
	}

	/* Read everything back: only what the kernel reports counts. */
	ret = xrx_nic_read(nl, name, nic, err, errlen);
	if (ret)
		goto out;
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
	for (i = 0; i < XRX_SIZE_MAX; i++)
		if ((st->have & XRX_HAVE_SIZE(i)) &&
		    nic->size[i] != st->size[i])
			failed += restore_failed(st->ifname, size_names[i],
						 "wanted %u, the kernel reports %u",
						 st->size[i], nic->size[i]);
	if ((st->have & XRX_HAVE_RX_RING) && nic->rx_ring != st->rx_ring)
		failed += restore_failed(st->ifname, "the RX ring size",
					 "wanted %u, the driver reports %u",
					 st->rx_ring, nic->rx_ring);
	if ((st->have & XRX_HAVE_TCP_DATA_SPLIT) &&
	    nic->tcp_data_split != st->tcp_data_split)
		failed += restore_failed(st->ifname, "tcp-data-split",
					 "wanted %s, the driver reports %s",
					 split_name(st->tcp_data_split),
					 split_name(nic->tcp_data_split));
	if (((st->have & XRX_HAVE_CH_RX) && nic->ch_rx != st->ch_rx) ||
	    ((st->have & XRX_HAVE_CH_TX) && nic->ch_tx != st->ch_tx) ||
	    ((st->have & XRX_HAVE_CH_OTHER) && nic->ch_other != st->ch_other) ||
	    ((st->have & XRX_HAVE_CH_COMBINED) &&
	     nic->ch_combined != st->ch_combined))
		failed += restore_failed(st->ifname, "channels",
					 "wanted rx %u tx %u other %u combined %u, the driver reports rx %u tx %u other %u combined %u",
					 st->ch_rx, st->ch_tx, st->ch_other,
					 st->ch_combined, nic->ch_rx, nic->ch_tx,
					 nic->ch_other, nic->ch_combined);
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
	}
	return -EINVAL;
}

/* Record the original value of everything plan will touch. */
static void record(const struct xrx_nic *nic, const struct plan *plan,
		   struct xrx_state *st)
{
	unsigned int i, size_mask = XRX_HAVE_SIZE(XRX_SIZE_MAX) - 1;

	for (i = 0; i < XRX_OFF_MAX; i++) {
		const struct xrx_offload_desc *d = &xrx_offload_desc[i];
		const struct xrx_nic_feature *f;

		if (!plan->todo[i])
			continue;
		switch (d->kind) {
		case XRX_OFFK_FEATURE:
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
			memcpy(st->size, nic->size, sizeof(st->size));
			st->have |= nic->have & size_mask;
			break;
		case XRX_OFFK_RING:
			st->rx_ring = nic->rx_ring;
			st->have |= XRX_HAVE_RX_RING;
			break;
		case XRX_OFFK_SPLIT:
			st->tcp_data_split = nic->tcp_data_split;
			st->have |= XRX_HAVE_TCP_DATA_SPLIT;
			break;
		case XRX_OFFK_CHANNELS:
			st->ch_rx = nic->ch_rx;
			st->ch_tx = nic->ch_tx;
			st->ch_other = nic->ch_other;
			st->ch_combined = nic->ch_combined;
			st->have |= nic->have & (XRX_HAVE_CH_RX | XRX_HAVE_CH_TX |
						 XRX_HAVE_CH_OTHER |
						 XRX_HAVE_CH_COMBINED);
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
	}
	return 0;
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
		return set_features(nl, nic->ifindex, &f, 1);
	case XRX_OFFK_SIZE:
		si = size_index(id);
		if (si < 0)
			return -EINVAL;
		size[si] = target;
		return set_sizes(nl, nic->ifindex, size, XRX_HAVE_SIZE(si));
	case XRX_OFFK_RING:
		return set_rings(nl, nic->ifindex, XRX_HAVE_RX_RING, target, 0);
	case XRX_OFFK_SPLIT:
		return set_rings(nl, nic->ifindex, XRX_HAVE_TCP_DATA_SPLIT, 0,
				 target);
	case XRX_OFFK_CHANNELS:
		if (nic->ch_max_combined)
			return set_channels(nl, nic->ifindex,
					    XRX_HAVE_CH_COMBINED, 0, 0, 0,
					    target);
		return set_channels(nl, nic->ifindex, XRX_HAVE_CH_RX, target, 0,
				    0, 0);
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
		int set_ret;

		if (!plan.todo[i])
			continue;
		setting_text(i, o, text, sizeof(text));
		before = current_value(nic, i);
		set_ret = apply_one(nl, nic, i, plan.target[i]);
		if (set_ret)
			nl_reason(nl, set_ret, why, sizeof(why));
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
			ret = -EIO;
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
