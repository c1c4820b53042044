#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrxd's pcap sink on a file system that fills up (a small tmpfs).
#
# Full: the capture never ends in a torn record (tcpdump and tshark read
# it without "truncated dump file", and a strict reader finds the file
# ending on a record boundary); the lost packets are counted (sink.errors,
# sink.nospace); xrxd logs it once per episode, not once per packet or
# second; STATUS=, xrxctl status, xrx_degraded and degraded_reasons say
# degraded and why. Space back: xrxd says so, is no longer degraded, and
# new records arrive in the same file, which stays whole. On ext4 with a
# root reserve, root's capture resumes once root can write again.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
need_built "$BUILD/xrx-send"
command -v tcpdump >/dev/null || skip_all "no tcpdump (scripts/deps.sh installs it)"

testbed_up || { echo "not ok 1 - testbed"; exit 1; }
xrxd_work pcap-full
MAC=$(dut_mac)
CAP=$WORK/cap
PCAP=$CAP/rx.pcap
log_has() { grep -q "$1" "$WORK/xrxd.err"; }
state() { xrxctl status $IF_DUT 2>&1 | grep "^  state"; }
send() {
	in_src "$BUILD/xrx-send" -i $IF_SRC --dmac $MAC --dport 5201 --flows 4 \
		--segs 8 "$@" >/dev/null 2>&1
}
# records FILE: the number of whole records; "torn" when the file does
# not end on a record boundary (or has no whole header).
records() {
	"$PY" - "$1" <<'PYEOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
if len(d) < 24 or struct.unpack("<I", d[:4])[0] not in (0xa1b2c3d4, 0xa1b23c4d):
    print("torn"); sys.exit()
off, n = 24, 0
while off + 16 <= len(d):
    incl = struct.unpack("<I", d[off + 8:off + 12])[0]
    if off + 16 + incl > len(d):
        break
    off += 16 + incl
    n += 1
print(n if off == len(d) else "torn")
PYEOF
}
# readable FILE: tcpdump and tshark read every record, with no complaint.
readable() {
	local n=$(records "$1") t
	[ "$n" != torn ] || return 1
	t=$(tcpdump -r "$1" -n 2>"$WORK/tcpdump.err" | wc -l)
	! grep -qi "truncated\|error" "$WORK/tcpdump.err" && [ "$t" = "$n" ] &&
		[ "$(tshark -r "$1" 2>/dev/null | wc -l)" = "$n" ]
}

mkdir "$CAP"
mount -t tmpfs -o size=1M xrx-test-full "$CAP" || skip_all "cannot mount a tmpfs"
at_exit umount -l "$CAP"
in_src ethtool -K $IF_SRC tx off >/dev/null
cat >"$WORK/xrx.conf" <<EOF
interface = $IF_DUT
accelerate = tcp/5201
flush_timeout_us = 1000
sink = pcap:$PCAP
EOF
xrxd_notified 120

wait_for 20 eval 'send --trains 2 -c 64; [ "$(jget user.sink.pkts_out)" -gt 0 ]'
n0=$(records "$PCAP")
check "records written while there is space ($n0)" \
	$([ "$n0" != torn ] && [ "$n0" -gt 0 ] && state | grep -q "state     ok"; echo $?)

# --- full -------------------------------------------------------------------
dd if=/dev/zero of="$CAP/filler" bs=4k 2>/dev/null
avail=$(df --output=avail -B1 "$CAP" | tail -1 | tr -d " ")
check "the file system is full ($avail bytes left)" $([ "$avail" = 0 ]; echo $?)
for i in 1 2 3; do
	send --trains 20 -c 1280
done
wait_for 10 eval '[ "$(jget user.sink.nospace)" -gt 0 ]'
wait_for 5 eval 'state | grep -q DEGRADED'
state | sed 's/^/# /'
diag "sink pkts_out $(jget user.sink.pkts_out), errors $(jget user.sink.errors), nospace $(jget user.sink.nospace); records $(records "$PCAP")"
check "full: the lost packets are counted in sink.errors and sink.nospace" \
	$([ "$(jget user.sink.nospace)" -gt 0 ] &&
	  [ "$(jget user.sink.errors)" = "$(jget user.sink.nospace)" ]; echo $?)
check "full: the capture has no torn record; tcpdump and tshark read it whole" \
	$(readable "$PCAP"; echo $?)
check "full: xrxctl status says DEGRADED, the file system is full" \
	$(state | grep -q "state     DEGRADED: the sink's file system is full" &&
	  [ "$(jget user.degraded_reasons)" = 8 ] &&
	  xrxctl stats $IF_DUT --prom | grep -qx "xrx_degraded{interface=\"$IF_DUT\"} 1"; echo $?)
wait_for 5 grep -q "^STATUS=.*DEGRADED: sink pcap:$PCAP has no space left" "$WORK/notify.log"
check "full: STATUS= says DEGRADED and why" \
	$(grep -q "^STATUS=.*DEGRADED: sink pcap:$PCAP has no space left on its file system, [0-9]* packets lost so far" "$WORK/notify.log"; echo $?)
e1=$(jget user.sink.errors)
send --trains 20 -c 1280
wait_for 10 eval '[ "$(jget user.sink.errors)" -gt $e1 ]'
sleep 1.5	# a second of refreshes: a line per second would show here
check "full: logged once for the episode, however long it lasts" \
	$([ "$(grep -c "DEGRADED: sink pcap:$PCAP has no space left" "$WORK/xrxd.err")" = 1 ] &&
	  [ "$(jget user.sink.errors)" -gt $e1 ]; echo $?)
check "full: xrxd still runs" $(kill -0 $pid; echo $?)

# --- space back -------------------------------------------------------------
n1=$(records "$PCAP")
rm -f "$CAP/filler"
send --trains 2 -c 64
wait_for 10 log_has "writes again"
wait_for 5 eval 'state | grep -q "state     ok"'
n2=$(records "$PCAP")
diag "records: $n0 before, $n1 when full, $n2 after"
check "space back: the log says so, no longer degraded" \
	$(log_has "sink pcap:$PCAP writes again; [0-9]* packets lost while it could not; no longer degraded" &&
	  state | grep -q "state     ok" && [ "$(jget user.degraded)" = 0 ]; echo $?)
check "space back: new records in the same file, still whole and readable" \
	$([ "$n2" != torn ] && [ "$n2" -gt "$n1" ] && readable "$PCAP"; echo $?)
unaccounted_zero

# --- rotating into a full file system ----------------------------------------
# A rotation starts a new file whose header may not fit: that file stays
# empty until it does, the ones before it stay whole. The file is filled
# close to its size= first, so that the full file system meets a rotation.
rm -f "$PCAP"
sed -i "s|^sink = .*|sink = pcap:$CAP/rot.pcap,size=16K,files=3,snaplen=128|" "$WORK/xrx.conf"
kill -HUP $pid
wait_for 10 log_has "workers switched in place to sink pcap:$CAP/rot.pcap"
wait_for 30 eval 'send --trains 2 -c 64; [ "$(stat -c %s "$CAP/rot.pcap")" -ge 14000 ]'
r0=$(jget user.sink.rotations)
dd if=/dev/zero of="$CAP/filler" bs=4k 2>/dev/null
e1=$(jget user.sink.nospace)
for i in 1 2 3; do
	send --trains 20 -c 1280
done
wait_for 10 eval '[ "$(jget user.sink.nospace)" -gt $e1 ]'
wait_for 5 eval 'state | grep -q DEGRADED'
whole() {
	local f
	for f in "$CAP"/rot.pcap*; do
		[ -s "$f" ] || continue
		readable "$f" || { diag "$f: $(records "$f") records"; return 1; }
	done
}
ls -l "$CAP" | sed 's/^/# /'
check "rotating while full: a rotation was tried ($r0 -> $(jget user.sink.rotations))" \
	$([ "$(jget user.sink.rotations)" -gt "$r0" ]; echo $?)
check "rotating while full: degraded, every file that has data whole and readable" \
	$(state | grep -q "state     DEGRADED: the sink's file system is full" && whole; echo $?)
rm -f "$CAP/filler"
wait_for 15 eval 'send --trains 2 -c 64; state | grep -q "state     ok"'
ls -l "$CAP" | sed 's/^/# /'
check "rotating, space back: no longer degraded, records arrive, every file whole" \
	$(state | grep -q "state     ok" && [ "$(records "$CAP/rot.pcap")" -gt 0 ] && whole; echo $?)
unaccounted_zero "rotating"

# --- ext4 with a root reserve -----------------------------------------------
# xrxd runs as root, and ext4 lets root into the blocks it reserves
# (mkfs.ext4 -m): after the disk filled, the capture resumes as soon as
# root can write again, not only once more than the whole reserve is free
# (f_bavail, which leaves the reserve out, stays 0 here throughout).
ext4_reserve() {
	local img=$WORK/ext4.img ext=$WORK/ext4 dev n0 n1 avail
	command -v mkfs.ext4 >/dev/null || { skip "ext4 reserve" "no mkfs.ext4 (e2fsprogs)"; return; }
	truncate -s 32M "$img" && mkfs.ext4 -q -F -m 10 "$img" >/dev/null 2>&1 ||
		{ skip "ext4 reserve" "cannot make an ext4 image"; return; }
	dev=$(losetup -f --show "$img" 2>/dev/null) ||
		{ skip "ext4 reserve" "no loop device (losetup -f failed)"; return; }
	at_exit losetup -d "$dev"
	mkdir -p "$ext"
	mount -t ext4 "$dev" "$ext" ||
		{ skip "ext4 reserve" "cannot mount ext4 from $dev"; return; }
	at_exit umount -l "$ext"
	sed -i "s|^sink = .*|sink = pcap:$ext/r.pcap,snaplen=128|" "$WORK/xrx.conf"
	kill -HUP $pid
	wait_for 10 log_has "workers switched in place to sink pcap:$ext/r.pcap"
	wait_for 30 eval 'send --trains 2 -c 64; [ "$(records "$ext/r.pcap")" -gt 0 ]'
	# 2 MiB to free later (less than the 3.2 MiB reserve), then as root
	# up to the last block root may have.
	dd if=/dev/zero of="$ext/free-later" bs=1M count=2 2>/dev/null
	dd if=/dev/zero of="$ext/filler" bs=64k 2>/dev/null
	sync
	e1=$(jget user.sink.nospace)
	for i in 1 2 3; do
		send --trains 20 -c 1280
	done
	wait_for 10 eval '[ "$(jget user.sink.nospace)" -gt $e1 ]'
	wait_for 5 eval 'state | grep -q DEGRADED'
	check "ext4, full as root: degraded, the losses counted" \
		$(state | grep -q "DEGRADED" && [ "$(jget user.sink.nospace)" -gt $e1 ]; echo $?)
	rm -f "$ext/free-later"
	sync
	avail=$(df --output=avail -B1 "$ext" | tail -1 | tr -d " ")
	diag "ext4 after freeing 2 MiB: $(df --output=avail,size -B1 "$ext" | tail -1) (avail, size)"
	check "ext4, 2 MiB freed: the reserve is not, f_bavail says 0 ($avail)" \
		$([ "$avail" = 0 ]; echo $?)
	n0=$(records "$ext/r.pcap")
	wait_for 30 eval 'send --trains 2 -c 64; state | grep -q "state     ok"'
	n1=$(records "$ext/r.pcap")
	diag "ext4 records: $n0 when full, $n1 after 2 MiB freed"
	check "ext4, 2 MiB freed: root writes again, no longer degraded, the file whole" \
		$(state | grep -q "state     ok" && [ "$n1" != torn ] && [ "$n1" -gt "$n0" ] && readable "$ext/r.pcap"; echo $?)
	sed -i "s|^sink = .*|sink = null|" "$WORK/xrx.conf"
	kill -HUP $pid
	wait_for 10 log_has "workers switched in place to sink null"
}
ext4_reserve

kill -TERM $pid
wait $pid
check "SIGTERM: exit 0" $?
sed 's/^/# /' "$WORK/xrxd.err" | tail -12

done_testing
