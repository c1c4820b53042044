#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Compare two benchmark runs, row by row, by the ratios each run measured
side by side (xrx against its baseline on the same machine in the same
run), so that a regression shows up as a number even when the two runs
were made on machines of different speed.

    scripts/bench/compare.py OLD NEW [--threshold PCT]

OLD and NEW are each one benchmark's JSON (build/bench/gro.json, xdp.json,
bench_tun.json, afxdp.json, xdp_meta.json, bench_tee.json, flood.json,
capture.json, busy_poll.json), the combined file scripts/bench/run.sh writes
(build/bench/all.json, also the reference run in docs/bench/), or a folder
holding those files. For every row present in both it prints the old and
the new ratio and the change, in the direction that is better for xrx.
Rows that got worse by more than PCT percent (default 10) are marked
WORSE and make the exit status 1; 2 means the files could not be read.
"""
import json
import os
import sys

# Each benchmark's rows: (key, ratio, higher_is_better, what it is).


def gro_rows(d):
    rows = d.get("rows", [])
    for r in rows:
        if r.get("engine") == "csum" and r.get("ns_per_seg"):
            # The L4 sum against a load of each line of the same bytes in
            # the same cache state (the read row): the share of the
            # machine's read speed the sum runs at.
            same = ("proto", "mss", "flows", "order", "cache")
            rd = next((x for x in rows if x.get("engine") == "read" and
                       all(x.get(k) == r.get(k) for k in same)), None)
            if rd and rd.get("ns_per_seg"):
                yield ("%s vs read" % r.get("label", "?"),
                       rd["ns_per_seg"] / r["ns_per_seg"], True,
                       "read/csum ns")
        if r.get("engine") != "xrx":
            continue
        label = r.get("label", "?")
        if r.get("ratio_vs_dpdk"):
            yield (label, r["ratio_vs_dpdk"], True, "xrx/rte_gro Mpps")
        every = r.get("ratio_vs_dpdk_flush_every") or {}
        for k in ("8", "64"):
            if every.get(k):
                yield ("%s vs rte_gro flush every %s" % (label, k), every[k],
                       True, "xrx/rte_gro Mpps")


def xdp_rows(d):
    for r in d.get("results", []):
        path = r.get("path", "linear")
        key = "xrx_rx %s%s" % (r.get("frame", "?"),
                               "" if path == "linear" else " (%s)" % path)
        if r.get("ratio"):
            yield (key, r["ratio"], False, "xrx_rx/bare redirect ns")


def tun_rows(d):
    # "ratio" is against the faster GRO-on kernel row (with or without
    # threaded NAPI); runs before that row had ratio = ratio_gro_on.
    on = d.get("ratio_gro_on", d.get("ratio"))
    if on:
        yield ("tun vs kernel, GRO on", on, True, "Gbit/s ratio")
    if d.get("ratio") and "baseline" in d:
        yield ("tun vs the faster GRO-on kernel path", d["ratio"], True,
               "Gbit/s ratio")
    if d.get("cpu_per_gb_ratio"):
        yield ("tun CPU per GB vs the faster GRO-on kernel path",
               d["cpu_per_gb_ratio"], False, "CPU s/GB ratio")
    if d.get("ratio_gro_off"):
        yield ("tun vs kernel, GRO off", d["ratio_gro_off"], True,
               "Gbit/s ratio")
    if d.get("ratio_busy"):
        yield ("tun with busy_poll vs the faster GRO-on kernel path",
               d["ratio_busy"], True, "Gbit/s ratio")


def afxdp_rows(d):
    for name, c in sorted(d.get("cases", {}).items()):
        if name == "plain":
            continue
        if c.get("rx_cpu_ratio"):
            yield ("afxdp %s receiver CPU/frame vs plain" % name,
                   c["rx_cpu_ratio"], False, "ns ratio")
        if c.get("cpu_per_gb_ratio"):
            yield ("afxdp %s machine CPU per GB vs plain" % name,
                   c["cpu_per_gb_ratio"], False, "CPU s/GB ratio")


def capture_rows(d):
    for base in ("tcpdump", "xdpdump"):
        r = d.get("ratios", {}).get("xrx/%s_cpu_per_gb" % base)
        if r:
            yield ("capture xrx CPU per GB vs %s" % base, r, False,
                   "CPU s/GB ratio")


def xdp_meta_rows(d):
    # hw_dissect is veth's own software hash, not a cost of xrx's.
    for key, r in sorted(d.get("ratios", {}).items()):
        if r.get("median") and not key.startswith("hw_dissect"):
            yield ("xrx_rx live %s (%s)" % (key, r.get("what", "")),
                   r["median"], False, "ns ratio")


def tee_rows(d):
    # xrxd's own CPU per frame, and the whole machine's per GB (runs
    # before cpu_lib.sh came to bench_tee.sh have only the first).
    if d.get("cpu_ns_per_frame_ratio"):
        yield ("tun + pcap tee vs tun alone, CPU per frame",
               d["cpu_ns_per_frame_ratio"], False, "ns ratio")
    if d.get("cpu_per_gb_ratio"):
        yield ("tun + pcap tee vs tun alone, machine CPU per GB",
               d["cpu_per_gb_ratio"], False, "CPU s/GB ratio")


def flood_rows(d):
    # cap-off shows the engine without its bucket bound: not xrx's cost.
    for r in d.get("rows", []):
        flows = (r.get("config") or {}).get("flows", "")
        if flows in ("ordinary", "crafted/cap-off"):
            continue
        if r.get("ratio_vs_ordinary"):
            yield ("%s vs ordinary flows" % r.get("label", "?"),
                   r["ratio_vs_ordinary"], False, "ns/frame ratio")


def busy_poll_rows(d):
    # The benchmark's own tasks: the whole machine's figure holds the
    # neighbours' work on a shared machine.
    for key, r in sorted(d.get("ratios", {}).items()):
        if r.get("tasks_cpu_s_per_gb"):
            yield ("%s parties' CPU per GB" % key,
                   r["tasks_cpu_s_per_gb"], False, "CPU-s/GB ratio")


ADAPTERS = {"gro": gro_rows, "xdp": xdp_rows, "tun": tun_rows,
            "afxdp": afxdp_rows, "xdp_meta": xdp_meta_rows, "tee": tee_rows,
            "flood": flood_rows, "capture": capture_rows,
            "busy_poll": busy_poll_rows}
FILES = ("gro.json", "xdp.json", "bench_tun.json", "afxdp.json",
         "xdp_meta.json", "bench_tee.json", "flood.json", "capture.json",
         "busy_poll.json")


def load(path):
    """Every benchmark document found at path, as a list."""
    if os.path.isdir(path):
        docs = []
        for name in FILES:
            p = os.path.join(path, name)
            if os.path.exists(p):
                docs.extend(load(p))
        return docs
    with open(path) as f:
        d = json.load(f)
    if "benches" in d:          # run.sh's combined file
        return list(d["benches"].values())
    return [d]


def rows(path):
    out = {}
    for d in load(path):
        fn = ADAPTERS.get(d.get("bench"))
        if not fn:
            continue
        for key, ratio, higher, what in fn(d):
            out["%s: %s" % (d["bench"], key)] = (ratio, higher, what)
    return out


def main(argv):
    args = [a for a in argv if not a.startswith("--threshold")]
    threshold = 10.0
    for i, a in enumerate(argv):
        if a.startswith("--threshold"):
            v = a.split("=", 1)[1] if "=" in a else (
                argv[i + 1] if i + 1 < len(argv) else "")
            if v in args:
                args.remove(v)
            try:
                threshold = float(v)
            except ValueError:
                print("compare: --threshold needs a percentage, e.g. "
                      "--threshold 10", file=sys.stderr)
                return 2
    if len(args) != 2:
        print("usage: compare.py OLD NEW [--threshold PCT]   (JSON files "
              "or folders of them)", file=sys.stderr)
        return 2
    try:
        old, new = rows(args[0]), rows(args[1])
    except (OSError, ValueError) as e:
        print("compare: %s; pass benchmark JSON written by make bench"
              % e, file=sys.stderr)
        return 2
    common = [k for k in new if k in old]
    if not common:
        print("compare: no row of %s is in %s; compare runs of the same "
              "benchmarks" % (args[1], args[0]), file=sys.stderr)
        return 2
    worse = 0
    width = max(len(k) for k in common)
    print("%-*s %8s %8s %8s" % (width, "row (ratio; + is better for xrx)",
                                "old", "new", "change"))
    for k in common:
        (o, higher, _), (n, _, _) = old[k], new[k]
        # Percent better: for cost ratios a drop is an improvement.
        change = (n / o - 1) * 100 if higher else (o / n - 1) * 100
        flag = ""
        if change < -threshold:
            flag = "  WORSE"
            worse += 1
        print("%-*s %8.2f %8.2f %+7.1f%%%s" % (width, k, o, n, change, flag))
    only = sorted(set(old) ^ set(new))
    if only:
        print("# %d row(s) in only one run, not compared" % len(only))
    print("# %d rows compared, %d worse by more than %g%%"
          % (len(common), worse, threshold))
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
