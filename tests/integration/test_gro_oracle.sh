#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The kernel's own GRO as the oracle: every crafted train of
# scripts/gen-fixtures.py goes over a veth into a receiver with GRO on
# (threaded NAPI pinned to CPU 0, sender SCHED_FIFO on CPU 0, so one poll
# sees the whole train), tcpdump records what GRO delivered, and
# build/xrx-replay must deliver the same packets: per flow, the same
# payload boundaries (aggregate sizes), payload bytes and header fields.
#
# Sender: tso/gso/tx off (veth hands skbs to the peer's GRO only without
# TSO). Receiver: gro on, rx-udp-gro-forwarding on (UDP GRO without a
# socket, the udp_gro_receive_segment() rules xrx's --udp follows).
# Frames go to a MAC that is not the receiver's, so they are dropped
# after GRO instead of being answered. The real capture in tests/fixtures
# is compared too, cut into trains of 64 frames.
#
#   GRO_ORACLE_RUNS=N      kernel runs of every train (default 2)
#   GRO_ORACLE_RETRIES=N   extra runs of a train that did not match (3)
#   GRO_ORACLE_ONLY="A B"  only these trains (and no real capture)
. "$(dirname "$0")/../lib.sh"

need_root
for tool in tcpdump ethtool taskset chrt nsenter; do
	if ! command -v $tool >/dev/null; then
		skip "gro oracle" "$tool missing (scripts/deps.sh installs it)"
		done_testing
		exit
	fi
done
if ! $PY -c 'import scapy' 2>/dev/null; then
	skip "gro oracle" "python3-scapy missing (scripts/deps.sh installs it)"
	done_testing
	exit
fi
if [ ! -x "$BUILD/xrx-replay" ]; then
	check "xrx-replay is built (make)" 1
	done_testing
	exit
fi

WORK=$(mktemp -d /tmp/xrx-oracle.XXXXXX)
at_exit rm -rf "$WORK"
ok "fixtures generated" $PY "$TOP/scripts/gen-fixtures.py" "$WORK/fixtures"

testbed_up mtu 2000 || { check "testbed" 1; done_testing; exit; }
in_src ethtool -K $IF_SRC tso off gso off tx off >/dev/null 2>&1
in_dut ethtool -K $IF_DUT gro on >/dev/null 2>&1
check "receiver GRO on" "$(in_dut ethtool -k $IF_DUT | grep -q '^generic-receive-offload: on' ; echo $?)"
if ! in_dut ethtool -K $IF_DUT rx-udp-gro-forwarding on >/dev/null 2>&1; then
	diag "rx-udp-gro-forwarding not available: UDP trains will show no kernel UDP GRO"
fi
# nsenter --net keeps the root mount namespace, whose /sys shows the root
# namespace's devices: write the threaded switch from an "ip netns exec"
# shell, which mounts the namespace's own /sys.
ip netns exec $NS_DUT sh -c "echo 1 > /sys/class/net/$IF_DUT/threaded"
napi=$(ps -eo pid=,comm= | awk -v p="napi/$IF_DUT-" 'index($2, p) == 1 { print $1 }')
if [ -z "$napi" ]; then
	skip "gro oracle" "no threaded NAPI kthread for $IF_DUT (kernel without threaded NAPI on veth)"
	done_testing
	exit
fi
# CPU 0 for the NAPI thread too, and SCHED_FIFO below the sender's: the
# sender still finishes a train before the poll, but other load on the
# machine cannot delay the poll (and GRO's flush) past the next train.
for p in $napi; do
	taskset -p -c 0 "$p" >/dev/null
	chrt -f -p 40 "$p"
done

start=$(date +%s)
$PY "$TOP/tests/tools/gro_oracle.py" --src-ns $NS_SRC --src-if $IF_SRC \
	--dut-ns $NS_DUT --dut-if $IF_DUT --fixtures "$WORK/fixtures" \
	--replay "$BUILD/xrx-replay" --work "$WORK" \
	${GRO_ORACLE_ONLY:+--only $GRO_ORACLE_ONLY} \
	${GRO_ORACLE_ONLY:---capture "$TOP/tests/fixtures/iperf3-tcp4.pcap"} \
	--runs "${GRO_ORACLE_RUNS:-2}" --retries "${GRO_ORACLE_RETRIES:-3}" \
	>"$WORK/result" 2>&1
rc=$?
rules=0
while read -r verdict rest; do
	case $verdict in
	PASS) check "$rest" 0; rules=$((rules + 1)) ;;
	FAIL) check "$rest" 1; rules=$((rules + 1)) ;;
	SKIP) skip "${rest%%: *}" "${rest#*: }" ;;
	DIAG) diag "$rest" ;;
	*) diag "$verdict $rest" ;;
	esac
done <"$WORK/result"
check "oracle driver finished (exit $rc)" $rc
min=20
[ -n "${GRO_ORACLE_ONLY:-}" ] && min=$(echo $GRO_ORACLE_ONLY | wc -w)
check "at least $min rules compared ($rules)" "$([ $rules -ge $min ]; echo $?)"
diag "oracle took $(($(date +%s) - start)) s"
done_testing
