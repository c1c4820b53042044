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
#   tun_busy        the same with xrxd's busy_poll = on: preferred busy
#                   polling by the worker (live_rx -b, BENCH_BUSY_US of
#                   polls on an empty ring, default 50) and the NAPI
#                   deferral it needs (napi_defer_hard_irqs 2,
#                   gro_flush_timeout 200000 ns), set for this run only.
#                   Whether the worker really busy-polled (a copy-mode
#                   socket on veth has no NAPI id on Linux 6.13+, and the
#                   worker then polls normally) and the frames the kernel
#                   busy-polled (BusyPollRxPackets) are in the JSON.
# All with TX checksum offload off on the sender, which the xrx path
# needs (valid checksums on the wire), so all see MTU-sized segments.
# Where the time goes: each CPU's load (user/sys/softirq) in every run,
# and for tun the CPU time of each of live_rx's threads (the worker does
# the header copy, GRO and the TUN write, whose syscall runs the DUT's
# TCP receive). Prints a table and writes $BENCH_OUT/bench_tun.json:
#   {"kernel_gro_on_gbps": G, "kernel_gro_off_gbps": G, "tun_gbps": G,
#    "ratio": tun/kernel_gro_on, "ratio_gro_off": tun/kernel_gro_off,
#    "tun_busy_gbps": G, "ratio_busy": tun_busy/kernel_gro_on, ...}
# Each round runs the four in turn (BENCH_ROUNDS, default 2; tun and
# tun_busy swap places every round), so a
# neighbour's load on the machine hits all of them alike; the JSON has
# every round and the means.
#   BENCH_SECS=N     seconds per iperf3 run (default 5)
#   BENCH_ROUNDS=N   rounds (default 2)
#   BENCH_BUSY_US=N  tun_busy's busy_poll_us (default 50)
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. scripts/bench/cpu_lib.sh
BENCH_OUT=${BENCH_OUT:-$BUILD/bench}
SECS=${BENCH_SECS:-5}
ROUNDS=${BENCH_ROUNDS:-2}
BUSY_US=${BENCH_BUSY_US:-50}
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
	in_dut timeout $((SECS + 30)) iperf3 -s -1 -B $IP4_DUT -p $PORT >/dev/null 2>&1 &
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
in_dut sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
in_dut ip tuntap add dev $TUN mode tun vnet_hdr || exit 1
in_dut sysctl -qw net.ipv4.conf.$TUN.rp_filter=0
in_dut ip link set $TUN up

# tun_run R [BUSY]: xrx into the TUN device (live_rx runs only for that:
# its rule takes tcp/$PORT); with BUSY, busy_poll = on: the deferral
# first (the NAPI veth made when GRO turned on takes it now), then a
# worker that busy-polls. Files: live[_busy].R, gbps.tun[_busy].R, and
# t0.R/t1.R (threads) or busy.R.
tun_run() {
	local r=$1 name=tun live=live args=() lp bp
	if [ -n "${2:-}" ]; then
		name=tun_busy
		live=live_busy
		args=(-b $BUSY_US)
		dut_napi_defaults 2 200000 || return 1
	fi
	nsenter --net=/run/netns/$NS_DUT "$LIVE" -i $IF_DUT -p $PORT -s "tun:$TUN,gso" \
		"${args[@]}" -t $((SECS + 60)) >"$OUT/$live.$r" 2>&1 &
	lp=$!
	at_exit kill $lp
	wait_for 10 grep -q '^ready' "$OUT/$live.$r" || { cat "$OUT/$live.$r" >&2; return 1; }
	if [ $name = tun ]; then
		thread_snap $lp "$OUT/t0.$r"
		run tun.$r >"$OUT/gbps.tun.$r"
		thread_snap $lp "$OUT/t1.$r"
	else
		echo "napi $(in_dut $PY tests/tools/napi.py get $IF_DUT | head -1)" >"$OUT/busy.$r"
		bp=$(dut_busy_poll_rx)
		run tun_busy.$r >"$OUT/gbps.tun_busy.$r"
		echo "busy_poll_rx $(($(dut_busy_poll_rx) - bp))" >>"$OUT/busy.$r"
	fi
	kill -INT $lp
	wait $lp
	[ $name = tun ] || dut_napi_defaults 0 0
}

# round R: the kernel path with GRO off, with GRO on, then xrx without
# and with busy polling, which of the two first alternating by round.
round() {
	local r=$1 gro
	in_dut ethtool -K $IF_DUT gro off >/dev/null || return 1
	run kernel_off.$r >"$OUT/gbps.kernel_off.$r"
	in_dut ethtool -K $IF_DUT gro on >/dev/null || return 1
	gro=$(in_dut ethtool -k $IF_DUT | awk '$1 == "generic-receive-offload:" { print $2 }')
	if [ "$gro" != on ]; then
		echo "bench_tun: GRO did not turn on on $IF_DUT (ethtool -k says $gro)" >&2
		return 1
	fi
	run kernel_on.$r >"$OUT/gbps.kernel_on.$r"
	if ((r % 2)); then
		tun_run $r && tun_run $r busy
	else
		tun_run $r busy && tun_run $r
	fi
}

for ((r = 1; r <= ROUNDS; r++)); do
	round $r || exit 1
done

$PY - "$OUT" "$BENCH_OUT/bench_tun.json" "$SECS" "$ROUNDS" "$(getconf CLK_TCK)" \
	"$gro_was" "$BUSY_US" <<'PY'
import json, sys
out, jpath, secs, rounds, hz, gro_was, busy_us = sys.argv[1:8]
secs, rounds, hz = float(secs), int(rounds), float(hz)
R = range(1, rounds + 1)

def gbps(name, r):
    try:
        return float(open("%s/gbps.%s.%d" % (out, name, r)).read())
    except ValueError:
        return 0.0

def load(name):
    # Each CPU's load, the mean over the rounds.
    d = {}
    for r in R:
        for line in open("%s/%s.%d.load" % (out, name, r)):
            p = line.split()
            c = d.setdefault(p[0], {"busy": 0, "user": 0, "sys": 0, "softirq": 0})
            for i, k in enumerate(("busy", "user", "sys", "softirq")):
                c[k] += int(p[i + 1]) / rounds
    return {c: {k: round(v) for k, v in d[c].items()} for c in d}

def threads():
    # live_rx's threads over the rounds: summed user and system time.
    res = {}
    for r in R:
        a = {}
        for line in open("%s/t0.%d" % (out, r)):
            p = line.split()
            a[p[0]] = (int(p[2]), int(p[3]))
        for i, line in enumerate(open("%s/t1.%d" % (out, r))):
            p = line.split()
            u0, s0 = a.get(p[0], (0, 0))
            t = res.setdefault(i, {"thread": "main" if i == 0 else "worker %d" % i,
                                   "user_s": 0.0, "sys_s": 0.0})
            t["user_s"] += (int(p[2]) - u0) / hz
            t["sys_s"] += (int(p[3]) - s0) / hz
    return list(res.values())

def engine(key):
    n = 0
    for r in R:
        for line in open("%s/live.%d" % (out, r)):
            p = line.split()
            if len(p) == 3 and p[0] == "engine" and p[1] == key:
                n += int(p[2])
    return n

frames, aggs = engine("frames_in"), engine("aggs_out")
segs = (engine("segs_merged") + aggs) / aggs if aggs else 0
def busy():
    # Per round: the NAPI's deferral as the worker ran, whether it still
    # busy-polled at the end, and the frames the kernel busy-polled.
    res = []
    for r in R:
        d = {"napi": None, "busy_poll_active": None, "busy_poll_rx": None}
        for line in open("%s/busy.%d" % (out, r)):
            p = line.split()
            if p[0] == "napi" and len(p) == 4:
                d["napi"] = {"defer_hard_irqs": int(p[2]), "gro_flush_timeout_ns": int(p[3])}
            elif p[0] == "busy_poll_rx":
                d["busy_poll_rx"] = int(p[1])
        for line in open("%s/live_busy.%d" % (out, r)):
            p = line.split()
            if p[:1] == ["info"] and "busy_poll" in p:
                d["busy_poll_active"] = int(p[p.index("busy_poll") + 1])
            if "busy polling has no NAPI to poll" in line:
                d["fallback"] = line.strip()
        res.append(d)
    return res

rows = {}
for name, key, gro in (("kernel_gro_off", "kernel_off", "off"),
                       ("kernel_gro_on", "kernel_on", "on"),
                       ("tun", "tun", "on (unused: XDP redirects the flow)"),
                       ("tun_busy", "tun_busy", "on (unused: XDP redirects the flow)")):
    per = [gbps(key, r) for r in R]
    rows[name] = {"gbps": sum(per) / rounds, "gbps_rounds": per, "gro": gro,
                  "cpu": load(key)}
rows["tun"]["threads"] = threads()
rows["tun_busy"]["busy_poll"] = busy()
koff, kon, tun, tunb = (rows[n]["gbps"] for n in ("kernel_gro_off", "kernel_gro_on", "tun", "tun_busy"))
res = {"bench": "tun", "secs": secs, "rounds": rounds,
       "config": {"link": "veth, one queue", "sender_tx_csum": "off",
                  "receiver_gro_before": gro_was,
                  "traffic": "iperf3 TCP/IPv4, one stream, %g s per run, %d rounds interleaved" % (secs, rounds),
                  "xrx": "live_rx, sink tun:DEV,gso, default options",
                  "tun_busy": "live_rx -b %s (busy_poll_us), NAPI deferral 2 / 200000 ns" % busy_us,
                  "headline_baseline": "kernel_gro_on"},
       "kernel_gbps": kon, "kernel_gro_on_gbps": kon, "kernel_gro_off_gbps": koff,
       "tun_gbps": tun, "ratio": tun / kon if kon > 0 else 0,
       "ratio_gro_off": tun / koff if koff > 0 else 0,
       "tun_busy_gbps": tunb, "ratio_busy": tunb / kon if kon > 0 else 0,
       "ratio_busy_rounds": [b / k if k > 0 else 0 for b, k in
                             zip(rows["tun_busy"]["gbps_rounds"], rows["kernel_gro_on"]["gbps_rounds"])],
       "ratio_rounds": [t / k if k > 0 else 0 for t, k in
                        zip(rows["tun"]["gbps_rounds"], rows["kernel_gro_on"]["gbps_rounds"])],
       "target_ratio": 0.8, "frames": frames, "aggregates": aggs,
       "mean_segments": segs, "rows": rows}
json.dump(res, open(jpath, "w"), indent=1)

print("# veth, iperf3 TCP/IPv4 one stream %g s per run, %d rounds interleaved, sender TX csum off; receiver GRO as in the row" % (secs, rounds))
print("%-16s %8s %-16s %s" % ("path", "Gbit/s", "per round", "CPU busy% (user/sys/softirq) per CPU"))
for n, r in rows.items():
    print("%-16s %8.3f %-16s %s" % (n, r["gbps"], " ".join("%.2f" % g for g in r["gbps_rounds"]), "  ".join(
        "%s %d%% (%d/%d/%d)" % (c, v["busy"], v["user"], v["sys"], v["softirq"])
        for c, v in sorted(r["cpu"].items()))))
print("tun/kernel GRO on %.1f%% (headline, target >= 80%%); tun/kernel GRO off %.1f%%" % (
    100 * res["ratio"], 100 * res["ratio_gro_off"]))
b = rows["tun_busy"]["busy_poll"]
print("tun_busy/kernel GRO on %.1f%%; busy polling really ran in %d of %d rounds, %d frames busy-polled" % (
    100 * res["ratio_busy"], sum(1 for x in b if x["busy_poll_active"]), rounds,
    sum(x["busy_poll_rx"] or 0 for x in b)))
print("tun: frames %d, aggregates %d, %.1f segments each on average" % (frames, aggs, segs))
for t in rows["tun"]["threads"]:
    if t["user_s"] + t["sys_s"] > 0:
        print("tun: live_rx %s: user %.2f s, sys %.2f s of %g s" % (
            t["thread"], t["user_s"], t["sys_s"], secs * rounds))
PY
