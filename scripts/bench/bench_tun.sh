#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# TCP throughput into the DUT's stack over one veth pair, in one run:
#   kernel_gro_off  iperf3 to a socket on the DUT, no xrx, the receiving
#                   veth with GRO off (veth's default)
#   kernel_gro_on   the same with `ethtool -K IFACE gro on` on the
#                   receiver: what a user comparing against the kernel
#                   runs (the kernel aggregates as xrx does)
#   kernel_gro_on_threaded
#                   GRO on and threaded NAPI (/sys/class/net/IFACE/threaded
#                   1): veth's NAPI, with GRO, in a kthread the scheduler
#                   may put on the other CPU instead of the sender's softirq
#   tun             xrx_rx redirecting the flow to AF_XDP, libxrx
#                   aggregating it and the TUN sink injecting the
#                   aggregates (tests/helpers/live_rx.c -s tun:DEV,gso,
#                   default options)
#   tun_threaded    the same with threaded NAPI (xrx_rx and the copy into
#                   the UMEM in the kthread)
#   tun_busy        tun with xrxd's busy_poll = on: preferred busy polling
#                   by the worker (live_rx -b, BENCH_BUSY_US of polls on an
#                   empty ring, default 50) and the NAPI deferral it needs
#                   (napi_defer_hard_irqs 2, gro_flush_timeout 200000 ns),
#                   set for this row only. Whether the worker really
#                   busy-polled (a copy-mode socket on veth has no NAPI id
#                   on Linux 6.13+, and the worker then falls back to the
#                   plain loop) and the frames the kernel busy-polled
#                   (BusyPollRxPackets) are in the row's "busy_poll".
# All with TX checksum offload off on the sender, which the xrx path
# needs (valid checksums on the wire), so all see MTU-sized segments.
# The baseline is the faster of the two GRO-on kernel rows.
# Every row has cpu_s_per_gb: busy CPU seconds of the whole machine per
# 10^9 bytes iperf3 received (scripts/bench/cpu_lib.sh), with each CPU's
# share, and as the cross-check on a shared machine the parties' CPU:
# iperf3's client and server (its own getrusage figures: the client's
# includes the softirq that runs the DUT's NAPI on the sending CPU),
# live_rx's threads, ksoftirqd and the veth's NAPI kthreads. For tun the
# CPU time of each of live_rx's threads too (the worker does the header
# copy, GRO and the TUN write, whose syscall runs the DUT's TCP receive).
# Prints a table and writes $BENCH_OUT/bench_tun.json:
#   {"kernel_gro_on_gbps": G, "kernel_gro_on_threaded_gbps": G,
#    "kernel_gro_off_gbps": G, "tun_gbps": G, "tun_threaded_gbps": G,
#    "ratio": tun / the faster GRO-on kernel row, ...,
#    "rows": {NAME: {"gbps", "cpu_s_per_gb", ...}}}
# Each round runs the six in turn (BENCH_ROUNDS, default 2), so a
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
CPU_DEVS="$IF_DUT|$IF_SRC"
in_src ethtool -K $IF_SRC tx off >/dev/null
# The DUT's /sys/class/net is the root namespace's under nsenter: switch
# threaded NAPI from an "ip netns exec" shell, which mounts its own sysfs.
# Writing it needs the device's NAPI (veth has one with GRO on or XDP):
# write only a change.
threaded() {
	[ "$(ip netns exec $NS_DUT cat /sys/class/net/$IF_DUT/threaded)" = $1 ] ||
		ip netns exec $NS_DUT sh -c "echo $1 > /sys/class/net/$IF_DUT/threaded" || return 1
	[ "$(ip netns exec $NS_DUT cat /sys/class/net/$IF_DUT/threaded)" = $1 ] || {
		echo "bench_tun: threaded NAPI did not switch to $1 on $IF_DUT" >&2
		return 1
	}
}


# run NAME [LABEL=PID...]: one iperf3 transfer to the DUT; prints
# receiver Gbit/s and leaves the CPU load of the transfer in
# $OUT/NAME.load and its CPU per GB in $OUT/NAME.cpu (cpu_json; the
# parties: the PIDs given, ksoftirqd and the NAPI kthreads).
run() {
	local name=$1 bytes
	shift
	in_dut timeout $((SECS + 30)) iperf3 -s -1 -B $IP4_DUT -p $PORT >/dev/null 2>&1 &
	local sp=$!
	sleep 0.3
	cpu_snap "$OUT/$name.c0" "$@"
	in_src timeout $((SECS + 20)) iperf3 -c $IP4_DUT -p $PORT -t $SECS -J >"$OUT/$name.json" 2>&1
	cpu_snap "$OUT/$name.c1" "$@"
	cpu_load "$OUT/$name.c0" "$OUT/$name.c1" >"$OUT/$name.load"
	wait $sp
	bytes=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["end"]["sum_received"]["bytes"])' "$OUT/$name.json" 2>/dev/null)
	cpu_json "$OUT/$name.c0" "$OUT/$name.c1" "${bytes:-0}" >"$OUT/$name.cpu"
	$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%.3f" % (d["end"]["sum_received"]["bits_per_second"] / 1e9))' "$OUT/$name.json" 2>/dev/null || echo 0
}

gro_was=$(in_dut ethtool -k $IF_DUT | awk '$1 == "generic-receive-offload:" { print $2 }')
in_dut sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
in_dut ip tuntap add dev $TUN mode tun vnet_hdr || exit 1
in_dut sysctl -qw net.ipv4.conf.$TUN.rp_filter=0
in_dut ip link set $TUN up

# tun_run NAME R [ARG...]: live_rx ARGs (its rule takes tcp/$PORT) into
# the TUN device for one transfer
tun_run() {
	local name=$1 r=$2 lp
	shift 2
	nsenter --net=/run/netns/$NS_DUT "$LIVE" -i $IF_DUT -p $PORT -s "tun:$TUN,gso" \
		"$@" -t $((SECS + 60)) >"$OUT/live.$name.$r" 2>&1 &
	lp=$!
	at_exit kill $lp
	wait_for 30 grep -q '^ready' "$OUT/live.$name.$r" || { cat "$OUT/live.$name.$r" >&2; return 1; }
	run $name.$r live_rx=$lp >"$OUT/gbps.$name.$r"
	kill -INT $lp
	wait $lp
}

# round R: the kernel path with GRO off, with GRO on, with GRO on and
# threaded NAPI, then xrx into the TUN device without and with threaded
# NAPI.
round() {
	local r=$1 gro bp
	threaded 0 || return 1
	in_dut ethtool -K $IF_DUT gro off >/dev/null || return 1
	run kernel_off.$r >"$OUT/gbps.kernel_off.$r"
	in_dut ethtool -K $IF_DUT gro on >/dev/null || return 1
	gro=$(in_dut ethtool -k $IF_DUT | awk '$1 == "generic-receive-offload:" { print $2 }')
	if [ "$gro" != on ]; then
		echo "bench_tun: GRO did not turn on on $IF_DUT (ethtool -k says $gro)" >&2
		return 1
	fi
	run kernel_on.$r >"$OUT/gbps.kernel_on.$r"
	threaded 1 || return 1
	run kernel_on_threaded.$r >"$OUT/gbps.kernel_on_threaded.$r"
	threaded 0 || return 1
	tun_run tun $r || return 1
	threaded 1 || return 1
	tun_run tun_threaded $r || return 1
	threaded 0 || return 1
	# busy_poll = on: the deferral first (the NAPI veth made when GRO
	# turned on takes it now), then a worker that busy-polls.
	dut_napi_defaults 2 200000 || return 1
	echo "napi $(in_dut $PY tests/tools/napi.py get $IF_DUT | head -1)" >"$OUT/busy.$r"
	bp=$(dut_busy_poll_rx)
	tun_run tun_busy $r -b $BUSY_US || return 1
	echo "busy_poll_rx $(($(dut_busy_poll_rx) - bp))" >>"$OUT/busy.$r"
	dut_napi_defaults 0 0
}

for ((r = 1; r <= ROUNDS; r++)); do
	round $r || exit 1
done

$PY - "$OUT" "$BENCH_OUT/bench_tun.json" "$SECS" "$ROUNDS" "$gro_was" "$BUSY_US" <<'PY'
import json, statistics, sys
out, jpath, secs, rounds, gro_was, busy_us = sys.argv[1:7]
secs, rounds = float(secs), int(rounds)
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

def cpu(name, r):
    # cpu_json's figures, and iperf3's own CPU of client and server
    # (getrusage, percent of one CPU over the run) among the parties.
    c = json.load(open("%s/%s.%d.cpu" % (out, name, r)))
    try:
        e = json.load(open("%s/%s.%d.json" % (out, name, r)))["end"]
        u = e["cpu_utilization_percent"]
        dur = e["sum_received"]["seconds"]
        c["parties_cpu_s"]["iperf3_client"] = round(u["host_total"] / 100 * dur, 3)
        c["parties_cpu_s"]["iperf3_server"] = round(u["remote_total"] / 100 * dur, 3)
    except (KeyError, ValueError):
        pass
    p = sum(c["parties_cpu_s"].values())
    c["parties_cpu_s_per_gb"] = round(p / c["gb"], 4) if c["gb"] else None
    return c

def threads(name):
    # live_rx's threads over the rounds: summed CPU, user and system time.
    res = {}
    for r in R:
        th = [t for t in cpu(name, r)["threads"] if t["party"] == "live_rx"]
        for i, t in enumerate(th):
            a = res.setdefault(i, {"thread": "main" if i == 0 else "worker %d" % i,
                                   "cpu_s": 0.0, "user_s": 0.0, "sys_s": 0.0})
            for k in ("cpu_s", "user_s", "sys_s"):
                a[k] += t[k]
    return list(res.values())

def engine(name, key):
    n = 0
    for r in R:
        for line in open("%s/live.%s.%d" % (out, name, r)):
            p = line.split()
            if len(p) == 3 and p[0] == "engine" and p[1] == key:
                n += int(p[2])
    return n

def busy():
    # Per round: the NAPI's deferral as the worker started, whether it
    # still busy-polled at the end, and the frames the kernel busy-polled.
    res = []
    for r in R:
        d = {"napi": None, "busy_poll_active": None, "busy_poll_rx": None}
        for line in open("%s/busy.%d" % (out, r)):
            p = line.split()
            if p[0] == "napi" and len(p) == 4:
                d["napi"] = {"defer_hard_irqs": int(p[2]), "gro_flush_timeout_ns": int(p[3])}
            elif p[0] == "busy_poll_rx":
                d["busy_poll_rx"] = int(p[1])
        for line in open("%s/live.tun_busy.%d" % (out, r)):
            p = line.split()
            if p[:1] == ["info"] and "busy_poll" in p:
                d["busy_poll_active"] = int(p[p.index("busy_poll") + 1])
            if "busy polling has no NAPI to poll" in line:
                d["fallback"] = line.strip()
        res.append(d)
    return res

rows = {}
for name, key, gro, napi in (
        ("kernel_gro_off", "kernel_off", "off", "softirq"),
        ("kernel_gro_on", "kernel_on", "on", "softirq"),
        ("kernel_gro_on_threaded", "kernel_on_threaded", "on", "threaded"),
        ("tun", "tun", "on (unused: XDP redirects the flow)", "softirq"),
        ("tun_threaded", "tun_threaded", "on (unused: XDP redirects the flow)", "threaded"),
        ("tun_busy", "tun_busy", "on (unused: XDP redirects the flow)",
         "softirq, deferral 2 / 200000 ns, busy polling asked")):
    per = [gbps(key, r) for r in R]
    c = [cpu(key, r) for r in R]
    parties = {}
    for x in c:
        for k, v in x["parties_cpu_s"].items():
            parties[k] = round(parties.get(k, 0) + v / x["gb"] / rounds, 4) if x["gb"] else None
    rows[name] = {"gbps": sum(per) / rounds, "gbps_rounds": per, "gro": gro, "napi": napi,
                  "cpu_s_per_gb": statistics.median([x["cpu_s_per_gb"] or 0 for x in c]),
                  "cpu_s_per_gb_rounds": [x["cpu_s_per_gb"] for x in c],
                  "parties_cpu_s_per_gb": statistics.median([x["parties_cpu_s_per_gb"] or 0 for x in c]),
                  "parties_cpu_s_per_gb_each": parties,
                  "per_cpu": [x["per_cpu"] for x in c], "loadavg": [x["loadavg"] for x in c],
                  "cpu": load(key)}
    if key.startswith("tun"):
        frames, aggs = engine(key, "frames_in"), engine(key, "aggs_out")
        rows[name].update({"threads": threads(key), "frames": frames, "aggregates": aggs,
                           "mean_segments": (engine(key, "segs_merged") + aggs) / aggs if aggs else 0})
rows["tun_busy"]["busy_poll"] = busy()
g = {n: r["gbps"] for n, r in rows.items()}
best = max(("kernel_gro_on", "kernel_gro_on_threaded"), key=lambda n: g[n])
ratio = lambda a, b: g[a] / g[b] if g[b] > 0 else 0
res = {"bench": "tun", "secs": secs, "rounds": rounds,
       "config": {"link": "veth, one queue", "sender_tx_csum": "off",
                  "receiver_gro_before": gro_was,
                  "traffic": "iperf3 TCP/IPv4, one stream, %g s per run, %d rounds interleaved" % (secs, rounds),
                  "xrx": "live_rx, sink tun:DEV,gso, default options",
                  "tun_busy": "live_rx -b %s (busy_poll_us), NAPI deferral 2 / 200000 ns" % busy_us,
                  "headline_baseline": "the faster of kernel_gro_on and kernel_gro_on_threaded",
                  "cpu": "cpu_s_per_gb: busy CPU seconds of the whole machine (/proc/stat) per 10^9 bytes iperf3 received"},
       "kernel_gbps": g[best], "kernel_gro_on_gbps": g["kernel_gro_on"],
       "kernel_gro_on_threaded_gbps": g["kernel_gro_on_threaded"],
       "kernel_gro_off_gbps": g["kernel_gro_off"],
       "tun_gbps": g["tun"], "tun_threaded_gbps": g["tun_threaded"], "baseline": best,
       "ratio": ratio("tun", best), "ratio_threaded": ratio("tun_threaded", best),
       "tun_busy_gbps": g["tun_busy"], "ratio_busy": ratio("tun_busy", best),
       "ratio_rounds": [t / max(a, b) if max(a, b) > 0 else 0 for t, a, b in zip(
           rows["tun"]["gbps_rounds"], rows["kernel_gro_on"]["gbps_rounds"],
           rows["kernel_gro_on_threaded"]["gbps_rounds"])],
       "ratio_busy_rounds": [t / max(a, b) if max(a, b) > 0 else 0 for t, a, b in zip(
           rows["tun_busy"]["gbps_rounds"], rows["kernel_gro_on"]["gbps_rounds"],
           rows["kernel_gro_on_threaded"]["gbps_rounds"])],
       "ratio_gro_on": ratio("tun", "kernel_gro_on"),
       "ratio_gro_off": ratio("tun", "kernel_gro_off"),
       "cpu_per_gb_ratio": (rows["tun"]["cpu_s_per_gb"] / rows[best]["cpu_s_per_gb"]
                            if rows[best]["cpu_s_per_gb"] else 0),
       "target_ratio": 0.8,
       "frames": rows["tun"]["frames"], "aggregates": rows["tun"]["aggregates"],
       "mean_segments": rows["tun"]["mean_segments"], "rows": rows}
res["target_met"] = res["ratio"] >= res["target_ratio"]
json.dump(res, open(jpath, "w"), indent=1)

print("# veth, iperf3 TCP/IPv4 one stream %g s per run, %d rounds interleaved, sender TX csum off; receiver GRO and NAPI as in the row" % (secs, rounds))
print("%-23s %8s %9s %9s %-16s %s" % ("path", "Gbit/s", "cpu_s/GB", "parties", "per round", "CPU busy% (user/sys/softirq) per CPU"))
for n, r in rows.items():
    print("%-23s %8.3f %9.3f %9.3f %-16s %s" % (
        n, r["gbps"], r["cpu_s_per_gb"], r["parties_cpu_s_per_gb"],
        " ".join("%.2f" % x for x in r["gbps_rounds"]), "  ".join(
            "%s %d%% (%d/%d/%d)" % (c, v["busy"], v["user"], v["sys"], v["softirq"])
            for c, v in sorted(r["cpu"].items()))))
print("cpu_s/GB: whole machine; parties: iperf3 client and server, live_rx, ksoftirqd, NAPI threads (the cross-check on a shared machine)")
print("tun/%s %.1f%% (headline, target >= 80%%: %s), CPU per GB %.2fx; tun_threaded %.1f%%; tun/kernel GRO on %.1f%%, GRO off %.1f%%" % (
    best, 100 * res["ratio"], "met" if res["target_met"] else "MISSED", res["cpu_per_gb_ratio"],
    100 * res["ratio_threaded"], 100 * res["ratio_gro_on"], 100 * res["ratio_gro_off"]))
b = rows["tun_busy"]["busy_poll"]
print("tun_busy/%s %.1f%%; busy polling really ran in %d of %d rounds, %d frames busy-polled" % (
    best, 100 * res["ratio_busy"], sum(1 for x in b if x["busy_poll_active"]), rounds,
    sum(x["busy_poll_rx"] or 0 for x in b)))
for n in ("tun", "tun_threaded", "tun_busy"):
    r = rows[n]
    print("%s: frames %d, aggregates %d, %.1f segments each on average" % (
        n, r["frames"], r["aggregates"], r["mean_segments"]))
    for t in r["threads"]:
        if t["cpu_s"] > 0:
            print("%s: live_rx %s: %.2f s CPU (user %.2f s, sys %.2f s) of %g s" % (
                n, t["thread"], t["cpu_s"], t["user_s"], t["sys_s"], secs * rounds))
PY
