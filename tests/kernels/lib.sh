# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Shared by the guest tests (tests/kernels/*.sh, run by guest.sh inside a
# QEMU guest): tests/lib.sh and tests/integration/xrxd_lib.sh, with the
# guest's virtio-net NIC as the DUT.
#
#   guest_dut_up          eth0 (virtio-net, 52:54:00:12:34:56) moved into
#                         $NS_DUT as $IF_DUT, 198.18.0.2/24, up; back in
#                         the root namespace on exit
#   host_send OPTION...   the host sends with xrx-send on its tap (the
#                         guest's eth0); status: xrx-send's there
#   guest_conf [LINE...]  $WORK/xrx.conf: interface, tcp/5201 accelerated,
#                         1 ms flush timeout, and the LINEs
#   keep_logs NAME        on exit, $WORK's *.err and *.json kept in the
#                         host's log directory as NAME-*
#
# Under TCG nothing about time is asserted: only bounded waits, generous.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../integration/xrxd_lib.sh"
IF_DUT=eth0
MAC=52:54:00:12:34:56
XRXD_START_S=60

guest_dut_up() {
	ip netns add $NS_DUT || return 1
	at_exit ip netns del $NS_DUT
	# Deleting the namespace gives a physical device back to the root
	# namespace; say so explicitly, before the deletion, all the same.
	at_exit ip -n $NS_DUT link set $IF_DUT netns 1
	ip link set $IF_DUT netns $NS_DUT || return 1
	in_dut ip link set lo up
	in_dut ip addr add $IP4_DUT/24 dev $IF_DUT
	in_dut ip link set $IF_DUT up
	# virtio-net's carrier comes up asynchronously.
	wait_for 20 eval 'in_dut ip -br link show $IF_DUT | grep -q "UP "'
}

_hs_n=0
host_send() {
	local req=$GUEST_OUT/req/$$-$_hs_n rc
	_hs_n=$((_hs_n + 1))
	printf '%s\n' --dmac $MAC "$@" >"$req.args"
	: >"$req.go"
	wait_for 600 test -e "$req.rc" || return 1
	rc=$(cat "$req.rc")
	[ "$rc" = 0 ] || sed 's/^/# host xrx-send: /' "$req.out"
	return "$rc"
}

guest_conf() {
	{
		echo "interface = $IF_DUT"
		echo "accelerate = tcp/5201"
		echo "flush_timeout_us = 1000"
		printf '%s\n' "$@"
	} >"$WORK/xrx.conf"
}

keep_logs() {
	at_exit 'for f in "$WORK"/*.err "$WORK"/*.json; do [ -e "$f" ] && cp "$f" "$GUEST_OUT/'"$1"'-${f##*/}"; done'
}
