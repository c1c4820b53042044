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
#include <fcntl.h>
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

const __u16 ctl_size_attrs[XRX_SIZE_MAX] = {
	[XRX_SIZE_GSO] = IFLA_GSO_MAX_SIZE,
	[XRX_SIZE_GRO] = IFLA_GRO_MAX_SIZE,
	[XRX_SIZE_GSO_IPV4] = XRX_IFLA_GSO_IPV4_MAX_SIZE,
	[XRX_SIZE_GRO_IPV4] = XRX_IFLA_GRO_IPV4_MAX_SIZE,
};

const char *const ctl_size_names[XRX_SIZE_MAX] = {
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

/* NLMSG_DONE ends a dump (NLM_F_DUMP), with the dump's error after it. */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;
	int err = 0;

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(err))
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (!err)
		return MNL_CB_STOP;
	t->error = err < 0 ? err : -err;
	return MNL_CB_ERROR;
}

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;

	return t->cb ? t->cb(nlh, t->data) : MNL_CB_OK;
}

/*
 * Send nlh on sk and run cb on every reply until the ACK, or until the
 * end of a dump (NLM_F_DUMP in nlh; the kernel sends no ACK after one,
 * netlink_dump_start()). Returns 0 or the kernel's negative errno;
 * nl->msg then holds its extack message, if any.
 */
int ctl_nl_talk(struct xrx_nl *nl, struct mnl_socket *sk,
		   unsigned int portid, struct nlmsghdr *nlh, mnl_cb_t cb,
		   void *data)
{
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = { [NLMSG_ERROR] = error_cb,
					 [NLMSG_DONE] = done_cb };
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

/* What CTRL_CMD_GETFAMILY is asked: the family's id, and optionally the
 * id of one of its multicast groups. */
struct family_q {
	__u16 id;
	const char *grp;	/* NULL: no group wanted */
	__u32 grp_id;
};

static int mcast_grp_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (type == CTRL_ATTR_MCAST_GRP_NAME &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
		tb[0] = attr;
	else if (type == CTRL_ATTR_MCAST_GRP_ID &&
		 mnl_attr_validate(attr, MNL_TYPE_U32) >= 0)
		tb[1] = attr;
	return MNL_CB_OK;
}

static int family_cb(const struct nlattr *attr, void *data)
{
	struct family_q *q = data;
	const struct nlattr *grp, *tb[2];

	switch (mnl_attr_get_type(attr)) {
	case CTRL_ATTR_FAMILY_ID:
		if (mnl_attr_validate(attr, MNL_TYPE_U16) >= 0)
			q->id = mnl_attr_get_u16(attr);
		break;
	case CTRL_ATTR_MCAST_GROUPS:
		if (!q->grp)
			break;
		mnl_attr_for_each_nested(grp, attr) {
			tb[0] = tb[1] = NULL;
			mnl_attr_parse_nested(grp, mcast_grp_cb, tb);
			if (tb[0] && tb[1] &&
			    !strcmp(mnl_attr_get_str(tb[0]), q->grp))
				q->grp_id = mnl_attr_get_u32(tb[1]);
		}
		break;
	}
	return MNL_CB_OK;
}

static int family_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_cb, data);
}

/* Look up generic netlink family q->... by @name. Return: 0, or -errno
 * (-ENOENT: the kernel has no such family, or no such group). */
static int genl_family(struct xrx_nl *nl, const char *name,
		       struct family_q *q)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->sbuf);
	struct genlmsghdr *g;
	int ret;

	nlh->nlmsg_type = GENL_ID_CTRL;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	ret = ctl_nl_talk(nl, nl->genl, nl->genl_portid, nlh, family_msg_cb,
			  q);
	if (ret)
		return ret;
	return q->id && (!q->grp || q->grp_id) ? 0 : -ENOENT;
}

static int genl_family_id(struct xrx_nl *nl, const char *name, __u16 *id)
{
	struct family_q q = { 0 };
	int ret = genl_family(nl, name, &q);

	*id = q.id;
	return ret;
}

struct mnl_socket *xrx_ethtool_monitor_open(struct xrx_nl *nl)
{
	struct family_q q = { .grp = ETHTOOL_MCGRP_MONITOR_NAME };
	struct mnl_socket *sk;
	unsigned int portid;
	int ret, flags;

	ret = genl_family(nl, ETHTOOL_GENL_NAME, &q);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	sk = nl_socket(NETLINK_GENERIC, &portid);
	if (!sk)
		return NULL;
	flags = fcntl(mnl_socket_get_fd(sk), F_GETFL);
	if (flags < 0 ||
	    fcntl(mnl_socket_get_fd(sk), F_SETFL, flags | O_NONBLOCK) ||
	    mnl_socket_setsockopt(sk, NETLINK_ADD_MEMBERSHIP, &q.grp_id,
				  sizeof(q.grp_id))) {
		ret = errno;
		mnl_socket_close(sk);
		errno = ret;
		return NULL;
	}
	return sk;
}

struct ntf_q {
	int ifindex;
	bool hit;
};

static int ntf_hdr_cb(const struct nlattr *attr, void *data)
{
	struct ntf_q *q = data;

	if (mnl_attr_get_type(attr) == ETHTOOL_A_HEADER_DEV_INDEX &&
	    mnl_attr_validate(attr, MNL_TYPE_U32) >= 0 &&
	    (int)mnl_attr_get_u32(attr) == q->ifindex)
		q->hit = true;
	return MNL_CB_OK;
}

static int ntf_attr_cb(const struct nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) == ETHTOOL_A_CHANNELS_HEADER &&
	    mnl_attr_validate(attr, MNL_TYPE_NESTED) >= 0)
		mnl_attr_parse_nested(attr, ntf_hdr_cb, data);
	return MNL_CB_OK;
}

static int ntf_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*g) ||
	    g->cmd != ETHTOOL_MSG_CHANNELS_NTF)
		return MNL_CB_OK;
	return mnl_attr_parse(nlh, sizeof(*g), ntf_attr_cb, data);
}

bool xrx_ethtool_channels_ntf(const void *buf, size_t len, int ifindex)
{
	struct ntf_q q = { .ifindex = ifindex };

	mnl_cb_run(buf, len, 0, 0, ntf_msg_cb, &q);
	return q.hit;
}

int xrx_nl_open(struct xrx_nl **out, char *err, size_t errlen)
{
	struct xrx_nl *nl = calloc(1, sizeof(*nl));
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
	ret = genl_family_id(nl, ETHTOOL_GENL_NAME, &nl->ethtool_family);
	if (ret) {
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

struct nlmsghdr *ctl_netdev_msg(struct xrx_nl *nl, __u8 cmd, __u16 flags,
				int *err)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	*err = 0;
	if (!nl->netdev_family)
		*err = genl_family_id(nl, XRX_NETDEV_FAMILY_NAME,
				      &nl->netdev_family);
	if (*err)
		return NULL;
	nlh = mnl_nlmsg_put_header(nl->sbuf);
	nlh->nlmsg_type = nl->netdev_family;
	nlh->nlmsg_flags = flags;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = 1;
	return nlh;
}

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
	int ret;

	*features = 0;
	nlh = ctl_netdev_msg(nl, XRX_NETDEV_CMD_DEV_GET, 0, &ret);
	if (!nlh)
		return ret;
	mnl_attr_put_u32(nlh, XRX_NETDEV_A_DEV_IFINDEX, (__u32)ifindex);
	return ctl_nl_talk(nl, nl->genl, nl->genl_portid, nlh, netdev_dev_msg_cb,
		       features);
}

/* An ethtool request with its header nest: device by index, flags. */
struct nlmsghdr *ctl_ethtool_msg(struct xrx_nl *nl, __u8 cmd,
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

int ctl_genl_talk(struct xrx_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		     void *data)
{
	return ctl_nl_talk(nl, nl->genl, nl->genl_portid, nlh, cb, data);
}

/* "Operation not supported: <extack>" for messages. */
const char *ctl_nl_reason(const struct xrx_nl *nl, int err, char *buf,
			     size_t len)
{
	if (nl->msg[0])
		snprintf(buf, len, "%s: %s", strerror(-err), nl->msg);
	else
		snprintf(buf, len, "%s", strerror(-err));
	return buf;
}


static int link_stats_cb(const struct nlattr *attr, void *data)
{
	struct rtnl_link_stats64 *st = data;

	if (mnl_attr_get_type(attr) == IFLA_STATS64 &&
	    mnl_attr_get_payload_len(attr) >= sizeof(*st))
		memcpy(st, mnl_attr_get_payload(attr), sizeof(*st));
	return MNL_CB_OK;
}

static int link_stats_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct ifinfomsg), link_stats_cb,
			      data);
}

/*
 * The driver's counters of @ifname (IFLA_STATS64 of RTM_GETLINK, what
 * ip -s link shows): rx_packets, rx_dropped, rx_missed_errors, ...
 * Return: 0, or a negative errno (-ENODEV: no such interface here).
 */
int xrx_nl_link_stats(struct xrx_nl *nl, const char *ifname,
		      struct rtnl_link_stats64 *st)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->sbuf);
	struct ifinfomsg *ifi;

	memset(st, 0, sizeof(*st));
	nlh->nlmsg_type = RTM_GETLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, ifname);
	return ctl_nl_talk(nl, nl->rtnl, nl->rtnl_portid, nlh,
			   link_stats_msg_cb, st);
}
