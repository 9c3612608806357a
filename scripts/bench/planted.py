#!/usr/bin/env python3
"""The planted bugs of the examples written as users write them, at -O2.

  scripts/bench/planted.py [--time 60] [--seeds 3] [--out DIR] [--examples interp,hexdump]

`tlv`, `stackfmt`, `accum` and `clamp` carry bugs only a sanitizer sees:
they are built with `-fsanitize=address,undefined -fno-sanitize-recover=all`
(the plain build too), a bug is named by its report's kind, a kept input
counts as failing on the plain build when that build's report has the same
kind, and the table also says where each bug was first seen (unit level:
a lifted alarm came first; system level: a crash of a system test) and
how many false alarms the campaigns filtered (`clamp`'s helper overflows
its table only for arguments its caller never passes).

For `interp`, `hexdump` and `inlined` (no annotations, built with
`carve-clang -O2`): `bridge run --unit symbolic` for each seed, two
campaigns at once (an output directory that holds a finished campaign is
reviewed again, not run again), then `bridge review --json`. Per planted bug (named by
the innermost program function of its signature): in how many campaigns
it was found at all, in how many the unit level lifted it (a kept alarm
under `alarms/` carries its signature, whoever found it first), the
median time of the first lift (`report.json`'s `found_after_s`), and
whether every kept input of it fails the same way on a plain `clang-19
-O2` build of the same source.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(REPO, "target", "release")
BRIDGE = os.path.join(TOOLS, "bridge")
# The planted bugs, by the function their failure stops in and its kind
# (see each example's header).
BUGS = {
    "interp": {("cmd_div", "SIGFPE"): "div INT_MIN by -1", ("cmd_show", "SIGSEGV"): "show x bin",
               ("push_one", "SIGABRT"): "push wraps the room check",
               ("cmd_poke", "SIGSEGV"): "poke a large negative index"},
    "hexdump": {("apply", "SIGFPE"): "align=0", ("parse_hex", "SIGSEGV"): "empty data list",
                ("apply", "SIGSEGV"): "len wraps the range check"},
    "inlined": {("store", "SIGABRT"): "32-bit address wrap in the inlined store()"},
    "tlv": {("set_title", "heap-buffer-overflow WRITE 1"): "a title of exactly 48 bytes",
            ("main", "heap-use-after-free READ 8"): "the longest entry deleted, then printed",
            ("add_entry", "heap-use-after-free READ 8"): "the longest entry deleted, then compared"},
    "stackfmt": {("expand", "stack-buffer-overflow WRITE 1"): "a field that ends at column 72"},
    "accum": {("main", "signed-integer-overflow"): "quantity x price past INT_MAX"},
    "clamp": {},
}
SANITIZED = {"tlv", "stackfmt", "accum", "clamp"}
SANFLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def build(work, name):
    src = os.path.join(REPO, "examples", name, f"{name}.c")
    carve, plain = os.path.join(work, name), os.path.join(work, f"{name}.plain")
    flags = SANFLAGS if name in SANITIZED else []
    sh([os.path.join(TOOLS, "carve-clang"), "-O2", "-g", *flags, "-o", carve, src])
    sh(["clang-19", "-O2", "-g", *flags, "-o", plain, src])
    return carve, plain


def campaign(work, name, carve, seed, seconds):
    out = os.path.join(work, f"out-{name}-{seed}")
    seeds = os.path.join(REPO, "examples", name, "seeds")
    if not os.path.exists(os.path.join(out, "campaign.json")):
        subprocess.run([BRIDGE, "run", "--unit", "symbolic", "--seed", str(seed), "-i", seeds, "-o", out,
                        "--time", f"{seconds}s", "--", carve, "@@"], capture_output=True)
        if not os.path.exists(os.path.join(out, "campaign.json")):
            print(f"campaign {name} seed {seed} died: see {out}", file=sys.stderr)
    review = json.loads(sh([BRIDGE, "review", out, "--json"]).stdout)
    return out, review


def bug_of(sig):
    """The innermost program function of a signature, and its kind."""
    kind = sig["signature"]["kind"]
    kind = next(iter(kind.values())) if isinstance(kind, dict) else str(kind)
    for f in sig["signature"]["frames"]:
        if f.get("module") == "-" or f.get("module", "").startswith("+"):
            return (f["function"], kind)
    return ("?", kind)


def report_kind(stderr):
    """The kind a sanitizer's report names (its first word), or None."""
    for line in stderr.splitlines():
        if "ERROR: AddressSanitizer: " in line:
            return line.split("ERROR: AddressSanitizer: ")[1].split()[0]
        if "runtime error: " in line:
            return "runtime-error"
    return None


def fails_on_plain(plain, path, kind=None):
    """Whether the plain build fails on the input (a sanitized build: with
    a report of the same kind)."""
    if kind is not None:
        with open(path, "rb") as f:
            data = f.read()
        with tempfile.NamedTemporaryFile(delete=False) as t:
            t.write(data)
        try:
            env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
            r = subprocess.run([plain, t.name], capture_output=True, timeout=10, env=env)
            got = report_kind(r.stderr.decode("utf-8", "replace"))
            want = kind.split()[0]
            # UBSan's checks all say "runtime error"; ASan's name the kind.
            asan = want.split("-")[0] in ("heap", "stack", "global", "double", "SEGV", "alloc", "bad", "memory")
            return got == want if asan else got == "runtime-error"
        except subprocess.TimeoutExpired:
            return False
        finally:
            os.unlink(t.name)
    return fails_plain_signal(plain, path)


def fails_plain_signal(plain, path):
    with open(path, "rb") as f:
        data = f.read()
    with tempfile.NamedTemporaryFile(delete=False) as t:
        t.write(data)
    try:
        r = subprocess.run([plain, t.name], capture_output=True, timeout=10)
        return r.returncode < 0 or r.returncode >= 128
    except subprocess.TimeoutExpired:
        return False
    finally:
        os.unlink(t.name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--time", type=int, default=60)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--out")
    ap.add_argument("--examples", default=",".join(BUGS), help="comma-separated, of: " + ", ".join(BUGS))
    a = ap.parse_args()
    examples = a.examples.split(",")
    unknown = [e for e in examples if e not in BUGS]
    if unknown:
        ap.error(f"no planted bugs known for {', '.join(unknown)}")
    work = a.out or tempfile.mkdtemp(prefix="planted-")
    os.makedirs(work, exist_ok=True)
    builds = {n: build(work, n) for n in examples}
    jobs = [(n, s) for n in examples for s in range(1, a.seeds + 1)]
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda j: (j, campaign(work, j[0], builds[j[0]][0], j[1], a.time)), jobs))
    rows = {}
    for (name, seed), (out, review) in results:
        for sig in review["signatures"]:
            fn = bug_of(sig)
            r = rows.setdefault((name, fn), {"found": 0, "lifted": 0, "times": [], "plain": [0, 0], "unit_first": 0})
            r["found"] += 1
            alarms = [f for f in sig["findings"] if f.startswith("alarms/")]
            if alarms:
                r["lifted"] += 1
                times = []
                for f in alarms:
                    with open(os.path.join(out, f, "report.json")) as fh:
                        times.append(json.load(fh)["found_after_s"])
                r["times"].append(min(times))
            # Where it was first seen: the earliest of its findings.
            when = [(t if t is not None else float("inf"), f) for f, t in zip(sig["findings"], sig.get("found_after_s", []))]
            if when and min(when)[1].startswith("alarms/"):
                r["unit_first"] += 1
            for inp in sig["inputs"]:
                r["plain"][1] += 1
                r["plain"][0] += fails_on_plain(builds[name][1], inp, fn[1] if name in SANITIZED else None)
    n = a.seeds
    print(f"{a.time} s campaigns, seeds 1..{n}, outputs in {work}\n")
    print("| example | planted bug | found | lifted by the unit level | first seen at unit level | first lift (median s) | kept inputs failing on plain -O2 |")
    print("|---|---|---|---|---|---|---|")
    empty = {"found": 0, "lifted": 0, "times": [], "plain": [0, 0], "unit_first": 0}
    for name in examples:
        for fn, what in BUGS[name].items():
            r = rows.pop((name, fn), dict(empty))
            t = f"{statistics.median(r['times']):.1f}" if r["times"] else "-"
            print(f"| {name} | {what} (`{fn[0]}`, {fn[1]}) | {r['found']}/{n} | {r['lifted']}/{n} | {r['unit_first']}/{r['found']} | {t} | {r['plain'][0]}/{r['plain'][1]} |")
    for (name, fn), r in sorted(rows.items()):
        print(f"| {name} | not planted (`{fn[0]}`, {fn[1]}) | {r['found']}/{n} | {r['lifted']}/{n} | {r['unit_first']}/{r['found']} | | {r['plain'][0]}/{r['plain'][1]} |")
    print()
    for name in examples:
        false = true = 0
        for (nm, _), (out, _) in results:
            if nm == name:
                with open(os.path.join(out, "campaign.json")) as fh:
                    st = json.load(fh)["stats"]
                false += st.get("false_alarms", 0)
                true += st.get("true_alarms", 0)
        print(f"{name}: {true} true alarms lifted, {false} false alarms filtered, over {n} campaigns")


if __name__ == "__main__":
    sys.exit(main())
