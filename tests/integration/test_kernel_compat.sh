#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrxd on a kernel that lacks what newer ones have (Debian 12's 6.1: no
# bpf_cast_to_kern_ctx(), no XDP metadata kfuncs, no XDP_USE_SG). Here
# XRX_TEST_KERNEL_LACKS makes libxrx's probes answer "absent"; on such a
# kernel itself (a 6.1 guest) the probes answer so on their own and the
# same cases hold.
#
# Proves: with those features absent, xrxd attaches the compat build
# (its BTF has no xdp_buff, which the plain build's has), says so in one
# warning per feature naming the kernel release, binds its sockets
# without multi-buffer, and a TCP stream goes whole through its TUN sink
# while the pcap tee records every packet; xrxctl status lists each
# feature that is off and why. Without forcing, the build attached is
# the one the kernel's BTF calls for (bpftool as the oracle). When no
# build can load, xrxd and --check-config print one line naming the
# release and the missing helpers and exit 2, touching nothing; a
# read-only or missing bpffs is exit 2 as well.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"

PORT=5201
BYTES=$((8 << 20))
REL=$(uname -r)
xrxd_tun_testbed kernel-compat

CAP=$WORK/cap.pcap
cat >"$WORK/xrx.conf" <<EOF
interface = $IF_DUT
accelerate = tcp/$PORT
sink = tun:$TUN
tee = pcap:$CAP
EOF

# lines PATTERN FILE: how many lines of FILE match PATTERN.
lines() { grep -c -- "$1" "$2"; }
# has_xdp_buff ID: the BTF of program ID names struct xdp_buff___xrx,
# which only the build that reads the kernel's xdp_buff carries.
has_xdp_buff() {
	local btf
	btf=$(bpftool prog show id "$1" -j | "$PY" -c '
import json, sys
print(json.load(sys.stdin).get("btf_id", ""))')
	[ -n "$btf" ] && bpftool btf dump id "$btf" | grep -q "'xdp_buff___xrx'"
}
# xrx_id: the id of the xrx_rx xrxd pinned (behind libxdp's dispatcher,
# where the kernel allows freplace, it is not the id on the link).
xrx_id() {
	bpftool prog show pinned "$PIN/xrx_rx" -j | "$PY" -c '
import json, sys
print(json.load(sys.stdin)["id"])'
}
kernel_has_kern_ctx() {
	bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
		grep -q "FUNC 'bpf_cast_to_kern_ctx'"
}

check "oracle: the plain build's BTF has xdp_buff___xrx, the compat build's has not" \
	$(bpftool btf dump file "$BUILD/xrx_rx.bpf.o" | grep -q "'xdp_buff___xrx'" &&
	  ! bpftool btf dump file "$BUILD/xrx_rx_compat.bpf.o" | grep -q "'xdp_buff___xrx'"; echo $?)

# --- the features a 6.1 kernel lacks, absent --------------------------
export XRX_TEST_KERNEL_LACKS=kern_ctx,xdp_metadata,xsk_sg
xrxd_up || { check "xrxd up without kern_ctx, xdp_metadata, xsk_sg" 1; done_testing; exit 1; }
check "xrxd up without kern_ctx, xdp_metadata, xsk_sg" 0
id=$(xrx_id)
check "the compat build is attached (no xdp_buff in its BTF)" \
	$([ -n "$id" ] && ! has_xdp_buff "$id"; echo $?)
for f in bpf_cast_to_kern_ctx bpf_xdp_metadata_rx_hash XDP_USE_SG; do
	check "one warning names $f and the kernel release" \
		$([ "$(lines "$f" "$WORK/xrxd.err")" = 1 ] &&
		  grep "$f" "$WORK/xrxd.err" | grep -q "warning: $IF_DUT: this kernel ($REL) lacks"; echo $?)
done
grep "this kernel" "$WORK/xrxd.err" | sed 's/^/# /'

tcp_stream "$WORK/tcp" $IP4_DUT $PORT $BYTES
check "$((BYTES >> 20)) MiB of TCP through the TUN sink: completed, hash intact" $?
stats_settled "$WORK/stats.json"
j() { jpath "$WORK/stats.json" "$1"; }
check "xrx_rx redirected the stream and the sink delivered every packet" \
	$([ "$(j kernel.redirect.packets)" -gt 0 ] &&
	  [ "$(j user.sink.pkts_out)" = "$(j user.engine.pkts_out)" ] &&
	  [ "$(j user.sink.errors)" = 0 ]; echo $?)
check "the pcap tee wrote every packet the sink was given" \
	$([ "$(j user.tee.pkts_out)" = "$(j user.sink.pkts_in)" ] &&
	  [ "$(j user.tee.pkts_out)" -gt 0 ] && [ "$(j user.tee.errors)" = 0 ]; echo $?)

xrxctl status $IF_DUT >"$WORK/status" 2>&1
sed 's/^/# /' "$WORK/status"
for f in kern_ctx xdp_metadata xsk_sg; do
	check "xrxctl status: $f off, with the kernel release and why" \
		$(grep -q "^  off       $f: this kernel ($REL) lacks .*: " "$WORK/status"; echo $?)
done
check "xrxctl status: the program on the link is xrxd's (alone, or behind libxdp's dispatcher)" \
	$(grep "^  program" "$WORK/status" | grep -q "xrxd's xrx_rx"; echo $?)
check "xrxctl status: the sockets are not multi-buffer" \
	$(grep "^  queues" "$WORK/status" | grep -qv "multi-buffer"; echo $?)

kill -TERM $pid
wait $pid
check "SIGTERM: exit 0" $?
"$PY" "$TOP/tests/tools/xrxpcap.py" stream "$CAP" $PORT >"$WORK/stream" 2>&1
check "the pcap holds the stream, at least the $BYTES bytes" \
	$([ "$(tcp_field payload "$WORK/stream")" -ge $BYTES ] 2>/dev/null; echo $?)
unset XRX_TEST_KERNEL_LACKS

# --- nothing forced: the build the kernel's BTF calls for -------------
xrxd_up || { check "xrxd up, nothing forced" 1; done_testing; exit 1; }
id=$(xrx_id)
if kernel_has_kern_ctx; then
	check "this kernel has bpf_cast_to_kern_ctx(): the plain build, no warning about it" \
		$(has_xdp_buff "$id" && [ "$(lines bpf_cast_to_kern_ctx "$WORK/xrxd.err")" = 0 ] &&
		  ! xrxctl status $IF_DUT | grep -q "off       kern_ctx"; echo $?)
else
	check "this kernel lacks bpf_cast_to_kern_ctx(): the compat build, one warning" \
		$(! has_xdp_buff "$id" && [ "$(lines bpf_cast_to_kern_ctx "$WORK/xrxd.err")" = 1 ] &&
		  xrxctl status $IF_DUT | grep -q "off       kern_ctx"; echo $?)
fi
kill -TERM $pid
wait $pid
check "SIGTERM: exit 0" $?

# --- no build can load -------------------------------------------------
snapshot "$WORK/nic.before"
# untouched: exit 2, one line, no program, no state file, NIC as before.
untouched() {
	[ "$1" = 2 ] && [ "$(wc -l <"$2")" = 1 ] && [ -z "$(prog_id)" ] &&
		[ ! -e "$SF" ] && snapshot "$WORK/nic.after" &&
		same "$WORK/nic.before" "$WORK/nic.after"
}
# Bounded: an xrxd that starts after all would run until stopped.
XRX_TEST_KERNEL_LACKS=kern_ctx,xdp_frags in_dut timeout 60 "$XRXD" \
	--state-dir "$STATE" -c "$WORK/xrx.conf" 2>"$WORK/none.err"
rc=$?
sed 's/^/# /' "$WORK/none.err"
check "no build loads: exit 2 with one line naming the release and the helpers, nothing touched" \
	$(untouched $rc "$WORK/none.err" &&
	  grep -q "error: $IF_DUT: this kernel ($REL) cannot load xrx_rx: it lacks .*bpf_xdp_load_bytes()" "$WORK/none.err"; echo $?)
XRX_TEST_KERNEL_LACKS=kern_ctx,xdp_frags in_dut "$XRXD" --check-config -q \
	-c "$WORK/xrx.conf" 2>"$WORK/check.err"
rc=$?
check "--check-config says the same, exit 2" \
	$([ $rc = 2 ] && cmp -s "$WORK/none.err" "$WORK/check.err"; echo $?)

# --- a read-only or missing bpffs --------------------------------------
# In a mount namespace of its own, so the machine's bpffs stays as it is.
bpffs_run() {
	unshare -m sh -c "mount --make-rprivate / && $1 &&
		exec nsenter --net=/run/netns/$NS_DUT timeout 60 '$XRXD' --state-dir '$STATE' -c '$WORK/xrx.conf'" 2>"$2"
}
bpffs_run "mount -o remount,bind,ro /sys/fs/bpf" "$WORK/ro.err"
rc=$?
sed 's/^/# /' "$WORK/ro.err"
check "read-only bpffs: exit 2 with one line saying so, nothing touched" \
	$(untouched $rc "$WORK/ro.err" && grep -q "mounted read-only" "$WORK/ro.err"; echo $?)
bpffs_run "umount /sys/fs/bpf" "$WORK/nobpffs.err"
rc=$?
sed 's/^/# /' "$WORK/nobpffs.err"
check "no bpffs: exit 2 with one line saying so, nothing touched" \
	$(untouched $rc "$WORK/nobpffs.err" && grep -q "not on a bpffs" "$WORK/nobpffs.err"; echo $?)

done_testing
