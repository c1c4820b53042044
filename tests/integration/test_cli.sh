#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The command lines of xrxd, xrxctl, xrx-send and xrx-replay: their help
# and usage errors are generated from each command's option table
# (user/util/cli.h), and stay what they were byte for byte: each case of
# tests/fixtures/cli/cases is compared with its recorded output. Then,
# for every program and subcommand: each row of its table (the hidden
# --list-options prints them) is in its --help, and an unknown flag, long
# or short, is a usage error that names it, with exit status 2.
#
#   XRX_CLI_RECORD=1 tests/integration/test_cli.sh   rewrite the .out files
. "$(dirname "$0")/../lib.sh"

FIX=$TOP/tests/fixtures/cli
W=$(mktemp -d /tmp/xrx-cli.XXXXXX)
at_exit rm -rf "$W"

need_built "$BUILD/xrxd" "$BUILD/xrxctl" "$BUILD/xrx-send" "$BUILD/xrx-replay"

# run PROGRAM ARGS...: exit status, stdout and stderr, as the .out files hold
# them. XRX_* and SERVICE_RESULT would change what xrxctl says.
run() {
	local prog=$1 rc
	shift
	(cd "$BUILD" && env -i PATH=/usr/bin:/bin "./$prog" "$@" \
		>"$W/o" 2>"$W/e" </dev/null)
	rc=$?
	printf 'exit %d\n--- stdout\n' "$rc"
	cat "$W/o"
	printf -- '--- stderr\n'
	cat "$W/e"
}

n=0
while read -r name prog args; do
	case "$name" in ''|'#'*) continue ;; esac
	# shellcheck disable=SC2086 # the arguments are split on blanks
	run "$prog" $args >"$W/$name.out"
	if [ "${XRX_CLI_RECORD:-}" = 1 ]; then
		cp "$W/$name.out" "$FIX/$name.out"
		continue
	fi
	n=$((n + 1))
	if cmp -s "$W/$name.out" "$FIX/$name.out"; then
		check "$name: $prog $args is as recorded" 0
	else
		check "$name: $prog $args is as recorded" 1
		diff -u "$FIX/$name.out" "$W/$name.out" | head -20 | sed 's/^/# /'
	fi
done <"$FIX/cases"
[ "${XRX_CLI_RECORD:-}" = 1 ] && exit 0

# Every command with a table of its own.
cmds=("xrxd" "xrxctl" "xrxctl stats" "xrxctl reload" "xrxctl rules"
      "xrxctl status" "xrxctl restore" "xrxctl offloads" "xrx-send"
      "xrx-replay")
for cmd in "${cmds[@]}"; do
	# shellcheck disable=SC2086 # "xrxctl stats" is a program and its argument
	set -- $cmd
	run "$@" --list-options >"$W/rows"
	rows=$(sed -n '/^--- stdout/,/^--- stderr/p' "$W/rows" | grep -- '^--' | grep -v '^--- ' | awk '{ print $1 }')
	run "$@" --help >"$W/help"
	missing=""
	for r in $rows; do
		# a subcommand's help is its usage line, which --help is not on
		[ $# -gt 1 ] && [ "$r" = --help ] && continue
		grep -qE -- "(^|[^-A-Za-z0-9])$r([^-A-Za-z0-9]|\$)" "$W/help" ||
			missing="$missing $r"
	done
	[ -n "$missing" ] && diag "$cmd --help lacks:$missing"
	check "$cmd: every row of its table is in --help ($(echo $rows | wc -w) rows)" \
		$([ -n "$rows" ] && [ -z "$missing" ]; echo $?)
done

for cmd in "${cmds[@]}"; do
	# shellcheck disable=SC2086
	set -- $cmd
	for flag in --no-such-flag -Z; do
		run "$@" "$flag" >"$W/out"
		rc=$(head -1 "$W/out")
		err=$(sed -n '/^--- stderr/,$p' "$W/out" | sed 1d)
		name=${flag#-}
		name=${name#-}
		if [ "$rc" = "exit 2" ] && grep -qF -- "$name" <<<"$err"; then
			check "$cmd $flag: exit 2, the flag named" 0
		else
			check "$cmd $flag: exit 2, the flag named" 1
			diag "$rc: $(head -2 <<<"$err")"
		fi
	done
done

done_testing
