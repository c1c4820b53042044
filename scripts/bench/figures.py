#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Hold the figures a document quotes to the JSON rows they come from.

    figures.py [--doc README.md] [--dir docs/bench] [--list FILE]

Checks two things and prints one line per failure (exit 1 if any):

1. Every JSON file in --dir names the run it came from: top-level
   "command", "commit" and "when" (an ISO 8601 date or time), all
   non-empty. A commit that does not resolve in the repository is a
   failure too, when this script is inside a git checkout (a commit
   is looked up in the checkout the script belongs to).
2. Every line of --list (docs/bench/figures.tsv) holds, separated by
   tabs:  ANCHOR  FILE  PATH  FORMAT
   The document's line that contains ANCHOR (exactly one) must name FILE
   and contain FORMAT % value, where value is PATH read from FILE. PATH
   is dotted; a list element is picked by [N] or by [key=value,key=value]; a key
   with dots or slashes is quoted: rows[name=xrx].cpu_s_per_gb,
   benches.tun.tun_gbps, ratios."xrx/tcpdump_cpu_per_gb". A FORMAT with
   a '%%' prints a ratio as a percentage (value * 100).
   A line "@doc PATH" makes the rows after it hold PATH (relative to
   the checkout) instead; the rows before the first "@doc" hold the
   README (--doc).
"""
import argparse
import json
import os
import re
import subprocess
import sys


def walk(d, path):
    for part in re.findall(r'"[^"]*"|[^.\[\]]+|\[[^\]]*\]', path):
        if part.startswith("["):
            sel = part[1:-1]
            if "=" in sel:
                want = [kv.split("=", 1) for kv in sel.split(",")]
                d = next(x for x in d
                         if all(str(x.get(k)) == v for k, v in want))
            else:
                d = d[int(sel)]
        else:
            d = d[part.strip('"')]
    return d


def check_stamps(bdir, repo, problems):
    gitdir = subprocess.run(["git", "-C", repo, "rev-parse", "--git-dir"],
                            capture_output=True).returncode == 0
    for name in sorted(os.listdir(bdir)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(bdir, name)) as f:
            d = json.load(f)
        for k in ("command", "commit", "when"):
            if not isinstance(d, dict) or not str(d.get(k, "")).strip():
                problems.append(f"{name}: no \"{k}\": say which run made it "
                                "(scripts/bench/run.sh stamps what it writes)")
        if not isinstance(d, dict):
            continue
        when = str(d.get("when", ""))
        if when and not re.match(r"^\d{4}-\d{2}-\d{2}", when):
            problems.append(f"{name}: \"when\" is {when!r}, not an ISO 8601 date")
        rev = str(d.get("commit", "")).removesuffix("-dirty")
        if rev and gitdir and subprocess.run(
                ["git", "-C", repo, "cat-file", "-e", rev + "^{commit}"],
                capture_output=True).returncode != 0:
            problems.append(f"{name}: commit {rev} is not in this repository")


def check_figures(readme, top, bdir, listing, problems):
    docs = {}

    def read(path):
        if path not in docs:
            with open(path) as f:
                docs[path] = f.read().splitlines()
        return docs[path]

    doc = readme
    cache = {}
    with open(listing) as f:
        for n, row in enumerate(f, 1):
            row = row.rstrip("\n")
            if not row.strip() or row.startswith("#"):
                continue
            if row.startswith("@doc "):
                doc = os.path.join(top, row[5:].strip())
                continue
            lines = read(doc)
            try:
                anchor, fname, path, fmt = row.split("\t")
            except ValueError:
                problems.append(f"{listing}:{n}: want 4 tab-separated fields")
                continue
            where = f"{listing}:{n} ({os.path.relpath(doc, top)}: {anchor})"
            hits = [l for l in lines if anchor in l]
            if len(hits) != 1:
                problems.append(f"{where}: {len(hits)} lines of {os.path.relpath(doc, top)} hold the anchor, want 1")
                continue
            line = hits[0]
            if fname not in line:
                problems.append(f"{where}: the line does not name {fname}, where its figure comes from")
            if fname not in cache:
                with open(os.path.join(bdir, fname)) as jf:
                    cache[fname] = json.load(jf)
            try:
                v = walk(cache[fname], path)
            except (KeyError, IndexError, StopIteration, TypeError, ValueError):
                problems.append(f"{where}: {fname} has no {path}")
                continue
            if "%%" in fmt:
                v = v * 100
            text = fmt % v
            if text not in line:
                problems.append(f"{where}: {fname} {path} is {text}, which the line does not say")


def main():
    top = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--doc", default=os.path.join(top, "README.md"))
    ap.add_argument("--dir", default=os.path.join(top, "docs", "bench"))
    ap.add_argument("--list", default=None)
    a = ap.parse_args()
    listing = a.list or os.path.join(a.dir, "figures.tsv")
    problems = []
    check_stamps(a.dir, top, problems)
    check_figures(a.doc, top, a.dir, listing, problems)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
