#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrxd@.service under a real systemd: a systemd-nspawn container boots
# systemd as PID 1 from an overlay of the host's root (on a tmpfs, so the
# host is not written), `make install` puts xrx into it, and the container
# joins the DUT network namespace of a veth testbed. The interface has a
# dash in its name, so the unit runs as xrxd@$(systemd-escape NAME)
# throughout. Then, through systemctl:
#
#   start (Type=notify: active only after READY=1), STATUS= text; the
#   NAPI deferral of busy_poll = on set through netlink from inside the
#   sandbox;
#   UDP datagrams into the pcap sink, every one of them written and
#   accounted for; reload to a TUN sink and TCP from iperf3 through it; a
#   reload with a bad config, and one whose pcap sink the sandbox keeps
#   read-only, fail `systemctl reload` and change nothing (xrxctl status
#   shows the failure); SIGSTOP -> the watchdog kills and restarts it, the
#   NIC is restored in between; kill -9 -> restored and restarted; stop ->
#   the NIC exactly as found; an unescaped instance does not start and
#   says how to escape; a missing config is named by xrxd; a failure that
#   Restart= retries ends in the start limit; a bad config and a missing
#   bpffs are not retried (RestartPreventExitStatus=2), and ExecStopPost
#   stays silent after them; --check-config knows the instance of a file
#   in /etc/xrx; systemd-analyze security <= 2.5.
#
# What the test changes in the unit, and why:
#   - no udev in a container, so no device units: the documented way for
#     containers masks the drop-in that binds the unit to the device
#     (ln -s /dev/null /etc/systemd/system/xrxd@.service.d/device.conf);
#   - a drop-in sets WatchdogSec=5s, TimeoutAbortSec=2s, RestartSec=1s:
#     the same logic as the shipped 10s/30s/2s, within this test's time.
#
# Needs systemd-nspawn (package systemd-container) and overlayfs; skips,
# naming what is missing, without them. A container that does not boot
# is a failure, not a skip.
. "$(dirname "$0")/../lib.sh"
need_root
need_built "$BUILD/xrxd" "$BUILD/xrxctl" "$BUILD/xrx-send"
command -v systemd-nspawn >/dev/null ||
	skip_all "systemd-nspawn missing (apt-get install systemd-container)"
command -v iperf3 >/dev/null || skip_all "iperf3 missing (scripts/deps.sh)"
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null
grep -qw overlay /proc/filesystems || skip_all "no overlayfs in this kernel"
need_tun

IFD=xrx-d$$			# the dash is part of the test
INST=$(systemd-escape "$IFD")
UNIT="xrxd@$INST.service"
TUN=xt$$
MACHINE=xrx-test-$$

WORK=$(mktemp -d /tmp/xrx-systemd.XXXXXX)
at_exit rm -rf "$WORK"
# Everything the container writes lands on this tmpfs.
mount -t tmpfs -o mode=0700 xrx-systemd "$WORK" || skip_all "cannot mount a tmpfs"
at_exit umount -l "$WORK"
mkdir "$WORK/upper" "$WORK/work" "$WORK/root" "$WORK/bpf" "$WORK/out"
# nspawn refuses -D / with --volatile=overlay: this is the same overlay.
mount -t overlay xrx-systemd-root \
	-o "lowerdir=/,upperdir=$WORK/upper,workdir=$WORK/work" "$WORK/root" ||
	skip_all "cannot mount an overlay of / (overlayfs over this root fs)"
at_exit umount -l "$WORK/root"
# A bpffs of the container's own, bound at its /sys/fs/bpf.
mount -t bpf xrx-systemd-bpf "$WORK/bpf" || skip_all "cannot mount a bpffs"
at_exit umount -l "$WORK/bpf"
R=$WORK/root
OUT=$WORK/out

# --- the testbed: veth from a source namespace into the container's ------
ip netns add $NS_SRC || exit 1
at_exit ip netns del $NS_SRC
ip netns add $NS_DUT || exit 1
at_exit ip netns del $NS_DUT
ip link add $IF_SRC netns $NS_SRC type veth peer name $IFD netns $NS_DUT || exit 1
in_src ip link set lo up
in_dut ip link set lo up
in_src ip addr add $IP4_SRC/24 dev $IF_SRC
in_dut ip addr add $IP4_DUT/24 dev $IFD
in_src ip link set $IF_SRC up
in_dut ip link set $IFD up
# Real checksums on the wire (xrxd verifies them); the TUN takes packets
# for a local address that routing would send back out of the veth.
in_src ethtool -K $IF_SRC tx off >/dev/null
in_dut sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0

snapshot() {
	{
		in_dut ethtool -k $IFD
		in_dut ethtool -l $IFD
		in_dut ip -d link show $IFD | sed 's/ prog\/xdp.*//'
		in_dut ip -d link show $IFD | grep -c 'prog/xdp'
		napis
	} >"$1" 2>&1
}
# The NAPI instances and their settings, "ID DEFER TIMEOUT" (raw netlink).
napis() { in_dut $PY "$TOP/tests/tools/napi.py" get $IFD; }
same() { cmp -s "$1" "$2" || { diff "$1" "$2" | sed 's/^/# /'; return 1; }; }
snapshot "$OUT/nic.before"

# --- the container's root ------------------------------------------------
make -C "$TOP" --no-print-directory -s install DESTDIR="$R" BUILD="$BUILD" \
	>"$OUT/install" 2>&1 || { sed 's/^/# /' "$OUT/install"; check "make install into the container" 1; done_testing; exit 1; }
check "make install into the container" 0
# Its own machine id: the host's would make journald link the journals.
systemd-id128 new >"$R/etc/machine-id"
# No udev, no device units: mask the device binding, as docs/xrxd.md
# says for containers (a dependency cannot be taken back in a drop-in of
# one's own; a drop-in of the same name in /etc overrides the shipped one).
mkdir -p "$R/etc/systemd/system/xrxd@.service.d"
ln -s /dev/null "$R/etc/systemd/system/xrxd@.service.d/device.conf"
mkdir -p "$R/etc/systemd/system/$UNIT.d"
cat >"$R/etc/systemd/system/$UNIT.d/xrxd-test.conf" <<EOF
# test_systemd.sh: shorter timeouts, same logic.
[Service]
WatchdogSec=5s
TimeoutAbortSec=2s
RestartSec=1s
EOF
conf() {
	printf '%s\n' "$@" >"$R/etc/xrx/$IFD.conf"
	chmod 0600 "$R/etc/xrx/$IFD.conf"
}
# No interface key: the unit instance names it. Offloads that veth can
# change, so that restoring them is visible.
# The capture goes to the unit's StateDirectory=, on disk: writable under
# ProtectSystem=strict only because the unit says so.
PCAP=/var/lib/xrx/$IFD.pcap
# The pcap options travel from the config through the unit to the sink.
conf "accelerate = udp/5201" "sink = pcap:$PCAP,size=4M,files=2,snaplen=128" \
	"busy_poll = on" "[offload]" "gro = on" "gro_max_size = 32768"

# --- boot ----------------------------------------------------------------
# timeout: a runaway container is stopped (nspawn shuts it down on TERM).
timeout -k 10 240 systemd-nspawn --quiet -D "$R" --boot --machine=$MACHINE \
	--register=no --keep-unit --link-journal=no \
	--network-namespace-path=/run/netns/$NS_DUT \
	--capability=CAP_NET_ADMIN,CAP_BPF,CAP_PERFMON,CAP_IPC_LOCK \
	--system-call-filter=bpf \
	--bind="$WORK/bpf:/sys/fs/bpf" \
	--console=pipe </dev/null >"$OUT/console" 2>&1 &
NSPAWN=$!
# The container's PID 1: systemd, a child of nspawn (timeout's child).
leader() {
	local n p
	for n in $(ps -o pid= --ppid $NSPAWN); do
		for p in $(ps -o pid= --ppid $n); do
			[ "$(cat /proc/$p/comm 2>/dev/null)" = systemd ] &&
				{ echo $p; return 0; }
		done
	done
	return 1
}
stop_container() {
	kill -TERM $NSPAWN 2>/dev/null
	wait_for 30 eval '! kill -0 $NSPAWN'
	[ -n "${LEADER:-}" ] && kill -KILL $LEADER 2>/dev/null
	kill -KILL $NSPAWN 2>/dev/null
	wait $NSPAWN 2>/dev/null
}
at_exit stop_container
# Everything it needs is there (checked above): not booting is a failure.
if ! wait_for 30 leader; then
	sed 's/^/# /' "$OUT/console"
	check "systemd-nspawn boots a container (console above)" 1
	done_testing
	exit 1
fi
LEADER=$(leader)
C() { nsenter -t $LEADER -m -u -i -n -p -- "$@"; }
wait_for 60 eval 'C systemctl is-system-running 2>/dev/null | grep -qxE "running|degraded"'
state=$(C systemctl is-system-running 2>&1)
check "systemd is PID 1 in the container and booted ($state)" \
	$(echo "$state" | grep -qxE "running|degraded"; echo $?)
[ "$state" = degraded ] && C systemctl --failed --no-legend | sed 's/^/# failed: /'

prop() { C systemctl show -p "$1" --value "$UNIT"; }

# --- containers: the device binding masked ---------------------------------
check "the masked device.conf leaves no BindsTo= (the unit can start without udev)" \
	$([ -z "$(prop BindsTo)" ]; echo $?)
C rm /etc/systemd/system/xrxd@.service.d/device.conf
C systemctl daemon-reload
diag "unmasked: BindsTo=$(prop BindsTo)"
# (systemctl show quotes a name with a backslash, and doubles it.)
check "... which is the drop-in that binds it to the device where udev runs" \
	$(prop BindsTo | grep -q "sys-subsystem-net-devices-xrx.*x2d${IFD#xrx-}\.device"; echo $?)
C ln -s /dev/null /etc/systemd/system/xrxd@.service.d/device.conf
C systemctl daemon-reload
journal() { C journalctl -q -o cat -u "$UNIT" --no-pager; }
xctl() { C xrxctl "$@"; }
# ckill SIG PID: signal xrxd's main process inside the container; never a
# pid of 0 or 1 (MainPID is 0 when the unit is not running, and kill 0
# would signal this script's own process group).
ckill() { [ "${2:-0}" -gt 1 ] && C kill -"$1" "$2"; }
# stat_of GROUP NAME: xrxd's counter user.GROUP.NAME from xrxctl stats
# --json (xrxd refreshes them about once a second), GROUP "-" for one of
# the daemon's own (user.NAME); -1 if absent.
stat_of() {
	xctl stats --json "$IFD" 2>/dev/null | $PY -c '
import json, sys
u = json.load(sys.stdin)["user"]
print(u[sys.argv[2]] if sys.argv[1] == "-" else u[sys.argv[1]][sys.argv[2]])' "$1" "$2" 2>/dev/null || echo -1
}

# --- start ---------------------------------------------------------------
timeout 60 nsenter -t $LEADER -m -u -i -n -p -- systemctl start "$UNIT" 2>"$OUT/err"
rc=$?
check "systemctl start $UNIT: active only after READY=1" \
	$([ $rc = 0 ] && [ "$(prop ActiveState)" = active ]; echo $?)
if [ "$(prop ActiveState)" != active ]; then
	sed 's/^/# /' "$OUT/err"
	C journalctl -q -b -o cat --no-pager | tail -30 | sed 's/^/# journal: /'
	done_testing
	exit 1
fi
status=$(prop StatusText)
diag "StatusText: $status"
check "STATUS= text names the interface" $(echo "$status" | grep -qF "$IFD"; echo $?)
check "xrx_rx is attached to $IFD" $(in_dut ip -d link show $IFD | grep -q 'prog/xdp'; echo $?)
check "the offloads are applied (gro on)" \
	$(in_dut ethtool -k $IFD | grep -qx 'generic-receive-offload: on'; echo $?)
napis | sed 's/^/# napi: /'
check "busy_poll = on: every NAPI instance deferred (2, 200000 ns) by netlink inside the sandbox" \
	$([ -n "$(napis)" ] && ! napis | awk '$2 != 2 || $3 != 200000 { bad = 1 } END { exit !bad }'; echo $?)

# --- traffic into the pcap sink ------------------------------------------
# The accelerated datagrams never reach the stack, so this is one-way
# traffic from the project's own sender, paced so copy-mode AF_XDP keeps up.
mac=$(in_dut ip -br link show $IFD | awk '{ print $3 }')
SENT=2000
in_src "$BUILD/xrx-send" -i $IF_SRC --dmac "$mac" --udp --dport 5201 \
	--segs 20 --trains 100 --rate 10000 >"$OUT/send" 2>&1
rc=$?
pcap_count() { tcpdump -nr "/proc/$LEADER/root$PCAP" 'udp dst port 5201' 2>/dev/null | wc -l; }
# The sink writes at the end of each receive batch: wait for the last one.
wait_for 10 eval '[ "$(pcap_count)" -ge $SENT ]'
n=$(pcap_count)
wait_for 5 eval '[ "$(stat_of sink pkts_out)" = "$n" ]'
out=$(stat_of sink pkts_out)
check "xrx-send: $SENT UDP datagrams; all $n in $PCAP, as many as the sink wrote ($out)" \
	$([ $rc = 0 ] && [ "$n" = $SENT ] && [ "$out" = $SENT ]; echo $?)
# Idle now: every frame xrx_rx saw is counted somewhere.
wait_for 5 eval '[ "$(stat_of - unaccounted)" = 0 ]'
check "every frame accounted for: unaccounted $(stat_of - unaccounted)" \
	$([ "$(stat_of - unaccounted)" = 0 ]; echo $?)
if command -v tshark >/dev/null; then
	caps=$(tshark -r "/proc/$LEADER/root$PCAP" -T fields -e frame.cap_len 2>/dev/null | sort -u)
	check "snaplen=128 from the config: every record cut at 128 bytes ($caps)" \
		$([ "$caps" = 128 ]; echo $?)
else
	skip "snaplen=128 from the config" "tshark missing (scripts/deps.sh)"
fi

# --- a restart keeps the capture -------------------------------------------
# The newest file of the run before becomes PATH.1, whole; the journal
# says where the capture continues; PATH starts again with its header.
C systemctl restart "$UNIT" 2>"$OUT/err"
rc=$?
wait_for 30 eval '[ "$(prop ActiveState)" = active ]'
n1=$(tcpdump -nr "/proc/$LEADER/root$PCAP.1" 'udp dst port 5201' 2>/dev/null | wc -l)
journal | grep "earlier run" | sed 's/^/# /'
check "systemctl restart: the run before's $n1 records kept whole in $PCAP.1, the journal says so" \
	$([ $rc = 0 ] && [ "$n1" = $SENT ] &&
	  [ "$(stat -c %s "/proc/$LEADER/root$PCAP")" = 24 ] &&
	  journal | grep -q "pcap $PCAP held [0-9]* bytes of an earlier run: kept as $PCAP.1"; echo $?)
# This start is not one of those the start-limit tests below count.
C systemctl reset-failed "$UNIT" 2>/dev/null

# --- reload: a TUN sink, TCP through it ----------------------------------
pid1=$(prop MainPID)
conf "accelerate = tcp/5201" "sink = tun:$TUN" "[offload]" "gro = on" \
	"gro_max_size = 32768"
timeout 60 nsenter -t $LEADER -m -u -i -n -p -- systemctl reload "$UNIT" 2>"$OUT/err"
rc=$?
check "systemctl reload with a good config succeeds, same process" \
	$([ $rc = 0 ] && [ "$(prop MainPID)" = "$pid1" ]; echo $?)
# The device exists (TUNSETIFF) a moment before xrxd sets it up.
wait_for 10 eval 'in_dut ip link show $TUN | grep -q ",UP"'
check "the TUN sink created $TUN inside the unit's sandbox" \
	$(in_dut ip link show $TUN | grep -q ',UP'; echo $?)
in_dut sysctl -qw net.ipv4.conf.$TUN.rp_filter=0 2>/dev/null
bg_dut timeout 30 iperf3 -s -1 -p 5201 -J >"$OUT/iperf-s2" 2>&1
IPS=$!
at_exit kill $IPS
wait_for 10 eval 'in_dut ss -ltn | grep -q ":5201 "'
in_src timeout 30 iperf3 -c $IP4_DUT -p 5201 -t 2 >"$OUT/iperf-c2" 2>&1
rc=$?
wait $IPS
got=$($PY -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["end"]["sum_received"]["bytes"]))' \
	"$OUT/iperf-s2" 2>/dev/null || echo 0)
tail -4 "$OUT/iperf-c2" | sed 's/^/# /'
check "iperf3 TCP through the TUN sink: completed, $got bytes received" \
	$([ $rc = 0 ] && [ "$got" -gt 1000000 ]; echo $?)
wait_for 5 eval '[ "$(stat_of sink pkts_out)" -gt 100 ]'
out=$(stat_of sink pkts_out)
check "the sink injected iperf3's stream ($out packets, no errors)" \
	$([ "$out" -gt 100 ] && [ "$(stat_of sink errors)" = 0 ]; echo $?)

# --- reload with a bad config --------------------------------------------
cp "$R/etc/xrx/$IFD.conf" "$OUT/good.conf"
conf "accelerate = tcp/5201" "sink = nowhere"
timeout 60 nsenter -t $LEADER -m -u -i -n -p -- systemctl reload "$UNIT" 2>"$OUT/err"
rc=$?
sed 's/^/# /' "$OUT/err"
check "systemctl reload with a bad config fails" $([ $rc != 0 ]; echo $?)
check "... and xrxd runs on, untouched (same pid, active)" \
	$([ "$(prop MainPID)" = "$pid1" ] && [ "$(prop ActiveState)" = active ]; echo $?)
check "... the journal names the file, line and key" \
	$(journal | grep -q "$IFD.conf:2: sink = nowhere"; echo $?)

# A config that parses, but whose pcap sink the sandbox keeps read-only
# (ProtectSystem=strict): the reload must fail, not report success.
mkdir -p "$R/var/lib/xrx-test"
conf "accelerate = tcp/5201" "sink = pcap:/var/lib/xrx-test/x.pcap"
timeout 60 nsenter -t $LEADER -m -u -i -n -p -- systemctl reload "$UNIT" 2>"$OUT/err"
rc=$?
check "systemctl reload to a pcap path the sandbox keeps read-only: fails" $([ $rc != 0 ]; echo $?)
check "... xrxd runs on (same pid, active), still on its TUN sink" \
	$([ "$(prop MainPID)" = "$pid1" ] && [ "$(prop ActiveState)" = active ] &&
	  in_dut ip link show $TUN >/dev/null 2>&1; echo $?)
check "... the journal says why: read-only file system" \
	$(journal | grep -q "reload failed: .*sink = pcap:/var/lib/xrx-test/x.pcap, but xrxd cannot write in /var/lib/xrx-test: Read-only file system"; echo $?)
xctl status "$IFD" >"$OUT/status" 2>&1
sed -n 's/^\(  reload.*\)/# \1/p' "$OUT/status"
check "... and xrxctl status shows the failed reload and its reason" \
	$(grep -q "^  reload    FAILED at .*Read-only file system" "$OUT/status"; echo $?)
cp "$OUT/good.conf" "$R/etc/xrx/$IFD.conf"

# --- the watchdog --------------------------------------------------------
restarts() { prop NRestarts; }
n0=$(restarts)
ckill STOP "$pid1"
# 5 s watchdog, 2 s abort timeout, 1 s restart: well within 40 s.
wait_for 40 eval '[ "$(restarts)" -gt $n0 ] && [ "$(prop ActiveState)" = active ]'
pid2=$(prop MainPID)
check "SIGSTOP: the watchdog killed xrxd and systemd restarted it (pid $pid1 -> $pid2)" \
	$([ "$(restarts)" -gt "$n0" ] && [ "$pid2" != "$pid1" ] && [ "$(prop ActiveState)" = active ]; echo $?)
check "... the journal says the watchdog fired" \
	$(journal | grep -qi "watchdog timeout"; echo $?)
check "... ExecStopPost restored the NIC, and says the watchdog killed xrxd" \
	$(journal | grep -q "$IFD: the watchdog killed xrxd; restored the settings"; echo $?)

# --- kill -9 -------------------------------------------------------------
n0=$(restarts)
ckill KILL "$pid2"
wait_for 30 eval '[ "$(restarts)" -gt $n0 ] && [ "$(prop ActiveState)" = active ]'
pid3=$(prop MainPID)
check "kill -9: systemd restarted xrxd (pid $pid2 -> $pid3)" \
	$([ "$(restarts)" -gt "$n0" ] && [ "$pid3" != "$pid2" ] && [ "$(prop ActiveState)" = active ]; echo $?)
check "... the NIC was restored in between, by ExecStopPost" \
	$(journal | grep -q "$IFD: xrxd was killed by SIGKILL; restored the settings" &&
	  ! journal | grep -q "restored the settings a previous xrxd left"; echo $?)

# --- stop ----------------------------------------------------------------
timeout 60 nsenter -t $LEADER -m -u -i -n -p -- systemctl stop "$UNIT"
snapshot "$OUT/nic.after"
check "systemctl stop: inactive" $([ "$(prop ActiveState)" = inactive ]; echo $?)
ok "... the NIC is exactly as found (offloads, channels, link, no XDP)" \
	same "$OUT/nic.before" "$OUT/nic.after"
check "... ExecStopPost was silent after the clean stop" \
	$(! journal | grep -q "nothing to restore"; echo $?)

# --- the same interface, instance not escaped ----------------------------
# xrxd@xrx-d1 means the interface "xrx/d1": the unit must refuse to start
# and leave the NIC alone.
BAD="xrxd@$IFD.service"
timeout 60 nsenter -t $LEADER -m -u -i -n -p -- systemctl start "$BAD" 2>/dev/null
rc=$?
snapshot "$OUT/nic.unescaped"
check "an unescaped instance ($BAD) does not start and touches nothing" \
	$([ $rc != 0 ] && same "$OUT/nic.before" "$OUT/nic.unescaped"; echo $?)
check "... and xrxd's line says how to escape the name" \
	$(C journalctl -q -o cat -u "$BAD" --no-pager | grep -q "systemd-escape"; echo $?)
C systemctl reset-failed "$BAD" 2>/dev/null

# --- a missing config: xrxd says which and what to do ----------------------
mv "$R/etc/xrx/$IFD.conf" "$OUT/moved.conf"
timeout 60 nsenter -t $LEADER -m -u -i -n -p -- systemctl start "$UNIT" 2>/dev/null
rc=$?
check "no config: start fails with xrxd's own line naming the file, exit 2" \
	$([ $rc != 0 ] && [ "$(prop ExecMainStatus)" = 2 ] &&
	  journal | grep -q "/etc/xrx/$IFD.conf: cannot open: No such file or directory; create it"; echo $?)
mv "$OUT/moved.conf" "$R/etc/xrx/$IFD.conf"
C systemctl reset-failed "$UNIT"

# --- a failure Restart= retries ends at the start limit ----------------------
# Another xrxd holds the device's lock (run by hand, outside the unit):
# each start fails with exit 1, which Restart=on-failure retries.
check "the start limit: 5 starts in 60 s" \
	$([ "$(prop StartLimitIntervalUSec)" = 1min ] && [ "$(prop StartLimitBurst)" = 5 ]; echo $?)
# (The container has /tmp and /run of its own: the config goes in /etc.)
printf '%s\n' "interface = $IFD" "sink = null" >"$R/etc/xrx/stray.conf"
chmod 600 "$R/etc/xrx/stray.conf"
nsenter -t $LEADER -m -u -i -n -p -- xrxd --state-dir /run/xrx-stray -i "$IFD" -c /etc/xrx/stray.conf \
	2>"$OUT/stray.err" &
NSE=$!
at_exit kill -KILL $NSE
wait_xrxd $NSE grep -q "ready:" "$OUT/stray.err"
# nsenter forks to enter the PID namespace: xrxd is its child.
STRAY=$(ps -o pid= --ppid $NSE | tr -d ' ')
[ -n "$STRAY" ] || sed 's/^/# stray xrxd: /' "$OUT/stray.err"
at_exit kill -KILL $STRAY
n0=$(restarts)
C systemctl start --no-block "$UNIT"
limited() { journal | grep -q "Start request repeated too quickly"; }
wait_for 60 limited
wait_for 10 eval '[ "$(prop ActiveState)" = failed ]'
n1=$(restarts)
sleep 3		# three RestartSec= periods: another start would show by now
diag "start limit: $(prop ActiveState), $(prop Result), restarts $n0 -> $n1 -> $(restarts)"
check "a failure that Restart= retries: stopped at the start limit ($((n1 - n0)) restarts), not a loop" \
	$(limited && [ "$(prop ActiveState)" = failed ] && [ "$n1" -gt "$n0" ] &&
	  [ "$(restarts)" = "$n1" ]; echo $?)
check "... each attempt said why: the device's lock is held" \
	$(journal | grep -q "xrxd is already running on $IFD"; echo $?)
kill -TERM $STRAY
wait $NSE
rm -f "$R/etc/xrx/stray.conf"
C systemctl reset-failed "$UNIT"

# --- a permanent failure is not retried ----------------------------------
conf "sink = nowhere"
timeout 60 nsenter -t $LEADER -m -u -i -n -p -- systemctl start "$UNIT" 2>/dev/null
rc=$?
n0=$(restarts)
sleep 3		# three RestartSec= periods: a restart would show by now
check "a bad config: start fails, exit status 2, not restarted" \
	$([ $rc != 0 ] && [ "$(prop ExecMainStatus)" = 2 ] &&
	  [ "$(prop ActiveState)" = failed ] && [ "$(restarts)" = "$n0" ]; echo $?)
# xrxd exited by itself, having changed nothing: ExecStopPost says nothing.
check "... and ExecStopPost stays silent after it" \
	$(! journal | grep -q "nothing to restore"; echo $?)

# --- --check-config knows whose config a file in /etc/xrx is -----------------
printf '%s\n' "interface = eth9" "sink = null" >"$R/etc/xrx/$IFD.conf"
C xrxd -c "/etc/xrx/$IFD.conf" --check-config -q 2>"$OUT/err"
rc=$?
sed 's/^/# /' "$OUT/err"
check "--check-config -c /etc/xrx/$IFD.conf with interface = eth9: exit 2, names the instance" \
	$([ $rc = 2 ] && grep -qF "interface = eth9, but this file is the config of 'xrxd@$INST'" "$OUT/err"; echo $?)

# --- no bpffs: xrxd says so, exit 2, not retried --------------------------
# Only the container's mount namespace loses it. ReadWritePaths=-/sys/fs/bpf
# lets the service start, so the journal has xrxd's line, not 226/NAMESPACE.
cp "$OUT/good.conf" "$R/etc/xrx/$IFD.conf"
C systemctl reset-failed "$UNIT" 2>/dev/null
C umount /sys/fs/bpf
timeout 60 nsenter -t $LEADER -m -u -i -n -p -- systemctl start "$UNIT" 2>/dev/null
rc=$?
n0=$(restarts)
sleep 3
check "no bpffs: start fails with xrxd's own message, exit status 2, not restarted" \
	$([ $rc != 0 ] && [ "$(prop ExecMainStatus)" = 2 ] &&
	  [ "$(prop ActiveState)" = failed ] && [ "$(restarts)" = "$n0" ] &&
	  journal | grep -q "/sys/fs/bpf: not on a bpffs.*mount -t bpf bpf /sys/fs/bpf"; echo $?)

# --- the sandbox ---------------------------------------------------------
C systemd-analyze security --no-pager "$UNIT" >"$OUT/security" 2>&1
score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$OUT/security")
grep '✗' "$OUT/security" | sed 's/  */ /g; s/^/# /'
check "systemd-analyze security $UNIT: ${score:-?} <= 2.5" \
	$([ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 2.5) }'; echo $?)

journal | sed 's/^/# journal: /'
done_testing
