#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The Debian packages (make deb, debian/): built from a copy of the tree
# without touching its build folder; dependencies that match what the
# binaries link and what xrx.pc requires; lintian clean (each remaining
# tag overridden with its reason). Then installed with dpkg into a
# throwaway root: an overlay of the host's root on tmpfs, mounted in a
# mount namespace of this test's own, so dpkg checks the dependencies
# against a copy of the host's own package database and runs the
# maintainer scripts and triggers, while the host's files and database
# stay untouched. There the installed programs run, the files are where
# they belong, the unit template is neither enabled nor started, systemd
# is told to reload its units on install and removal, removal stops
# running instances, and purging leaves no file behind (the overlay's
# upper layer holds every change), the links of instances the admin
# enabled included, but the configs the admin wrote.
#
# About a minute on 2 cores (45-70 s on a busy machine): half of it the
# package build, the rest lintian and dpkg's man-db trigger.
. "$(dirname "$0")/../lib.sh"

need_root
for t in dpkg-buildpackage dh; do
	command -v $t >/dev/null ||
		skip_all "$t missing (packages dpkg-dev, debhelper; scripts/deps.sh installs them)"
done
command -v unshare >/dev/null || skip_all "unshare missing (package util-linux)"
# Every mount below lives and dies with this namespace.
if [ -z "${XRX_DEB_MOUNT_NS:-}" ]; then
	unshare --mount --propagation private true 2>/dev/null ||
		skip_all "cannot create a mount namespace (unshare --mount)"
	XRX_DEB_MOUNT_NS=1 exec unshare --mount --propagation private -- \
		/bin/bash "$0" "$@"
fi

WORK=$(mktemp -d /tmp/xrx-deb.XXXXXX)
# --one-file-system: never descend into a mount, should one be left.
at_exit rm -rf --one-file-system "$WORK"
OUT=$WORK/out
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export DEBIAN_FRONTEND=noninteractive

# A fingerprint of the tree's build folder: names, sizes and mtimes
# (but for tests/run.sh's logs, this test's own among them).
build_print() {
	[ -d "$BUILD" ] || return 0
	find "$BUILD" -path "$BUILD/test-logs" -prune -o -printf '%P %s %T@\n' |
		sort | sha256sum
}

# --- the build --------------------------------------------------------------
# What dpkg-buildpackage writes when it runs in the tree itself.
next_to_tree() {
	find "$TOP/.." -maxdepth 1 \( -name '*.deb' -o -name '*.changes' -o \
		-name '*.buildinfo' \) | sort
}
before=$(build_print)
parent_before=$(next_to_tree)
start=$(date +%s)
make -C "$TOP" --no-print-directory -s deb DEBDIR="$OUT" >"$WORK/build.log" 2>&1
rc=$?
diag "make deb: $(($(date +%s) - start)) s"
[ $rc = 0 ] || tail -30 "$WORK/build.log" | sed 's/^/# /'
check "make deb exits 0" $rc
XRX_DEB=$(ls "$OUT"/xrx_*.deb 2>/dev/null)
DEV_DEB=$(ls "$OUT"/libxrx-dev_*.deb 2>/dev/null)
check "it builds xrx and libxrx-dev" $([ -f "$XRX_DEB" ] && [ -f "$DEV_DEB" ]; echo $?)
if [ ! -f "$XRX_DEB" ] || [ ! -f "$DEV_DEB" ]; then
	done_testing
	exit 1
fi
check "the tree's $(basename "$BUILD")/ is neither used nor touched" \
	$([ "$(build_print)" = "$before" ]; echo $?)
check "nothing written next to the tree" \
	$([ "$(next_to_tree)" = "$parent_before" ]; echo $?)
# dh skips a step whose override is empty: no dh_auto_test, no make test.
ok "the package build does not run the test suite" \
	eval "grep -q 'debian/rules override_dh_auto_build' '$WORK/build.log' &&
	      ! grep -qE '^\s*(dh_auto_test|make( -j[0-9]+)? (test|check))\b' '$WORK/build.log'"

# --- metadata ---------------------------------------------------------------
field() { dpkg-deb -f "$1" "$2" | tr ',' '\n' | sed 's/(.*)//; s/[[:space:]]//g' | sed '/^$/d' | sort -u; }

# The packages that own the libraries the programs link (NEEDED).
mkdir "$WORK/x"
dpkg-deb -x "$XRX_DEB" "$WORK/x"
needed=$(for b in "$WORK"/x/usr/sbin/* "$WORK"/x/usr/bin/*; do
	readelf -d "$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
done | sort -u)
diag "NEEDED: $(echo $needed)"
# owner PATH: the package that installed PATH (as /lib or /usr/lib).
owner() {
	local c
	for c in "$1" "/usr$1" "${1#/usr}"; do
		dpkg -S "$c" 2>/dev/null | cut -d: -f1 | grep . && return 0
	done
	diag "no package owns $1"
}
linked=$(for l in $needed; do
	owner "$(ldconfig -p | awk -v l="$l" '$1 == l && $0 ~ "/'"$MA"'/" { print $NF; exit }')"
done | sort -u)
depends=$(field "$XRX_DEB" Depends)
diag "xrx Depends: $(echo $depends)"
# and adduser, whose addgroup the postinst runs (group xrx)
linked=$(printf '%s\nadduser\n' "$linked" | sort -u)
check "xrx depends on exactly the packages of the libraries its programs link, and adduser" \
	$([ -n "$linked" ] && [ "$linked" = "$depends" ]; echo $?)

# libxrx-dev: the -dev packages of what xrx.pc requires.
mkdir "$WORK/d"
dpkg-deb -x "$DEV_DEB" "$WORK/d"
pc=$WORK/d/usr/lib/$MA/pkgconfig/xrx.pc
required=$(sed -n 's/^Requires: *//p' "$pc" | tr -s ', ' '\n' | sed '/^$/d' | while read -r m; do
	owner "$(pkg-config --variable=pcfiledir "$m")/$m.pc"
done | sort -u)
dev_depends=$(field "$DEV_DEB" Depends)
diag "libxrx-dev Depends: $(echo $dev_depends)"
diag "xrx.pc requires what these packages install: $(echo $required)"
# A dependency may name the usual -dev package that depends on the one
# holding the .pc file (libpcap-dev: libpcap0.8-dev).
resolved=$(for d in $dev_depends; do
	if echo "$required" | grep -qxF "$d"; then
		echo "$d"
	else
		dpkg-query -W -f='${Depends}\n' "$d" 2>/dev/null | tr ',' '\n' |
			sed 's/(.*)//; s/|.*//; s/[[:space:]]//g' | grep -xF "$required" ||
			echo "$d:unneeded"
	fi
done | sort -u)
check "libxrx-dev depends on exactly the -dev packages xrx.pc requires" \
	$([ -n "$required" ] && [ "$required" = "$resolved" ]; echo $?)

check "/etc/xrx/example.conf is xrx's only conffile" \
	$([ "$(dpkg-deb --ctrl-tarfile "$XRX_DEB" | tar -xO ./conffiles 2>/dev/null)" = /etc/xrx/example.conf ]; echo $?)
# Enabling or starting a template without an instance is meaningless.
scripts=$(dpkg-deb --ctrl-tarfile "$XRX_DEB" | tar -xO ./postinst ./preinst 2>/dev/null)
check "no maintainer script enables or starts xrxd@.service" \
	$(! echo "$scripts" | grep -qE 'deb-systemd-(helper|invoke).*xrxd'; echo $?)

if ! command -v lintian >/dev/null; then
	skip "lintian" "lintian missing (package lintian; scripts/deps.sh installs it)"
else
	start=$(date +%s)
	lintian -I --pedantic "$OUT"/xrx_*.changes >"$WORK/lintian" 2>&1
	diag "lintian: $(($(date +%s) - start)) s"
	sed 's/^/# /' "$WORK/lintian"
	# Pedantic tags are shown, not held against the package.
	check "lintian: no error, warning or info tag that is not overridden" \
		$(! grep -qE '^[EWI]: ' "$WORK/lintian"; echo $?)
fi

# --- a throwaway root -------------------------------------------------------
OVL=$WORK/ovl
R=$OVL/root
UP=$OVL/upper
mkdir "$OVL"
mount -t tmpfs -o mode=0755 xrx-deb "$OVL" &&
	mkdir "$R" "$UP" "$OVL/work" &&
	mount -t overlay -o "lowerdir=/,upperdir=$UP,workdir=$OVL/work" xrx-deb "$R" 2>"$WORK/mount.err"
rc=$?
at_exit umount -R "$OVL"
if [ $rc != 0 ]; then
	skip "install, run, remove, purge" \
		"cannot mount an overlay of / on tmpfs: $(cat "$WORK/mount.err")"
	done_testing
	exit $?
fi
# The host's /run (its systemd, its netns) and /dev stay outside: the
# root gets empty ones and the device nodes maintainer scripts use.
mount -t tmpfs -o mode=0755 xrx-deb-run "$R/run"
mount -t tmpfs -o mode=0755 xrx-deb-dev "$R/dev"
mknod -m 666 "$R/dev/null" c 1 3
mknod -m 666 "$R/dev/zero" c 1 5
mknod -m 666 "$R/dev/urandom" c 1 9
mount -t proc proc "$R/proc"

# A host with xrx installed from source (make install) has an unowned
# /etc/xrx, and dpkg would ask about the conffile; start from none.
if [ -e "$R/etc/xrx" ]; then
	diag "the host has /etc/xrx; the throwaway root starts without it"
	rm -rf "$R/etc/xrx"
fi
mkdir -m 0700 "$R/tmp/xrx-deb-check"
T=/tmp/xrx-deb-check
in_root() { chroot "$R" "$@"; }

# systemd does not run here: the maintainer scripts see a booted systemd
# (/run/systemd/system) and a stand-in systemctl that records what it is
# asked (their PATH has /usr/local/bin before /usr/bin); to list-units
# it answers with the instances $T/running says are running.
mkdir -p "$R/run/systemd/system"
cat >"$R/usr/local/bin/systemctl" <<EOF
#!/bin/sh
echo "\$*" >>$T/systemctl.log
[ "\$1" = list-units ] && cat $T/running 2>/dev/null
exit 0
EOF
chmod 755 "$R/usr/local/bin/systemctl"

start=$(date +%s)
dpkg --root="$R" -i "$XRX_DEB" "$DEV_DEB" >"$WORK/dpkg-i.log" 2>&1
rc=$?
sed 's/^/# /' "$WORK/dpkg-i.log"
diag "dpkg -i: $(($(date +%s) - start)) s"
check "dpkg -i xrx libxrx-dev: dependencies met by the host's packages" $rc
st=$(in_root dpkg-query -W -f='${db:Status-Abbrev} ' xrx libxrx-dev 2>/dev/null)
check "both installed ($st)" $([ "$st" = "ii  ii  " ]; echo $?)
ok "dpkg --verify: every file as packaged" in_root dpkg --verify xrx libxrx-dev
check "install: the system group xrx, which reads xrxd's counters (docs/xrxd.md)" \
	$(in_root getent group xrx >/dev/null; echo $?)
# dh_installsystemd leaves template units out; the package does it.
check "install: systemctl daemon-reload, so systemd reads the new unit" \
	$(grep -qx -- "--system daemon-reload" "$R$T/systemctl.log" 2>/dev/null; echo $?)
: >"$R$T/systemctl.log"

# has MODE PATH: a regular file in the root with exactly this mode.
has() { [ -f "$R$2" ] && [ "$(stat -c %a "$R$2")" = "$1" ]; }
ok "xrxd, xrxctl in /usr/sbin" eval "has 755 /usr/sbin/xrxd && has 755 /usr/sbin/xrxctl"
for t in "$TOP"/user/tools/*.c; do
	n=$(basename "$t" .c)
	ok "$n in /usr/bin" has 755 /usr/bin/$n
done
for o in xrx_rx xrx_rx_compat xrx_rx_chain; do
	ok "XDP object $o.bpf.o in /usr/lib/bpf, a BPF ELF with its xdp.frags program" eval \
		"has 644 /usr/lib/bpf/$o.bpf.o &&
		 readelf -hS '$R/usr/lib/bpf/$o.bpf.o' | grep -q 'Linux BPF' &&
		 readelf -S '$R/usr/lib/bpf/$o.bpf.o' | grep -q 'xdp.frags'"
done
U=/lib/systemd/system/xrxd@.service
ok "unit template in $(dirname $U), running /usr/sbin/xrxd" eval \
	"has 644 $U && grep -q '^ExecStart=/usr/sbin/xrxd ' '$R$U'"
ok "the device binding beside it (xrxd@.service.d/device.conf)" \
	has 644 "$U.d/device.conf"
# Every Documentation= target must be there as installed (a file:// URL
# of a page dh_compress gzips is not).
docs=0
for d in $(sed -n 's/^Documentation=//p' "$R$U"); do
	case "$d" in
	man:*)
		n=${d#man:}
		sec=$(echo "$n" | tr -dc 0-9)
		has 644 "/usr/share/man/man$sec/${n%(*}.$sec.gz" || { diag "missing $d"; docs=1; }
		;;
	file://*) [ -e "$R${d#file://}" ] || { diag "missing $d"; docs=1; } ;;
	*) diag "unexpected Documentation= $d"; docs=1 ;;
	esac
done
check "every Documentation= target of the unit is installed" $docs
man=0
for m in "$TOP"/man/*.[0-9]; do
	n=$(basename "$m")
	has 644 "/usr/share/man/man${n##*.}/$n.gz" || { diag "missing man page $n"; man=1; }
done
check "every man page, compressed" $man
ok "xrx.conf(5) renders from the installed page" eval \
	"in_root man -P cat xrx.conf 2>/dev/null | grep -q 'interface'"
ok "example config in /etc/xrx" has 644 /etc/xrx/example.conf
ok "copyright in /usr/share/doc of both" eval \
	"has 644 /usr/share/doc/xrx/copyright && has 644 /usr/share/doc/libxrx-dev/copyright"
hdr=0
for h in "$TOP"/include/xrx/*.h; do
	cmp -s "$h" "$R/usr/include/xrx/$(basename "$h")" || hdr=1
done
check "every include/xrx header in /usr/include/xrx" $hdr
ok "libxrx.a and xrx.pc under /usr/lib/$MA" eval \
	"has 644 /usr/lib/$MA/libxrx.a && has 644 /usr/lib/$MA/pkgconfig/xrx.pc"

# The installed programs, run in the root.
printf 'interface = lo\n' >"$R$T/lo.conf"
in_root /usr/sbin/xrxd -c $T/lo.conf --check-config >"$WORK/check" 2>&1
rc=$?
sed 's/^/# /' "$WORK/check" | head -5
check "xrxd --check-config with a minimal config: exit 0, the config with its defaults" \
	$([ $rc = 0 ] && grep -qE '^interface *= *lo' "$WORK/check" &&
	  grep -qE '^max_aggregate *=' "$WORK/check"; echo $?)
ok "xrxd --check-config accepts the shipped /etc/xrx/example.conf" \
	eval "in_root /usr/sbin/xrxd -c /etc/xrx/example.conf --check-config >/dev/null 2>&1"
# debian/changelog and the version the programs print must not drift.
pv=$(dpkg-deb -f "$XRX_DEB" Version)
rv=$(in_root /usr/bin/xrx-replay --version 2>&1)
check "the package version ($pv) is the one the programs print ($rv)" \
	$([ "$rv" = "xrx-replay ${pv%%-*}" ]; echo $?)
out=$(in_root /usr/sbin/xrxctl --help 2>&1)
check "xrxctl --help: exit 0 with a usage line" \
	$([ $? = 0 ] && echo "$out" | grep -q '^Usage: xrxctl'; echo $?)

# libxrx-dev: a program builds with pkg-config xrx and runs.
cat >"$R$T/uselib.c" <<'EOF'
#include <stdio.h>
#include <xrx/xrx.h>

int main(void)
{
	printf("%s\n", xrx_engine_stat__name(XRX_ENGINE_STAT_FRAMES_IN));
	return 0;
}
EOF
in_root sh -c "gcc -std=c11 -Wall -Werror $T/uselib.c -o $T/uselib \$(pkg-config --cflags --libs xrx)" \
	>"$WORK/cc.log" 2>&1
rc=$?
sed 's/^/# /' "$WORK/cc.log"
check "a program builds against libxrx-dev with pkg-config xrx" $rc
check "and runs" $([ "$(in_root $T/uselib 2>/dev/null)" = frames_in ]; echo $?)

enabled=$(cd "$UP" && find etc/systemd var/lib/systemd -name '*xrxd*' 2>/dev/null)
[ -n "$enabled" ] && diag "$enabled"
check "installing enabled no instance of xrxd@.service" $([ -z "$enabled" ]; echo $?)

# Removal under systemd stops every running instance first (its
# ExecStopPost needs xrxctl to restore the NIC). A stand-in
# deb-systemd-invoke records what it is asked.
cat >"$R/usr/local/sbin/deb-systemd-invoke" <<EOF
#!/bin/sh
echo "\$*" >>$T/invoke.log
EOF
chmod 755 "$R/usr/local/sbin/deb-systemd-invoke"
# policy-rc.d may refuse that stop (chroots, images built for
# containers): an instance still running afterwards would lose its unit
# and xrxctl, and leave xrx_rx and the offloads on its NIC. The removal
# fails instead, names the instance and the fix, and changes nothing.
echo "xrxd@eth0.service loaded active running xrx on eth0" >"$R$T/running"
dpkg --root="$R" --remove xrx >"$WORK/dpkg-r0.log" 2>&1
rc=$?
sed 's/^/# /' "$WORK/dpkg-r0.log"
st=$(in_root dpkg-query -W -f='${db:Status-Abbrev}' xrx 2>/dev/null)
check "removal while an instance runs on (its stop refused): fails, names it and the fix" \
	$([ $rc != 0 ] && grep -q "still running.*xrxd@eth0.service; stop them first (systemctl stop 'xrxd@\*')" "$WORK/dpkg-r0.log"; echo $?)
# (The first letter is the selection, "r" now that removal was asked
# for; the second the state, still "i"nstalled; no error flag third.)
check "... and xrx stays installed, every file as packaged ($st)" \
	$([ "${st:1:2}" = "i " ] && in_root dpkg --verify xrx; echo $?)
rm -f "$R$T/running" "$R$T/invoke.log"
: >"$R$T/systemctl.log"
dpkg --root="$R" --remove xrx >"$WORK/dpkg-r.log" 2>&1
rc=$?
sed 's/^/# /' "$WORK/dpkg-r.log"
check "dpkg --remove xrx" $rc
check "removal stopped every xrxd@ instance first" \
	$([ "$(cat "$R$T/invoke.log" 2>/dev/null)" = 'stop xrxd@*.service' ]; echo $?)
check "removal: systemctl daemon-reload, so systemd forgets the unit" \
	$(grep -qx -- "--system daemon-reload" "$R$T/systemctl.log" 2>/dev/null; echo $?)
rm -f "$R/usr/local/sbin/deb-systemd-invoke" "$R/usr/local/bin/systemctl"
rm -rf "$R/run/systemd"
ok "removal keeps the conffile" test -f "$R/etc/xrx/example.conf"

# An instance the admin enabled (systemctl enable xrxd@eth0) left links
# to the template, dangling since the removal: purge takes them.
W=$R/etc/systemd/system
mkdir -p "$W/multi-user.target.wants" "$W/sys-subsystem-net-devices-eth0.device.wants"
ln -s /lib/systemd/system/xrxd@.service "$W/multi-user.target.wants/xrxd@eth0.service"
ln -s /lib/systemd/system/xrxd@.service \
	"$W/sys-subsystem-net-devices-eth0.device.wants/xrxd@eth0.service"

# The unit made /var/lib/xrx for captures, none kept: purge removes it.
mkdir -p "$R/var/lib/xrx"
dpkg --root="$R" --purge xrx libxrx-dev >"$WORK/dpkg-p.log" 2>&1
rc=$?
sed 's/^/# /' "$WORK/dpkg-p.log"
check "dpkg --purge xrx libxrx-dev" $rc
check "purge removed the enabled instance's dangling .wants links (and the emptied directory)" \
	$([ ! -L "$W/multi-user.target.wants/xrxd@eth0.service" ] &&
	  [ ! -e "$W/sys-subsystem-net-devices-eth0.device.wants" ]; echo $?)
# Purged: dpkg-query knows neither, or only as "not installed" (un/pn).
st=$(in_root dpkg-query -W -f='${db:Status-Abbrev}\n' xrx libxrx-dev 2>/dev/null)
check "neither is installed any more" $(! echo "$st" | grep -qvE '^([up]n|$)'; echo $?)
rm -rf "$R$T"

# What the packages left: every entry of the upper layer that is not a
# deletion (a whiteout) and not a directory the host has anyway, except
# dpkg's own database and log and man-db's index, and the group databases
# addgroup wrote: the system group xrx stays on purge, as Debian keeps
# the system users and groups packages made.
left=$(cd "$UP" && find . -mindepth 1 \
	\( -path ./var/lib/dpkg -o -path ./var/log/dpkg.log -o -path ./var/cache/man \) -prune -o \
	\( -path ./etc/group -o -path ./etc/group- -o -path ./etc/gshadow -o \
	   -path ./etc/gshadow- -o -path ./etc/.pwd.lock \) -prune -o \
	-print | while read -r p; do
		p=${p#./}
		[ -c "$UP/$p" ] && [ "$(stat -c %t:%T "$UP/$p")" = 0:0 ] && continue
		[ -d "$UP/$p" ] && [ ! -L "$UP/$p" ] && [ -d "/$p" ] && continue
		echo "/$p"
	done)
[ -n "$left" ] && diag "left behind: $(echo $left)"
check "purge leaves no file or directory behind" $([ -z "$left" ]; echo $?)

# The admin's configs are the admin's: purge takes only the conffile.
# Captures too: purge keeps them and says where they are.
dpkg --root="$R" -i "$XRX_DEB" >"$WORK/dpkg-i2.log" 2>&1 &&
	printf 'interface = eth0\n' >"$R/etc/xrx/eth0.conf" &&
	mkdir -p "$R/var/lib/xrx" && printf 'capture' >"$R/var/lib/xrx/eth0.pcap" &&
	dpkg --root="$R" --purge xrx >"$WORK/dpkg-p2.log" 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$WORK/dpkg-i2.log" "$WORK/dpkg-p2.log"
check "purge keeps a config the admin wrote, and removes example.conf" \
	$([ $rc = 0 ] && [ -f "$R/etc/xrx/eth0.conf" ] && [ ! -e "$R/etc/xrx/example.conf" ]; echo $?)
check "purge keeps the captures in /var/lib/xrx and says so" \
	$([ "$(cat "$R/var/lib/xrx/eth0.pcap" 2>/dev/null)" = capture ] &&
	  grep -q "purge keeps the captures in /var/lib/xrx; remove them with rm -r /var/lib/xrx" "$WORK/dpkg-p2.log"; echo $?)

# The package just built, where make deb puts it, for the kernel matrix
# that follows the host's tests: its 6.1 guest runs the packaged xrxd
# (tests/kernels/deb.sh). Last, after every check of an untouched build/.
mkdir -p "$BUILD/deb" && cp "$XRX_DEB" "$BUILD/deb/"

done_testing
