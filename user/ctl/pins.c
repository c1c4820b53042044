// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Finding and reading what xrxd pinned (ctl_pins.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/if_link.h>
#include <linux/magic.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "ctl_conf.h"
#include "ctl_pins.h"
#include "ctl_ustats.h"

/*
 * Where the kernel allows freplace (Debian 12's 6.1 does), libxdp puts
 * xrx_rx behind its dispatcher, so the interface's program is the
 * dispatcher's, not the pinned xrx_rx's. A killed xrxd leaves both; take
 * xrx_rx out through libxdp, which removes the dispatcher with its last
 * program and leaves anyone else's programs in it.
 */
static int leftover_detach_dispatched(int ifindex, __u32 id)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *p;
	int ret = -ENOENT;

	if (libxdp_get_error(mp))
		return -ENOENT;
	for (p = xdp_multiprog__next_prog(NULL, mp); p;
	     p = xdp_multiprog__next_prog(p, mp)) {
		if (xdp_program__id(p) != id)
			continue;
		ret = xdp_program__detach(p, ifindex,
					  xdp_multiprog__attach_mode(mp), 0);
		break;
	}
	xdp_multiprog__close(mp);
	return ret;
}

int xrx_leftover_clear(const char *root, const char *ifname, int ifindex,
		       __u32 *detached_id, __u32 *foreign_id, char *err,
		       size_t errlen)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	LIBBPF_OPTS(bpf_xdp_attach_opts, ao);
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info), flags, ours = 0, any;
	int fd, ret;

	*detached_id = *foreign_id = 0;
	if (bpf_xdp_query(ifindex, 0, &q)) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot query its XDP program: %s",
			 ifname, strerror(errno));
		return ret;
	}
	fd = xrx_pin_open(root, ifname, XRX_PIN_PROG);
	if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
		ours = info.id;
	any = q.prog_id ? q.prog_id : q.drv_prog_id ? q.drv_prog_id :
		q.skb_prog_id ? q.skb_prog_id : q.hw_prog_id;
	flags = xrx_xdp_attached_flags(&q, ours);
	if (!any) {
		ret = 0;
		xrx_prog__unpin(root, ifname);
		goto out;
	}
	if (!flags && ours && xrx_xdp_behind_dispatcher(ifindex, ours)) {
		ret = leftover_detach_dispatched(ifindex, ours);
		if (ret) {
			snprintf(err, errlen, "%s: cannot take the xrx_rx (id %u) a previous xrxd left behind libxdp's dispatcher out of it: %s (xdp-loader unload -a %s)",
				 ifname, ours, strerror(-ret), ifname);
			goto out;
		}
		*detached_id = ours;
		xrx_prog__unpin(root, ifname);
		goto out;
	}
	if (!flags) {
		*foreign_id = any;
		ret = 0;
		goto out;
	}
	ao.old_prog_fd = fd;
	ret = bpf_xdp_detach(ifindex, flags, &ao);
	if (ret) {
		snprintf(err, errlen, "%s: cannot detach the xrx_rx (id %u) a previous xrxd left attached: %s (ip link set dev %s xdp off)",
			 ifname, ours, strerror(-ret), ifname);
		goto out;
	}
	*detached_id = ours;
	xrx_prog__unpin(root, ifname);
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * @path, if it exists, must be a real directory (not a symlink) owned by
 * us and writable by nobody else: whoever can write there can swap a pin
 * for a map of their own, which xrxd would then fill with rules and read
 * counters from.
 */
static int pin_dir_trusted(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	    !(st.st_mode & 022))
		return 0;
	snprintf(err, errlen,
		 "%s: refused as a pin directory: it is %s, uid %u, mode %04o, but must be a directory owned by uid %u and writable only by it, or a pin could be swapped; remove it (xrxd creates it 0700)",
		 path, S_ISLNK(st.st_mode) ? "a symlink" :
		 S_ISDIR(st.st_mode) ? "a directory" : "not a directory",
		 (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777),
		 (unsigned int)geteuid());
	return -EPERM;
}

int xrx_pin_root_check(const char *root, const char *ifname, char *err,
		       size_t errlen)
{
	char path[PATH_MAX], parent[PATH_MAX], *slash;
	const char *fs = root;
	struct statfs sfs;
	int ret;

	ret = xrx_pin_path(root, ifname, NULL, path, sizeof(path));
	if (ret) {
		snprintf(err, errlen, "%s: pin root path too long", root);
		return ret;
	}
	/* The first start creates PIN_ROOT: then its parent must be bpffs. */
	if (access(root, F_OK)) {
		snprintf(parent, sizeof(parent), "%s", root);
		slash = strrchr(parent, '/');
		if (slash == parent)
			slash[1] = '\0';
		else if (slash)
			*slash = '\0';
		else
			snprintf(parent, sizeof(parent), ".");
		fs = parent;
	}
	if (statfs(fs, &sfs) < 0) {
		ret = -errno;
		snprintf(err, errlen,
			 "%s: cannot use it as the pin root (%s: %s); mount bpffs (mount -t bpf bpf /sys/fs/bpf) or name a directory on it with --pin-root",
			 root, fs, strerror(errno));
		return ret;
	}
	if ((unsigned long)sfs.f_type != (unsigned long)BPF_FS_MAGIC) {
		snprintf(err, errlen,
			 "%s: not on a bpffs (the kernel cannot pin there); mount bpffs (mount -t bpf bpf /sys/fs/bpf) or name a directory on it with --pin-root",
			 fs);
		return -ENOTSUP;
	}
	/* Read-only (a ro mount, a unit's ProtectKernelTunables=, a
	 * container's read-only /sys): no pin can be made, now or after a
	 * restart. */
	if (access(fs, W_OK) && errno == EROFS) {
		snprintf(err, errlen,
			 "%s: the bpffs is mounted read-only, so xrxd cannot pin xrx_rx there; remount it read-write (mount -o remount,rw MOUNTPOINT), or give the service a writable one (no ProtectKernelTunables=)",
			 fs);
		return -EROFS;
	}
	ret = pin_dir_trusted(root, err, errlen);
	if (!ret)
		ret = pin_dir_trusted(path, err, errlen);
	if (ret == -EPERM || !ret)
		return ret;
	snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	return ret;
}

int xrx_pin_path(const char *root, const char *ifname, const char *name,
		 char *buf, size_t len)
{
	int n;

	if (name)
		n = snprintf(buf, len, "%s/%s/%s", root, ifname, name);
	else
		n = snprintf(buf, len, "%s/%s", root, ifname);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

int xrx_pin_ifaces(const char *root, char (*names)[IF_NAMESIZE], int max)
{
	struct dirent *de;
	struct stat st;
	char path[PATH_MAX];
	int n = 0;
	DIR *d;

	d = opendir(root);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < max) {
		if (de->d_name[0] == '.' || !xrx_ifname_valid(de->d_name))
			continue;
		if (xrx_pin_path(root, de->d_name, NULL, path, sizeof(path)) ||
		    lstat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		/* xrx_ifname_valid(): shorter than IF_NAMESIZE. */
		memcpy(names[n++], de->d_name, strlen(de->d_name) + 1);
	}
	closedir(d);
	qsort(names, (size_t)n, IF_NAMESIZE, cmp_names);
	return n;
}

int xrx_dir_ifaces(const char *dir, const char *suffix,
		   char (*names)[IF_NAMESIZE], int max)
{
	size_t sl = strlen(suffix), len;
	char name[NAME_MAX + 1];
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < max) {
		len = strlen(de->d_name);
		if (len <= sl || strcmp(de->d_name + len - sl, suffix) ||
		    (de->d_type != DT_REG && de->d_type != DT_UNKNOWN))
			continue;
		memcpy(name, de->d_name, len - sl);
		name[len - sl] = '\0';
		if (!xrx_ifname_valid(name))
			continue;
		memcpy(names[n++], name, strlen(name) + 1);
	}
	closedir(d);
	qsort(names, (size_t)n, IF_NAMESIZE, cmp_names);
	return n;
}

int xrx_pin_open(const char *root, const char *ifname, const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (xrx_pin_path(root, ifname, name, path, sizeof(path)))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

int xrx_pin_read_stats(int fd, struct xrx_counter out[XRX_STAT_MAX])
{
	int ncpu = libbpf_num_possible_cpus(), cpu, i, ret = 0;
	struct bpf_map_info info = { 0 };
	__u32 key = 0, len = sizeof(info);
	struct xrx_stats *vals;

	memset(out, 0, XRX_STAT_MAX * sizeof(*out));
	if (ncpu <= 0)
		return -EINVAL;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (info.value_size != sizeof(*vals))
		return -EPROTO;	/* another build's xrx_rx */
	/* A per-CPU value is copied out padded to 8 bytes per CPU; struct
	 * xrx_stats is a multiple of 8 already. */
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &key, vals)) {
		ret = -errno;
		goto out;
	}
	for (cpu = 0; cpu < ncpu; cpu++)
		for (i = 0; i < XRX_STAT_MAX; i++) {
			out[i].packets += xrx_stats_at(&vals[cpu], i)->packets;
			out[i].bytes += xrx_stats_at(&vals[cpu], i)->bytes;
		}
out:
	free(vals);
	return ret;
}

bool xrx_xdp_behind_dispatcher(int ifindex, __u32 id)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *p;
	bool found = false;

	if (libxdp_get_error(mp))
		return false;
	for (p = xdp_multiprog__next_prog(NULL, mp); p && !found;
	     p = xdp_multiprog__next_prog(p, mp))
		found = xdp_program__id(p) == id;
	xdp_multiprog__close(mp);
	return found;
}
