#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Guest: xrxd with attach = skb, which puts the plain (or compat) build of
# xrx_rx behind libxdp's dispatcher. Linux 6.13+ and Debian's 6.12 refuse
# it there ("Extension program changes packet data"): xrxd must then say
# so and attach it directly, in skb mode all the same. Frames from the
# host's tap reach the engine; a stop leaves no program behind.
. "$(dirname "$0")/lib.sh"
xrxd_need bpffs
guest_dut_up || { check "eth0 into the DUT namespace" 1; done_testing; exit 1; }
xrxd_work skb
keep_logs skb
guest_conf "attach = skb" "sink = null"
xrxd_up
rc=$?; check "xrxd starts with attach = skb on $(uname -r)" $rc
grep -E 'attached|dispatcher|directly' "$WORK/xrxd.err" | sed 's/^/# /'
in_dut ip -d link show $IF_DUT | grep -q 'xdpgeneric'
check "xrx_rx is attached in skb (generic) mode" $?
if grep -q "refuses xrx_rx behind libxdp's dispatcher" "$WORK/xrxd.err"; then
	diag "this kernel refuses xrx_rx behind libxdp's dispatcher: attached directly"
	grep -q 'attached in skb mode' "$WORK/xrxd.err"
	check "the direct attach is logged as skb mode" $?
fi
host_send --dport 5201 --flows 4 --segs 20 --trains 2 --gap-us 20000 -r 2000
check "the host sent 160 frames into the tap" $?
stats_settled "$WORK/s.json"
check "every frame accounted for" $?
in=$(jpath "$WORK/s.json" user.engine.frames_in)
check "the engine took all 160 frames ($in)" $([ "$in" = 160 ]; echo $?)
kill -TERM $pid
wait $pid
check "stop: xrxd exits 0" $?
check "stop: no XDP program left" $([ -z "$(prog_id)" ]; echo $?)
done_testing
