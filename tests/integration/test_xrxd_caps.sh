#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrxd with only the capabilities systemd/xrxd@.service grants (its
# CapabilityBoundingSet/AmbientCapabilities, SecureBits=noroot-locked,
# NoNewPrivileges), reproduced with setpriv: it starts, attaches,
# aggregates, and restores on SIGTERM. Without CAP_BPF or CAP_NET_ADMIN it
# fails at once with a line naming the capability, NIC untouched.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
command -v setpriv >/dev/null || skip_all "setpriv not installed (package util-linux)"

UNIT=$TOP/systemd/xrxd@.service
UNIT_CAPS=$(sed -n 's/^AmbientCapabilities=//p' "$UNIT")
# "CAP_BPF CAP_NET_ADMIN" -> "+bpf,+net_admin"
capset() { echo "$*" | tr ' ' '\n' | sed 's/^CAP_//' | tr 'A-Z' 'a-z' | sed 's/^/+/' | paste -sd, -; }
check "the unit grants CAP_BPF and CAP_NET_ADMIN" \
	$(echo "$UNIT_CAPS" | grep -q CAP_BPF && echo "$UNIT_CAPS" | grep -q CAP_NET_ADMIN; echo $?)

testbed_up numrxqueues 2 numtxqueues 2 || { echo "not ok 1 - testbed"; exit 1; }
xrxd_work caps
MAC=$(dut_mac)
in_src ethtool -K $IF_SRC tx off >/dev/null
snapshot "$WORK/orig"

cat >"$WORK/xrx.conf" <<EOF
interface = $IF_DUT
accelerate = tcp/5201
flush_timeout_us = 5000
[offload]
gro = on
EOF

# nsenter (needs CAP_SYS_ADMIN) first, then drop to the capability set;
# both exec in place. A backgrounded shell function would be a subshell
# of its own, hence exec: $! is then xrxd's pid.
with_caps() {
	local caps=$1
	shift
	exec nsenter --net=/run/netns/$NS_DUT setpriv --no-new-privs \
		--securebits +noroot,+noroot_locked,+no_setuid_fixup \
		--inh-caps -all,$caps --ambient-caps -all,$caps \
		--bounding-set -all,$caps "$@"
}
caps=$(capset $UNIT_CAPS)
diag "capabilities: $caps"

with_caps "$caps" "$WORK/xrxd" --state-dir "$STATE" -c "$WORK/xrx.conf" 2>"$WORK/xrxd.err" &
pid=$!
at_exit kill -KILL $pid
jget() {
	xrxctl stats $IF_DUT --json 2>/dev/null |
		"$PY" -c 'import json,sys; v=json.loads(sys.stdin.readline()); print(v["user"]["engine"][sys.argv[1]])' "$1"
}
wait_xrxd $pid grep -q "ready: xrx_rx" "$WORK/xrxd.err"
sed 's/^/# /' "$WORK/xrxd.err"
check "unit capabilities only: xrxd is ready" $(grep -q "ready: xrx_rx" "$WORK/xrxd.err" && kill -0 $pid; echo $?)
check "unit capabilities only: the process has no CAP_SYS_ADMIN" \
	$(eff=$(awk '/^CapEff/ { print $2 }' /proc/$pid/status) &&
	  [ $(( 0x$eff >> 21 & 1 )) = 0 ] && [ $(( 0x$eff >> 39 & 1 )) = 1 ]; echo $?)
in_src "$PY" "$TOP/tests/tools/tcp_trains.py" $IF_SRC $MAC $IP4_SRC $IP4_DUT 5201 \
	--flows 2 --segs 16 --trains 5 >/dev/null
wait_for 5 eval '[ "$(jget frames_in)" = 160 ]'
check "unit capabilities only: traffic aggregated (160 frames in, aggregates out)" \
	$([ "$(jget frames_in)" = 160 ] && [ "$(jget aggs_out)" -gt 0 ]; echo $?)
unaccounted_zero "unit capabilities only"
kill -TERM $pid
wait $pid
rc=$?
snapshot "$WORK/now"
check "unit capabilities only: SIGTERM exits 0" $([ $rc = 0 ]; echo $?)
ok "unit capabilities only: detached and restored, NIC identical" \
	eval 'same "$WORK/orig" "$WORK/now" && [ ! -e "$PIN" ]'

for drop in CAP_BPF CAP_NET_ADMIN; do
	caps=$(capset $(echo "$UNIT_CAPS" | tr ' ' '\n' | grep -vx $drop))
	(with_caps "$caps" "$WORK/xrxd" --state-dir "$STATE" -c "$WORK/xrx.conf" 2>"$WORK/err")
	rc=$?
	diag "$(cat "$WORK/err")"
	check "without $drop: exit 1 with a line naming it" \
		$([ $rc = 1 ] && grep -q "missing capability .*$drop.*AmbientCapabilities=" "$WORK/err"; echo $?)
	snapshot "$WORK/now"
	ok "without $drop: NIC untouched, nothing pinned" \
		eval 'same "$WORK/orig" "$WORK/now" && [ ! -e "$PIN" ]'
done

done_testing
