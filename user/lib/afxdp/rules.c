// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrx_rx's rules: the one writer of xrx_rules (the LPM trie) and of
 * xrx_ports (the verdict per port where no address decides), as
 * include/xrx/rules.h defines them. xrx_ports is derived from the trie:
 * every update recomputes it from the trie's rules and writes the entries
 * that differ.
 *
 * No frame may see a verdict that neither the rules before nor the rules
 * after the update give. So an update first turns every entry the changed
 * rules could touch into XRX_PORT_LPM (those frames then take the trie,
 * which is right whatever it holds at that moment), then changes the
 * trie, then writes the entries recomputed from it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <bpf/bpf.h>

#include <xrx/prog.h>
#include <xrx/rules.h>

#define NR_COLS (2 * XRX_RULE_SCOPES)	/* tcp, udp of each scope */

/* The column of struct xrx_port_val a key's proto and scope select, or -1. */
static int rule_col(__u8 proto, __u8 scope)
{
	if (scope >= XRX_RULE_SCOPES)
		return -1;
	if (proto == 6)
		return scope * 2;
	if (proto == 17)
		return scope * 2 + 1;
	return -1;
}

static enum xrx_port_verdict *col_at(struct xrx_port_val *v, int col)
{
	return &((enum xrx_port_verdict *)v)[col];
}

/*
 * A rule whose prefix ends before the port's last bit (prefixlen < 32):
 * it matches the first lookup of every port it covers, and the second
 * (port 0) if it covers port 0. Return: does it cover @port in @col?
 */
static bool short_covers(const struct xrx_rule_key *k, int col, __u32 port)
{
	__u32 plen = k->prefixlen;
	__u32 head = (__u32)(col % 2 ? 17 : 6) << 24 | (__u32)(col / 2) << 16 |
		     port;
	__u32 rule = (__u32)k->proto << 24 | (__u32)k->scope << 16 |
		     ntohs(k->port);
	__u32 mask = plen ? ~0u << (32 - plen) : 0;

	return ((head ^ rule) & mask) == 0;
}

/*
 * Every xrx_ports entry @k can change: @cols[col] is then 2 for all
 * ports, 1 for port ntohs(k->port) alone, 0 for none.
 */
static void rule_reach(const struct xrx_rule_key *k, int cols[NR_COLS])
{
	int col = rule_col(k->proto, k->scope), c;

	if (k->prefixlen < XRX_RULE_PREFIX_BASE) {
		for (c = 0; c < NR_COLS; c++)
			cols[c] = 2;
		return;
	}
	if (col < 0)
		return;		/* xrx_rx never looks it up */
	if (!k->port)
		cols[col] = 2;	/* any port: every port without a rule */
	else if (cols[col] < 1)
		cols[col] = 1;
}

#define OWN_PREFIX 0x80	/* own[]: the port has a rule with a prefix */

/*
 * xrx_ports as @n rules of the trie make it (rules.h): for every port and
 * column, what the two lookups of rule_lookup() in bpf/xrx_rx.bpf.c
 * return for every address alike, or XRX_PORT_LPM. @own is scratch of
 * XRX_PORTS_MAX bytes.
 */
static void ports_compute(const struct xrx_rule_key *keys,
			  const struct xrx_rule_val *vals, unsigned int n,
			  struct xrx_port_val *t, __u8 *own)
{
	enum xrx_port_verdict any_v;
	unsigned int i, p;
	bool any_prefix;
	__u8 any;
	int c;

	for (c = 0; c < NR_COLS; c++) {
		/* The port's own rules (first lookup), and port 0's (second):
		 * an address-less rule's verdict, or OWN_PREFIX when one
		 * with an address prefix is there too. */
		memset(own, 0, XRX_PORTS_MAX);
		any = 0;
		any_prefix = false;
		for (i = 0; i < n; i++) {
			const struct xrx_rule_key *k = &keys[i];
			__u16 port = ntohs(k->port);
			__u8 v = vals[i].action == XRX_ACT_ACCEL ? XRX_PORT_ACCEL :
								   XRX_PORT_PASS;

			if (rule_col(k->proto, k->scope) != c ||
			    k->prefixlen < XRX_RULE_PREFIX_BASE)
				continue;
			if (k->prefixlen > XRX_RULE_PREFIX_BASE) {
				if (port)
					own[port] |= OWN_PREFIX;
				else
					any_prefix = true;
			} else if (port) {
				own[port] |= v;
			} else {
				any = v;
			}
		}
		any_v = any_prefix ? XRX_PORT_LPM :
			any ? (enum xrx_port_verdict)any : XRX_PORT_DEFAULT;
		for (p = 0; p < XRX_PORTS_MAX; p++)
			*col_at(&t[p], c) = own[p] & OWN_PREFIX ? XRX_PORT_LPM :
					    own[p] ? (enum xrx_port_verdict)own[p] :
						     any_v;
		/* Rules that end inside the proto, scope or port bits: the
		 * trie decides every port they cover, and every port when
		 * they cover port 0, which the second lookup asks. */
		for (i = 0; i < n; i++) {
			bool all;

			if (keys[i].prefixlen >= XRX_RULE_PREFIX_BASE)
				continue;
			all = short_covers(&keys[i], c, 0);
			for (p = 0; p < XRX_PORTS_MAX; p++)
				if (all || short_covers(&keys[i], c, p))
					*col_at(&t[p], c) = XRX_PORT_LPM;
		}
	}
}

/* Every rule in the trie, at most XRX_RULES_MAX. Return: how many, or -errno. */
static int rules_read(int fd, struct xrx_rule_key *keys,
		      struct xrx_rule_val *vals)
{
	struct xrx_rule_key *prev = NULL;
	unsigned int n = 0;

	while (n < XRX_RULES_MAX && !bpf_map_get_next_key(fd, prev, &keys[n])) {
		if (bpf_map_lookup_elem(fd, &keys[n], &vals[n])) {
			if (errno == ENOENT)	/* deleted meanwhile */
				continue;
			return -errno;
		}
		prev = &keys[n++];
	}
	if (errno != ENOENT && n < XRX_RULES_MAX)
		return -errno;
	return (int)n;
}

/*
 * xrx_ports as memory, where the map was made BPF_F_MMAPABLE (xrx_rx's
 * is): reading and writing 65536 entries through the batch commands
 * copies each one through the kernel's user-copy checks, milliseconds a
 * read, and most of the BPF suite's time under emulation. A store here
 * is what the kernel's array update does (a copy into the value, no
 * lock); values are XRX_PORTS_STRIDE apart, as the array lays them out.
 * A map made otherwise (another object's, through xdp-loader) is read
 * and written through the batch commands.
 */
#define XRX_PORTS_STRIDE ((sizeof(struct xrx_port_val) + 7) & ~(size_t)7)
#define XRX_PORTS_BYTES (XRX_PORTS_MAX * XRX_PORTS_STRIDE)

static __u8 *ports_map(int fd)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	void *mem;

	if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    !(info.map_flags & BPF_F_MMAPABLE) ||
	    info.value_size != sizeof(struct xrx_port_val) ||
	    info.max_entries != XRX_PORTS_MAX)
		return NULL;
	mem = mmap(NULL, XRX_PORTS_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, 0);
	return mem == MAP_FAILED ? NULL : mem;
}

/* All of xrx_ports into @t; @k is scratch of XRX_PORTS_MAX keys. */
static int ports_read(int fd, const __u8 *mem, struct xrx_port_val *t,
		      __u32 *k)
{
	__u32 out = 0, count, done = 0, *in = NULL, p;
	int err;

	if (mem) {
		for (p = 0; p < XRX_PORTS_MAX; p++)
			memcpy(&t[p], mem + p * XRX_PORTS_STRIDE, sizeof(*t));
		return 0;
	}
	do {
		count = XRX_PORTS_MAX - done;
		err = bpf_map_lookup_batch(fd, in, &out, k + done, t + done,
					   &count, NULL);
		if (err && errno != ENOENT)
			return -errno;
		done += count;
		in = &out;
	} while (!err && done < XRX_PORTS_MAX);
	return done == XRX_PORTS_MAX ? 0 : -EIO;
}

/*
 * Write the entries of @want that differ from @have, in one batch (or in
 * place), and note them in @have. @k and @v are scratch of XRX_PORTS_MAX
 * entries.
 */
static int ports_write(int fd, __u8 *mem, const struct xrx_port_val *want,
		       struct xrx_port_val *have, __u32 *k,
		       struct xrx_port_val *v)
{
	__u32 p, n = 0;

	for (p = 0; p < XRX_PORTS_MAX; p++) {
		if (!memcmp(&want[p], &have[p], sizeof(want[p])))
			continue;
		if (mem) {
			memcpy(mem + p * XRX_PORTS_STRIDE, &want[p],
			       sizeof(want[p]));
			continue;
		}
		k[n] = p;
		v[n++] = want[p];
	}
	/* Stores in place are seen before the trie changes after them. */
	atomic_thread_fence(memory_order_seq_cst);
	if (n && bpf_map_update_batch(fd, k, v, &n, NULL))
		return -errno;
	memcpy(have, want, XRX_PORTS_MAX * sizeof(*have));
	return 0;
}

/* What one update works in: 2.5 MiB, for the time of the call. */
struct rules_scratch {
	struct xrx_port_val have[XRX_PORTS_MAX];	/* xrx_ports now */
	struct xrx_port_val want[XRX_PORTS_MAX];
	struct xrx_port_val v[XRX_PORTS_MAX];
	__u32 k[XRX_PORTS_MAX];
	__u8 own[XRX_PORTS_MAX];
	struct xrx_rule_key keys[XRX_RULES_MAX];
	struct xrx_rule_val vals[XRX_RULES_MAX];
};

/* Turn every entry the keys reach to XRX_PORT_LPM (in @s->want). */
static void ports_open(struct rules_scratch *s, const struct xrx_rule_key *del,
		       unsigned int ndel, const struct xrx_rule_key *add,
		       unsigned int nadd)
{
	int reach[NR_COLS] = { 0 }, c;
	unsigned int i, p;

	for (i = 0; i < ndel + nadd; i++)
		rule_reach(i < ndel ? &del[i] : &add[i - ndel], reach);
	memcpy(s->want, s->have, sizeof(s->want));
	for (i = 0; i < ndel + nadd; i++) {
		const struct xrx_rule_key *k = i < ndel ? &del[i] : &add[i - ndel];

		c = rule_col(k->proto, k->scope);
		if (c >= 0 && reach[c] == 1)
			*col_at(&s->want[ntohs(k->port)], c) = XRX_PORT_LPM;
	}
	for (c = 0; c < NR_COLS; c++)
		if (reach[c] == 2)
			for (p = 0; p < XRX_PORTS_MAX; p++)
				*col_at(&s->want[p], c) = XRX_PORT_LPM;
}

int xrx_rules__update(int rules_fd, int ports_fd,
		      const struct xrx_rule_key *del, unsigned int ndel,
		      const struct xrx_rule_key *add,
		      const struct xrx_rule_val *vals, unsigned int nadd)
{
	struct rules_scratch *s = NULL;
	__u8 *mem = NULL;
	unsigned int i;
	int n, err = 0, ret = 0;

	if (rules_fd < 0 || (ndel && !del) || (nadd && (!add || !vals)))
		return -EINVAL;
	for (i = 0; i < nadd; i++)
		if (add[i].prefixlen > XRX_RULE_PREFIX_BASE + 128)
			return -EINVAL;
	if (ports_fd >= 0) {
		/* Zeroed: the kernel fills it, but tools that do not know the
		 * batch commands (valgrind) cannot tell. */
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		mem = ports_map(ports_fd);
		ret = ports_read(ports_fd, mem, s->have, s->k);
		if (!ret) {
			ports_open(s, del, ndel, add, nadd);
			ret = ports_write(ports_fd, mem, s->want, s->have,
					  s->k, s->v);
		}
		if (ret)
			goto out;
	}
	/* The trie; a rule that fails is reported, the others still go in. */
	for (i = 0; i < ndel; i++)
		if (bpf_map_delete_elem(rules_fd, &del[i]) && errno != ENOENT &&
		    !err)
			err = -errno;
	for (i = 0; i < nadd; i++)
		if (bpf_map_update_elem(rules_fd, &add[i], &vals[i], BPF_ANY) &&
		    !err)
			err = -errno;
	if (s) {
		n = rules_read(rules_fd, s->keys, s->vals);
		if (n < 0) {
			ret = n;
			goto out;
		}
		ports_compute(s->keys, s->vals, (unsigned int)n, s->want, s->own);
		ret = ports_write(ports_fd, mem, s->want, s->have, s->k,
				  s->v);
	}
out:
	if (mem)
		munmap(mem, XRX_PORTS_BYTES);
	free(s);
	return ret ? ret : err;
}
