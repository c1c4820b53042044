#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# TCP end to end through xrx into the stack at L2: test_tun_tcp.sh with
# the tap sink (MAC addresses and VLAN tags kept).
XRX_TUN_KIND=tap exec "$(dirname "$0")/test_tun_tcp.sh"
