#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# systemd/xrxd@.service and its drop-in xrxd@.service.d/device.conf:
# `systemd-analyze verify` finds nothing to say about them (systemd is not
# PID 1 here, so verify is all that can run), they carry the settings the
# daemon's contract depends on, and xrxd speaks the notify protocol that
# Type=notify and WatchdogSec= rely on: READY=1 after the offloads are
# applied, WATCHDOG=1 at half WATCHDOG_USEC, RELOADING=1/READY=1 on SIGHUP
# (sent by ExecReload='s xrxctl reload, which exits with the outcome),
# STOPPING=1 on SIGTERM; and it makes no perf_event_open() call, which the
# unit's system call filter does not allow.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"

UNIT=$TOP/systemd/xrxd@.service
DROPIN=$TOP/systemd/xrxd@.service.d/device.conf
WORK=$(mktemp -d /tmp/xrx-unit.XXXXXX)
at_exit rm -rf "$WORK"

if ! command -v systemd-analyze >/dev/null; then
	skip "systemd-analyze verify" "systemd-analyze not installed (package systemd)"
else
	# Install paths point at the build, so verify can check the commands.
	mkdir "$WORK/units" "$WORK/bad"
	sed -e "s#/usr/sbin/xrxd#$BUILD/xrxd#g" -e "s#/usr/sbin/xrxctl#$BUILD/xrxctl#g" \
		"$UNIT" >"$WORK/units/xrxd@.service"
	cp -r "$UNIT.d" "$WORK/units/"
	# man: references are checked against the pages in the tree.
	mkdir -p "$WORK/man/man5" "$WORK/man/man8"
	cp "$TOP"/man/*.5 "$WORK/man/man5/"
	cp "$TOP"/man/*.8 "$WORK/man/man8/"
	MANPATH=$WORK/man systemd-analyze verify "$WORK/units/xrxd@eth0.service" >"$WORK/verify" 2>&1
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
# xrxctl reload waits for xrxd's outcome: `systemctl reload` fails when
# the new config did not take effect, not only when it does not parse.
ok "ExecReload is xrxctl reload, alone" eval \
	'[ "$(grep ^ExecReload= "$UNIT")" = "ExecReload=/usr/sbin/xrxctl reload %I" ]'
ok "Restart=on-failure" has "Restart=on-failure"
ok "exit 2 (config, bpffs, no interface, ...) is not retried" has "RestartPreventExitStatus=2"
# What Restart= retries must not loop for ever: at most 5 starts a minute.
ok "a start limit: StartLimitIntervalSec=60s, StartLimitBurst=5" \
	eval 'has StartLimitIntervalSec=60s && has StartLimitBurst=5'
# Each Documentation= target is a man page in the tree (a packager's gzip
# cannot break man:, as it broke file:///usr/share/doc/xrx/xrx.conf.md).
doc=$(sed -n 's/^Documentation=//p' "$UNIT")
docs_ok=0
for d in $doc; do
	case "$d" in
	man:*) n=${d#man:}; [ -f "$TOP/man/${n%(*}.$(echo "$n" | tr -dc 0-9)" ] || docs_ok=1 ;;
	*) docs_ok=1 ;;
	esac
done
check "Documentation= names only man pages the tree has ($doc)" \
	$([ -n "$doc" ] && [ $docs_ok = 0 ]; echo $?)
ok "WatchdogSec set" grep -qE '^WatchdogSec=[1-9]' "$UNIT"
ok "ExecStart gets the unescaped name (%I)" \
	has "ExecStart=/usr/sbin/xrxd --interface %I --config /etc/xrx/%I.conf"
ok "ExecStopPost restores the NIC" has "ExecStopPost=/usr/sbin/xrxctl restore %I"
# xrxd names a missing config and its fix; an assertion would hide that.
ok "no Assert*= (xrxd reports a missing config itself)" eval '! grep -q "^Assert" "$UNIT"'
# A device unit's name is its escaped sysfs path: %i, never %I. The
# binding lives in a drop-in of its own, so that a container without udev
# can mask it (docs/xrxd.md) instead of copying the unit.
dropin_has() { grep -qxF -- "$1" "$DROPIN"; }
ok "the device dependency, in device.conf, uses the escaped name (%i)" eval \
	'dropin_has BindsTo=sys-subsystem-net-devices-%i.device &&
	 dropin_has After=sys-subsystem-net-devices-%i.device &&
	 ! grep -v "^#" "$UNIT" | grep -v "^WantedBy=" | grep -q sys-subsystem-net-devices'
# Enabled, the instance is wanted by the boot and by its device: when the
# interface is made again, its device unit starts xrxd (BindsTo= stopped it).
if command -v systemctl >/dev/null; then
	mkdir -p "$WORK/root/etc/systemd/system"
	cp "$UNIT" "$WORK/root/etc/systemd/system/"
	cp -r "$UNIT.d" "$WORK/root/etc/systemd/system/"
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
# perf_event_open() is in @debug, which the deny list removes: allowing it
# on the line before would be a promise the filter does not keep.
ok "system calls: @system-service and bpf; @debug (perf_event_open) denied" \
	eval 'has "SystemCallFilter=@system-service bpf" &&
	      grep -q "^SystemCallFilter=~.*@debug" "$UNIT" &&
	      ! grep -v "^#" "$UNIT" | grep -q perf_event_open'
ok "capabilities bounded to BPF, NET_ADMIN, NET_RAW, IPC_LOCK, PERFMON, CHOWN (group xrx)" \
	has "CapabilityBoundingSet=CAP_BPF CAP_NET_ADMIN CAP_NET_RAW CAP_IPC_LOCK CAP_PERFMON CAP_CHOWN"
ok "ambient capabilities the same" \
	has "AmbientCapabilities=CAP_BPF CAP_NET_ADMIN CAP_NET_RAW CAP_IPC_LOCK CAP_PERFMON CAP_CHOWN"
ok "no CAP_SYS_ADMIN" eval '! grep -v "^#" "$UNIT" | grep -q CAP_SYS_ADMIN'
ok "LimitMEMLOCK=infinity" has "LimitMEMLOCK=infinity"
ok "ProtectSystem=strict" has "ProtectSystem=strict"
ok "ReadWritePaths=-/sys/fs/bpf /run/xrx (bpffs optional: xrxd reports it)" \
	has "ReadWritePaths=-/sys/fs/bpf /run/xrx"
ok "StateDirectory=xrx, 0700: captures on disk in /var/lib/xrx" \
	eval 'has StateDirectory=xrx && has StateDirectoryMode=0700'
# The README's Deploying commands: the package from where make deb puts it
# (DEBDIR), and, for a container, the drop-in's mask as this unit file's
# comment gives it, among the commands rather than after them.
deploy=$(awk '/^## Deploying/ { on = 1; next } on && /^    / { print; next } on && NF { exit }' "$TOP/README.md")
debdir=$(sed -n 's/^DEBDIR ?= $(BUILD)\//build\//p' "$TOP/Makefile")
mask=$(sed -n 's/^#   \(ln -s \/dev\/null .*device.conf\)$/\1/p' "$UNIT")
check "README deploys: apt install ./$debdir/xrx_*.deb, as make deb puts it" \
	$([ -n "$debdir" ] && echo "$deploy" | grep -qF "apt install ./$debdir/xrx_*.deb"; echo $?)
check "README deploys: the container's mask of device.conf is among the commands" \
	$([ -n "$mask" ] && echo "$deploy" | grep -qF "$mask"; echo $?)
# Every capture in the shipped recipes goes to that directory, on disk,
# not to /run (RAM, queues x size x files of it): the example config,
# the README, xrx.conf.md, xrxd.md and the man pages.
recipes=$(grep -ohE "(sink|tee) = pcap:/[^] ,\`;]+" "$TOP/etc/xrx/example.conf" \
	"$TOP/README.md" "$TOP"/docs/*.md "$TOP"/man/*.[58] | grep -v "pcap:/ABS/")
elsewhere=$(echo "$recipes" | grep -v "pcap:/var/lib/$(sed -n 's/^StateDirectory=//p' "$UNIT")/")
[ -z "$elsewhere" ] || diag "elsewhere: $(echo $elsewhere)"
check "the recipes' captures ($(echo "$recipes" | wc -l)) are all in the unit's StateDirectory" \
	$([ -n "$recipes" ] && [ -z "$elsewhere" ]; echo $?)
ok "address families: unix, netlink, xdp only" \
	has "RestrictAddressFamilies=AF_UNIX AF_NETLINK AF_XDP"
ok "NoNewPrivileges=yes" has "NoNewPrivileges=yes"
ok "needs the bpffs mount (sys-fs-bpf.mount)" has "RequiresMountsFor=/sys/fs/bpf"
ok "RuntimeDirectory=xrx, 0750 (xrxd gives it to group xrx), preserved" \
	eval 'has RuntimeDirectory=xrx && has RuntimeDirectoryMode=0750 && has RuntimeDirectoryPreserve=yes'

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
	# --check-config of an instance's config (/etc/xrx/NAME.conf) checks
	# a capture's directory against the unit's sandbox, its drop-ins
	# included, not against what root may write outside it. Run in a
	# mount namespace of its own, with /etc/xrx, /etc/systemd/system and
	# /mnt empty, so nothing of this machine's is read or changed.
	if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
		I=xt$$
		[ -d /etc/xrx ] || { mkdir /etc/xrx && at_exit rmdir /etc/xrx; }
		# in_ns TEE [DROPIN_TEXT [DROPIN_DIR [ARGS]]]: xrxd's output, then "rc=N"
		in_ns() {
			unshare -m --propagation private bash -c '
				for d in /etc/xrx /etc/systemd/system /mnt; do
					mount -t tmpfs -o mode=0755 xrx-test "$d" || exit 9
				done
				mkdir /mnt/cap
				printf "sink = tun:xrx0\ntee = %s\n" "$2" >/etc/xrx/$1.conf
				chmod 600 /etc/xrx/$1.conf
				cp /etc/xrx/$1.conf /mnt/copy.conf
				if [ -n "$3" ]; then
					mkdir -p "/etc/systemd/system/$4"
					printf "[Service]\n%s\n" "$3" >"/etc/systemd/system/$4/cap.conf"
				fi
				"$5" ${6:-$1} --check-config --quiet ${7:+-c /mnt/copy.conf}
				echo "rc=$?"' _ "$I" "$1" "${2-}" "${3-}" "$BUILD/xrxd" "${4-}" "${5-}" 2>&1
		}
		out=$(in_ns pcap:/mnt/cap/x.pcap)
		diag "$out"
		check "--check-config $I: a tee outside the unit's writable paths, exit 2, says which are" \
			$(echo "$out" | grep -q "^rc=2" &&
			  echo "$out" | grep -q "xrxd@$I cannot write in /mnt/cap: .*only /run/xrx, /var/lib/xrx, /sys/fs/bpf writable.*ReadWritePaths="; echo $?)
		out=$(in_ns pcap:/mnt/cap/x.pcap "" "" "-i $I" copy)
		check "the same config under another name, not the unit's: checked for xrxd's own rights, exit 0" \
			$(echo "$out" | grep -qx "rc=0"; echo $?)
		out=$(in_ns pcap:/mnt/cap/x.pcap "ReadWritePaths=-/mnt/cap" xrxd@.service.d)
		check "a drop-in for xrxd@.service that adds the directory: exit 0" \
			$(echo "$out" | grep -qx "rc=0"; echo $?)
		out=$(in_ns pcap:/mnt/cap/x.pcap "ReadWritePaths=/mnt" "xrxd@$I.service.d")
		check "a drop-in for xrxd@$I that adds a directory above it: exit 0" \
			$(echo "$out" | grep -qx "rc=0"; echo $?)
		out=$(in_ns pcap:/mnt/cap/x.pcap "ReadWritePaths=/mnt/cap" "xrxd@other.service.d")
		check "a drop-in for another instance does not count: exit 2" \
			$(echo "$out" | grep -q "^rc=2"; echo $?)
		out=$(in_ns pcap:/var/lib/xrx/$I.pcap,size=64M,files=4)
		check "a tee in /var/lib/xrx (StateDirectory=, made at the start): exit 0" \
			$(echo "$out" | grep -qx "rc=0"; echo $?)
		out=$(in_ns pcap:/tmp/x.pcap)
		check "a tee in /tmp, the unit's own (PrivateTmp=): exit 2, says the capture would be lost" \
			$(echo "$out" | grep -q "^rc=2" && echo "$out" | grep -q "PrivateTmp=yes"; echo $?)
	else
		skip "--check-config against the unit's sandbox" "needs root and unshare -m"
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
	# xrxd that exited by itself, even with a failure (a start refused
	# with exit 2), had put everything back: nothing to say either.
	out=$(SERVICE_RESULT=exit-code EXIT_CODE=exited EXIT_STATUS=2 \
		"$BUILD/xrxctl" --state-dir "$WORK/st" restore op-b 2>&1)
	check "restore after xrxd exited 2 by itself: exit 0, silent" \
		$([ $? = 0 ] && [ -z "$out" ]; echo $?)
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

# A bounded listener: every datagram as one line, for at most 60 s.
notify_listen 600

# Under strace when there is one: the unit's filter denies
# perf_event_open(), so xrxd must never call it (libbpf would only for
# kprobes, uprobes, tracepoints, perf buffers and the syscall-wrapper
# probe of a program that uses LINUX_HAS_SYSCALL_WRAPPER).
TRACE=
if command -v strace >/dev/null; then
	TRACE="strace -f -qq -e trace=perf_event_open,bpf -o $WORK/strace.log"
fi
NOTIFY_SOCKET=$WORK/notify.sock WATCHDOG_USEC=400000 \
	nsenter --net=/run/netns/$NS $TRACE "$WORK/xrxd" --state-dir "$WORK/state" \
	-c "$WORK/lo.conf" 2>"$WORK/xrxd.err" &
tpid=$!
at_exit kill -KILL $tpid
count() { grep -cx "$1" "$WORK/notify.log" 2>/dev/null; }
wait_xrxd $tpid grep -qx READY=1 "$WORK/notify.log"
# xrxd's pid: the one in its instance lock (strace is $! when tracing).
LOCK=/run/xrx/net$(stat -L -c %i /run/netns/$NS)-1.lock
pid=$(cut -d' ' -f1 "$LOCK" 2>/dev/null)
at_exit kill -KILL $pid
diag "xrxd pid $pid${TRACE:+ (under strace)}"
check "READY=1 once the offloads are applied" $([ "$(count READY=1)" -ge 1 ]; echo $?)
check "STATUS= names the interface" $(grep -q '^STATUS=.*lo' "$WORK/notify.log"; echo $?)
wait_for 5 test "$(count WATCHDOG=1)" -ge 3
check "WATCHDOG=1 keeps coming (every WATCHDOG_USEC/2)" $([ "$(count WATCHDOG=1)" -ge 3 ]; echo $?)
# ExecReload=: xrxctl reload sends SIGHUP and waits for the outcome.
nsenter --net=/run/netns/$NS "$BUILD/xrxctl" --state-dir "$WORK/state" reload lo \
	>"$WORK/reload.out" 2>&1
rc=$?
sed 's/^/# /' "$WORK/reload.out"
check "xrxctl reload: exit 0; RELOADING=1 then READY=1 came before it returned" \
	$([ $rc = 0 ] && [ "$(count RELOADING=1)" = 1 ] && [ "$(count READY=1)" = 2 ]; echo $?)
# A reload that fails still ends with READY=1 (systemd leaves "reloading")
# while xrxctl, and so `systemctl reload`, fails.
printf 'interface = lo\nsink = pcap:%s/nowhere/x.pcap\n' "$WORK" >"$WORK/lo.conf"
nsenter --net=/run/netns/$NS "$BUILD/xrxctl" --state-dir "$WORK/state" reload lo \
	>"$WORK/reload.out" 2>&1
rc=$?
sed 's/^/# /' "$WORK/reload.out"
check "a reload that cannot take effect: xrxctl exit 1 with the reason; READY=1 all the same" \
	$([ $rc = 1 ] && grep -q "directory $WORK/nowhere does not exist" "$WORK/reload.out" &&
	  [ "$(count RELOADING=1)" = 2 ] && [ "$(count READY=1)" = 3 ]; echo $?)
kill -TERM $pid
wait_for 10 eval '! kill -0 $pid 2>/dev/null'
wait $tpid
rc=$?
wait_for 5 grep -qx STOPPING=1 "$WORK/notify.log"
check "SIGTERM: STOPPING=1 and exit 0" $([ $rc = 0 ] && [ "$(count STOPPING=1)" = 1 ]; echo $?)
check "SIGTERM: state file gone" $([ ! -e "$WORK/state/lo.state" ]; echo $?)
sed 's/^/# /' "$WORK/xrxd.err"
if [ -n "$TRACE" ]; then
	# Its bpf() calls show that strace saw xrxd's system calls at all.
	calls=$(grep -c perf_event_open "$WORK/strace.log")
	bpfs=$(grep -c '^[0-9]* *bpf(' "$WORK/strace.log")
	check "start, reloads, stop: $bpfs bpf() calls and no perf_event_open() (the unit's filter denies it)" \
		$([ "$bpfs" -gt 0 ] && [ "$calls" = 0 ]; echo $?)
else
	skip "no perf_event_open() call" "strace missing (scripts/deps.sh)"
fi

done_testing
