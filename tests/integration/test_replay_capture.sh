#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrx-replay on a real trace (tests/fixtures/iperf3-tcp4.pcap): it
# aggregates, every payload byte of every flow comes out exactly once and
# in place, every frame is released, and the three copy modes and the
# batch size change nothing but the aggregate boundaries they should.
. "$(dirname "$0")/../lib.sh"

replay_need
CAP=$TOP/tests/fixtures/iperf3-tcp4.pcap
W=$(mktemp -d /tmp/xrx-replay-cap.XXXXXX)
at_exit rm -rf "$W"

"$R" --json "$CAP" "$W/out.pcap" >"$W/json"
check "replay of the iperf3 capture: exit 0" $?
$PY - "$W/json" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
e, i = j["engine"], j["input"]
assert e["frames_in"] == i["frames"] > 2000, (e, i)
assert e["frames_released"] == e["frames_in"], e
assert e["aggs_out"] > 0 and e["pkts_out"] < e["frames_in"] / 4, e
assert e["payload_bytes_copied"] == 0, e
PYEOF
check "  aggregates (4+ frames per packet), releases every frame, copies no payload" $?
$X check-payload "$CAP" "$W/out.pcap"
check "  every payload byte of every flow exactly once" $?
read -r pin _ < <($X count "$CAP")
read -r pout _ < <($X count "$W/out.pcap")
diag "$pin frames in, $pout packets out"

for m in max-head full; do
	"$R" --copy $m "$CAP" "$W/$m.pcap"
	$X compare "$W/out.pcap" "$W/$m.pcap" >"$W/diff" 2>&1
	check "--copy $m: the same packets as --copy header" $?
	head -3 "$W/diff" | sed 's/^/# /'
done
"$R" --batch 1 "$CAP" "$W/b1.pcap"
read -r n1 _ < <($X count "$W/b1.pcap")
check "--batch 1: every frame delivered alone ($n1 of $pin)" "$([ "$n1" = "$pin" ]; echo $?)"
$X compare "$CAP" "$W/b1.pcap" >/dev/null
check "  and byte-identical to the input" $?
"$R" --batch 512 --max-size 524280 "$CAP" "$W/big.pcap"
$X check-payload "$CAP" "$W/big.pcap"
check "--batch 512 --max-size 524280: every payload byte exactly once" $?
done_testing
