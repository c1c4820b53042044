#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# test_tee_slow.sh with a lossless tee: the worker makes each record in
# the copy, and a frozen tee still never holds the sink up.
TEE_LOSSLESS=1 exec "$(dirname "$0")/test_tee_slow.sh"
