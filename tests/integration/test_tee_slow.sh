#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A tee whose disk stops: xrxd with sink = null and a pcap tee on an ext4
# file system (a loop device) that is frozen (fsfreeze) while traffic
# runs, so every write of the tee blocks, as on a stalled device or under
# heavy dirty-page throttling, only without end until it is thawed.
#
# Proves: the tee never holds the sink up. While the tee's writer is
# blocked the worker goes on: it receives far more frames than the tee
# can hold, every packet the engine delivers reaches the sink, no worker
# is stuck; the tee keeps what its hand-off holds and counts the rest as
# its own drops. Once thawed, the tee writes what it
# kept: its pkts_out + errors + dropped = pkts_in = the sink's pkts_in,
# the file holds pkts_out records, and every frame is accounted for.
#
# TEE_LOSSLESS=1 (test_tee_slow_lossless.sh): the same with a lossless
# tee (docs/lossless.md), whose worker makes each aggregate's segment
# record in the copy: it holds nothing up either, and once thawed the
# file splits into the segments of the packets it wrote.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
need_built "$BUILD/xrx-send"
CAPF=cap.pcap TEE_OPT=
if [ -n "${TEE_LOSSLESS:-}" ]; then
	need_built "$BUILD/xrx-replay"
	CAPF=cap.pcapng TEE_OPT=,lossless
fi
for t in losetup mkfs.ext4 fsfreeze; do
	command -v $t >/dev/null || skip_all "$t missing (util-linux, e2fsprogs)"
done

xrxd_send_testbed tee-slow
SLOW=$WORK/slow
mkdir "$SLOW"
truncate -s 64M "$WORK/disk.img"
LOOP=$(losetup -f --show "$WORK/disk.img" 2>/dev/null) ||
	skip_all "no loop device (losetup -f: $(losetup -f 2>&1))"
at_exit losetup -d "$LOOP"
mkfs.ext4 -q -F "$LOOP" >/dev/null 2>&1 && mount "$LOOP" "$SLOW" ||
	skip_all "cannot make and mount an ext4 file system on $LOOP"
at_exit umount "$SLOW"
at_exit fsfreeze -u "$SLOW"
printf 'sink = null\ntee = pcap:%s/%s%s\n' "$SLOW" $CAPF "$TEE_OPT" >>"$WORK/xrx.conf"
xrxd_up || { check "xrxd up with a tee on ext4 on $LOOP" 1; done_testing; exit 1; }
check "xrxd up with a tee on ext4 on $LOOP" 0
redirected "before the freeze"
stats_settled "$WORK/s0.json"

fsfreeze -f "$SLOW"
check "the tee's file system frozen: its writes block" $?
# 64000 frames in trains of 8, paced (40,000/s) so that the veth and a
# busy machine do not drop them before xrx_rx: about 8000 aggregates of
# 11.6 KB, 93 MB, more than the tee's 32 MiB hand-off holds.
red0=$(jget kernel.redirect.packets)
in_src "$BUILD/xrx-send" -i $IF_SRC --dmac $MAC --dport 5201 --flows 4 \
	--segs 8 --trains 8000 -c 64000 -r 40000 >/dev/null 2>&1
check "64000 frames sent" $?
# Every frame redirected taken from the ring (or counted dropped by the
# socket), and every one the engine took delivered into the sink (bounded
# wait; the tee stays blocked throughout).
s1() { jpath "$WORK/s1.json" "$1"; }
prim_done() {
	xrxctl stats $IF_DUT --json >"$WORK/s1.json" 2>/dev/null &&
		[ "$(s1 kernel.redirect.packets)" -ge $((red0 + 64000)) ] &&
		[ "$(s1 user.live.rx_frames)" = "$(s1 user.engine.frames_in)" ] &&
		[ "$(s1 user.sink.pkts_out)" = "$(s1 user.engine.pkts_out)" ] &&
		[ $(( $(s1 user.live.rx_frames) + $(s1 user.live.xsk_rx_dropped) +
		      $(s1 user.live.xsk_rx_ring_full) )) = "$(s1 kernel.redirect.packets)" ] &&
		[ $(( $(s1 user.engine.frames_in) - $(s1 user.engine.pkts_out) -
		      $(s1 user.engine.segs_merged) )) = 0 ]
}
wait_for 30 prim_done
j() { jpath "$WORK/s1.json" "$1"; }
diag "frozen: redirect $(j kernel.redirect.packets), rx_frames $(j user.live.rx_frames), xsk_rx_dropped $(j user.live.xsk_rx_dropped), ring_full $(j user.live.xsk_rx_ring_full); engine pkts_out $(j user.engine.pkts_out); sink out $(j user.sink.pkts_out); tee in $(j user.tee.pkts_in) out $(j user.tee.pkts_out) dropped $(j user.tee.dropped); stuck $(j user.stuck_workers)"
# The worker went on long after the tee's writer blocked: it took more
# frames than the tee's whole hand-off holds (32 MiB of 1448-byte
# segments: 23,173). A tee that wrote in the worker stopped it at the
# first blocked write, a few hundred frames in. Socket drops are not
# judged: on a busy machine the scheduler alone can cause them.
rx_frozen=$(( $(j user.live.rx_frames) - $(jpath "$WORK/s0.json" user.live.rx_frames) ))
check "frozen tee: the worker kept receiving ($rx_frozen frames, more than the tee's hand-off holds)" \
	$([ "$rx_frozen" -gt $(( (32 << 20) / 1448 )) ]; echo $?)
check "frozen tee: the sink got every packet the engine delivered" \
	$([ "$(j user.sink.pkts_out)" = "$(j user.engine.pkts_out)" ] &&
	  [ "$(j user.tee.pkts_in)" = "$(j user.sink.pkts_in)" ]; echo $?)
check "frozen tee: its hand-off full, the rest counted as the tee's drops" \
	$([ "$(j user.tee.dropped)" -gt 0 ] && [ "$(j user.sink.dropped)" = 0 ]; echo $?)
check "frozen tee: no worker stuck" $([ "$(j user.stuck_workers)" = 0 ] && kill -0 $pid; echo $?)

fsfreeze -u "$SLOW"
check "thawed" $?
stats_settled "$WORK/s2.json"
j() { jpath "$WORK/s2.json" "$1"; }
diag "thawed: tee in $(j user.tee.pkts_in) out $(j user.tee.pkts_out) errors $(j user.tee.errors) dropped $(j user.tee.dropped); sink in $(j user.sink.pkts_in)"
check "thawed: the tee wrote what it kept: out + errors + dropped = in = the sink's, unaccounted 0" \
	$([ $(( $(j user.tee.pkts_out) + $(j user.tee.errors) + $(j user.tee.dropped) )) = "$(j user.tee.pkts_in)" ] &&
	  [ "$(j user.tee.pkts_in)" = "$(j user.sink.pkts_in)" ] && [ "$(j user.unaccounted)" = 0 ]; echo $?)
grep tee "$WORK/xrxd.err" | sed 's/^/# /'
check "the losses logged once, as the writer falling behind" \
	$([ "$(grep -c "tee pcap:$SLOW/$CAPF$TEE_OPT is losing packets" "$WORK/xrxd.err")" = 1 ] &&
	  grep -q "is losing packets (dropped: its writer is behind" "$WORK/xrxd.err"; echo $?)
kill -TERM $pid
wait $pid
check "SIGTERM: exit 0" $?
recs=$($PY "$TOP/tests/tools/xrxpcap.py" count "$SLOW/$CAPF" | cut -d' ' -f1)
check "the file holds the $(j user.tee.pkts_out) records the tee wrote ($recs)" \
	$([ "$recs" = "$(j user.tee.pkts_out)" ]; echo $?)
if [ -n "$TEE_OPT" ]; then
	"$BUILD/xrx-replay" --split "$SLOW/$CAPF" "$WORK/split.pcap" 2>"$WORK/split.err"
	r=$?
	frames=$($PY "$TOP/tests/tools/xrxpcap.py" count "$WORK/split.pcap" 2>/dev/null | cut -d' ' -f1)
	check "the lossless file splits into the $(j user.tee.segs_out) segments of the packets written ($frames; $(head -c 200 "$WORK/split.err"))" \
		$([ $r = 0 ] && [ "$frames" = "$(j user.tee.segs_out)" ] &&
		  [ "$(j user.tee.segs_out)" -gt "$(j user.tee.pkts_out)" ]; echo $?)
fi
done_testing
