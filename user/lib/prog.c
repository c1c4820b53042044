// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrx_rx on the interface: attached by libxrx from the embedded skeleton
 * (the object is handed to libxdp unloaded, so libxdp can put it behind
 * its dispatcher where the kernel allows freplace, or attach it alone),
 * maps pinned in PIN_ROOT/IFACE; or, with XRX_LIVE_ATTACH_NONE, someone
 * else's xrx_rx reached through those pins. Rules and the default action
 * go to the maps either way.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "live_priv.h"
#include "xrx_rx.skel.h"

static const char *const xrx_pinned_maps[] = {
	"xrx_xsks", "xrx_stats", "xrx_rules", "xrx_cfg", "xrx_scratch",
};

/*
 * libbpf and libxdp print through process-wide hooks without a context;
 * while open() attaches, their messages (libxdp's dispatcher probe fails
 * with EPERM where freplace is refused, which is expected) go to the
 * live handle's log at debug level.
 */
static const struct xrx_live *xrx_prog_logger;

static int xrx_prog_vprint(const char *fmt, va_list ap)
{
	char buf[512];
	size_t n;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = 0;
	if (xrx_prog_logger && n)
		xrx_log(xrx_prog_logger, XRX_LOG_DEBUG, "%s", buf);
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

static int xrx_prog_pin_fd(struct xrx_prog *p, const char *name)
{
	char path[PATH_MAX + 32];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", p->dir, name);
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
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
static void xrx_prog_remove_stale(struct xrx_live *l)
{
	char path[PATH_MAX + 32];
	unsigned int i;
	bool any = false;

	for (i = 0; i < sizeof(xrx_pinned_maps) / sizeof(xrx_pinned_maps[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", l->prog.dir,
			 xrx_pinned_maps[i]);
		if (!unlink(path))
			any = true;
	}
	if (any)
		xrx_log(l, XRX_LOG_INFO,
			"%s: removed stale pins in %s (no XDP program attached)",
			l->ifname, l->prog.dir);
}

static int xrx_prog_use_pinned(struct xrx_live *l)
{
	struct xrx_prog *p = &l->prog;

	p->xsks_fd = xrx_prog_pin_fd(p, "xrx_xsks");
	p->rules_fd = xrx_prog_pin_fd(p, "xrx_rules");
	p->cfg_fd = xrx_prog_pin_fd(p, "xrx_cfg");
	p->stats_fd = xrx_prog_pin_fd(p, "xrx_stats");
	if (p->xsks_fd < 0 || p->rules_fd < 0 || p->cfg_fd < 0 ||
	    p->stats_fd < 0) {
		xrx_log(l, XRX_LOG_WARN,
			"%s: no xrx_rx maps pinned in %s: attach xrx_rx first (xrxd, or xdp-loader load --pin-path %s), or open with attach mode auto",
			l->ifname, p->dir, p->dir);
		return -ENOENT;
	}
	p->mode_name = "none";
	return 0;
}

static int xrx_prog_attach(struct xrx_live *l)
{
	static const struct {
		enum xrx_live_attach want;
		enum xdp_attach_mode mode;
		const char *name;
	} modes[] = {
		{ XRX_LIVE_ATTACH_NATIVE, XDP_MODE_NATIVE, "native" },
		{ XRX_LIVE_ATTACH_SKB, XDP_MODE_SKB, "skb" },
	};
	LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = l->prog.dir);
	struct xrx_prog *p = &l->prog;
	__u32 id;
	unsigned int i;
	int err = -EINVAL;

	id = xrx_prog_attached_id(p->ifindex);
	if (id) {
		xrx_log(l, XRX_LOG_WARN,
			"%s: an XDP program (id %u) is attached already: detach it (xdp-loader unload -a %s) or open with attach mode none to use its pinned maps",
			l->ifname, id, l->ifname);
		return -EBUSY;
	}
	xrx_prog_remove_stale(l);
	p->skel = xrx_rx__open_opts(&oo);
	if (!p->skel)
		return -errno;
	p->prog = xdp_program__from_bpf_obj(p->skel->obj, "xdp.frags");
	err = libxdp_get_error(p->prog);
	if (err) {
		p->prog = NULL;
		return err;
	}
	xdp_program__set_xdp_frags_support(p->prog, true);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (l->o.attach != XRX_LIVE_ATTACH_AUTO &&
		    l->o.attach != modes[i].want)
			continue;
		err = xdp_program__attach(p->prog, p->ifindex, modes[i].mode, 0);
		if (!err) {
			p->xdp_mode = modes[i].mode;
			p->mode_name = modes[i].name;
			break;
		}
		xrx_log(l, XRX_LOG_INFO, "%s: attach xrx_rx in %s mode: %s",
			l->ifname, modes[i].name, strerror(-err));
	}
	if (err) {
		xrx_log(l, XRX_LOG_WARN,
			"%s: cannot attach xrx_rx: %s (is the interface up? does the driver support XDP%s?)",
			l->ifname, strerror(-err),
			l->o.attach == XRX_LIVE_ATTACH_NATIVE ? " in native mode; try skb mode" : "");
		return err;
	}
	p->attached = true;
	p->xsks_fd = bpf_map__fd(p->skel->maps.xrx_xsks);
	p->rules_fd = bpf_map__fd(p->skel->maps.xrx_rules);
	p->cfg_fd = bpf_map__fd(p->skel->maps.xrx_cfg);
	p->stats_fd = bpf_map__fd(p->skel->maps.xrx_stats);
	xrx_log(l, XRX_LOG_INFO, "%s: xrx_rx attached in %s mode, maps in %s",
		l->ifname, p->mode_name, p->dir);
	return 0;
}

int xrx_prog_open(struct xrx_live *l)
{
	struct xrx_prog *p = &l->prog;
	libbpf_print_fn_t old_bpf;
	libxdp_print_fn_t old_xdp;
	int err;

	p->xsks_fd = p->rules_fd = p->cfg_fd = p->stats_fd = -1;
	p->ifindex = l->ifindex;
	snprintf(p->root, sizeof(p->root), "%s",
		 l->o.pin_root ? l->o.pin_root : XRX_PIN_ROOT_DEFAULT);
	snprintf(p->dir, sizeof(p->dir), "%s/%s", p->root, l->ifname);
	if (l->o.attach == XRX_LIVE_ATTACH_NONE)
		return xrx_prog_use_pinned(l);

	if (mkdir(p->root, 0700) == 0)
		p->made_root = true;
	else if (errno != EEXIST)
		goto no_dir;
	if (mkdir(p->dir, 0700) == 0)
		p->made_dir = true;
	else if (errno != EEXIST)
		goto no_dir;

	xrx_prog_logger = l;
	old_bpf = libbpf_set_print(xrx_prog_libbpf_print);
	old_xdp = libxdp_set_print(xrx_prog_libxdp_print);
	err = xrx_prog_attach(l);
	libxdp_set_print(old_xdp);
	libbpf_set_print(old_bpf);
	xrx_prog_logger = NULL;
	return err;
no_dir:
	err = -errno;
	xrx_log(l, XRX_LOG_WARN,
		"%s: cannot create pin directory %s: %s (is bpffs mounted? mount -t bpf bpf /sys/fs/bpf)",
		l->ifname, p->dir, strerror(errno));
	return err;
}

void xrx_prog_close(struct xrx_live *l)
{
	struct xrx_prog *p = &l->prog;
	int err;

	if (!p->skel) {
		/* Someone else's program: only our descriptors go. */
		if (p->xsks_fd >= 0)
			close(p->xsks_fd);
		if (p->rules_fd >= 0)
			close(p->rules_fd);
		if (p->cfg_fd >= 0)
			close(p->cfg_fd);
		if (p->stats_fd >= 0)
			close(p->stats_fd);
		return;
	}
	if (p->attached) {
		err = xdp_program__detach(p->prog, p->ifindex, p->xdp_mode, 0);
		if (err)
			xrx_log(l, XRX_LOG_WARN,
				"%s: cannot detach xrx_rx: %s (xdp-loader unload -a %s)",
				l->ifname, strerror(-err), l->ifname);
		p->attached = false;
		bpf_object__unpin_maps(p->skel->obj, NULL);
	}
	xdp_program__close(p->prog);
	xrx_rx__destroy(p->skel);
	p->skel = NULL;
	p->prog = NULL;
	if (p->made_dir)
		rmdir(p->dir);
	if (p->made_root)
		rmdir(p->root);
}

/*
 * xrx_rx's counters: one per-CPU entry (struct xrx_stats, indexable by
 * enum xrx_stat), summed over CPUs. The buffer is sized from the map
 * itself, so a program built from other headers cannot overrun it.
 */
int xrx_prog_stats(const struct xrx_prog *p, __u64 *pkts, __u64 *bytes)
{
	int ncpu = libbpf_num_possible_cpus();
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info), key = 0, stride, n, i;
	const struct xrx_counter *c;
	__u8 *vals;
	int cpu;

	memset(pkts, 0, XRX_STAT_MAX * sizeof(*pkts));
	memset(bytes, 0, XRX_STAT_MAX * sizeof(*bytes));
	if (ncpu <= 0 || p->stats_fd < 0)
		return -EINVAL;
	if (bpf_obj_get_info_by_fd(p->stats_fd, &info, &len))
		return -errno;
	stride = (info.value_size + 7) & ~7u;
	n = info.value_size / sizeof(*c);
	if (n > XRX_STAT_MAX)
		n = XRX_STAT_MAX;
	vals = calloc(ncpu, stride);
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(p->stats_fd, &key, vals)) {
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
