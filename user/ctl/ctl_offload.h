/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * NIC offload settings through netlink (libmnl): netdev features, rings
 * and channels through the "ethtool" generic netlink family, GRO/GSO size
 * limits through rtnetlink. Applying a config records the original values
 * in the state file before the first change and reads every value back
 * after setting it; restoring puts them back in a safe order and removes
 * the state file.
 */
#ifndef XRX_CTL_OFFLOAD_H
#define XRX_CTL_OFFLOAD_H

#include <stdbool.h>
#include <stdio.h>

#include "ctl_conf.h"
#include "ctl_state.h"

#define XRX_NIC_FEATURES_MAX 128
#define XRX_NL_MSG_MAX 256	/* room for a kernel extack message */

struct xrx_nl;

/* Open rtnetlink and ethtool genetlink sockets in the current netns. */
int xrx_nl_open(struct xrx_nl **nl, char *err, size_t errlen);
void xrx_nl_close(struct xrx_nl *nl);
/*
 * A non-blocking socket on the ethtool family's "monitor" group, where the
 * kernel posts a notification whenever a setting changes (ethtool -L, -G,
 * -K, ...). Return: the socket, or NULL with errno set.
 */
struct mnl_socket;
struct mnl_socket *xrx_ethtool_monitor_open(struct xrx_nl *nl);
/* Whether the datagram @buf read from it tells of a channel count change
 * (ETHTOOL_MSG_CHANNELS_NTF) on @ifindex. */
bool xrx_ethtool_channels_ntf(const void *buf, size_t len, int ifindex);

/* A NAPI instance and its own settings (netdev napi-get). */
struct xrx_nic_napi {
	unsigned int id;
	unsigned long long value[XRX_NAPI_SETTING_MAX];
};

struct xrx_nic_feature {
	char name[ETH_GSTRING_LEN];
	bool hw;	/* changeable */
	bool wanted;
	bool active;
};

/* What xrx can see and change of one interface. */
struct xrx_nic {
	char ifname[IF_NAMESIZE];
	int ifindex;
	unsigned int have;	/* enum xrx_state_have: values present below */
	unsigned int nfeatures;
	struct xrx_nic_feature features[XRX_NIC_FEATURES_MAX];
	int features_err;	/* 0, or why features could not be read */
	unsigned int size[XRX_SIZE_MAX];
	unsigned int tso_max_size;	/* 0 if unknown */
	int rings_err;
	char rings_msg[XRX_NL_MSG_MAX];
	unsigned int rx_ring, rx_ring_max;
	unsigned int tcp_data_split;
	int channels_err;
	char channels_msg[XRX_NL_MSG_MAX];
	unsigned int ch_rx, ch_tx, ch_other, ch_combined;
	unsigned int ch_max_rx, ch_max_tx, ch_max_other, ch_max_combined;
	/* -EOPNOTSUPP: the kernel has no per-NAPI settings (Linux 6.13);
	 * -E2BIG: more than XRX_STATE_NAPI_MAX instances. */
	int napi_err;
	char napi_msg[XRX_NL_MSG_MAX];
	unsigned int nnapi;
	struct xrx_nic_napi napi[XRX_STATE_NAPI_MAX];
};

/* Read everything; -ENODEV if there is no such interface. */
int xrx_nic_read(struct xrx_nl *nl, const char *ifname, struct xrx_nic *nic,
		 char *err, size_t errlen);
const struct xrx_nic_feature *xrx_nic_feature(const struct xrx_nic *nic,
					      const char *name);
/* Human-readable dump of what xrx manages (xrxctl offloads). */
void xrx_nic_print(FILE *f, const struct xrx_nic *nic);

/* The netdev family's xdp-rx-metadata-features bits (Linux 6.3+). */
#define XRX_XDP_RX_META_TIMESTAMP (1u << 0)
#define XRX_XDP_RX_META_HASH (1u << 1)
#define XRX_XDP_RX_META_VLAN_TAG (1u << 2)	/* Linux 6.8+ */

/*
 * Which XDP metadata kfuncs @ifindex's driver implements (the netdev
 * generic netlink family). Return: 0 with *features set, or a negative
 * errno (-ENOENT: a kernel without the family, which means none).
 */
int xrx_nic_xdp_rx_metadata(struct xrx_nl *nl, int ifindex, __u64 *features);

/*
 * Apply conf's offload settings to conf->ifname. Settings the driver does
 * not support or refuses are warnings, or errors when marked required;
 * on an error everything already applied is restored and the state file
 * removed. Before the first change DIR/IFACE.state holds the originals;
 * called again by the same process, it adds the settings it changes now
 * to that record and keeps the originals already there.
 * Returns 0 or a negative errno with err filled: for a required setting
 * this interface cannot take, why (-EOPNOTSUPP, -ERANGE, or the errno
 * the kernel refused it with; -EIO when it took another value).
 */
int xrx_offload_apply(struct xrx_nl *nl, const struct xrx_conf *conf,
		      const char *statedir, char *err, size_t errlen);

/*
 * Whether @c sets an offload of @kind; keep in @c only the offloads of
 * @kind (@only) or all but them (!@only), the others becoming "keep".
 * xrxd applies the NAPI settings after attaching xrx_rx: veth, for one,
 * has NAPI instances only while an XDP program is attached.
 */
bool xrx_offload_has(const struct xrx_conf *c, enum xrx_offload_kind kind);
void xrx_offload_select(struct xrx_conf *c, enum xrx_offload_kind kind,
			bool only);

/* Put back what st records (features and sizes, rings, channels, NAPIs). */
int xrx_offload_restore(struct xrx_nl *nl, const struct xrx_state *st,
			char *err, size_t errlen);

/*
 * Read DIR/IFNAME.state, restore it and remove the file. -ENOENT when
 * there is no state file; the file is kept when anything failed.
 */
int xrx_offload_restore_file(struct xrx_nl *nl, const char *statedir,
			     const char *ifname, char *err, size_t errlen);

#endif /* XRX_CTL_OFFLOAD_H */
