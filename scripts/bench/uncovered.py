#!/usr/bin/env python3
"""Branch outcomes a corpus leaves uncovered, per function: every file of
the given directories (a campaign's queue/, crashes/, hangs/, lifts/...)
runs once through `bridge showmap`, and the functions with the most
uncovered outcomes are listed (uncovered, covered, total, name).
  scripts/bench/uncovered.py [--args-in-input] [--top N] BIN DIR...
"""
import argparse
import os
import subprocess
import sys
import tempfile

repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
bridge = os.path.join(repo, "target", "release", "bridge")

ap = argparse.ArgumentParser()
ap.add_argument("--args-in-input", action="store_true", help="the first line of each test holds arguments")
ap.add_argument("--top", type=int, default=20)
ap.add_argument("bin")
ap.add_argument("dirs", nargs="+")
a = ap.parse_args()

with tempfile.NamedTemporaryFile() as table:
    env = dict(os.environ, CARVE_LIST=table.name)
    subprocess.run([a.bin], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=False)
    funcs = []
    for line in open(table.name):
        w = line.rstrip("\n").split(" ", 3)
        # Function lines are `index first count name`; the dictionary's
        # lines (`token HEX`) are not functions.
        if len(w) == 4 and w[0].isdigit():
            funcs.append((int(w[1]), int(w[2]), w[3]))
if not funcs:
    sys.exit(f"uncovered.py: {a.bin} did not list its functions (not built with carve-clang?)")

covered = set()
for d in a.dirs:
    for name in sorted(os.listdir(d)):
        path = os.path.join(d, name)
        if not os.path.isfile(path):
            continue
        cmd = [bridge, "showmap", "--edges-only", "-i", path]
        cmd += ["--args-in-input"] if a.args_in_input else []
        out = subprocess.run(cmd + ["--", a.bin], capture_output=True, text=True).stdout
        covered.update(int(t) for t in out.split() if t.isdigit())

rows = []
for first, n, name in funcs:
    if n:
        c = sum(1 for s in range(first, first + n) if s in covered)
        rows.append((n - c, c, n, name))
rows.sort(reverse=True)
print(f"covered {sum(r[1] for r in rows)} of {sum(r[2] for r in rows)} branch outcomes")
for r in rows[: a.top]:
    print(f"{r[0]:6d} {r[1]:6d} {r[2]:6d}  {r[3]}")
