#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# filter= through xrxd, live: the sink writes every packet unfiltered and
# a pcap tee beside it, given the same packets in the same order, writes
# with an expression. What the tee wrote is what tcpdump -r keeps of the
# sink's file with the same expression; the packets it left out are in
# tee.filtered (JSON and Prometheus), not in any loss. An expression
# libpcap refuses: xrxd --check-config exits 2 with libpcap's message.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
need_built "$BUILD/xrx-send"
command -v tcpdump >/dev/null || skip_all "no tcpdump (scripts/deps.sh installs it)"

xrxd_send_testbed filter-live
ALL=$WORK/all.pcap
F=$WORK/f.pcap
EXPR='src port 40001 or (src port 40003 and tcp[tcpflags] & tcp-push != 0)'

printf 'interface = %s\nsink = pcap:%s,filter=tcp prot 80\n' $IF_DUT "$ALL" >"$WORK/bad.conf"
out=$(in_dut "$XRXD" --state-dir "$STATE" -c "$WORK/bad.conf" --check-config 2>&1 >/dev/null)
rc=$?
echo "# $out"
check "--check-config with a refused expression: exit 2, libpcap's message" \
	$([ $rc = 2 ] && grep -q "sink = pcap:$ALL: filter=tcp prot 80: can't parse filter expression: syntax error" <<<"$out"; echo $?)

cat >>"$WORK/xrx.conf" <<EOF
sink = pcap:$ALL
tee = pcap:$F,filter=$EXPR
EOF
in_dut "$XRXD" --state-dir "$STATE" -c "$WORK/xrx.conf" --check-config >/dev/null 2>&1
check "--check-config takes the expression, blanks and all" $?
xrxd_up || { check "xrxd up" 1; done_testing; exit 1; }
in_src "$BUILD/xrx-send" -i $IF_SRC --dmac $MAC --dport 5201 --flows 4 \
	--segs 16 --trains 20 --gap-us 200 >/dev/null 2>&1
check "4 flows of trains sent" $?
got_all() { [ "$(jget user.tee.pkts_in)" -gt 0 ] &&
	[ "$(jget user.tee.pkts_in)" = "$(jget user.sink.pkts_in)" ] &&
	[ $(( $(jget user.tee.pkts_out) + $(jget user.tee.filtered) + $(jget user.tee.dropped) )) = "$(jget user.tee.pkts_in)" ]; }
wait_for 10 got_all
stats_settled "$WORK/stats.json"
j() { jpath "$WORK/stats.json" "$1"; }
diag "sink in $(j user.sink.pkts_in) out $(j user.sink.pkts_out) filtered $(j user.sink.filtered); tee in $(j user.tee.pkts_in) out $(j user.tee.pkts_out) filtered $(j user.tee.filtered) dropped $(j user.tee.dropped)"
check "the sink filtered nothing, the tee left out some and wrote some" \
	$([ "$(j user.sink.filtered)" = 0 ] && [ "$(j user.tee.filtered)" -gt 0 ] &&
	  [ "$(j user.tee.pkts_out)" -gt 0 ] && [ "$(j user.tee.errors)" = 0 ]; echo $?)
check "tee.filtered in --prom" \
	$(xrxctl stats $IF_DUT --prom | grep -q "^xrx_tee_filtered_total{interface=\"$IF_DUT\"} $(j user.tee.filtered)\$"; echo $?)
tee_dropped=$(j user.tee.dropped)
kill -TERM $pid
wait $pid
check "SIGTERM: exit 0" $?

dump() { tcpdump -nn -t -xx -r "$@" 2>/dev/null; }
dump "$ALL" "$EXPR" >"$WORK/want"
dump "$F" >"$WORK/got"
n=$(grep -c '^[^ 	]' "$WORK/want")
if [ "$tee_dropped" = 0 ]; then
	check "the tee wrote exactly the $n packets tcpdump -r keeps of the unfiltered capture" \
		$(cmp -s "$WORK/want" "$WORK/got" && [ "$n" -gt 0 ]; echo $?)
	check "and the others, $(( $(j user.sink.pkts_out) - n )), are tee.filtered" \
		$([ $(( $(j user.sink.pkts_out) - n )) = "$(j user.tee.filtered)" ]; echo $?)
else
	skip "the tee's packets against tcpdump -r" "the tee dropped $tee_dropped packets, counted: the machine did not run its writer often enough"
	skip "the filtered count" "the tee dropped $tee_dropped packets"
fi
done_testing
