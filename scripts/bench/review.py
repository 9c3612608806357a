#!/usr/bin/env python3
"""Reviewing failures, measured on examples whose bugs are known.

  scripts/bench/review.py [--time 60] [--seeds 5] [--out DIR]

1. Signatures against bugs: `boundary` (2 bugs) and `puzzles` (4 bugs),
   `bridge run` (the bridge, --unit symbolic) with seeds 1..N, then `bridge
   review --json`. Per campaign: signatures, the distinct known bugs they
   name (by the function of the innermost program frame), whether the two
   match one to one, and the failures kept by the campaign's own rule (kept
   crashes + kept alarms) beside them.
2. Reduction against afl-tmin (Debian's afl++, crash mode, on an
   afl-clang-fast build of the same source): every signature's first
   failure from the campaigns of part 1 and of one campaign each on
   `interp`, `hexdump` and `inlined`. Per reducer: median reduced size,
   median runs, and how many reductions changed the signature (checked with
   `bridge signature` on the carve-clang build).

Two campaigns run at once (2 cores). Prints two tables.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(REPO, "target", "release")
BRIDGE = os.path.join(TOOLS, "bridge")
BUGS = {
    "boundary": {"scale_row", "check_key"},
    "puzzles": {"check_magic", "check_word", "check_sum", "run_cmd"},
}


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, **kw)


def build(work):
    for cc, out in [(os.path.join(TOOLS, "carve-clang"), "carve"), ("afl-clang-fast", "afl")]:
        env = dict(os.environ, AFL_QUIET="1")
        sh(["make", "-s", "-C", os.path.join(REPO, "examples"), f"CC={cc}", f"OUT={work}/{out}"], env=env)


def campaign(work, ex, seed, budget):
    out = f"{work}/runs/{ex}-{seed}"
    seeds = os.path.join(REPO, "examples", ex, "seeds")
    cmd = [BRIDGE, "run", "-i", seeds, "-o", out, "--time", f"{budget}s", "--seed", str(seed), "--",
           f"{work}/carve/{ex}", "@@"]
    subprocess.run(["taskset", "-c", str(seed % 2)] + cmd, check=True, capture_output=True)
    review = json.loads(sh([BRIDGE, "review", "--json", "--no-reduce", out]).stdout)
    stats = json.load(open(f"{out}/campaign.json"))["stats"]
    return ex, seed, out, review, stats


def top_function(sig):
    own = [f for f in sig["frames"] if f["module"] == "-"]
    return (own or sig["frames"])[0]["function"] if sig["frames"] else "?"


def signature(work, ex, path):
    o = sh([BRIDGE, "signature", "--json", path, "--", f"{work}/carve/{ex}", "@@"])
    v = json.loads(o.stdout)
    return None if v is None else v["key"]


def ours(work, ex, path, tmp):
    out = os.path.join(tmp, "ours")
    o = sh([BRIDGE, "reduce", path, "-o", out, "--", f"{work}/carve/{ex}", "@@"]).stdout.decode()
    runs = int(re.search(r"in (\d+) runs", o).group(1))
    return out, os.path.getsize(out), runs


def afl_tmin(work, ex, path, tmp):
    out = os.path.join(tmp, "afl")
    env = dict(os.environ, AFL_SKIP_CPUFREQ="1", AFL_NO_AFFINITY="1")
    o = subprocess.run(["afl-tmin", "-i", path, "-o", out, "--", f"{work}/afl/{ex}", "@@"],
                       capture_output=True, env=env)
    text = re.sub(r"\x1b\[[0-9;]*m", "", (o.stdout + o.stderr).decode(errors="replace"))
    m = re.search(r"Number of execs done\s*:\s*(\d+)", text)
    if o.returncode != 0 or not os.path.exists(out) or not m:
        return None
    return out, os.path.getsize(out), int(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--time", type=int, default=60)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    work = a.out or tempfile.mkdtemp(prefix="bench-review-")
    os.makedirs(f"{work}/runs", exist_ok=True)
    print(f"# work in {work}; {a.time} s campaigns, seeds 1..{a.seeds}", file=sys.stderr)
    build(work)
    jobs = [(ex, s) for ex in BUGS for s in range(1, a.seeds + 1)] + [(ex, 1) for ex in ["interp", "hexdump", "inlined"]]
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda j: campaign(work, j[0], j[1], a.time), jobs))

    print("| example | seed | signatures | known bugs named | one to one | kept by the campaign's rule (crashes + alarms) |")
    print("|---|---|---|---|---|---|")
    for ex, seed, out, review, stats in results:
        if ex not in BUGS:
            continue
        sigs = review["signatures"]
        tops = [top_function(s["signature"]) for s in sigs]
        named = {t for t in tops if t in BUGS[ex]}
        one_to_one = len(sigs) == len(named) and all(tops.count(t) == 1 for t in named)
        kept = stats["unique_crashes"] + stats["unique_true_alarms"]
        print(f"| {ex} | {seed} | {len(sigs)} | {len(named)} of {len(BUGS[ex])} | {'yes' if one_to_one else 'no'} | {kept} |")

    rows = []
    for ex, seed, out, review, stats in results:
        for s in review["signatures"]:
            if s["signature"]["kind"] == "Hang":
                continue
            path = s["inputs"][0]
            before = s["key"]
            with tempfile.TemporaryDirectory() as tmp:
                o_path, o_size, o_runs = ours(work, ex, path, tmp)
                o_same = signature(work, ex, o_path) == before
                t = afl_tmin(work, ex, path, tmp)
                t_row = (t[1], t[2], signature(work, ex, t[0]) == before) if t else None
            rows.append((ex, os.path.getsize(path), (o_size, o_runs, o_same), t_row))
    print()
    print(f"Reductions: {len(rows)} failures (the first of each signature of every campaign above)")
    print("| reducer | median size (bytes) | median runs | signature changed |")
    print("|---|---|---|---|")
    print(f"| original | {statistics.median(r[1] for r in rows) if rows else '-'} | | |")
    ours_rows = [r[2] for r in rows]
    print(f"| bridge reduce | {statistics.median(r[0] for r in ours_rows)} | {statistics.median(r[1] for r in ours_rows)} | {sum(not r[2] for r in ours_rows)} of {len(ours_rows)} |")
    tmin = [r[3] for r in rows if r[3]]
    failed = sum(1 for r in rows if not r[3])
    if tmin:
        print(f"| afl-tmin | {statistics.median(r[0] for r in tmin)} | {statistics.median(r[1] for r in tmin)} | {sum(not r[2] for r in tmin)} of {len(tmin)} |")
    if failed:
        print(f"(afl-tmin gave no result on {failed})")


if __name__ == "__main__":
    main()
