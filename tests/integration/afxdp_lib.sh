# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Shared by tests/integration/test_afxdp_*.sh (after tests/lib.sh): run
# the live receiver (tests/helpers/live_rx.c) in the DUT namespace, send
# with build/xrx-send from the source namespace, read the counters.
#
#   afxdp_need            skip the whole test unless root, binaries, bpffs
#   rx_start ARGS...      live_rx -i $IF_DUT -P $PIN_ROOT ARGS, wait for "ready";
#                         run through "${RX_WRAP[@]}" if set (e.g. setpriv)
#   rx_stop               SIGTERM, wait; the report is in $RX_OUT
#   rxstat KIND NAME        a counter from the report (live/engine/sink/prog)
#   rx_meta_check           TAP check: every frame the engine got carried
#                           xrx_meta (frames_no_meta reported and 0)
#   send ARGS...          xrx-send -i $IF_SRC --dmac <DUT MAC> ARGS
#   dut_snmp PROTO FIELD  a /proc/net/snmp counter of the DUT namespace

LIVE_RX=$BUILD/tests/live_rx
XRX_SEND=$BUILD/xrx-send
XRXPCAP=$TOP/tests/tools/xrxpcap.py

afxdp_need() {
	need_root
	need_built "$LIVE_RX" "$XRX_SEND"
	need_bpffs
	WORK=$(mktemp -d /tmp/xrx-afxdp.XXXXXX)
	at_exit "rm -rf $WORK"
	# A pin root of our own: nothing under /sys/fs/bpf/xrx is touched.
	PIN_ROOT=/sys/fs/bpf/xrx-test-$$
	at_exit "rm -rf $PIN_ROOT"
	RX_OUT=$WORK/rx.out
	RX_ERR=$WORK/rx.err
	RX_PID=
}

rx_start() {
	: >"$RX_OUT"
	# nsenter itself, not the in_dut function: $! must be live_rx
	# (nsenter, and RX_WRAP, exec it), not a subshell that would not
	# pass signals on.
	nsenter --net=/run/netns/$NS_DUT ${RX_WRAP[@]+"${RX_WRAP[@]}"} \
		"$LIVE_RX" -i $IF_DUT -P $PIN_ROOT "$@" >"$RX_OUT" 2>"$RX_ERR" &
	RX_PID=$!
	at_exit "kill $RX_PID"
	if ! wait_xrxd $RX_PID grep -q '^ready' "$RX_OUT"; then
		diag "live_rx did not start: $(head -5 "$RX_ERR")"
		kill $RX_PID 2>/dev/null
		wait $RX_PID 2>/dev/null
		RX_PID=
		return 1
	fi
}

# rx_stop: stop the receiver; fails if it did not exit cleanly in 20 s
# (a deadlocked worker shows here).
rx_stop() {
	local i
	[ -n "$RX_PID" ] || return 1
	kill -TERM $RX_PID 2>/dev/null
	for i in $(seq 200); do
		kill -0 $RX_PID 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 $RX_PID 2>/dev/null; then
		diag "live_rx did not stop in 20 s"
		kill -KILL $RX_PID
		wait $RX_PID 2>/dev/null
		RX_PID=
		# A killed process leaves xrx_rx attached (netlink attach).
		in_dut ip link set dev $IF_DUT xdp off 2>/dev/null
		in_dut ip link set dev $IF_DUT xdpgeneric off 2>/dev/null
		rm -rf $PIN_ROOT
		return 1
	fi
	wait $RX_PID
	local rc=$?
	RX_PID=
	local msg
	msg=$(grep -v '^live_rx: .*\(attached\|detached\|AF_XDP\)' "$RX_ERR" | head -5)
	[ -n "$msg" ] && diag "$msg"
	return $rc
}

rxstat() {
	awk -v k="$1" -v n="$2" '$1 == k && $2 == n { print $3; f = 1 } END { if (!f) print 0 }' "$RX_OUT"
}

# xrx_rx writes xrx_meta in front of every frame it redirects, and the
# AF_XDP copy path carries it: a frame the engine had to parse itself
# means write_meta or the UMEM offset is broken. The counter must be in
# the report (rxstat's 0 for a missing line would hide a rename).
rx_meta_check() {
	local n rc
	n=$(awk '$1 == "engine" && $2 == "frames_no_meta" { print $3 }' "$RX_OUT")
	[ "$n" = 0 ] && [ "$(rxstat engine frames_in)" -gt 0 ]
	rc=$?; check "every frame carried xrx_meta (frames_no_meta ${n:-missing} of $(rxstat engine frames_in))" $rc
}

send() {
	in_src "$XRX_SEND" -i $IF_SRC --dmac "$(dut_mac)" "$@"
}

dut_snmp() {
	in_dut cat /proc/net/snmp | awk -v p="$1:" -v f="$2" '
		$1 == p && !h { for (i = 2; i <= NF; i++) col[$i] = i; h = 1; next }
		$1 == p && h { print $col[f]; exit }'
}
