// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrxd's XDP side: xrx_rx attached and pinned in PIN_ROOT/IFACE by libxrx
 * (include/xrx/prog.h), a program a killed xrxd left behind found, the
 * VLAN offload policy the program needs, the xrx_ustats pin, and the
 * accelerate rules kept in xrx_rules/xrx_cfg.
 *
 * xrxd owns the program, not the libxrx live handle: the workers are
 * opened with XRX_LIVE_ATTACH_NONE on these pins, so they can be closed and
 * reopened (new sink, new engine options, new MTU) while the program stays
 * attached and the rules stay in place. Detaching takes only xrxd's own
 * program (XDP_FLAGS_REPLACE with its fd) and needs no CAP_SYS_ADMIN.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <xrx/rules.h>

#include "ctl_log.h"
#include "ctl_offload.h"
#include "ctl_pins.h"
#include "xrxd.h"

/*
 * libxrx's messages at xrxd's levels. While attaching, a warning may be
 * why xrxd cannot start (the last one, when the attach fails: an error)
 * or something done without (attach = auto falling back to skb mode, a
 * feature the kernel lacks), which starts and is a warning; so the last
 * warning is held until the outcome says which (prog_log_outcome()).
 */
static void prog_log(void *ctx, enum xrx_log_level level, const char *msg)
{
	struct xrxd *x = ctx;

	if (level == XRX_LOG_WARN && x->xdp.attaching) {
		if (x->xdp.held)
			ctl_warn("%s", x->xdp.held_msg);
		snprintf(x->xdp.held_msg, sizeof(x->xdp.held_msg), "%s", msg);
		x->xdp.held = true;
		return;
	}
	ctl_log(level == XRX_LOG_WARN ? CTL_LOG_WARN :
		level == XRX_LOG_INFO ? CTL_LOG_INFO : CTL_LOG_DEBUG,
		"%s", msg);
}

static void prog_log_outcome(struct xrxd *x, bool failed)
{
	if (x->xdp.held)
		ctl_log(failed ? CTL_LOG_ERR : CTL_LOG_WARN, "%s", x->xdp.held_msg);
	x->xdp.held = false;
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

	ret = xrx_leftover_clear(x->o->pin_root, x->ifname, x->link.ifindex,
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

/* Why xrx_rx cannot read the VLAN tags the NIC strips. */
static const char *vlan_why(const struct xrxd *x, const struct xrx_conf *conf)
{
	if (x->xdp.tags_lost)
		return "the device-bound xrx_rx could not be attached";
	return conf->attach == XRX_CONF_ATTACH_SKB ?
		       "attach = skb" : "no XDP VLAN metadata from the driver";
}

/*
 * A NIC with rx-vlan-hw-parse on takes the VLAN tag out of the frame
 * before XDP runs. Linux still tells flows apart by it (vlan_all in
 * gro_list_prepare()); xrx can only if xrx_rx reads it back through
 * bpf_xdp_metadata_rx_vlan_tag(), which needs the device-bound build
 * (native mode) and a driver that implements the op. Otherwise, while a
 * rule accelerates, the tag must stay in the frame: rx-vlan-hw-parse off,
 * recorded and restored like any offload. An explicit setting is the
 * user's; a risky one is warned about.
 * Return: true with *@rx_vlan filled in if xrxd turns the offload off.
 */
bool xrxd_vlan_policy(struct xrxd *x, const struct xrx_conf *conf,
		      const struct xrx_nic *nic, struct xrx_conf_offload *rx_vlan)
{
	const struct xrx_conf_offload *o = &conf->offload[XRX_OFF_RX_VLAN];
	const struct xrx_nic_feature *f;
	bool accel, parse;
	__u64 meta = 0;

	accel = conf->nrules || conf->default_action == XRX_ACT_ACCEL;
	if (conf->attach != XRX_CONF_ATTACH_SKB && !x->xdp.tags_lost &&
	    !xrx_nic_xdp_rx_metadata(x->nl, x->link.ifindex, &meta))
		x->xdp.tags_readable = meta & XRX_XDP_RX_META_VLAN_TAG;
	f = xrx_nic_feature(nic, "rx-vlan-hw-parse");
	parse = f && f->active;
	if (!accel || x->xdp.tags_readable || !parse)
		return false;
	if (o->set && o->value) {
		ctl_warn("%s: offload.rx_vlan = on (%s:%d): the NIC strips VLAN tags that xrx_rx cannot read here (%s), so accelerated flows that differ only by VLAN are merged; write offload.rx_vlan = off",
			 x->ifname, conf->file, o->line,
			 vlan_why(x, conf));
		return false;
	}
	if (o->set)
		return false;
	if (o->line) {
		ctl_warn("%s: offload.rx_vlan = keep (%s:%d): rx-vlan-hw-parse is on and xrx_rx cannot read the tags it strips (%s), so accelerated flows that differ only by VLAN are merged; write offload.rx_vlan = off, or remove the line",
			 x->ifname, conf->file, o->line,
			 vlan_why(x, conf));
		return false;
	}
	ctl_notice("%s: turning rx-vlan-hw-parse off while xrxd runs, so VLAN tags stay in the frame: xrx_rx cannot read the tags the NIC strips (%s); restored on stop",
		   x->ifname, vlan_why(x, conf));
	memset(rx_vlan, 0, sizeof(*rx_vlan));
	rx_vlan->set = true;
	rx_vlan->value = 0;
	return true;
}

int xrxd_prog_attach(struct xrxd *x)
{
	static const enum xrx_live_attach modes[] = {
		[XRX_CONF_ATTACH_AUTO] = XRX_LIVE_ATTACH_AUTO,
		[XRX_CONF_ATTACH_NATIVE] = XRX_LIVE_ATTACH_NATIVE,
		[XRX_CONF_ATTACH_SKB] = XRX_LIVE_ATTACH_SKB,
	};
	struct xrx_prog_opts po = {
		.sz = sizeof(po),
		.attach = modes[x->conf->attach],
		.pin_root = x->o->pin_root,
		.log = prog_log,
		.log_ctx = x,
	};

	int err;

	x->xdp.attaching = true;
	x->xdp.prog = xrx_prog__attach(x->ifname, &po);
	err = x->xdp.prog ? 0 : -errno;
	x->xdp.attaching = false;
	prog_log_outcome(x, err);
	if (err)
		return err;
	if (x->xdp.tags_readable && !xrx_prog__hw_meta(x->xdp.prog)) {
		/* Decided on before the offloads were applied: the policy is
		 * asked again (startup.c, vlan_after_attach()). */
		x->xdp.tags_readable = false;
		x->xdp.tags_lost = true;
	} else if (x->xdp.tags_readable) {
		ctl_info("%s: VLAN tags and RX hash read from the driver (XDP metadata kfuncs)",
			 x->ifname);
	}
	return 0;
}

/* Detach only our program, leave whatever else is there; drop the pins. */
void xrxd_prog_detach(struct xrxd *x)
{
	/* Its pin goes with the others. */
	if (x->stats.ustats_fd >= 0) {
		close(x->stats.ustats_fd);
		x->stats.ustats_fd = -1;
	}
	xrxd_stats_file_remove(x);
	xrx_prog__close(x->xdp.prog);
	x->xdp.prog = NULL;
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
	x->stats.ustats_fd = fd;
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
 * Make xrx_rules/xrx_ports/xrx_cfg say what @conf says, in place: rules
 * that went away are deleted, the others written (an LPM update replaces
 * a value atomically, and xrx_rules__update() keeps xrx_ports in step),
 * so traffic of an unchanged rule never sees a gap.
 */
int xrxd_rules_apply(struct xrxd *x, const struct xrx_conf *conf)
{
	struct xrx_cfg cfg = { .default_action = conf->default_action }, cur;
	struct xrx_rule_key *old, key, *prev = NULL;
	struct xrx_rule_val *vals, val;
	unsigned int inner[XRX_TNL_KINDS] = { 0 };
	unsigned int n = 0, ndel = 0, i, k;
	char text[96];
	int rules_fd = xrx_prog__map_fd(x->xdp.prog, XRX_PROG_MAP_RULES);
	__u32 zero = 0;
	int ret = 0;

	old = calloc(XRX_RULES_MAX, sizeof(*old));
	vals = calloc(XRX_RULES_MAX, sizeof(*vals));
	if (!old || !vals) {
		free(old);
		free(vals);
		return -ENOMEM;
	}
	while (n < XRX_RULES_MAX &&
	       !bpf_map_get_next_key(rules_fd, prev, &key)) {
		old[n] = key;
		prev = &old[n++];
	}
	/* The keys to delete, in place at the front of old[]. */
	for (i = 0; i < n; i++)
		if (!has_rule(conf, &old[i]))
			old[ndel++] = old[i];
	for (i = 0; i < conf->nrules; i++)
		vals[i] = (struct xrx_rule_val){ .action = XRX_ACT_ACCEL,
						 .id = i + 1 };
	ret = xrx_rules__update(rules_fd,
				xrx_prog__map_fd(x->xdp.prog,
						 XRX_PROG_MAP_PORTS),
				old, ndel, conf->rules, vals, conf->nrules);
	if (ret) {
		/* Name what did not take. */
		for (i = 0; i < ndel; i++) {
			if (bpf_map_lookup_elem(rules_fd, &old[i], &val))
				continue;
			xrx_rule_format(&old[i], text, sizeof(text));
			ctl_err("%s: cannot remove rule %s from xrx_rules: %s",
				x->ifname, text, strerror(-ret));
		}
		for (i = 0; i < conf->nrules; i++) {
			if (!bpf_map_lookup_elem(rules_fd, &conf->rules[i], &val) &&
			    !memcmp(&val, &vals[i], sizeof(val)))
				continue;
			xrx_rule_format(&conf->rules[i], text, sizeof(text));
			ctl_err("%s: cannot add rule %s to xrx_rules: %s",
				x->ifname, text, strerror(-ret));
		}
		ctl_err("%s: xrx_rules/xrx_ports: %s", x->ifname, strerror(-ret));
	}
	/* The tunnel ports, so xrx_rx counts VXLAN and GENEVE frames, and
	 * with a rule on the frame inside a tunnel the flag that makes it
	 * look inside. Every port the configuration may hold fits. */
	XRX_STATIC_ASSERT(XRX_VXLAN_PORTS_MAX == XRX_CFG_TNL_PORTS &&
				  XRX_GENEVE_PORTS_MAX == XRX_CFG_TNL_PORTS,
			  "xrx_cfg.tnl_ports holds every configured port");
	for (i = 0; i < conf->engine.nr_vxlan_ports; i++)
		cfg.vxlan_ports[i] = conf->engine.vxlan_ports[i];
	for (i = 0; i < conf->engine.nr_geneve_ports; i++)
		cfg.geneve_ports[i] = conf->engine.geneve_ports[i];
	for (i = 0; i < conf->nrules; i++)
		for (k = 0; k < XRX_TNL_KINDS; k++)
			inner[k] += conf->rules[i].scope ==
				    XRX_RULE_SCOPE_TNL(k);
	if (inner[XRX_TNL_K_VXLAN] || inner[XRX_TNL_K_GENEVE])
		cfg.flags |= XRX_CFG_F_INNER_RULES;
	/* The flow hash key stays: it was chosen at attach (rules.h). */
	if (!bpf_map_lookup_elem(xrx_prog__map_fd(x->xdp.prog,
						  XRX_PROG_MAP_CFG),
				 &zero, &cur))
		cfg.hash_key = cur.hash_key;
	if (bpf_map_update_elem(xrx_prog__map_fd(x->xdp.prog, XRX_PROG_MAP_CFG),
				&zero, &cfg, BPF_ANY)) {
		ret = -errno;
		ctl_err("%s: cannot write xrx_cfg: %s", x->ifname, strerror(errno));
	}
	free(old);
	free(vals);
	if (!ret) {
		x->xdp.nrules = conf->nrules;
		ctl_info("%s: %u accelerate rule%s, default %s", x->ifname,
			 conf->nrules, conf->nrules == 1 ? "" : "s",
			 conf->default_action == XRX_ACT_ACCEL ? "accel" : "pass");
		if (inner[XRX_TNL_K_VXLAN])
			ctl_info("%s: %u of the rules match the frame inside VXLAN (vxlan_ports)",
				 x->ifname, inner[XRX_TNL_K_VXLAN]);
		if (inner[XRX_TNL_K_GENEVE])
			ctl_info("%s: %u of the rules match the frame inside GENEVE (geneve_ports)",
				 x->ifname, inner[XRX_TNL_K_GENEVE]);
	}
	return ret;
}
