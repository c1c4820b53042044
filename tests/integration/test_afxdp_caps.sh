#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The live path with only the capabilities xrxd's unit grants (CAP_BPF,
# CAP_NET_ADMIN, ...; no CAP_SYS_ADMIN), reproduced with setpriv: libxrx
# attaches xrx_rx, receives, and on exit detaches it and removes its pins.
# Detaching must not need CAP_SYS_ADMIN (libxdp's xdp_program__detach()
# looks the attached program up by id, which does; bpf_xdp_detach() with
# XDP_FLAGS_REPLACE and the program's own fd does not).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/afxdp_lib.sh"
afxdp_need
command -v setpriv >/dev/null || skip_all "setpriv not installed (package util-linux)"

UNIT_CAPS=$(sed -n 's/^AmbientCapabilities=//p' "$TOP/systemd/xrxd@.service")
# "CAP_BPF CAP_NET_ADMIN" -> "+bpf,+net_admin"
caps=$(echo "$UNIT_CAPS" | tr ' ' '\n' | sed 's/^CAP_//' | tr 'A-Z' 'a-z' |
	sed 's/^/+/' | paste -sd, -)
diag "capabilities: $caps"
check "the unit grants capabilities, not CAP_SYS_ADMIN" \
	$([ -n "$caps" ] && ! echo "$caps" | grep -q sys_admin; echo $?)

testbed_up || { check "testbed" 1; done_testing; exit 1; }
RX_WRAP=(setpriv --no-new-privs
	--securebits +noroot,+noroot_locked,+no_setuid_fixup
	--inh-caps -all,$caps --ambient-caps -all,$caps --bounding-set -all,$caps)
xdp_on() { in_dut ip -d link show $IF_DUT | grep -q 'prog/xdp'; }

rx_start -p 5001 -t 20
check "live_rx starts with the unit's capabilities only" $?
check "it attached xrx_rx and pinned it in $PIN_ROOT/$IF_DUT" \
	$(xdp_on && [ -e "$PIN_ROOT/$IF_DUT/xrx_rx" ] &&
	  [ -e "$PIN_ROOT/$IF_DUT/xrx_xsks" ]; echo $?)
check "the process has no CAP_SYS_ADMIN" \
	$(eff=$(awk '/^CapEff/ { print $2 }' /proc/$RX_PID/status) &&
	  [ $(( 0x$eff >> 21 & 1 )) = 0 ] && [ $(( 0x$eff >> 39 & 1 )) = 1 ]; echo $?)
send --flows 1 --segs 10 --mss 1000
sleep 0.3
rx_stop
check "live_rx stops cleanly" $?
check "10 segments received" $([ "$(rxstat live rx_frames)" = 10 ]; echo $?)
check "xrx_rx detached without CAP_SYS_ADMIN" $(! xdp_on; echo $?)
check "pins and pin directory removed" $([ ! -e "$PIN_ROOT/$IF_DUT" ]; echo $?)
grep -q "cannot detach" "$RX_ERR" && diag "$(grep "cannot detach" "$RX_ERR")"
done_testing
