#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# systemd/xrxd@.service: `systemd-analyze verify` finds nothing to say
# about it (systemd is not PID 1 here, so verify is all that can run), it
# carries the settings the daemon's contract depends on, and xrxd speaks
# the notify protocol that Type=notify and WatchdogSec= rely on: READY=1
# after the offloads are applied, WATCHDOG=1 at half WATCHDOG_USEC,
# RELOADING=1/READY=1 on SIGHUP, STOPPING=1 on SIGTERM.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"

UNIT=$TOP/systemd/xrxd@.service
WORK=$(mktemp -d /tmp/xrx-unit.XXXXXX)
at_exit rm -rf "$WORK"

if ! command -v systemd-analyze >/dev/null; then
	skip "systemd-analyze verify" "systemd-analyze not installed (package systemd)"
else
	# Install paths point at the build, so verify can check the commands.
	mkdir "$WORK/units" "$WORK/bad"
	sed -e "s#/usr/sbin/xrxd#$BUILD/xrxd#g" -e "s#/usr/sbin/xrxctl#$BUILD/xrxctl#g" \
		"$UNIT" >"$WORK/units/xrxd@.service"
	systemd-analyze verify "$WORK/units/xrxd@eth0.service" >"$WORK/verify" 2>&1
	rc=$?
	sed 's/^/# /' "$WORK/verify"
	# verify exits 0 on warnings: the output must be empty.
	check "systemd-analyze verify: no warnings, no errors" \
		$([ $rc = 0 ] && [ ! -s "$WORK/verify" ]; echo $?)

	# The same check must catch a mistake (a misspelt directive).
	sed 's/^Restart=on-failure/Restart=sometimes/' "$WORK/units/xrxd@.service" \
		>"$WORK/bad/xrxd@.service"
	systemd-analyze verify "$WORK/bad/xrxd@eth0.service" >"$WORK/verify" 2>&1
	check "systemd-analyze verify: a bad setting is reported (control)" \
		$(grep -q "restart specifier.*sometimes" "$WORK/verify"; echo $?)
fi

has() { grep -qxF -- "$1" "$UNIT"; }
ok "Type=notify" has "Type=notify"
# Two ExecReload= lines run in order: the check first, so a bad config
# fails `systemctl reload` before xrxd is signalled.
ok "ExecReload checks the config, then sends SIGHUP" eval \
	'[ "$(grep ^ExecReload= "$UNIT")" = "ExecReload=/usr/sbin/xrxd --interface %I --config /etc/xrx/%I.conf --check-config --quiet
ExecReload=/bin/kill -HUP \$MAINPID" ]'
ok "Restart=on-failure" has "Restart=on-failure"
ok "exit 2 (config, bpffs) is not retried" has "RestartPreventExitStatus=2"
ok "WatchdogSec set" grep -qE '^WatchdogSec=[1-9]' "$UNIT"
ok "ExecStart gets the unescaped name (%I)" \
	has "ExecStart=/usr/sbin/xrxd --interface %I --config /etc/xrx/%I.conf"
ok "ExecStopPost restores the NIC" has "ExecStopPost=/usr/sbin/xrxctl restore %I"
ok "the config is asserted by its unescaped name" has "AssertPathExists=/etc/xrx/%I.conf"
# A device unit's name is its escaped sysfs path: %i, never %I.
ok "the device dependency uses the escaped name (%i)" eval \
	'has BindsTo=sys-subsystem-net-devices-%i.device && has After=sys-subsystem-net-devices-%i.device'
# Enabled, the instance is wanted by the boot and by its device: when the
# interface is made again, its device unit starts xrxd (BindsTo= stopped it).
if command -v systemctl >/dev/null; then
	mkdir -p "$WORK/root/etc/systemd/system"
	cp "$UNIT" "$WORK/root/etc/systemd/system/"
	systemctl --root="$WORK/root" enable 'xrxd@op\x2db.service' >"$WORK/enable" 2>&1
	rc=$?
	sed 's/^/# /' "$WORK/enable"
	W=$WORK/root/etc/systemd/system
	check "systemctl enable xrxd@op\\x2db: wanted by multi-user.target and by its device" \
		$([ $rc = 0 ] && [ -L "$W/multi-user.target.wants/xrxd@op\x2db.service" ] &&
		  [ -L "$W/sys-subsystem-net-devices-op\x2db.device.wants/xrxd@op\x2db.service" ]; echo $?)
else
	skip "systemctl enable" "systemctl not installed (package systemd)"
fi
ok "no program or path gets the escaped name" \
	eval '! grep -E "^(Exec[A-Za-z]*|AssertPathExists)=.*%i" "$UNIT"'
ok "system calls: @system-service, bpf and perf_event_open" \
	has "SystemCallFilter=@system-service bpf perf_event_open"
ok "capabilities bounded to BPF, NET_ADMIN, NET_RAW, IPC_LOCK, PERFMON" \
	has "CapabilityBoundingSet=CAP_BPF CAP_NET_ADMIN CAP_NET_RAW CAP_IPC_LOCK CAP_PERFMON"
ok "ambient capabilities the same" \
	has "AmbientCapabilities=CAP_BPF CAP_NET_ADMIN CAP_NET_RAW CAP_IPC_LOCK CAP_PERFMON"
ok "no CAP_SYS_ADMIN" eval '! grep -v "^#" "$UNIT" | grep -q CAP_SYS_ADMIN'
ok "LimitMEMLOCK=infinity" has "LimitMEMLOCK=infinity"
ok "ProtectSystem=strict" has "ProtectSystem=strict"
ok "ReadWritePaths=-/sys/fs/bpf /run/xrx (bpffs optional: xrxd reports it)" \
	has "ReadWritePaths=-/sys/fs/bpf /run/xrx"
ok "address families: unix, netlink, xdp only" \
	has "RestrictAddressFamilies=AF_UNIX AF_NETLINK AF_XDP"
ok "NoNewPrivileges=yes" has "NoNewPrivileges=yes"
ok "needs the bpffs mount (sys-fs-bpf.mount)" has "RequiresMountsFor=/sys/fs/bpf"
ok "RuntimeDirectory=xrx, 0700, preserved" \
	eval 'has RuntimeDirectory=xrx && has RuntimeDirectoryMode=0700 && has RuntimeDirectoryPreserve=yes'

# --- the sandbox's exposure ------------------------------------------------
# The score systemd-analyze gives the unit (lower is safer); the same
# number test_systemd.sh reads from a running systemd.
if ! systemd-analyze security --help 2>/dev/null | grep -q -- --offline; then
	skip "systemd-analyze security <= 2.5" "this systemd-analyze has no --offline"
else
	systemd-analyze security --offline=true "$WORK/units/xrxd@.service" \
		>"$WORK/security" 2>&1
	score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$WORK/security")
	diag "exposure $score"
	check "systemd-analyze security: exposure ${score:-?} <= 2.5" \
		$([ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 2.5) }'; echo $?)
fi

# --- what ExecReload= and ExecStopPost= rely on ----------------------------
if [ -x "$BUILD/xrxd" ] && [ -x "$BUILD/xrxctl" ]; then
	printf 'sink = null\n' >"$WORK/op-b.conf"
	chmod 600 "$WORK/op-b.conf"
	out=$("$BUILD/xrxd" -i op-b -c "$WORK/op-b.conf" --check-config --quiet 2>&1)
	check "--check-config --quiet: a good config, exit 0 and no output" \
		$([ $? = 0 ] && [ -z "$out" ]; echo $?)
	out=$("$BUILD/xrxd" -i op-b -c "$WORK/op-b.conf" --check-config 2>&1)
	check "--check-config: the interface comes from -i when the file has none" \
		$(echo "$out" | grep -qx "interface = op-b"; echo $?)
	printf 'sink = nowhere\n' >"$WORK/op-b.conf"
	out=$("$BUILD/xrxd" -i op-b -c "$WORK/op-b.conf" --check-config --quiet 2>&1)
	rc=$?
	diag "$out"
	check "--check-config --quiet: a bad config, exit 2 and one line naming it" \
		$([ $rc = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] &&
		  echo "$out" | grep -q "op-b.conf:1: sink = nowhere"; echo $?)
	# xrxd@op-b (unescaped) hands over "op/b": say how to escape it.
	out=$("$BUILD/xrxd" -i op/b --check-config 2>&1)
	check "an instance with an unescaped '-': exit 2, hint names systemd-escape" \
		$([ $? = 2 ] && echo "$out" | grep -q 'systemd-escape'; echo $?)
	# Exit 2 for no bpffs: the unit's RestartPreventExitStatus=2 relies on it.
	if [ "$(id -u)" = 0 ]; then
		mkdir -p "$WORK/notbpf"
		printf 'sink = null\n' >"$WORK/op-b.conf"
		out=$("$BUILD/xrxd" -i op-b -c "$WORK/op-b.conf" --state-dir "$WORK/st" \
			--pin-root "$WORK/notbpf/xrx" 2>&1)
		rc=$?
		diag "$out"
		check "no bpffs under the pin root: exit 2 (not retried), says mount bpffs" \
			$([ $rc = 2 ] && echo "$out" | grep -q "mount -t bpf"; echo $?)
	fi
	# ExecStopPost= after a clean stop: nothing on record, nothing said.
	out=$(SERVICE_RESULT=success EXIT_CODE=exited EXIT_STATUS=0 \
		"$BUILD/xrxctl" --state-dir "$WORK/st" restore op-b 2>&1)
	check "restore after a clean stop: exit 0, silent" \
		$([ $? = 0 ] && [ -z "$out" ]; echo $?)
	out=$(SERVICE_RESULT=watchdog EXIT_CODE=killed EXIT_STATUS=ABRT \
		"$BUILD/xrxctl" --state-dir "$WORK/st" restore op-b 2>&1)
	check "restore after a watchdog kill: exit 0, says nothing is on record" \
		$([ $? = 0 ] && echo "$out" | grep -q "nothing to restore"; echo $?)
else
	skip "ExecReload/ExecStopPost behaviour" "$BUILD/xrxd or $BUILD/xrxctl not built"
fi

# --- the notify protocol ---------------------------------------------------
if [ "$(id -u)" != 0 ] || [ ! -x "$BUILD/xrxd" ]; then
	skip "sd_notify protocol" "needs root and $BUILD/xrxd"
	done_testing
	exit
fi
NS=xrx-unit-$$
ip netns add $NS || { echo "not ok - netns"; exit 1; }
at_exit ip netns del $NS
cp "$BUILD/xrxd" "$WORK/xrxd"
printf 'interface = lo\n' >"$WORK/lo.conf"

# A bounded listener: every datagram as one line, for at most 30 s.
notify_listen 30

NOTIFY_SOCKET=$WORK/notify.sock WATCHDOG_USEC=400000 \
	nsenter --net=/run/netns/$NS "$WORK/xrxd" --state-dir "$WORK/state" \
	-c "$WORK/lo.conf" 2>"$WORK/xrxd.err" &
pid=$!
at_exit kill -KILL $pid
count() { grep -cx "$1" "$WORK/notify.log" 2>/dev/null; }
wait_for 10 grep -qx READY=1 "$WORK/notify.log"
check "READY=1 once the offloads are applied" $([ "$(count READY=1)" -ge 1 ]; echo $?)
check "STATUS= names the interface" $(grep -q '^STATUS=.*lo' "$WORK/notify.log"; echo $?)
wait_for 5 test "$(count WATCHDOG=1)" -ge 3
check "WATCHDOG=1 keeps coming (every WATCHDOG_USEC/2)" $([ "$(count WATCHDOG=1)" -ge 3 ]; echo $?)
kill -HUP $pid
wait_for 5 grep -qx RELOADING=1 "$WORK/notify.log"
wait_for 5 test "$(count READY=1)" -ge 2
check "SIGHUP: RELOADING=1 then READY=1" \
	$([ "$(count RELOADING=1)" = 1 ] && [ "$(count READY=1)" = 2 ]; echo $?)
kill -TERM $pid
wait $pid
rc=$?
wait_for 5 grep -qx STOPPING=1 "$WORK/notify.log"
check "SIGTERM: STOPPING=1 and exit 0" $([ $rc = 0 ] && [ "$(count STOPPING=1)" = 1 ]; echo $?)
check "SIGTERM: state file gone" $([ ! -e "$WORK/state/lo.state" ]; echo $?)
sed 's/^/# /' "$WORK/xrxd.err"

done_testing
