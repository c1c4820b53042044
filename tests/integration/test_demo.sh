#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make demo's script (scripts/demo.sh), run without a terminal for 5 s of
# iperf3: it succeeds, its summary's numbers are non-zero and agree with
# each other the way xrx's counters must (every accelerated frame reached
# the engine or was counted as dropped by the kernel; the sink delivered
# every packet the engine made; no payload byte was copied; iperf3's bytes
# all came through the TUN; no frame unaccounted for), and it leaves nothing behind: no namespace,
# no pin, no process - also when interrupted.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
need_root

DEMO=$TOP/scripts/demo.sh
for need in "$BUILD/xrxd:make" "$BUILD/xrxctl:make"; do
	if [ ! -x "${need%%:*}" ]; then
		skip "demo" "${need%%:*} missing; run ${need#*:}"
		done_testing
		exit 0
	fi
done
if ! command -v iperf3 >/dev/null || ! command -v bpftool >/dev/null; then
	skip "demo" "iperf3 or bpftool missing (scripts/deps.sh)"
	done_testing
	exit 0
fi
if [ ! -c /dev/net/tun ]; then
	skip "demo" "no /dev/net/tun (modprobe tun)"
	done_testing
	exit 0
fi

WORK=$(mktemp -d /tmp/xrx-demo-test.XXXXXX)
at_exit rm -rf "$WORK"

# left PID: what a demo run with that pid could have left behind.
left() {
	ip netns list | grep -E "^xrx-(src|dut)-$1( |\$)"
	ls -d /sys/fs/bpf/xrx/xd$1 2>/dev/null
	pgrep -f "xrxd -c /tmp/xrx-demo"
}

# setsid: the demo gets a process group of its own, as in a terminal.
DEMO_SECONDS=5 DEMO_SUMMARY=$WORK/summary setsid "$DEMO" >"$WORK/out" 2>&1 &
pid=$!
at_exit "kill -- -$pid"
wait $pid
rc=$?
sed 's/^/# /' "$WORK/out"
check "demo exits 0" $rc
check "demo finishes with a summary" $(grep -q '^== summary' "$WORK/out"; echo $?)
# xrxd's lines carry their own "xrxd: " prefix.
check "xrxd's messages shown once, not prefixed twice" \
	$(grep -q "xrxd: .*ready: xrx_rx" "$WORK/out" && ! grep -q "xrxd: xrxd:" "$WORK/out"; echo $?)

v() { awk -F= -v k="$1" '$1 == k { print $2 }' "$WORK/summary" 2>/dev/null; }
n() { local x; x=$(v "$1"); echo "${x:-0}" | cut -d. -f1; }
lines=$(grep -cE '^ +[0-9]+\.[0-9] +[0-9]+' "$WORK/out")
check "live view: a line about every second ($lines for 5 s)" $([ "$lines" -ge 3 ] && [ "$lines" -le 8 ]; echo $?)
check "iperf3 completed and received bytes ($(v iperf3_bytes))" \
	$([ "$(v iperf3_rc)" = 0 ] && [ "$(n iperf3_bytes)" -gt 0 ]; echo $?)
check "xrx_rx accelerated frames ($(v prog_redirect) of $(v prog_rx))" \
	$([ "$(n prog_redirect)" -gt 0 ] && [ "$(n prog_redirect)" -le "$(n prog_rx)" ]; echo $?)
check "every accelerated frame reached the engine or was dropped by the kernel's AF_XDP ring" \
	$([ "$(n prog_redirect)" = $(( $(n engine_frames_in) + $(n xsk_ring_full) + $(n xsk_no_fill) )) ]; echo $?)
check "the engine aggregated ($(v engine_aggs_out) aggregates, $(v segs_per_agg) segments each)" \
	$([ "$(n engine_aggs_out)" -gt 0 ] && [ "$(n segs_per_agg)" -ge 2 ] &&
	  [ $(( $(n engine_segs_merged) + $(n engine_aggs_out) )) -le "$(n engine_frames_in)" ]; echo $?)
check "headers only: no payload byte copied, a few bytes per frame ($(v copied_per_frame))" \
	$([ "$(v engine_payload_bytes_copied)" = 0 ] && [ "$(n engine_bytes_copied)" -gt 0 ] &&
	  [ "$(n copied_per_frame)" -lt 100 ]; echo $?)
check "the TUN sink took every packet the engine made, none dropped" \
	$([ "$(v sink_pkts_out)" = "$(v engine_pkts_out)" ] && [ "$(v sink_drops)" = 0 ]; echo $?)
check "iperf3's bytes all came through the TUN (sink bytes >= received bytes)" \
	$([ "$(n sink_bytes_out)" -ge "$(n iperf3_bytes)" ]; echo $?)
check "the summary's segments per aggregate match its counters" \
	$(awk -v m="$(v engine_segs_merged)" -v a="$(v engine_aggs_out)" -v s="$(v segs_per_agg)" \
		'BEGIN { exit !(a > 0 && (m + a) / a - s < 0.06 && s - (m + a) / a < 0.06) }'; echo $?)
unaccounted_zero "demo" v unaccounted
check "xrxd stopped cleanly (exit 0) and took its pins" \
	$([ "$(v xrxd_rc)" = 0 ] && [ "$(v pins_left)" = 0 ]; echo $?)
check "nothing left: namespaces, pins, xrxd" $([ -z "$(left $pid)" ]; echo $?)

# Interrupted in the middle of the transfer: a signal to the demo's whole
# process group, as Ctrl-C sends one. SIGTERM, not SIGINT: bash starts a
# background job with SIGINT ignored, and an ignored signal cannot be
# trapped; the demo treats both alike.
DEMO_SECONDS=20 setsid "$DEMO" >"$WORK/out2" 2>&1 &
pid=$!
at_exit "kill -- -$pid"
wait_for 30 grep -q '^== iperf3' "$WORK/out2"
sleep 2
kill -TERM -- -$pid
# bounded: the cleanup itself waits at most a few seconds
for _ in $(seq 1 150); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
wait $pid
rc=$?
sed 's/^/# /' "$WORK/out2" | tail -5
check "interrupted: the demo stops at once, saying so (exit $rc)" $([ $rc = 130 ] && grep -q "interrupted" "$WORK/out2" && ! kill -0 $pid 2>/dev/null; echo $?)
check "interrupted: nothing left behind" $([ -z "$(left $pid)" ]; echo $?)

done_testing
