#!/usr/bin/env python3
"""Branch coverage over time, measured outside the tools: every test of
each output is run once on the llvm-cov build of the subject (as
covreplay.py runs them), and the tests kept by each checkpoint are merged
into that checkpoint's coverage. A test's time is AFL++'s `time:` field
(milliseconds since the start) in its name, or else the age of its file
against the output's oldest test (a bridge campaign's seeds, `orig:`,
count from the start, as AFL++'s do).

  scripts/bench/covtime.py [--argv 'WORDS'] [--every SECS] [--plot FILE.svg]
                           BIN LABEL=OUT [LABEL=OUT...]

Prints the branch outcomes each output covers at every checkpoint, and,
for each other output, when the first one reached that output's final
coverage (`never` when it did not). With --plot, draws the curves as SVG,
and as PNG beside it when rsvg-convert is installed
(scripts/install-deps.sh --bench).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import covreplay  # noqa: E402


def timed_tests(out):
    """(seconds since the start, path) of each test of `out`, by time."""
    tests = list(covreplay.tests_of(out))
    mtimes = [os.path.getmtime(t) for t in tests]
    start = min(mtimes) if mtimes else 0.0
    timed = []
    for t, m in zip(tests, mtimes):
        name = os.path.basename(t)
        hit = re.search(r"time:(\d+)", name)
        # Seeds are there from the start, as AFL++'s `time:0` ones.
        when = 0.0 if ",orig:" in name else int(hit.group(1)) / 1000.0 if hit else m - start
        timed.append((when, t))
    return sorted(timed)


def curve(binary, out, every, fixed):
    """Covered branch outcomes at each checkpoint (every `every` seconds
    up to the last test's time), and the total."""
    timed = timed_tests(out)
    points, total = [], 0
    with tempfile.TemporaryDirectory() as work:
        merged = os.path.join(work, "merged.profdata")
        at, k = 0, 0
        last = timed[-1][0] if timed else 0.0
        while True:
            limit = k * every
            prof = os.path.join(work, f"p{k}")
            os.mkdir(prof)
            upto = at
            while upto < len(timed) and timed[upto][0] <= limit:
                upto += 1
            covreplay.run_all(binary, [t for _, t in timed[at:upto]], prof, fixed)
            at = upto
            raws = [os.path.join(prof, f) for f in os.listdir(prof) if f.endswith(".profraw")]
            if raws:
                inputs = raws + ([merged] if os.path.exists(merged) else [])
                subprocess.run([covreplay.LLVM["profdata"], "merge", "-sparse", "-o", merged + ".new"] + inputs,
                               check=True)
                os.replace(merged + ".new", merged)
            shutil.rmtree(prof)
            covered = 0
            if os.path.exists(merged):
                j = subprocess.run([covreplay.LLVM["cov"], "export", "-summary-only", "-instr-profile", merged,
                                    binary], check=True, capture_output=True).stdout
                t = __import__("json").loads(j)["data"][0]["totals"]["branches"]
                covered, total = t["covered"], t["count"]
            points.append((limit, covered))
            if limit >= last:
                return points, total
            k += 1


def svg(curves, total, path):
    """The curves as an SVG line chart."""
    w, h, pad = 720, 420, 60
    tmax = max(p[-1][0] for _, p in curves) or 1
    cmax = max(max(c for _, c in p) for _, p in curves) or 1
    x = lambda t: pad + (w - 2 * pad) * t / tmax
    y = lambda c: h - pad - (h - 2 * pad) * c / cmax
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="black"/>',
           f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="black"/>',
           f'<text x="{w / 2}" y="{h - 15}" text-anchor="middle">seconds</text>',
           f'<text x="15" y="{h / 2}" transform="rotate(-90 15 {h / 2})" text-anchor="middle">'
           f'branch outcomes (of {total})</text>']
    for i in range(5):
        t, c = tmax * i / 4, cmax * i / 4
        out.append(f'<text x="{x(t)}" y="{h - pad + 16}" text-anchor="middle">{t:.0f}</text>')
        out.append(f'<text x="{pad - 6}" y="{y(c) + 4}" text-anchor="end">{c:.0f}</text>')
    for i, (label, points) in enumerate(curves):
        color = colors[i % len(colors)]
        line = " ".join(f"{x(t):.1f},{y(c):.1f}" for t, c in points)
        out.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{line}"/>')
        out.append(f'<text x="{pad + 10}" y="{pad + 16 * i}" fill="{color}">{label}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    if shutil.which("rsvg-convert"):
        subprocess.run(["rsvg-convert", "-o", os.path.splitext(path)[0] + ".png", path], check=True)
    else:
        print(f"covtime: no rsvg-convert: {path} only (scripts/install-deps.sh --bench installs it)", file=sys.stderr)


def main():
    args = sys.argv[1:]
    fixed, every, plot = None, 30.0, None
    while args and args[0].startswith("--"):
        if args[0] == "--argv" and len(args) > 1:
            fixed, args = shlex.split(args[1]), args[2:]
        elif args[0] == "--every" and len(args) > 1:
            every, args = float(args[1]), args[2:]
        elif args[0] == "--plot" and len(args) > 1:
            plot, args = args[1], args[2:]
        else:
            sys.exit(__doc__)
    if len(args) < 2 or any("=" not in a for a in args[1:]):
        sys.exit(__doc__)
    binary = os.path.abspath(args[0])
    curves, total = [], 0
    for spec in args[1:]:
        label, out = spec.split("=", 1)
        points, total = curve(binary, out, every, fixed)
        curves.append((label, points))
    # A curve stays at its last value to the end of the longest one.
    steps = max(len(p) for _, p in curves)
    curves = [(label, p + [(k * every, p[-1][1]) for k in range(len(p), steps)]) for label, p in curves]
    width = max(len(label) for label, _ in curves)
    print(f"{'seconds':>8} " + " ".join(f"{label:>{max(width, 8)}}" for label, _ in curves))
    for k in range(steps):
        row = [p[k][1] for _, p in curves]
        print(f"{k * every:8.0f} " + " ".join(f"{c:>{max(width, 8)}}" for c in row))
    first_label, first = curves[0]
    for label, points in curves[1:]:
        final = points[-1][1]
        reached = next((t for t, c in first if c >= final), None)
        when = "never" if reached is None else f"{reached:.0f} s"
        print(f"{first_label} reaches {label}'s final {final} branch outcomes at: {when}")
    if plot:
        svg(curves, total, plot)


if __name__ == "__main__":
    main()
