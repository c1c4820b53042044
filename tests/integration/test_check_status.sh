#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A TAP check that passes "$?" must not run a command in its own message:
# in  check "... $(cmd) ..." $?  the message is expanded first, so $? is
# cmd's status and the check can never fail. Write  rc=$?; check "..." $rc.
# Arithmetic $((...)) runs no command and is fine.
. "$(dirname "$0")/../lib.sh"

# check_lines FILE...: the offending lines, FILE:LINE: text
check_lines() {
	grep -nH -P 'check\s+"[^"]*\$\((?!\()[^"]*"\s+\$\?\s*$' "$@"
}

bad=$(cd "$TOP" && check_lines tests/*.sh tests/integration/*.sh tests/kernels/*.sh)
[ -n "$bad" ] && echo "$bad" | sed 's/^/# /'
ok "no check takes the status of a command in its own message" [ -z "$bad" ]

# The pattern finds what it must, and leaves arithmetic alone.
T=$(mktemp /tmp/xrx-check-status.XXXXXX)
at_exit rm -f "$T"
printf '%s\n' 'true; check "got $(uname -r)" $?' >"$T"
ok "a command substitution in the message is found" check_lines "$T"
printf '%s\n' 'true; check "got $((1 + 2)) and $n" $?' 'rc=$?; check "got $(uname -r)" $rc' >"$T"
none_in() { ! check_lines "$@" >/dev/null; }
ok "arithmetic and a saved status are not" none_in "$T"

done_testing
