// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The per-device instance lock (ctl_lock.h).
 *
 * The file is removed on a clean exit. Between open() and flock() another
 * process may have removed and re-created it, so after taking the lock
 * the descriptor's inode is compared with the path's; a mismatch means we
 * locked a file nobody else will look at, and we start again.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "ctl_conf.h"
#include "ctl_lock.h"

int xrx_lock_path(int ifindex, char *buf, size_t len)
{
	struct stat ns;
	int n;

	/* An ifindex names a device only within its network namespace. */
	if (stat("/proc/self/ns/net", &ns))
		return -errno;
	n = snprintf(buf, len, XRX_LOCK_DIR "/net%llu-%d.lock",
		     (unsigned long long)ns.st_ino, ifindex);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static pid_t read_pid(int fd)
{
	char buf[64] = { 0 };
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	return n > 0 ? (pid_t)strtol(buf, NULL, 10) : 0;
}

int xrx_lock_take(const char *ifname, int ifindex, pid_t *owner, char *err,
		  size_t errlen)
{
	struct stat fst, pst;
	char path[PATH_MAX], text[64], unit[80];
	int fd, tries, ret;

	*owner = 0;
	ret = xrx_lock_path(ifindex, path, sizeof(path));
	if (ret) {
		snprintf(err, errlen,
			 "%s: cannot name the instance lock: /proc/self/ns/net: %s (is /proc mounted?)",
			 ifname, strerror(-ret));
		return ret;
	}
	if (mkdir(XRX_LOCK_DIR, 0700) && errno != EEXIST) {
		ret = -errno;
		snprintf(err, errlen, "cannot create %s: %s", XRX_LOCK_DIR,
			 strerror(errno));
		return ret;
	}
	for (tries = 0; tries < 8; tries++) {
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0) {
			ret = -errno;
			snprintf(err, errlen, "cannot open the lock %s: %s (a symlink is refused; remove it)",
				 path, strerror(errno));
			return ret;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
			*owner = read_pid(fd);
			if (ret == -EBUSY)
				snprintf(err, errlen,
					 "xrxd is already running on %s (pid %d holds %s, the lock of this device in this network namespace); stop it first (systemctl stop %s)",
					 ifname, (int)*owner, path,
					 xrx_unit_name(ifname, unit, sizeof(unit)));
			else
				snprintf(err, errlen, "cannot lock %s: %s", path,
					 strerror(-ret));
			close(fd);
			return ret;
		}
		if (!fstat(fd, &fst) && !stat(path, &pst) &&
		    fst.st_ino == pst.st_ino && fst.st_dev == pst.st_dev)
			break;
		close(fd);	/* removed under us: lock the new one */
		fd = -1;
	}
	if (fd < 0) {
		snprintf(err, errlen, "cannot lock %s: it keeps being replaced", path);
		return -EAGAIN;
	}
	snprintf(text, sizeof(text), "%d %s\n", (int)getpid(), ifname);
	if (ftruncate(fd, 0) || pwrite(fd, text, strlen(text), 0) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		return ret;
	}
	fchmod(fd, 0600);
	return fd;
}

void xrx_lock_release(int ifindex, int fd)
{
	char path[PATH_MAX];

	if (fd < 0)
		return;
	/* Unlinked while held: a waiting opener sees the inode change. */
	if (!xrx_lock_path(ifindex, path, sizeof(path)))
		unlink(path);
	close(fd);
}

pid_t xrx_lock_holder(int ifindex)
{
	char path[PATH_MAX];
	pid_t pid = 0;
	int fd;

	if (ifindex <= 0 || xrx_lock_path(ifindex, path, sizeof(path)))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	/* A shared lock we can take means no xrxd holds it. */
	if (flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK)
		pid = read_pid(fd);
	close(fd);
	return pid;
}
