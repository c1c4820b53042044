#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrx_rx taken away from a running xrxd by someone else.
#
# Unloaded (xdp-loader unload -a, or ip link set dev X xdp off): xrxd does
# not attach it again over the operator's decision; it logs it once and
# is degraded (STATUS=, xrxctl status, xrx_degraded, degraded_reasons;
# a reload meanwhile says so too) until xrx_rx is back - here re-attached from its pin - and then says so.
# Replaced by a foreign program: degraded, the log names the program, and
# xrxd leaves it alone, also when it stops.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
need_built "$BUILD/xrx-send"

testbed_up || { echo "not ok 1 - testbed"; exit 1; }
xrxd_work prog-watch
MAC=$(dut_mac)
log_has() { grep -q "$1" "$WORK/xrxd.err"; }
state() { xrxctl status $IF_DUT 2>&1 | grep "^  state"; }
in_src ethtool -K $IF_SRC tx off >/dev/null
cat >"$WORK/xrx.conf" <<EOF
interface = $IF_DUT
accelerate = tcp/5201
flush_timeout_us = 1000
EOF

xrxd_notified 120
ours=$(prog_id)
check "xrxd ready, xrx_rx attached, state ok" \
	$([ -n "$ours" ] && state | grep -q "state     ok"; echo $?)

# --- unloaded ---------------------------------------------------------------
if command -v xdp-loader >/dev/null; then
	how="xdp-loader unload -a"
	in_dut xdp-loader unload -a $IF_DUT
else
	how="ip link set xdp off"
	in_dut ip link set dev $IF_DUT xdp off
fi
check "$how detaches xrx_rx" $([ -z "$(prog_id)" ]; echo $?)
wait_for 5 eval 'state | grep -q DEGRADED'
state | sed 's/^/# /'
check "unloaded: xrxctl status says DEGRADED, detached" \
	$(state | grep -q "state     DEGRADED: xrx_rx was detached by someone else"; echo $?)
check "unloaded: the log says so once, and that xrxd does not attach it again" \
	$([ "$(grep -c "DEGRADED: xrx_rx (id $ours) was detached by someone else" "$WORK/xrxd.err")" = 1 ] &&
	  log_has "xrxd does not undo an unload by itself: restart xrxd"; echo $?)
wait_for 5 grep -q "^STATUS=.*DEGRADED: xrx_rx (id $ours) was detached" "$WORK/notify.log"
check "unloaded: STATUS= says DEGRADED" \
	$(grep -q "^STATUS=.*DEGRADED: xrx_rx (id $ours) was detached" "$WORK/notify.log"; echo $?)
check "unloaded: xrx_degraded 1, degraded_reasons names prog_detached" \
	$(xrxctl stats $IF_DUT --prom | grep -qx "xrx_degraded{interface=\"$IF_DUT\"} 1" &&
	  xrxctl stats $IF_DUT | grep -q "DEGRADED: xrx_rx was detached" &&
	  [ "$(jget user.degraded_reasons)" = 2 ]; echo $?)
check "unloaded: xrxd did not attach xrx_rx again, and still runs" \
	$([ -z "$(prog_id)" ] && kill -0 $pid; echo $?)
# A reload now puts the new rules in place, but nothing reaches them:
# not a plain "reloaded".
sed -i 's|^accelerate = .*|accelerate = tcp/5201, tcp/6000|' "$WORK/xrx.conf"
xrxctl reload $IF_DUT >"$WORK/out" 2>&1
rc=$?
sed 's/^/# /' "$WORK/out"
check "unloaded: xrxctl reload: exit 0, and says xrxd is still DEGRADED and why" \
	$([ $rc = 0 ] && grep -q "reloaded (reload 1 of xrxd pid $pid), but xrxd is still DEGRADED: xrx_rx was detached by someone else" "$WORK/out"; echo $?)
check "... xrxctl status shows it with the reload" \
	$(xrxctl status $IF_DUT | grep -q "^  reload    ok at .*(reload 1), but xrxd is still DEGRADED: xrx_rx was detached"; echo $?)

in_dut bpftool net attach xdp pinned $PIN/xrx_rx dev $IF_DUT
check "the operator attaches xrx_rx again from its pin" $([ "$(prog_id)" = "$ours" ]; echo $?)
wait_for 5 eval 'state | grep -q "state     ok"'
check "re-attached: no longer degraded, the log says so" \
	$(state | grep -q "state     ok" && [ "$(jget user.degraded)" = 0 ] &&
	  log_has "xrx_rx (id $ours) is attached again; no longer degraded"; echo $?)
redirected "re-attached: traffic accelerated again"
unaccounted_zero "re-attached"

# --- replaced ---------------------------------------------------------------
if ! xdp_pass_attach overwrite; then
	skip "replaced by a foreign program" "cannot build or attach one: $(head -1 "$WORK/err")"
else
	foreign=$(prog_id)
	check "a foreign XDP program replaces xrx_rx" \
		$([ -n "$foreign" ] && [ "$foreign" != "$ours" ]; echo $?)
	wait_for 5 eval 'state | grep -q DEGRADED'
	state | sed 's/^/# /'
	check "replaced: xrxctl status says DEGRADED, replaced" \
		$(state | grep -q "state     DEGRADED: another XDP program replaced xrx_rx" &&
		  [ "$(jget user.degraded_reasons)" = 4 ]; echo $?)
	check "replaced: the log names the foreign program, once" \
		$([ "$(grep -c "DEGRADED: XDP program id $foreign replaced xrx_rx (id $ours)" "$WORK/xrxd.err")" = 1 ]; echo $?)
	wait_for 5 grep -q "^STATUS=.*DEGRADED: XDP program id $foreign replaced" "$WORK/notify.log"
	check "replaced: STATUS= says DEGRADED" \
		$(grep -q "^STATUS=.*DEGRADED: XDP program id $foreign replaced" "$WORK/notify.log"; echo $?)
	kill -TERM $pid
	wait $pid
	rc=$?
	check "replaced: SIGTERM: exit 0, the foreign program left in place" \
		$([ $rc = 0 ] && [ "$(prog_id)" = "$foreign" ] && [ ! -e "$PIN" ]; echo $?)
fi
sed 's/^/# /' "$WORK/xrxd.err" | tail -20

done_testing
