#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Guest: the BPF_PROG_TEST_RUN suite against this kernel's verifier and
# helpers: the parser and verdict tests of xrx_rx (test_xrx_rx) and the
# BPF/userspace parser differential (test_parse_diff), as built on the
# host. Their TAP is passed through; a crash counts as a failure.
. "$(dirname "$0")/lib.sh"
export CMOCKA_MESSAGE_OUTPUT=TAP
# Under TCG a million frames take too long; the differential is the same
# on fewer (the host runs the million).
export XRX_DIFF_FRAMES=${XRX_GUEST_DIFF_FRAMES:-20000}
for t in test_xrx_rx test_parse_diff; do
	if [ ! -x "$BUILD/tests/$t" ]; then
		check "$t is built (make)" 1
		continue
	fi
	"$BUILD/tests/$t" >"/tmp/$t.out" 2>&1
	rc=$?
	grep -E '^(not )?ok [0-9]+|^#' "/tmp/$t.out" | sed -E "s/^((not )?ok [0-9]+)( - )?/\1 - $t: /"
	grep -vE '^(not )?ok [0-9]+|^#|^1\.\.' "/tmp/$t.out" | head -20 | sed 's/^/# /'
	check "$t exits 0 (status $rc)" $rc
done
