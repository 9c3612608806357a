#!/usr/bin/env python3
"""The bridge against AFL++ and AFL++ with cmplog, as one table: the
lines scripts/bench/afl.sh printed (`alone`, `cmplog`, `found`, `sizes`)
and the coverage over time scripts/bench/libs.sh measured
(SUBJECT-SEED.covtime), read from one or more libs.sh outputs (seeds
added later go to another output; where two give the same subject and
seed, the later one's lines and curves win, figure by figure).

  scripts/bench/matrix.py OUT [OUT...]

Prints a row per subject and seed (each tool's coverage at 300 s among
its figures), then per subject the means over its seeds (ratios of the
means), and how many seeds meet each target:
  - branch outcomes ≥ 1.0 × AFL++ with cmplog's, and for a harness
    subject (a name ending in -fuzz) ≥ 1.2 × AFL++'s (the libraries'
    target; the six programs are not asked it);
  - the bridge reaches AFL++ plain's final coverage within 300 s;
  - system execs ≥ 0.5 × AFL++'s.
A time to reach is the first checkpoint at or past that coverage (its
resolution is libs.sh's --every); `never` when the bridge did not.

With two seeds or more, the reach target is then put to every tool, run
against run: how many of the bridge's runs, of AFL++ with cmplog's and of
AFL++'s own (another seed's) reach a run of AFL++ plain's final coverage
within 300 s. On a subject where every tool ends on the same plateau, a
tool's own runs tell how often the target can be met at all.
"""
import os
import re
import statistics
import sys

ALONE = re.compile(
    r"^alone (\S+)\s+(\d+)\s+execs bridge (\d+), AFL\+\+ (\d+), ratio \S+ \| branches bridge (\d+), AFL\+\+ (\d+),")
CMPLOG = re.compile(r"^cmplog (\S+)\s+(\d+)\s+execs bridge \d+, AFL\+\+ with cmplog (\d+), ratio \S+ \| "
                    r"branches bridge \d+, AFL\+\+ with cmplog (\d+),")
FOUND = re.compile(r"^found (\S+)\s+(\d+)\s+failure signatures: bridge (\d+), AFL\+\+ (\d+), "
                   r"AFL\+\+ with cmplog (\d+), only the bridge's (\d+)")
SIZES = re.compile(r"^sizes (\S+)\s+(\d+)\s+queue median bytes: bridge (\d+), AFL\+\+ (\d+), AFL\+\+ with cmplog (\d+)")
TOOLS = ("bridge", "afl", "cmplog")
REACH = re.compile(r"^bridge reaches (\S+)'s final \d+ branch outcomes at: (\d+ s|never)")
LIMIT_S = 300


def read(outs):
    """{(subject, seed): {field: value}} from the outputs' afl.txt and covtime files."""
    cells = {}
    for out in outs:
        path = os.path.join(out, "afl.txt")
        if not os.path.isfile(path):
            sys.exit(f"matrix.py: {path} missing (an output of scripts/bench/libs.sh?)")
        for line in open(path, encoding="utf-8"):
            for pattern, names in ((ALONE, ("execs", "afl_execs", "bridge", "afl")),
                                   (CMPLOG, ("cmplog_execs", "cmplog")),
                                   (FOUND, ("sig_bridge", "sig_afl", "sig_cmplog", "sig_only")),
                                   (SIZES, ("size_bridge", "size_afl", "size_cmplog"))):
                m = pattern.match(line)
                if m:
                    cell = cells.setdefault((m.group(1), int(m.group(2))), {})
                    cell.update({n: int(v) for n, v in zip(names, m.groups()[2:])})
        for (subject, seed), cell in cells.items():
            covtime = os.path.join(out, f"{subject}-{seed}.covtime")
            if os.path.isfile(covtime):
                columns = None
                for line in open(covtime, encoding="utf-8"):
                    words = line.split()
                    if words[:1] == ["seconds"]:
                        columns = words[1:]
                        cell["curves"] = {c: [] for c in columns}
                    elif columns and len(words) == len(columns) + 1 and all(w.isdigit() for w in words[1:]):
                        for c, v in zip(columns, words[1:]):
                            cell["curves"][c].append((float(words[0]), int(v)))
                    m = REACH.match(line)
                    if m:
                        cell[f"reach_{m.group(1)}"] = None if m.group(2) == "never" else int(m.group(2).split()[0])
    return cells


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt(x, digits=3):
    """A ratio with `digits` decimals."""
    return "–" if x is None else f"{x:.{digits}f}"


def count(x):
    """A count (a mean of counts rounded) with thousands separated."""
    return "–" if x is None else f"{round(x):,}"


def reach(cell, key):
    if key not in cell:
        return None, "–"
    t = cell[key]
    return t, "never" if t is None else f"{t} s"


def at_values(c):
    """Each tool's coverage at the last checkpoint within LIMIT_S (None
    without its curve); a row of means carries them as `at`."""
    if "at" in c:
        return c["at"]
    curves = c.get("curves", {})
    got = []
    for tool in TOOLS:
        points = [v for t, v in curves.get(tool, []) if t <= LIMIT_S]
        got.append(points[-1] if points else None)
    return got


def at_limit(c):
    """`bridge / AFL++ / cmplog` at LIMIT_S."""
    return " / ".join(count(v) for v in at_values(c))


def row(label, c):
    ra = ratio(c.get("bridge"), c.get("afl"))
    rc = ratio(c.get("bridge"), c.get("cmplog"))
    re_ = ratio(c.get("execs"), c.get("afl_execs"))
    rec = ratio(c.get("execs"), c.get("cmplog_execs"))
    _, ta = reach(c, "reach_afl")
    _, tc = reach(c, "reach_cmplog")
    sig = "–" if "sig_bridge" not in c else \
        f"{c['sig_bridge']} / {c['sig_afl']} / {c['sig_cmplog']} ({c['sig_only']} only the bridge's)"
    sizes = "–" if "size_bridge" not in c else f"{c['size_bridge']} / {c['size_afl']} / {c['size_cmplog']}"
    return (f"| {label} | {count(c.get('bridge'))} | {count(c.get('afl'))} | {count(c.get('cmplog'))} | "
            f"**{fmt(ra)}** | **{fmt(rc)}** | {ta} | {tc} | {at_limit(c)} | {fmt(re_, 2)} | {fmt(rec, 2)} | {sig} | {sizes} |")


def mean(cells, key):
    xs = [c[key] for c in cells if c.get(key) is not None]
    return statistics.mean(xs) if xs else None


def first_reach(points, final):
    """The first checkpoint at which `points` reach `final`, or None."""
    return next((t for t, c in points if c >= final), None)


def reach_by_tool(mine):
    """Per tool, (runs that reached a run of AFL++ plain's final within
    LIMIT_S, runs set against one), every run of the tool against every
    AFL++ run (AFL++ against its other seeds)."""
    curves = [c["curves"] for c in mine if "curves" in c and all(t in c["curves"] for t in TOOLS)]
    got = {}
    for tool in TOOLS:
        hits = pairs = 0
        for i, a in enumerate(curves):
            for j, b in enumerate(curves):
                if tool == "afl" and i == j or not a[tool] or not b["afl"]:
                    continue
                pairs += 1
                t = first_reach(a[tool], b["afl"][-1][1])
                hits += t is not None and t <= LIMIT_S
        got[tool] = (hits, pairs)
    return got


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 else 2)
    cells = read(sys.argv[1:])
    print("| subject, seed | bridge | AFL++ | cmplog | ÷ AFL++ | ÷ cmplog | reaches AFL++'s final at | "
          "reaches cmplog's final at | at 300 s bridge / AFL++ / cmplog | execs ÷ AFL++ | execs ÷ cmplog | failure signatures bridge / AFL++ / cmplog | "
          "queue median bytes bridge / AFL++ / cmplog |")
    print("|" + "---|" * 13)
    subjects = sorted({s for s, _ in cells}, key=lambda s: min(k for k, (x, _) in enumerate(cells) if x == s))
    summary = []
    for s in subjects:
        seeds = sorted(seed for x, seed in cells if x == s)
        for seed in seeds:
            print(row(f"{s}, {seed}", cells[(s, seed)]))
        mine = [cells[(s, seed)] for seed in seeds]
        if len(seeds) > 1:
            m = {k: mean(mine, k) for k in ("bridge", "afl", "cmplog", "execs", "afl_execs", "cmplog_execs")}
            ats = [at_values(c) for c in mine]
            m["at"] = [statistics.mean(xs) if (xs := [a[i] for a in ats if a[i] is not None]) else None
                       for i in range(len(TOOLS))]
            print(row(f"**{s}, mean of {len(seeds)}**", m))
        # Targets, seed by seed.
        afl_ok = sum(1 for c in mine if (ratio(c.get("bridge"), c.get("afl")) or 0) >= 1.2)
        cmplog_ok = sum(1 for c in mine if (ratio(c.get("bridge"), c.get("cmplog")) or 0) >= 1.0)
        reach_ok = sum(1 for c in mine if c.get("reach_afl") is not None and c["reach_afl"] <= LIMIT_S)
        execs_ok = sum(1 for c in mine if (ratio(c.get("execs"), c.get("afl_execs")) or 0) >= 0.5)
        libs = f"≥ 1.2 × AFL++ on {afl_ok}; " if s.endswith("-fuzz") else ""
        summary.append(f"- {s}: ≥ 1.0 × cmplog on {cmplog_ok} of {len(mine)} seeds; {libs}"
                       f"AFL++'s final reached within "
                       f"{LIMIT_S} s on {reach_ok} of {len(mine)}; execs ≥ 0.5 × AFL++'s on {execs_ok} of {len(mine)}")
    print()
    print("Targets met, seed by seed:")
    print("\n".join(summary))
    lines = []
    for s in subjects:
        mine = [cells[(s, seed)] for seed in sorted(seed for x, seed in cells if x == s)]
        got = reach_by_tool(mine) if len(mine) > 1 else {}
        if got and all(p for _, p in got.values()):
            (bh, bp), (ah, ap), (ch, cp) = (got[t] for t in TOOLS)
            lines.append(f"- {s}: the bridge {bh} of {bp}, AFL++ with cmplog {ch} of {cp}, "
                         f"AFL++ (another seed's run) {ah} of {ap}")
    if lines:
        print()
        print(f"A run of AFL++ plain's final reached within {LIMIT_S} s, every run against every AFL++ run:")
        print("\n".join(lines))


if __name__ == "__main__":
    main()
