#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# scripts/kernels/initramfs.sh KDIR: KDIR/initrd.img for the kernel that
# scripts/kernels/fetch.sh unpacked in KDIR: static busybox, /init
# (scripts/kernels/init) and, decompressed, the modules that mounting a
# virtio-9p root needs where the kernel builds them as modules (Debian's
# 6.1 does, 6.12 builds the virtio core in), in dependency order. Rebuilt
# only when init or this script is newer than the image.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
KDIR=$1
kver=$(cat "$KDIR/kver")
out=$KDIR/initrd.img
if [ -e "$out" ] && [ "$out" -nt "$HERE/init" ] && [ "$out" -nt "$0" ]; then
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,proc,sys,dev,mods,newroot}
cp /bin/busybox "$tmp/bin/busybox"
install -m 755 "$HERE/init" "$tmp/init"
: >"$tmp/mods/order"
for mod in virtio_pci 9pnet_virtio 9p; do
	# One module per call: more words would be its parameters.
	# Built in (or unknown: the boot says so) lists nothing.
	{ modprobe -d "$KDIR/root" -S "$kver" --show-depends $mod 2>/dev/null || true; } |
		sed -n 's/^insmod \([^ ]*\).*/\1/p'
done | awk '!seen[$0]++' | while read -r ko; do
	name=$(basename "$ko")
	case "$name" in
	*.ko.xz)  xz -dc "$ko" >"$tmp/mods/${name%.xz}"; name=${name%.xz} ;;
	*.ko.zst) zstd -qdc "$ko" >"$tmp/mods/${name%.zst}"; name=${name%.zst} ;;
	*.ko)     cp "$ko" "$tmp/mods/$name" ;;
	*)        continue ;;
	esac
	echo "$name" >>"$tmp/mods/order"
done
(cd "$tmp" && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -1 >"$out.new"
mv "$out.new" "$out"
