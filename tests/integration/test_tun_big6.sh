#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# IPv6 BIG TCP live through xrxd into the TUN sink: a TCP stream over
# IPv6 from the source namespace to the DUT, where xrxd (max_aggregate
# 185000, so aggregates may pass 64 KiB) aggregates it and its TUN sink
# writes each aggregate into the DUT's stack as one GSO packet. Linux 6.x
# takes an IPv6 packet above 64 KiB only with the RFC 2675 hop-by-hop
# jumbo option, which the sink inserts (tun_ipv6_jumbo = hbh); split
# writes pieces of at most 64 KiB instead. Same topology as
# test_tun_tcp.sh: the DUT's address stays on its veth, the TUN has none.
#
# What makes an aggregate pass 64 KiB here: the sender's PSH, not the
# receive path (see below); xrxd with max_segments 180 (max_aggregate /
# 1024; the default 64 would stop at 91 KiB) and flush_timeout_us 2000,
# so an aggregate is kept across receive batches (64 descriptors each),
# as gro_flush_timeout keeps the kernel's.
#
# Each run (hbh, then split) proves: the stream completes with the
# receiver's hash equal to the sender's (tests/helpers/tcp_hash.c); the
# engine made aggregates above 64 KiB of payload; the sink counters say
# how they were written (big_whole and jumbo_writes for hbh, big_split
# for split) with no errors or drops; the TUN counted no rx errors; the
# DUT's IPv6 input counted no header errors (Ip6InHdrErrors: where 6.x
# drops payload_len 0 without the option); and an AF_PACKET socket on the
# TUN saw packets above 65575 bytes carrying the option (hbh), none
# (split). zero (the Linux 7.0 form) is not run: 6.x drops every such
# aggregate, which test_tun_sink.sh shows with tun_inject.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
need_built "$BUILD/tests/tcp_hash"
need_tun

BYTES=$((48 << 20))
PORT=5201
MAXAGG=185000

testbed_up || { echo "not ok 1 - testbed"; exit 1; }
xrxd_work tunbig6
# PSH ends an aggregate (tcp_gro_receive()), as it ends the kernel's.
# The sender's TCP sets it on the last segment of every GSO packet it
# builds, at most gso_max_size (64 KiB) long: a stream over a plain veth
# never carries more than 45 segments (64260 bytes) between two PSH, and
# no aggregate, xrx's or the kernel's, passes 64 KiB. BIG TCP on the
# sender (gso_max_size 185000; its IPv6 GSO packets carry the jumbo
# option, stripped again when the veth cuts them into MTU-sized frames:
# GSO off, so the checksums on the wire are valid for the engine to
# verify) puts 129 segments between two PSH. The sender's buffer is big
# enough for the whole stream, so it never waits for space (each wait
# sets PSH too).
in_src ip link set dev $IF_SRC gso_max_size 185000 ||
	skip_all "the veth refuses gso_max_size 185000 (BIG TCP, Linux 5.19+)"
in_src ethtool -K $IF_SRC tso off gso off tx off >/dev/null 2>&1
in_src sysctl -qw net.ipv4.tcp_wmem="4096 67108864 67108864"
in_dut sysctl -qw net.ipv4.tcp_rmem="4096 4194304 16777216"

ready() { xrxctl stats $IF_DUT --json 2>/dev/null | grep -q "\"pid\":$pid,"; }
dev_rx() { in_dut ip -s -j link show $1 | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["'$2'"])'; }
hdr_errors() { in_dut awk '$1 == "Ip6InHdrErrors" { print $2 }' /proc/net/snmp6; }

# An AF_PACKET socket on the TUN: every IPv6 packet the TUN hands the
# stack, at its full length (MSG_TRUNC), before ip6_rcv(). Prints
# "packets N big N jumbo N max N" on SIGTERM or after SECS: big are
# those above 65535 bytes of payload, jumbo those of them with the
# hop-by-hop jumbo option right after the IPv6 header.
# (A file, not "python -" with a here-document: a background job's
# stdin is /dev/null.)
cat >"$WORK/peek.py" <<'PYEOF'
import signal, socket, struct, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(0x86dd))
s.bind((sys.argv[1], 0))
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 24)
s.settimeout(0.2)
n = big = jumbo = mx = 0
stop = False
def on_term(*a):
    global stop
    stop = True
signal.signal(signal.SIGTERM, on_term)
end = time.time() + float(sys.argv[2])
print("ready", flush=True)
buf = bytearray(64)
while not stop and time.time() < end:
    try:
        ln = s.recv_into(buf, 64, socket.MSG_TRUNC)
    except socket.timeout:
        continue
    except InterruptedError:
        continue
    n += 1
    mx = max(mx, ln)
    if ln - 40 > 65535:
        big += 1
        if buf[6] == 0 and buf[42] == 0xc2 and buf[43] == 4 and \
           struct.unpack(">I", bytes(buf[44:48]))[0] == ln - 40:
            jumbo += 1
print("packets %d big %d jumbo %d max %d" % (n, big, jumbo, mx), flush=True)
PYEOF
peek_start() { bg_dut "$PY" "$WORK/peek.py" "$1" "$2" >"$3"; }
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$2"; }

# run FORM: xrxd with tun_ipv6_jumbo = FORM, one IPv6 stream, the counters
run() {
	local form=$1 dev=xb$$ label="tun_ipv6_jumbo = $1" pp
	in_dut ip tuntap add dev $dev mode tun vnet_hdr || return 1
	at_exit in_dut ip link del $dev
	in_dut ip link set $dev up
	printf '%s\n' "interface = $IF_DUT" "accelerate = tcp/$PORT" \
		"sink = tun:$dev" "max_aggregate = $MAXAGG" "max_segments = 180" \
		"flush_timeout_us = 2000" "tun_ipv6_jumbo = $form" >"$WORK/xrx.conf"
	bg_dut "$XRXD" --state-dir "$STATE" -c "$WORK/xrx.conf" 2>"$WORK/xrxd.$form.err"
	pid=$!
	at_exit kill -KILL $pid
	if ! wait_xrxd $pid ready; then
		sed 's/^/# /' "$WORK/xrxd.$form.err"
		check "$label: xrxd ready with max_aggregate = $MAXAGG" 1
		kill -KILL $pid
		return 1
	fi
	check "$label: xrxd ready with max_aggregate = $MAXAGG" 0
	peek_start $dev 100 "$WORK/peek.$form"
	pp=$!
	at_exit kill $pp
	wait_for 10 grep -q ready "$WORK/peek.$form"
	local herr0=$(hdr_errors)
	tcp_stream "$WORK/tcp.$form" $IP6_DUT $PORT $BYTES
	check "$label: TCPv6, $((BYTES >> 20)) MiB through xrxd into tun: completed, hash intact" $?
	# Idle now: the counters (refreshed once a second) catch up with
	# what the TUN received
	local tunrx=$(dev_rx $dev packets)
	wait_for 10 eval '[ "$(jget user.sink.pkts_out)" -ge $tunrx ] && [ "$(jget user.unaccounted)" = 0 ]'
	xrxctl stats $IF_DUT --json >"$WORK/stats.$form.json"
	kill -TERM $pp
	wait $pp
	local herr=$(( $(hdr_errors) - herr0 ))
	js() { jpath "$WORK/stats.$form.json" "$1"; }
	aggs=$(js user.engine.aggs_out)
	segs=$(( $(js user.engine.segs_merged) + aggs ))
	whole=$(js user.sink.big_whole)
	jw=$(js user.sink.jumbo_writes)
	split=$(js user.sink.big_split)
	peek=$(tail -1 "$WORK/peek.$form")
	diag "$label: engine: $($PY -c 'import json,sys; e=json.load(open(sys.argv[1]))["user"]["engine"]; print(" ".join("%s %s" % (k, v) for k, v in e.items() if v))' "$WORK/stats.$form.json")"
	diag "$label: aggs_out $aggs, $segs segments in them ($(js derived.segments_per_aggregate) per aggregate), sink pkts_out $(js user.sink.pkts_out) big_whole $whole jumbo_writes $jw big_split $split errors $(js user.sink.errors); $dev rx $(dev_rx $dev packets) packets $(dev_rx $dev bytes) bytes; AF_PACKET on $dev: $peek; Ip6InHdrErrors +$herr"
	check "$label: sink wrote every packet: no errors, no drops" \
		"$([ "$(js user.sink.errors)" = 0 ] && [ "$(js user.sink.dropped)" = 0 ] &&
		   [ "$(js user.sink.pkts_out)" = "$(js user.sink.pkts_in)" ]; echo $?)"
	check "$label: the kernel refused no write ($dev rx errors $(dev_rx $dev errors))" \
		"$([ "$(dev_rx $dev errors)" = 0 ]; echo $?)"
	check "$label: the DUT's IPv6 input dropped none (Ip6InHdrErrors +$herr)" \
		"$([ "$herr" = 0 ]; echo $?)"
	check "$label: xrxctl stats: unaccounted 0" "$([ "$(js user.unaccounted)" = 0 ]; echo $?)"
	kill -TERM $pid
	wait $pid
	check "$label: SIGTERM: exit 0" $?
	in_dut ip link del $dev
}

if run hbh; then
	check "hbh: aggregates above 64 KiB written whole, each with the jumbo option (big_whole $whole = jumbo_writes $jw > 0, big_split 0)" \
		"$([ "$whole" -gt 0 ] && [ "$jw" = "$whole" ] && [ "$split" = 0 ]; echo $?)"
	check "hbh: the stack got them above 64 KiB with the option ($peek)" \
		"$([ "$(field big "$WORK/peek.hbh")" -gt 0 ] &&
		   [ "$(field jumbo "$WORK/peek.hbh")" = "$(field big "$WORK/peek.hbh")" ]; echo $?)"
fi
if run split; then
	check "split: aggregates above 64 KiB written in pieces (big_split $split > 0, big_whole 0)" \
		"$([ "$split" -gt 0 ] && [ "$whole" = 0 ] && [ "$jw" = 0 ]; echo $?)"
	check "split: no packet above 64 KiB reached the stack ($peek)" \
		"$([ "$(field big "$WORK/peek.split")" = 0 ] && [ "$(field packets "$WORK/peek.split")" -gt 0 ]; echo $?)"
fi
done_testing
