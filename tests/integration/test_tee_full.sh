#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A tee that cannot write: xrxd with sink = tun:NAME and a pcap tee on a
# 1 MiB tmpfs, which fills within the first megabyte of a 100 MiB TCP
# stream (tests/helpers/tcp_hash.c); then the tmpfs grows and a second
# stream goes through.
#
# Proves: the TUN delivery is unaffected (the stream completes with the
# receiver's hash equal to the sender's, the sink wrote every packet
# without an error or drop); only the tee loses, and counts it as its own
# (tee.errors and tee.dropped, while it was still given every packet);
# no worker got stuck; every frame is accounted for (unaccounted 0);
# xrxctl status blames the tee's file system, not the sink's; the
# losses are logged when they begin, and when the tee writes
# again after the tmpfs grew, with the count lost meanwhile.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"

PORT=5201
BYTES=$((100 << 20))
xrxd_tun_testbed tee-full

SMALL=$WORK/small
mkdir "$SMALL"
if ! mount -t tmpfs -o size=1m xrx-tee-full-$$ "$SMALL"; then
	skip_all "cannot mount a tmpfs"
fi
at_exit umount "$SMALL"
cat >"$WORK/xrx.conf" <<EOF
interface = $IF_DUT
accelerate = tcp/$PORT
sink = tun:$TUN
tee = pcap:$SMALL/cap.pcap
EOF
xrxd_up || { check "xrxd up with a tee on a 1 MiB tmpfs" 1; done_testing; exit 1; }
check "xrxd up with a tee on a 1 MiB tmpfs" 0

tcp_stream "$WORK/tcp1" $IP4_DUT $PORT $BYTES
check "$((BYTES >> 20)) MiB through the TUN while the tee's disk is full: completed, hash intact" $?

stats_settled "$WORK/stats.json"
j() { jpath "$WORK/stats.json" "$1"; }
lost=$(( $(j user.tee.errors) + $(j user.tee.dropped) ))
diag "engine pkts_out $(j user.engine.pkts_out); sink in $(j user.sink.pkts_in) out $(j user.sink.pkts_out) errors $(j user.sink.errors) dropped $(j user.sink.dropped); tee in $(j user.tee.pkts_in) out $(j user.tee.pkts_out) errors $(j user.tee.errors) dropped $(j user.tee.dropped)"
df -k "$SMALL" | sed 's/^/# /'
check "the sink wrote every packet, no error, no drop" \
	$([ "$(j user.sink.pkts_out)" = "$(j user.engine.pkts_out)" ] &&
	  [ "$(j user.sink.errors)" = 0 ] && [ "$(j user.sink.dropped)" = 0 ]; echo $?)
check "the tee lost packets ($lost) and counted them as its own" \
	$([ "$lost" -gt 0 ] &&
	  [ "$(j user.tee.pkts_in)" = "$(j user.sink.pkts_in)" ] &&
	  [ $(( $(j user.tee.pkts_out) + lost )) = "$(j user.tee.pkts_in)" ]; echo $?)
check "every frame accounted for: unaccounted 0" $([ "$(j user.unaccounted)" = 0 ]; echo $?)
check "no worker stuck, xrxd still running" \
	$([ "$(j user.stuck_workers)" = 0 ] && kill -0 $pid; echo $?)
xrxctl status $IF_DUT 2>&1 | grep "^  state" | sed 's/^/# /'
check "xrxctl status: the tee's file system is full and the sink gets every packet, not the sink's" \
	$(xrxctl status $IF_DUT 2>&1 | grep -q "state     DEGRADED: the tee's file system is full: the capture beside the sink loses packets .*the sink still gets every packet" &&
	  ! xrxctl status $IF_DUT 2>&1 | grep -q "sink's file system" &&
	  [ "$(j user.degraded_reasons)" = 32 ]; echo $?)
grep 'tee' "$WORK/xrxd.err" | sed 's/^/# /'
check "the losses logged when they began, with the reason" \
	$([ "$(grep -c "tee pcap:$SMALL/cap.pcap is losing packets" "$WORK/xrxd.err")" -ge 1 ] &&
	  grep -q "is losing packets (No space left on device)" "$WORK/xrxd.err"; echo $?)

# Room again: the tee writes, and says so once, with what it lost.
mount -o remount,size=256m "$SMALL"
tcp_stream "$WORK/tcp2" $IP4_DUT $PORT $((8 << 20))
check "a second stream after the tmpfs grew: completed, hash intact" $?
stats_settled "$WORK/stats.json"
lost2=$(( $(j user.tee.errors) + $(j user.tee.dropped) ))
grep 'tee' "$WORK/xrxd.err" | tail -1 | sed 's/^/# /'
# The tee's writer writes whatever records it has at once: a small one
# (the stream's last ACKs) can still fit on the full tmpfs, which ends an
# episode early; each episode is logged once each way, and together they
# count every packet lost.
nlosing=$(grep -c "tee pcap:$SMALL/cap.pcap is losing packets" "$WORK/xrxd.err")
nwrites=$(grep -c "tee pcap:$SMALL/cap.pcap writes again" "$WORK/xrxd.err")
sum=$(sed -n 's/.*writes again; \([0-9]*\) packets lost.*/\1/p' "$WORK/xrxd.err" | awk '{ s += $1 } END { print s + 0 }')
check "the tee writes again: each episode logged once each way ($nlosing, $nwrites), with the $lost2 packets lost ($sum)" \
	$([ "$nwrites" -ge 1 ] && [ "$nlosing" = "$nwrites" ] && [ "$sum" = "$lost2" ]; echo $?)
check "still no sink error or drop; unaccounted 0" \
	$([ "$(j user.sink.errors)" = 0 ] && [ "$(j user.sink.dropped)" = 0 ] &&
	  [ "$(j user.unaccounted)" = 0 ]; echo $?)

kill -TERM $pid
wait $pid
check "SIGTERM: exit 0" $?
done_testing
