/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One xrxd per interface: an flock(2) on a file named after what xrxd
 * takes hold of - the device (its ifindex) in its network namespace (the
 * inode of /proc/self/ns/net) - in XRX_LOCK_DIR, whatever --state-dir and
 * --pin-root say: two xrxd with different state directories on the same
 * device would otherwise both attach, and the second would detach the
 * first one's program as a leftover. The file (0600) holds the owner's
 * pid and the interface name, for messages. The kernel drops the lock
 * when its holder dies, so a killed xrxd's file never blocks the next
 * start. xrxctl restore takes the same lock while it restores.
 */
#ifndef XRX_CTL_LOCK_H
#define XRX_CTL_LOCK_H

#include <stddef.h>
#include <sys/types.h>

#include "ctl_state.h"

#define XRX_LOCK_DIR XRX_STATE_DIR

/* XRX_LOCK_DIR/net<NETNS-INODE>-<IFINDEX>.lock for this netns. */
int xrx_lock_path(int ifindex, char *buf, size_t len);

/*
 * Take the lock of @ifindex (@ifname for messages). Return: the lock fd
 * (keep it open), -EBUSY when another live process holds it (*owner: its
 * pid, 0 if unknown), or another negative errno; err names the holder
 * and the fix.
 */
int xrx_lock_take(const char *ifname, int ifindex, pid_t *owner, char *err,
		  size_t errlen);
/* Remove the file and drop the lock. */
void xrx_lock_release(int ifindex, int fd);
/* The pid holding @ifindex's lock in this netns, 0 if none. */
pid_t xrx_lock_holder(int ifindex);

#endif /* XRX_CTL_LOCK_H */
