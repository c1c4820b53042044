#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make install / make uninstall into a staging root (DESTDIR): what is
# installed builds from nothing under tests/; every file where its users
# look for it, with its mode; the installed programs run;
# the installed unit passes `systemd-analyze verify` against the installed
# programs and man pages; a program builds against the installed library
# through pkg-config; a changed example config survives install and
# uninstall; uninstall leaves nothing behind.
. "$(dirname "$0")/../lib.sh"

WORK=$(mktemp -d /tmp/xrx-install.XXXXXX)
at_exit rm -rf "$WORK"
D=$WORK/root
P=/usr/local

for f in xrxd xrxctl xrx-replay xrx_rx.bpf.o libxrx.a; do
	if [ ! -e "$BUILD/$f" ]; then
		skip "make install" "$BUILD/$f missing; run make"
		done_testing
		exit 0
	fi
done

minstall() {
	make -C "$TOP" --no-print-directory -s BUILD="$BUILD" DESTDIR="$D" "$@"
}

# What is installed builds from nothing under tests/: every command
# `make programs` would run, read without running them (make -n -B), names
# no file there (the tools share the frame builder through user/util).
make -C "$TOP" --no-print-directory -n -B BUILD="$WORK/dry" programs \
	>"$WORK/dry.log" 2>&1
rc=$?
grep -nE '(^|[ =/])tests/' "$WORK/dry.log" | head -5 | sed 's/^/# /'
check "make programs uses no file under tests/ ($(wc -l <"$WORK/dry.log") commands read)" \
	$([ $rc = 0 ] && [ -s "$WORK/dry.log" ] && ! grep -qE '(^|[ =/])tests/' "$WORK/dry.log"; echo $?)

minstall install >"$WORK/install.log" 2>&1
rc=$?
sed 's/^/# /' "$WORK/install.log"
check "make install DESTDIR=... exits 0" $rc
if [ $rc != 0 ]; then
	done_testing
	exit 1
fi

# has MODE PATH: the file exists with exactly this mode.
has() {
	[ -f "$D$2" ] && [ "$(stat -c %a "$D$2")" = "$1" ]
}
ok "xrxd in sbin, 0755" has 755 $P/sbin/xrxd
ok "xrxctl in sbin, 0755" has 755 $P/sbin/xrxctl
for t in "$TOP"/user/tools/*.c; do
	n=$(basename "$t" .c)
	ok "$n in bin, 0755" has 755 $P/bin/$n
done
ok "BPF object in lib/bpf for xdp-loader, 0644" has 644 $P/lib/bpf/xrx_rx.bpf.o
ok "the compat BPF object (kernels without bpf_cast_to_kern_ctx()) beside it, 0644" \
	has 644 $P/lib/bpf/xrx_rx_compat.bpf.o
ok "the chain BPF object (behind libxdp's dispatcher) beside it, 0644" \
	has 644 $P/lib/bpf/xrx_rx_chain.bpf.o
ok "BPF object is a BPF ELF with its xdp.frags program" \
	eval "readelf -hS '$D$P/lib/bpf/xrx_rx.bpf.o' | grep -q 'Linux BPF' &&
	      readelf -S '$D$P/lib/bpf/xrx_rx.bpf.o' | grep -q 'xdp.frags'"
ok "libxrx.a in lib, 0644" has 644 $P/lib/libxrx.a
ok "xrx.pc in lib/pkgconfig" has 644 $P/lib/pkgconfig/xrx.pc
hdr=0
for h in "$TOP"/include/xrx/*.h; do
	has 644 "$P/include/xrx/$(basename "$h")" && cmp -s "$h" "$D$P/include/xrx/$(basename "$h")" || hdr=1
done
check "every include/xrx header installed as is, 0644" $hdr
ok "unit in lib/systemd/system, 0644" has 644 $P/lib/systemd/system/xrxd@.service
ok "man pages: xrxd(8) xrxctl(8) xrx-replay(1) xrx.conf(5)" eval \
	"has 644 $P/share/man/man8/xrxd.8 && has 644 $P/share/man/man8/xrxctl.8 &&
	 has 644 $P/share/man/man1/xrx-replay.1 && has 644 $P/share/man/man5/xrx.conf.5"
ok "docs: xrx.conf.md and the architecture picture" eval \
	"has 644 $P/share/doc/xrx/xrx.conf.md && has 644 $P/share/doc/xrx/architecture.svg"
ok "example config in /etc/xrx, 0644" has 644 /etc/xrx/example.conf

# Nothing outside PREFIX and /etc/xrx; nothing writable by group or others.
stray=$(cd "$D" && find . -type f | grep -vE "^\.($P/|/etc/xrx/)")
[ -n "$stray" ] && diag "outside PREFIX: $stray"
check "no file outside $P and /etc/xrx" $([ -z "$stray" ]; echo $?)
wr=$(find "$D" -mindepth 1 -perm /022 -printf '%m %P\n')
[ -n "$wr" ] && diag "writable by others: $wr"
check "no file or directory writable by group or others" $([ -z "$wr" ]; echo $?)
ex=$(cd "$D" && find . -type f -perm /111 | grep -vE "^\.$P/s?bin/")
check "executables only in bin and sbin" $([ -z "$ex" ]; echo $?)

# --- the installed programs run ------------------------------------------
for b in sbin/xrxd sbin/xrxctl bin/xrx-replay; do
	out=$("$D$P/$b" --help 2>&1)
	check "installed $b --help exits 0 with a usage line" \
		$([ $? = 0 ] && echo "$out" | grep -q '^Usage: '; echo $?)
done

ver=$(sed -n 's/^Version: //p' "$D$P/lib/pkgconfig/xrx.pc")
for b in sbin/xrxd sbin/xrxctl bin/xrx-replay bin/xrx-send; do
	out=$("$D$P/$b" --version 2>&1)
	check "installed $b --version prints '$(basename $b) $ver'" \
		$([ $? = 0 ] && [ "$out" = "$(basename $b) $ver" ]; echo $?)
done

ok "xrxd(8) FILES names the unit where it was installed" \
	grep -qxF ".I $P/lib/systemd/system/xrxd@.service" "$D$P/share/man/man8/xrxd.8"

# --- the unit --------------------------------------------------------------
U=$D$P/lib/systemd/system/xrxd@.service
ok "unit runs $P/sbin/xrxd" grep -qx "ExecStart=$P/sbin/xrxd --interface %I --config /etc/xrx/%I.conf" "$U"
ok "unit reloads through $P/sbin/xrxctl, which waits for the outcome" \
	grep -qx "ExecReload=$P/sbin/xrxctl reload %I" "$U"
ok "unit restores with $P/sbin/xrxctl" grep -qx "ExecStopPost=$P/sbin/xrxctl restore %I" "$U"
# man: pages, found whatever compresses them (a packager's gzip).
ok "unit documents the man pages" \
	grep -qx "Documentation=man:xrxd(8) man:xrxctl(8) man:xrx.conf(5)" "$U"
ok "the device binding, a drop-in of its own beside the unit" \
	eval "has 644 '$P/lib/systemd/system/xrxd@.service.d/device.conf' &&
	      grep -qx 'BindsTo=sys-subsystem-net-devices-%i.device' '$U.d/device.conf'"
if ! command -v systemd-analyze >/dev/null; then
	skip "systemd-analyze verify" "systemd-analyze not installed (package systemd)"
else
	# Verify runs the unit's commands' paths and man: references, so point
	# both at the staging root: the programs and pages just installed.
	mkdir "$WORK/units"
	sed "s#$P/sbin/#$D$P/sbin/#g" "$U" >"$WORK/units/xrxd@.service"
	cp -r "$U.d" "$WORK/units/"
	MANPATH=$D$P/share/man systemd-analyze verify "$WORK/units/xrxd@eth0.service" \
		>"$WORK/verify" 2>&1
	rc=$?
	sed 's/^/# /' "$WORK/verify"
	check "systemd-analyze verify of the installed unit: silent" \
		$([ $rc = 0 ] && [ ! -s "$WORK/verify" ]; echo $?)
fi

# --- a program built against the installed library -------------------------
cat >"$WORK/uselib.c" <<'EOF'
#include <stdio.h>
#include <xrx/xrx.h>
#include <xrx/parse.h>

int main(int argc, char **argv)
{
	/* Referenced, not run: the link pulls in the live path (libbpf,
	 * libxdp) and the sinks (libpcap), so xrx.pc must name them. */
	if (argc > 1) {
		struct xrx_live_opts o = { .sz = sizeof(o), .sink = "null" };

		xrx_live__close(xrx_live__open(argv[1], &o));
	}
	printf("%s\n", xrx_engine_stat__name(XRX_ENGINE_STAT_FRAMES_IN));
	return 0;
}
EOF
export PKG_CONFIG_SYSROOT_DIR=$D PKG_CONFIG_PATH=$D$P/lib/pkgconfig
# A sanitized libxrx (SANITIZE=1) needs its runtime in the program too.
san=
built_with_asan && san="-fsanitize=address,undefined"
# shellcheck disable=SC2046,SC2086
gcc -std=c11 -Wall -Wextra -Werror $san "$WORK/uselib.c" -o "$WORK/uselib" \
	$(pkg-config --cflags --libs xrx) >"$WORK/cc.log" 2>&1
rc=$?
sed 's/^/# /' "$WORK/cc.log"
check "a C11 program builds with pkg-config xrx against the installed files" $rc
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH
check "and runs" $([ "$("$WORK/uselib" 2>/dev/null)" = frames_in ]; echo $?)

# --- config files are the admin's ------------------------------------------
echo "# changed locally" >>"$D/etc/xrx/example.conf"
minstall install >/dev/null 2>&1
check "install keeps a changed /etc/xrx/example.conf" \
	$(tail -1 "$D/etc/xrx/example.conf" | grep -qx '# changed locally'; echo $?)
minstall uninstall >"$WORK/uninstall.log" 2>&1
check "make uninstall exits 0" $?
check "uninstall keeps a changed /etc/xrx/example.conf" \
	$([ -f "$D/etc/xrx/example.conf" ]; echo $?)
left=$(cd "$D" && find . -type f)
check "uninstall removes everything else" $([ "$left" = ./etc/xrx/example.conf ]; echo $?)
rm -rf "$D"

# --- a pristine install/uninstall with PREFIX=/usr -------------------------
minstall PREFIX=/usr install >/dev/null 2>&1
check "PREFIX=/usr: the unit is in /usr/lib/systemd/system and runs /usr/sbin/xrxd" \
	$(grep -qx 'ExecStart=/usr/sbin/xrxd --interface %I --config /etc/xrx/%I.conf' \
		"$D/usr/lib/systemd/system/xrxd@.service"; echo $?)
minstall PREFIX=/usr uninstall >/dev/null 2>&1
left=$(find "$D" -mindepth 1 2>/dev/null)
[ -n "$left" ] && diag "left behind: $left"
check "uninstall leaves nothing, not even directories" $([ -z "$left" ]; echo $?)

done_testing
