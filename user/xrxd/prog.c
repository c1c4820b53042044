// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrxd's XDP program: xrx_rx from the embedded skeleton, handed to libxdp
 * unloaded (so libxdp can put it behind its dispatcher where the kernel
 * allows freplace, or attach it alone), maps and program pinned in
 * PIN_ROOT/IFACE, the accelerate rules kept in xrx_rules/xrx_cfg.
 *
 * xrxd owns the program, not the libxrx live handle: the workers are
 * opened with XRX_LIVE_ATTACH_NONE on these pins, so they can be closed and
 * reopened (new sink, new engine options, new MTU) while the program stays
 * attached and the rules stay in place.
 *
 * Detaching is done by xrxd with XDP_FLAGS_REPLACE and its own program fd
 * (dev_xdp_attach() refuses when the attached program is not that one), so
 * a program someone attached since is left alone. libxdp's own detach
 * first looks the attached program up by id, which needs CAP_SYS_ADMIN;
 * it is only used when a dispatcher is in front.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <xdp/libxdp.h>

#include <xrx/rules.h>

#include "ctl_log.h"
#include "ctl_pins.h"
#include "xrx_rx.skel.h"
#include "xrxd.h"

static int print_debug(const char *fmt, va_list ap)
{
	char buf[512];
	size_t n;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = 0;
	if (n)
		ctl_debug("%s", buf);
	return 0;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	return print_debug(fmt, ap);
}

static int libxdp_print(enum libxdp_print_level level, const char *fmt,
			va_list ap)
{
	return print_debug(fmt, ap);
}

static void pin_dir(struct xrxd *x)
{
	xrx_pin_path(x->o->pin_root, x->ifname, NULL, x->prog.dir,
		     sizeof(x->prog.dir));
}

/*
 * Before anything changes: an XDP program on the interface is either the
 * xrx_rx a killed xrxd left (its pin says so: detach it and clear the
 * pins), or someone else's: refused when @refuse_foreign (the daemon),
 * left alone otherwise (--apply-only touches only offloads).
 */
int xrxd_prog_check_leftover(struct xrxd *x, bool refuse_foreign)
{
	char err[PATH_MAX + 256];
	__u32 detached, foreign;
	int ret;

	pin_dir(x);
	ret = xrx_leftover_clear(x->o->pin_root, x->ifname, x->ifindex,
				 &detached, &foreign, err, sizeof(err));
	if (ret) {
		ctl_err("%s", err);
		return ret;
	}
	if (detached)
		ctl_notice("%s: detached the xrx_rx (id %u) a previous xrxd left attached and removed its pins",
			   x->ifname, detached);
	if (foreign && refuse_foreign) {
		ctl_err("%s: an XDP program (id %u) that xrxd did not attach is on the interface: detach it (xdp-loader unload -a %s, or ip link set dev %s xdp off) and start again",
			x->ifname, foreign, x->ifname, x->ifname);
		return -EBUSY;
	}
	return 0;
}

static int make_dirs(struct xrxd *x)
{
	if (mkdir(x->o->pin_root, 0700) && errno != EEXIST)
		goto fail;
	if (!mkdir(x->prog.dir, 0700))
		x->prog.made_dir = true;
	else if (errno != EEXIST)
		goto fail;
	chmod(x->prog.dir, 0700);
	return 0;
fail:
	ctl_err("%s: cannot create pin directory %s: %s (is bpffs mounted? mount -t bpf bpf /sys/fs/bpf)",
		x->ifname, x->prog.dir, strerror(errno));
	return -errno;
}

int xrxd_prog_attach(struct xrxd *x)
{
	static const struct {
		enum xrx_conf_attach want;
		enum xdp_attach_mode mode;
		const char *name;
	} modes[] = {
		{ XRX_CONF_ATTACH_NATIVE, XDP_MODE_NATIVE, "native" },
		{ XRX_CONF_ATTACH_SKB, XDP_MODE_SKB, "skb" },
	};
	struct xrxd_prog *p = &x->prog;
	LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = p->dir);
	libbpf_print_fn_t old_bpf;
	libxdp_print_fn_t old_xdp;
	char path[PATH_MAX];
	unsigned int i;
	int err;

	p->rules_fd = p->cfg_fd = -1;
	pin_dir(x);
	err = make_dirs(x);
	if (err)
		return err;
	old_bpf = libbpf_set_print(libbpf_print);
	old_xdp = libxdp_set_print(libxdp_print);
	p->skel = xrx_rx__open_opts(&oo);
	if (!p->skel) {
		err = -errno;
		ctl_err("%s: cannot open the embedded xrx_rx object: %s",
			x->ifname, strerror(errno));
		goto out;
	}
	p->prog = xdp_program__from_bpf_obj(p->skel->obj, "xdp.frags");
	err = libxdp_get_error(p->prog);
	if (err) {
		p->prog = NULL;
		ctl_err("%s: libxdp cannot take xrx_rx: %s", x->ifname,
			strerror(-err));
		goto out;
	}
	/* libxdp 1.3 does not see the xdp.frags section by itself. */
	xdp_program__set_xdp_frags_support(p->prog, true);
	err = -EINVAL;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (x->conf->attach != XRX_CONF_ATTACH_AUTO &&
		    x->conf->attach != modes[i].want)
			continue;
		err = xdp_program__attach(p->prog, x->ifindex, modes[i].mode, 0);
		if (!err) {
			p->xdp_mode = modes[i].mode;
			break;
		}
		ctl_info("%s: attach xrx_rx in %s mode: %s", x->ifname,
			 modes[i].name, strerror(-err));
	}
	if (err) {
		ctl_err("%s: cannot attach xrx_rx: %s (does the driver support XDP%s? an XDP program already attached must be detached first)",
			x->ifname, strerror(-err),
			x->conf->attach == XRX_CONF_ATTACH_NATIVE ?
				" in native mode? try attach = skb" : "");
		goto out;
	}
	p->attached = true;
	p->id = xdp_program__id(p->prog);
	p->rules_fd = bpf_map__fd(p->skel->maps.xrx_rules);
	p->cfg_fd = bpf_map__fd(p->skel->maps.xrx_cfg);
	/* The program pin is how the next xrxd recognises it after a crash. */
	xrx_pin_path(x->o->pin_root, x->ifname, XRX_PROG_PIN, path, sizeof(path));
	if (bpf_obj_pin(xdp_program__fd(p->prog), path))
		ctl_warn("%s: cannot pin xrx_rx at %s: %s; a restart after a crash will not recognise it",
			 x->ifname, path, strerror(errno));
	ctl_info("%s: xrx_rx (id %u) attached in %s mode, pins in %s", x->ifname,
		 p->id, p->xdp_mode == XDP_MODE_NATIVE ? "native" : "skb", p->dir);
out:
	libxdp_set_print(old_xdp);
	libbpf_set_print(old_bpf);
	return err;
}

/* Detach only our program, leave whatever else is there; drop the pins. */
void xrxd_prog_detach(struct xrxd *x)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	LIBBPF_OPTS(bpf_xdp_attach_opts, ao);
	struct xrxd_prog *p = &x->prog;
	__u32 flags;
	int err;

	if (p->attached && !x->gone) {
		if (bpf_xdp_query(x->ifindex, 0, &q)) {
			ctl_warn("%s: cannot query its XDP program (%s); xrx_rx left as it is",
				 x->ifname, strerror(errno));
		} else if ((flags = xrx_xdp_attached_flags(&q, p->id))) {
			ao.old_prog_fd = xdp_program__fd(p->prog);
			err = bpf_xdp_detach(x->ifindex, flags, &ao);
			if (err)
				ctl_warn("%s: cannot detach xrx_rx (id %u): %s (ip link set dev %s xdp off)",
					 x->ifname, p->id, strerror(-err), x->ifname);
			else
				ctl_info("%s: xrx_rx (id %u) detached", x->ifname, p->id);
		} else if (q.attach_mode == XDP_ATTACHED_MULTI || q.prog_id) {
			/* Behind a libxdp dispatcher, or replaced by someone. */
			err = xdp_program__detach(p->prog, x->ifindex,
						  (enum xdp_attach_mode)p->xdp_mode, 0);
			if (err)
				ctl_notice("%s: xrx_rx (id %u) is no longer what is attached (id %u is); left that alone",
					   x->ifname, p->id, q.prog_id);
		}
	}
	p->attached = false;
	if (p->skel)
		bpf_object__unpin_maps(p->skel->obj, NULL);
	if (x->ustats_fd >= 0) {
		close(x->ustats_fd);
		x->ustats_fd = -1;
	}
	if (p->dir[0]) {
		xrx_pins_remove(x->o->pin_root, x->ifname);
		/* Ours even if an earlier run made it: nothing else goes there. */
		if (rmdir(p->dir) && errno != ENOENT)
			ctl_warn("%s: cannot remove %s: %s", x->ifname, p->dir,
				 strerror(errno));
	}
	xdp_program__close(p->prog);
	xrx_rx__destroy(p->skel);
	p->prog = NULL;
	p->skel = NULL;
}

int xrxd_ustats_open(struct xrxd *x)
{
	char path[PATH_MAX], err[PATH_MAX + 256];
	int fd;

	xrx_pin_path(x->o->pin_root, x->ifname, XRX_USTATS_NAME, path,
		     sizeof(path));
	fd = xrx_ustats_create(path, err, sizeof(err));
	if (fd < 0) {
		ctl_err("%s: %s", x->ifname, err);
		return fd;
	}
	x->ustats_fd = fd;
	return 0;
}

static bool has_rule(const struct xrx_conf *conf, const struct xrx_rule_key *k)
{
	unsigned int i;

	for (i = 0; i < conf->nrules; i++)
		if (!memcmp(&conf->rules[i], k, sizeof(*k)))
			return true;
	return false;
}

/*
 * Make xrx_rules/xrx_cfg say what @conf says, in place: rules that went
 * away are deleted, the others written (an LPM update replaces a value
 * atomically), so traffic of an unchanged rule never sees a gap.
 */
int xrxd_rules_apply(struct xrxd *x, const struct xrx_conf *conf)
{
	struct xrx_cfg cfg = { .default_action = conf->default_action };
	struct xrx_rule_key *old, key, *prev = NULL;
	struct xrx_rule_val val = { .action = XRX_ACT_ACCEL };
	unsigned int n = 0, i;
	char text[96];
	__u32 zero = 0;
	int ret = 0;

	old = calloc(XRX_RULES_MAX, sizeof(*old));
	if (!old)
		return -ENOMEM;
	while (n < XRX_RULES_MAX &&
	       !bpf_map_get_next_key(x->prog.rules_fd, prev, &key)) {
		old[n] = key;
		prev = &old[n++];
	}
	for (i = 0; i < n; i++) {
		if (has_rule(conf, &old[i]))
			continue;
		if (bpf_map_delete_elem(x->prog.rules_fd, &old[i]) && errno != ENOENT) {
			ret = -errno;
			xrx_rule_format(&old[i], text, sizeof(text));
			ctl_err("%s: cannot remove rule %s from xrx_rules: %s",
				x->ifname, text, strerror(errno));
		}
	}
	for (i = 0; i < conf->nrules; i++) {
		val.id = i + 1;
		if (bpf_map_update_elem(x->prog.rules_fd, &conf->rules[i], &val,
					BPF_ANY)) {
			ret = -errno;
			xrx_rule_format(&conf->rules[i], text, sizeof(text));
			ctl_err("%s: cannot add rule %s to xrx_rules: %s",
				x->ifname, text, strerror(errno));
		}
	}
	if (bpf_map_update_elem(x->prog.cfg_fd, &zero, &cfg, BPF_ANY)) {
		ret = -errno;
		ctl_err("%s: cannot write xrx_cfg: %s", x->ifname, strerror(errno));
	}
	free(old);
	if (!ret) {
		x->nrules = conf->nrules;
		ctl_info("%s: %u accelerate rule%s, default %s", x->ifname,
			 conf->nrules, conf->nrules == 1 ? "" : "s",
			 conf->default_action == XRX_ACT_ACCEL ? "accel" : "pass");
	}
	return ret;
}
