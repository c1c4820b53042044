#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The shipped etc/xrx/example.conf, as a new operator uses it: only
# "interface" edited. It must take nothing from the host: a TCP service on
# the DUT (port 5001, the port the old example captured) stays reachable,
# and xrxd has nothing to warn about.
#
# Its capture recipe (rules into a pcap sink) takes the accelerated frames
# from the host stack: xrxd says so once at start, naming the rules and
# the sink, once more after a reload that changes the rules or the sink,
# and not after a reload that changes nothing.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
need_built "$BUILD/tests/tcp_hash"

testbed_up || { echo "not ok 1 - testbed"; exit 1; }
xrxd_work example
EXAMPLE=$TOP/etc/xrx/example.conf
WARN="deliver to pcap only: the host stack will not see these frames"
warns() { grep -c "$WARN" "$1"; }

sed "s/^interface = eth0$/interface = $IF_DUT/" "$EXAMPLE" >"$WORK/xrx.conf"
check "only the interface line differs from the shipped example" \
	$([ "$(diff "$EXAMPLE" "$WORK/xrx.conf" | grep -c '^[<>]')" = 2 ]; echo $?)
snapshot "$WORK/orig"
bg_dut "$XRXD" --state-dir "$STATE" -c "$WORK/xrx.conf" 2>"$WORK/xrxd.err"
pid=$!
at_exit kill -KILL $pid
wait_xrxd $pid grep -q "ready: xrx_rx" "$WORK/xrxd.err"
check "xrxd runs the example: ready, xrx_rx attached, 0 rules" \
	$(grep -q "ready: xrx_rx (id [0-9]*) in .* mode, 0 accelerate rules" "$WORK/xrxd.err" &&
	  [ -n "$(prog_id)" ]; echo $?)
ok "a TCP service on the DUT (port 5001) is reachable: 4 MB with matching hashes" \
	tcp_stream "$WORK/tcp" $IP4_DUT 5001 4000000
check "nothing was taken from the stack (kernel redirect 0), no consuming-sink warning" \
	$([ "$(jget kernel.redirect.packets)" = 0 ] && [ "$(warns "$WORK/xrxd.err")" = 0 ]; echo $?)
unaccounted_zero "example"
kill -TERM $pid
wait $pid
check "SIGTERM: exit 0" $?

# Each recipe, uncommented, is a config xrxd accepts.
for r in 1 2; do
	"$PY" - "$EXAMPLE" $r >"$WORK/recipe$r.conf" <<'PYEOF'
import re, sys
lines, n, out = open(sys.argv[1]).read().split("\n"), 0, []
for l in lines:
    if l.startswith("# Recipe "):
        n = int(l.split()[2])
    if n == int(sys.argv[2]) and re.match(r"#(accelerate|sink|tee) = ", l):
        l = l[1:]
    out.append(l)
print("\n".join(out))
PYEOF
	"$XRXD" -i eth0 -c "$WORK/recipe$r.conf" --check-config >"$WORK/recipe$r.out" 2>&1
	check "recipe $r, uncommented, passes --check-config" \
		$([ $? = 0 ] && grep -q "^accelerate = tcp/5001" "$WORK/recipe$r.out"; echo $?)
done
grep "^sink\|^tee" "$WORK/recipe2.out" | sed 's/^/# /'

# --- the capture recipe -----------------------------------------------------
sed -e "s/^interface = eth0$/interface = $IF_DUT/" \
    -e 's/^#\(accelerate = tcp\/5001, udp.*\)/\1/' \
    -e "s|^#sink = pcap:/var/lib/xrx/eth0.pcap|sink = pcap:$WORK/rx.pcap|" \
	"$EXAMPLE" >"$WORK/xrx.conf"
bg_dut "$XRXD" --state-dir "$STATE" -c "$WORK/xrx.conf" 2>"$WORK/xrxd2.err"
pid=$!
at_exit kill -KILL $pid
wait_xrxd $pid grep -q "ready: xrx_rx" "$WORK/xrxd2.err"
sed "s/^/# /" "$WORK/xrxd2.err"
check "capture recipe: warned once at start, naming the rules and the sink" \
	$([ "$(warns "$WORK/xrxd2.err")" = 1 ] &&
	  grep -q "$IF_DUT: rules tcp/5001, udp/4789, tcp/any@198.18.0.0/15 $WARN (sink = pcap:$WORK/rx.pcap,size=8M,files=4,snaplen=128;" "$WORK/xrxd2.err"; echo $?)
reloads() { grep -c "xrx.conf reloaded" "$WORK/xrxd2.err"; }
kill -HUP $pid
wait_for 10 eval '[ "$(reloads)" = 1 ]'
check "a reload that changes nothing: no second warning" \
	$([ "$(reloads)" = 1 ] && [ "$(warns "$WORK/xrxd2.err")" = 1 ]; echo $?)
sed -i 's/^accelerate = tcp\/5001, udp.*/accelerate = tcp\/5001, udp\/4789/' "$WORK/xrx.conf"
kill -HUP $pid
wait_for 10 eval '[ "$(reloads)" = 2 ]'
check "a reload that changes the rules: warned again, naming the new ones" \
	$([ "$(warns "$WORK/xrxd2.err")" = 2 ] &&
	  [ "$(grep "$WARN" "$WORK/xrxd2.err" | tail -1 | grep -c "rules tcp/5001, udp/4789 $WARN")" = 1 ]; echo $?)
sed -i "s|^sink = pcap:$WORK/rx.pcap|sink = pcap:$WORK/rx2.pcap|" "$WORK/xrx.conf"
kill -HUP $pid
wait_for 10 eval '[ "$(reloads)" = 3 ]'
check "a reload that changes the sink: warned again, naming the new one" \
	$([ "$(warns "$WORK/xrxd2.err")" = 3 ] &&
	  grep "$WARN" "$WORK/xrxd2.err" | tail -1 | grep -q "(sink = pcap:$WORK/rx2.pcap,"; echo $?)
kill -TERM $pid
wait $pid
check "SIGTERM: exit 0" $?
snapshot "$WORK/now"
ok "NIC identical to before, no pins, no state file" \
	eval 'same "$WORK/orig" "$WORK/now" && [ ! -e "$PIN" ] && [ ! -e "$SF" ]'

done_testing
