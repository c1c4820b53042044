#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Preferred busy polling against the plain receive loop, on one veth pair,
# by CPU seconds per GB delivered (tests/helpers/afxdp_bench.c receives;
# build/xrx-send replays TCP segment trains as fast as it goes, pinned to
# CPU 0; the receiver's worker on CPU 1). Six cases, each BENCH_ROUNDS
# times, interleaved, the order turning by one case every round:
#
#   plain, null             the plain AF_XDP loop and libxrx's worker (null
#                           sink), the device's NAPI as veth makes it
#                           (napi_defer_hard_irqs 0, gro_flush_timeout 0)
#   plain_defer, null_defer the same with the deferral busy_poll = on sets
#                           (2 and 200000 ns): the "same setting" baseline
#   plain_busy, null_busy   that deferral and busy polling (-B: the
#                           worker's NAPI polls, busy_poll_us of them on an
#                           empty ring before poll())
#
# The deferral is set through the device's sysfs files before each
# receiver starts (in the DUT's namespace, `ip netns exec`, which mounts
# that namespace's sysfs): veth makes its NAPI when the program is
# attached, and a new NAPI starts from the device's values. Each run
# records what the NAPI really had (tests/tools/napi.py) and how many
# frames the kernel busy-polled (TcpExt BusyPollRxPackets of the DUT's
# namespace): on Linux 6.13+ a copy-mode AF_XDP socket has no NAPI id, so
# on veth "busy" falls back to the plain loop (busy_poll_active 0 in the
# JSON) and only its cost before the fallback shows.
#
# The measure (scripts/bench/cpu_lib.sh, cpu_json): busy CPU seconds of
# the whole machine per 10^9 bytes delivered (the receiver's bytes, at its
# rate over the measured interval); beside it the same for the
# benchmark's own parties only (sender, receiver, ksoftirqd and the
# veths' NAPI threads, by their run time, which holds the softirqs run in
# their context): on a machine shared with other work the whole-machine
# figure includes the neighbours'. Medians, min and max over the rounds,
# and each round's value; the load average at start and end.
#
# Prints a table and writes $BENCH_OUT/busy_poll.json (every run's raw
# figures in $BENCH_OUT/busy_poll.runs/: CASE.ROUND.kv, and cpu_json's
# CASE.ROUND.cpu).
#   BENCH_SECS=N       measured seconds per run (default 5)
#   BENCH_ROUNDS=N     rounds (default 5)
#   BENCH_BUSY_US=N    -B's microseconds of polls on an empty ring (default
#                      50, libxrx's busy_poll_usec default)
#   BENCH_CASES="..."  a subset of the cases, in this order
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. scripts/bench/cpu_lib.sh
. scripts/bench/afxdp_lib.sh
BENCH_OUT=${BENCH_OUT:-$BUILD/bench}
SECS=${BENCH_SECS:-5}
ROUNDS=${BENCH_ROUNDS:-5}
BUSY_US=${BENCH_BUSY_US:-50}
CASES=(${BENCH_CASES:-plain plain_defer plain_busy null null_defer null_busy})
DEFER=2
TIMEOUT_NS=200000
WARM=1
PORT=5001
NAPI="$PY tests/tools/napi.py"
mkdir -p "$BENCH_OUT"
afxdp_setup bench_busy_poll

# run CASE ROUND: one receiver, one sender burst; CASE.ROUND.kv
run() {
	local name=$1 r=$2 kv=$OUT/$1.$2.kv mode args=() rp sp bp0 bp1 napi d0
	case $name in
	plain*) mode=plain ;;
	*) mode=null ;;
	esac
	case $name in
	*_defer) dut_napi_defaults $DEFER $TIMEOUT_NS ;;
	*_busy) dut_napi_defaults $DEFER $TIMEOUT_NS; args=(-B $BUSY_US) ;;
	*) dut_napi_defaults 0 0 ;;
	esac
	nsenter --net=/run/netns/$NS_DUT "$RX" -i $IF_DUT -m $mode -p $PORT \
		-t $SECS -W $WARM -c $RX_CPU -T 10 "${args[@]}" >"$kv" 2>"$OUT/$name.$r.err" &
	rp=$!
	at_exit kill $rp
	if ! wait_for 30 grep -q '^ready' "$kv"; then
		cat "$OUT/$name.$r.err" >&2
		return 1
	fi
	# (Appended once the receiver is done: it writes to the file too.)
	napi="napi $(in_dut $NAPI get $IF_DUT | head -1)"
	bp0=$(dut_busy_poll_rx)
	d0=$(veth_tx_dropped)
	in_src timeout -s INT $((WARM + SECS + 5)) taskset -c $SEND_CPU "$SEND" \
		-i $IF_SRC --pcap "$OUT/trains.pcap" --repeat 100000000 -b 256 \
		2>/dev/null &
	sp=$!
	at_exit kill $sp
	# Inside the receiver's window, which starts at the first frame and
	# lasts SECS after WARM.
	sleep $((WARM + 1))
	cpu_snap "$OUT/c0" receiver=$rp sender=$sp
	sleep $((SECS > 3 ? SECS - 2 : 1))
	cpu_snap "$OUT/c1" receiver=$rp sender=$sp
	wait $rp || { cat "$OUT/$name.$r.err" >&2; return 1; }
	kill -INT $(cpu_tree $sp) 2>/dev/null
	wait $sp
	bp1=$(dut_busy_poll_rx)
	# The bytes are counted over the receiver's own window: cpu_json
	# takes their rate.
	cpu_json "$OUT/c0" "$OUT/c1" "$(awk '$1 == "bytes" { print $2 }' "$kv")" \
		"$(awk '$1 == "secs" { print $2 }' "$kv")" >"$OUT/$name.$r.cpu"
	echo "$napi" >>"$kv"
	echo "busy_poll_rx $((bp1 - bp0))" >>"$kv"
	echo "veth_dropped $(($(veth_tx_dropped) - d0))" >>"$kv"
	echo "loadavg $(cut -d' ' -f1 /proc/loadavg)" >>"$kv"
}

CPU_DEVS="$IF_DUT|$IF_SRC"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
n=${#CASES[@]}
for ((r = 1; r <= ROUNDS; r++)); do
	for ((i = 0; i < n; i++)); do
		c=${CASES[$(((i + r - 1) % n))]}
		run "$c" $r || exit 1
	done
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
dut_napi_defaults 0 0
# Every run's raw "key value" lines, beside the JSON.
rm -rf "$BENCH_OUT/busy_poll.runs"
mkdir -p "$BENCH_OUT/busy_poll.runs" && cp "$OUT"/*.kv "$OUT"/*.cpu "$BENCH_OUT/busy_poll.runs/"

$PY - "$OUT" "$BENCH_OUT/busy_poll.json" "$ROUNDS" "$SECS" "$BUSY_US" "$LOAD0" "$LOAD1" "${CASES[@]}" <<'PY'
import json, statistics, sys
out, jpath, rounds, secs, busy_us, load0, load1 = sys.argv[1:8]
cases = sys.argv[8:]
rounds = int(rounds)

sys.path.insert(0, "scripts/bench")
from kvfile import kv

def spread(v):
    v = [x for x in v if x is not None]
    return {"median": round(statistics.median(v), 3), "min": round(min(v), 3),
            "max": round(max(v), 3), "rounds": [round(x, 3) for x in v]} if v else None

rows = {}
for c in cases:
    runs = [kv("%s/%s.%d.kv" % (out, c, r)) for r in range(1, rounds + 1)]
    cpus = [json.load(open("%s/%s.%d.cpu" % (out, c, r))) for r in range(1, rounds + 1)]
    per = [{"machine": x.get("cpu_s_per_gb"), "tasks": x.get("parties_cpu_s_per_gb")}
           for x in cpus]
    napi = runs[0].get("napi")
    rows[c] = {
        "receiver": "plain AF_XDP loop" if c.startswith("plain") else "libxrx worker, null sink",
        "napi_defer_hard_irqs_gro_flush_timeout": napi[1:] if isinstance(napi, list) else None,
        "busy_poll_requested": c.endswith("_busy"),
        "busy_poll_active_rounds": [int(x.get("busy_poll_active", 0)) for x in runs],
        "busy_poll_rx_frames": [int(x.get("busy_poll_rx", 0)) for x in runs],
        "cpu_s_per_gb": spread([p["machine"] for p in per]),
        "tasks_cpu_s_per_gb": spread([p["tasks"] for p in per]),
        "gbit_s": spread([x["gbps"] for x in runs]),
        "rx_thread_ns_per_frame": spread([x["rx_ns_per_frame"] for x in runs]),
        "xsk_rx_dropped": int(sum(x["xsk_rx_dropped"] for x in runs)),
        "veth_dropped": int(sum(x.get("veth_dropped", 0) for x in runs)),
        "loadavg_1min": [x["loadavg"] for x in runs],
    }

def ratio(a, b, k):
    if a in rows and b in rows and rows[a][k] and rows[b][k]:
        return round(rows[a][k]["median"] / rows[b][k]["median"], 3)
    return None

pairs = [("plain_busy", "plain_defer"), ("null_busy", "null_defer"),
         ("plain_defer", "plain"), ("null_defer", "null"), ("null_busy", "plain_busy")]
res = {
    "bench": "busy_poll", "secs": float(secs), "rounds": rounds,
    "config": {"link": "veth, one queue, AF_XDP copy mode",
               "traffic": "xrx-send pcap replay, TCPv4 16 flows x 16-segment trains, 1448-byte payload, as fast as it goes",
               "sender_cpu": 0, "rx_cpu": 1, "busy_poll_us": int(busy_us),
               "deferral": {"napi_defer_hard_irqs": 2, "gro_flush_timeout_ns": 200000},
               "measure": "cpu_s_per_gb: whole machine busy CPU-s per 1e9 bytes delivered (cpu_lib.sh); tasks_cpu_s_per_gb: its parties only (sender, receiver, ksoftirqd, NAPI threads)"},
    "loadavg": {"start": load0.split(), "end": load1.split()},
    "rows": rows,
    "ratios": {"%s/%s" % (a, b): {"cpu_s_per_gb": ratio(a, b, "cpu_s_per_gb"),
                                  "tasks_cpu_s_per_gb": ratio(a, b, "tasks_cpu_s_per_gb")}
               for a, b in pairs if a in rows and b in rows},
}
json.dump(res, open(jpath, "w"), indent=1)

print("# veth, AF_XDP copy mode; %s; %d round(s) of %s s interleaved; load %s -> %s" % (
    res["config"]["traffic"], rounds, secs, load0, load1))
print("%-12s %6s %5s %9s %16s %16s %12s %7s %9s" % (
    "case", "napi", "busy", "Gbit/s", "CPU-s/GB (all)", "CPU-s/GB (tasks)",
    "rx ns/frame", "bp_rx", "drops"))
for c, x in rows.items():
    n = x["napi_defer_hard_irqs_gro_flush_timeout"]
    print("%-12s %6s %5s %9.3f %7.2f [%.2f-%.2f] %7.2f [%.2f-%.2f] %12.0f %7d %9d" % (
        c, "%d/%d" % (n[0], n[1] // 1000) if n else "?",
        "%d/%d" % (sum(x["busy_poll_active_rounds"]), rounds) if x["busy_poll_requested"] else "-",
        x["gbit_s"]["median"], x["cpu_s_per_gb"]["median"], x["cpu_s_per_gb"]["min"],
        x["cpu_s_per_gb"]["max"], x["tasks_cpu_s_per_gb"]["median"],
        x["tasks_cpu_s_per_gb"]["min"], x["tasks_cpu_s_per_gb"]["max"],
        x["rx_thread_ns_per_frame"]["median"], sum(x["busy_poll_rx_frames"]),
        x["xsk_rx_dropped"] + x["veth_dropped"]))
print("napi: defer_hard_irqs/gro_flush_timeout us; busy: rounds that really busy-polled; bp_rx: frames the kernel busy-polled (BusyPollRxPackets); drops: at the socket and the veth, all rounds")
for k, v in res["ratios"].items():
    print("%-24s CPU-s/GB all %s, tasks %s" % (k, v["cpu_s_per_gb"], v["tasks_cpu_s_per_gb"]))
PY
