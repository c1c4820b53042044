#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrxctl as a user that is not root (nobody, setpriv), against a running
# xrxd whose pins are root's (/sys/fs/bpf/xrx is 0700; systemd mounts all
# of /sys/fs/bpf 0700).
#
# Proves: without the group, status and stats --prom (named or not) say
# "permission denied" with the fix and exit 1, never "no xrxd" and never
# xrx_up 0; xrxd opens its state directory to group xrx and keeps a copy
# of the counters there (0640, group xrx), so a member of the group
# reads status (with or without IFACE), stats --json and --prom like
# root, while rules (which only root's pins hold) says permission denied;
# --prom without an interface gives one xrx_up per running and per
# configured instance (1 for the running one, 0 for one configured that
# does not run, none for example.conf), as root and as the group member;
# once xrxd stops, the copy goes and a configured instance reads xrx_up 0
# for the member.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"

xrxd_need bpffs
command -v setpriv >/dev/null || skip_all "setpriv missing (package util-linux)"
xrxd_send_testbed xrxctl-user
chmod 0711 "$WORK"	# nobody runs $XRXCTL from it

# The group the package creates (debian/xrx.postinst); made here only if
# the machine has none, and removed again.
if ! getent group xrx >/dev/null; then
	groupadd --system xrx || skip_all "cannot create group xrx"
	at_exit groupdel xrx
fi
GID=$(getent group xrx | cut -d: -f3)

xrxd_up || { check "xrxd up" 1; done_testing; exit 1; }
redirected "traffic through xrxd"
stats_settled "$WORK/stats.json"

as_nobody() { in_dut setpriv --reuid=65534 --regid=65534 --clear-groups "$XRXCTL" --state-dir "$STATE" "$@"; }
as_member() { in_dut setpriv --reuid=65534 --regid=65534 --groups=$GID "$XRXCTL" --state-dir "$STATE" "$@"; }

# --- without the group ---------------------------------------------------------
as_nobody status $IF_DUT >"$WORK/out" 2>"$WORK/err"
rc=$?
sed 's/^/# /' "$WORK/out" "$WORK/err"
check "status as nobody: exit 1, permission denied with the fix, not 'no xrxd'" \
	$([ $rc = 1 ] && grep -q "permission denied.*group xrx" "$WORK/err" &&
	  ! grep -qi "no xrxd\|not running" "$WORK/out" "$WORK/err"; echo $?)
as_nobody stats --prom $IF_DUT >"$WORK/out" 2>"$WORK/err"
rc=$?
sed 's/^/# /' "$WORK/err"
check "stats --prom IF as nobody: exit 1, no xrx_up sample" \
	$([ $rc = 1 ] && grep -q "permission denied" "$WORK/err" && ! grep -q "^xrx_up" "$WORK/out"; echo $?)
as_nobody stats --prom >"$WORK/out" 2>"$WORK/err"
rc=$?
check "stats --prom as nobody: exit 1, no xrx_up sample" \
	$([ $rc = 1 ] && grep -q "permission denied" "$WORK/err" && ! grep -q "^xrx_up" "$WORK/out"; echo $?)

# --- in group xrx ---------------------------------------------------------------
COPY=$STATE/$IF_DUT.stats
check "xrxd keeps a copy of the counters: $COPY, 0640, group xrx, in a directory of group xrx" \
	$([ "$(stat -c '%a %G' "$COPY")" = "640 xrx" ] &&
	  [ "$(stat -c '%G' "$STATE")" = xrx ] && [ -n "$(find "$STATE" -maxdepth 0 -perm -g=rx)" ] &&
	  [ "$(stat -c '%a' "$SF")" = 600 ]; echo $?)
as_member status $IF_DUT >"$WORK/out" 2>"$WORK/err"
rc=$?
sed 's/^/# /' "$WORK/out" "$WORK/err"
check "status as a member of xrx: exit 0, xrxd running with its pid, state ok" \
	$([ $rc = 0 ] && grep -q "xrxd      running, pid $pid" "$WORK/out" &&
	  grep -q "state     ok" "$WORK/out"; echo $?)
as_member status >"$WORK/out" 2>"$WORK/err"
rc=$?
check "status without IFACE as a member: exit 0, the instance listed from the copies" \
	$([ $rc = 0 ] && grep -q "^$IF_DUT:" "$WORK/out" && grep -q "state     ok" "$WORK/out"; echo $?)
as_member rules $IF_DUT >"$WORK/out" 2>"$WORK/err"
rc=$?
sed 's/^/# /' "$WORK/err"
check "rules as a member: exit 1, permission denied (root's pins alone hold them), not 'no xrxd'" \
	$([ $rc = 1 ] && grep -q "permission denied.*run xrxctl rules as root" "$WORK/err" &&
	  ! grep -qi "no xrxd" "$WORK/err"; echo $?)
frames=$(jpath "$WORK/stats.json" user.engine.frames_in)
check "stats --json as a member: the counters root reads" \
	$(as_member stats $IF_DUT --json | jpath - user.engine.frames_in | grep -qx "[0-9]*" &&
	  [ "$(as_member stats $IF_DUT --json | jpath - kernel.redirect.packets)" -ge "$frames" ]; echo $?)

# Configured: this one, one that does not run, and the template.
mkdir "$WORK/etc"
cp "$WORK/xrx.conf" "$WORK/etc/$IF_DUT.conf"
cp "$WORK/xrx.conf" "$WORK/etc/xq$$.conf"
cp "$WORK/xrx.conf" "$WORK/etc/example.conf"
chmod 0755 "$WORK/etc"
# Only this test's two: other tests' xrxds share the pin root.
prom_ups() { grep -E "^xrx_up\{interface=\"($IF_DUT|xq$$)\"\}" "$1" | sort | tr '\n' ' '; }
want="xrx_up{interface=\"$IF_DUT\"} 1 xrx_up{interface=\"xq$$\"} 0 "
xrxctl --config-dir "$WORK/etc" stats --prom >"$WORK/prom.root"
rc=$?
diag "as root: $(prom_ups "$WORK/prom.root")"
check "stats --prom as root: one xrx_up per running and per configured instance" \
	$([ $rc = 0 ] && [ "$(prom_ups "$WORK/prom.root")" = "$want" ]; echo $?)
as_member --config-dir "$WORK/etc" stats --prom >"$WORK/prom.member" 2>"$WORK/err"
rc=$?
sed 's/^/# /' "$WORK/err"
diag "as a member: $(prom_ups "$WORK/prom.member")"
check "stats --prom as a member: the same xrx_up samples, and the engine counters" \
	$([ $rc = 0 ] && [ "$(prom_ups "$WORK/prom.member")" = "$want" ] &&
	  grep -q "^xrx_engine_frames_in_total{interface=\"$IF_DUT\"} [1-9]" "$WORK/prom.member"; echo $?)

kill -TERM $pid
wait $pid
check "SIGTERM: exit 0, and the copy is gone with the pins" $([ $? = 0 ] && [ ! -e "$COPY" ]; echo $?)
as_member --config-dir "$WORK/etc" stats --prom >"$WORK/prom.member" 2>"$WORK/err"
rc=$?
diag "as a member, xrxd stopped: $(prom_ups "$WORK/prom.member")"
check "stopped: the member reads xrx_up 0 for both configured instances" \
	$([ $rc = 0 ] && [ "$(prom_ups "$WORK/prom.member")" = "xrx_up{interface=\"$IF_DUT\"} 0 xrx_up{interface=\"xq$$\"} 0 " ]; echo $?)
done_testing
