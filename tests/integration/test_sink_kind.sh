#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A sink kind added by one file and its registration (tests/sinks/count.c,
# linked into build/tests/xrxd-sinks) is a kind of xrx.conf like the
# built-in ones: --check-config takes sink = count:/PATH and refuses what
# the kind's own parser refuses, the directory of its file is checked as
# a pcap's is (its flags say it writes a file), xrxd without it names the
# kinds it has; xrxd-sinks runs with it on the DUT, says it consumes the
# accelerated traffic (its flags), and the file counts every packet the
# sink counters say it took.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
need_built "$BUILD/tests/xrxd-sinks" "$BUILD/xrx-send"
xrxd_send_testbed sink-kind
cp "$BUILD/tests/xrxd-sinks" "$WORK/"
XS=$WORK/xrxd-sinks

# cfg SINK: the testbed's config with sink = SINK in $WORK/c.conf
cfg() { sed "\$a sink = $1" "$WORK/xrx.conf" >"$WORK/c.conf"; }

cfg "count:$WORK/n.txt"
in_dut "$XS" --state-dir "$STATE" -c "$WORK/c.conf" --check-config >"$WORK/cc.out" 2>"$WORK/cc.err"
rc=$?
sed 's/^/# /' "$WORK/cc.err"
check "--check-config takes sink = count:PATH (exit $rc) and prints it back" \
	$([ $rc = 0 ] && grep -qx "sink = count:$WORK/n.txt" "$WORK/cc.out"; echo $?)

in_dut "$XRXD" --state-dir "$STATE" -c "$WORK/c.conf" --check-config >/dev/null 2>"$WORK/plain.err"
rc=$?
sed 's/^/# /' "$WORK/plain.err"
check "xrxd without the kind: exit 2, naming the kinds it has" \
	$([ $rc = 2 ] && grep -q "sink = count:$WORK/n.txt is not a valid sink; write null, pcap:" "$WORK/plain.err"; echo $?)

# refused SPEC TEXT: --check-config of xrxd-sinks exits 2 saying TEXT
refused() {
	cfg "$1"
	in_dut "$XS" --state-dir "$STATE" -c "$WORK/c.conf" --check-config >/dev/null 2>"$WORK/bad.err"
	local rc=$?
	sed 's/^/# /' "$WORK/bad.err"
	check "sink = $1: exit 2 ($rc), '$2'" \
		$([ $rc = 2 ] && grep -qF -- "$2" "$WORK/bad.err" && [ "$(wc -l <"$WORK/bad.err")" = 1 ]; echo $?)
}
refused "count:$WORK/n.txt,fast" "count:$WORK/n.txt,fast is not a path the count sink takes"
refused "count:rel.txt" "sink = count:rel.txt needs an absolute path"
refused "count:$WORK/nodir/n.txt" "directory $WORK/nodir does not exist"
refused "nosuch:x" "write null, pcap:/PATH[,size=N,files=N,snaplen=N,explain], tun:NAME, tap:NAME or count:/PATH"

cfg "count:$WORK/n.txt"
cp "$WORK/c.conf" "$WORK/xrx.conf"
XRXD=$XS
xrxd_up || { check "xrxd-sinks up with sink = count:$WORK/n.txt" 1; done_testing; exit 1; }
check "xrxd-sinks up with sink = count:$WORK/n.txt" \
	$(grep -q "sink count:$WORK/n.txt" "$WORK/xrxd.err"; echo $?)
check "it says the accelerated traffic ends in the count sink (its flags)" \
	$(grep -q "deliver to count only" "$WORK/xrxd.err"; echo $?)
redirected "into the count sink"
stats_settled "$WORK/stats.json"
j() { jpath "$WORK/stats.json" "$1"; }
diag "engine pkts_out $(j user.engine.pkts_out); sink in $(j user.sink.pkts_in) out $(j user.sink.pkts_out)"
check "the sink took every packet the engine delivered" \
	$([ "$(j user.sink.pkts_out)" = "$(j user.engine.pkts_out)" ] &&
	  [ "$(j user.sink.pkts_out)" -gt 0 ]; echo $?)
kill -TERM $pid
wait $pid
check "SIGTERM: exit 0" $?
cat "$WORK/n.txt" | sed 's/^/# /'
check "its file counts what the sink counters say: $(j user.sink.pkts_out) packets, $(j user.sink.bytes_out) bytes" \
	$(grep -qx "packets $(j user.sink.pkts_out) bytes $(j user.sink.bytes_out)" "$WORK/n.txt"; echo $?)
done_testing
