#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The pcap sink's time rotation, compression and hook: rotate=1 on a
# strftime name with compress=zstd and a hook leaves only .zst files,
# each one whole (zstd -t) and a capture tshark reads, every packet in
# one of them, and the hook run exactly once on each, with its final
# name. Then a compressor that cannot write (a directory where each
# .zst would go) and a hook that fails (/bin/false): both counted in
# compress_errors and hook_errors and logged once, the files left as
# they were and readable, and every packet still written.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/afxdp_lib.sh"
afxdp_need
command -v tshark >/dev/null || skip_all "tshark not installed (scripts/deps.sh)"
command -v zstd >/dev/null || skip_all "zstd not installed (scripts/deps.sh)"
testbed_up || { check "testbed" 1; done_testing; exit 1; }

HOOK=$WORK/hook.sh
cat >$HOOK <<HOOKEOF
#!/bin/sh
echo "\$1" >>$WORK/hook.log
HOOKEOF
chmod +x $HOOK

# records in the capture files given (zstd ones decompressed)
records() {
	local f n=0 k
	for f in "$@"; do
		case $f in
		*.zst) k=$(zstd -dc "$f" | tshark -r - -T fields -e frame.number 2>/dev/null | wc -l) ;;
		*) k=$(tshark -r "$f" -T fields -e frame.number 2>/dev/null | wc -l) ;;
		esac
		n=$((n + k))
	done
	echo $n
}

# 3 s of trains: at least two rotations of one second each
mkdir -p $WORK/a
rx_start -p 5001 -s "pcap:$WORK/a/rx-%s.pcapng,format=pcapng,rotate=1,compress=zstd,hook=$HOOK" -T 20000 -t 40
check "live_rx with rotate=1,compress=zstd,hook" $?
send --flows 2 --segs 10 --trains 12 --gap-us 250000
check "sent 12 trains over 3 s" $?
rx_stop
check "live_rx stopped cleanly" $?

files=$(ls $WORK/a)
nz=$(ls $WORK/a | grep -c '\.zst$')
nall=$(ls $WORK/a | wc -l)
diag "files: $(echo $files | tr '\n' ' ')"
[ "$nall" -ge 3 ] && [ "$nz" = "$nall" ]
check "at least 3 files, every one compressed ($nz of $nall)" $?
bad=0
for f in $WORK/a/*; do
	zstd -q -t "$f" || bad=$((bad + 1))
	zstd -dc "$f" | tshark -r - >/dev/null 2>&1 || bad=$((bad + 1))
	case $(basename "$f") in
	rx-[0-9]*.pcapng.zst | rx-[0-9]*.pcapng.[0-9]*.zst) ;;
	*) bad=$((bad + 1)) ;;
	esac
done
[ $bad = 0 ]
check "each file named by its start time, whole (zstd -t) and read by tshark" $?
n=$(records $WORK/a/*)
[ "$n" = "$(rxstat engine pkts_out)" ] && [ "$n" -gt 0 ]
r=$?
check "every delivered packet in the files ($n of $(rxstat engine pkts_out))" $r
[ "$(sort $WORK/hook.log)" = "$(ls -d $WORK/a/* | sort)" ]
r=$?
check "the hook ran once on each closed file, with its final name ($(wc -l <$WORK/hook.log) runs)" $r
[ "$(rxstat sink rotations)" -ge 2 ] && [ "$(rxstat sink compress_errors)" = 0 ] &&
	[ "$(rxstat sink hook_errors)" = 0 ]
r=$?
check "rotations $(rxstat sink rotations), no compress or hook errors" $r

# Failures: no room for any .zst (a directory in its place), a hook
# that exits 1.
mkdir -p $WORK/b
now=$(date +%s)
for t in $(seq $((now - 1)) $((now + 60))); do
	mkdir -p $WORK/b/rx-$t.pcap.zst
done
rx_start -p 5001 -s "pcap:$WORK/b/rx-%s.pcap,rotate=1,compress=zstd,hook=/bin/false" -T 20000 -t 40
check "live_rx with a compressor that cannot write and a failing hook" $?
send --flows 2 --segs 10 --trains 12 --gap-us 250000
check "sent 12 trains over 3 s" $?
rx_stop
check "live_rx stopped cleanly" $?
caps=$(ls -d $WORK/b/rx-*.pcap $WORK/b/rx-*.pcap.[0-9]* 2>/dev/null)
nc=$(echo "$caps" | grep -c .)
n=$(records $caps)
[ "$nc" -ge 3 ] && [ "$n" = "$(rxstat engine pkts_out)" ] && [ "$n" -gt 0 ]
r=$?
check "the capture went on: $nc readable files, every packet in them ($n of $(rxstat engine pkts_out))" $r
ce=$(rxstat sink compress_errors)
he=$(rxstat sink hook_errors)
# counters as the stop found them: the last file's are counted after
[ "$ce" -ge 2 ] && [ "$he" -ge 2 ] && [ "$ce" -le "$nc" ] && [ "$he" -le "$nc" ]
check "compress_errors $ce and hook_errors $he counted for the closed files ($nc)" $?
[ "$(grep -c 'cannot compress' "$RX_ERR")" = 1 ] &&
	[ "$(grep -c 'hook_errors' "$RX_ERR")" = 1 ]
check "each failure logged once" $?

done_testing
