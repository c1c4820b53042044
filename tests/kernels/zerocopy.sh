#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Guest: AF_XDP zero-copy on virtio-net. Where the kernel's driver can
# (the newest kernel, on a device that uses the DMA API: kernels.list
# gives it iommu_platform=on), xrxd binds XDP_ZEROCOPY on every queue and
# xrxctl status says zero-copy; a silent fallback to copy mode fails.
# Where it cannot, xrxd says copy mode, honestly. Then frame ownership in
# whatever mode was bound: a sustained stream, after which every UMEM
# frame is accounted (free + kernel + engine = all, no ownership error),
# a reload with a sink swap, kill -9 and a restart that binds again (the
# queue's EBUSY after a close is waited out, with a log line).
# XRX_GUEST_ZC_FRAMES: frames of the stream (default 20000: TCG is slow).
. "$(dirname "$0")/lib.sh"
xrxd_need bpffs
guest_dut_up || { check "eth0 into the DUT namespace" 1; done_testing; exit 1; }
xrxd_work zerocopy
keep_logs zerocopy
FRAMES=${XRX_GUEST_ZC_FRAMES:-20000}
want=copy
case "${XRX_GUEST_NIC:-}" in
*iommu_platform=on*) [ "$(uname -r | cut -d. -f1)" -ge 7 ] && want=zc ;;
esac
guest_conf "sink = null"
xrxd_up
check "xrxd up (bind auto)" $?
xrxctl status $IF_DUT >"$WORK/status" 2>&1
sed 's/^/# /' "$WORK/status"
grep 'AF_XDP' "$WORK/xrxd.err" | sed 's/^/# /'
nq=$(grep -c 'AF_XDP zero-copy mode' "$WORK/xrxd.err")
if [ $want = zc ]; then
	grep -q 'queues .*, zero-copy' "$WORK/status"
	check "xrxctl status says zero-copy" $?
	check "every queue bound XDP_ZEROCOPY ($nq of 2)" $([ "$nq" = 2 ]; echo $?)
else
	grep -q 'queues .*, copy mode' "$WORK/status"
	check "xrxctl status says copy mode: the driver cannot do zero-copy here" $?
	check "no queue claims zero-copy" $([ "$nq" = 0 ]; echo $?)
fi

# umem_ok FILE: every UMEM frame accounted, no ownership error.
umem_ok() {
	local f=$1 all fr ke en
	all=$(jpath "$f" user.live.umem_frames)
	fr=$(jpath "$f" user.live.umem_free)
	ke=$(jpath "$f" user.live.umem_kernel)
	en=$(jpath "$f" user.live.umem_engine)
	diag "umem: frames $all free $fr kernel $ke engine $en, ownership errors $(jpath "$f" user.live.ownership_errors)"
	[ $((fr + ke + en)) = "$all" ] && [ "$all" -gt 0 ] &&
		[ "$(jpath "$f" user.live.ownership_errors)" = 0 ]
}
host_send --dport 5201 --flows 8 --segs 40 --count $FRAMES -r 5000
check "host streamed $FRAMES frames" $?
stats_settled "$WORK/s1.json"
check "stream: every frame accounted for (unaccounted 0)" $?
got=$(jpath "$WORK/s1.json" user.engine.frames_in)
diag "engine took $got of $FRAMES; fill-ring empty $(jpath "$WORK/s1.json" user.live.xsk_rx_fill_empty), fill_low $(jpath "$WORK/s1.json" user.live.fill_low)"
check "frames reached the engine ($got)" $([ "${got:-0}" -gt 0 ]; echo $?)
umem_ok "$WORK/s1.json"
check "stream: every UMEM frame accounted (no leak)" $?

reloads() { grep -c "xrx.conf reloaded" "$WORK/xrxd.err"; }
before=$(reloads)
guest_conf "sink = pcap:$WORK/rx.pcap"
kill -HUP $pid
wait_for 60 eval '[ "$(reloads)" -gt $before ]'
check "reload with a sink swap (null -> pcap)" $?
host_send --dport 5201 --flows 4 --segs 20 --trains 2 -r 2000 -w "@OUT@/zc.pcap"
check "host sent 160 frames after the reload" $?
stats_settled "$WORK/s2.json"
check "after the reload: every frame accounted for" $?
umem_ok "$WORK/s2.json"
check "after the reload: every UMEM frame accounted" $?

kill -KILL $pid
wait $pid 2>/dev/null
xrxd_up
check "restart after kill -9 binds again" $?
grep -E 'AF_XDP|EBUSY|still busy|stale|left' "$WORK/xrxd.err" | sed 's/^/# /'
nq2=$(grep -c 'AF_XDP zero-copy mode' "$WORK/xrxd.err")
if [ $want = zc ]; then
	check "the restart binds zero-copy on every queue again ($nq2 of 2)" $([ "$nq2" = 2 ]; echo $?)
fi
host_send --dport 5201 --flows 4 --segs 20 --trains 2 -r 2000
check "host sent 160 frames after the restart" $?
stats_settled "$WORK/s3.json"
check "after the restart: every frame accounted for" $?
umem_ok "$WORK/s3.json"
check "after the restart: every UMEM frame accounted" $?
kill -TERM $pid
wait $pid
check "xrxd stops with status 0" $?
done_testing
