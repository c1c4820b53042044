#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# scripts/kernels/sender.sh OUT TAP XRX_SEND: the host's side of a guest's
# traffic. The guest asks for a train by writing OUT/req/N.args (xrx-send
# options, one a line) and then OUT/req/N.go; this runs
# `XRX_SEND -i TAP OPTIONS` and writes its exit status to OUT/req/N.rc.
# Only xrx-send, only on TAP: the host sends nothing anywhere else. Runs
# "@OUT@" in an option stands for OUT (the guest's /run/xrx-guest), so
# `-w @OUT@/sent.pcap` records what was sent where the guest reads it. Runs
# until killed (scripts/kernels/run.sh kills it when the guest is off).
set -u
OUT=$1 TAP=$2 SEND=$3
while :; do
	for go in "$OUT"/req/*.go; do
		[ -e "$go" ] || continue
		req=${go%.go}
		mapfile -t args <"$req.args"
		args=("${args[@]//@OUT@/$OUT}")
		timeout 600 "$SEND" -i "$TAP" "${args[@]}" >"$req.out" 2>&1
		echo $? >"$req.rc.new"
		mv "$req.rc.new" "$req.rc"
		rm -f "$go"
	done
	sleep 0.1
done
