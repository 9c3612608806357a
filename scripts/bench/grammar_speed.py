#!/usr/bin/env python3
"""Grammar generation speed, side by side on one grammar: the grammar
crate's bounded generator (its flat derivation tree, the form a campaign
keeps beside each test, and the same tree spelled out as `Node`s), the
Fuzzing Book's GrammarFuzzer and ProbabilisticGrammarFuzzer, and
grammarinator (the grammar translated to ANTLR 4). One core each, one
after the other; a table of inputs per second, mean bytes, and our flat
derivation's rate over each. With --seeds DIR, a row more: the grammar
system generator as a campaign runs it (mixed mode, tests derived from
the files of DIR by node edits and whole new derivations, each with its
derivation tree).

    scripts/bench/grammar_speed.py [--seconds 5] [--max-nodes 200] [--seeds DIR] GRAMMAR.json...

The outside tools are installed into a virtual environment under
~/.cache/carve-bridge/grammar-venv (pip: fuzzingbook, grammarinator).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV = os.path.expanduser("~/.cache/carve-bridge/grammar-venv")
NT = re.compile(r"(<[^<> ]+>)")


def venv_python():
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "fuzzingbook", "grammarinator"], check=True)
    return py


def ours(grammar, max_nodes, seconds):
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "grammar", "--example", "generate"], cwd=REPO, check=True)
    exe = os.path.join(REPO, "target", "release", "examples", "generate")
    out = subprocess.run([exe, grammar, str(max_nodes), str(seconds)], capture_output=True, text=True, check=True)
    rows = {}
    for line in out.stdout.splitlines():
        mode, n, secs, rate, mean_bytes, _nodes = line.split("\t")
        rows[mode] = (float(rate), float(mean_bytes))
    return rows


def campaign(grammar, seeds, seconds):
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "systemgen", "--example", "grammar_rate"], cwd=REPO, check=True)
    exe = os.path.join(REPO, "target", "release", "examples", "grammar_rate")
    out = subprocess.run([exe, grammar, seeds, str(seconds)], capture_output=True, text=True, check=True)
    _n, _secs, rate, mean_bytes, whole = out.stdout.split("\t")
    name = f"ours, campaign tests from {os.path.basename(seeds.rstrip('/'))} ({float(whole):.0%} whole derivations)"
    return {name: (float(rate), float(mean_bytes))}


FUZZINGBOOK = r"""
import json, sys, time
from fuzzingbook.GrammarFuzzer import GrammarFuzzer
from fuzzingbook.ProbabilisticGrammarFuzzer import ProbabilisticGrammarFuzzer
g = json.load(open(sys.argv[1]))
# The Fuzzing Book's form: an alternative with options is a (text, opts) tuple.
g = {k: [a if isinstance(a, str) else (a[0], a[1]) for a in v] for k, v in g.items()}
secs, max_nt = float(sys.argv[2]), int(sys.argv[3])
for name, cls in [("fuzzingbook GrammarFuzzer", GrammarFuzzer), ("fuzzingbook ProbabilisticGrammarFuzzer", ProbabilisticGrammarFuzzer)]:
    f = cls(g, max_nonterminals=max_nt)
    n, size, t0 = 0, 0, time.time()
    while time.time() - t0 < secs:
        size += len(f.fuzz())
        n += 1
    dt = time.time() - t0
    print(f"{name}\t{n / dt}\t{size / max(n, 1)}")
"""


def fuzzingbook(py, grammar, seconds, max_nt):
    out = subprocess.run([py, "-c", FUZZINGBOOK, grammar, str(seconds), str(max_nt)], capture_output=True, text=True)
    if out.returncode != 0:
        print(out.stderr[-2000:], file=sys.stderr)
        return {}
    rows = {}
    for line in out.stdout.splitlines():
        name, rate, mean = line.split("\t")
        rows[name] = (float(rate), float(mean))
    return rows


def antlr_name(nt):
    core = re.sub(r"[^A-Za-z0-9_]", "_", nt[1:-1])
    return "r_" + core


def antlr_literal(text):
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r") + "'"


def to_antlr(g, name):
    """The grammar as an ANTLR 4 combined grammar, literals as parser-rule
    tokens (grammarinator generates from the parser rules)."""
    lines = [f"grammar {name};", ""]
    for nt, alts in g.items():
        rendered = []
        for a in alts:
            text = a if isinstance(a, str) else a[0]
            parts = []
            for piece in NT.split(text):
                if not piece:
                    continue
                if NT.fullmatch(piece) and piece in g:
                    parts.append(antlr_name(piece))
                else:
                    parts.append(antlr_literal(piece))
            rendered.append(" ".join(parts) if parts else "")
        lines.append(f"{antlr_name(nt)} : " + "\n    | ".join(rendered) + "\n    ;")
    return "\n".join(lines) + "\n"


def grammarinator(py, grammar, seconds, max_depth):
    g = json.load(open(grammar))
    bindir = os.path.dirname(py)
    with tempfile.TemporaryDirectory() as d:
        name = "G" + re.sub(r"[^A-Za-z0-9]", "", os.path.basename(grammar).split(".")[0]).capitalize()
        g4 = os.path.join(d, name + ".g4")
        with open(g4, "w") as f:
            f.write(to_antlr(g, name))
        p = subprocess.run([os.path.join(bindir, "grammarinator-process"), g4, "-o", d, "--no-actions"], capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stderr[-2000:], file=sys.stderr)
            return {}
        # Calibrate with a small run, then one run sized to take about `seconds`.
        count, rate, size = 200, 0.0, 0.0
        for _ in range(3):
            outdir = os.path.join(d, "out")
            subprocess.run(["rm", "-rf", outdir])
            t0 = time.time()
            r = subprocess.run(
                [os.path.join(bindir, "grammarinator-generate"), f"{name}Generator.{name}Generator",
                 "-r", antlr_name("<start>"), "-d", str(max_depth), "-n", str(count), "-o", os.path.join(outdir, "%d"),
                 "-j", "1", "--sys-path", d],
                capture_output=True, text=True)
            dt = time.time() - t0
            if r.returncode != 0:
                print(r.stderr[-2000:], file=sys.stderr)
                return {}
            files = os.listdir(outdir)
            size = sum(os.path.getsize(os.path.join(outdir, f)) for f in files) / max(len(files), 1)
            rate = len(files) / dt
            if dt >= seconds / 2:
                break
            count = int(max(count, rate * seconds))
        return {"grammarinator (ANTLR 4 translation, one process)": (rate, size)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("grammars", nargs="+")
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--max-nodes", type=int, default=200, help="our bound on nonterminal nodes")
    ap.add_argument("--max-nonterminals", type=int, default=10, help="the Fuzzing Book's max_nonterminals")
    ap.add_argument("--max-depth", type=int, default=30, help="grammarinator's --max-depth")
    ap.add_argument("--seeds", help="a directory of inputs the grammar parses: adds the campaign's row")
    a = ap.parse_args()
    py = venv_python()
    for grammar in a.grammars:
        rows = []
        o = ours(grammar, a.max_nodes, a.seconds)
        base = o["derivation"][0]
        rows += [(f"ours, {mode}", r, m) for mode, (r, m) in o.items()]
        if a.seeds:
            rows += [(k, r, m) for k, (r, m) in campaign(grammar, a.seeds, a.seconds).items()]
        rows += [(k, r, m) for k, (r, m) in fuzzingbook(py, grammar, a.seconds, a.max_nonterminals).items()]
        rows += [(k, r, m) for k, (r, m) in grammarinator(py, grammar, a.seconds, a.max_depth).items()]
        print(f"\n{grammar}")
        print(f"| generator | inputs/s | mean bytes | ours (derivation) / it |")
        print("|---|---|---|---|")
        for name, r, m in rows:
            print(f"| {name} | {r:,.0f} | {m:.1f} | {base / r:.1f} |")


if __name__ == "__main__":
    main()
