#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Guest: xrx_rx loads on this kernel's virtio-net, natively, from the
# object meant for this kernel (xrxd chooses it; its log says which), and
# comes off again when xrxd stops.
. "$(dirname "$0")/lib.sh"
xrxd_need bpffs
guest_dut_up || { check "eth0 into the DUT namespace" 1; done_testing; exit 1; }
xrxd_work load
guest_conf
xrxd_up
check "xrxd starts on $IF_DUT: xrx_rx loads on $(uname -r)" $?
diag "$(grep -iE 'xrx_rx|attach|object' "$WORK/xrxd.err" | head -5)"
id=$(prog_id)
check "an XDP program is attached to $IF_DUT (id ${id:-none})" $([ -n "$id" ]; echo $?)
in_dut ip -d link show $IF_DUT | grep -q 'xdp ' && ! in_dut ip -d link show $IF_DUT | grep -q 'xdpgeneric'
check "in native (driver) mode" $?
kill -TERM $pid
wait $pid
check "xrxd stops with status 0" $?
check "no XDP program left on $IF_DUT" $([ -z "$(prog_id)" ]; echo $?)
done_testing
