/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The state file /run/xrx/IFACE.state: the original value of every NIC
 * setting xrxd is about to change, written (atomically, mode 0600 in a
 * 0700 directory) before the first change and removed after an exact
 * restore. A file left behind by a crash is what `xrxctl restore IFACE`
 * and the next xrxd start use to put the NIC back.
 */
#ifndef XRX_CTL_STATE_H
#define XRX_CTL_STATE_H

#include <linux/ethtool.h>
#include <net/if.h>
#include <stdbool.h>
#include <sys/types.h>

#define XRX_STATE_DIR "/run/xrx"
#define XRX_STATE_FEATURES_MAX 32
#define XRX_STATE_NAPI_MAX 256	/* NAPI instances of one interface */

/* Which of the optional values below a state holds. */
enum xrx_state_have {
	/* bits 0..3: size[XRX_SIZE_*], see XRX_HAVE_SIZE() */
	XRX_HAVE_RX_RING = 1u << 4,
	XRX_HAVE_TCP_DATA_SPLIT = 1u << 5,
	XRX_HAVE_CH_RX = 1u << 6,
	XRX_HAVE_CH_TX = 1u << 7,
	XRX_HAVE_CH_OTHER = 1u << 8,
	XRX_HAVE_CH_COMBINED = 1u << 9,
};

/*
 * Indexes of xrx_state.size[], in the order do_setlink() applies them:
 * the IPv4 limits last, because setting gso/gro_max_size at or below
 * 64 KiB also sets the IPv4 one (netif_set_gso_max_size()).
 */
enum xrx_size_id {
	XRX_SIZE_GSO,
	XRX_SIZE_GRO,
	XRX_SIZE_GSO_IPV4,
	XRX_SIZE_GRO_IPV4,
	XRX_SIZE_MAX
};

#define XRX_HAVE_SIZE(i) (1u << (i))

struct xrx_state_feature {
	char name[ETH_GSTRING_LEN];
	bool on;	/* the "wanted" bit: what the user asked for */
};

/*
 * The settings a NAPI instance has of its own (the netdev family's
 * napi-get/napi-set, Linux 6.13; the device's sysfs files of the same
 * names set every instance at once), by their config and sysfs names.
 */
enum xrx_napi_setting {
	XRX_NAPI_DEFER_HARD_IRQS,	/* napi_defer_hard_irqs: a count */
	XRX_NAPI_GRO_FLUSH_TIMEOUT,	/* gro_flush_timeout: ns */
	XRX_NAPI_SETTING_MAX
};

extern const char *const xrx_napi_setting_names[XRX_NAPI_SETTING_MAX];

/* One NAPI instance's originals, by its id (unique for the host's life). */
struct xrx_state_napi {
	unsigned int id;
	unsigned int have;	/* 1u << enum xrx_napi_setting */
	unsigned long long value[XRX_NAPI_SETTING_MAX];
};

struct xrx_state {
	char ifname[IF_NAMESIZE];
	int ifindex;
	pid_t pid;	/* the xrxd that wrote it */
	unsigned int have;	/* enum xrx_state_have */
	unsigned int nfeatures;
	struct xrx_state_feature features[XRX_STATE_FEATURES_MAX];
	unsigned int size[XRX_SIZE_MAX];
	unsigned int rx_ring;
	unsigned int tcp_data_split;	/* ETHTOOL_TCP_DATA_SPLIT_* */
	unsigned int ch_rx, ch_tx, ch_other, ch_combined;
	unsigned int nnapi;
	struct xrx_state_napi napi[XRX_STATE_NAPI_MAX];
};

/* The entry of NAPI @id in @st, NULL if none. */
struct xrx_state_napi *xrx_state_napi(struct xrx_state *st, unsigned int id);

/* DIR/IFACE.state; -ENAMETOOLONG if it does not fit. */
int xrx_state_path(const char *dir, const char *ifname, char *buf,
		   size_t len);

/*
 * Write st to DIR/IFNAME.state: create DIR 0700 if missing (refusing an
 * existing DIR that is a symlink or writable by others), write a temp
 * file 0600, fsync, rename over, fsync DIR.
 */
int xrx_state_write(const char *dir, const struct xrx_state *st, char *err,
		    size_t errlen);

/*
 * Read DIR/IFNAME.state. -ENOENT when there is none; -EPERM when it is a
 * symlink, not a regular file, not ours or writable by group/others;
 * -EINVAL when truncated or corrupted. err names the file and the fix.
 */
int xrx_state_read(const char *dir, const char *ifname, struct xrx_state *st,
		   char *err, size_t errlen);

/* Remove DIR/IFNAME.state; 0 if it was not there. */
int xrx_state_remove(const char *dir, const char *ifname, char *err,
		     size_t errlen);

/*
 * The files xrx keeps in its state directory, written and read with the
 * state file's care. Replace DIR/NAME with @len bytes of @buf: DIR made
 * 0700 if missing (refused if a symlink or writable by others), a temp
 * file 0600, fsync, rename over, fsync DIR.
 */
int xrx_file_replace(const char *dir, const char *name, const char *buf,
		     size_t len, char *err, size_t errlen);
/*
 * Read up to @max bytes of @path (in @dir) into @buf, only if it is a
 * regular file of ours that nobody else can write, in a directory of
 * ours. Return: the length, or -ENOENT, -EPERM (err ends in @advice),
 * -EFBIG (more than @max) or another negative errno, err filled.
 */
int xrx_own_file_read(const char *dir, const char *path, char *buf,
		      size_t max, const char *advice, char *err, size_t errlen);

/* Text form of a state, and its parser (name is for messages). */
int xrx_state_format(const struct xrx_state *st, char *buf, size_t len);
int xrx_state_parse(const char *name, const char *text, size_t len,
		    struct xrx_state *st, char *err, size_t errlen);

#endif /* XRX_CTL_STATE_H */
