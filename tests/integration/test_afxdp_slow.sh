#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A slow consumer: the callback sleeps 2 ms per packet while a burst of
# 6400 frames arrives on small rings (256 descriptors, 512 frames). The
# kernel must drop and count (XDP_STATISTICS), never the library lose a
# frame silently; the queue must not deadlock; once the burst is
# absorbed a paced train must arrive whole; and every UMEM frame must be
# accounted for at the end.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/afxdp_lib.sh"
afxdp_need
testbed_up || { check "testbed" 1; done_testing; exit 1; }

rx_start -p 5001 -m cb -S 2000 -r 256 -f 512 -R 50000 -t 40
check "live_rx with a 2 ms/packet callback, 256-entry rings, 512 frames" $?

send --flows 64 --segs 1 --trains 100 --mss 200
check "burst of 6400 frames sent" $?
# The consumer drains what the rings hold (at most 512 frames, 1 s).
sleep 2
send --sport 50000 --flows 1 --segs 1 --trains 100 --mss 200 --rate 100
check "paced train of 100 frames (100/s) sent" $?
sleep 1.5

rx_stop
check "live_rx stopped within 20 s: no deadlock" $?
rx_meta_check
grep -q '^check ok' "$RX_OUT"
check "frame ownership invariant holds after overload ($(grep '^check' "$RX_OUT"))" $?

drops=$(( $(rxstat live xsk_rx_dropped) + $(rxstat live xsk_rx_ring_full) ))
diag "redirect $(rxstat prog redirect) rx_descs $(rxstat live rx_descs) xsk_rx_dropped $(rxstat live xsk_rx_dropped) xsk_rx_ring_full $(rxstat live xsk_rx_ring_full) xsk_rx_fill_empty $(rxstat live xsk_rx_fill_empty) fill_low $(rxstat live fill_low)"
[ $drops -gt 0 ]
check "the overload was dropped by the kernel and counted ($drops)" $?
[ "$(rxstat prog redirect)" = $(( $(rxstat live rx_descs) + drops )) ]
check "every redirected frame is either received or counted as dropped" $?
[ "$(rxstat live rx_frames)" = "$(rxstat engine frames_in)" ] &&
	[ "$(rxstat engine pkts_out)" = "$(rxstat live cb_pkts)" ] &&
	[ "$(rxstat engine frames_released)" = "$(rxstat engine frames_in)" ]
check "every frame received was delivered to the callback and released" $?
[ "$(rxstat cb late)" = 100 ]
rc=$?; check "throughput recovered: the paced train arrived whole ($(rxstat cb late)/100)" $rc

done_testing
