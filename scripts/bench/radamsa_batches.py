#!/usr/bin/env python3
"""A coverage-guided campaign with the real radamsa (pyradamsa), run with the
batch protocol of `bridge run`, so the two generators can be compared:

  the seeds run first; then, until the time budget is spent: pick parents
  uniformly at random (seeded) from the current corpus (seeds and kept
  inputs), make a batch of mutants with pyradamsa in a fresh temporary
  directory, run it with

    bridge exec --json [--args-in-input] --state STATE --save-new CORPUS \
                -c BATCHDIR -- PROG ARGS

  (cumulative coverage; the inputs that add coverage join the corpus), and
  append a row to coverage.csv. Generation and execution both count against
  the budget; the last batch may end past it (by at most one batch).

  radamsa_batches.py --seeds DIR --out DIR --time SECONDS --seed N
                     [--batch 100] [--bridge PATH] [--timeout MS]
                     [--mem-limit MB] [--args-in-input] -- PROG [ARGS...]

Writes into --out (which must not exist, or be empty):
  corpus/         the seeds (id:NNNNNN,orig:NAME) and the kept inputs
                  (id:NNNNNN,src:PPPPPP,batch:BBBBBB)
  crashes/, hangs/  inputs that added coverage and crashed (timed out); as in
                  `bridge run`, they are not parents
  coverage.csv    seconds,execs,edges,edges_total,branches,branches_total,
                  branch_pct,queue,unique_crashes (the columns of `bridge
                  run`'s coverage.csv), one row after the seeds and after
                  each batch
  state           the cumulative coverage (bridge exec --state)
  summary.json    final figures
Mutants are at most max(4 x parent, 64 KiB) bytes, never more than 1 MiB (the
bounds of bridge's radamsa-like generator), through pyradamsa's max_mut.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

SOFT_CAP = 64 << 10
HARD_CAP = 1 << 20
CSV_HEADER = "seconds,execs,edges,edges_total,branches,branches_total,branch_pct,queue,unique_crashes"


def die(msg):
    print(f"radamsa_batches.py: error: {msg}", file=sys.stderr)
    sys.exit(1)


def size_limit(n):
    return min(max(4 * n, SOFT_CAP), HARD_CAP)


def parse_args(argv):
    if "--" not in argv:
        die("the target goes after '--': ... -- PROG [ARGS...]")
    cut = argv.index("--")
    own, target = argv[:cut], argv[cut + 1:]
    if not target:
        die("no target after '--'")
    p = argparse.ArgumentParser(prog="radamsa_batches.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", required=True, help="directory of seed inputs")
    p.add_argument("--out", required=True, help="output directory (must not exist, or be empty)")
    p.add_argument("--time", required=True, type=float, help="time budget in seconds")
    p.add_argument("--seed", required=True, type=int, help="seed of the parent picks and of radamsa")
    p.add_argument("--batch", type=int, default=100, help="mutants per batch (default 100)")
    p.add_argument("--bridge", default="bridge", help="the bridge binary (default: bridge on PATH)")
    p.add_argument("--timeout", type=int, default=1000, help="per-run limit in ms (default 1000)")
    p.add_argument("--mem-limit", type=int, default=1024, help="address-space limit in MiB (default 1024)")
    p.add_argument("--args-in-input", action="store_true", help="the first line of each test holds the arguments")
    a = p.parse_args(own)
    if a.time <= 0 or a.batch < 1:
        die("--time must be positive and --batch at least 1")
    return a, target


class Campaign:
    def __init__(self, a, target):
        try:
            import pyradamsa
        except ImportError:
            die("the Python module pyradamsa is missing: install it with scripts/install-deps.sh --bench "
                "(or: python3 -m pip install pyradamsa==0.1.1)")
        self.radamsa = pyradamsa.Radamsa()
        self.a = a
        self.target = target
        self.rng = random.Random(a.seed)
        self.out = os.path.abspath(a.out)
        self.corpus_dir = os.path.join(self.out, "corpus")
        self.state = os.path.join(self.out, "state")
        self.work = os.path.join(self.out, "work")
        self.corpus = []  # (id, bytes), in the order found
        self.next_id = 0
        self.execs = 0
        self.batches = 0
        self.unchanged = 0
        self.crashes = 0
        self.hangs = 0
        self.kept_crashes = 0
        self.kept_hangs = 0
        self.last = {}
        self.started = None

    def elapsed(self):
        return time.monotonic() - self.started

    def bridge_exec(self, corpus_dir, save_new):
        cmd = [self.a.bridge, "exec", "--json", "-t", str(self.a.timeout), "-m", str(self.a.mem_limit),
               "--state", self.state, "-c", corpus_dir]
        if save_new:
            cmd += ["--save-new", save_new]
        if self.a.args_in_input:
            cmd.append("--args-in-input")
        cmd += ["--"] + self.target
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            die(f"bridge exec failed (exit {p.returncode}): {' '.join(cmd)}\n{p.stderr.strip()}")
        try:
            return json.loads(p.stdout)
        except json.JSONDecodeError:
            die(f"bridge exec printed no JSON: {' '.join(cmd)}\n{p.stdout[:2000]}\n{p.stderr.strip()}")

    def record(self, s):
        self.execs += s["runs"]
        self.crashes += s["crashes"]
        self.hangs += s["timeouts"]
        self.last = s
        pct = 100.0 * s["branches"] / max(s["branches_total"], 1)
        row = (f"{self.elapsed():.3f},{self.execs},{s['edges']},{s['edges_total']},{s['branches']},"
               f"{s['branches_total']},{pct:.3f},{len(self.corpus)},{self.kept_crashes}")
        with open(os.path.join(self.out, "coverage.csv"), "a") as f:
            f.write(row + "\n")

    def start(self):
        if os.path.exists(self.out) and os.listdir(self.out):
            die(f"{self.out} exists and is not empty")
        seeds = sorted(f for f in os.listdir(self.a.seeds) if os.path.isfile(os.path.join(self.a.seeds, f)))
        if not seeds:
            die(f"no seed in {self.a.seeds}")
        for d in (self.out, self.corpus_dir, self.work, os.path.join(self.out, "crashes"),
                  os.path.join(self.out, "hangs")):
            os.makedirs(d, exist_ok=True)
            os.chmod(d, 0o755)
        with open(os.path.join(self.out, "coverage.csv"), "w") as f:
            f.write(CSV_HEADER + "\n")
        self.started = time.monotonic()
        for name in seeds:
            with open(os.path.join(self.a.seeds, name), "rb") as f:
                data = f.read()
            with open(os.path.join(self.corpus_dir, f"id:{self.next_id:06d},orig:{name}"), "wb") as f:
                f.write(data)
            self.corpus.append((self.next_id, data))
            self.next_id += 1
        self.record(self.bridge_exec(self.corpus_dir, None))

    def batch(self):
        self.batches += 1
        b = self.batches
        bdir = tempfile.mkdtemp(prefix=f"batch{b:06d}.", dir=self.work)
        os.chmod(bdir, 0o755)
        parents = {}
        for i in range(self.a.batch):
            pid, data = self.rng.choice(self.corpus)
            data = data[:HARD_CAP]
            mutant = self.radamsa.fuzz(data, seed=self.rng.getrandbits(32), max_mut=size_limit(len(data)))
            if mutant == data:
                self.unchanged += 1
            name = f"batch:{b:06d},n:{i:04d}"
            parents[name] = pid
            with open(os.path.join(bdir, name), "wb") as f:
                f.write(mutant)
        new_dir = os.path.join(self.work, "new")
        os.makedirs(new_dir, exist_ok=True)
        os.chmod(new_dir, 0o755)
        s = self.bridge_exec(bdir, new_dir)
        failed = {}
        for entry in s.get("crashing_inputs", []):
            failed[os.path.basename(entry.rsplit(" (", 1)[0])] = "crashes"
        for entry in s.get("hanging_inputs", []):
            failed[os.path.basename(entry)] = "hangs"
        # In the order run (bridge exec runs a directory sorted by name).
        for name in sorted(os.listdir(new_dir)):
            src = os.path.join(new_dir, name)
            pid = parents.get(name, 0)
            if name in failed:
                kind = failed[name]
                if kind == "crashes":
                    n = self.kept_crashes
                    self.kept_crashes += 1
                else:
                    n = self.kept_hangs
                    self.kept_hangs += 1
                shutil.move(src, os.path.join(self.out, kind, f"id:{n:06d},src:{pid:06d},batch:{b:06d}"))
                continue
            with open(src, "rb") as f:
                data = f.read()
            shutil.move(src, os.path.join(self.corpus_dir, f"id:{self.next_id:06d},src:{pid:06d},batch:{b:06d}"))
            self.corpus.append((self.next_id, data))
            self.next_id += 1
        shutil.rmtree(bdir)
        self.record(s)

    def run(self):
        self.start()
        while self.elapsed() < self.a.time:
            self.batch()
        elapsed = self.elapsed()
        shutil.rmtree(self.work, ignore_errors=True)
        s = self.last
        summary = {
            "tool": "radamsa (pyradamsa " + pyradamsa_version() + ")",
            "seed": self.a.seed,
            "time_budget_s": self.a.time,
            "elapsed_s": round(elapsed, 3),
            "batches": self.batches,
            "batch": self.a.batch,
            "execs": self.execs,
            "execs_per_sec": round(self.execs / max(elapsed, 1e-9), 1),
            "unchanged_mutants": self.unchanged,
            "corpus": len(self.corpus),
            "crashes": self.crashes,
            "hangs": self.hangs,
            "kept_crashes": self.kept_crashes,
            "kept_hangs": self.kept_hangs,
            "edges": s["edges"],
            "edges_total": s["edges_total"],
            "branches": s["branches"],
            "branches_total": s["branches_total"],
            "branch_pct": round(100.0 * s["branches"] / max(s["branches_total"], 1), 3),
            "command": self.target,
            "args_in_input": self.a.args_in_input,
        }
        with open(os.path.join(self.out, "summary.json"), "w") as f:
            json.dump(summary, f, indent=2)
            f.write("\n")
        print(f"radamsa_batches.py: {self.execs} execs in {elapsed:.0f} s ({self.batches} batches); "
              f"{s['branches']} of {s['branches_total']} branch outcomes ({summary['branch_pct']:.1f} %), "
              f"{s['edges']} edges; corpus {len(self.corpus)}; {self.crashes} crashes, {self.hangs} hangs")


def pyradamsa_version():
    try:
        from importlib.metadata import version
        return version("pyradamsa")
    except Exception:  # noqa: BLE001 - the version is only informative
        return "?"


def main():
    a, target = parse_args(sys.argv[1:])
    Campaign(a, target).run()


if __name__ == "__main__":
    main()
