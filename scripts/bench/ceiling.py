#!/usr/bin/env python3
"""How far a subject's coverage can go, as the tools measured found it:
the union of every run given (each tool's, each seed's) is the subject's
empirical ceiling, and each run is put against it. On a subject where
every tool ends on one plateau, this says whether a target set above a
tool's final (another tool's final, say) is above what any run reaches,
and whether the tools differ by more than one tool's seeds differ.

  scripts/bench/ceiling.py BIN [--argv ARGS] [--cache DIR] TOOL=OUT[,OUT...] [TOOL=OUT...]

Every test of each output is replayed on the llvm-cov build BIN (as
covreplay.py does; `--argv @@` for a fixed command line, each test's
first line otherwise). Branch outcomes are counted as llvm-cov-19's
totals count them (a function's branches, each with its true and false
side), so the figures are the matrix's. With `--cache DIR`, each run's
outcomes are kept in DIR and not replayed again (a later call with more
runs, or calls on separate cores for parts of the runs, then one for all).
Prints:
  - per run: its outcomes and how many of the ceiling it misses;
  - per tool: its runs' mean, lowest and highest, and the union of its runs;
  - the ceiling (the union of all runs);
  - per pair of tools: the outcomes one tool's union has and the other's
    has not, by function.

Example: `ceiling.py BIN --argv @@ bridge=M/dc/1/bridge,M/dc/2/bridge
afl=M/dc/1/afl/default,M/dc/2/afl/default cmplog=...`
"""
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from collections import Counter

import covreplay


def covered(binary, out, fixed):
    """The branch outcomes the tests of `out` cover, as (function, branch
    index, side), and the number of tests."""
    with tempfile.TemporaryDirectory() as prof:
        tests = list(covreplay.tests_of(out))
        covreplay.run_all(binary, tests, prof, fixed)
        covreplay.branches(binary, prof)
        merged = os.path.join(prof, "merged.profdata")
        if not os.path.exists(merged):
            return set(), len(tests), 0
        j = subprocess.run([covreplay.LLVM["cov"], "export", "-instr-profile", merged, binary],
                           check=True, capture_output=True).stdout
    data = json.loads(j)["data"][0]
    got = set()
    for f in data["functions"]:
        for k, b in enumerate(f.get("branches", [])):
            # [line, col, end line, end col, true count, false count, ...]
            for side, count in (("true", b[4]), ("false", b[5])):
                if count > 0:
                    got.add((f["name"], k, side))
    return got, len(tests), data["totals"]["branches"]["count"]


def cached(binary, out, fixed, cache):
    """`covered`, kept in `cache` (a directory, or None) by the output's path."""
    if cache is None:
        return covered(binary, out, fixed)
    key = os.path.abspath(out).strip("/").replace("/", "_") + ".json"
    path = os.path.join(cache, key)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            d = json.load(fh)
        return {tuple(x) for x in d["covered"]}, d["tests"], d["total"]
    got, n, total = covered(binary, out, fixed)
    os.makedirs(cache, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=cache, delete=False, encoding="utf-8") as fh:
        json.dump({"covered": sorted(got), "tests": n, "total": total}, fh)
    os.replace(fh.name, path)
    return got, n, total


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    binary, args = os.path.abspath(args[0]), args[1:]
    fixed = None
    if args[:1] == ["--argv"] and len(args) > 1:
        fixed, args = shlex.split(args[1]), args[2:]
    cache = None
    if args[:1] == ["--cache"] and len(args) > 1:
        cache, args = args[1], args[2:]
    tools = []
    for a in args:
        name, sep, outs = a.partition("=")
        if not sep or not outs:
            sys.exit(f"ceiling.py: '{a}' is not TOOL=OUT[,OUT...]")
        tools.append((name, outs.split(",")))
    runs = {}
    total = 0
    for name, outs in tools:
        for out in outs:
            got, n, total = cached(binary, out, fixed, cache)
            runs[(name, out)] = got
            print(f"replayed {name} {out}: {n} tests, {len(got)} branch outcomes", file=sys.stderr)
    ceiling = set().union(*runs.values())
    unions = {name: set().union(*(runs[(name, o)] for o in outs)) for name, outs in tools}
    print(f"ceiling (the union of all {len(runs)} runs): {len(ceiling)} of {total} branch outcomes\n")
    print("| tool | run | branch outcomes | short of the ceiling |")
    print("|---|---|---|---|")
    for (name, out), got in runs.items():
        print(f"| {name} | {out} | {len(got):,} | {len(ceiling - got)} |")
    print("\n| tool | runs | mean | lowest | highest | union of its runs | its union short of the ceiling |")
    print("|---|---|---|---|---|---|---|")
    for name, outs in tools:
        sizes = [len(runs[(name, o)]) for o in outs]
        print(f"| {name} | {len(outs)} | {statistics.mean(sizes):,.1f} | {min(sizes):,} | {max(sizes):,} | "
              f"{len(unions[name]):,} | {len(ceiling - unions[name])} |")
    names = [name for name, _ in tools]
    for a in names:
        for b in names:
            if a == b:
                continue
            only = unions[a] - unions[b]
            by_fn = Counter(fn for fn, _, _ in only)
            listed = ", ".join(f"`{fn}` {n}" for fn, n in by_fn.most_common(8))
            print(f"\n{a}'s runs cover {len(only)} outcomes no run of {b} covers" + (f": {listed}" if only else ""))


if __name__ == "__main__":
    main()
