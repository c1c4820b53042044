#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# AF_XDP receive rate over one veth pair, six receivers against the same
# traffic in one run (tests/helpers/afxdp_bench.c):
#   plain  xrx_rx in front, an AF_XDP receive-and-drop loop behind it (no
#          header copy, no aggregation): the baseline. The same XDP
#          program in every case, so the ratios measure the userspace side.
#   null   libxrx's live API, default options, the null sink
#   pcap   the same with the pcap sink writing to /dev/null
#   tun    the same with the TUN sink (tun:DEV,gso) into the DUT's stack;
#          no socket listens on the port, so the stack answers every
#          aggregate with a reset, as it would for the kernel path
#   plain_nocoalesce, null_nocoalesce
#          plain and null without interrupt moderation (coalesce_usec):
#          blocking in poll() whenever the ring is empty, as before it
# The headline is the whole machine's CPU per GB received (cpu_s_per_gb,
# scripts/bench/cpu_lib.sh): busy CPU seconds from /proc/stat over the
# measured interval per 10^9 bytes of frames that reached the receiver.
# On veth the sender's CPU also runs the DUT's NAPI (xrx_rx and the copy
# into the UMEM), and how often the receiver is woken shows up there, so
# the receiver's own CPU cannot tell two receivers apart; the machine's
# can. Each case is held against the plain loop under the same
# moderation setting. As a cross-check on a shared machine, the parties'
# CPU (sender, receiver, ksoftirqd) per GB. Also the receiver's CPU time
# per frame: the CPU time of the receiving threads (the AF_XDP loop, or
# libxrx's worker; not the main thread, which only samples), user and
# system apart, from /proc/self/task.
# Traffic: build/xrx-send on the source side replaying TCP segment trains
# (16 flows, 16-segment trains, 1448-byte payload; generated once, then
# replayed from a pcap, which costs the sender far less than generating
# every frame) as fast as it goes, pinned to CPU 0; the receiver's worker
# on CPU 1. Each case runs BENCH_ROUNDS times (default 2), interleaved,
# so a neighbour's load on the machine hits every case alike.
#
# Besides the rates it records what limits them: frames xrx_rx saw
# (offered), frames the veth dropped before XDP (its ring was full: the
# kernel side of the receive path is the limit), drops at the socket
# (rx ring full, fill ring empty: the receiver is the limit), frames per
# receive batch, waits in poll() and naps per second, each CPU's load.
# Memory: VmRSS of the receiver and the bytes libxrx allocates per queue
# (UMEM + engine pools + flow table) with default options.
#
# Prints a table and writes $BENCH_OUT/afxdp.json.
#   BENCH_SECS=N     measured seconds per case (default 5)
#   BENCH_ROUNDS=N   rounds (default 2)
#   BENCH_SENDERS=N  sender processes (default 1; the 2nd shares the
#                    receiver's CPU on a 2-core machine)
#   BENCH_PROFILE=0  no profiled round. By default, after the measured
#                    rounds, one more of each case under perf record -a
#                    (scripts/bench/perf_lib.sh): each party's ns per
#                    frame and top symbols, and the kernel's receive path
#                    per frame, in the JSON's "profile".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. scripts/bench/cpu_lib.sh
. scripts/bench/perf_lib.sh
. scripts/bench/afxdp_lib.sh
BENCH_OUT=${BENCH_OUT:-$BUILD/bench}
SECS=${BENCH_SECS:-5}
ROUNDS=${BENCH_ROUNDS:-2}
SENDERS=${BENCH_SENDERS:-1}
WARM=1
PORT=5001
mkdir -p "$BENCH_OUT"
afxdp_setup bench_afxdp

# run CASE MODE ROUND [ARGS]: one receiver (afxdp_bench ARGS), one sender
# burst; CASE.ROUND.kv and CASE.ROUND.cpu (cpu_json)
run() {
	local name=$1 mode=$2 r=$3 kv=$OUT/$1.$3.kv rp sp pids=() d0 d1 i
	local parties=()
	shift 3
	nsenter --net=/run/netns/$NS_DUT "$RX" -i $IF_DUT -m "$mode" -p $PORT \
		-t $SECS -W $WARM -c $RX_CPU -T 10 "$@" >"$kv" 2>"$OUT/$name.$r.err" &
	rp=$!
	at_exit kill $rp
	if ! wait_for 30 grep -q '^ready' "$kv"; then
		cat "$OUT/$name.$r.err" >&2
		return 1
	fi
	d0=$(veth_tx_dropped)
	for ((i = 0; i < SENDERS; i++)); do
		in_src timeout -s INT $((WARM + SECS + 3)) \
			taskset -c $(((SEND_CPU + i) % NCPU)) "$SEND" -i $IF_SRC \
			--pcap "$OUT/trains.pcap" --repeat 100000000 -b 256 -v \
			2>"$OUT/$name.$r.send$i" &
		sp=$!
		pids+=($sp)
		parties+=(sender=$sp)
		at_exit kill $sp
	done
	# CPU inside the receiver's window (it starts at the first frame,
	# after WARM seconds); the bytes are counted over the receiver's own
	# window, so cpu_json takes their rate.
	sleep $((WARM + 1))
	[ "$r" != profile ] || perf_start "$OUT/$name.perf"
	cpu_snap "$OUT/c0" receiver=$rp "${parties[@]}"
	sleep $((SECS - 2 > 1 ? SECS - 2 : 1))
	cpu_snap "$OUT/c1" receiver=$rp "${parties[@]}"
	if [ "$r" = profile ]; then
		# The receiving threads: all but the main one, which samples.
		rtids=$(ls /proc/$rp/task | grep -vx $rp | paste -sd,)
		perf_stop
	fi
	wait $rp || { cat "$OUT/$name.$r.err" >&2; return 1; }
	for sp in "${pids[@]}"; do kill -INT $sp 2>/dev/null; wait $sp; done
	d1=$(veth_tx_dropped)
	echo "veth_dropped_total $((d1 - d0))" >>"$kv"
	cat "$OUT/$name.$r.send"* | awk '/sent/ { n += $4 } END { print "sent_total", n + 0 }' >>"$kv"
	cpu_load "$OUT/c0" "$OUT/c1" | awk '{ print "load_" $1, $2, $3, $4, $5 }' >>"$kv"
	cpu_json "$OUT/c0" "$OUT/c1" "$(awk '$1 == "bytes" { print $2 }' "$kv")" \
		"$(awk '$1 == "secs" { print $2 }' "$kv")" >"$OUT/$name.$r.cpu"
	[ "$r" != profile ] && return
	# Frames inside perf's window: the receiver's rate over it.
	perf_json "$OUT/$name.perf" "$($PY -c 'import json, sys
kv = dict(l.split()[:2] for l in open(sys.argv[1]) if len(l.split()) >= 2)
print(float(kv["frames"]) / float(kv["secs"]) * json.load(open(sys.argv[2]))["interval_s"])' \
		"$kv" "$OUT/$name.$r.cpu")" receiver=$rtids sender=comm:xrx-send \
		"kthreads=re:^(ksoftirqd/|napi/($CPU_DEVS)-)" >"$OUT/$name.prof"
	rm -f "$OUT/$name.perf"
}

CPU_DEVS="$IF_DUT|$IF_SRC"
TUN=xa$$
in_dut sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
in_dut ip tuntap add dev $TUN mode tun vnet_hdr || exit 1
in_dut sysctl -qw net.ipv4.conf.$TUN.rp_filter=0
in_dut ip link set $TUN up

for ((r = 1; r <= ROUNDS; r++)); do
	run plain plain $r || exit 1
	run null null $r || exit 1
	run pcap pcap:/dev/null $r || exit 1
	run tun "tun:$TUN,gso" $r || exit 1
	# The same two without interrupt moderation (coalesce_usec):
	# blocking in poll() whenever the ring is empty.
	run plain_nocoalesce plain $r -N 0 || exit 1
	run null_nocoalesce null $r -N 0 || exit 1
done
# The profiled round: the default cases, and null with trusted checksums
# (what csum = verify costs in the worker).
if [ "${BENCH_PROFILE:-1}" != 0 ] && perf_ok; then
	run plain plain profile || exit 1
	run null null profile || exit 1
	run null_trust null profile -C trust || exit 1
	run pcap pcap:/dev/null profile || exit 1
	run tun "tun:$TUN,gso" profile || exit 1
fi

# Table and JSON from the CASE.ROUND.kv files.
$PY - "$OUT" "$BENCH_OUT/afxdp.json" "$ROUNDS" "$SECS" "$SENDERS" "$SEND_CPU" "$RX_CPU" <<'PY'
import json, statistics, sys
out, jpath, rounds, secs, senders, scpu, rcpu = sys.argv[1:8]
rounds = int(rounds)
MiB = 1 << 20

sys.path.insert(0, "scripts/bench")
from kvfile import kv

cases = {}
CASES = ("plain", "null", "pcap", "tun", "plain_nocoalesce", "null_nocoalesce")
for c in CASES:
    runs = [kv("%s/%s.%d.kv" % (out, c, r)) for r in range(1, rounds + 1)]
    cpu = [json.load(open("%s/%s.%d.cpu" % (out, c, r))) for r in range(1, rounds + 1)]
    mean = lambda k: sum(x.get(k, 0) for x in runs) / len(runs)
    med = lambda v: statistics.median(v) if v else None
    parties = {}
    for x in cpu:
        for k, v in x["parties_cpu_s"].items():
            parties[k] = parties.get(k, 0) + v / x["interval_s"] / len(cpu)
    cases[c] = {
        # Whole-machine CPU seconds per GB reaching the receiver (the
        # headline), each round's, and the parties' cross-check.
        "cpu_s_per_gb": med([x["cpu_s_per_gb"] for x in cpu]),
        "cpu_s_per_gb_rounds": [x["cpu_s_per_gb"] for x in cpu],
        "parties_cpu_s_per_gb": med([x["parties_cpu_s_per_gb"] for x in cpu]),
        "parties_cpus": {k: round(v, 3) for k, v in parties.items()},
        "per_cpu": [x["per_cpu"] for x in cpu],
        "loadavg": [x["loadavg"] for x in cpu],
        "coalesce_usec": int(runs[0].get("coalesce_usec", 0)),
        "frames_per_batch": mean("frames_per_batch"),
        "polls_per_s": mean("polls") / mean("secs"),
        "naps_per_s": mean("naps") / mean("secs"),
        # The receiving threads' CPU per sleep and wake-up (poll() or
        # nap): in the plain loop, which does nothing else per batch, about
        # what one wake-up costs on this machine.
        "rx_us_per_wakeup": (mean("rx_threads_run_s") * 1e6 / (mean("polls") + mean("naps"))
                             if mean("polls") + mean("naps") else None),
        "rx_thread_ns_per_frame": mean("rx_ns_per_frame"),
        "rx_thread_user_ns_per_frame": mean("rx_user_ns_per_frame"),
        "rx_thread_sys_ns_per_frame": mean("rx_sys_ns_per_frame"),
        "rx_thread_ns_per_frame_rounds": [x.get("rx_ns_per_frame") for x in runs],
        "mpps": mean("mpps"), "gbps": mean("gbps"),
        "mpps_rounds": [x["mpps"] for x in runs],
        "offered_mpps": mean("prog_rx") / mean("secs") / 1e6,
        "xsk_rx_dropped": int(sum(x["xsk_rx_dropped"] for x in runs)),
        "xsk_rx_ring_full": int(sum(x["xsk_ring_full"] for x in runs)),
        "xsk_rx_fill_empty": int(sum(x["xsk_fill_empty"] for x in runs)),
        "veth_dropped": int(sum(x["veth_dropped_total"] for x in runs)),
        "sent": int(sum(x["sent_total"] for x in runs)),
        "rx_cpu_ns_per_frame": mean("cpu_ns_per_frame"),
        "rx_capacity_mpps": mean("capacity_mpps"),
        "segs_per_pkt": (mean("frames") / mean("pkts_out")) if mean("pkts_out") else None,
        "rss_mib": max(x["rss_kib"] for x in runs) / 1024,
        "umem_mib": runs[0]["umem_bytes"] / MiB,
        "pools_mib": runs[0]["pools_bytes"] / MiB,
        "attach": runs[0].get("attach"), "bind": runs[0].get("bind"),
    }
    # Per-CPU load: the mean of each column.
    for k in ("load_cpu%s" % scpu, "load_cpu%s" % rcpu):
        if all(isinstance(x.get(k), list) for x in runs):
            cols = [sum(x[k][i] for x in runs) / len(runs) for i in range(4)]
            cases[c][k[5:] + "_busy_user_sys_softirq_pct"] = [round(v) for v in cols]
    cases[c]["send_cpu_busy_pct"] = cases[c].get("cpu%s_busy_user_sys_softirq_pct" % scpu, [None])[0]
    cases[c]["rx_cpu_busy_pct"] = cases[c].get("cpu%s_busy_user_sys_softirq_pct" % rcpu, [None])[0]

for n, c in cases.items():
    # Against the plain loop under the same settings.
    p = cases["plain_nocoalesce" if n.endswith("_nocoalesce") else "plain"]
    c["ratio"] = c["mpps"] / p["mpps"] if p["mpps"] else 0
    c["cpu_per_gb_ratio"] = (c["cpu_s_per_gb"] / p["cpu_s_per_gb"]
                             if p["cpu_s_per_gb"] else 0)
    c["rx_cpu_ratio"] = (c["rx_thread_ns_per_frame"] / p["rx_thread_ns_per_frame"]
                         if p["rx_thread_ns_per_frame"] else 0)
    c["capacity_ratio"] = (c["rx_capacity_mpps"] / p["rx_capacity_mpps"]
                           if p["rx_capacity_mpps"] else 0)
    c["mem_per_queue_mib"] = c["umem_mib"] + c["pools_mib"]

# What limits: drops at the veth (before XDP) mean the kernel side could
# not take more; socket drops mean the receiver could not.
lim = {}
for n, c in cases.items():
    if c["xsk_rx_dropped"] > 0.01 * c["mpps"] * 1e6 * float(secs) * rounds:
        lim[n] = "receiver (socket drops)"
    elif (c.get("rx_cpu_busy_pct") or 0) >= 95 and (c.get("send_cpu_busy_pct") or 0) >= 95:
        lim[n] = "every CPU busy (sender, kernel path and receiver share them)"
    elif c["veth_dropped"] > 0:
        lim[n] = "kernel receive path on the sender's CPU (veth ring full)"
    else:
        # veth runs the DUT's NAPI (xrx_rx, the copy into the UMEM) in
        # softirq on the CPU that sent the frame.
        lim[n] = "sender CPU (send + veth NAPI + XDP + UMEM copy)"
    c["limit"] = lim[n]

# The profiled round (perf_lib.sh), if it ran: per case each party's ns
# per frame with its top symbols, the kernel's receive path, and the
# receiving threads' user and system time per frame in that round.
profile = {}
for n in ("plain", "null", "null_trust", "pcap", "tun"):
    try:
        pr = json.load(open("%s/%s.prof" % (out, n)))
    except (OSError, ValueError):
        continue
    k = kv("%s/%s.profile.kv" % (out, n))
    pr["rx_user_ns_per_frame"] = k.get("rx_user_ns_per_frame")
    pr["rx_sys_ns_per_frame"] = k.get("rx_sys_ns_per_frame")
    pr["rx_ns_per_frame"] = k.get("rx_ns_per_frame")
    pr["segs_per_pkt"] = k["frames"] / k["pkts_out"] if k.get("pkts_out") else None
    pr["frames_per_batch"] = k.get("frames_per_batch")
    profile[n] = pr

xrx_mem = cases["null"]["mem_per_queue_mib"]
res = {
    "bench": "afxdp", "secs": float(secs), "rounds": rounds,
    "config": {"link": "veth, one queue, AF_XDP copy mode",
               "traffic": "xrx-send pcap replay, TCPv4 16 flows x 16-segment trains, 1448-byte payload",
               "senders": int(senders), "sender_cpu": int(scpu), "rx_cpu": int(rcpu),
               "xdp_program": "xrx_rx in every case",
               "xrx_options": "defaults (csum verify, coalesce_usec %d); *_nocoalesce: no_coalesce, and the plain loop without its sleep" % cases["null"]["coalesce_usec"],
               "headline": "cpu_s_per_gb: busy CPU seconds of the whole machine (/proc/stat) per 10^9 bytes of frames received"},
    "headline_cpu_s_per_gb": {n: c["cpu_s_per_gb"] for n, c in cases.items()},
    "headline_rx_ns_per_frame": {n: c["rx_thread_ns_per_frame"] for n, c in cases.items()},
    "headline_rx_cpu_ratio": {n: c["rx_cpu_ratio"] for n, c in cases.items()},
    "senders": int(senders), "sender_cpu": int(scpu), "rx_cpu": int(rcpu),
    "traffic": "TCPv4, 16 flows x 16-segment trains, 1448-byte payload, 1514-byte frames, pcap replay",
    "xdp_program": "xrx_rx in every case",
    "cases": cases, "profile": profile,
    "null_ratio": cases["null"]["ratio"], "pcap_ratio": cases["pcap"]["ratio"],
    "null_capacity_ratio": cases["null"]["capacity_ratio"],
    "pcap_capacity_ratio": cases["pcap"]["capacity_ratio"],
    "target_ratio": 0.9, "target_ratio_met": cases["null"]["ratio"] >= 0.9,
    "mem_per_queue_mib": xrx_mem, "target_mem_mib": 64,
    "target_mem_met": xrx_mem <= 64,
}
json.dump(res, open(jpath, "w"), indent=1)

print("# veth, AF_XDP copy mode, xrx_rx in front of every receiver; %s; receiver on cpu%s, sender on cpu%s; %d round(s) of %s s, interleaved" % (
    res["config"]["traffic"], rcpu, scpu, rounds, secs))
print("whole-machine CPU per GB received (the headline; x plain: against the plain loop with the same coalesce setting):")
print("%-16s %7s %9s %8s %9s %7s %7s %7s %9s  %s" % ("case", "Gbit/s", "cpu_s/GB", "x plain", "parties", "fr/batch", "polls/s", "naps/s", "seg/pkt", "per round"))
for n, c in cases.items():
    print("%-16s %7.3f %9.3f %7.2fx %9.3f %7.1f %7.0f %7.0f %9s  %s" % (
        n, c["gbps"], c["cpu_s_per_gb"] or 0, c["cpu_per_gb_ratio"],
        c["parties_cpu_s_per_gb"] or 0, c["frames_per_batch"], c["polls_per_s"],
        c["naps_per_s"], "%.1f" % c["segs_per_pkt"] if c["segs_per_pkt"] else "-",
        " ".join("%.3f" % (v or 0) for v in c["cpu_s_per_gb_rounds"])))
print("parties: the sender's, receiver's, ksoftirqd and NAPI threads' CPU per GB (the cross-check on a shared machine)")
print("receiver CPU per wake-up (poll() or nap): " + ", ".join(
    "%s %.1f us" % (n, c["rx_us_per_wakeup"]) for n, c in cases.items() if c["rx_us_per_wakeup"]))
print("receiver CPU per frame (user+sys of the receiving threads):")
print("%-16s %9s %9s %9s %9s  %s" % ("case", "ns/frame", "user", "sys", "x plain", "per round"))
for n, c in cases.items():
    print("%-16s %9.0f %9.0f %9.0f %8.2fx  %s" % (
        n, c["rx_thread_ns_per_frame"], c["rx_thread_user_ns_per_frame"],
        c["rx_thread_sys_ns_per_frame"], c["rx_cpu_ratio"],
        " ".join("%.0f" % (v or 0) for v in c["rx_thread_ns_per_frame_rounds"])))
print("%-16s %7s %7s %6s %8s %9s %9s %8s %9s %7s  %s" % (
    "case", "Mpps", "Gbit/s", "ratio", "offered", "xsk_drop", "veth_drop",
    "ns/frame", "rx_cap", "RSS", "limit"))
for n, c in cases.items():
    print("%-16s %7.4f %7.3f %5.0f%% %8.4f %9d %9d %8.0f %9.3f %6.1fM  %s" % (
        n, c["mpps"], c["gbps"], 100 * c["ratio"], c["offered_mpps"],
        c["xsk_rx_dropped"], c["veth_dropped"], c["rx_cpu_ns_per_frame"],
        c["rx_capacity_mpps"], c["rss_mib"], c["limit"]))
for n, c in cases.items():
    s = c.get("cpu%s_busy_user_sys_softirq_pct" % scpu)
    r = c.get("cpu%s_busy_user_sys_softirq_pct" % rcpu)
    print("%-16s sender cpu%s busy %s%% (user/sys/softirq %s)   receiver cpu%s busy %s%% (%s)%s" % (
        n, scpu, s[0] if s else "?", "/".join(map(str, s[1:])) if s else "?",
        rcpu, r[0] if r else "?", "/".join(map(str, r[1:])) if r else "?",
        ("   %.1f segments per delivered packet" % c["segs_per_pkt"]) if c["segs_per_pkt"] else ""))
print("Mpps per round: " + "; ".join("%s %s" % (n, " ".join("%.4f" % v for v in c["mpps_rounds"])) for n, c in cases.items()))
print("ns/frame: receiving process CPU (user+sys) per frame; rx_cap: frames per receiver CPU-second (Mpps)")
print("xrx/plain: rate %.0f%% (null), %.0f%% (pcap); receiver capacity %.0f%% (null), %.0f%% (pcap); target >= 90%%" % (
    100 * res["null_ratio"], 100 * res["pcap_ratio"],
    100 * res["null_capacity_ratio"], 100 * res["pcap_capacity_ratio"]))
print("memory per queue, default options: UMEM %.1f MiB + engine pools and flow table %.1f MiB = %.1f MiB allocated (target <= 64 MiB: %s); VmRSS %.1f MiB (plain loop %.1f MiB)" % (
    cases["null"]["umem_mib"], cases["null"]["pools_mib"], xrx_mem,
    "met" if res["target_mem_met"] else "MISSED", cases["null"]["rss_mib"],
    cases["plain"]["rss_mib"]))
if profile:
    print("profile (one more round under perf record -a, ns per frame; null_trust: csum = trust):")
    print("%-11s %8s %8s %8s %8s %8s  %s" % ("case", "rx user", "rx sys", "receiver", "sender", "kern_rx", "receiver's top symbols"))
    for n, p in profile.items():
        r = p["parties"]["receiver"]
        print("%-11s %8.0f %8.0f %8.0f %8.0f %8.0f  %s" % (
            n, p["rx_user_ns_per_frame"] or 0, p["rx_sys_ns_per_frame"] or 0, r["ns_per_frame"],
            p["parties"]["sender"]["ns_per_frame"], p["kernel_rx"]["ns_per_frame"],
            ", ".join("%s %.0f" % (sym, v) for sym, v in r["top"][:5])))
PY
