// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The xrx_ustats map (ctl_ustats.h): its BTF, built at run time from the
 * counter tables, and its creation, pinning, writing and reading.
 *
 * An array map's BTF key must be a 4-byte integer (array_map_check_btf()),
 * and every member of the value is a __u64, so the BTF needs only two
 * integer types and four structs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <xrx/counters.h>
#include "ctl_ustats.h"

XRX_COUNTERS_DEFINE(static inline, hdr, XRX_USTATS_HDR_TABLE, XRX_USTATS_HDR_MAX,
		    XRX_COUNTER_NAME)
XRX_COUNTERS_DEFINE(, xrx_degraded, XRX_DEGRADED_TABLE, XRX_DEGRADED_MAX,
		    XRX_COUNTER_NAME)

static const char *const group_names[XRX_USTATS_G_MAX] = {
	[XRX_USTATS_G_HDR] = "",
	[XRX_USTATS_G_LIVE] = "live",
	[XRX_USTATS_G_ENGINE] = "engine",
	[XRX_USTATS_G_SINK] = "sink",
	[XRX_USTATS_G_TEE] = "tee",
};

const char *xrx_ustats_group_name(enum xrx_ustats_group g)
{
	return g < XRX_USTATS_G_MAX ? group_names[g] : NULL;
}

unsigned int xrx_ustats_group_len(enum xrx_ustats_group g)
{
	switch (g) {
	case XRX_USTATS_G_HDR:
		return XRX_USTATS_HDR_MAX;
	case XRX_USTATS_G_LIVE:
		return XRX_LIVE_STAT_MAX;
	case XRX_USTATS_G_ENGINE:
		return XRX_ENGINE_STAT_MAX;
	case XRX_USTATS_G_SINK:
	case XRX_USTATS_G_TEE:
		return XRX_SINK_STAT_MAX;
	default:
		return 0;
	}
}

/* Name (or, with @desc, description) of counter @i of group @g. */
static const char *ustats_text(enum xrx_ustats_group g, unsigned int i,
			       bool desc)
{
	if (i >= xrx_ustats_group_len(g))
		return NULL;
	switch (g) {
	case XRX_USTATS_G_HDR:
		return desc ? hdr__desc((int)i) : hdr__name((int)i);
	case XRX_USTATS_G_LIVE:
		return desc ? xrx_live_stat__desc((int)i) :
			      xrx_live_stat__name((int)i);
	case XRX_USTATS_G_ENGINE:
		return desc ? xrx_engine_stat__desc((int)i) :
			      xrx_engine_stat__name((int)i);
	case XRX_USTATS_G_SINK:
	case XRX_USTATS_G_TEE:
		return desc ? xrx_sink_stat__desc((int)i) :
			      xrx_sink_stat__name((int)i);
	default:
		return NULL;
	}
}

const char *xrx_ustats_name(enum xrx_ustats_group g, unsigned int i)
{
	return ustats_text(g, i, false);
}

const char *xrx_ustats_desc(enum xrx_ustats_group g, unsigned int i)
{
	return ustats_text(g, i, true);
}

__u64 *xrx_ustats_at(struct xrx_ustats *u, enum xrx_ustats_group g,
		     unsigned int i)
{
	if (i >= xrx_ustats_group_len(g))
		return NULL;
	switch (g) {
	case XRX_USTATS_G_HDR:
		return &u->hdr[i];
	case XRX_USTATS_G_LIVE:
		return &u->live[i];
	case XRX_USTATS_G_ENGINE:
		return &u->engine[i];
	case XRX_USTATS_G_SINK:
		return &u->sink[i];
	case XRX_USTATS_G_TEE:
		return &u->tee[i];
	default:
		return NULL;
	}
}

bool xrx_ustats_is_gauge(enum xrx_ustats_group g, unsigned int i)
{
	if (g == XRX_USTATS_G_HDR)
		return i != XRX_USTATS_RELOADS && i != XRX_USTATS_WORKER_RESTARTS &&
		       i != XRX_USTATS_LIVE_SWAPS && i != XRX_USTATS_BIND_FAILURES;
	return g == XRX_USTATS_G_LIVE &&
	       (i == XRX_LIVE_STAT_UMEM_FRAMES || i == XRX_LIVE_STAT_UMEM_FREE ||
		i == XRX_LIVE_STAT_UMEM_KERNEL || i == XRX_LIVE_STAT_UMEM_ENGINE ||
		i == XRX_LIVE_STAT_NAP_MAX_US);
}

/* struct NAME { __u64 field; ... } for one group. Return: its type id. */
static int add_group_struct(struct btf *btf, enum xrx_ustats_group g,
			    int u64_id)
{
	unsigned int i, n = xrx_ustats_group_len(g);
	char name[32];
	int id, err;

	snprintf(name, sizeof(name), "xrx_ustats_%s", group_names[g]);
	id = btf__add_struct(btf, name, n * sizeof(__u64));
	if (id < 0)
		return id;
	for (i = 0; i < n; i++) {
		err = btf__add_field(btf, xrx_ustats_name(g, i), u64_id,
				     i * 64, 0);
		if (err)
			return err;
	}
	return id;
}

/* The BTF of the map; *key_id and *val_id get the type ids. */
static struct btf *ustats_btf(int *key_id, int *val_id)
{
	int u32_id, u64_id, gid[XRX_USTATS_G_MAX], id, err = 0;
	unsigned int g, i, off;
	struct btf *btf;

	btf = btf__new_empty();
	if (!btf)
		return NULL;
	u32_id = btf__add_int(btf, "__u32", 4, 0);
	u64_id = btf__add_int(btf, "__u64", 8, 0);
	if (u32_id < 0 || u64_id < 0) {
		err = u32_id < 0 ? u32_id : u64_id;
		goto fail;
	}
	for (g = XRX_USTATS_G_LIVE; g < XRX_USTATS_G_MAX; g++) {
		gid[g] = add_group_struct(btf, g, u64_id);
		if (gid[g] < 0) {
			err = gid[g];
			goto fail;
		}
	}
	id = btf__add_struct(btf, "xrx_ustats", sizeof(struct xrx_ustats));
	if (id < 0) {
		err = id;
		goto fail;
	}
	/* The daemon facts flat at the top, then one member per group. */
	for (i = 0; i < XRX_USTATS_HDR_MAX && !err; i++)
		err = btf__add_field(btf, hdr_names[i], u64_id, i * 64, 0);
	off = offsetof(struct xrx_ustats, live) * 8;
	for (g = XRX_USTATS_G_LIVE; g < XRX_USTATS_G_MAX && !err; g++) {
		err = btf__add_field(btf, group_names[g], gid[g], off, 0);
		off += xrx_ustats_group_len(g) * 64;
	}
	if (err)
		goto fail;
	*key_id = u32_id;
	*val_id = id;
	return btf;
fail:
	btf__free(btf);
	errno = -err;
	return NULL;
}

int xrx_ustats_create(const char *path, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo);
	struct xrx_ustats zero = { 0 };
	int key_id, val_id, fd, ret;
	struct btf *btf;
	__u32 key = 0;

	btf = ustats_btf(&key_id, &val_id);
	if (!btf) {
		ret = -errno;
		snprintf(err, errlen, "cannot build the BTF of " XRX_USTATS_NAME ": %s",
			 strerror(errno));
		return ret;
	}
	ret = btf__load_into_kernel(btf);
	if (ret) {
		snprintf(err, errlen, "cannot load the BTF of " XRX_USTATS_NAME " into the kernel: %s (needs CAP_BPF)",
			 strerror(-ret));
		goto out;
	}
	mo.btf_fd = btf__fd(btf);
	mo.btf_key_type_id = key_id;
	mo.btf_value_type_id = val_id;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, XRX_USTATS_NAME, sizeof(key),
			    sizeof(struct xrx_ustats), 1, &mo);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot create map " XRX_USTATS_NAME ": %s (needs CAP_BPF)",
			 strerror(errno));
		goto out;
	}
	bpf_map_update_elem(fd, &key, &zero, BPF_ANY);
	unlink(path);	/* a stale pin of a dead xrxd */
	if (bpf_obj_pin(fd, path)) {
		ret = -errno;
		snprintf(err, errlen, "cannot pin " XRX_USTATS_NAME " at %s: %s (is bpffs mounted at /sys/fs/bpf?)",
			 path, strerror(errno));
		close(fd);
		goto out;
	}
	ret = fd;
out:
	/* The map holds its own reference to the loaded BTF. */
	btf__free(btf);
	return ret;
}

int xrx_ustats_write(int fd, const struct xrx_ustats *u)
{
	__u32 key = 0;

	return bpf_map_update_elem(fd, &key, u, BPF_ANY) ? -errno : 0;
}

int xrx_ustats_read(int fd, struct xrx_ustats *u, char *err, size_t errlen)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info), key = 0;

	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		snprintf(err, errlen, "cannot read " XRX_USTATS_NAME "'s info: %s",
			 strerror(errno));
		return -errno;
	}
	if (info.value_size != sizeof(*u) || info.max_entries != 1) {
		snprintf(err, errlen,
			 XRX_USTATS_NAME " holds %u bytes, this build expects %zu: xrxd and xrxctl come from different builds; use the xrxctl of the running xrxd (or bpftool map dump)",
			 info.value_size, sizeof(*u));
		return -EPROTO;
	}
	if (bpf_map_lookup_elem(fd, &key, u)) {
		snprintf(err, errlen, "cannot read " XRX_USTATS_NAME ": %s",
			 strerror(errno));
		return -errno;
	}
	return 0;
}

int xrx_ustats_file_path(const char *statedir, const char *ifname,
			 char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s.stats", statedir, ifname);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static void ustats_file_sizes(__u32 sizes[4])
{
	sizes[0] = sizeof(struct xrx_ustats_file);
	sizes[1] = sizeof(struct xrx_ustats);
	sizes[2] = XRX_STAT_MAX;
	sizes[3] = XRX_USTATS_HDR_MAX;
}

int xrx_ustats_file_write(const char *statedir, const char *ifname,
			  const struct xrx_ustats *u,
			  const struct xrx_counter k[XRX_STAT_MAX], gid_t gid)
{
	struct xrx_ustats_file f;
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	int fd, ret = 0;

	if (xrx_ustats_file_path(statedir, ifname, path, sizeof(path)) ||
	    snprintf(tmp, sizeof(tmp), "%s.new", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	memset(&f, 0, sizeof(f));
	memcpy(f.magic, XRX_USTATS_FILE_MAGIC, sizeof(f.magic));
	ustats_file_sizes(f.sizes);
	f.u = *u;
	memcpy(f.k, k, sizeof(f.k));
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0640);
	if (fd < 0)
		return -errno;
	/* the mode whatever the umask; the group only where it exists */
	if (fchmod(fd, 0640) ||
	    (gid != (gid_t)-1 && fchown(fd, (uid_t)-1, gid)) ||
	    write(fd, &f, sizeof(f)) != (ssize_t)sizeof(f))
		ret = errno ? -errno : -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

int xrx_ustats_file_read(const char *statedir, const char *ifname,
			 struct xrx_ustats *u, struct xrx_counter k[XRX_STAT_MAX],
			 char *err, size_t errlen)
{
	struct xrx_ustats_file f;
	char path[PATH_MAX];
	__u32 sizes[4];
	ssize_t n;
	int fd;

	err[0] = '\0';
	if (xrx_ustats_file_path(statedir, ifname, path, sizeof(path)))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	n = read(fd, &f, sizeof(f));
	close(fd);
	ustats_file_sizes(sizes);
	if (n != (ssize_t)sizeof(f) ||
	    memcmp(f.magic, XRX_USTATS_FILE_MAGIC, sizeof(f.magic)) ||
	    memcmp(f.sizes, sizes, sizeof(sizes))) {
		snprintf(err, errlen,
			 "%s is not this build's copy of xrx_ustats (xrxd and xrxctl from different builds?); use the xrxctl of the running xrxd",
			 path);
		return -EPROTO;
	}
	*u = f.u;
	memcpy(k, f.k, sizeof(f.k));
	return 0;
}
