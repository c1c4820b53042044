// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrxctl status and xrxctl rules: what a running xrxd has set up, read
 * from its pins (xrx_ustats, xrx_rules, xrx_cfg), from the kernel (which
 * XDP program is attached, in which mode) and from the state file (the
 * NIC settings as they were before xrxd changed them).
 *
 * The kernel and NIC parts are per network namespace: run xrxctl in the
 * daemon's (nsenter --net=...); the pins are global.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_link.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xrx/prog.h>

#include "ctl_conf.h"
#include "ctl_lock.h"
#include "ctl_log.h"
#include "ctl_offload.h"
#include "ctl_pins.h"
#include "ctl_reload.h"
#include "ctl_state.h"
#include "ctl_ustats.h"
#include "util/cli.h"
#include "xrxctl.h"

void xrxctl_json_str(const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if ((unsigned char)*s >= 0x20)
			putchar(*s);
	}
}

static bool denied(int err)
{
	return err == -EACCES || err == -EPERM;
}

void xrxctl_denied(const struct ctx *ctx, const char *path)
{
	ctl_err("permission denied reading %s as uid %u: xrxd's pins are root's; run xrxctl as root, or as a member of group %s, which reads the copy of the counters xrxd keeps in %s (docs/xrxd.md, Monitoring as a user)",
		path, (unsigned int)getuid(), XRX_STATS_GROUP, ctx->statedir);
}

int xrxctl_read(const struct ctx *ctx, const char *ifname,
		struct xrx_ustats *u, bool *have_u,
		struct xrx_counter k[XRX_STAT_MAX], bool *have_k)
{
	char err[512], path[PATH_MAX];
	int kfd, ufd, ret;

	*have_u = *have_k = false;
	memset(u, 0, sizeof(*u));
	memset(k, 0, XRX_STAT_MAX * sizeof(*k));
	kfd = xrx_pin_open(ctx->pin_root, ifname, "xrx_stats");
	if (kfd >= 0) {
		*have_k = !xrx_pin_read_stats(kfd, k);
		close(kfd);
	}
	ufd = xrx_pin_open(ctx->pin_root, ifname, XRX_USTATS_NAME);
	if (ufd >= 0) {
		if (xrx_ustats_read(ufd, u, err, sizeof(err)))
			ctl_warn("%s: %s", ifname, err);
		else
			*have_u = true;
		close(ufd);
	}
	if (!denied(kfd) && !denied(ufd))
		return 0;
	/* The pins are there but root's: the copy, if xrxd keeps one. */
	ret = xrx_ustats_file_read(ctx->statedir, ifname, u, k, err,
				   sizeof(err));
	if (!ret) {
		*have_u = *have_k = true;
		return 0;
	}
	if (ret == -EPROTO) {
		ctl_err("%s", err);
		return ret;
	}
	/* xrxd writes the copy from its start on: none in a state
	 * directory this user may look into is no xrxd. */
	if (ret == -ENOENT && !access(ctx->statedir, R_OK | X_OK))
		return 0;
	if (denied(ret) || ret == -ENOENT) {
		if (denied(ret))
			xrx_ustats_file_path(ctx->statedir, ifname, path,
					     sizeof(path));
		else
			xrx_pin_path(ctx->pin_root, ifname, XRX_USTATS_NAME,
				     path, sizeof(path));
		xrxctl_denied(ctx, path);
		return -EACCES;
	}
	ctl_err("%s: cannot read the counters: %s", ifname, strerror(-ret));
	return ret;
}

int xrxctl_ifaces(const struct ctx *ctx, const char *arg,
		  char (*names)[IF_NAMESIZE])
{
	char path[PATH_MAX], unit[80];
	int n, i, j, err;

	if (arg) {
		if (!xrx_ifname_valid(arg)) {
			fprintf(stderr, "xrxctl: '%s' is not a valid interface name; give it as 'ip link' shows it\n",
				arg);
			return -1;
		}
		xrx_pin_path(ctx->pin_root, arg, NULL, path, sizeof(path));
		if (access(path, F_OK)) {
			err = -errno;
			if (!denied(err)) {
				ctl_err("no xrxd on %s (no %s): start it with systemctl start %s",
					arg, path, xrx_unit_name(arg, unit, sizeof(unit)));
				return 0;
			}
			/* Not "no xrxd": its pins are root's. The copy in
			 * the state directory answers, or says why not. */
			xrx_ustats_file_path(ctx->statedir, arg, path,
					     sizeof(path));
			if (access(path, R_OK) && errno == ENOENT &&
			    !access(ctx->statedir, R_OK | X_OK)) {
				ctl_err("no xrxd on %s (no %s): start it with systemctl start %s",
					arg, path,
					xrx_unit_name(arg, unit, sizeof(unit)));
				return 0;
			}
			if (access(path, R_OK)) {
				if (errno == ENOENT)
					xrx_pin_path(ctx->pin_root, arg, NULL,
						     path, sizeof(path));
				xrxctl_denied(ctx, path);
				return 0;
			}
		}
		snprintf(names[0], IF_NAMESIZE, "%s", arg);
		return 1;
	}
	n = xrx_pin_ifaces(ctx->pin_root, names, XRXCTL_IFACES_MAX);
	if (denied(n)) {
		/* The instances that keep a copy where this user reads. */
		n = xrx_dir_ifaces(ctx->statedir, ".stats", names,
				   XRXCTL_IFACES_MAX);
		if (n <= 0) {
			xrxctl_denied(ctx, denied(n) ? ctx->statedir :
						       ctx->pin_root);
			return 0;
		}
		return n;
	}
	/* Only directories with something of xrx_rx's or xrxd's in them. */
	for (i = j = 0; i < n; i++) {
		if (xrx_pin_path(ctx->pin_root, names[i], "xrx_stats", path,
				 sizeof(path)) == 0 && access(path, F_OK) &&
		    xrx_pin_path(ctx->pin_root, names[i], XRX_USTATS_NAME, path,
				 sizeof(path)) == 0 && access(path, F_OK))
			continue;
		if (i != j)
			memcpy(names[j], names[i], IF_NAMESIZE);
		j++;
	}
	n = n < 0 ? n : j;
	if (n <= 0) {
		ctl_err("no xrxd running (nothing under %s): start one with systemctl start xrxd@IFACE",
			ctx->pin_root);
		return 0;
	}
	return n;
}

static const char *mode_name(__u8 mode)
{
	switch (mode) {
	case XDP_ATTACHED_DRV:
		return "native";
	case XDP_ATTACHED_SKB:
		return "skb";
	case XDP_ATTACHED_HW:
		return "hw";
	case XDP_ATTACHED_MULTI:
		return "multi";
	default:
		return "none";
	}
}

/* Each recorded NAPI instance's settings, original and now ("gone"). */
static void print_napis(const struct xrx_state *st, const struct xrx_nic *nic)
{
	unsigned int i, j, k;
	char name[48], now[24];

	for (i = 0; i < st->nnapi; i++) {
		for (j = 0; j < nic->nnapi; j++)
			if (nic->napi[j].id == st->napi[i].id)
				break;
		for (k = 0; k < XRX_NAPI_SETTING_MAX; k++) {
			if (!(st->napi[i].have & (1u << k)))
				continue;
			snprintf(name, sizeof(name), "napi %u %s", st->napi[i].id,
				 xrx_napi_setting_names[k]);
			if (j < nic->nnapi)
				snprintf(now, sizeof(now), "%llu",
					 nic->napi[j].value[k]);
			else
				snprintf(now, sizeof(now), "gone");
			printf("            %-34s %10llu %10s\n", name,
			       st->napi[i].value[k], now);
		}
	}
}

/* "feature rx-gro: off before xrxd, on now", and the sizes and counts. */
static void print_offloads(const struct ctx *ctx, const char *ifname)
{
	static const char *const size_names[XRX_SIZE_MAX] = {
		[XRX_SIZE_GSO] = "gso_max_size",
		[XRX_SIZE_GRO] = "gro_max_size",
		[XRX_SIZE_GSO_IPV4] = "gso_ipv4_max_size",
		[XRX_SIZE_GRO_IPV4] = "gro_ipv4_max_size",
	};
	const struct xrx_nic_feature *f;
	struct xrx_state *st = NULL;
	struct xrx_nic *nic = NULL;
	struct xrx_nl *nl = NULL;
	char err[1024];
	unsigned int i;
	int ret;

	st = calloc(1, sizeof(*st));
	nic = calloc(1, sizeof(*nic));
	if (!st || !nic)
		goto out;
	ret = xrx_state_read(ctx->statedir, ifname, st, err, sizeof(err));
	if (ret == -ENOENT) {
		printf("  offloads   none changed (no state file in %s)\n", ctx->statedir);
		goto out;
	}
	if (ret) {
		printf("  offloads   state file unusable: %s\n", err);
		goto out;
	}
	if (!st->nfeatures && !st->have && !st->nnapi) {
		printf("  offloads  none changed (the state file records no setting)\n");
		goto out;
	}
	if (xrx_nl_open(&nl, err, sizeof(err)) ||
	    xrx_nic_read(nl, ifname, nic, err, sizeof(err))) {
		printf("  offloads   cannot read %s now: %s\n", ifname, err);
		goto out;
	}
	printf("  offloads   %-34s %10s %10s\n", "setting", "original", "now");
	for (i = 0; i < st->nfeatures; i++) {
		f = xrx_nic_feature(nic, st->features[i].name);
		printf("            %-34s %10s %10s\n", st->features[i].name,
		       st->features[i].on ? "on" : "off",
		       !f ? "?" : f->wanted ? "on" : "off");
	}
	for (i = 0; i < XRX_SIZE_MAX; i++)
		if (st->have & XRX_HAVE_SIZE(i))
			printf("            %-34s %10u %10u\n", size_names[i],
			       st->size[i], nic->size[i]);
	if (st->have & XRX_HAVE_RX_RING)
		printf("            %-34s %10u %10u\n", "rx_ring", st->rx_ring,
		       nic->rx_ring);
	if (st->have & XRX_HAVE_TCP_DATA_SPLIT)
		printf("            %-34s %10u %10u\n", "tcp_data_split",
		       st->tcp_data_split, nic->tcp_data_split);
	if (st->have & XRX_HAVE_CH_RX)
		printf("            %-34s %10u %10u\n", "channels_rx", st->ch_rx,
		       nic->ch_rx);
	if (st->have & XRX_HAVE_CH_TX)
		printf("            %-34s %10u %10u\n", "channels_tx", st->ch_tx,
		       nic->ch_tx);
	if (st->have & XRX_HAVE_CH_COMBINED)
		printf("            %-34s %10u %10u\n", "channels_combined",
		       st->ch_combined, nic->ch_combined);
	print_napis(st, nic);
out:
	xrx_nl_close(nl);
	free(st);
	free(nic);
}

/* The last reload of the xrxd with @pid, if it has reloaded. */
static void print_reload(const struct ctx *ctx, const char *ifname, pid_t pid)
{
	struct xrx_reload *r;
	char err[1024], when[64];
	struct tm tm;
	time_t t;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r)
		return;
	ret = xrx_reload_read(ctx->statedir, ifname, r, err, sizeof(err));
	if (ret == -ENOENT || (!ret && r->pid != pid)) {
		printf("  reload    none since xrxd started\n");
		goto out;
	}
	if (ret) {
		printf("  reload    outcome unreadable: %s\n", err);
		goto out;
	}
	t = (time_t)(r->finished_ns / 1000000000ull);
	if (!localtime_r(&t, &tm) ||
	    !strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", &tm))
		snprintf(when, sizeof(when), "%llu", (unsigned long long)t);
	if (r->ok)
		printf("  reload    ok at %s (reload %llu)%s%s\n", when,
		       (unsigned long long)r->generation,
		       r->reason[0] ? ", but " : "", r->reason);
	else
		printf("  reload    FAILED at %s (reload %llu), the configuration before it runs on: %s\n",
		       when, (unsigned long long)r->generation, r->reason);
out:
	free(r);
}

/* One "state DEGRADED" line per reason xrxd set (ctl_ustats.h). */
static void print_degraded(const struct xrx_ustats *u)
{
	__u64 why = u->hdr[XRX_USTATS_DEGRADED_REASONS];
	int r;

	for (r = 0; r < XRX_DEGRADED_MAX; r++) {
		if (!(why & (1ull << r)))
			continue;
		if (r == XRX_DEGRADED_CSUM_PARTIAL)
			printf("  state     DEGRADED: %llu frames with partial checksums refused (a sender's TX checksum offload): the stack behind the sink drops them and those connections hang; turn the offload off on the sender (ethtool -K PEER tx off) or set csum_partial = accept\n",
			       (unsigned long long)u->engine[XRX_ENGINE_STAT_SINGLE_CSUM_PARTIAL]);
		else if (r == XRX_DEGRADED_NO_SOCKETS)
			printf("  state     DEGRADED: no AF_XDP sockets (%llu failed open%s); xrx_rx passes the traffic to the kernel (pass_no_socket) and xrxd keeps retrying\n",
			       (unsigned long long)u->hdr[XRX_USTATS_BIND_FAILURES],
			       u->hdr[XRX_USTATS_BIND_FAILURES] == 1 ? "" : "s");
		else
			printf("  state     DEGRADED: %s\n", xrx_degraded__desc(r));
	}
}

/*
 * One "off" line per feature xrxd does without because the kernel lacks
 * it (xrxctl runs on the same kernel, so it names its release).
 */
static void print_kernel_lacks(const struct xrx_ustats *u)
{
	__u64 lacks = u->hdr[XRX_USTATS_KERNEL_LACKS];
	char why[512];
	int f;

	for (f = 0; f < XRX_KERNEL_FEATURE_MAX; f++) {
		if (!(lacks & (1ull << f)) ||
		    xrx_kernel__explain(f, why, sizeof(why)))
			continue;
		printf("  off       %s: %s\n", xrx_kernel__feature_name(f), why);
	}
}

static int status_one(const struct ctx *ctx, const char *ifname)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct xrx_counter k[XRX_STAT_MAX];
	bool running = true, have_u, have_k;
	struct xrx_ustats u;
	unsigned int ifindex;
	char unit[80];
	int err, ret = 0;
	pid_t holder;
	__u64 pid;

	err = xrxctl_read(ctx, ifname, &u, &have_u, k, &have_k);
	if (err)
		return 1;	/* said why: never "not running" for that */
	printf("%s:\n", ifname);
	pid = u.hdr[XRX_USTATS_PID];
	ifindex = if_nametoindex(ifname);
	/* The lock is the device's: after a rename, the one xrxd noted. */
	holder = xrx_lock_holder(ifindex ? (int)ifindex :
					   (int)u.hdr[XRX_USTATS_IFINDEX]);
	if (holder)
		printf("  xrxd      running, pid %d\n", (int)holder);
	else if (pid && (kill((pid_t)pid, 0) == 0 || errno == EPERM))
		printf("  xrxd      running, pid %llu (no lock in %s)\n",
		       (unsigned long long)pid, ctx->statedir);
	else {
		printf("  xrxd      not running%s; start it with systemctl start %s\n",
		       pid ? " (its pins are left over: xrxctl restore clears them)" : "",
		       xrx_unit_name(ifname, unit, sizeof(unit)));
		running = false;
		ret = 1;
	}
	if (!ifindex) {
		printf("  program   unknown: %s is not in this network namespace (run xrxctl there: nsenter --net=...)\n",
		       ifname);
	} else if (bpf_xdp_query((int)ifindex, 0, &q)) {
		printf("  program   cannot query: %s\n", strerror(errno));
	} else if (!q.prog_id && !q.drv_prog_id && !q.skb_prog_id) {
		printf("  program   none attached\n");
		ret = 1;
	} else {
		__u32 id = q.prog_id ? q.prog_id : q.drv_prog_id ? q.drv_prog_id : q.skb_prog_id;

		__u32 ours = (__u32)u.hdr[XRX_USTATS_PROG_ID];

		printf("  program   id %u attached in %s mode%s\n", id,
		       mode_name(q.attach_mode),
		       !pid ? "" : id == ours ? " (xrxd's xrx_rx)" :
		       xrx_xdp_behind_dispatcher((int)ifindex, ours) ?
		       " (libxdp's dispatcher, xrxd's xrx_rx behind it)" :
		       " (NOT the xrx_rx xrxd attached)");
	}
	printf("  pins      %s/%s\n", ctx->pin_root, ifname);
	if (pid && !running)
		printf("  state     stopped: xrxd (pid %llu) ended without cleaning up (killed?); the last counters it wrote are in xrxctl stats %s, and xrxctl restore %s detaches its program and puts the NIC back\n",
		       (unsigned long long)pid, ifname, ifname);
	if (pid && running) {
		if (!u.hdr[XRX_USTATS_QUEUES]) {
			printf("  queues    none with an AF_XDP socket, MTU %llu\n",
			       (unsigned long long)u.hdr[XRX_USTATS_MTU]);
		} else {
			printf("  queues    %llu (%llu-%llu), %s%s, MTU %llu\n",
			       (unsigned long long)u.hdr[XRX_USTATS_QUEUES],
			       (unsigned long long)u.hdr[XRX_USTATS_FIRST_QUEUE],
			       (unsigned long long)(u.hdr[XRX_USTATS_FIRST_QUEUE] +
						    u.hdr[XRX_USTATS_QUEUES] - 1),
			       u.hdr[XRX_USTATS_ZEROCOPY_QUEUES] == u.hdr[XRX_USTATS_QUEUES] &&
			       u.hdr[XRX_USTATS_QUEUES] ? "zero-copy" :
			       u.hdr[XRX_USTATS_ZEROCOPY_QUEUES] ? "partly zero-copy" : "copy mode",
			       u.hdr[XRX_USTATS_MULTI_BUFFER_QUEUES] ? ", multi-buffer" : "",
			       (unsigned long long)u.hdr[XRX_USTATS_MTU]);
		}
		printf("  rules     %llu (xrxctl rules %s), %llu reload%s, %llu swap%s in place, %llu socket reopen%s\n",
		       (unsigned long long)u.hdr[XRX_USTATS_RULES], ifname,
		       (unsigned long long)u.hdr[XRX_USTATS_RELOADS],
		       u.hdr[XRX_USTATS_RELOADS] == 1 ? "" : "s",
		       (unsigned long long)u.hdr[XRX_USTATS_LIVE_SWAPS],
		       u.hdr[XRX_USTATS_LIVE_SWAPS] == 1 ? "" : "s",
		       (unsigned long long)u.hdr[XRX_USTATS_WORKER_RESTARTS],
		       u.hdr[XRX_USTATS_WORKER_RESTARTS] == 1 ? "" : "s");
		print_kernel_lacks(&u);
		if (u.hdr[XRX_USTATS_DEGRADED])
			print_degraded(&u);
		else if (u.hdr[XRX_USTATS_STUCK_WORKERS])
			printf("  state     STUCK: %llu worker%s not going round the receive loop (blocked in the sink? a FIFO nobody reads, a wedged TUN)\n",
			       (unsigned long long)u.hdr[XRX_USTATS_STUCK_WORKERS],
			       u.hdr[XRX_USTATS_STUCK_WORKERS] == 1 ? "" : "s");
		else
			printf("  state     ok: every worker running\n");
		if (u.engine[XRX_ENGINE_STAT_CSUM_PARTIAL] &&
		    !u.engine[XRX_ENGINE_STAT_SINGLE_CSUM_PARTIAL])
			printf("  checksums %llu segments with partial checksums (the sender's TX offload) taken unverified, as the kernel takes them from a veth or tun; ethtool -K PEER tx off on the sender has them verified\n",
			       (unsigned long long)u.engine[XRX_ENGINE_STAT_CSUM_PARTIAL]);
		print_reload(ctx, ifname, holder ? holder : (pid_t)pid);
	}
	if (ifindex)
		print_offloads(ctx, ifname);
	return ret;
}

static const struct cli_opt status_opts[] = {
	CLI_OPT_HELP,
	CLI_OPT_END,
};

static const struct cli_cmd status_cli = {
	.name = "xrxctl status",
	.usage = "xrxctl: usage: xrxctl status [IFACE]\n",
	.opts = status_opts,
	.on_error = CLI_ERR_HELP,
};

int cmd_status(const struct ctx *ctx, int argc, char **argv)
{
	char (*names)[IF_NAMESIZE];
	int n, i, ret = 0;
	bool json = false;

	i = xrxctl_sub_args(&status_cli, argc, argv, &json, &ret);
	if (i < 0)
		return ret;
	argc -= i;
	argv += i;
	if (argc > 1) {
		cli_help(&status_cli, stderr);
		return EXIT_USAGE;
	}
	names = calloc(XRXCTL_IFACES_MAX, IF_NAMESIZE);
	if (!names)
		return 1;
	n = xrxctl_ifaces(ctx, argc ? argv[0] : NULL, names);
	if (n <= 0) {
		free(names);
		return n < 0 ? EXIT_USAGE : 1;
	}
	for (i = 0; i < n; i++)
		ret |= status_one(ctx, names[i]);
	free(names);
	return ret;
}

struct rule_row {
	struct xrx_rule_key key;
	struct xrx_rule_val val;
};

static int cmp_rows(const void *a, const void *b)
{
	const struct rule_row *x = a, *y = b;

	return x->val.id < y->val.id ? -1 : x->val.id > y->val.id;
}

static int rules_one(const struct ctx *ctx, const char *ifname, bool json,
		     int *shown)
{
	struct xrx_rule_key key, *prev = NULL;
	struct rule_row *rows;
	struct xrx_cfg cfg = { 0 };
	char text[96], unit[80];
	int rfd, cfd, n = 0, i, ret = 1;
	__u32 zero = 0;

	rfd = xrx_pin_open(ctx->pin_root, ifname, "xrx_rules");
	cfd = xrx_pin_open(ctx->pin_root, ifname, "xrx_cfg");
	rows = calloc(XRX_RULES_MAX, sizeof(*rows));
	if (rfd == -EACCES || rfd == -EPERM) {
		/* not in the copy xrxd keeps for group xrx: root's alone */
		ctl_err("permission denied reading %s/%s/xrx_rules as uid %u: the rules are in xrxd's pins, which are root's; run xrxctl rules as root",
			ctx->pin_root, ifname, (unsigned int)getuid());
		goto out;
	}
	if (rfd < 0 || cfd < 0 || !rows) {
		ctl_err("no xrxd on %s: xrx_rules/xrx_cfg not pinned in %s/%s; start it with systemctl start %s",
			ifname, ctx->pin_root, ifname,
			xrx_unit_name(ifname, unit, sizeof(unit)));
		goto out;
	}
	bpf_map_lookup_elem(cfd, &zero, &cfg);
	while (n < XRX_RULES_MAX && !bpf_map_get_next_key(rfd, prev, &key)) {
		rows[n].key = key;
		if (bpf_map_lookup_elem(rfd, &key, &rows[n].val))
			memset(&rows[n].val, 0, sizeof(rows[n].val));
		prev = &rows[n++].key;
	}
	qsort(rows, (size_t)n, sizeof(*rows), cmp_rows);
	if (json) {
		printf("%s{\"interface\":\"", *shown ? "," : "");
		xrxctl_json_str(ifname);
		printf("\",\"default\":\"%s\",\"rules\":[",
		       cfg.default_action == XRX_ACT_ACCEL ? "accel" : "pass");
	} else {
		printf("%s: default %s, %d rule%s\n", ifname,
		       cfg.default_action == XRX_ACT_ACCEL ? "accel" : "pass", n,
		       n == 1 ? "" : "s");
	}
	for (i = 0; i < n; i++) {
		if (xrx_rule_format(&rows[i].key, text, sizeof(text)))
			snprintf(text, sizeof(text), "?");
		if (json)
			printf("%s{\"id\":%u,\"action\":\"%s\",\"rule\":\"%s\"}",
			       i ? "," : "", rows[i].val.id,
			       rows[i].val.action == XRX_ACT_ACCEL ? "accel" : "pass",
			       text);
		else
			printf("  %4u  %-5s  %s\n", rows[i].val.id,
			       rows[i].val.action == XRX_ACT_ACCEL ? "accel" : "pass",
			       text);
	}
	if (json)
		printf("]}");
	(*shown)++;
	ret = 0;
out:
	if (rfd >= 0)
		close(rfd);
	if (cfd >= 0)
		close(cfd);
	free(rows);
	return ret;
}

static const struct cli_opt rules_opts[] = {
	CLI_OPT("json", CLI_KEY, NULL, "as JSON"),
	CLI_OPT_HELP,
	CLI_OPT_END,
};

static const struct cli_cmd rules_cli = {
	.name = "xrxctl rules",
	.usage = "xrxctl: usage: xrxctl rules [IFACE] [--json]\n",
	.opts = rules_opts,
	.on_error = CLI_ERR_HELP,
};

int cmd_rules(const struct ctx *ctx, int argc, char **argv)
{
	char (*names)[IF_NAMESIZE];
	const char *arg = NULL;
	bool json = false;
	int n, i, ret = 0, shown = 0;

	i = xrxctl_sub_args(&rules_cli, argc, argv, &json, &ret);
	if (i < 0)
		return ret;
	if (argc - i > 1) {
		cli_help(&rules_cli, stderr);
		return EXIT_USAGE;
	}
	if (argc - i == 1)
		arg = argv[i];
	names = calloc(XRXCTL_IFACES_MAX, IF_NAMESIZE);
	if (!names)
		return 1;
	n = xrxctl_ifaces(ctx, arg, names);
	if (n <= 0) {
		free(names);
		return n < 0 ? EXIT_USAGE : 1;
	}
	if (json && !arg)
		printf("[");
	for (i = 0; i < n; i++)
		ret |= rules_one(ctx, names[i], json, &shown);
	if (json)
		printf("%s\n", arg ? "" : "]");
	free(names);
	return ret;
}
