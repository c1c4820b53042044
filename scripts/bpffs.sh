#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Mount the BPF filesystem where pins live, if it is not mounted yet.
set -e
mountpoint -q /sys/fs/bpf && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "bpffs: /sys/fs/bpf is not mounted; run as root or: mount -t bpf bpf /sys/fs/bpf" >&2
	exit 1
fi
mount -t bpf bpf /sys/fs/bpf
