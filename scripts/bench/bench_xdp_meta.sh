#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrx_rx per frame on live traffic: the plain build against the
# device-bound build that also calls bpf_xdp_metadata_rx_vlan_tag() and
# bpf_xdp_metadata_rx_hash(). Both run natively on a veth behind
# tests/helpers/live_rx (null sink, -H for the plain build), on the same
# TCP trains from build/xrx-send; the kernel's own accounting
# (kernel.bpf_stats_enabled, run_time_ns / run_cnt of the attached
# program) gives the time per frame. BPF_PROG_TEST_RUN cannot run a
# device-bound program against a driver's metadata ops, hence live.
#
# What it shows depends on the driver: veth answers rx_hash with
# skb_get_hash(), a software flow dissection, where a NIC reads its RX
# descriptor; xrx_rx still computes its own hash while parsing, so on
# veth the device-bound build can only cost more.
#
# kernel.bpf_stats_enabled is switched on only while a case sends and
# set back to what it was. Prints a table and writes $BENCH_OUT/xdp_meta.json.
#   BENCH_ROUNDS=N   rounds, interleaved (default 3)
#   BENCH_TRAINS=N   trains of 4 x 16 segments per case (default 1500)
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
BENCH_OUT=${BENCH_OUT:-$BUILD/bench}
ROUNDS=${BENCH_ROUNDS:-3}
TRAINS=${BENCH_TRAINS:-1500}
RX=$BUILD/tests/live_rx
SEND=$BUILD/xrx-send
STATS=/proc/sys/kernel/bpf_stats_enabled
mkdir -p "$BENCH_OUT"
if [ "$(id -u)" != 0 ] || [ ! -x "$RX" ] || [ ! -x "$SEND" ]; then
	echo "bench_xdp_meta: needs root, $RX and $SEND (make)" >&2
	exit 1
fi
if ! mountpoint -q /sys/fs/bpf || [ ! -w $STATS ]; then
	echo "bench_xdp_meta: needs bpffs at /sys/fs/bpf and a writable $STATS" >&2
	exit 1
fi
OUT=$(mktemp -d)
at_exit rm -rf "$OUT"
PIN=/sys/fs/bpf/xrx-bench-$$
at_exit rm -rf "$PIN"
stats0=$(cat $STATS)
at_exit "echo $stats0 > $STATS"
testbed_up || exit 1
MAC=$(dut_mac)

# one_case plain|hw: ns per frame of the attached program, "" on failure.
one_case() {
	local opt= pid id t c
	[ "$1" = plain ] && opt=-H
	: >"$OUT/rx.out"
	nsenter --net=/run/netns/$NS_DUT "$RX" -i $IF_DUT -P "$PIN" -a native \
		-p 5001 -s null -t 120 $opt >"$OUT/rx.out" 2>"$OUT/rx.err" &
	pid=$!
	at_exit kill $pid
	if ! wait_for 10 grep -q '^ready' "$OUT/rx.out"; then
		kill $pid 2>/dev/null
		wait $pid 2>/dev/null
		return
	fi
	id=$(in_dut ip -d link show $IF_DUT | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' | head -1)
	echo 1 >$STATS
	in_src "$SEND" -i $IF_SRC --dmac "$MAC" --dport 5001 --flows 4 \
		--segs 16 --trains $TRAINS >/dev/null 2>&1
	read -r t c < <(bpftool prog show id "$id" --json 2>/dev/null | $PY -c '
import json, sys
d = json.load(sys.stdin)
print(d.get("run_time_ns", 0), d.get("run_cnt", 0))')
	echo "$stats0" >$STATS
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	[ "${c:-0}" -gt 0 ] && echo "$((t / c)) $c"
}

for r in $(seq "$ROUNDS"); do
	for m in plain hw; do
		res=$(one_case $m)
		[ -n "$res" ] && echo "$m $res" >>"$OUT/results"
	done
done
[ -s "$OUT/results" ] || { echo "bench_xdp_meta: no case ran" >&2; exit 1; }
$PY - "$OUT/results" "$BENCH_OUT/xdp_meta.json" <<'PYEOF'
import json, sys
runs = {}
for line in open(sys.argv[1]):
    m, ns, cnt = line.split()
    runs.setdefault(m, []).append({"ns_per_frame": int(ns), "frames": int(cnt)})
print("%-8s %-28s %s" % ("build", "ns per frame (each round)", "frames"))
for m in ("plain", "hw"):
    r = runs.get(m, [])
    print("%-8s %-28s %s" % (m, " ".join(str(x["ns_per_frame"]) for x in r),
                             " ".join(str(x["frames"]) for x in r)))
json.dump({"bench": "xdp_meta", "driver": "veth", "runs": runs},
          open(sys.argv[2], "w"), indent=1)
PYEOF
