#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Rules on the frame inside GENEVE, through a running xrxd, as
# test_vxlan_inner_rules.sh does for VXLAN: with "accelerate =
# geneve:tcp/5202, vxlan:tcp/5201", "geneve_ports = 6081" and
# "vxlan_ports = 4789", xrxd writes both ports and the inner-rules flag
# into xrx_cfg, and xrx_rx takes exactly the GENEVE frames whose inner
# TCP goes to port 5202: with options over outer IPv4, and IPv4 carried
# without an inner Ethernet header (protocol type 0x0800) over outer
# IPv6. GENEVE frames with inner TCP to 5201 (the VXLAN rule's port) go
# to the kernel: a scope is its tunnel kind's. The counters geneve,
# geneve_inner_rule and redirect match the frames sent (vxlan and
# vxlan_inner_rule 0), and the pcap sink holds the taken frames and
# nothing else. A reload without inner rules clears the flag, and the
# same frames then all go to the kernel. The cases are tnl_rules_lib.sh's;
# crafted frames: no geneve module needed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
. "$(dirname "$0")/tnl_rules_lib.sh"
tnl_testbed geneve gninner

# N4 GENEVE frames (outer IPv4, two option words) and N6 (outer IPv6,
# IPv4 without inner Ethernet) with inner TCP to 5202, NO with inner TCP
# to 5201, the VXLAN rule's port; no plain frames.
RULE=5202 ODPORT=5201 N4=12 N6=8 NO=10 NP=0 PORTS="geneve vxlan"
tnl_inner_rules "geneve:tcp/5202, vxlan:tcp/5201"
tnl_without_inner
done_testing
