#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The kernel's GRO as the oracle for xrx's: send each crafted train over a
veth into a receiver with GRO on, capture what GRO delivered, run the same
train through xrx-replay, and compare per flow and sequence number.

    gro_oracle.py --src-ns NS --src-if IF --dut-ns NS --dut-if IF \\
                  --fixtures DIR --replay BIN --work DIR [--runs N] [--retries N]

The testbed (namespaces, veth, offloads, threaded NAPI pinned to CPU 0)
is the caller's; this script only sends, captures and compares. It prints
one line per train, "PASS NAME RULE", "FAIL NAME RULE" or "SKIP NAME
RULE: WHY", each followed by "DIAG ..." lines, and ends with "DIAG" lines
on the kernel's own consistency.

Timing: a train is sent SCHED_FIFO on CPU 0, where the receiver's NAPI
thread also runs, so the whole train (at most one budget) is queued before
one poll, as xrx-replay sees it in one batch. If the kernel still splits a
train differently (a poll started early), the train is sent again, at most
--retries times; a match on a later run passes and is reported.
"""
import argparse
import hashlib
import json
import os
import select
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xrxpcap  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"

# Trains where xrx and the kernel differ on purpose, with the reason; the
# test then reports the difference instead of failing on it.
DOCUMENTED = {}


def kernel_lacks():
    """{need: reason} for receiver features this kernel was built without."""
    import gzip
    cfg = ""
    try:
        with gzip.open("/proc/config.gz", "rt") as f:
            cfg = f.read()
    except OSError:
        try:
            with open("/boot/config-" + os.uname().release) as f:
                cfg = f.read()
        except OSError:
            return {}
    lacks = {}
    if "# CONFIG_VLAN_8021Q is not set" in cfg:
        lacks["vlan"] = ("kernel built without CONFIG_VLAN_8021Q has no VLAN "
                         "GRO (vlan_gro_receive), so it cannot judge tagged "
                         "trains")
    return lacks


def capture_trains(a, path):
    """Cut a real capture into trains of 64 frames (one NAPI budget) in the
    fixtures directory, with the MAC addresses the sender uses (a flow's
    Ethernet header is part of its identity, so one rewrite for all keeps
    the flows as they were). Return the train descriptions."""
    frames = [fr for fr, _ in xrxpcap.read_pcap(path)]
    base = os.path.splitext(os.path.basename(path))[0].replace("-", "_")
    out = []
    for i in range(0, len(frames), 64):
        name = "%s_%03d" % (base, i // 64)
        chunk = [bytes.fromhex("020000000002020000000001") + fr[12:]
                 for fr in frames[i:i + 64]]
        xrxpcap.write_pcap(os.path.join(a.fixtures, name + ".pcap"), chunk)
        out.append(dict(name=name, rule="frames %d..%d of %s" %
                        (i + 1, i + len(chunk), os.path.basename(path)),
                        proto="tcp", frames=len(chunk), needs=[],
                        capture=os.path.basename(path)))
    return out


def kernel_run(a, names, tag):
    """Send @names through the kernel once; return {name: packets}."""
    cap = os.path.join(a.work, "kernel-%s.pcap" % tag)
    outdir = os.path.join(a.work, "kernel-%s" % tag)
    os.makedirs(outdir, exist_ok=True)
    # Immediate mode makes libpcap use a TPACKET_V2 ring whose slots hold
    # about 64 KiB: BIG TCP aggregates need the TPACKET_V3 blocks (--big).
    imm = [] if a.big else ["--immediate-mode"]
    td = subprocess.Popen(
        ["nsenter", "--net=/run/netns/" + a.dut_ns, "tcpdump"] + imm +
        ["-U", "-n", "-i", a.dut_if, "-Q", "in",
         "-s", "0", "-w", cap, "ether[6:4] == 0x02000000"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        # 30 s: a QEMU guest under TCG on a busy host (tests/kernels/)
        # may take more than 10 to start tcpdump
        deadline = time.time() + 30
        err = b""
        while b"listening on" not in err:
            left = deadline - time.time()
            if left <= 0 or td.poll() is not None:
                raise RuntimeError("tcpdump did not start: %s" %
                                   err.decode(errors="replace").strip())
            r, _, _ = select.select([td.stderr], [], [], left)
            if r:
                err += os.read(td.stderr.fileno(), 4096)
        subprocess.run(
            ["nsenter", "--net=/run/netns/" + a.src_ns, "taskset", "-c", "0",
             "chrt", "-f", "50", PY, os.path.join(HERE, "send_trains.py"),
             a.src_if, a.fixtures] + names, check=True, timeout=120)
        deadline = time.time() + 10
        while time.time() < deadline:
            with open(cap, "rb") as f:
                if xrxpcap.MARKER_MAGIC + b"END" in f.read():
                    break
            time.sleep(0.05)
        else:
            raise RuntimeError("the END marker never reached the capture")
    finally:
        if td.poll() is None:
            td.send_signal(signal.SIGINT)
            try:
                td.wait(10)
            except subprocess.TimeoutExpired:
                td.kill()
                td.wait()
    cut = [wl for fr, wl in xrxpcap.read_pcap(cap) if len(fr) < wl]
    if cut:
        raise RuntimeError("the capture cut %d frame(s) short (%d bytes on "
                           "the wire)%s" % (len(cut), cut[0], "" if a.big
                           else "; BIG TCP needs --big"))
    got = xrxpcap.split(cap, outdir)
    return {n: xrxpcap.packets(os.path.join(outdir, n + ".pcap"))
            for n in got}


def xrx_cmd(a, t):
    """xrx-replay's command for train @t, without its files."""
    cmd = [a.replay, "--batch", "64"]   # one NAPI budget
    if t["proto"] == "udp":
        cmd.append("--udp")
    for port in a.vxlan_port:
        cmd += ["--vxlan-port", str(port)]
    for port in a.geneve_port:
        cmd += ["--geneve-port", str(port)]
    return cmd + a.replay_args.split()


def xrx_key(a, t):
    """What xrx-replay's output for @t depends on: its command, the
    binary (its size and time) and the train's bytes (their digest: the
    fixtures are copied)."""
    with open(os.path.join(a.fixtures, t["name"] + ".pcap"), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    sb = os.stat(a.replay)
    return [xrx_cmd(a, t), sb.st_size, sb.st_mtime_ns, digest]


def xrx_run(a, t, outdir):
    src = os.path.join(a.fixtures, t["name"] + ".pcap")
    out = os.path.join(outdir, "xrx-" + t["name"] + ".pcap")
    cmd = xrx_cmd(a, t)
    subprocess.run(cmd + [src, out], check=True, timeout=60)
    # With the metadata xrx_rx writes (the live path, and the engine's
    # fast path), the same bytes must come out, packet for packet.
    subprocess.run(cmd + ["--meta", src, out + ".meta"], check=True,
                   timeout=60)
    if ([fr for fr, _ in xrxpcap.read_pcap(out)] !=
            [fr for fr, _ in xrxpcap.read_pcap(out + ".meta")]):
        raise RuntimeError("%s: xrx-replay --meta delivered other packets "
                           "than without" % t["name"])
    return xrxpcap.packets(out)


# xrx's side of every train depends on no kernel: --xrx-only runs it once
# into FIXTURES/xrx/ (the kernel guests' host does, where a process start
# costs a millisecond, not a quarter second), and a later run takes a
# train's output from there while its key (xrx_key) is the same.
def xrx_made(a):
    try:
        with open(os.path.join(a.fixtures, "xrx", "keys.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def xrx_only(a, trains):
    outdir = os.path.join(a.fixtures, "xrx")
    os.makedirs(outdir, exist_ok=True)
    keys = {}
    for t in trains:
        xrx_run(a, t, outdir)
        keys[t["name"]] = xrx_key(a, t)
    with open(os.path.join(outdir, "keys.json"), "w") as f:
        json.dump(keys, f)
    print("DIAG xrx-replay ran %d trains into %s" % (len(trains), outdir))
    return 0


def main():
    ap = argparse.ArgumentParser()
    for o in ("fixtures", "replay"):
        ap.add_argument("--" + o, required=True)
    for o in ("src-ns", "src-if", "dut-ns", "dut-if", "work"):
        ap.add_argument("--" + o)
    ap.add_argument("--xrx-only", action="store_true",
                    help="only run xrx-replay on every train, into "
                    "FIXTURES/xrx/, for later runs to take from there")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--ignore-field", action="append", default=[],
                    help="a packet field not compared (a known difference "
                         "of the kernel under test), said in a DIAG line")
    ap.add_argument("--retries", type=int, default=3)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--capture", action="append", default=[],
                    help="a real capture, compared in trains of 64 frames")
    ap.add_argument("--vxlan-port", type=int, action="append", default=[],
                    help="UDP port of VXLAN: xrx-replay aggregates inside "
                    "it, and packets to it compare by their inner flow")
    ap.add_argument("--geneve-port", type=int, action="append", default=[],
                    help="UDP port of GENEVE, as --vxlan-port")
    ap.add_argument("--replay-args", default="",
                    help="more xrx-replay options, as one word list "
                    "(--replay-args='--ipv6-jumbo hbh --max-size 185000'), "
                    "for a receiver set up to match them")
    ap.add_argument("--big", action="store_true",
                    help="aggregates above 64 KiB: capture without "
                    "immediate mode")
    a = ap.parse_args()
    if not a.xrx_only and not all((a.src_ns, a.src_if, a.dut_ns, a.dut_if,
                                   a.work)):
        ap.error("--src-ns, --src-if, --dut-ns, --dut-if and --work are "
                 "needed unless --xrx-only is given")
    xrxpcap.VXLAN_PORTS.update(a.vxlan_port)
    xrxpcap.GENEVE_PORTS.update(a.geneve_port)

    with open(os.path.join(a.fixtures, "trains.json")) as f:
        trains = json.load(f)
    if a.only:
        trains = [t for t in trains if t["name"] in a.only]
    if a.xrx_only:
        return xrx_only(a, trains)
    # a fixture set may name its own differences ("documented")
    DOCUMENTED.update((t["name"], t["documented"]) for t in trains
                      if "documented" in t)
    lacks = kernel_lacks()
    for t in trains:
        for need in t.get("needs", []):
            if need in lacks:
                print("SKIP %s %s: %s" % (t["name"], t["rule"], lacks[need]))
    trains = [t for t in trains
              if not any(n in lacks for n in t.get("needs", []))]
    for c in a.capture:
        trains += capture_trains(a, c)
    names = [t["name"] for t in trains]
    made = xrx_made(a)
    xrx = {}
    taken = 0
    for t in trains:
        n = t["name"]
        if n in made and made[n] == xrx_key(a, t):
            xrx[n] = xrxpcap.packets(os.path.join(a.fixtures, "xrx",
                                                  "xrx-%s.pcap" % n))
            taken += 1
        else:
            xrx[n] = xrx_run(a, t, a.work)
    if taken:
        print("DIAG xrx-replay's output made beforehand for %d of %d "
              "trains" % (taken, len(trains)))

    if a.ignore_field:
        print("DIAG not compared on this kernel: %s" % ", ".join(a.ignore_field))
    runs = [kernel_run(a, names, str(i)) for i in range(a.runs)]
    verdict = {}
    for t in trains:
        n = t["name"]
        outs = [r[n] for r in runs if n in r]
        match = [i for i, k in enumerate(outs) if not xrxpcap.compare(k, xrx[n], ignore=a.ignore_field)]
        verdict[n] = (match, outs)

    retried = {}
    for k in range(a.retries):
        todo = [n for n in names if not verdict[n][0]]
        if not todo:
            break
        r = kernel_run(a, todo, "retry%d" % k)
        for n in todo:
            if n not in r:
                continue
            match, outs = verdict[n]
            outs.append(r[n])
            if not xrxpcap.compare(r[n], xrx[n], ignore=a.ignore_field):
                match.append(len(outs) - 1)
            retried[n] = k + 1

    flaky = 0
    caps = {}
    for t in trains:
        n = t["name"]
        if "capture" in t:
            caps.setdefault(t["capture"], []).append(t)
            continue
        match, outs = verdict[n]
        distinct = []
        for o in outs:
            if not any(not xrxpcap.compare(o, d, ignore=a.ignore_field) for d in distinct):
                distinct.append(o)
        if len(distinct) > 1:
            flaky += 1
        if match:
            print("PASS %s %s" % (n, t["rule"]))
            if n in retried:
                print("DIAG %s: matched the kernel on retry %d" %
                      (n, retried[n]))
        elif n in DOCUMENTED:
            print("PASS %s %s (xrx differs by design: %s)" %
                  (n, t["rule"], DOCUMENTED[n]))
        else:
            print("FAIL %s %s" % (n, t["rule"]))
            if not outs:
                print("DIAG %s: the train never reached the capture" % n)
            else:
                for line in xrxpcap.compare(outs[0], xrx[n], ignore=a.ignore_field)[:8]:
                    print("DIAG %s: kernel -> xrx: %s" % (n, line))
        if len(distinct) > 1:
            print("DIAG %s: the kernel gave %d different results in %d runs" %
                  (n, len(distinct), len(outs)))
    for c, ts in caps.items():
        bad = [t for t in ts if not verdict[t["name"]][0]]
        print("%s capture %s: %d trains of up to 64 frames" %
              ("FAIL" if bad else "PASS", c, len(ts)))
        for t in bad[:3]:
            outs = verdict[t["name"]][1]
            for line in (xrxpcap.compare(outs[0], xrx[t["name"]], ignore=a.ignore_field)[:4]
                         if outs else ["never reached the capture"]):
                print("DIAG %s (%s): kernel -> xrx: %s" %
                      (t["name"], t["rule"], line))
        for t in ts:
            if t["name"] in retried and verdict[t["name"]][0]:
                print("DIAG %s: matched the kernel on retry %d" %
                      (t["name"], retried[t["name"]]))
    print("DIAG kernel runs: %d, plus retries of %d train(s); %d of %d "
          "train(s) came out differently between kernel runs" %
          (a.runs, len(retried), flaky, len(trains)))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (RuntimeError, subprocess.SubprocessError, OSError,
            xrxpcap.PcapError) as e:
        print("ERROR %s" % e)
        sys.exit(1)
