#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Install or remove xrx's files: `make install` and `make uninstall` run
# this with the directories below in the environment. One list serves
# both directions, so uninstall removes exactly what install put down.
#
#   scripts/install.sh install|uninstall|list
#
#   DESTDIR     staging root (packaging); empty for the live system
#   PREFIX      /usr/local
#   BINDIR SBINDIR LIBDIR INCLUDEDIR MANDIR DOCDIR BPFDIR UNITDIR
#   PKGCONFIGDIR SYSCONFDIR       derived from PREFIX (SYSCONFDIR: /etc)
#   BUILD       where make put the binaries (build)
#   VERSION     written into xrx.pc
#
# The example config is a config file: an existing /etc/xrx/example.conf
# is never overwritten, and uninstall removes it only while it is still
# the shipped one, as dpkg treats conffiles.
set -eu
umask 022
cd "$(dirname "$0")/.."

PREFIX=${PREFIX:-/usr/local}
BINDIR=${BINDIR:-$PREFIX/bin}
SBINDIR=${SBINDIR:-$PREFIX/sbin}
LIBDIR=${LIBDIR:-$PREFIX/lib}
INCLUDEDIR=${INCLUDEDIR:-$PREFIX/include}
MANDIR=${MANDIR:-$PREFIX/share/man}
DOCDIR=${DOCDIR:-$PREFIX/share/doc/xrx}
BPFDIR=${BPFDIR:-$LIBDIR/bpf}
UNITDIR=${UNITDIR:-$LIBDIR/systemd/system}
PKGCONFIGDIR=${PKGCONFIGDIR:-$LIBDIR/pkgconfig}
SYSCONFDIR=${SYSCONFDIR:-/etc}
BUILD=${BUILD:-build}
# The version the programs print with --version.
VERSION=${VERSION:-$(sed -n 's/^#define XRX_VERSION "\(.*\)"$/\1/p' include/xrx/xrx.h)}
DESTDIR=${DESTDIR:-}
# "/" and trailing slashes would let the pruning below climb past it.
while [ "${DESTDIR%/}" != "$DESTDIR" ]; do DESTDIR=${DESTDIR%/}; done

die() {
	echo "install: $*" >&2
	exit 1
}

# files: one line per installed file, "MODE SOURCE TARGET". A source
# starting with @ is generated here (@unit, @pc) rather than copied.
files() {
	for t in user/tools/*.c; do
		n=$(basename "$t" .c)
		echo "0755 $BUILD/$n $BINDIR/$n"
	done
	echo "0755 $BUILD/xrxd $SBINDIR/xrxd"
	echo "0755 $BUILD/xrxctl $SBINDIR/xrxctl"
	# xrx_rx_compat: for xdp-loader on kernels without
	# bpf_cast_to_kern_ctx() (xrxd embeds both and picks by itself).
	echo "0644 $BUILD/xrx_rx.bpf.o $BPFDIR/xrx_rx.bpf.o"
	echo "0644 $BUILD/xrx_rx_compat.bpf.o $BPFDIR/xrx_rx_compat.bpf.o"
	# xrx_rx_chain: for xdp-loader behind libxdp's dispatcher where the
	# kernel refuses the others there (README).
	echo "0644 $BUILD/xrx_rx_chain.bpf.o $BPFDIR/xrx_rx_chain.bpf.o"
	echo "0644 $BUILD/libxrx.a $LIBDIR/libxrx.a"
	for h in include/xrx/*.h; do
		echo "0644 $h $INCLUDEDIR/xrx/$(basename "$h")"
	done
	echo "0644 @pc $PKGCONFIGDIR/xrx.pc"
	echo "0644 @unit $UNITDIR/xrxd@.service"
	echo "0644 systemd/xrxd@.service.d/device.conf $UNITDIR/xrxd@.service.d/device.conf"
	for m in man/*.[0-9]; do
		echo "0644 $m $MANDIR/man${m##*.}/$(basename "$m")"
	done
	for d in docs/*.md docs/architecture.svg docs/architecture.png; do
		[ -e "$d" ] && echo "0644 $d $DOCDIR/$(basename "$d")"
	done
	echo "0644 etc/xrx/example.conf $SYSCONFDIR/xrx/example.conf"
}

# The unit names the installed programs.
gen_unit() {
	sed -e "s#/usr/sbin/xrxd#$SBINDIR/xrxd#g" \
	    -e "s#/usr/sbin/xrxctl#$SBINDIR/xrxctl#g" \
	    systemd/xrxd@.service
}

# The man pages name the installed unit and documentation.
gen_man() {
	sed -e "s#/usr/lib/systemd/system/#$UNITDIR/#g" \
	    -e "s#/usr/share/doc/xrx/#$DOCDIR/#g" "$1"
}

# libxrx is a static library: its users link libbpf, libxdp, libpcap and
# libzstd (the pcap sink compresses closed files) too, so they are
# Requires, not Requires.private.
gen_pc() {
	cat <<EOF
prefix=$PREFIX
libdir=$LIBDIR
includedir=$INCLUDEDIR

Name: xrx
Description: XDP/AF_XDP receive path with header-only copy and GRO
Version: $VERSION
Requires: libbpf libxdp libpcap libzstd
Libs: -L\${libdir} -lxrx -lpthread
Cflags: -I\${includedir}
EOF
}

do_install() {
	files | while read -r mode src dst; do
		case "$src" in
		@*) ;;
		*) [ -e "$src" ] || die "$src is missing; run make first" ;;
		esac
	done
	files | while read -r mode src dst; do
		t=$DESTDIR$dst
		mkdir -p "$(dirname "$t")"
		case "$src" in
		@unit) gen_unit >"$t.tmp" && chmod "$mode" "$t.tmp" && mv "$t.tmp" "$t" ;;
		@pc) gen_pc >"$t.tmp" && chmod "$mode" "$t.tmp" && mv "$t.tmp" "$t" ;;
		man/*) gen_man "$src" >"$t.tmp" && chmod "$mode" "$t.tmp" && mv "$t.tmp" "$t" ;;
		etc/*)
			if [ -e "$t" ] && ! cmp -s "$src" "$t"; then
				echo "install: keeping $t (changed locally); the shipped one is $PWD/$src"
			else
				install -m "$mode" "$src" "$t"
			fi
			;;
		*) install -m "$mode" "$src" "$t" ;;
		esac
	done
}

do_uninstall() {
	files | while read -r mode src dst; do
		t=$DESTDIR$dst
		case "$src" in
		etc/*)
			if [ -e "$t" ] && ! cmp -s "$src" "$t"; then
				echo "uninstall: keeping $t (changed locally)"
				continue
			fi
			;;
		esac
		rm -f "$t"
	done
	# xrx's own directories go with their last file. In a staging root
	# (DESTDIR) every directory install created goes too; on the live
	# system shared ones (/usr/local/bin, man8, ...) stay.
	for d in "$INCLUDEDIR/xrx" "$DOCDIR" "$SYSCONFDIR/xrx" "$UNITDIR/xrxd@.service.d"; do
		rmdir "$DESTDIR$d" 2>/dev/null || true
	done
	[ -n "$DESTDIR" ] || return 0
	files | while read -r mode src dst; do
		d=$(dirname "$DESTDIR$dst")
		while [ "$d" != "$DESTDIR" ] && [ "$d" != "/" ]; do
			# gone already (an own directory, a sibling's path)
			if [ -d "$d" ]; then
				rmdir "$d" 2>/dev/null || break
			fi
			d=$(dirname "$d")
		done
	done
}

case "${1:-}" in
install) do_install ;;
uninstall) do_uninstall ;;
list) files | awk '{ print $1, $3 }' ;;
*)
	echo "usage: scripts/install.sh install|uninstall|list" >&2
	exit 2
	;;
esac
