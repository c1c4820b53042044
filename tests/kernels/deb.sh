#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Guest: the packaged xrxd (the xrx .deb that make deb leaves in
# BUILD/deb) on Debian 12's own kernel, 6.1, the oldest of the matrix:
# unpacked into the guest's writable /tmp, its /usr/sbin/xrxd and xrxctl
# find their libraries, start on the virtio-net NIC, take the frames the
# host sends, and stop leaving no program behind. The other kernels run
# the build tree's xrxd (live). Without a .deb this is a skip that says
# to run make deb first.
. "$(dirname "$0")/lib.sh"
if [ "$(uname -r | cut -d. -f1,2)" != 6.1 ]; then
	skip "the packaged xrxd" "runs on the 6.1 guest (Debian 12's kernel) only"
	done_testing
	exit 0
fi
DEB=$(ls "$BUILD"/deb/xrx_*_amd64.deb 2>/dev/null | head -1)
if [ -z "$DEB" ]; then
	skip "the packaged xrxd" "no $BUILD/deb/xrx_*_amd64.deb: run make deb before the kernel matrix"
	done_testing
	exit 0
fi
xrxd_need bpffs
guest_dut_up || { check "eth0 into the DUT namespace" 1; done_testing; exit 1; }
xrxd_work deb
keep_logs deb
R=$WORK/root
dpkg-deb -x "$DEB" "$R"
check "$(basename "$DEB") unpacks" $?
XRXD=$R/usr/sbin/xrxd
XRXCTL=$R/usr/sbin/xrxctl
missing=$(ldd "$XRXD" "$XRXCTL" 2>&1 | grep 'not found')
[ -n "$missing" ] && echo "$missing" | sed 's/^/# /'
check "the package's xrxd and xrxctl find every library" $([ -z "$missing" ]; echo $?)
"$XRXD" --version >"$WORK/version" 2>&1
check "the package's xrxd runs: $(head -1 "$WORK/version")" $?
guest_conf "sink = null"
xrxd_up
rc=$?; check "the package's xrxd starts on $(uname -r)" $rc
grep -E 'attached' "$WORK/xrxd.err" | sed 's/^/# /'
host_send --dport 5201 --flows 4 --segs 20 --trains 2 --gap-us 20000 -r 2000
check "the host sent 160 frames into the tap" $?
# stats_settled's 10 s bound, generous on the host, is not under TCG on a
# busy host (a poll, xrxctl and the new file's parse, takes 1-2 s there).
since=$(date +%s%N)
wait_for 60 eval 'xrxctl stats $IF_DUT --json >"$WORK/s.json" 2>/dev/null &&
	[ "$(jpath "$WORK/s.json" user.updated_ns)" -gt $since ] &&
	[ "$(jpath "$WORK/s.json" user.unaccounted)" = 0 ]'
check "every frame accounted for" $?
in=$(jpath "$WORK/s.json" user.engine.frames_in)
check "the engine took all 160 frames ($in)" $([ "$in" = 160 ]; echo $?)
kill -TERM $pid
wait $pid
check "stop: xrxd exits 0" $?
check "stop: no XDP program left" $([ -z "$(prog_id)" ]; echo $?)
done_testing
