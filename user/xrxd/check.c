// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What xrxd can check of a config before it opens anything: the checks
 * --check-config, the start (exit 2, NIC untouched) and a reload (the
 * reason it failed) share, so that each says the same thing.
 *
 * For the sink and the tee alike, by what their kind writes to
 * (xrx_sink_ops.flags):
 * - A file's (pcap) directory exists and xrxd may write in it. access()
 *   answers for xrxd's own credentials, read-only mounts included
 *   (EROFS: the unit's ProtectSystem=strict leaves only the paths of
 *   ctl_unit.h writable). --check-config of an instance's config
 *   (XRX_CONF_DIR/NAME.conf, which xrxd@NAME reads) runs outside that
 *   sandbox, where access() says yes to /var/tmp or /srv: it checks the
 *   directory against the unit's writable paths (its drop-ins included)
 *   instead, and refuses /tmp, which is the unit's own (PrivateTmp=).
 *   A tee's file is no FIFO: a tee must never wait for a reader.
 * - A TUN/TAP name of a device that exists: it must be a TUN of that
 *   kind, or TUNSETIFF answers a bare EINVAL (tun_set_iff() takes an
 *   existing device only if its netdev_ops are the tun's or the tap's).
 * - Which instance a config file in XRX_CONF_DIR belongs to: the unit
 *   xrxd@NAME reads XRX_CONF_DIR/NAME.conf.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <linux/ethtool.h>
#include <linux/sockios.h>

#include <stdlib.h>

#include "ctl_log.h"
#include "ctl_offload.h"
#include "ctl_state.h"
#include "ctl_unit.h"
#include "xrxd.h"

/* Why a path the unit cannot write is so, and what to do. */
static const char *write_hint(int err)
{
	static char hint[PATH_MAX];
	char list[256];

	switch (err) {
	case EROFS:
		snprintf(hint, sizeof(hint),
			 " (a read-only file system: under xrxd@.service only %s are writable, ProtectSystem=strict; write a path in " XRX_CAPTURE_DIR ", or add the directory to ReadWritePaths= in a drop-in)",
			 xrx_unit_writable_list(list, sizeof(list)));
		return hint;
	case EACCES:
	case EPERM:
		return " (xrxd runs as root without CAP_DAC_OVERRIDE: the directory must be root's and writable by its owner)";
	default:
		return "";
	}
}

/*
 * @key: "sink" or "tee"; @path the file its kind (@kind, "pcap") writes,
 * as the kind's check() found it in the spec.
 */
static int check_file(const struct xrx_conf *c, const char *key,
		      const char *kind, const char *path, bool run, char *err,
		      size_t errlen)
{
	char dir[PATH_MAX], inst[IF_NAMESIZE], unit[80], list[512];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	dirname(dir);
	if (!run && xrxd_conf_instance(c->file, inst, sizeof(inst))) {
		xrx_unit_name(inst, unit, sizeof(unit));
		if (!strcmp(dir, "/tmp") || !strncmp(dir, "/tmp/", 5) ||
		    !strcmp(dir, "/var/tmp") || !strncmp(dir, "/var/tmp/", 9)) {
			snprintf(err, errlen,
				 "%s: %s = %s:%s, but %s has a /tmp and /var/tmp of its own (PrivateTmp=yes), removed when it stops: the capture would be lost; write it in " XRX_CAPTURE_DIR,
				 c->file, key, kind, path, unit);
			return -EACCES;
		}
		if (!xrx_unit_may_write(inst, dir, list, sizeof(list))) {
			snprintf(err, errlen,
				 "%s: %s = %s:%s, but %s cannot write in %s: its sandbox (ProtectSystem=strict) leaves only %s writable; write the capture in " XRX_CAPTURE_DIR ", or add the directory to ReadWritePaths= in a drop-in (systemctl edit %s)",
				 c->file, key, kind, path, unit, dir, list, unit);
			return -EROFS;
		}
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		/* The unit makes its runtime and state directories (and
		 * xrxd its runtime one). */
		if (!run && (!strcmp(dir, XRX_STATE_DIR) ||
			     !strcmp(dir, XRX_CAPTURE_DIR)))
			return 0;
		snprintf(err, errlen,
			 "%s: %s = %s:%s, but directory %s does not exist; create it or write another path",
			 c->file, key, kind, path, dir);
		return -ENOENT;
	}
	if (access(dir, W_OK | X_OK)) {
		snprintf(err, errlen,
			 "%s: %s = %s:%s, but xrxd cannot write in %s: %s%s",
			 c->file, key, kind, path, dir, strerror(errno),
			 write_hint(errno));
		return -EACCES;
	}
	if (!strcmp(key, "tee") && !stat(path, &st) && S_ISFIFO(st.st_mode)) {
		snprintf(err, errlen,
			 "%s: tee = %s:%s is a FIFO, whose reader could hold up the sink beside it; write the tee to a file",
			 c->file, kind, path);
		return -EINVAL;
	}
	/* A file or FIFO there already is opened for writing. */
	if (!access(path, F_OK) && access(path, W_OK)) {
		snprintf(err, errlen,
			 "%s: %s = %s:%s exists and xrxd cannot write it: %s%s",
			 c->file, key, kind, path, strerror(errno), write_hint(errno));
		return -EACCES;
	}
	return 0;
}

/*
 * @key's TUN/TAP device @name, of kind @kind ("tun", "tap": the bus_info
 * of its devices), @arg the spec after "KIND:".
 */
static int check_netdev(const struct xrx_conf *c, const char *key,
			const char *kind, const char *arg, const char *name,
			char *err, size_t errlen)
{
	struct ethtool_drvinfo di;

	if (!if_nametoindex(name))
		return 0;	/* xrxd creates it */
	/* Every TUN/TAP answers GDRVINFO (tun_get_drvinfo()); a device
	 * whose driver has no answer (lo, wireguard) is no TUN either. */
	if (xrxd_drvinfo(name, &di))
		di.driver[0] = '\0';
	if (strcmp(di.driver, "tun")) {
		snprintf(err, errlen,
			 "%s: %s = %s:%s, but %s exists and is not a %s device (driver %s), so the kernel refuses to attach to it (EINVAL); name a device that does not exist (xrxd creates it), or remove %s",
			 c->file, key, kind, arg, name, kind,
			 di.driver[0] ? di.driver : "unknown", name);
		return -EINVAL;
	}
	if (strcmp(di.bus_info, kind)) {
		snprintf(err, errlen,
			 "%s: %s = %s:%s, but %s is a %s device, not a %s one, so the kernel refuses to attach to it (EINVAL); write %s = %s:%s, or name another device",
			 c->file, key, kind, arg, name, di.bus_info, kind, key,
			 di.bus_info, arg);
		return -EINVAL;
	}
	return 0;
}

/*
 * @key's spec: what the kind's flags say it writes to (include/xrx/sink.h),
 * as the kind's own check() names it.
 */
static int check_output(const struct xrx_conf *c, const char *key,
			const char *spec, bool run, char *err, size_t errlen)
{
	const struct xrx_sink_ops *ops = xrx_sink__kind(spec);
	char out[PATH_MAX], msg[PATH_MAX + 128];
	const char *colon = strchr(spec, ':');

	if (!spec[0] || !ops)
		return 0;	/* no tee; the config parser knows the kinds */
	if (xrx_sink__check(spec, &c->sink_opts, out, sizeof(out), msg,
			    sizeof(msg))) {
		snprintf(err, errlen, "%s: %s = %s", c->file, key, msg);
		return -EINVAL;
	}
	if (!out[0])
		return 0;
	if (ops->flags & XRX_SINK_F_FILES)
		return check_file(c, key, ops->name, out, run, err, errlen);
	if (ops->flags & XRX_SINK_F_NETDEV)
		return check_netdev(c, key, ops->name, colon ? colon + 1 : "",
				    out, err, errlen);
	return 0;
}

int xrxd_sink_check(const struct xrx_conf *c, bool run, char *err,
		    size_t errlen)
{
	int ret;

	ret = check_output(c, "sink", c->sink, run, err, errlen);
	if (!ret)
		ret = check_output(c, "tee", c->tee, run, err, errlen);
	return ret;
}

const char *xrxd_conf_instance(const char *file, char *buf, size_t len)
{
	char copy[PATH_MAX], *base;
	size_t n;

	snprintf(copy, sizeof(copy), "%s", file);
	base = strrchr(copy, '/');
	if (!base)
		return NULL;
	*base++ = '\0';
	n = strlen(base);
	/* example.conf is the template to copy, not an instance's. */
	if (strcmp(copy, XRX_CONF_DIR) || n <= 5 ||
	    strcmp(base + n - 5, ".conf") || !strcmp(base, "example.conf"))
		return NULL;
	base[n - 5] = '\0';
	if (!xrx_ifname_valid(base))
		return NULL;
	snprintf(buf, len, "%s", base);
	return buf;
}

/*
 * Config checks that need the NIC, before anything changes: a failure is
 * a config error (exit 2) and the NIC is untouched.
 */
int xrxd_check_nic(struct xrxd *x, const struct xrx_nic *nic)
{
	const struct xrx_conf_offload *ch = &x->conf->offload[XRX_OFF_CHANNELS];
	const struct xrx_conf *c = x->conf;
	char err[2 * PATH_MAX];
	unsigned int have;

	if (c->queues) {
		if (nic->channels_err)
			have = 1;
		else if (ch->set && ch->value == XRX_CONF_VAL_MAX)
			have = nic->ch_max_combined + nic->ch_max_rx;
		else if (ch->set)
			have = ch->value;
		else
			have = nic->ch_combined + nic->ch_rx;
		if (c->queues > have) {
			ctl_err("%s: queues = %u, but %s has %u RX queue%s (ethtool -l %s); write queues = %u or all, or raise offload.channels",
				c->file, c->queues, x->ifname, have,
				have == 1 ? "" : "s", x->ifname, have);
			return EXIT_USAGE;
		}
	}
	if (c->queues > XRX_LIVE_QUEUES_MAX) {
		ctl_err("%s: queues = %u is more than the %u workers xrxd runs; write queues = %u or fewer",
			c->file, c->queues, XRX_LIVE_QUEUES_MAX, XRX_LIVE_QUEUES_MAX);
		return EXIT_USAGE;
	}
	if (xrxd_sink_check(c, true, err, sizeof(err))) {
		ctl_log_plain(CTL_LOG_ERR, err);
		return EXIT_USAGE;
	}
	return 0;
}

int xrxd_read_nic(struct xrxd *x, struct xrx_nic *nic)
{
	char err[1024];
	int ret;

	ret = xrx_nic_read(x->nl, x->ifname, nic, err, sizeof(err));
	if (ret)
		ctl_err("%s", err);
	return ret;
}
