/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One xrxd per interface: an flock(2) on STATE-DIR/IFACE.lock (0600),
 * holding the owner's pid for messages. The kernel drops the lock when
 * its holder dies, so a killed xrxd's file never blocks the next start.
 */
#ifndef XRX_CTL_LOCK_H
#define XRX_CTL_LOCK_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Take the lock of @ifname. Return: the lock fd (keep it open), -EBUSY
 * when another live process holds it (*owner: its pid, 0 if unknown), or
 * another negative errno; err names the file, the holder and the fix.
 */
int xrx_lock_take(const char *dir, const char *ifname, pid_t *owner,
		  char *err, size_t errlen);
/* Remove the file and drop the lock. */
void xrx_lock_release(const char *dir, const char *ifname, int fd);
/* The pid holding @ifname's lock, 0 if none (nobody running). */
pid_t xrx_lock_holder(const char *dir, const char *ifname);

#endif /* XRX_CTL_LOCK_H */
