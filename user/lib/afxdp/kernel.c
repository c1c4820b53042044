// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the running kernel has of what xrx can use (include/xrx/prog.h),
 * found out the way libbpf and the kernel would answer a load or a bind,
 * never from the version number: distributions backport features (RHEL,
 * Ubuntu) and leave others out.
 *
 *   xdp_frags     a test load calling bpf_xdp_load_bytes() (libbpf's
 *                 helper probe): the kernel knows the helper or not
 *   kern_ctx      bpf_cast_to_kern_ctx() as a function in the kernel's BTF,
 *                 where libbpf looks a kfunc up (it refuses an object
 *                 whose kfunc is not there: -ESRCH)
 *   xdp_metadata  both XDP metadata kfuncs of the device-bound build in
 *                 the kernel's BTF, likewise
 *   xsk_sg        an AF_XDP bind with XDP_USE_SG to no device: a kernel
 *                 that knows the flag looks the device up (ENODEV), one
 *                 that does not refuses the flags first (EINVAL,
 *                 xsk_bind())
 *
 * A probe that cannot answer (no privileges for a test load or an AF_XDP
 * socket) counts the feature as present: the load or the bind says the
 * rest. The answers are kept for the process: the kernel does not change
 * under it.
 *
 * XRX_TEST_KERNEL_LACKS (tests only): a comma-separated list of the names
 * above that the probes answer "absent" for, so that the fallbacks can be
 * tested on a kernel that has everything.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/utsname.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/if_xdp.h>

#include <xrx/compat.h>
#include <xrx/prog.h>

#ifndef AF_XDP
#define AF_XDP 44
#endif

static const struct {
	const char *name;
	const char *what;
	const char *without;
} xrx_kernel_features[XRX_KERNEL_FEATURE_MAX] = {
	[XRX_KERNEL_XDP_FRAGS] = {
		"xdp_frags",
		"the multi-buffer XDP helpers bpf_xdp_load_bytes() and bpf_xdp_get_buff_len() (Linux 5.18)",
		"no build of xrx_rx can load",
	},
	[XRX_KERNEL_KERN_CTX] = {
		"kern_ctx",
		"the kfunc bpf_cast_to_kern_ctx() (Linux 6.2)",
		"xrx_rx_compat is loaded instead of xrx_rx: the same program, asking a helper for every frame's length (a few ns a frame)",
	},
	[XRX_KERNEL_XDP_METADATA] = {
		"xdp_metadata",
		"the XDP metadata kfuncs bpf_xdp_metadata_rx_hash() and bpf_xdp_metadata_rx_vlan_tag() (Linux 6.8)",
		"no device-bound xrx_rx: the flow hash is computed in software, and VLAN tags the NIC strips cannot be read (xrxd turns rx-vlan-hw-parse off while a rule accelerates)",
	},
	[XRX_KERNEL_XSK_SG] = {
		"xsk_sg",
		"multi-buffer AF_XDP, XDP_USE_SG (Linux 6.6)",
		"frames longer than one UMEM chunk are dropped by the kernel, so the MTU is limited to what a chunk holds",
	},
};

const char *xrx_kernel__feature_name(enum xrx_kernel_feature f)
{
	return (unsigned int)f < XRX_KERNEL_FEATURE_MAX ?
		       xrx_kernel_features[f].name : NULL;
}

/* The names XRX_TEST_KERNEL_LACKS gives, as a mask. */
static __u32 xrx_kernel_forced(void)
{
	const char *env = getenv("XRX_TEST_KERNEL_LACKS");
	char buf[256], *tok, *save = NULL;
	__u32 mask = 0;
	int f;

	if (!env)
		return 0;
	snprintf(buf, sizeof(buf), "%s", env);
	for (tok = strtok_r(buf, ", ", &save); tok;
	     tok = strtok_r(NULL, ", ", &save))
		for (f = 0; f < XRX_KERNEL_FEATURE_MAX; f++)
			if (!strcmp(tok, xrx_kernel_features[f].name))
				mask |= 1u << f;
	return mask;
}

static bool xrx_btf_has_func(const struct btf *btf, const char *name)
{
	return btf && btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) > 0;
}

static int xrx_kernel_quiet(enum libbpf_print_level level, const char *fmt,
			    va_list ap)
{
	return 0;
}

/* 1: the bind refused XDP_USE_SG as an unknown flag; 0: known or unknown. */
static bool xrx_kernel_lacks_sg(void)
{
	struct sockaddr_xdp sxdp = {
		.sxdp_family = AF_XDP,
		.sxdp_flags = XDP_COPY | XDP_USE_SG,
		.sxdp_ifindex = 0,	/* no device has it */
	};
	bool lacks;
	int fd;

	fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	lacks = bind(fd, (struct sockaddr *)&sxdp, sizeof(sxdp)) &&
		errno == EINVAL;
	close(fd);
	return lacks;
}

static __u32 xrx_kernel_mask;

static void xrx_kernel_probe(void)
{
	libbpf_print_fn_t old;
	struct btf *btf;
	__u32 mask = 0;

	/* libbpf's messages about a missing BTF or a refused test load are
	 * the answers here, not warnings. */
	old = libbpf_set_print(xrx_kernel_quiet);
	if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_XDP, BPF_FUNC_xdp_load_bytes,
				    NULL) == 0)
		mask |= 1u << XRX_KERNEL_XDP_FRAGS;
	btf = btf__load_vmlinux_btf();
	if (libbpf_get_error(btf))
		btf = NULL;
	libbpf_set_print(old);
	if (!xrx_btf_has_func(btf, "bpf_cast_to_kern_ctx"))
		mask |= 1u << XRX_KERNEL_KERN_CTX;
	if (!xrx_btf_has_func(btf, "bpf_xdp_metadata_rx_hash") ||
	    !xrx_btf_has_func(btf, "bpf_xdp_metadata_rx_vlan_tag"))
		mask |= 1u << XRX_KERNEL_XDP_METADATA;
	btf__free(btf);
	if (xrx_kernel_lacks_sg())
		mask |= 1u << XRX_KERNEL_XSK_SG;
	xrx_kernel_mask = mask | xrx_kernel_forced();
}

__u32 xrx_kernel__lacks(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, xrx_kernel_probe);
	return xrx_kernel_mask;
}

/* "6.1.0-57-amd64", or "unknown". */
static const char *xrx_kernel_release(struct utsname *u)
{
	return uname(u) ? "unknown" : u->release;
}

int xrx_kernel__explain(enum xrx_kernel_feature f, char *buf, size_t len)
{
	struct utsname u;

	if ((unsigned int)f >= XRX_KERNEL_FEATURE_MAX)
		return -EINVAL;
	snprintf(buf, len, "this kernel (%s) lacks %s: %s",
		 xrx_kernel_release(&u), xrx_kernel_features[f].what,
		 xrx_kernel_features[f].without);
	return 0;
}

int xrx_kernel__check(char *buf, size_t len)
{
	struct utsname u;

	if (!(xrx_kernel__lacks() & (1u << XRX_KERNEL_XDP_FRAGS)))
		return 0;
	snprintf(buf, len,
		 "this kernel (%s) cannot load xrx_rx: it lacks %s, which every build of xrx_rx needs; run xrx on a kernel that has them",
		 xrx_kernel_release(&u),
		 xrx_kernel_features[XRX_KERNEL_XDP_FRAGS].what);
	return -EOPNOTSUPP;
}
