#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrxd's bind option on veth, whose driver has AF_XDP copy mode only:
# bind = zero-copy fails at start (exit 1) with one line naming the
# driver's refusal, and leaves the NIC as it was, no program attached;
# bind = copy and bind = auto run in copy mode and say so in xrxctl
# status; a word that is not a mode is a config error (exit 2). The
# zero-copy side is tested where a driver can do it: the kernel matrix
# (tests/kernels/live.sh) on virtio-net.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
xrxd_send_testbed bind numrxqueues 2 numtxqueues 2
snapshot "$WORK/orig"

echo "bind = zero-copy" >>"$WORK/xrx.conf"
in_dut timeout 60 "$XRXD" --state-dir "$STATE" -c "$WORK/xrx.conf" 2>"$WORK/zc.err"
rc=$?
grep -E 'bind|error' "$WORK/zc.err" | head -3 | sed 's/^/# /'
check "bind = zero-copy on veth: xrxd exits 1 ($rc)" $([ $rc = 1 ]; echo $?)
grep -q "queue 0: cannot bind an AF_XDP socket: Operation not supported (the driver does not offer AF_XDP zero-copy" "$WORK/zc.err"
check "the error names the driver's refusal, not a missing queue" $?
snapshot "$WORK/after"
same "$WORK/orig" "$WORK/after"
check "nothing left changed on the NIC" $?
check "no XDP program left" $([ -z "$(prog_id)" ]; echo $?)

for mode in copy auto; do
	sed -i "s/^bind = .*/bind = $mode/" "$WORK/xrx.conf"
	xrxd_up
	check "bind = $mode: xrxd runs" $?
	xrxctl status $IF_DUT >"$WORK/status" 2>&1
	grep -q 'queues    2 (0-1), copy mode' "$WORK/status"
	check "bind = $mode: xrxctl status says copy mode on both queues" $?
	kill -TERM $pid
	wait $pid
	check "bind = $mode: stops with status 0" $?
done

sed -i "s/^bind = .*/bind = fast/" "$WORK/xrx.conf"
in_dut "$XRXD" --state-dir "$STATE" -c "$WORK/xrx.conf" 2>"$WORK/bad.err"
rc=$?
sed 's/^/# /' "$WORK/bad.err" | head -2
check "bind = fast: a config error, exit 2 ($rc)" $([ $rc = 2 ]; echo $?)
done_testing
