#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Least privilege: xrxd trusts its config, its state file and its pin
# directories only when nobody but root could have written them. Each of
# a symlinked or world-writable config file, a world-writable config
# directory, a symlinked, world-writable or foreign-owned pin root or pin
# directory, and a symlinked or world-writable state file or state
# directory is refused with one line naming the path and the fix — and
# the NIC, the pins and the state are left as they were.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs

testbed_up || { echo "not ok 1 - testbed"; exit 1; }
xrxd_work priv
ROOT=/sys/fs/bpf/xrx-priv-$$
at_exit rm -rf "$ROOT"
snapshot "$WORK/orig"

cat >"$WORK/xrx.conf" <<EOF
interface = $IF_DUT
accelerate = tcp/5201
[offload]
gro = on
EOF
chmod 0644 "$WORK/xrx.conf"

# try NAME RC PATTERN CONF [ARGS]: xrxd refuses with exit RC and a line
# matching PATTERN; the NIC is untouched, no pins, and the state file, if
# there is one, not touched either.
try() {
	local name=$1 want=$2 pat=$3 conf=$4
	shift 4
	ls -l --time-style=+%s.%N "$SF" >"$WORK/sf.before" 2>&1
	nsenter --net=/run/netns/$NS_DUT "$XRXD" --state-dir "$STATE" --pin-root "$ROOT" -c "$conf" "$@" \
		2>"$WORK/err" &
	local p=$!
	at_exit kill -KILL $p
	timeout 20 tail --pid=$p -f /dev/null
	wait $p
	local rc=$?
	diag "$(head -3 "$WORK/err")"
	snapshot "$WORK/now"
	check "$name: exit $want, names the path and the fix" \
		$([ $rc = "$want" ] && grep -q -- "$pat" "$WORK/err"; echo $?)
	ls -l --time-style=+%s.%N "$SF" >"$WORK/sf.after" 2>&1
	ok "$name: NIC untouched, no pins, state file as it was" \
		eval 'same "$WORK/orig" "$WORK/now" && [ -z "$(prog_id)" ] &&
		  [ ! -e "$ROOT/$IF_DUT/xrx_rx" ] && same "$WORK/sf.before" "$WORK/sf.after"'
}

# --- the config --------------------------------------------------------------
ln -s "$WORK/xrx.conf" "$WORK/link.conf"
try "symlinked config" 2 "$WORK/link.conf: is a symlink.*name the file itself" "$WORK/link.conf"
cp "$WORK/xrx.conf" "$WORK/ww.conf"
chmod 0666 "$WORK/ww.conf"
try "world-writable config" 2 "$WORK/ww.conf: refused: writable by others.*chmod go-w" "$WORK/ww.conf"
cp "$WORK/xrx.conf" "$WORK/gw.conf"
chmod 0664 "$WORK/gw.conf"
try "group-writable config" 2 "$WORK/gw.conf: refused: writable by others" "$WORK/gw.conf"
mkdir -m 0777 "$WORK/open"
chmod 0777 "$WORK/open"
cp "$WORK/xrx.conf" "$WORK/open/xrx.conf"
try "config in a world-writable directory" 2 \
	"$WORK/open: the config file's directory is writable by everyone.*chmod o-w" "$WORK/open/xrx.conf"
in_dut "$XRXD" -c "$WORK/ww.conf" --check-config >/dev/null 2>"$WORK/err"
check "--check-config refuses a world-writable config too" \
	$([ $? = 2 ] && grep -q "refused: writable by others" "$WORK/err"; echo $?)

# --- the pin root and the pin directory -------------------------------------
mkdir -p "$WORK/notbpf"
try "pin root not on bpffs" 2 "$WORK/notbpf: not on a bpffs.*mount -t bpf bpf /sys/fs/bpf" \
	"$WORK/xrx.conf" --pin-root "$WORK/notbpf"
try "pin root that does not exist, parent not bpffs" 2 "$WORK/notbpf: not on a bpffs" \
	"$WORK/xrx.conf" --pin-root "$WORK/notbpf/xrx"
try "pin root whose parent does not exist" 2 "$WORK/gone/deeper/xrx: cannot use it as the pin root.*No such file" \
	"$WORK/xrx.conf" --pin-root "$WORK/gone/deeper/xrx"
mkdir -m 0700 /sys/fs/bpf/xrx-priv-real-$$
at_exit rm -rf /sys/fs/bpf/xrx-priv-real-$$
ln -s /sys/fs/bpf/xrx-priv-real-$$ "$ROOT"
try "symlinked pin root" 2 "$ROOT: refused as a pin directory: it is a symlink" "$WORK/xrx.conf"
rm -f "$ROOT"
mkdir -m 0777 "$ROOT"
chmod 0777 "$ROOT"
try "world-writable pin root" 2 "$ROOT: refused as a pin directory: it is a directory, uid 0, mode 0777.*remove it" "$WORK/xrx.conf"
chmod 0700 "$ROOT"
mkdir -m 0733 "$ROOT/$IF_DUT"
chmod 0733 "$ROOT/$IF_DUT"
try "world-writable pin directory" 2 "$ROOT/$IF_DUT: refused as a pin directory.*mode 0733" "$WORK/xrx.conf"
chmod 0700 "$ROOT/$IF_DUT"
chown 65534 "$ROOT/$IF_DUT"
try "pin directory owned by another user" 2 "$ROOT/$IF_DUT: refused as a pin directory.*uid 65534" "$WORK/xrx.conf"
rm -rf "$ROOT/$IF_DUT"

# --- the state file and directory -------------------------------------------
mkdir -m 0700 "$STATE"
printf 'xrx-state 1\n' >"$WORK/elsewhere.state"
ln -s "$WORK/elsewhere.state" "$SF"
try "symlinked state file" 1 "$SF: is a symlink.*delete it" "$WORK/xrx.conf"
rm -f "$SF"
chmod 0777 "$STATE"
try "world-writable state directory" 1 "$STATE.*closed to others.*chmod 0700" "$WORK/xrx.conf"
chmod 0700 "$STATE"
xrxctl restore $IF_DUT >/dev/null 2>&1
printf 'xrx-state 1\n' >"$SF"
chmod 0666 "$SF"
try "world-writable state file" 1 "$SF: refused: .*writable only by it.*delete it" "$WORK/xrx.conf"
xrxctl restore $IF_DUT 2>"$WORK/err"
rc=$?
check "xrxctl restore refuses the world-writable state file too (exit 1, keeps it)" \
	$([ $rc = 1 ] && grep -q "$SF: refused" "$WORK/err" && [ -e "$SF" ]; echo $?)
rm -f "$SF"

# --- and all in order: it runs -----------------------------------------------
# nsenter execs xrxd in place: $! is xrxd.
nsenter --net=/run/netns/$NS_DUT "$XRXD" --state-dir "$STATE" --pin-root "$ROOT" -c "$WORK/xrx.conf" 2>"$WORK/err" &
pid=$!
at_exit kill -KILL $pid
wait_for 15 test -e "$ROOT/$IF_DUT/xrx_ustats"
check "trusted config, state and pin root: xrxd runs, pins 0700" \
	$(kill -0 $pid && [ "$(stat -c %a "$ROOT/$IF_DUT")" = 700 ]; echo $?)
kill -TERM $pid
wait $pid
rc=$?
snapshot "$WORK/now"
sed 's/^/# /' "$WORK/err"
check "then SIGTERM: exit 0" $([ $rc = 0 ]; echo $?)
ok "then SIGTERM: NIC as before" same "$WORK/orig" "$WORK/now"

done_testing
