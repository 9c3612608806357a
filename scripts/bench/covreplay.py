#!/usr/bin/env python3
"""Branch coverage of campaigns, measured outside the tool: every test of
each campaign output (queue/, crashes/, hangs/, alarms/*/input) is run on a
source-based coverage build of the subject (clang-19
-fprofile-instr-generate -fcoverage-mapping: scripts/subjects.sh --variant
cov), and llvm-cov-19 counts the branch outcomes the profiles cover.

Tests carry their command line on the first line (--args-in-input), `@@`
standing for a file that holds the rest (without `@@`, the rest is stdin).
Each run happens in a scratch directory with a 2 s limit; a run killed by
a signal or the limit writes no profile (not counted), as the tools' own
counters would count it, and a command line the kernel refuses runs
nothing: the number of such runs is printed ("killed").

  scripts/bench/covreplay.py BIN OUT [OUT...]      one row per OUT
  scripts/bench/covreplay.py --union BIN OUT...    also the union of all
  scripts/bench/covreplay.py --union-only BIN OUT...  the union alone (each test runs once)

After --union or --union-only, `--profdata FILE` keeps the union's merged
profile, for `llvm-cov-19 report -instr-profile FILE BIN` (which files the
union leaves uncovered).

An output with none of queue/, crashes/, hangs/ and alarms/ is a directory of tests
(scripts/bench/probes/SUBJECT).

`--argv 'WORDS'` (first) gives one fixed command line instead (tests are
the input alone, as AFL++ and `bridge run` without --args-in-input keep
them). An output directory may be an AFL++ sync directory's instance.
"""
import concurrent.futures
import json
import os
import queue
import shlex
import shutil
import subprocess
import sys
import tempfile

LLVM = {"profdata": "llvm-profdata-19", "cov": "llvm-cov-19"}


def tests_of(out):
    for sub in ("queue", "crashes", "hangs"):
        d = os.path.join(out, sub)
        if os.path.isdir(d):
            for f in sorted(os.listdir(d)):
                p = os.path.join(d, f)
                # Entries are named `id:...` (AFL++'s README.txt is not one).
                if os.path.isfile(p) and f.startswith("id:"):
                    yield p
    if not any(os.path.isdir(os.path.join(out, sub)) for sub in ("queue", "crashes", "hangs", "alarms")):
        for f in sorted(os.listdir(out)):
            p = os.path.join(out, f)
            if os.path.isfile(p):
                yield p
    alarms = os.path.join(out, "alarms")
    if os.path.isdir(alarms):
        for a in sorted(os.listdir(alarms)):
            p = os.path.join(alarms, a, "input")
            if os.path.isfile(p):
                yield p


def run_one(binary, test, scratch, profdir, fixed=None):
    data = open(test, "rb").read()
    if fixed is not None:
        words, rest = fixed, data
    else:
        line, _, rest = data.partition(b"\n")
        try:
            words = shlex.split(line.decode("latin-1"))
        except ValueError:
            words = line.decode("latin-1").split()
    infile = os.path.join(scratch, "input")
    with open(infile, "wb") as f:
        f.write(rest)
    uses_file = "@@" in words
    # A word ends at its first NUL, as the program's argv does.
    argv = [binary] + [infile if w == "@@" else w.split("\0", 1)[0] for w in words]
    env = {"PATH": "/usr/bin:/bin", "HOME": scratch, "LC_ALL": "C",
           # `%m`: each run adds its counters into one file per binary
           # (the profile runtime merges at exit, under a lock), not a file
           # of its own per run: thousands of runs of a large library made
           # gigabytes of raw profiles, and their merge took minutes.
           "LLVM_PROFILE_FILE": os.path.join(profdir, "%m.profraw")}
    stdin = subprocess.DEVNULL if uses_file else open(infile, "rb")
    try:
        r = subprocess.run([a.encode("latin-1") if isinstance(a, str) else a for a in argv],
                           cwd=scratch, env=env, stdin=stdin, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=2)
        lost = r.returncode < 0
    except subprocess.TimeoutExpired:
        lost = True
    except OSError:
        # A command line the kernel refuses (E2BIG): the program never ran.
        lost = True
    finally:
        if stdin is not subprocess.DEVNULL:
            stdin.close()
    for f in os.listdir(scratch):
        p = os.path.join(scratch, f)
        if os.path.isfile(p):
            os.unlink(p)
    return lost


def branches(binary, profdir):
    raws = [os.path.join(profdir, f) for f in os.listdir(profdir) if f.endswith(".profraw")]
    if not raws:
        return 0, 0
    merged = os.path.join(profdir, "merged.profdata")
    with tempfile.NamedTemporaryFile("w", suffix=".list", delete=False) as lst:
        lst.write("\n".join(raws))
    subprocess.run([LLVM["profdata"], "merge", "-sparse", "-f", lst.name, "-o", merged], check=True)
    os.unlink(lst.name)
    j = subprocess.run([LLVM["cov"], "export", "-summary-only", "-instr-profile", merged, binary],
                       check=True, capture_output=True).stdout
    t = json.loads(j)["data"][0]["totals"]["branches"]
    return t["covered"], t["count"]


def run_all(binary, tests, profdir, fixed=None):
    """Runs `tests`, as many at a time as this process may use cores (one
    under `taskset -c N`), each in a scratch directory of its own; returns
    how many were lost (killed or never run)."""
    jobs = max(1, len(os.sched_getaffinity(0)))
    with tempfile.TemporaryDirectory() as work:
        scratches = []
        for k in range(jobs):
            d = os.path.join(work, str(k))
            os.mkdir(d)
            os.chmod(d, 0o755)
            scratches.append(d)
        if jobs == 1:
            return sum(run_one(binary, t, scratches[0], profdir, fixed) for t in tests)
        free = queue.Queue()
        for d in scratches:
            free.put(d)

        def one(t):
            d = free.get()
            try:
                return run_one(binary, t, d, profdir, fixed)
            finally:
                free.put(d)

        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            return sum(pool.map(one, tests))


def measure(binary, outs, profdir, fixed=None):
    tests = [t for out in outs for t in tests_of(out)]
    lost = run_all(binary, tests, profdir, fixed)
    covered, total = branches(binary, profdir)
    return len(tests), lost, covered, total


def main():
    args = sys.argv[1:]
    fixed = None
    if args[:1] == ["--argv"] and len(args) > 1:
        fixed, args = shlex.split(args[1]), args[2:]
    union = each = True
    profdata = None
    if args[:1] == ["--union"]:
        args = args[1:]
    elif args[:1] == ["--union-only"]:
        args, each = args[1:], False
    else:
        union = False
    if union and args[:1] == ["--profdata"] and len(args) > 1:
        profdata, args = os.path.abspath(args[1]), args[2:]
    if len(args) < 2:
        sys.exit(__doc__)
    binary, outs = os.path.abspath(args[0]), args[1:]
    print(f"{'output':<40} {'tests':>6} {'killed':>6} {'branches':>9} {'of':>6}")
    for out in outs if each else []:
        with tempfile.TemporaryDirectory() as prof:
            n, lost, c, t = measure(binary, [out], prof, fixed)
        print(f"{out:<40} {n:6d} {lost:6d} {c:9d} {t:6d}")
    if union:
        with tempfile.TemporaryDirectory() as prof:
            n, lost, c, t = measure(binary, outs, prof, fixed)
            if profdata and n:
                shutil.copyfile(os.path.join(prof, "merged.profdata"), profdata)
        print(f"{'(union)':<40} {n:6d} {lost:6d} {c:9d} {t:6d}")


if __name__ == "__main__":
    main()
