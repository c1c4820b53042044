#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Guest: the BPF_PROG_TEST_RUN suite against this kernel's verifier and
# helpers: the parser and verdict tests of xrx_rx (test_xrx_rx) and the
# BPF/userspace parser differential (test_parse_diff), of the build meant
# for this kernel, as built on the host. Their TAP is passed through; a
# crash counts as a failure.
. "$(dirname "$0")/lib.sh"
export CMOCKA_MESSAGE_OUTPUT=TAP
# Under TCG a million frames take too long; the differential is the same
# on fewer (the host runs the million).
export XRX_DIFF_FRAMES=${XRX_GUEST_DIFF_FRAMES:-20000}
# The build libxrx loads on this kernel, by the same probe
# (user/lib/afxdp/kernel.c): the plain one where the kernel's BTF has
# bpf_cast_to_kern_ctx(), else the compat one: its parser and verdict
# tests (test_xrx_rx) and the BPF/userspace differential (test_parse_diff:
# this kernel's run of the bytecode against the C parser) against this
# kernel's verifier and helpers. The other build is left to the host,
# which runs them all; XRX_GUEST_BPF_ALL=1 runs it here too.
if kernel_btf_has bpf_cast_to_kern_ctx; then
	tests="test_xrx_rx test_parse_diff"
	[ -n "${XRX_GUEST_BPF_ALL:-}" ] && tests="$tests test_xrx_rx_compat test_parse_diff_compat"
else
	tests="test_xrx_rx_compat test_parse_diff_compat"
	skip "test_xrx_rx, test_parse_diff (the plain build)" \
		"this kernel ($(uname -r)) has no bpf_cast_to_kern_ctx(): libxrx loads xrx_rx_compat here, which runs the same tests"
fi
for t in $tests; do
	start=$(date +%s)
	if [ ! -x "$BUILD/tests/$t" ]; then
		check "$t is built (make)" 1
		continue
	fi
	"$BUILD/tests/$t" >"/tmp/$t.out" 2>&1
	rc=$?
	grep -E '^(not )?ok [0-9]+|^#' "/tmp/$t.out" | sed -E "s/^((not )?ok [0-9]+)( - )?/\1 - $t: /"
	grep -vE '^(not )?ok [0-9]+|^#|^1\.\.' "/tmp/$t.out" | head -20 | sed 's/^/# /'
	check "$t exits 0 (status $rc)" $rc
	diag "$t: $(($(date +%s) - start)) s"
done
