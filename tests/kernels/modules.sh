#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Guest: the host tests that skip on the host for lack of a module or a
# kernel feature, run where the guest kernel has them:
#   - the 4 VLAN trains of the kernel-GRO oracle (test_gro_oracle.sh),
#     judged by this kernel's own VLAN GRO (8021q, loaded by guest.sh);
#   - libxdp's dispatcher (test_xdp_loader.sh, its chaining part): PASS
#     where the kernel allows freplace, a SKIP with the reason where not.
# Their TAP is passed through, each case prefixed with the test's name.
. "$(dirname "$0")/lib.sh"
pass() {
	sed -E "s/^((not )?ok [0-9]+)( - )?/\1 - $1: /"
}
if grep -q '^8021q ' /proc/modules || [ -d /sys/module/8021q ]; then
	# the trains, made by the host before the boot (run.sh)
	[ -d "$GUEST_OUT/fixtures-gro" ] && export ORACLE_FIXTURES=$GUEST_OUT/fixtures-gro
	GRO_ORACLE_RUNS=${GRO_ORACLE_RUNS:-1} \
		GRO_ORACLE_ONLY="tcp4_vlan tcp4_qinq tcp4_vlan_limit64k tcp4_vlan_change" \
		bash "$TOP/tests/integration/test_gro_oracle.sh" 2>&1 |
		grep -E '^(not )?ok [0-9]+|^#' | pass gro_oracle_vlan
else
	skip "gro_oracle_vlan" "no 8021q module for $(uname -r)"
fi
XDP_LOADER_MODES= bash "$TOP/tests/integration/test_xdp_loader.sh" 2>&1 |
	grep -E '^(not )?ok [0-9]+|^#' | pass xdp_loader
