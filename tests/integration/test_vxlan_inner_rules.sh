#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Rules on the frame inside VXLAN, through a running xrxd: with
# "accelerate = vxlan:tcp/5201" and "vxlan_ports = 4789", xrxd loads the
# inner rule (scope inner) and the VXLAN port into xrx_rules/xrx_cfg, and
# xrx_rx takes exactly the VXLAN frames whose inner TCP goes to port 5201
# (inside outer IPv4 and IPv6): the pcap sink holds those and nothing
# else, while the tunnel's other frames and plain TCP to port 5201 go to
# the kernel. The counters vxlan, vxlan_inner_rule and redirect match the
# frames sent. A reload without the inner rule clears the flag, and the
# same frames then all go to the kernel. The cases are tnl_rules_lib.sh's.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
. "$(dirname "$0")/tnl_rules_lib.sh"
tnl_testbed vxlan vxinner

# N4 VXLAN frames (outer IPv4) and N6 (outer IPv6) with inner TCP to
# 5201, NO with inner TCP to 80, NP plain TCP frames to 5201.
RULE=5201 ODPORT=80 N4=20 N6=10 NO=15 NP=5 PORTS=vxlan
tnl_inner_rules "vxlan:tcp/5201"
tnl_without_inner
done_testing
