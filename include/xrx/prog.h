/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libxrx's XDP program on an interface: xrx_rx from the object embedded in
 * libxrx, attached through libxdp, its program and maps pinned in
 * PIN_ROOT/IFACE. The live path (include/xrx/live.h) and xrxd both use it.
 *
 *   struct xrx_prog_opts o = { .sz = sizeof(o) };
 *   struct xrx_prog *p = xrx_prog__attach("eth0", &o);
 *   xrx_rules__update(xrx_prog__map_fd(p, XRX_PROG_MAP_RULES),
 *                     xrx_prog__map_fd(p, XRX_PROG_MAP_PORTS), ...);
 *   ...
 *   xrx_prog__close(p);		// detach, unpin
 *
 * Attach hands the object to libxdp unloaded, so libxdp can put it behind
 * its dispatcher where the kernel allows freplace, or attach it alone,
 * with xdp.frags support set (libxdp 1.3 does not see the section).
 * In native mode it first tries the device-bound build (xrx_rx_hw.bpf.o),
 * which also reads the NIC's stripped VLAN tag and RX hash through the
 * XDP metadata kfuncs; the kernel attaches such a program only directly
 * in native mode (not behind a dispatcher, not in skb mode), so where
 * that fails the plain build is attached as above. The
 * pin directory is made 0700; the program is pinned as xrx_rx next to its
 * maps, which is how xrxd recognises one a killed process left attached.
 *
 * Not every kernel can take every build: where the kernel's BTF lacks
 * bpf_cast_to_kern_ctx() (before 6.2, Debian 12's 6.1), the compat build
 * (xrx_rx_compat.bpf.o) is attached in the plain build's place; where it
 * lacks the metadata kfuncs, the device-bound build is not tried. What
 * the kernel has is probed (xrx_kernel__lacks()), never read off its
 * version, and each feature done without is logged once, as a warning.
 *
 * Close detaches only this program: bpf_xdp_detach() with
 * XDP_FLAGS_REPLACE and the program's own fd, which dev_xdp_attach()
 * refuses when what is attached is not that program, so a program someone
 * attached since is left alone. That needs CAP_NET_ADMIN only; libxdp's
 * xdp_program__detach() first looks the attached program up by id, which
 * needs CAP_SYS_ADMIN, and is used only when a dispatcher is in front.
 */
#ifndef XRX_PROG_H
#define XRX_PROG_H

#include <stddef.h>
#include <xrx/types.h>
#include <xrx/log.h>

#ifdef __cplusplus
extern "C" {
#endif

struct xrx_prog;
struct bpf_xdp_query_opts;
struct xrx_rule_key;	/* include/xrx/rules.h */
struct xrx_rule_val;

#define XRX_PIN_ROOT_DEFAULT "/sys/fs/bpf/xrx"

enum xrx_live_attach {
	XRX_LIVE_ATTACH_AUTO = 0,	/* native mode, else skb mode */
	XRX_LIVE_ATTACH_NATIVE,		/* driver mode or fail */
	XRX_LIVE_ATTACH_SKB,		/* generic (skb) mode */
	XRX_LIVE_ATTACH_NONE,		/* use the pinned maps of an attached
					 * xrx_rx; attach nothing */
};

/* Names in PIN_ROOT/IFACE besides the maps of xrx_rx. */
#define XRX_PIN_PROG "xrx_rx"		/* the program */
#define XRX_PIN_USTATS "xrx_ustats"	/* xrxd's userspace counters */

struct xrx_prog_opts {
	size_t sz;			/* sizeof(struct xrx_prog_opts) */
	/* AUTO (native, else skb), NATIVE or SKB; NONE is refused. */
	enum xrx_live_attach attach;
	const char *pin_root;		/* NULL: XRX_PIN_ROOT_DEFAULT */
	/* Messages; libbpf's and libxdp's go here at debug level while
	 * attaching. NULL: warnings and info to stderr. */
	void (*log)(void *ctx, enum xrx_log_level level, const char *msg);
	void *log_ctx;
	bool no_hw_meta;		/* attach the plain build only */
	/* The device-bound build hashes in software even where the NIC
	 * gives an L4 hash (what the NIC's hash saves, measured). */
	bool no_hw_hash;
};

enum xrx_prog_map {
	XRX_PROG_MAP_XSKS = 0,		/* XSKMAP: queue -> AF_XDP socket */
	XRX_PROG_MAP_STATS,		/* include/xrx/stats.h */
	XRX_PROG_MAP_RULES,		/* include/xrx/rules.h */
	XRX_PROG_MAP_CFG,
	/* include/xrx/rules.h; -1 from a program pinned by a build without
	 * it (its rules are the trie's alone) */
	XRX_PROG_MAP_PORTS,
	XRX_PROG_MAP_MAX
};

/*
 * What the running kernel may lack of what xrx uses. Each is probed as the
 * kernel would answer a load or a bind (user/lib/afxdp/kernel.c), never
 * by version number.
 */
enum xrx_kernel_feature {
	/* bpf_xdp_load_bytes(), bpf_xdp_get_buff_len(): every build of
	 * xrx_rx; without them none loads */
	XRX_KERNEL_XDP_FRAGS = 0,
	/* bpf_cast_to_kern_ctx(): the plain and device-bound builds; without
	 * it the compat build is attached */
	XRX_KERNEL_KERN_CTX,
	/* the XDP metadata kfuncs: the device-bound build */
	XRX_KERNEL_XDP_METADATA,
	/* XDP_USE_SG: multi-buffer AF_XDP sockets */
	XRX_KERNEL_XSK_SG,
	XRX_KERNEL_FEATURE_MAX
};

/*
 * The features the running kernel lacks: bit (1u << feature) each.
 * Probed once per process; a probe that cannot tell (no privileges)
 * counts the feature as present.
 */
XRX_API __u32 xrx_kernel__lacks(void);
/* A feature's short name ("kern_ctx"); NULL if out of range. */
XRX_API const char *xrx_kernel__feature_name(enum xrx_kernel_feature f);
/*
 * One line into @buf: "this kernel (RELEASE) lacks WHAT: what xrx does
 * without it". Return: 0, or -EINVAL for an unknown feature.
 */
XRX_API int xrx_kernel__explain(enum xrx_kernel_feature f, char *buf,
				size_t len);
/*
 * Can any build of xrx_rx load on this kernel? Return: 0, or -EOPNOTSUPP
 * with one line in @buf naming the kernel release and what it lacks.
 */
XRX_API int xrx_kernel__check(char *buf, size_t len);

/*
 * Attach xrx_rx to @ifname, which must have no XDP program, and pin it and
 * its maps in PIN_ROOT/@ifname. Pins left there by a process that died
 * are removed first. A new random flow hash key goes into xrx_cfg
 * (include/xrx/rules.h) before any rule can. Return: the handle, or NULL
 * with errno set; the reason is logged, naming the object and the fix.
 */
XRX_API struct xrx_prog *xrx_prog__attach(const char *ifname,
					  const struct xrx_prog_opts *opts);
/*
 * Use an xrx_rx someone else attached (xrxd, xdp-loader --pin-path)
 * through its maps pinned in PIN_ROOT/@ifname; close leaves it in place.
 * The live path opening it this way draws the flow hash key into xrx_cfg
 * if nobody has (xdp-loader does not).
 */
XRX_API struct xrx_prog *xrx_prog__open_pinned(const char *ifname,
					       const struct xrx_prog_opts *opts);
/*
 * An attached handle: detach the program if it is still the one attached,
 * remove every pin of PIN_ROOT/IFACE (xrx_ustats and xrx_rx included) and
 * the directory. An opened one: close its descriptors. NULL is a no-op.
 */
XRX_API void xrx_prog__close(struct xrx_prog *p);

/* A map's fd (owned by the handle), or -EINVAL. */
XRX_API int xrx_prog__map_fd(const struct xrx_prog *p, enum xrx_prog_map map);
/* The program's id; 0 for an opened handle. */
XRX_API __u32 xrx_prog__id(const struct xrx_prog *p);
/* XRX_LIVE_ATTACH_NATIVE or _SKB as attached; _NONE for an opened one. */
XRX_API enum xrx_live_attach xrx_prog__mode(const struct xrx_prog *p);
/* "native", "skb" or "none". */
XRX_API const char *xrx_prog__mode_name(const struct xrx_prog *p);
/* PIN_ROOT/IFACE. */
XRX_API const char *xrx_prog__pin_dir(const struct xrx_prog *p);
/*
 * True if the device-bound build is attached: xrx_meta then carries what
 * the driver answers to bpf_xdp_metadata_rx_vlan_tag()/_rx_hash() (a
 * driver without the ops answers -EOPNOTSUPP: see xrx_meta's flags).
 */
XRX_API bool xrx_prog__hw_meta(const struct xrx_prog *p);
/*
 * The features (1u << enum xrx_kernel_feature) this attached handle does
 * without because the kernel lacks them: XRX_KERNEL_KERN_CTX when the
 * compat build is attached, XRX_KERNEL_XDP_METADATA when the device-bound
 * build would have been tried. 0 for an opened handle.
 */
XRX_API __u32 xrx_prog__lacks(const struct xrx_prog *p);
/* "xrx_rx", "xrx_rx_compat" or "xrx_rx_hw": the build attached; "" if none. */
XRX_API const char *xrx_prog__build(const struct xrx_prog *p);

/*
 * xrx_rx's counters, summed over CPUs: pkts[] and bytes[] have
 * XRX_STAT_MAX entries (enum xrx_stat). Return: 0 or a negative errno.
 */
XRX_API int xrx_prog__stats(const struct xrx_prog *p, __u64 *pkts,
			    __u64 *bytes);

/*
 * Change xrx_rx's rules: delete the @ndel keys @del (absent ones are no
 * error), then add or replace the @nadd keys @add with @vals, in the trie
 * @rules_fd (XRX_PROG_MAP_RULES, or the pinned xrx_rules), and bring
 * @ports_fd (XRX_PROG_MAP_PORTS, the pinned xrx_ports; -1 if there is
 * none) in line with the trie's rules, written by whoever. The only
 * writer of xrx_ports, so call it, with nothing to change if need be,
 * after writing the trie by other means. Frames see the rules before or
 * after, never a mix that neither gives (include/xrx/rules.h); one
 * writer at a time. Takes milliseconds: not for a packet path.
 * Return: 0, or a negative errno (that of the first rule that failed;
 * the others are written, and xrx_ports agrees with what the trie holds).
 */
XRX_API int xrx_rules__update(int rules_fd, int ports_fd,
			      const struct xrx_rule_key *del, unsigned int ndel,
			      const struct xrx_rule_key *add,
			      const struct xrx_rule_val *vals, unsigned int nadd);

/* Unlink every name xrx pins in PIN_ROOT/@ifname (not the directory). */
XRX_API void xrx_prog__unpin(const char *pin_root, const char *ifname);

/*
 * XDP_FLAGS_{DRV,SKB,HW}_MODE that program @id is attached in according
 * to @q (bpf_xdp_query()), 0 if it is not attached.
 */
XRX_API __u32 xrx_xdp_attached_flags(const struct bpf_xdp_query_opts *q,
				     __u32 id);

#ifdef __cplusplus
}
#endif

#endif /* XRX_PROG_H */
