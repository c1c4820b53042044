// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrx_rx on the interface (include/xrx/prog.h): attached from the embedded
 * skeleton through libxdp and pinned in PIN_ROOT/IFACE, or someone else's
 * reached through those pins; detached by its own fd only.
 */
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <xdp/libxdp.h>

#include <xrx/prog.h>
#include <xrx/rules.h>
#include <xrx/stats.h>

#include "afxdp/afxdp.h"	/* xrx_prog_hash_key() */
#include "opts.h"
#include "xrx_rx.skel.h"
#include "xrx_rx_compat.skel.h"
#include "xrx_rx_hw.skel.h"

/* Linux 6.3 UAPI; Debian 12's headers are older. */
#ifndef BPF_F_XDP_DEV_BOUND_ONLY
#define BPF_F_XDP_DEV_BOUND_ONLY (1U << 6)
#endif

struct xrx_prog {
	struct xrx_prog_opts o;
	struct xrx_rx *skel;		/* plain build, through libxdp */
	struct xrx_rx_compat *compat_skel; /* or the compat build, likewise */
	struct xrx_rx_hw *hw_skel;	/* or the device-bound build */
	struct bpf_object *obj;		/* whichever of the three it is */
	struct xdp_program *prog;	/* plain or compat build */
	__u32 lacks;			/* xrx_prog__lacks() */
	int prog_fd;			/* what is attached */
	char ifname[IF_NAMESIZE];
	int ifindex;
	enum xrx_live_attach mode;	/* as attached; NONE: opened */
	__u32 id;
	bool attached;
	int fds[XRX_PROG_MAP_MAX];	/* owned only when opened from pins */
	char root[PATH_MAX / 2];
	char dir[PATH_MAX];
};

/* The names of the maps, as pinned (LIBBPF_PIN_BY_NAME). */
static const char *const xrx_prog_map_names[XRX_PROG_MAP_MAX] = {
	[XRX_PROG_MAP_XSKS] = "xrx_xsks",
	[XRX_PROG_MAP_STATS] = "xrx_stats",
	[XRX_PROG_MAP_RULES] = "xrx_rules",
	[XRX_PROG_MAP_CFG] = "xrx_cfg",
	[XRX_PROG_MAP_PORTS] = "xrx_ports",
};

/* Every name xrx may leave in PIN_ROOT/IFACE. */
static const char *const xrx_pin_names[] = {
	"xrx_xsks", "xrx_stats", "xrx_rules", "xrx_cfg", "xrx_ports",
	"xrx_scratch",
	XRX_PIN_USTATS, XRX_PIN_PROG,
};

/* A message to the log the handle's options name (log.c). */
#define xrx_prog_log(p, lvl, ...) \
	xrx_logf((p)->o.log, (p)->o.log_ctx, lvl, __VA_ARGS__)

/*
 * libbpf and libxdp print through process-wide hooks without a context;
 * while a handle attaches, their messages (libxdp's dispatcher probe fails
 * with EPERM where freplace is refused, which is expected) go to its log
 * at debug level.
 */
static const struct xrx_prog *xrx_prog_logger;
/*
 * The kernel's reason for the last refused attach (netlink extack), which
 * libbpf prints as "Kernel error message: ..." and nowhere else: without
 * it, "auto fell back to skb mode" cannot say why.
 */
static char xrx_prog_kmsg[256];
#define XRX_KMSG_TAG "Kernel error message: "
/*
 * The verifier's refusal of xrx_rx in a slot of libxdp's dispatcher on
 * Linux 6.13+ (and Debian's 6.12): xrx_rx changes packet data
 * (bpf_xdp_adjust_meta()), the slots of xdp-tools before 1.5.5 do not.
 */
static bool xrx_prog_ext_refused;
#define XRX_EXT_PKT_DATA "Extension program changes packet data"

static int xrx_prog_vprint(const char *fmt, va_list ap)
{
	char buf[512];
	size_t n;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = 0;
	if (xrx_prog_logger && strstr(buf, XRX_KMSG_TAG))
		snprintf(xrx_prog_kmsg, sizeof(xrx_prog_kmsg), "%s",
			 strstr(buf, XRX_KMSG_TAG) + strlen(XRX_KMSG_TAG));
	if (xrx_prog_logger && strstr(buf, XRX_EXT_PKT_DATA))
		xrx_prog_ext_refused = true;
	if (xrx_prog_logger && n)
		xrx_prog_log(xrx_prog_logger, XRX_LOG_DEBUG, "%s", buf);
	return 0;
}

static int xrx_prog_libbpf_print(enum libbpf_print_level level,
				 const char *fmt, va_list ap)
{
	return xrx_prog_vprint(fmt, ap);
}

static int xrx_prog_libxdp_print(enum libxdp_print_level level,
				 const char *fmt, va_list ap)
{
	return xrx_prog_vprint(fmt, ap);
}

__u32 xrx_xdp_attached_flags(const struct bpf_xdp_query_opts *q, __u32 id)
{
	if (!id)
		return 0;
	if (q->drv_prog_id == id)
		return XDP_FLAGS_DRV_MODE;
	if (q->skb_prog_id == id)
		return XDP_FLAGS_SKB_MODE;
	if (q->hw_prog_id == id)
		return XDP_FLAGS_HW_MODE;
	return 0;
}

void xrx_prog__unpin(const char *pin_root, const char *ifname)
{
	char path[PATH_MAX];
	unsigned int i;
	int n;

	for (i = 0; i < sizeof(xrx_pin_names) / sizeof(xrx_pin_names[0]); i++) {
		n = snprintf(path, sizeof(path), "%s/%s/%s", pin_root, ifname,
			     xrx_pin_names[i]);
		if (n > 0 && (size_t)n < sizeof(path))
			unlink(path);
	}
}

static struct xrx_prog *xrx_prog_new(const char *ifname,
				     const struct xrx_prog_opts *opts)
{
	struct xrx_prog *p;
	unsigned int i;
	int err = -EINVAL;

	if (!ifname || strlen(ifname) >= IF_NAMESIZE)
		goto fail;
	p = calloc(1, sizeof(*p));
	if (!p) {
		err = -ENOMEM;
		goto fail;
	}
	err = xrx_opts_copy(&p->o, sizeof(p->o), opts,
			    offsetof(struct xrx_prog_opts, log));
	if (err) {
		free(p);
		goto fail;
	}
	strcpy(p->ifname, ifname);
	p->mode = XRX_LIVE_ATTACH_NONE;
	p->prog_fd = -1;
	for (i = 0; i < XRX_PROG_MAP_MAX; i++)
		p->fds[i] = -1;
	snprintf(p->root, sizeof(p->root), "%s",
		 p->o.pin_root ? p->o.pin_root : XRX_PIN_ROOT_DEFAULT);
	snprintf(p->dir, sizeof(p->dir), "%s/%s", p->root, ifname);
	p->ifindex = (int)if_nametoindex(ifname);
	if (!p->ifindex) {
		xrx_prog_log(p, XRX_LOG_WARN,
			     "%s: no such interface in this network namespace",
			     ifname);
		free(p);
		err = -ENODEV;
		goto fail;
	}
	return p;
fail:
	errno = -err;
	return NULL;
}

/*
 * The flow hash key is chosen once per attached program, as the kernel
 * draws its flow dissector's key once per boot: by whoever first finds
 * xrx_cfg without one, which is xrx_prog__attach() right after attaching,
 * before any rule exists and so before xrx_rx hashes a frame. The rest of
 * xrx_cfg is left as it is.
 */
int xrx_prog_hash_key(struct xrx_prog *p, struct xrx_hash_key *key)
{
	int fd = p->fds[XRX_PROG_MAP_CFG];
	struct xrx_cfg cfg;
	__u32 zero = 0;
	int err;

	if (bpf_map_lookup_elem(fd, &zero, &cfg))
		goto fail;
	if (xrx_hash_key_unset(&cfg.hash_key)) {
		err = xrx_hash_key_new(&cfg.hash_key);
		if (err) {
			xrx_prog_log(p, XRX_LOG_WARN,
				     "%s: no random flow hash key: getrandom(): %s",
				     p->ifname, strerror(-err));
			return err;
		}
		if (bpf_map_update_elem(fd, &zero, &cfg, BPF_ANY))
			goto fail;
	}
	*key = cfg.hash_key;
	return 0;
fail:
	err = -errno;
	xrx_prog_log(p, XRX_LOG_WARN, "%s: xrx_cfg (flow hash key): %s",
		     p->ifname, strerror(errno));
	return err;
}

struct xrx_prog *xrx_prog__open_pinned(const char *ifname,
				       const struct xrx_prog_opts *opts)
{
	char path[PATH_MAX + 32];
	struct xrx_prog *p;
	unsigned int i;

	p = xrx_prog_new(ifname, opts);
	if (!p)
		return NULL;
	for (i = 0; i < XRX_PROG_MAP_MAX; i++) {
		snprintf(path, sizeof(path), "%s/%s", p->dir,
			 xrx_prog_map_names[i]);
		p->fds[i] = bpf_obj_get(path);
		/* A build without xrx_ports: its rules are the trie's alone. */
		if (p->fds[i] < 0 && i == XRX_PROG_MAP_PORTS && errno == ENOENT)
			continue;
		if (p->fds[i] < 0) {
			xrx_prog_log(p, XRX_LOG_WARN,
				     "%s: no xrx_rx maps pinned in %s: attach xrx_rx first (xrxd, or xdp-loader load --pin-path %s), or open with attach mode auto",
				     ifname, p->dir, p->dir);
			xrx_prog__close(p);
			errno = ENOENT;
			return NULL;
		}
	}
	return p;
}

/* The program attached to @ifindex now, 0 if none. */
static __u32 xrx_prog_attached_id(int ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	if (bpf_xdp_query(ifindex, 0, &q))
		return 0;
	return q.prog_id;
}

/* Pins left by a process that died: no program on the interface. */
static void xrx_prog_remove_stale(struct xrx_prog *p)
{
	char path[PATH_MAX + 32];
	unsigned int i;
	bool any = false;

	for (i = 0; i < sizeof(xrx_pin_names) / sizeof(xrx_pin_names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", p->dir, xrx_pin_names[i]);
		if (!unlink(path))
			any = true;
	}
	if (any)
		xrx_prog_log(p, XRX_LOG_INFO,
			     "%s: removed stale pins in %s (no XDP program attached)",
			     p->ifname, p->dir);
}

/* PIN_ROOT and PIN_ROOT/IFACE, 0700: the pins are the program's controls. */
static int xrx_prog_make_dirs(struct xrx_prog *p)
{
	int err;

	if (mkdir(p->root, 0700) && errno != EEXIST)
		goto fail;
	if (mkdir(p->dir, 0700) && errno != EEXIST)
		goto fail;
	chmod(p->dir, 0700);
	return 0;
fail:
	err = -errno;
	xrx_prog_log(p, XRX_LOG_WARN,
		     "%s: cannot create pin directory %s: %s (is bpffs mounted? mount -t bpf bpf /sys/fs/bpf)",
		     p->ifname, p->dir, strerror(errno));
	return err;
}

/*
 * The device-bound build, attached directly in native mode. The kernel
 * resolves the metadata kfuncs to the driver's ops at load time
 * (bpf_dev_bound_resolve_kfunc()) and refuses such a program in skb mode
 * and behind a dispatcher, so libxdp is not involved.
 * Return: 0 attached, or a negative errno with nothing left behind.
 */
static int xrx_prog_attach_hw(struct xrx_prog *p)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = p->dir);
	struct bpf_program *prog;
	int err;

	p->hw_skel = xrx_rx_hw__open_opts(&oo);
	if (!p->hw_skel)
		return -errno;
	prog = p->hw_skel->progs.xrx_rx;
	p->hw_skel->rodata->xrx_use_nic_hash = !p->o.no_hw_hash;
	bpf_program__set_ifindex(prog, p->ifindex);
	err = bpf_program__set_flags(prog, bpf_program__flags(prog) |
					   BPF_F_XDP_DEV_BOUND_ONLY);
	if (!err)
		err = xrx_rx_hw__load(p->hw_skel);
	if (!err)
		err = bpf_xdp_attach(p->ifindex, bpf_program__fd(prog),
				     XDP_FLAGS_DRV_MODE |
					     XDP_FLAGS_UPDATE_IF_NOEXIST,
				     NULL);
	if (err) {
		bpf_object__unpin_maps(p->hw_skel->obj, NULL);
		xrx_rx_hw__destroy(p->hw_skel);
		p->hw_skel = NULL;
		return err;
	}
	p->prog_fd = bpf_program__fd(prog);
	p->mode = XRX_LIVE_ATTACH_NATIVE;
	p->obj = p->hw_skel->obj;
	return 0;
}

/*
 * The plain build, or where the kernel lacks bpf_cast_to_kern_ctx() the
 * compat build, opened (not loaded: libxdp loads it).
 * Return: its object, or NULL with errno set.
 */
static struct bpf_object *xrx_prog_open_plain(struct xrx_prog *p, bool compat)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = p->dir);

	if (compat) {
		p->compat_skel = xrx_rx_compat__open_opts(&oo);
		return p->compat_skel ? p->compat_skel->obj : NULL;
	}
	p->skel = xrx_rx__open_opts(&oo);
	return p->skel ? p->skel->obj : NULL;
}

/*
 * The plain or compat build attached without libxdp's dispatcher, where
 * the kernel refused it in one (xrx_prog_ext_refused): that failed load
 * left the object loaded as an extension, so it is opened again.
 * Return: 0 attached, or a negative errno with nothing left behind.
 */
static int xrx_prog_attach_direct(struct xrx_prog *p, bool compat,
				  enum xrx_live_attach want)
{
	struct bpf_program *prog;
	struct bpf_object *obj;
	int err;

	xdp_program__close(p->prog);
	p->prog = NULL;
	p->obj = NULL;
	xrx_rx__destroy(p->skel);
	p->skel = NULL;
	xrx_rx_compat__destroy(p->compat_skel);
	p->compat_skel = NULL;
	obj = xrx_prog_open_plain(p, compat);
	if (!obj)
		return -errno;
	p->obj = obj;	/* xrx_prog__close() destroys it */
	prog = bpf_object__find_program_by_name(obj, "xrx_rx");
	if (!prog)
		return -ENOENT;
	err = bpf_object__load(obj);
	if (!err)
		err = bpf_xdp_attach(p->ifindex, bpf_program__fd(prog),
				     (want == XRX_LIVE_ATTACH_NATIVE ?
					      XDP_FLAGS_DRV_MODE :
					      XDP_FLAGS_SKB_MODE) |
					     XDP_FLAGS_UPDATE_IF_NOEXIST,
				     NULL);
	if (err) {
		bpf_object__unpin_maps(obj, NULL);
		return err;
	}
	p->prog_fd = bpf_program__fd(prog);
	p->mode = want;
	return 0;
}

/* Log, once, what the kernel lacks that this attach does without. */
static void xrx_prog_log_lacks(struct xrx_prog *p, enum xrx_kernel_feature f)
{
	char why[512];

	p->lacks |= 1u << f;
	xrx_kernel__explain(f, why, sizeof(why));
	xrx_prog_log(p, XRX_LOG_WARN, "%s: %s", p->ifname, why);
}

/* The program's id from its fd, 0 if it cannot be read. */
static __u32 xrx_prog_fd_id(int fd)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

static int xrx_prog_load_attach(struct xrx_prog *p)
{
	static const struct {
		enum xrx_live_attach want;
		enum xdp_attach_mode mode;
		const char *name;
	} modes[] = {
		{ XRX_LIVE_ATTACH_NATIVE, XDP_MODE_NATIVE, "native" },
		{ XRX_LIVE_ATTACH_SKB, XDP_MODE_SKB, "skb" },
	};
	__u32 lacks = xrx_kernel__lacks();
	bool compat = lacks & (1u << XRX_KERNEL_KERN_CTX);
	char path[PATH_MAX + 32], why[512];
	struct bpf_object *obj;
	unsigned int i;
	int err;

	if (xrx_kernel__check(why, sizeof(why))) {
		xrx_prog_log(p, XRX_LOG_WARN, "%s: %s", p->ifname, why);
		return -EOPNOTSUPP;
	}
	if (!p->o.no_hw_meta && (p->o.attach == XRX_LIVE_ATTACH_AUTO ||
				 p->o.attach == XRX_LIVE_ATTACH_NATIVE)) {
		/* The device-bound build needs both kfuncs' kernels. */
		if (lacks & (1u << XRX_KERNEL_XDP_METADATA)) {
			xrx_prog_log_lacks(p, XRX_KERNEL_XDP_METADATA);
		} else if (!compat) {
			err = xrx_prog_attach_hw(p);
			if (!err)
				goto attached;
			xrx_prog_log(p, XRX_LOG_INFO,
				     "%s: device-bound xrx_rx (NIC VLAN tag and hash) not attached: %s; using the plain build",
				     p->ifname, strerror(-err));
		}
	}
	if (compat)
		xrx_prog_log_lacks(p, XRX_KERNEL_KERN_CTX);
	obj = xrx_prog_open_plain(p, compat);
	if (!obj) {
		err = -errno;
		xrx_prog_log(p, XRX_LOG_WARN,
			     "%s: cannot open the embedded %s object: %s",
			     p->ifname, compat ? "xrx_rx_compat" : "xrx_rx",
			     strerror(-err));
		return err;
	}
	p->obj = obj;
	p->prog = xdp_program__from_bpf_obj(obj, "xdp.frags");
	err = libxdp_get_error(p->prog);
	if (err) {
		p->prog = NULL;
		xrx_prog_log(p, XRX_LOG_WARN, "%s: libxdp cannot take xrx_rx: %s",
			     p->ifname, strerror(-err));
		return err;
	}
	/* libxdp 1.3 does not see the xdp.frags section by itself. */
	xdp_program__set_xdp_frags_support(p->prog, true);
	err = -EINVAL;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (p->o.attach != XRX_LIVE_ATTACH_AUTO &&
		    p->o.attach != modes[i].want)
			continue;
		xrx_prog_kmsg[0] = '\0';
		xrx_prog_ext_refused = false;
		err = xdp_program__attach(p->prog, p->ifindex, modes[i].mode, 0);
		if (!err) {
			p->mode = modes[i].want;
			break;
		}
		if (xrx_prog_ext_refused) {
			xrx_prog_log(p, XRX_LOG_INFO,
				     "%s: this kernel refuses xrx_rx behind libxdp's dispatcher (\"%s\": xdp-tools before 1.5.5); attaching it directly in %s mode",
				     p->ifname, XRX_EXT_PKT_DATA, modes[i].name);
			err = xrx_prog_attach_direct(p, compat, modes[i].want);
			if (!err)
				goto attached;
			break;	/* libxdp's program is gone: no other mode */
		}
		/* auto: native refused, skb next. Slower, so say why. */
		if (p->o.attach == XRX_LIVE_ATTACH_AUTO &&
		    modes[i].want == XRX_LIVE_ATTACH_NATIVE)
			xrx_prog_log(p, XRX_LOG_WARN,
				     "%s: native XDP refused: %s%s%s; falling back to skb (generic) mode, which is slower (attach = skb says so on purpose)",
				     p->ifname, strerror(-err),
				     xrx_prog_kmsg[0] ? ": " : "", xrx_prog_kmsg);
		else
			xrx_prog_log(p, XRX_LOG_INFO,
				     "%s: attach xrx_rx in %s mode: %s%s%s",
				     p->ifname, modes[i].name, strerror(-err),
				     xrx_prog_kmsg[0] ? ": " : "", xrx_prog_kmsg);
	}
	if (err) {
		xrx_prog_log(p, XRX_LOG_WARN,
			     "%s: cannot attach xrx_rx: %s%s%s (is the interface up? does the driver support XDP%s?)",
			     p->ifname, strerror(-err),
			     xrx_prog_kmsg[0] ? ": " : "", xrx_prog_kmsg,
			     p->o.attach == XRX_LIVE_ATTACH_NATIVE ?
				     " in native mode? try skb mode" : "");
		return err;
	}
	p->prog_fd = xdp_program__fd(p->prog);
attached:
	for (i = 0; i < XRX_PROG_MAP_MAX; i++)
		p->fds[i] = bpf_object__find_map_fd_by_name(p->obj,
							    xrx_prog_map_names[i]);
	p->attached = true;
	p->id = xrx_prog_fd_id(p->prog_fd);
	/* The program pin is how xrxd recognises it after a crash. */
	snprintf(path, sizeof(path), "%s/%s", p->dir, XRX_PIN_PROG);
	if (bpf_obj_pin(p->prog_fd, path))
		xrx_prog_log(p, XRX_LOG_WARN,
			     "%s: cannot pin xrx_rx at %s: %s; a restart after a crash will not recognise it",
			     p->ifname, path, strerror(errno));
	xrx_prog_log(p, XRX_LOG_INFO,
		     "%s: %s%s (id %u) attached in %s mode, pins in %s",
		     p->ifname, xrx_prog__build(p),
		     p->hw_skel ? " (device-bound, NIC metadata)" : "",
		     p->id, xrx_prog__mode_name(p), p->dir);
	return 0;
}

struct xrx_prog *xrx_prog__attach(const char *ifname,
				  const struct xrx_prog_opts *opts)
{
	libbpf_print_fn_t old_bpf;
	libxdp_print_fn_t old_xdp;
	struct xrx_hash_key key;
	struct xrx_prog *p;
	__u32 id;
	int err;

	if (opts && opts->attach > XRX_LIVE_ATTACH_SKB) {
		errno = EINVAL;
		return NULL;
	}
	p = xrx_prog_new(ifname, opts);
	if (!p)
		return NULL;
	id = xrx_prog_attached_id(p->ifindex);
	if (id) {
		xrx_prog_log(p, XRX_LOG_WARN,
			     "%s: an XDP program (id %u) is attached already: detach it (xdp-loader unload -a %s) or open with attach mode none to use its pinned maps",
			     ifname, id, ifname);
		err = -EBUSY;
		goto fail;
	}
	err = xrx_prog_make_dirs(p);
	if (err)
		goto fail;
	xrx_prog_remove_stale(p);

	xrx_prog_logger = p;
	old_bpf = libbpf_set_print(xrx_prog_libbpf_print);
	old_xdp = libxdp_set_print(xrx_prog_libxdp_print);
	err = xrx_prog_load_attach(p);
	libxdp_set_print(old_xdp);
	libbpf_set_print(old_bpf);
	xrx_prog_logger = NULL;
	if (!err)
		err = xrx_prog_hash_key(p, &key);
	if (err)
		goto fail;
	return p;
fail:
	xrx_prog__close(p);
	errno = -err;
	return NULL;
}

/* Detach only our program; leave whatever else is attached now. */
static void xrx_prog_detach(struct xrx_prog *p)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	LIBBPF_OPTS(bpf_xdp_attach_opts, ao);
	__u32 flags;
	int err;

	/* An interface that was removed took its program with it: the
	 * query then finds nothing attached. */
	if (bpf_xdp_query(p->ifindex, 0, &q)) {
		xrx_prog_log(p, XRX_LOG_WARN,
			     "%s: cannot query its XDP program (%s); xrx_rx left as it is",
			     p->ifname, strerror(errno));
	} else if ((flags = xrx_xdp_attached_flags(&q, p->id))) {
		ao.old_prog_fd = p->prog_fd;
		err = bpf_xdp_detach(p->ifindex, flags, &ao);
		if (err)
			xrx_prog_log(p, XRX_LOG_WARN,
				     "%s: cannot detach xrx_rx (id %u): %s (ip link set dev %s xdp off)",
				     p->ifname, p->id, strerror(-err), p->ifname);
		else
			xrx_prog_log(p, XRX_LOG_INFO, "%s: xrx_rx (id %u) detached",
				     p->ifname, p->id);
	} else if (p->prog &&
		   (q.attach_mode == XDP_ATTACHED_MULTI || q.prog_id)) {
		/* Behind a libxdp dispatcher, or replaced by someone. */
		err = xdp_program__detach(p->prog, p->ifindex,
					  p->mode == XRX_LIVE_ATTACH_NATIVE ?
						  XDP_MODE_NATIVE : XDP_MODE_SKB,
					  0);
		if (err)
			xrx_prog_log(p, XRX_LOG_WARN,
				     "%s: xrx_rx (id %u) is no longer what is attached (id %u is); left that alone",
				     p->ifname, p->id, q.prog_id);
	}
	p->attached = false;
}

void xrx_prog__close(struct xrx_prog *p)
{
	unsigned int i;

	if (!p)
		return;
	if (!p->obj) {
		/* Someone else's program: only our descriptors go. */
		for (i = 0; i < XRX_PROG_MAP_MAX; i++)
			if (p->fds[i] >= 0)
				close(p->fds[i]);
		free(p);
		return;
	}
	if (p->attached)
		xrx_prog_detach(p);
	bpf_object__unpin_maps(p->obj, NULL);
	xrx_prog__unpin(p->root, p->ifname);
	/* Ours even if an earlier run made it: nothing else goes there. */
	if (rmdir(p->dir) && errno != ENOENT)
		xrx_prog_log(p, XRX_LOG_WARN, "%s: cannot remove %s: %s",
			     p->ifname, p->dir, strerror(errno));
	xdp_program__close(p->prog);
	xrx_rx__destroy(p->skel);
	xrx_rx_compat__destroy(p->compat_skel);
	xrx_rx_hw__destroy(p->hw_skel);
	free(p);
}

int xrx_prog__map_fd(const struct xrx_prog *p, enum xrx_prog_map map)
{
	if (!p || (unsigned int)map >= XRX_PROG_MAP_MAX)
		return -EINVAL;
	return p->fds[map];
}

__u32 xrx_prog__id(const struct xrx_prog *p)
{
	return p ? p->id : 0;
}

enum xrx_live_attach xrx_prog__mode(const struct xrx_prog *p)
{
	return p ? p->mode : XRX_LIVE_ATTACH_NONE;
}

const char *xrx_prog__mode_name(const struct xrx_prog *p)
{
	switch (xrx_prog__mode(p)) {
	case XRX_LIVE_ATTACH_NATIVE:
		return "native";
	case XRX_LIVE_ATTACH_SKB:
		return "skb";
	default:
		return "none";
	}
}

const char *xrx_prog__pin_dir(const struct xrx_prog *p)
{
	return p ? p->dir : "";
}

bool xrx_prog__hw_meta(const struct xrx_prog *p)
{
	return p && p->hw_skel;
}

__u32 xrx_prog__lacks(const struct xrx_prog *p)
{
	return p ? p->lacks : 0;
}

const char *xrx_prog__build(const struct xrx_prog *p)
{
	if (!p || !p->obj)
		return "";
	return p->hw_skel ? "xrx_rx_hw" :
	       p->compat_skel ? "xrx_rx_compat" : "xrx_rx";
}

/*
 * xrx_rx's counters: one per-CPU entry (struct xrx_stats, indexable by
 * enum xrx_stat), summed over CPUs. The buffer is sized from the map
 * itself, so a program built from other headers cannot overrun it.
 */
int xrx_prog__stats(const struct xrx_prog *p, __u64 *pkts, __u64 *bytes)
{
	int ncpu = libbpf_num_possible_cpus();
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info), key = 0, stride, n, i;
	const struct xrx_counter *c;
	int cpu, fd;
	__u8 *vals;

	memset(pkts, 0, XRX_STAT_MAX * sizeof(*pkts));
	memset(bytes, 0, XRX_STAT_MAX * sizeof(*bytes));
	fd = xrx_prog__map_fd(p, XRX_PROG_MAP_STATS);
	if (ncpu <= 0 || fd < 0)
		return -EINVAL;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	stride = (info.value_size + 7) & ~7u;
	n = info.value_size / sizeof(*c);
	if (n > XRX_STAT_MAX)
		n = XRX_STAT_MAX;
	vals = calloc(ncpu, stride);
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &key, vals)) {
		free(vals);
		return -errno;
	}
	for (cpu = 0; cpu < ncpu; cpu++) {
		c = (const struct xrx_counter *)(vals + (size_t)cpu * stride);
		for (i = 0; i < n; i++) {
			pkts[i] += c[i].packets;
			bytes[i] += c[i].bytes;
		}
	}
	free(vals);
	return 0;
}
