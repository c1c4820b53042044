/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside the control plane's netlink code, shared by its four parts:
 *   nl.c        the transport: two libmnl sockets, requests with extended
 *               ACKs, the ethtool family's id
 *   nic.c       reading an interface's settings, and the setters
 *   offload.c   planning and applying a config's offload settings
 *   restore.c   putting recorded settings back
 * Not used outside user/ctl.
 */
#ifndef XRX_CTL_NL_H
#define XRX_CTL_NL_H

#include <stddef.h>
#include <linux/netlink.h>

#include <libmnl/libmnl.h>

#include "ctl_offload.h"

/* rtnetlink attributes newer than Debian 12's uapi headers (6.1). */
#define XRX_IFLA_GSO_IPV4_MAX_SIZE 63
#define XRX_IFLA_GRO_IPV4_MAX_SIZE 64

/*
 * The netdev family (include/uapi/linux/netdev.h, newer than Debian 12's):
 * dev-get for the XDP metadata ops (Linux 6.3), napi-get and napi-set
 * for the NAPI instances' own settings (Linux 6.13).
 */
#define XRX_NETDEV_FAMILY_NAME "netdev"
#define XRX_NETDEV_CMD_DEV_GET 1
#define XRX_NETDEV_CMD_NAPI_GET 11
#define XRX_NETDEV_CMD_NAPI_SET 14
#define XRX_NETDEV_A_DEV_IFINDEX 1
#define XRX_NETDEV_A_DEV_XDP_RX_METADATA_FEATURES 5
#define XRX_NETDEV_A_NAPI_IFINDEX 1
#define XRX_NETDEV_A_NAPI_ID 2
#define XRX_NETDEV_A_NAPI_DEFER_HARD_IRQS 5
#define XRX_NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT 6

#define NL_RECV_BUF (64 * 1024)
#define NL_SEND_BUF 8192

struct xrx_nl {
	struct mnl_socket *rtnl;
	struct mnl_socket *genl;
	unsigned int rtnl_portid;
	unsigned int genl_portid;
	unsigned int seq;
	__u16 ethtool_family;
	__u16 netdev_family;		/* 0: not looked up yet */
	char msg[XRX_NL_MSG_MAX];	/* extack of the last request */
	/* Netlink messages are read in place as struct nlmsghdr. */
	char sbuf[NL_SEND_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));
	char rbuf[NL_RECV_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));
};

extern const __u16 ctl_size_attrs[XRX_SIZE_MAX];	/* IFLA_* of each size */
extern const char *const ctl_size_names[XRX_SIZE_MAX];

/* nl.c */
int ctl_nl_talk(struct xrx_nl *nl, struct mnl_socket *sk, unsigned int portid,
		struct nlmsghdr *nlh, mnl_cb_t cb, void *data);
struct nlmsghdr *ctl_ethtool_msg(struct xrx_nl *nl, __u8 cmd, __u16 hdr_attr,
				 int ifindex, __u32 flags);
int ctl_genl_talk(struct xrx_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		  void *data);
/*
 * A request to the netdev family (looked up once), @flags besides
 * NLM_F_REQUEST | NLM_F_ACK. Return: the message, or NULL with *err set
 * (-ENOENT: the kernel has no such family).
 */
struct nlmsghdr *ctl_netdev_msg(struct xrx_nl *nl, __u8 cmd, __u16 flags,
				int *err);
struct rtnl_link_stats64;
/* The driver's counters of @ifname (IFLA_STATS64), as ip -s link shows
 * them. Return: 0 or a negative errno. */
int xrx_nl_link_stats(struct xrx_nl *nl, const char *ifname,
		      struct rtnl_link_stats64 *st);
/* The kernel's extack message for @err, or strerror(). */
const char *ctl_nl_reason(const struct xrx_nl *nl, int err, char *buf,
			  size_t len);

/* nic.c: setters; each is one request, acknowledged. */
int ctl_set_features(struct xrx_nl *nl, int ifindex,
		     const struct xrx_state_feature *feat, unsigned int n);
int ctl_set_sizes(struct xrx_nl *nl, int ifindex, const unsigned int *size,
		  unsigned int mask);
int ctl_set_rings(struct xrx_nl *nl, int ifindex, unsigned int have,
		  unsigned int rx, unsigned int split);
int ctl_set_channels(struct xrx_nl *nl, int ifindex, unsigned int have,
		     unsigned int rx, unsigned int tx, unsigned int other,
		     unsigned int combined);
const char *ctl_split_name(unsigned int v);	/* tcp-data-split value */
/* NAPI instance @id's setting @s (netdev napi-set). */
int ctl_set_napi(struct xrx_nl *nl, unsigned int id, enum xrx_napi_setting s,
		 unsigned long long value);

#endif /* XRX_CTL_NL_H */
