#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrx in one minute: `make demo` (as root, on Debian 12).
#
# Two throwaway network namespaces joined by a veth pair. On the
# receiving side xrxd runs with a config written for the occasion:
# accelerate tcp/5201, sink tun. iperf3 then sends TCP for DEMO_SECONDS
# (10) through it:
#
#   iperf3 -c ──veth──▶ xrx_rx (XDP) ──AF_XDP──▶ xrxd: header-only copy,
#                                                GRO ──▶ TUN ──▶ iperf3 -s
#
# The TUN sink hands every aggregate to the receiver's own stack as one
# GSO packet, so iperf3's TCP runs end to end through xrx (a null sink
# would discard the data and the transfer would stall). Each second a
# line shows what xrx did, read from the maps xrxd pins in
# /sys/fs/bpf/xrx/IFACE/ (the same ones `bpftool map dump pinned` and
# xrxctl read); at the end a summary. Everything it creates is removed on
# exit, Ctrl-C or failure.
#
#   scripts/demo.sh             the demo
#   DEMO_SECONDS=N              iperf3 run time (1..60)
#   DEMO_SUMMARY=FILE           also write the summary as key=value lines
#
# Exit status: 0 the demo ran and xrx accelerated the transfer, 1 failure.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
# The namespaces, veth, cleanup stack and bounded waits are the tests'
# testbed (tests/lib.sh): one definition for both.
. "$TOP/tests/lib.sh"
trap '_run_cleanups' EXIT
trap 'echo; echo "demo: interrupted, cleaning up"; exit 130' INT TERM

SECS=${DEMO_SECONDS:-10}
SUMMARY=${DEMO_SUMMARY:-}
PORT=5201
TUN=xrxdemo$$

die() {
	echo "demo: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "run as root (it creates namespaces and attaches XDP): sudo make demo"
case "$SECS" in '' | *[!0-9]*) die "DEMO_SECONDS=$SECS: give whole seconds, 1..60" ;; esac
[ "$SECS" -ge 1 ] && [ "$SECS" -le 60 ] || die "DEMO_SECONDS=$SECS: give whole seconds, 1..60"
for b in "$BUILD/xrxd" "$BUILD/xrxctl"; do
	[ -x "$b" ] || die "$b missing; build first (make demo builds)"
done
for c in iperf3 bpftool ethtool ip nsenter; do
	command -v $c >/dev/null || die "$c missing; scripts/deps.sh installs it"
done
[ -c /dev/net/tun ] || die "no /dev/net/tun; load the module: modprobe tun"
mountpoint -q /sys/fs/bpf || die "bpffs is not mounted; scripts/bpffs.sh mounts it"

WORK=$(mktemp -d /tmp/xrx-demo.XXXXXX)
at_exit rm -rf "$WORK"

echo "== testbed: namespaces $NS_SRC -> $NS_DUT, veth $IF_SRC -> $IF_DUT"
testbed_up || die "cannot create the namespaces and veth pair"
PIN=/sys/fs/bpf/xrx/$IF_DUT
at_exit "rm -rf $PIN; rmdir /sys/fs/bpf/xrx"
# Valid checksums on the wire: xrx verifies them before merging (csum =
# verify), as a NIC without checksum offload would make it.
in_src ethtool -K $IF_SRC tx off >/dev/null
# The TUN has no address: the stack takes what arrives on it as its own
# because the destination is a local address; replies leave by the veth,
# so the reverse-path filter must not insist on symmetry.
in_dut sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
in_dut ip tuntap add dev $TUN mode tun vnet_hdr || die "cannot create TUN $TUN"
in_dut sysctl -qw net.ipv4.conf.$TUN.rp_filter=0
in_dut ip link set $TUN up

cat >"$WORK/$IF_DUT.conf" <<EOF
# written by scripts/demo.sh; keys: man xrx.conf / docs/xrx.conf.md
interface = $IF_DUT
accelerate = tcp/$PORT
sink = tun:$TUN
copy = header
csum = verify
EOF
echo "== xrxd config ($WORK/$IF_DUT.conf):"
sed -n 's/^[a-z]/    &/p' "$WORK/$IF_DUT.conf"

# nsenter execs xrxd, so $! is xrxd's pid.
nsenter --net=/run/netns/$NS_DUT "$BUILD/xrxd" -c "$WORK/$IF_DUT.conf" \
	--state-dir "$WORK/state" >"$WORK/xrxd.log" 2>&1 &
XRXD=$!
at_exit "kill $XRXD; sleep 0.5; kill -KILL $XRXD"
# Up: its "ready:" line (xrx_rx attached, workers running); the wait
# ends early if xrxd is gone.
wait_xrxd $XRXD grep -q ready: "$WORK/xrxd.log"
if [ ! -e "$PIN/xrx_ustats" ] || ! kill -0 $XRXD 2>/dev/null; then
	sed 's/^/    /' "$WORK/xrxd.log"
	die "xrxd did not come up on $IF_DUT (its messages above)"
fi
sed 's/^/    /' "$WORK/xrxd.log"

# The live view and the summary read the maps xrxd pins, by the names
# their BTF gives them: xrx_rx's per-CPU xrx_stats summed (prog.NAME),
# xrxd's xrx_ustats (live.NAME, engine.NAME, sink.NAME, daemon facts).
cat >"$WORK/view.py" <<'PYEOF'
import json, os, subprocess, sys, time

def dump(path):
    try:
        out = subprocess.run(["bpftool", "-j", "map", "dump", "pinned", path],
                             capture_output=True, text=True, timeout=5).stdout
        return json.loads(out)
    except (OSError, ValueError, subprocess.SubprocessError):
        return []

def walk(out, prefix, v):
    if isinstance(v, dict):
        for k, x in v.items():
            walk(out, prefix + [k], x)
    elif isinstance(v, (int, float)):
        k = ".".join(prefix)
        out[k] = out.get(k, 0) + v

def values(entries):
    for e in entries:
        e = e.get("formatted", e)
        if "values" in e:                       # per-CPU
            for c in e["values"]:
                yield c["value"]
        elif "value" in e:
            yield e["value"]

def counters(pin):
    out = {}
    for v in values(dump(pin + "/xrx_stats")):
        walk(out, ["prog"], v)
    for v in values(dump(pin + "/xrx_ustats")):
        walk(out, [], v)
    return out

def load(path):
    with open(path) as f:
        return json.load(f)

def live(pin, pid, limit, start):
    """One row a second while @pid runs. xrx_rx's counters are live; xrxd
    refreshes its own about once a second, so their rates are over its
    last refresh (updated_ns)."""
    print("%5s %9s %9s %7s %7s %8s %9s %7s %6s" % ("t/s", "frames", "accel",
          "kernel", "aggs", "seg/agg", "copied/f", "Gbit/s", "drops"), flush=True)
    prev = us = load(start)
    t0 = tprev = time.monotonic()
    eng = ["-"] * 5
    while time.monotonic() - t0 < limit:
        time.sleep(max(0.05, 1 - (time.monotonic() - tprev)))
        try:
            os.kill(pid, 0)
        except OSError:
            break
        cur = counters(pin)
        now = time.monotonic()
        d = lambda k, base: cur.get(k, 0) - base.get(k, 0)
        dt = d("updated_ns", us) / 1e9
        if dt > 0:
            aggs, fin = d("engine.aggs_out", us), d("engine.frames_in", us)
            eng = ["%d" % (aggs / dt),
                   "%.1f" % ((d("engine.segs_merged", us) + aggs) / aggs) if aggs else "-",
                   "%.1fB" % (d("engine.bytes_copied", us) / fin) if fin else "-",
                   "%.2f" % (d("sink.bytes_out", us) * 8 / dt / 1e9),
                   "%d" % ((d("live.xsk_rx_dropped", us) +
                            d("live.xsk_rx_ring_full", us)) / dt)]
            us = cur
        s = now - tprev
        rx, acc = d("prog.rx.packets", prev), d("prog.redirect.packets", prev)
        print("%5.1f %9d %9d %7d %7s %8s %9s %7s %6s" % ((now - t0), rx / s,
              acc / s, (rx - acc) / s, *eng), flush=True)
        prev, tprev = cur, now

if sys.argv[1] == "snapshot":
    json.dump(counters(sys.argv[2]), sys.stdout)
elif sys.argv[1] == "live":
    try:
        live(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5])
    except KeyboardInterrupt:
        # die by the signal, so that the shell runs its INT trap at once
        import signal
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
elif sys.argv[1] == "diff":
    # key=value lines: the counters' growth between two snapshots
    a, b = load(sys.argv[2]), load(sys.argv[3])
    for k in sorted(b):
        print("%s=%d" % (k, b[k] - a.get(k, 0)))
PYEOF
view() { $PY "$WORK/view.py" "$@"; }

in_dut iperf3 -s -1 -B $IP4_DUT -p $PORT >"$WORK/server.log" 2>&1 &
SRV=$!
at_exit kill $SRV
wait_for 5 in_dut sh -c "ss -Hltn 'sport = :$PORT' | grep -q ." ||
	die "iperf3 server did not start: $(cat "$WORK/server.log")"

echo "== iperf3: TCP for $SECS s, $IP4_SRC -> $IP4_DUT:$PORT through xrx"
view snapshot "$PIN" >"$WORK/c0"
in_src timeout $((SECS + 20)) iperf3 -c $IP4_DUT -p $PORT -t "$SECS" -J \
	>"$WORK/iperf3.json" 2>"$WORK/iperf3.err" &
CLI=$!
at_exit kill $CLI

echo "   per second: frames seen by xrx_rx, accelerated (AF_XDP) and passed to the"
echo "   kernel; aggregates the engine built, segments in each, bytes it copied per"
echo "   frame, rate into the TUN; frames the kernel dropped (AF_XDP ring full)"
view live "$PIN" $CLI $((SECS + 20)) "$WORK/c0"
wait $CLI
cli_rc=$?
# xrxd refreshes xrx_ustats about once a second: wait for a refresh after
# the last segment, so the summary's engine and sink numbers are final,
# and (bounded) for the last frames in flight to settle (unaccounted 0).
end_ns=$(date +%s%N)
fresh() {
	view snapshot "$PIN" >"$WORK/c1" &&
		$PY -c 'import json, sys
c = json.load(open(sys.argv[1]))
sys.exit(not (c.get("updated_ns", 0) > int(sys.argv[2]) and c.get("unaccounted", 1) == 0))' "$WORK/c1" "$end_ns"
}
wait_for 3 fresh
view diff "$WORK/c0" "$WORK/c1" >"$WORK/delta"
unaccounted=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1])).get("unaccounted", "unknown"))' "$WORK/c1")

# Stop xrxd the way systemd does: SIGTERM, then it detaches and restores.
kill -TERM $XRXD
wait_for 10 sh -c "! kill -0 $XRXD"
wait $XRXD
xrxd_rc=$?

# --- summary ----------------------------------------------------------------
# %.0f: mawk prints integers above 2^31 as 2.4e+09 with a plain print.
D() { awk -F= -v k="$1" '$1 == k { v = $2 } END { printf "%.0f\n", v + 0 }' "$WORK/delta"; }
rx=$(D prog.rx.packets)
acc=$(D prog.redirect.packets)
fin=$(D engine.frames_in)
aggs=$(D engine.aggs_out)
merged=$(D engine.segs_merged)
pkts=$(D engine.pkts_out)
copied=$(D engine.bytes_copied)
paycopied=$(D engine.payload_bytes_copied)
sinkout=$(D sink.pkts_out)
sinkbytes=$(D sink.bytes_out)
ringfull=$(D live.xsk_rx_ring_full)
nofill=$(D live.xsk_rx_dropped)
sinkdrops=$(( $(D sink.dropped) + $(D sink.errors) ))
drops=$((ringfull + nofill + $(D live.rx_chain_drops) + sinkdrops))
gbps=$($PY -c 'import json, sys
j = json.load(open(sys.argv[1]))
print("%.2f" % (j["end"]["sum_received"]["bits_per_second"] / 1e9))' "$WORK/iperf3.json" 2>/dev/null || echo 0)
rbytes=$($PY -c 'import json, sys
print(int(json.load(open(sys.argv[1]))["end"]["sum_received"]["bytes"]))' "$WORK/iperf3.json" 2>/dev/null || echo 0)

segs_per_agg=$(awk -v m="$merged" -v a="$aggs" 'BEGIN { printf "%.1f", a ? (m + a) / a : 0 }')
copied_per_frame=$(awk -v c="$copied" -v f="$fin" 'BEGIN { printf "%.1f", f ? c / f : 0 }')
echo
echo "== summary"
printf '  iperf3          %s Gbit/s, %s bytes received (exit %d)\n' "$gbps" "$rbytes" $cli_rc
printf '  xrx_rx          %d frames: %d accelerated (AF_XDP), %d passed to the kernel\n' \
	"$rx" "$acc" $((rx - acc))
printf '  GRO engine      %d frames in, %d packets out, %d of them aggregates of %s segments on average\n' \
	"$fin" "$pkts" "$aggs" "$segs_per_agg"
printf '  copying         %s bytes per frame (%d payload bytes in all): headers only\n' \
	"$copied_per_frame" "$paycopied"
printf '  AF_XDP drops    %d frames: RX ring full %d, no fill-ring frame %d (TCP resends them)\n' \
	$((ringfull + nofill)) "$ringfull" "$nofill"
printf '  TUN sink        %d packets, %d bytes into the stack; dropped or failed %d\n' \
	"$sinkout" "$sinkbytes" "$sinkdrops"
printf '  accounting      %s frames no counter accounts for\n' "$unaccounted"
printf '  xrxd            exit %d after SIGTERM; NIC restored, pins %s\n' $xrxd_rc \
	"$([ -e "$PIN/xrx_stats" ] && echo "still there" || echo removed)"
if [ -n "$SUMMARY" ]; then
	cat >"$SUMMARY" <<EOF
iperf3_rc=$cli_rc
iperf3_gbps=$gbps
iperf3_bytes=$rbytes
prog_rx=$rx
prog_redirect=$acc
prog_pass=$((rx - acc))
engine_frames_in=$fin
engine_pkts_out=$pkts
engine_aggs_out=$aggs
engine_segs_merged=$merged
engine_bytes_copied=$copied
engine_payload_bytes_copied=$paycopied
sink_pkts_out=$sinkout
sink_bytes_out=$sinkbytes
drops=$drops
xsk_ring_full=$ringfull
xsk_no_fill=$nofill
sink_drops=$sinkdrops
segs_per_agg=$segs_per_agg
copied_per_frame=$copied_per_frame
unaccounted=$unaccounted
xrxd_rc=$xrxd_rc
pins_left=$([ -e "$PIN/xrx_stats" ] && echo 1 || echo 0)
EOF
fi
[ $cli_rc = 0 ] && [ $xrxd_rc = 0 ] && [ "$aggs" -gt 0 ]
