#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# scripts/kernels/fetch.sh SUITE: the kernel that SUITE's linux-image-amd64
# meta-package names today, downloaded with `apt-get download` (nothing is
# installed), unpacked and depmod'ed under the cache, with an initramfs
# for scripts/kernels/boot.sh. Prints the kernel's directory:
#   DIR/kver        the kernel release (6.12.95+deb12-amd64)
#   DIR/vmlinuz     the kernel image
#   DIR/root/       the unpacked packages (modules under lib/modules or
#                   usr/lib/modules, depmod'ed)
#   DIR/initrd.img  busybox-static init (scripts/kernels/init) and the
#                   modules that mounting the root over virtio-9p needs
#
# apt reads a private sources list and private package lists under the
# cache (bookworm, bookworm-backports, trixie-backports), never the
# machine's /etc/apt: backports suites keep their default low priority and
# nothing on the machine is upgraded from them. Cache: $XRX_KERNEL_CACHE,
# default /var/cache/xrx-kernels; the lists are refreshed when older than
# a day, a kernel is downloaded once per version.
#
# Exit: 0 ready, 1 cannot fetch or unpack (the reason on stderr), 2 usage.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${XRX_KERNEL_CACHE:-/var/cache/xrx-kernels}
MIRROR=${XRX_DEBIAN_MIRROR:-http://deb.debian.org/debian}

die() { echo "fetch.sh: $*" >&2; exit 1; }
[ $# = 1 ] || { echo "usage: fetch.sh SUITE" >&2; exit 2; }
SUITE=$1
for t in apt-get:apt dpkg-deb:dpkg depmod:kmod busybox:busybox-static xz:xz-utils zstd:zstd; do
	command -v ${t%%:*} >/dev/null ||
		die "${t%%:*} is missing: install package ${t#*:} (scripts/deps.sh does)"
done
# The initramfs has no libraries: its busybox must be the static one.
{ ldd /bin/busybox 2>&1 || true; } | grep -q 'not a dynamic' ||
	die "/bin/busybox is not static: install busybox-static (scripts/deps.sh)"

APTDIR=$CACHE/apt
mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" "$CACHE/debs"
cat >"$APTDIR/sources.list.new" <<EOF
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR bookworm main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR bookworm-backports main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR trixie-backports main
EOF
mv "$APTDIR/sources.list.new" "$APTDIR/sources.list"
APT=(-o Dir::Etc::sourcelist="$APTDIR/sources.list" -o Dir::Etc::sourceparts=/dev/null
     -o Dir::State::Lists="$APTDIR/lists" -o Dir::Cache="$APTDIR/cache"
     -o Dir::Etc::preferencesparts=/dev/null -o APT::Get::List-Cleanup=0 -q)

# One refresh at a time (the matrix fetches three kernels in a row).
exec 9>"$CACHE/.lock"
flock 9
stamp=$APTDIR/lists/.updated
if [ -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
	if apt-get "${APT[@]}" update >"$APTDIR/update.log" 2>&1; then
		touch "$stamp"
	elif ! ls "$APTDIR"/lists/*_Packages >/dev/null 2>&1; then
		die "apt-get update failed and no package list is cached (log: $APTDIR/update.log)"
	else
		echo "fetch.sh: apt-get update failed, using the package lists of $(date -r "$APTDIR/lists" '+%F')" >&2
	fi
fi

# dep PACKAGE/SUITE PREFIX: the name in PACKAGE's Depends that starts with PREFIX.
dep() {
	apt-cache "${APT[@]}" show "$1" 2>/dev/null | sed -n 's/^Depends: //p' | head -1 |
		tr ',|' '\n\n' | sed 's/^ *//; s/ .*//' | grep "^$2" | head -1
}
image=$(dep "linux-image-amd64/$SUITE" linux-image-) || true
[ -n "$image" ] || die "no linux-image-amd64 in $SUITE (apt lists in $APTDIR/lists)"
kver=${image#linux-image-}
# Since 7.x the image package is empty: the kernel is in linux-binary-KVER,
# its modules in linux-modules-KVER.
binary=$(dep "$image" linux-binary-) || true
if [ -n "$binary" ]; then
	pkgs="$binary $(dep "$image" linux-modules-)"
else
	pkgs=$image
fi

KDIR=$CACHE/$kver
if [ ! -e "$KDIR/.unpacked" ]; then
	rm -rf "$KDIR"
	mkdir -p "$KDIR/root"
	for p in $pkgs; do
		(cd "$CACHE/debs" && apt-get "${APT[@]}" download "$p" >"$KDIR/download.log" 2>&1) ||
			die "apt-get download $p failed (log: $KDIR/download.log)"
		deb=$(ls -t "$CACHE/debs/${p}_"*.deb | head -1)
		dpkg-deb -x "$deb" "$KDIR/root" || die "cannot unpack $deb"
	done
	for m in lib/modules usr/lib/modules; do
		[ -d "$KDIR/root/$m/$kver" ] && mdir=$m
	done
	[ -n "${mdir:-}" ] || die "no modules directory for $kver in $pkgs"
	if [ "$mdir" = usr/lib/modules ] && [ ! -e "$KDIR/root/lib" ]; then
		ln -s usr/lib "$KDIR/root/lib"
	fi
	depmod -b "$KDIR/root" "$kver" || die "depmod $kver failed"
	for v in "$KDIR/root/boot/vmlinuz-$kver" "$KDIR/root/usr/lib/modules/$kver/vmlinuz"; do
		[ -f "$v" ] && ln -sf "$v" "$KDIR/vmlinuz"
	done
	[ -e "$KDIR/vmlinuz" ] || die "no vmlinuz in $pkgs"
	echo "$kver" >"$KDIR/kver"
	touch "$KDIR/.unpacked"
fi
"$HERE/initramfs.sh" "$KDIR" || die "cannot build the initramfs for $kver"
echo "$KDIR"
