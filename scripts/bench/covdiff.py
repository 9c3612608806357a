#!/usr/bin/env python3
"""What one group of campaigns reaches that another does not, measured
outside the tool: every test of each group is replayed on the
source-based coverage build (as covreplay.py does), and llvm-cov-19's
branch outcomes of the two groups' unions are compared. Prints, for each
side, the branch outcomes only it covers, grouped by function, each with
its source line, so that what they are (a command, a regex form, an
option) can be named.

  scripts/bench/covdiff.py BIN A-OUT[,A-OUT...] B-OUT[,B-OUT...] [--names A,B] [--lines N] [--argv ARGS]

Tests carry their command line on their first line (--args-in-input),
unless --argv gives one (`--argv @@` for a harness subject).
"""
import argparse
import json
import os
import shlex
import subprocess
import tempfile
from collections import defaultdict

import covreplay


def outcomes(binary, outs, fixed=None):
    """The branch outcomes the union of `outs` covers: (file, line, col,
    side) -> function, and the number of tests run."""
    with tempfile.TemporaryDirectory() as prof:
        n, _, _, _ = covreplay.measure(binary, outs, prof, fixed)
        merged = os.path.join(prof, "merged.profdata")
        if not os.path.exists(merged):
            return {}, n
        j = subprocess.run([covreplay.LLVM["cov"], "export", "-instr-profile", merged, binary],
                           check=True, capture_output=True).stdout
    covered = {}
    for f in json.loads(j)["data"][0]["functions"]:
        files = f.get("filenames", [])
        for b in f.get("branches", []):
            # [line, col, end line, end col, true count, false count,
            #  file id, expanded file id, kind]
            line, col, true_n, false_n, file_id = b[0], b[1], b[4], b[5], b[6]
            path = files[file_id] if file_id < len(files) else files[0]
            for side, count in (("true", true_n), ("false", false_n)):
                if count > 0:
                    covered[(path, line, col, side)] = f["name"]
    return covered, n


def source_line(path, line, cache={}):
    if path not in cache:
        try:
            with open(path, errors="replace") as fh:
                cache[path] = fh.read().splitlines()
        except OSError:
            cache[path] = []
    lines = cache[path]
    return lines[line - 1].strip() if 0 < line <= len(lines) else "?"


def report(name, only, limit):
    by_function = defaultdict(list)
    for key, fn in only.items():
        by_function[fn].append(key)
    print(f"\n## Only {name}: {len(only)} branch outcomes in {len(by_function)} functions\n")
    for fn, keys in sorted(by_function.items(), key=lambda kv: -len(kv[1])):
        print(f"- `{fn}` ({len(keys)})")
        seen = set()
        for path, line, _, side in sorted(keys)[:limit]:
            if (path, line) in seen:
                continue
            seen.add((path, line))
            print(f"  - {os.path.basename(path)}:{line} ({side}): `{source_line(path, line)}`")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--names", default="A,B")
    ap.add_argument("--lines", type=int, default=6, help="source lines shown per function")
    ap.add_argument("--argv", help="a fixed command line (`@@` for a harness) instead of each test's first line")
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    na, nb = args.names.split(",")
    fixed = shlex.split(args.argv) if args.argv else None
    a, ta = outcomes(binary, args.a.split(","), fixed)
    b, tb = outcomes(binary, args.b.split(","), fixed)
    print(f"{na}: {ta} tests, {len(a)} branch outcomes; {nb}: {tb} tests, {len(b)} branch outcomes")
    report(na, {k: v for k, v in a.items() if k not in b}, args.lines)
    report(nb, {k: v for k, v in b.items() if k not in a}, args.lines)


if __name__ == "__main__":
    main()
