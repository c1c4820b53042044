# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Shared by the kernel-oracle tests (test_gro_oracle.sh,
# test_vxlan_oracle.sh), sourced after tests/lib.sh:
#
#   oracle_need NAME      skip unless root, the tools, scapy; fail unless
#                         xrx-replay is built
#   oracle_receiver NAME  after testbed_up: sender tso/gso/tx off (veth
#                         hands skbs to the peer's GRO only without TSO),
#                         receiver GRO on (checked), threaded NAPI pinned
#                         to CPU 0 at SCHED_FIFO 40; skips without it
#   oracle_fixtures WHAT CMD...
#                         $WORK/fixtures: a copy of $ORACLE_FIXTURES where
#                         that is set (trains made beforehand: the kernel
#                         guests' host makes them, Python being slow
#                         there), else made by CMD; one check, WHAT
#   oracle_run MIN ARGS   tests/tools/gro_oracle.py on $WORK/fixtures with
#                         ARGS: one TAP line per rule, then "at least MIN
#                         rules compared"

oracle_need() {
	local tool

	need_root
	for tool in tcpdump ethtool taskset chrt nsenter; do
		command -v $tool >/dev/null ||
			skip_all "$1: $tool missing (scripts/deps.sh installs it)"
	done
	$PY -c 'import scapy' 2>/dev/null ||
		skip_all "$1: python3-scapy missing (scripts/deps.sh installs it)"
	replay_need
}

oracle_fixtures() {
	local what=$1
	shift
	if [ -n "${ORACLE_FIXTURES:-}" ]; then
		ok "$what (made beforehand in $ORACLE_FIXTURES)" \
			cp -r "$ORACLE_FIXTURES" "$WORK/fixtures"
	else
		ok "$what" "$@"
	fi
}

oracle_receiver() {
	local napi p

	in_src ethtool -K $IF_SRC tso off gso off tx off >/dev/null 2>&1
	in_dut ethtool -K $IF_DUT gro on >/dev/null 2>&1
	check "receiver GRO on" \
		"$(in_dut ethtool -k $IF_DUT | grep -q '^generic-receive-offload: on'; echo $?)"
	# nsenter --net keeps the root mount namespace, whose /sys shows the
	# root namespace's devices: write the threaded switch from an "ip
	# netns exec" shell, which mounts the namespace's own /sys.
	ip netns exec $NS_DUT sh -c "echo 1 > /sys/class/net/$IF_DUT/threaded"
	napi=$(ps -eo pid=,comm= | awk -v p="napi/$IF_DUT-" 'index($2, p) == 1 { print $1 }')
	if [ -z "$napi" ]; then
		skip "$1" "no threaded NAPI kthread for $IF_DUT (kernel without threaded NAPI on veth)"
		done_testing
		exit
	fi
	# CPU 0 for the NAPI thread too, and SCHED_FIFO below the sender's:
	# the sender still finishes a train before the poll, but other load
	# on the machine cannot delay the poll (and GRO's flush) past the
	# next train.
	for p in $napi; do
		taskset -p -c 0 "$p" >/dev/null
		chrt -f -p 40 "$p"
	done
}

oracle_run() {
	local min=$1 start rc rules=0 verdict rest f ign=()

	shift
	start=$(date +%s)
	# GRO_ORACLE_IGNORE: fields a kernel under test is known to write
	# otherwise (said in a DIAG line), not compared
	for f in ${GRO_ORACLE_IGNORE:-}; do ign+=(--ignore-field "$f"); done
	$PY "$TOP/tests/tools/gro_oracle.py" --src-ns $NS_SRC --src-if $IF_SRC \
		--dut-ns $NS_DUT --dut-if $IF_DUT --fixtures "$WORK/fixtures" \
		--replay "$BUILD/xrx-replay" --work "$WORK" \
		--runs "${GRO_ORACLE_RUNS:-2}" --retries "${GRO_ORACLE_RETRIES:-3}" \
		"${ign[@]}" "$@" >"$WORK/result" 2>&1
	rc=$?
	while read -r verdict rest; do
		case $verdict in
		PASS) check "$rest" 0; rules=$((rules + 1)) ;;
		FAIL) check "$rest" 1; rules=$((rules + 1)) ;;
		SKIP) skip "${rest%%: *}" "${rest#*: }" ;;
		DIAG) diag "$rest" ;;
		*) diag "$verdict $rest" ;;
		esac
	done <"$WORK/result"
	check "oracle driver finished (exit $rc)" $rc
	check "at least $min rules compared ($rules)" "$([ $rules -ge $min ]; echo $?)"
	diag "oracle took $(($(date +%s) - start)) s"
}
