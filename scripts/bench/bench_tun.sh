#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# TCP throughput into the DUT's stack over one veth pair, in one run:
#   kernel/gro-off  iperf3 to a socket on the DUT, no xrx, the receiving
#                   veth with GRO off (veth's default)
#   kernel/gro-on   the same with `ethtool -K IFACE gro on` on the
#                   receiver: what a user comparing against the kernel
#                   runs, and the headline baseline (the kernel aggregates
#                   as xrx does)
#   tun             xrx_rx redirecting the flow to AF_XDP, libxrx
#                   aggregating it and the TUN sink injecting the
#                   aggregates (tests/helpers/live_rx.c -s tun:DEV,gso)
# All with TX checksum offload off on the sender, which the xrx path
# needs (valid checksums on the wire), so all see MTU-sized segments.
# Where the time goes: each CPU's load (user/sys/softirq) in every run,
# and for tun the CPU time of each of live_rx's threads (the worker does
# the header copy, GRO and the TUN write, whose syscall runs the DUT's
# TCP receive). Prints a table and writes $BENCH_OUT/bench_tun.json:
#   {"kernel_gro_on_gbps": G, "kernel_gro_off_gbps": G, "tun_gbps": G,
#    "ratio": tun/kernel_gro_on, "ratio_gro_off": tun/kernel_gro_off, ...}
#   BENCH_SECS=N   seconds per iperf3 run (default 5)
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
BENCH_OUT=${BENCH_OUT:-$BUILD/bench}
SECS=${BENCH_SECS:-5}
LIVE=$BUILD/tests/live_rx
PORT=5201
TUN=xt$$
mkdir -p "$BENCH_OUT"
if [ "$(id -u)" != 0 ] || [ ! -x "$LIVE" ] || ! command -v iperf3 >/dev/null; then
	echo "bench_tun: needs root, iperf3 and $LIVE (make)" >&2
	exit 1
fi
OUT=$(mktemp -d)
at_exit rm -rf "$OUT"
testbed_up || exit 1
in_src ethtool -K $IF_SRC tx off >/dev/null

# cpu_snap FILE: the per-CPU lines of /proc/stat.
cpu_snap() { grep '^cpu[0-9]' /proc/stat >"$1"; }

# cpu_load A B: "cpuN busy user sys softirq" (percent) between snapshots.
cpu_load() {
	paste "$1" "$2" | awk '{
		n = NF / 2
		u = $(n+2) - $2 + $(n+3) - $3; s = $(n+4) - $4; id = $(n+5) - $5
		io = $(n+6) - $6; irq = $(n+7) - $7; si = $(n+8) - $8
		t = u + s + id + io + irq + si; if (t == 0) t = 1
		printf "%s %.0f %.0f %.0f %.0f\n", $1, 100 * (t - id - io) / t,
			100 * u / t, 100 * s / t, 100 * (si + irq) / t }'
}

# thread_snap PID FILE: "tid comm utime stime" (clock ticks) per thread.
thread_snap() {
	local f
	: >"$2"
	for f in /proc/$1/task/*/stat; do
		# comm may hold blanks: fields count from the closing paren.
		awk '{ i = index($0, ") "); split(substr($0, i + 2), r, " ")
		       c = substr($0, index($0, "(") + 1, i - index($0, "(") - 1)
		       gsub(/ /, "_", c); print $1, c, r[12], r[13] }' "$f" 2>/dev/null >>"$2"
	done
}

# run NAME: one iperf3 transfer to the DUT; prints receiver Gbit/s and
# leaves the CPU load of the transfer in $OUT/NAME.load
run() {
	in_dut iperf3 -s -1 -B $IP4_DUT -p $PORT >/dev/null 2>&1 &
	local sp=$!
	sleep 0.3
	cpu_snap "$OUT/$1.c0"
	in_src timeout $((SECS + 20)) iperf3 -c $IP4_DUT -p $PORT -t $SECS -J >"$OUT/$1.json" 2>&1
	cpu_snap "$OUT/$1.c1"
	cpu_load "$OUT/$1.c0" "$OUT/$1.c1" >"$OUT/$1.load"
	wait $sp
	$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%.3f" % (d["end"]["sum_received"]["bits_per_second"] / 1e9))' "$OUT/$1.json" 2>/dev/null || echo 0
}

gro_was=$(in_dut ethtool -k $IF_DUT | awk '$1 == "generic-receive-offload:" { print $2 }')
in_dut ethtool -K $IF_DUT gro off >/dev/null || exit 1
kernel_off=$(run kernel_off)
in_dut ethtool -K $IF_DUT gro on >/dev/null || exit 1
kernel_on=$(run kernel_on)
gro_now=$(in_dut ethtool -k $IF_DUT | awk '$1 == "generic-receive-offload:" { print $2 }')
if [ "$gro_now" != on ]; then
	echo "bench_tun: GRO did not turn on on $IF_DUT (ethtool -k says $gro_now)" >&2
	exit 1
fi

in_dut sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
in_dut ip tuntap add dev $TUN mode tun vnet_hdr || exit 1
in_dut sysctl -qw net.ipv4.conf.$TUN.rp_filter=0
in_dut ip link set $TUN up
nsenter --net=/run/netns/$NS_DUT "$LIVE" -i $IF_DUT -p $PORT -s "tun:$TUN,gso" \
	-t $((SECS + 60)) >"$OUT/live" 2>&1 &
LP=$!
at_exit kill $LP
wait_for 10 grep -q '^ready' "$OUT/live" || { cat "$OUT/live" >&2; exit 1; }
thread_snap $LP "$OUT/t0"
tun=$(run tun)
thread_snap $LP "$OUT/t1"
kill -INT $LP
wait $LP
st() { awk -v k="$1" -v n="$2" '$1 == k && $2 == n { print $3 }' "$OUT/live"; }
frames=$(st engine frames_in); aggs=$(st engine aggs_out); merged=$(st engine segs_merged)
segs=$(( aggs ? (merged + aggs) / aggs : 0 ))

$PY - "$OUT" "$BENCH_OUT/bench_tun.json" "$SECS" "$kernel_off" "$kernel_on" "$tun" \
	"${frames:-0}" "${aggs:-0}" "$segs" "$(getconf CLK_TCK)" "$gro_was" <<'PY'
import json, sys
out, jpath, secs, koff, kon, tun, frames, aggs, segs, hz, gro_was = sys.argv[1:12]
secs, koff, kon, tun, hz = float(secs), float(koff), float(kon), float(tun), float(hz)
frames, aggs, segs = int(frames), int(aggs), int(segs)

def load(name):
    d = {}
    for line in open("%s/%s.load" % (out, name)):
        p = line.split()
        d[p[0]] = {"busy": int(p[1]), "user": int(p[2]), "sys": int(p[3]), "softirq": int(p[4])}
    return d

def threads():
    a = {}
    for line in open(out + "/t0"):
        p = line.split()
        a[p[0]] = (int(p[2]), int(p[3]))
    res = []
    for line in open(out + "/t1"):
        p = line.split()
        u0, s0 = a.get(p[0], (0, 0))
        res.append({"tid": int(p[0]), "comm": p[1],
                    "user_s": (int(p[2]) - u0) / hz, "sys_s": (int(p[3]) - s0) / hz})
    return res

rows = {"kernel_gro_off": {"gbps": koff, "gro": "off", "cpu": load("kernel_off")},
        "kernel_gro_on": {"gbps": kon, "gro": "on", "cpu": load("kernel_on")},
        "tun": {"gbps": tun, "gro": "on (unused: XDP redirects the flow)",
                "cpu": load("tun"), "threads": threads()}}
res = {"bench": "tun", "secs": secs,
       "config": {"link": "veth, one queue", "sender_tx_csum": "off",
                  "receiver_gro_before": gro_was,
                  "traffic": "iperf3 TCP/IPv4, one stream, %g s per run" % secs,
                  "xrx": "live_rx, sink tun:DEV,gso, default options",
                  "headline_baseline": "kernel_gro_on"},
       "kernel_gbps": kon, "kernel_gro_on_gbps": kon, "kernel_gro_off_gbps": koff,
       "tun_gbps": tun, "ratio": tun / kon if kon > 0 else 0,
       "ratio_gro_off": tun / koff if koff > 0 else 0,
       "target_ratio": 0.6, "frames": frames, "aggregates": aggs,
       "mean_segments": segs, "rows": rows}
json.dump(res, open(jpath, "w"), indent=1)

print("# veth, iperf3 TCP/IPv4 one stream %g s per run, sender TX csum off; receiver GRO as in the row" % secs)
print("%-16s %8s  %s" % ("path", "Gbit/s", "CPU busy% (user/sys/softirq) per CPU"))
for n, r in rows.items():
    print("%-16s %8.3f  %s" % (n, r["gbps"], "  ".join(
        "%s %d%% (%d/%d/%d)" % (c, v["busy"], v["user"], v["sys"], v["softirq"])
        for c, v in sorted(r["cpu"].items()))))
print("tun/kernel GRO on %.1f%% (headline, target >= 60%%); tun/kernel GRO off %.1f%%" % (
    100 * res["ratio"], 100 * res["ratio_gro_off"]))
print("tun: frames %d, aggregates %d, %d segments each on average" % (frames, aggs, segs))
for t in rows["tun"]["threads"]:
    if t["user_s"] + t["sys_s"] > 0:
        print("tun: live_rx thread %s (%s): user %.2f s, sys %.2f s of %g s" % (
            t["tid"], t["comm"], t["user_s"], t["sys_s"], secs))
PY
