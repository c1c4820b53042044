#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# scripts/kernels/boot.sh KDIR OUT TAP NICOPTS LOG SECONDS: boot the
# kernel that scripts/kernels/fetch.sh prepared in KDIR under QEMU (TCG:
# this machine has no /dev/kvm; KVM is used where there is one), with
#   - the host's / read-only over virtio-9p: the guest runs the host's
#     programs and the build tree unchanged, compiles nothing;
#   - OUT writable over virtio-9p, on /run/xrx-guest in the guest, whose
#     OUT/cmd the guest runs (scripts/kernels/init);
#   - a 2-queue virtio-net NIC on the host's multi-queue tap TAP (MAC
#     52:54:00:12:34:56), NICOPTS appended to its -device options;
# console in LOG, at most SECONDS. Exit: QEMU's, 124 on the time limit.
set -u
KDIR=$1 OUT=$2 TAP=$3 NICOPTS=$4 LOG=$5 SECS=$6
accel=tcg,thread=multi
[ -w /dev/kvm ] && accel=kvm
nic=virtio-net-pci,netdev=n0,mq=on,vectors=6,mac=52:54:00:12:34:56
[ -n "$NICOPTS" ] && nic=$nic,$NICOPTS
# Without -cpu max, TCG's default CPU lacks what Debian's kernels and
# the host's binaries (x86-64-v2 and up) expect.
exec timeout --kill-after=10 "$SECS" qemu-system-x86_64 \
	-accel $accel -cpu max -smp 2 -m 2048 -nographic -no-reboot \
	-kernel "$KDIR/vmlinuz" -initrd "$KDIR/initrd.img" \
	-append "console=ttyS0 quiet panic=-1 oops=panic no_timer_check" \
	-fsdev local,id=r,path=/,readonly=on,security_model=none,multidevs=remap \
	-device virtio-9p-pci,fsdev=r,mount_tag=xrxroot \
	-fsdev local,id=o,path="$OUT",security_model=none \
	-device virtio-9p-pci,fsdev=o,mount_tag=xrxout \
	-netdev tap,id=n0,ifname="$TAP",queues=2,vhost=off,script=no,downscript=no \
	-device "$nic" \
	-serial file:"$LOG" -monitor none -display none </dev/null >>"$LOG.qemu" 2>&1
