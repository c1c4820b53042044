// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrx_rx: classify a received frame and steer it to the queue's AF_XDP
 * socket (accelerated) or to the kernel (everything else).
 *
 * Needs nothing beyond ETH_HLEN in the linear area. The headers are
 * parsed by the same code libxrx uses (include/xrx/parse.h), in place
 * when the linear area holds them (every read checked against data_end),
 * and otherwise from a copy of the first XRX_PARSE_WINDOW bytes made with
 * bpf_xdp_load_bytes(), which reads across fragments. The copy costs
 * about as much as the rest of the program, so only frames whose headers
 * cross into a fragment pay it; parse_linear and parse_copy count which
 * way each frame went.
 *
 * Verdicts, in this order:
 *   not IP / not TCP-UDP / fragment  -> XDP_PASS (the host keeps working)
 *   malformed or headers too long    -> XDP_PASS, counted; the kernel's
 *                                       own checks drop or handle it
 *   UDP to a VXLAN or GENEVE port,   -> that rule's action (counted in
 *   an inner rule matching the          vxlan_inner_rule or
 *   inner frame                         geneve_inner_rule); see below
 *   no rule and default pass         -> XDP_PASS
 *   accelerated                      -> xrx_meta in front of the data,
 *                                       bpf_redirect_map(xrx_xsks, queue),
 *                                       XDP_PASS if no socket is bound
 *
 * The rules (include/xrx/rules.h) are asked through xrx_ports first, one
 * array read by destination port that decides wherever no address
 * prefix can; only where one can does the frame take the xrx_rules trie
 * (its port, then any port), so most frames make no trie lookup.
 *
 * The flow hash is computed for accelerated frames only, after the rule
 * lookup (the parse leaves it out): a frame passed to the kernel needs
 * none. It is keyed with xrx_cfg's hash_key, a secret chosen at attach.
 *
 * Built three times from this source. build/xrx_rx.bpf.o is the plain
 * program that xdp-loader and libxdp's dispatcher load.
 * build/xrx_rx_compat.bpf.o (XRX_RX_COMPAT) is the same program for
 * kernels without bpf_cast_to_kern_ctx() (6.1; see frame_len()); libxrx
 * loads it where the kernel's BTF lacks that kfunc. build/xrx_rx_hw.bpf.o
 * (XRX_RX_HW_META) also asks the driver, through the XDP metadata kfuncs,
 * for the VLAN tag it took out of the frame and for its RX hash, which,
 * when it covers the ports, is the flow hash instead of xrx_flow_hash();
 * the kernel loads callers of these kfuncs only device-bound (prog_ifindex,
 * BPF_F_XDP_DEV_BOUND_ONLY), which the stock loaders do not do, so libxrx
 * loads that build itself and attaches it in native mode.
 * build/xrx_rx_chain.bpf.o (XRX_RX_COMPAT and XRX_RX_NO_META) writes no
 * xrx_meta, so it calls no helper that changes packet data: since Linux
 * 6.13 (and Debian's 6.12) the kernel refuses an extension that does
 * ("Extension program changes packet data, while original does not") in
 * place of a function that does not, and the slots of libxdp's
 * dispatcher before xdp-tools 1.5.5 do not. That build is the one
 * xdp-loader can chain there; its redirected frames carry no metadata
 * (the engine parses them itself).
 *
 * Tunnels: a UDP frame to one of xrx_cfg's tnl_ports (vxlan_ports,
 * geneve_ports; outer IPv4, or IPv6 without extension headers, as the
 * engine takes them) is counted in vxlan or geneve. With
 * XRX_CFG_F_INNER_RULES set, its inner frame is parsed by
 * include/xrx/parse_tunnel.h from a copy of the window and, when it is
 * TCP/UDP, looked up in the rules of its kind's scope,
 * XRX_RULE_SCOPE_TNL(kind); the outer rules decide otherwise. One
 * subprogram parses every kind (parse_tnl_copy()). The metadata always
 * describes the outer headers: the engine parses the tunnel itself.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_core_read.h>
#include <xdp/xdp_helpers.h>

#include <xrx/meta.h>
#include <xrx/parse.h>
#include <xrx/parse_tunnel.h>
#include <xrx/rules.h>
#include <xrx/stats.h>

#if defined(XRX_RX_COMPAT) && defined(XRX_RX_HW_META)
#error "the metadata kfuncs came after bpf_cast_to_kern_ctx(): no compat device-bound build"
#endif

#if defined(XRX_RX_NO_META) && defined(XRX_RX_HW_META)
#error "the device-bound build writes the NIC's metadata: no XRX_RX_NO_META"
#endif

#define XRX_MAX_QUEUES 256

struct xrx_scratch {
	__u8 buf[XRX_TNL_SCRATCH];	/* the outer parse needs XRX_PARSE_SCRATCH */
};

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, XRX_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xrx_xsks SEC(".maps");

/*
 * One entry whose value names every counter (include/xrx/stats.h), so
 * `bpftool map dump` explains itself; the key is a plain __u32 because the
 * kernel accepts only an integer BTF key for arrays (array_map_check_btf()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xrx_stats);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xrx_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, XRX_RULES_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct xrx_rule_key);
	__type(value, struct xrx_rule_val);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xrx_rules SEC(".maps");

/*
 * Port -> verdict where no address decides (include/xrx/rules.h).
 * Mappable: its one writer reads and writes 65536 entries as memory
 * (user/lib/afxdp/rules.c).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, XRX_PORTS_MAX);
	__type(key, __u32);
	__type(value, struct xrx_port_val);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xrx_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xrx_cfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xrx_cfg SEC(".maps");

/* Per-CPU parse window; a map value because the BPF stack is 512 bytes. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xrx_scratch);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} xrx_scratch SEC(".maps");

/*
 * Benchmark builds only (scripts/bench/xdp_bench.c, the Makefile's
 * build/bench/xrx_rx_b_*.bpf.o): XRX_RX_BENCH stops the program after a
 * stage and redirects, so that two cuts differ by that stage's cost, and
 * reuses the metadata area a previous run of BPF_PROG_TEST_RUN's repeat
 * loop left (the loop reuses one xdp_buff, where bpf_xdp_adjust_meta()
 * fails from the second run on), so the metadata and the flow hash are
 * measured as every live frame pays them. Product builds leave it
 * undefined: no code.
 */
#define XRX_BENCH_PARSE 1	/* parsed, counted; no rule looked up */
#define XRX_BENCH_RULES 2	/* and the verdict; no metadata */
#define XRX_BENCH_NOHASH 3	/* and the metadata but its hash */
#define XRX_BENCH_FULL 4	/* the whole program */
#ifdef XRX_RX_BENCH
#define XRX_BENCH_STOP(stage, ctx)                                            \
	do {                                                                  \
		if (XRX_RX_BENCH == (stage))                                  \
			return bpf_redirect_map(&xrx_xsks,                    \
						(ctx)->rx_queue_index, XDP_PASS); \
	} while (0)
#define XRX_BENCH_REUSE_META 1
#else
#define XRX_BENCH_STOP(stage, ctx) do { } while (0)
#define XRX_BENCH_REUSE_META 0
#endif

/*
 * The frame's length. A helper call costs xrx_rx more than its whole
 * header parse (10-15 ns in BPF_PROG_TEST_RUN, on a kernel whose returns
 * go through a return thunk), and only a multi-buffer frame needs one:
 * bpf_xdp_get_buff_len() is the linear length plus the fragments' when
 * the xdp_buff has them (xdp_get_buff_len(), include/net/xdp.h). The
 * kernel's xdp_buff says which, through bpf_cast_to_kern_ctx(), a kfunc
 * the verifier turns into a register move (fixup_kfunc_call(), 6.2+);
 * its flags are read by CO-RE, as the running kernel lays them out.
 *
 * XRX_RX_COMPAT (build/xrx_rx_compat.bpf.o) is for kernels without that
 * kfunc (Debian 12's 6.1): libbpf refuses to load an object whose kfunc
 * the kernel's BTF lacks (-ESRCH), so that build asks the helper for
 * every frame, and needs neither kernel BTF nor any kfunc.
 */
#ifdef XRX_RX_COMPAT
static __always_inline __u32 frame_len(struct xdp_md *ctx, __u32 linear)
{
	return bpf_xdp_get_buff_len(ctx);
}
#else
extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;

struct xdp_buff___xrx {
	__u32 flags;
} __attribute__((preserve_access_index));

enum xdp_buff_flags___xrx {
	XDP_FLAGS_HAS_FRAGS___xrx = 1,
};

static __always_inline __u32 frame_len(struct xdp_md *ctx, __u32 linear)
{
	struct xdp_buff___xrx *xdp = bpf_cast_to_kern_ctx(ctx);

	if (!(xdp->flags & bpf_core_enum_value(enum xdp_buff_flags___xrx,
					       XDP_FLAGS_HAS_FRAGS___xrx)))
		return linear;
	return bpf_xdp_get_buff_len(ctx);
}
#endif

/* libxdp dispatcher: run early, and let the next program see what we pass. */
struct {
	__uint(priority, 10);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(xrx_rx);

static __always_inline void count(struct xrx_stats *st, enum xrx_stat stat,
				  __u32 bytes)
{
	struct xrx_counter *c;

	if (stat >= XRX_STAT_MAX)
		return;
	c = xrx_stats_at(st, stat);
	c->packets++;
	c->bytes += bytes;
}

/* The rule of @scope for a parsed TCP/UDP frame: its port, then any port. */
static __always_inline struct xrx_rule_val *rule_lookup(const struct xrx_parsed *r,
							__u8 scope)
{
	struct xrx_rule_key key = {
		.prefixlen = XRX_RULE_PREFIX_BASE + 128,
		.proto = r->l4_proto,
		.scope = scope,
		.port = bpf_htons(r->dport),
	};
	struct xrx_rule_val *val;

	__builtin_memcpy(key.addr, r->daddr, sizeof(key.addr));
	val = bpf_map_lookup_elem(&xrx_rules, &key);
	if (!val) {
		key.port = 0;
		val = bpf_map_lookup_elem(&xrx_rules, &key);
	}
	return val;
}

/*
 * What the rules of @scope say for a parsed TCP/UDP frame: xrx_ports'
 * verdict for its port, and where that is XRX_PORT_LPM (an address
 * decides, or the table was not filled) the rule rule_lookup() finds.
 * Return: an enum xrx_port_verdict other than XRX_PORT_LPM.
 */
static __always_inline int rule_verdict(const struct xrx_parsed *r, __u32 scope)
{
	struct xrx_port_val *pv;
	struct xrx_rule_val *val;
	__u32 port = r->dport;
	int v = XRX_PORT_LPM;

	pv = bpf_map_lookup_elem(&xrx_ports, &port);
	if (pv && scope < XRX_RULE_SCOPES)	/* column scope * 2 (+1: UDP) */
		v = ((const enum xrx_port_verdict *)pv)[scope * 2 +
							 (r->l4_proto != 6)];
	if (v != XRX_PORT_LPM)
		return v;
	val = rule_lookup(r, scope);
	if (!val)
		return XRX_PORT_DEFAULT;
	return val->action == XRX_ACT_ACCEL ? XRX_PORT_ACCEL : XRX_PORT_PASS;
}

/* Return: an enum xrx_action for the parsed TCP/UDP frame. */
static __always_inline __u32 rule_action(const struct xrx_parsed *r,
					 const struct xrx_cfg *cfg,
					 enum xrx_stat *why)
{
	switch (rule_verdict(r, XRX_RULE_SCOPE_OUTER)) {
	case XRX_PORT_ACCEL:
		return XRX_ACT_ACCEL;
	case XRX_PORT_PASS:
		*why = XRX_STAT_PASS_EXCLUDED;
		return XRX_ACT_PASS;
	}
	*why = XRX_STAT_PASS_NO_RULE;
	return cfg ? cfg->default_action : XRX_ACT_PASS;
}

/* The tunnel kind whose xrx_cfg ports hold @port (host order), or -1. */
static __always_inline int tnl_port(const struct xrx_cfg *cfg, __u16 port)
{
	int k, i;

	if (!port)
		return -1;
XRX_UNROLL
	for (k = 0; k < XRX_TNL_KINDS; k++)
XRX_UNROLL
		for (i = 0; i < XRX_CFG_TNL_PORTS; i++)
			if (cfg->tnl_ports[k][i] == port)
				return k;
	return -1;
}

#ifdef XRX_RX_HW_META
/* The kernel's enum; only its kind and size matter for the kfunc match. */
enum xdp_rss_hash_type {
	XRX_RSS_L4 = 1 << 3,	/* XDP_RSS_L4: the hash covers the ports */
};

extern int bpf_xdp_metadata_rx_hash(const struct xdp_md *ctx, __u32 *hash,
				    enum xdp_rss_hash_type *rss_type) __ksym;
extern int bpf_xdp_metadata_rx_vlan_tag(const struct xdp_md *ctx,
					__be16 *vlan_proto,
					__u16 *vlan_tci) __ksym;
extern int bpf_xdp_metadata_rx_timestamp(const struct xdp_md *ctx,
					 __u64 *timestamp) __ksym;

/*
 * 1: the NIC's L4 hash replaces xrx_flow_hash(). 0: hash in software
 * anyway (to measure what the NIC's hash saves). Set by the loader
 * (xrx_prog_opts.no_hw_hash) before the program is loaded, so the
 * verifier sees a constant and drops the branch not taken.
 */
const volatile __u8 xrx_use_nic_hash = 1;

/*
 * What the driver knows and the frame no longer shows. A stripped tag is
 * flow identity (gro_list_prepare() compares vlan_all), so it goes into
 * xrx_meta. -ENODATA: no tag on this frame, which is an answer too
 * (XRX_META_F_HW_META); -EOPNOTSUPP: the driver has no such op. The NIC's
 * hash replaces ours only when it covers the ports (enum xrx_hash_type).
 * The NIC's RX timestamp goes into rx_ts as it is (its own clock;
 * userspace moves it onto CLOCK_REALTIME); a driver without one, or
 * a frame it did not stamp, leaves the 0 that xrx_meta_fill() wrote
 * (veth answers 0 unless the skb it forwards carries a hardware stamp).
 * Return: 1 if m->hash is the NIC's, 0 if xrx_rx must compute it.
 */
static __always_inline int read_hw_meta(struct xdp_md *ctx,
					struct xrx_meta *m)
{
	enum xdp_rss_hash_type type = 0;
	__u16 tci = 0;
	__be16 proto = 0;
	__u32 hash = 0;
	__u64 ts = 0;
	int err;

	if (!bpf_xdp_metadata_rx_timestamp(ctx, &ts))
		m->rx_ts = ts;

	err = bpf_xdp_metadata_rx_vlan_tag(ctx, &proto, &tci);
	if (!err) {
		m->vlan_tci = tci;
		m->vlan_proto = bpf_ntohs(proto);
		m->flags |= XRX_META_F_HW_VLAN;
	}
	if (!err || err == -61 /* ENODATA */)
		m->flags |= XRX_META_F_HW_META;
	if (!xrx_use_nic_hash ||
	    bpf_xdp_metadata_rx_hash(ctx, &hash, &type) || !(type & XRX_RSS_L4))
		return 0;
	m->hash = hash;
	m->hash_type = XRX_HASH_HW_L4;
	return 1;
}
#endif

/*
 * Return: -1 if there is no room for xrx_meta; else it is written in front
 * of the data, and the return is 1 if its hash is the NIC's L4 hash, 0 if
 * computed here (for accelerated frames only: the parse leaves it out),
 * with xrx_cfg's key (include/xrx/hash.h).
 */
static __always_inline int write_meta(struct xdp_md *ctx,
				      const struct xrx_parsed *r,
				      const struct xrx_cfg *cfg)
{
	struct xrx_meta *m;
	void *data;
	int nic_hash = 0;

#ifdef XRX_RX_NO_META
	/* xrx_rx_chain: bpf_xdp_adjust_meta() must not be in the program at
	 * all (the kernel's check is on the code, not on what runs). */
	return 0;
#endif
	if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(*m)) && !XRX_BENCH_REUSE_META)
		return -1;
	data = (void *)(long)ctx->data;
	m = (void *)(long)ctx->data_meta;
	if ((void *)(m + 1) > data)
		return -1;
	xrx_meta_fill(m, r);
#ifdef XRX_RX_HW_META
	nic_hash = read_hw_meta(ctx, m);
#endif
#if !defined(XRX_RX_BENCH) || XRX_RX_BENCH != XRX_BENCH_NOHASH
	if (!nic_hash) {
		/* a copy: one verifier path for the hash, not one per
		 * kind of pointer to the key */
		struct xrx_hash_key key = { 0 };

		if (cfg)
			key = cfg->hash_key;
		m->hash = xrx_flow_hash(r, &key);
	}
#endif
	return nic_hash;
}

/*
 * The first min(@wire, XRX_PARSE_WINDOW) bytes of the frame, copied into
 * the scratch buffer with bpf_xdp_load_bytes() (they may lie in
 * fragments). Return: the buffer with *@len set, or NULL.
 */
static __always_inline struct xrx_scratch *copy_window(struct xdp_md *ctx,
						       __u32 wire, __u32 *len)
{
	struct xrx_scratch *s;
	__u32 n, zero = 0;

	s = bpf_map_lookup_elem(&xrx_scratch, &zero);
	if (!s)
		return NULL;
	/* Two branches with constant bounds: what the verifier can follow. */
	if (wire >= XRX_PARSE_WINDOW)
		n = XRX_PARSE_WINDOW;
	else
		n = wire & (XRX_PARSE_WINDOW - 1);
	if (n < XRX_ETH_HLEN || bpf_xdp_load_bytes(ctx, 0, s->buf, n))
		return NULL;
	*len = n;
	return s;
}

/*
 * Parse from a copy of the window: for frames whose headers continue in
 * a fragment (or whose linear area is shorter than an Ethernet header).
 * A function of its own (a BPF subprogram), not inlined: a second copy of
 * the parser inside xrx_rx made the program half again as large and every
 * frame slower, also those that never come here.
 *
 * Global, not static: the verifier checks a global function once, on its
 * own, where it checks a static one again for every state xrx_rx reaches
 * the call in. As a static one it was about a third of all the
 * instructions the verifier processed for xrx_rx (333k -> 225k): most of
 * a load's time, a minute under emulation. In exchange xrx_rx knows
 * nothing of *@r afterwards but what it checks, and @r may be NULL as far
 * as the verifier can tell.
 *
 * Return: an enum xrx_parse_result, or -1 if the window could not be read.
 */
__noinline int parse_copy(struct xdp_md *ctx, __u32 wire,
			  struct xrx_parsed *r)
{
	struct xrx_scratch *s;
	__u32 len;

	if (!r)
		return -1;
	s = copy_window(ctx, wire, &len);
	if (!s)
		return -1;
	return xrx_parse_copy(s->buf, len, wire, r);
}

/*
 * The tunnel header of kind @kind and the inner frame, from a copy of the
 * window (the outer headers are @outer, parsed before), also when the
 * outer headers were parsed in place: a second inlined copy of the parser
 * for the packet window doubled the verifier's work on xrx_rx (to 660k of
 * its 1M instructions), and the copy costs about 15 ns, on tunnel frames
 * only and only with inner rules configured (all of the inner lookup:
 * about 70-100 ns per frame in BPF_PROG_TEST_RUN).
 *
 * Every kind goes through this one subprogram, and it is global (not
 * static) so that the verifier checks it once, for any @kind and any
 * @outer, rather than once per state of the caller: a static one taking
 * the kind was verified again for every kind (and every caller path
 * that reached it), which made xrx_rx's verification half again as long
 * (333k -> 507k instructions processed); as a global one it is shorter
 * than before GENEVE (281k). The verifier then knows nothing of *@t
 * after the call but what the caller reads from it, which is all that
 * the inner rule lookup needs. Global functions take pointers that may
 * be NULL, hence the check.
 * Return: an enum xrx_tnl_result, or -1 if the window could not be read.
 */
__noinline int parse_tnl_copy(struct xdp_md *ctx, __u32 wire,
			      const struct xrx_parsed *outer, int kind,
			      struct xrx_tnl_parsed *t)
{
	struct xrx_scratch *s;
	__u32 len;

	if (!outer || !t)
		return -1;
	s = copy_window(ctx, wire, &len);
	if (!s)
		return -1;
	return xrx_parse_tnl_copy(s->buf, len, wire, outer, kind, t);
}

/*
 * A UDP frame to a port of tunnel kind @kind, with inner rules
 * configured: the action of the inner rule of that kind's scope that
 * matches its inner TCP/UDP frame.
 * Return: an enum xrx_action, or -1 when no inner rule decides.
 */
static __always_inline int inner_action(struct xdp_md *ctx, __u32 wire,
					const struct xrx_parsed *r, int kind)
{
	struct xrx_tnl_parsed t;
	int tr;

	tr = parse_tnl_copy(ctx, wire, r, kind, &t);
	if (tr != XRX_TNL_VXLAN || t.inner.result != XRX_PARSE_L4)
		return -1;
	switch (rule_verdict(&t.inner, XRX_RULE_SCOPE_TNL(kind))) {
	case XRX_PORT_ACCEL:
		return XRX_ACT_ACCEL;
	case XRX_PORT_PASS:
		return XRX_ACT_PASS;
	}
	return -1;
}

SEC("xdp.frags")
int xrx_rx(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct xrx_stats *st;
	struct xrx_parsed r;
	struct xrx_cfg *cfg;
	enum xrx_stat why;
	__u32 wire, zero = 0;
	__u64 linear;
	long act;
	int res = -1, inner = -1, kind = -1, ret;

	st = bpf_map_lookup_elem(&xrx_stats, &zero);
	if (!st)
		return XDP_PASS;
	/* Pointer minus pointer: the verifier allows it with CAP_PERFMON,
	 * which loading xrx_rx needs anyway (xrxd@.service). */
	linear = data_end - data;
	wire = frame_len(ctx, linear);
	count(st, XRX_STAT_RX, wire);

	/*
	 * In place when the linear area holds the window, or holds all the
	 * headers: a parse of a shorter window that does not run out of it
	 * gives the full window's answer (xrx_parse_pkt()). The parse takes
	 * min(linear, wire, XRX_PARSE_WINDOW) bytes as its window, shorter
	 * than the full one only where the linear area is shorter than both.
	 */
	if (linear >= XRX_ETH_HLEN) {
		res = xrx_parse_pkt(data, data_end, linear, wire, &r);
		if (res == XRX_PARSE_TOO_LONG && linear < wire &&
		    linear < XRX_PARSE_WINDOW)
			res = -1;
		else
			count(st, XRX_STAT_PARSE_LINEAR, wire);
	}
	if (res < 0) {
		res = parse_copy(ctx, wire, &r);
		if (res < 0) {
			count(st, XRX_STAT_PASS_MALFORMED, wire);
			return XDP_PASS;
		}
		count(st, XRX_STAT_PARSE_COPY, wire);
	}

	switch (res) {
	case XRX_PARSE_L4:
		break;
	case XRX_PARSE_NOT_IP:
		count(st, XRX_STAT_PASS_NOT_IP, wire);
		return XDP_PASS;
	case XRX_PARSE_NOT_L4:
		count(st, XRX_STAT_PASS_NOT_L4, wire);
		return XDP_PASS;
	case XRX_PARSE_FRAG:
		count(st, XRX_STAT_PASS_FRAG, wire);
		return XDP_PASS;
	case XRX_PARSE_TOO_LONG:
		count(st, XRX_STAT_PASS_TOO_LONG, wire);
		return XDP_PASS;
	default:
		count(st, XRX_STAT_PASS_MALFORMED, wire);
		return XDP_PASS;
	}
	XRX_BENCH_STOP(XRX_BENCH_PARSE, ctx);

	cfg = bpf_map_lookup_elem(&xrx_cfg, &zero);
	if (cfg && r.l4_proto == 17 && !(r.flags & XRX_META_F_IPV6_EXT))
		kind = tnl_port(cfg, r.dport);
	if (kind >= 0) {
		count(st, XRX_STAT_TNL(kind), wire);
		if (cfg->flags & XRX_CFG_F_INNER_RULES)
			inner = inner_action(ctx, wire, &r, kind);
	}
	if (inner >= 0) {
		count(st, XRX_STAT_TNL_INNER_RULE(kind), wire);
		why = XRX_STAT_PASS_EXCLUDED;
		act = inner;
	} else {
		act = rule_action(&r, cfg, &why);
	}
	if (act != XRX_ACT_ACCEL) {
		count(st, why, wire);
		return XDP_PASS;
	}
	XRX_BENCH_STOP(XRX_BENCH_RULES, ctx);

	ret = write_meta(ctx, &r, cfg);
	if (ret < 0)
		count(st, XRX_STAT_NO_META_ROOM, wire);
	else if (ret)
		count(st, XRX_STAT_HASH_NIC, wire);

	act = bpf_redirect_map(&xrx_xsks, ctx->rx_queue_index, XDP_PASS);
	count(st, act == XDP_REDIRECT ? XRX_STAT_REDIRECT : XRX_STAT_PASS_NO_SOCKET,
	      wire);
	return act;
}

char _license[] SEC("license") = "Dual BSD/GPL";
