#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrxctl against a running xrxd: status (program, mode, queues, copy mode,
# offloads now vs original, the last reload), stats in text, JSON lines
# with --watch rates, and Prometheus text format checked by a strict
# parser, rules, reload (waits for xrxd's outcome: exit 0 when the new
# config runs, 1 with the reason when it did not take effect); status
# after a SIGKILL; and its usage: exit 2 for bad usage, 1 with "no xrxd on
# IFACE: start it with ..." when nothing runs (but xrx_up 0 for --prom),
# --help on one screen.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs

xrxd_work xrxctl

# --- usage, no daemon needed ------------------------------------------------
"$WORK/xrxctl" --help >"$WORK/help"
check "xrxctl --help: exit 0, fits a screen (<= 24 lines)" \
	$([ $? = 0 ] && [ "$(wc -l <"$WORK/help")" -le 24 ] &&
	  [ "$(awk '{ if (length > m) m = length } END { print m }' "$WORK/help")" -le 80 ]; echo $?)
"$WORK/xrxd" --help >"$WORK/help"
check "xrxd --help: exit 0, fits a screen" \
	$([ $? = 0 ] && [ "$(wc -l <"$WORK/help")" -le 24 ]; echo $?)
for bad in "stats --bogus" "stats a b" "status a b" "stats --watch 0" "stats --count 3" \
	   "rules --bogus" "stats bad/name" "frobnicate" "reload" "reload a b" \
	   "reload bad/name" "reload a --timeout 0"; do
	"$WORK/xrxctl" --pin-root "$WORK/none" $bad >/dev/null 2>&1
	check "xrxctl $bad: exit 2" $([ $? = 2 ]; echo $?)
done
"$WORK/xrxctl" --pin-root "$WORK/none" stats nosuch0 2>"$WORK/err"
rc=$?
check "xrxctl stats IFACE without xrxd: exit 1, 'no xrxd on IFACE: start it with systemctl start xrxd@IFACE'" \
	$([ $rc = 1 ] && grep -q "no xrxd on nosuch0.*: start it with systemctl start xrxd@nosuch0" "$WORK/err"; echo $?)
"$WORK/xrxctl" --pin-root "$WORK/none" status 2>"$WORK/err"
rc=$?
check "xrxctl status with no xrxd at all: exit 1, says how to start one" \
	$([ $rc = 1 ] && grep -q "no xrxd running.*start one with systemctl start xrxd@IFACE" "$WORK/err"; echo $?)
# A textfile collector runs `xrxctl stats --prom > tmp && mv tmp FILE`:
# with no xrxd the file must say xrx_up 0, not keep the last xrx_up 1.
"$WORK/xrxctl" --pin-root "$WORK/none" stats nosuch0 --prom >"$WORK/prom0" 2>"$WORK/err"
rc=$?
check "stats IFACE --prom without xrxd: exit 0, xrx_up{interface=\"IFACE\"} 0 and nothing else" \
	$([ $rc = 0 ] && [ "$(grep -v '^#' "$WORK/prom0")" = 'xrx_up{interface="nosuch0"} 0' ] &&
	  grep -qx '# TYPE xrx_up gauge' "$WORK/prom0"; echo $?)
"$WORK/xrxctl" --pin-root "$WORK/none" stats --prom >"$WORK/prom0" 2>/dev/null
check "stats --prom with no xrxd at all: exit 0, the families without samples" \
	$([ $? = 0 ] && grep -qx '# TYPE xrx_up gauge' "$WORK/prom0" && ! grep -qv '^#' "$WORK/prom0"; echo $?)
"$WORK/xrxctl" --pin-root "$WORK/none" reload lo 2>"$WORK/err"
rc=$?
check "xrxctl reload without xrxd: exit 1, says how to start one" \
	$([ $rc = 1 ] && grep -q "no xrxd on lo in this network namespace: start it with systemctl start xrxd@lo" "$WORK/err"; echo $?)

# --- a running xrxd -----------------------------------------------------------
testbed_up numrxqueues 2 numtxqueues 2 || { echo "not ok - testbed"; exit 1; }
MAC=$(dut_mac)
in_src ethtool -K $IF_SRC tx off >/dev/null
cat >"$WORK/xrx.conf" <<EOF
interface = $IF_DUT
accelerate = tcp/5201, udp/4789@198.18.0.0/15, tcp/any@2001:db8::/32
default = pass
flush_timeout_us = 5000
[offload]
gro = on
channels = 1
EOF
nsenter --net=/run/netns/$NS_DUT "$WORK/xrxd" --state-dir "$STATE" -c "$WORK/xrx.conf" 2>"$WORK/xrxd.err" &
pid=$!
at_exit kill -KILL $pid
# (Loading xrx_rx takes seconds on a busy machine.)
wait_xrxd $pid grep -q "ready: xrx_rx" "$WORK/xrxd.err"

xrxctl status $IF_DUT >"$WORK/out" 2>&1
rc=$?
sed 's/^/# /' "$WORK/out"
check "status: exit 0; xrxd pid, program and mode, queues and copy mode" \
	$([ $rc = 0 ] && grep -q "xrxd      running, pid $pid" "$WORK/out" &&
	  grep -qE "program   id [0-9]+ attached in (native|skb) mode \(xrxd's xrx_rx\)" "$WORK/out" &&
	  grep -q "queues    1 (0-0), copy mode" "$WORK/out"; echo $?)
check "status: offloads, original vs now (rx-gro off -> on, channels 2 -> 1)" \
	$(grep -qE "rx-gro +off +on" "$WORK/out" && grep -qE "channels_rx +2 +1" "$WORK/out"; echo $?)
xrxctl status >"$WORK/all" 2>&1
check "status without IFACE lists this interface" $(grep -q "^$IF_DUT:" "$WORK/all"; echo $?)

xrxctl rules $IF_DUT >"$WORK/out"
sed 's/^/# /' "$WORK/out"
check "rules: default and the three rules in config order, as rule strings" \
	$(grep -q "^$IF_DUT: default pass, 3 rules" "$WORK/out" &&
	  grep -qE '^ +1 +accel +tcp/5201$' "$WORK/out" &&
	  grep -qE '^ +2 +accel +udp/4789@198.18.0.0/15$' "$WORK/out" &&
	  grep -qE '^ +3 +accel +tcp/any@2001:db8::/32$' "$WORK/out"; echo $?)
check "rules --json parses" \
	$(xrxctl rules $IF_DUT --json | "$PY" -c 'import json,sys; d=json.load(sys.stdin); assert d["default"] == "pass" and len(d["rules"]) == 3' ; echo $?)

# Traffic during a --watch: three JSON lines, rates on the 2nd and 3rd.
# The sender runs 3 s at least (1500 trains, 2 ms apart), and the watch
# begins once xrxd has counted its first frames: a sender slow to start
# (python on a loaded machine) must not leave the watch's second empty.
FRAMES=12000
frames_in() { xrxctl stats $IF_DUT --json | grep -o '"frames_in":[0-9]*' | cut -d: -f2; }
in_src "$PY" "$TOP/tests/tools/tcp_trains.py" $IF_SRC $MAC $IP4_SRC $IP4_DUT 5201 \
	--flows 2 --segs 4 --trains 1500 >/dev/null &
tpid=$!
at_exit kill $tpid
wait_for 60 eval '[ "$(frames_in)" -gt 0 ]'
xrxctl stats $IF_DUT --json --watch 0.5 --count 3 >"$WORK/watch"
wait $tpid
check "stats --watch 0.5 --count 3 --json: three lines, rates on the later ones" \
	$("$PY" - "$WORK/watch" <<'PYEOF'; echo $?
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 3, len(lines)
assert "rates" not in lines[0]
assert all("rates" in l and l["interval_s"] > 0.4 for l in lines[1:])
assert any(l["rates"]["frames_in_ps"] > 0 for l in lines[1:])
PYEOF
)
wait_for 10 eval '[ "$(frames_in)" = $FRAMES ]'
xrxctl stats $IF_DUT >"$WORK/out"
check "stats text: kernel and userspace counters, derived values" \
	$(grep -qE "^  redirect +$FRAMES " "$WORK/out" && grep -qE "^  frames_in +$FRAMES$" "$WORK/out" &&
	  grep -qE "^  segments_per_aggregate +[0-9.]+$" "$WORK/out" &&
	  grep -qE "^  bytes_copied_per_frame +[0-9.]+$" "$WORK/out"; echo $?)

# Prometheus text exposition, checked line by line.
xrxctl stats --prom >"$WORK/prom"
check "stats --prom: valid exposition format with the interface's samples" \
	$("$PY" - "$WORK/prom" "$IF_DUT" $FRAMES <<'PYEOF'; echo $?
import re, sys
iface = sys.argv[2]
frames = int(sys.argv[3])
typ, helped, seen, samples = {}, set(), [], {}
sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\} (-?[0-9.eE+]+)$')
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("# HELP "):
        helped.add(line.split()[2])
        continue
    if line.startswith("# TYPE "):
        _, _, name, t = line.split()
        assert t in ("counter", "gauge") and name not in typ, line
        typ[name] = t
        seen.append(name)
        continue
    m = sample.match(line)
    assert m, "bad line: " + line
    name = m.group(1)
    # A family's samples follow its TYPE line, before the next family.
    assert name == seen[-1] and name in helped, line
    assert (typ[name] == "counter") == name.endswith("_total"), line
    samples[(name, m.group(2))] = float(m.group(3))
lab = 'interface="%s"' % iface
assert samples[("xrx_up", lab)] == 1
assert samples[("xrx_engine_frames_in_total", lab)] == frames
assert samples[("xrx_prog_packets_total", lab + ',counter="redirect"')] == frames
assert samples[("xrx_segments_per_aggregate", lab)] > 1
assert ("xrx_live_umem_free", lab) in samples
PYEOF
)

# An xrxd starting or stopping elsewhere: its pin directory is listed but
# holds nothing yet. The all-interfaces view leaves it out instead of
# failing (a Prometheus collector runs it at any moment); asked for by
# name, it is an error.
STRAY=/sys/fs/bpf/xrx/xz$$
mkdir "$STRAY" && at_exit rmdir "$STRAY"
xrxctl stats --prom >"$WORK/prom2" 2>"$WORK/err2"
rc=$?
check "stats --prom over every interface skips one whose pins are not there" \
	$([ $rc = 0 ] && grep -q "^xrx_up{interface=\"$IF_DUT\"} 1$" "$WORK/prom2" &&
	  ! grep -q "xz$$" "$WORK/prom2"; echo $?)
xrxctl stats "xz$$" >/dev/null 2>"$WORK/err3"
rc=$?
check "stats of that interface by name: an error naming it" \
	$([ $rc != 0 ] && grep -q "no xrxd on xz$$" "$WORK/err3"; echo $?)

# A high csum_bad rate gets a hint naming the likely cause and the fix;
# good checksums (the traffic above) get none.
check "stats text: no checksum hint while checksums are good" \
	$(! grep -q "hint:.*csum_bad" "$WORK/out"; echo $?)
# (4000 frames, a fifth of them with bad sums: well above the hint's 1%
# of the 16000 frames counted by then.)
in_src "$BUILD/xrx-send" -i $IF_SRC --dmac "$MAC" --dport 5201 --sport 45000 \
	--segs 20 --trains 200 --malformed 30 --seed 7 >/dev/null 2>&1
bad() { xrxctl stats $IF_DUT --json | grep -o '"csum_bad":[0-9]*' | head -1 | cut -d: -f2; }
wait_for 5 test "$(bad)" -gt 0
xrxctl stats $IF_DUT >"$WORK/out"
grep "hint:" "$WORK/out" | sed 's/^/# /'
check "stats text: $(bad) frames with bad checksums flagged" \
	$(grep -q "hint: [0-9]*% of frames had a bad checksum (csum_bad)" "$WORK/out"; echo $?)
unaccounted_zero

# --- reload: the outcome, not just the signal ---------------------------------
# reload_with LINE: the good config with LINE at the top, then xrxctl
# reload; its exit status in $rc, its output in $WORK/out.
reload_with() {
	cp "$WORK/good.conf" "$WORK/xrx.conf"
	sed -i "1a $1" "$WORK/xrx.conf"
	xrxctl reload $IF_DUT >"$WORK/out" 2>&1
	rc=$?
	sed 's/^/# /' "$WORK/out"
}
sed -i 's|^accelerate = .*|accelerate = tcp/5201, tcp/6000|' "$WORK/xrx.conf"
cp "$WORK/xrx.conf" "$WORK/good.conf"
xrxctl reload $IF_DUT >"$WORK/out" 2>&1
rc=$?
sed 's/^/# /' "$WORK/out"
check "reload with a good config: exit 0, says so; the new rule is in place" \
	$([ $rc = 0 ] && grep -q "$IF_DUT: reloaded (reload 1 of xrxd pid $pid)" "$WORK/out" &&
	  xrxctl rules $IF_DUT | grep -qE '^ +2 +accel +tcp/6000$'; echo $?)
xrxctl status $IF_DUT >"$WORK/status" 2>&1
check "status shows that reload: ok, when, which" \
	$(grep -qE "^  reload    ok at [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} .*\(reload 1\)$" "$WORK/status"; echo $?)

# Only an engine option: the log must not speak of a new sink.
reload_with "max_segments = 32"
check "reload of an engine option alone: exit 0, logged as engines switched, sink kept" \
	$([ $rc = 0 ] && grep -q "engines switched in place to the new engine options, sink null kept" "$WORK/xrxd.err" &&
	  ! grep -q "workers switched in place to sink" "$WORK/xrxd.err"; echo $?)

# A pcap sink on a read-only file system parses, but cannot run.
mkdir "$WORK/ro"
if mount -t tmpfs -o ro,mode=0700 xrx-ro "$WORK/ro"; then
	at_exit umount "$WORK/ro"
	reload_with "sink = pcap:$WORK/ro/rx.pcap"
	check "reload to a pcap sink on a read-only mount: exit 1, the reason names the directory" \
		$([ $rc = 1 ] && grep -q "error: $IF_DUT: reload failed: .*xrx.conf: sink = pcap:$WORK/ro/rx.pcap, but xrxd cannot write in $WORK/ro: Read-only file system" "$WORK/out"; echo $?)
	check "... xrxd runs on with the previous rules" \
		$(kill -0 $pid && xrxctl rules $IF_DUT | grep -qE '^ +2 +accel +tcp/6000$'; echo $?)
else
	skip "reload to a pcap sink on a read-only mount" "cannot mount a read-only tmpfs"
	skip "... xrxd runs on" "see above"
fi

# tun: naming a device that is not a TUN: the kernel's bare EINVAL, named.
reload_with "sink = tun:$IF_DUT"
check "reload to tun:NAME of an existing non-TUN device: exit 1, names the device and its driver" \
	$([ $rc = 1 ] && grep -q "sink = tun:$IF_DUT, but $IF_DUT exists and is not a tun device (driver veth)" "$WORK/out"; echo $?)
# lo has no driver that answers ETHTOOL_GDRVINFO: no TUN either, and the
# same EINVAL from TUNSETIFF, which must be named as well.
reload_with "sink = tun:lo"
check "reload to tun:lo (a device without driver info): exit 1, names the device" \
	$([ $rc = 1 ] && grep -q "sink = tun:lo, but lo exists and is not a tun device" "$WORK/out"; echo $?)
reload_with "sink = tun:$IF_DUT"
xrxctl status $IF_DUT >"$WORK/status" 2>&1
sed -n 's/^\(  reload.*\)/# \1/p' "$WORK/status"
check "status shows the failed reload and its reason" \
	$(grep -q "^  reload    FAILED at .*(reload [0-9]*), the configuration before it runs on: .*$IF_DUT exists and is not a tun device" "$WORK/status"; echo $?)

# A config that does not parse: the parser's line is the reason.
printf 'interface = %s\nsink = nowhere\n' $IF_DUT >"$WORK/xrx.conf"
xrxctl reload $IF_DUT >"$WORK/out" 2>&1
rc=$?
check "reload with a config error: exit 1, FILE:LINE of the error" \
	$([ $rc = 1 ] && grep -q "reload failed: $WORK/xrx.conf:2: sink = nowhere" "$WORK/out"; echo $?)
cp "$WORK/good.conf" "$WORK/xrx.conf"
xrxctl reload $IF_DUT >"$WORK/out" 2>&1
check "the good config again: exit 0" $([ $? = 0 ]; echo $?)

kill -TERM $pid
wait $pid
check "xrxd stopped cleanly" $([ $? = 0 ] && [ ! -e "$PIN" ]; echo $?)
check "... and took its reload outcome with it" $([ ! -e "$STATE/$IF_DUT.reload" ]; echo $?)

# --- status of a killed xrxd ----------------------------------------------------
# No offload to change: the state file records nothing.
printf 'interface = %s\naccelerate = tcp/5201\n' $IF_DUT >"$WORK/plain.conf"
chmod 600 "$WORK/plain.conf"
nsenter --net=/run/netns/$NS_DUT "$WORK/xrxd" --state-dir "$STATE" -c "$WORK/plain.conf" 2>"$WORK/xrxd.err" &
pid=$!
at_exit kill -KILL $pid
# (Loading xrx_rx takes seconds on a busy machine.)
wait_xrxd $pid grep -q "ready: xrx_rx" "$WORK/xrxd.err"
kill -KILL $pid
wait $pid 2>/dev/null
xrxctl status $IF_DUT >"$WORK/status" 2>&1
rc=$?
sed 's/^/# /' "$WORK/status"
check "status after SIGKILL: exit 1, not running, and no 'state ok' beside it" \
	$([ $rc = 1 ] && grep -q "xrxd      not running" "$WORK/status" &&
	  ! grep -q "state     ok" "$WORK/status" &&
	  grep -q "state     stopped: xrxd (pid $pid) ended without cleaning up.*xrxctl restore $IF_DUT" "$WORK/status"; echo $?)
check "... no empty offloads table: the state file records no setting" \
	$(grep -q "offloads  none changed (the state file records no setting)" "$WORK/status" &&
	  ! grep -q "offloads   setting" "$WORK/status"; echo $?)
xrxctl restore $IF_DUT 2>/dev/null
check "xrxctl restore cleans up after it" $([ ! -e "$PIN" ] && [ -z "$(prog_id)" ]; echo $?)

done_testing
