#!/usr/bin/env python3
"""Table 2 of "Inputs from Hell" (Pavese, Soremekun, Havrikov, Grunske,
Zeller), section 4, on C subjects: do inputs generated from a grammar whose
probabilities were learned from samples ("more of the same") make the
program call its functions as the samples do, and do inputs from the
inverted probabilities ("less of the same") reach functions the samples
never call?

    scripts/bench/hell.py [--subjects sed,dc] [--suites 100] [--size 100]
                          [--pick 5] [--sample-seed 1] [--jobs 2] [--timeout 2]
                          [--ks-draws 100] [--ks-reps 1000] [--work DIR] [--keep]
    scripts/bench/hell.py --from-results DIR/results.json
    scripts/bench/hell.py --draws DIR1/results.json DIR2/results.json...

Per subject (grammar grammars/SUBJECT.json):

1. Samples. The pool is the subject's seeds (scripts/bench/seeds.sh,
   seed_dir) plus the files of scripts/bench/samples/SUBJECT/ when that
   directory exists (sed: 10 seeds; dc: 3 seeds and 10 written samples).
   Sorted by name, --pick of them (5) are drawn with Python's
   random.Random(--sample-seed).sample; these are "the samples".
2. Generation. For each mode uniform, learned, inverse and k = 1..--suites:
   `bridge grammar G --samples <the samples> --mode M -n --size --seed k`
   writes one suite. `learned` takes each alternative's probability from
   its uses in the samples' parse trees (an alternative the samples never
   use gets 0), `inverse` the reciprocals of those counts, normalised (as
   in the paper, an unseen alternative weighs 1/0: when a nonterminal has
   unseen alternatives they share its whole mass and the seen ones get 0),
   `uniform` the probabilities the grammar file gives. A nonterminal the
   samples never expand is uniform in learned and inverse.
3. Execution. Every generated input, and each sample, runs once on the
   source-based coverage build (scripts/subjects.sh --variant cov, clang-19
   -fprofile-instr-generate -fcoverage-mapping; built when missing). The
   first line of a test is split as POSIX shell words (shlex; on a quoting
   error, on white space); the word `@@` becomes the path of a file holding
   the rest of the test (after the first newline). Each run has stdin
   /dev/null, a scratch directory as cwd and HOME, LC_ALL=C, and a --timeout
   (2 s) limit; --jobs (2) runs at a time. A run killed by the limit or a
   signal writes no profile, so its calls are not counted. The profiles of a
   mode go to one directory through LLVM_PROFILE_FILE=.../%<jobs>m.profraw
   (the runtime merges them as the runs end); `llvm-profdata-19 merge` and
   `llvm-cov-19 export` then give every function of the build with its
   execution count (the "count" of the export's "functions" entries: how
   often the function was entered, summed over all runs of the set).
4. Measures. The functions are all functions of the cov build (the
   export's list). A function is "called" by a set when its count is > 0.
   (A): functions called by a mode's suites that no sample calls.
   (B): (A) as a percentage of the functions no sample calls.
   (+%): (A) as a percentage of the functions the samples call, i.e. the
   growth of the called set over the samples' one (the wording of the
   paper's caption, "percentage increase of (A) w.r.t. sample").
   (C), (D): the smoothed bootstrapped Kolmogorov-Smirnov test. For a set,
   the data is the vector of call frequencies over all functions of the
   build: count(f) / sum of all counts, one value per function (zeros
   included). A Gaussian kernel density is fitted to each vector
   (scipy.stats.gaussian_kde, Scott's bandwidth); each repetition draws
   --ks-draws (100) values from the samples' density and as many from the
   mode's (gaussian_kde.resample, numpy generator seeded with
   --sample-seed) and runs the two-sided two-sample KS test
   (scipy.stats.ks_2samp) on the two draws. Over --ks-reps (1000)
   repetitions the median statistic and median p-value are reported.
   (C) is samples vs learned, (D) samples vs inverse; the same test against
   uniform is shown in the second table. The paper does not state its
   resample size; its (statistic, p) pairs are those of a KS test with
   about 100 values per side, which is why 100 is the default.

   For context the per-mode table also gives the plain two-sample KS test
   on the two frequency vectors themselves (no smoothing, no resampling,
   one value per function on each side).

Output: the Table 2 rows (markdown); a table per mode (inputs, accepted =
exit status 0, killed, functions called, (A), (B), (+%), the samples'
functions the mode never calls, both KS tests against the samples); per
subject the five functions with the largest share of all calls in each
set, and the functions that the inverse and the learned suites call and
the samples never do (with their counts), and the reverse. The counts and
measures go to results.json in the work directory, which is removed at
the end unless --keep or --work is given; `--from-results results.json`
prints the tables again from such a file without running anything.

numpy and scipy are installed with pip into the virtual environment
~/.cache/carve-bridge/hell-venv, and the script re-runs itself there.
"""
import argparse
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.environ.get("CARVE_CACHE", os.path.expanduser("~/.cache/carve-bridge"))
VENV = os.path.join(CACHE, "hell-venv")
BRIDGE = os.path.join(REPO, "target", "release", "bridge")
PROFDATA, COV = "llvm-profdata-19", "llvm-cov-19"
MODES = ("uniform", "learned", "inverse")


def ensure_venv():
    """Re-runs the script inside the venv holding numpy and scipy."""
    try:
        import numpy  # noqa: F401
        import scipy  # noqa: F401
        return
    except ImportError:
        pass
    py = os.path.join(VENV, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        sys.exit(f"hell.py: numpy/scipy missing in {VENV}; remove it and rerun")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    if subprocess.run([py, "-c", "import numpy, scipy"], capture_output=True).returncode != 0:
        subprocess.run([py, "-m", "pip", "install", "-q", "numpy", "scipy"], check=True)
    os.execv(py, [py, os.path.abspath(__file__)] + sys.argv[1:])


def log(msg):
    print(f"[hell {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --- samples -----------------------------------------------------------------

def sample_pool(subject, work):
    """The seeds (seed_dir) and scripts/bench/samples/SUBJECT/*, by name."""
    out = subprocess.run(["bash", "-c", f'repo="$1"; . "$1/scripts/bench/seeds.sh"; seed_dir "$2" "$3"',
                          "bash", REPO, subject, work], check=True, capture_output=True, text=True)
    seeds = out.stdout.strip().splitlines()[-1]
    pool = [(f"seed-{f}", os.path.join(seeds, f)) for f in sorted(os.listdir(seeds))]
    extra = os.path.join(REPO, "scripts", "bench", "samples", subject)
    if os.path.isdir(extra):
        pool += [(f"sample-{f}", os.path.join(extra, f)) for f in sorted(os.listdir(extra))]
    return pool


def pick_samples(subject, work, pick, seed, grammar):
    pool = sample_pool(subject, work)
    chosen = random.Random(seed).sample(pool, min(pick, len(pool)))
    d = os.path.join(work, "samples")
    os.makedirs(d, exist_ok=True)
    for name, path in chosen:
        shutil.copyfile(path, os.path.join(d, name))
    # `bridge grammar` without -n prints the learned probabilities and how
    # many samples parse; a sample that does not parse teaches nothing.
    r = subprocess.run([BRIDGE, "grammar", grammar, "--samples", d], capture_output=True, text=True)
    parsed = [ln for ln in r.stderr.splitlines() if "samples parse" in ln]
    return d, [n for n, _ in chosen], len(pool), (parsed[-1] if parsed else r.stderr.strip()[-300:])


# --- execution -----------------------------------------------------------------

_local = threading.local()


def scratch_dir(root):
    if not hasattr(_local, "scratch"):
        _local.scratch = tempfile.mkdtemp(prefix="run-", dir=root)
        os.chmod(_local.scratch, 0o755)
    return _local.scratch


def run_one(binary, test, profile, scratch_root, timeout):
    """Runs one test; returns its exit status, or "killed" (limit or
    signal) or "refused" (the kernel refused the command line)."""
    scratch = scratch_dir(scratch_root)
    data = open(test, "rb").read()
    line, _, rest = data.partition(b"\n")
    text = line.decode("latin-1")
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    infile = os.path.join(scratch, "input")
    with open(infile, "wb") as f:
        f.write(rest)
    # A word ends at its first NUL, as the program's argv does.
    argv = [binary] + [infile if w == "@@" else w.split("\0", 1)[0] for w in words]
    env = {"PATH": "/usr/bin:/bin", "HOME": scratch, "LC_ALL": "C", "LLVM_PROFILE_FILE": profile}
    try:
        r = subprocess.run([a.encode("latin-1") for a in argv], cwd=scratch, env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=timeout)
        status = "killed" if r.returncode < 0 else r.returncode
    except subprocess.TimeoutExpired:
        status = "killed"
    except OSError:
        status = "refused"
    for f in os.listdir(scratch):
        p = os.path.join(scratch, f)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p, ignore_errors=True)
        else:
            os.unlink(p)
    return status


def run_set(pool, binary, tests, profdir, scratch_root, timeout, jobs):
    """Runs tests, profiles into profdir; returns the list of statuses."""
    os.makedirs(profdir, exist_ok=True)
    profile = os.path.join(profdir, f"%{max(jobs, 1)}m.profraw")
    return list(pool.map(lambda t: run_one(binary, t, profile, scratch_root, timeout), tests))


def function_counts(binary, profdir):
    """{function: entry count} over every function of the build."""
    raws = [os.path.join(profdir, f) for f in os.listdir(profdir) if f.endswith(".profraw")]
    if not raws:
        # No run of the set ended normally: every count is 0 (the caller
        # fills the names in from the other sets).
        return {}
    merged = os.path.join(profdir, "merged.profdata")
    subprocess.run([PROFDATA, "merge", "-sparse", "-o", merged] + raws, check=True)
    args = [COV, "export", binary, "-instr-profile", merged]
    data = json.loads(subprocess.run(args, check=True, capture_output=True).stdout)
    counts = {}
    for fn in data["data"][0]["functions"]:
        name = fn["name"]
        if name in counts:
            name = f"{name} ({fn['filenames'][0]})"
        counts[name] = counts.get(name, 0) + fn["count"]
    return counts


# --- statistics ------------------------------------------------------------------

def smoothed_ks(a, b, draws, reps, seed):
    """Median KS statistic and p-value of draws from the two vectors'
    Gaussian kernel densities (see the module docstring)."""
    import numpy as np
    from scipy.stats import gaussian_kde, ks_2samp
    a, b = np.asarray(a, float), np.asarray(b, float)
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    ka, kb = gaussian_kde(a), gaussian_kde(b)
    rng = np.random.default_rng(seed)
    stats, ps = [], []
    for _ in range(reps):
        r = ks_2samp(ka.resample(draws, seed=rng).ravel(), kb.resample(draws, seed=rng).ravel())
        stats.append(r.statistic)
        ps.append(r.pvalue)
    return float(np.median(stats)), float(np.median(ps))


def plain_ks(a, b):
    """The two-sample KS test on the frequency vectors themselves."""
    from scipy.stats import ks_2samp
    r = ks_2samp(a, b)
    return float(r.statistic), float(r.pvalue)


def top_functions(counts, names, k=5):
    total = sum(counts[n] for n in names) or 1
    return [(n, counts[n] / total) for n in sorted(names, key=lambda n: (-counts[n], n))[:k]]


def frequencies(counts, names):
    total = sum(counts[n] for n in names)
    return [counts[n] / total if total else 0.0 for n in names]


def fmt_ks(ks):
    return "n/a" if ks is None else f"({ks[0]:.2f}, {ks[1]:.2g})"


def pct(x, y):
    return f"{100.0 * x / y:.2f}%" if y else "n/a"


# --- per subject -------------------------------------------------------------------

def cov_binary(subject):
    b = os.path.join(CACHE, "subjects", "bin-cov", subject)
    if not os.path.exists(b):
        log(f"{subject}: building the cov variant (scripts/subjects.sh --variant cov)")
        r = subprocess.run([os.path.join(REPO, "scripts", "subjects.sh"), "--variant", "cov",
                            "--subjects", subject])
        if r.returncode != 0 or not os.path.exists(b):
            sys.exit("hell.py: cov build failed (it needs libclang-rt-19-dev: scripts/install-deps.sh --bench)")
    return b


def generate(pool, grammar, samples, mode, suites, size, gendir):
    def one(k):
        out = os.path.join(gendir, mode, f"suite-{k:04d}")
        subprocess.run([BRIDGE, "grammar", grammar, "--samples", samples, "--mode", mode,
                        "-n", str(size), "--seed", str(k), "-o", out],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return sorted(os.path.join(out, f) for f in os.listdir(out))
    return [t for suite in pool.map(one, range(1, suites + 1)) for t in suite]


def subject_run(subject, a, work):
    grammar = os.path.join(REPO, "grammars", f"{subject}.json")
    binary = cov_binary(subject)
    sw = os.path.join(work, subject)
    os.makedirs(sw, exist_ok=True)
    samples, chosen, pool_size, parsed = pick_samples(subject, sw, a.pick, a.sample_seed, grammar)
    log(f"{subject}: samples {', '.join(chosen)} (of {pool_size}); {parsed}")
    res = {"subject": subject, "samples": chosen, "pool": pool_size, "parsed": parsed, "modes": {}}
    t0 = time.time()
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        sample_files = sorted(os.path.join(samples, f) for f in os.listdir(samples))
        st = run_set(pool, binary, sample_files, os.path.join(sw, "prof", "samples"), sw, a.timeout, a.jobs)
        counts = {"samples": function_counts(binary, os.path.join(sw, "prof", "samples"))}
        res["samples_status"] = st
        for mode in MODES:
            tm = time.time()
            tests = generate(pool, grammar, samples, mode, a.suites, a.size, os.path.join(sw, "gen"))
            tg = time.time() - tm
            st = run_set(pool, binary, tests, os.path.join(sw, "prof", mode), sw, a.timeout, a.jobs)
            counts[mode] = function_counts(binary, os.path.join(sw, "prof", mode))
            res["modes"][mode] = {
                "inputs": len(tests),
                "accepted": sum(1 for s in st if s == 0),
                "killed": sum(1 for s in st if s == "killed"),
                "refused": sum(1 for s in st if s == "refused"),
            }
            log(f"{subject}/{mode}: {len(tests)} inputs, generated in {tg:.0f}s, "
                f"run in {time.time() - tm - tg:.0f}s")
            if not a.keep:
                shutil.rmtree(os.path.join(sw, "gen", mode), ignore_errors=True)
    res["counts"] = counts
    res["seconds"] = time.time() - t0
    return res


def analyse(res, a):
    """Adds the measures of the module docstring to a subject's result."""
    counts = res["counts"]
    names = sorted(set().union(*counts.values()))
    for k in counts:
        for n in names:
            counts[k].setdefault(n, 0)
    res["functions"] = len(names)
    called_s = {n for n in names if counts["samples"][n] > 0}
    res["called_samples"] = len(called_s)
    freq_s = frequencies(counts["samples"], names)
    res["top"] = {"samples": top_functions(counts["samples"], names)}
    for mode in MODES:
        m = res["modes"][mode]
        called = {n for n in names if counts[mode][n] > 0}
        new = sorted(called - called_s, key=lambda n: (-counts[mode][n], n))
        m["called"] = len(called)
        m["new"] = [(n, counts[mode][n]) for n in new]
        m["lost"] = sorted(called_s - called)
        freq = frequencies(counts[mode], names)
        m["ks"] = smoothed_ks(freq_s, freq, a.ks_draws, a.ks_reps, a.sample_seed)
        m["ks_raw"] = plain_ks(freq_s, freq)
        res["top"][mode] = top_functions(counts[mode], names)
    return res


def report(results, a):
    print(f"\n## Table 2 ({a.suites} suites x {a.size} inputs per mode, {a.pick} samples, "
          f"sample seed {a.sample_seed}; KS: median of {a.ks_reps} x {a.ks_draws} draws per side)\n")
    print("| subject | functions | called by samples | called by uniform | called by learned "
          "| called by inverse | (A) | (B) | (+%) | (C) KS samples vs learned (D, p) "
          "| (D) KS samples vs inverse (D, p) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for r in results:
        m = r["modes"]
        inv_new = len(m["inverse"]["new"])
        not_s = r["functions"] - r["called_samples"]
        print(f"| {r['subject']} | {r['functions']} | {r['called_samples']} | {m['uniform']['called']} "
              f"| {m['learned']['called']} | {m['inverse']['called']} | {inv_new} | {pct(inv_new, not_s)} "
              f"| +{pct(inv_new, r['called_samples'])} | {fmt_ks(m['learned']['ks'])} "
              f"| {fmt_ks(m['inverse']['ks'])} |")
    print("\n(A) functions the inverse suites call that no sample calls; (B) (A) over the functions "
          "no sample calls; (+%) (A) over the functions the samples call.\n")
    print("## Per mode\n")
    print("| subject | mode | inputs | accepted (exit 0) | killed | functions called "
          "| new vs samples (A) | (B) | (+%) | samples' functions not called "
          "| smoothed KS vs samples (D, p) | plain KS vs samples (D, p) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for r in results:
        not_s = r["functions"] - r["called_samples"]
        st = r["samples_status"]
        print(f"| {r['subject']} | samples | {len(st)} | {sum(1 for s in st if s == 0)} "
              f"| {sum(1 for s in st if s == 'killed')} | {r['called_samples']} | | | | | | |")
        for mode in MODES:
            m = r["modes"][mode]
            n = len(m["new"])
            print(f"| {r['subject']} | {mode} | {m['inputs']} | {m['accepted']} ({pct(m['accepted'], m['inputs'])}) "
                  f"| {m['killed']} | {m['called']} | {n} | {pct(n, not_s)} "
                  f"| +{pct(n, r['called_samples'])} | {len(m['lost'])} | {fmt_ks(m['ks'])} "
                  f"| {fmt_ks(m['ks_raw'])} |")
    print("\nkilled: runs ended by the time limit or a signal (their calls are not counted). "
          "plain KS: ks_2samp on the two frequency vectors, one value per function, no smoothing.")
    for r in results:
        print(f"\n### {r['subject']}: samples {', '.join(r['samples'])}")
        print("\nshare of all calls, top 5 functions:")
        for k in ("samples",) + MODES:
            print(f"  {k:8} " + ", ".join(f"{n} {100 * f:.1f}%" for n, f in r["top"][k]))
        for mode in ("inverse", "learned"):
            m = r["modes"][mode]
            print(f"\ncalled by the {mode} suites, never by the samples ({len(m['new'])}; "
                  f"calls in the {mode} suites):")
            print(", ".join(f"{n} {c}" for n, c in m["new"]) or "(none)")
            print(f"called by the samples, never by the {mode} suites ({len(m['lost'])}):")
            print(", ".join(m["lost"]) or "(none)")

def draws(paths):
    """Table 2 over several sample draws (runs with different
    --sample-seed): each draw's row, and the mean, least and most of
    (A), (B), (+%) and the two KS statistics per subject."""
    rows = {}
    for path in paths:
        saved = json.load(open(path))
        for r in saved["results"]:
            m = r["modes"]
            inv_new = len(m["inverse"]["new"])
            not_s = r["functions"] - r["called_samples"]
            rows.setdefault(r["subject"], []).append({
                "seed": saved["args"]["sample_seed"], "samples": r["called_samples"],
                "uniform": m["uniform"]["called"], "learned": m["learned"]["called"],
                "inverse": m["inverse"]["called"], "A": inv_new,
                "B": 100.0 * inv_new / max(not_s, 1), "plus": 100.0 * inv_new / max(r["called_samples"], 1),
                "C": m["learned"]["ks"][0], "D": m["inverse"]["ks"][0]})
    print(f"\n## Table 2 over {len(paths)} sample draws\n")
    print("| subject | draw (sample seed) | called by samples | uniform | learned | inverse | (A) | (B) | (+%) "
          "| (C) KS D, samples vs learned | (D) KS D, samples vs inverse |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for subject, rs in rows.items():
        for x in rs:
            print(f"| {subject} | {x['seed']} | {x['samples']} | {x['uniform']} | {x['learned']} | {x['inverse']} "
                  f"| {x['A']} | {x['B']:.1f}% | +{x['plus']:.1f}% | {x['C']:.2f} | {x['D']:.2f} |")
        def span(k, f):
            v = [x[k] for x in rs]
            return f"{f(sum(v) / len(v))} ({f(min(v))}-{f(max(v))})"
        one, pc, ks = (lambda v: f"{v:.1f}"), (lambda v: f"{v:.1f}%"), (lambda v: f"{v:.2f}")
        print(f"| {subject} | mean (least-most) | {span('samples', one)} | {span('uniform', one)} "
              f"| {span('learned', one)} | {span('inverse', one)} | {span('A', one)} | {span('B', pc)} "
              f"| +{span('plus', pc)} | {span('C', ks)} | {span('D', ks)} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--subjects", default="sed,dc")
    ap.add_argument("--suites", type=int, default=100, help="suites per mode")
    ap.add_argument("--size", type=int, default=100, help="inputs per suite")
    ap.add_argument("--pick", type=int, default=5, help="samples drawn from the pool")
    ap.add_argument("--sample-seed", type=int, default=1, help="seed of the sample draw and of the KS resampling")
    ap.add_argument("--jobs", type=int, default=2, help="runs at a time")
    ap.add_argument("--timeout", type=float, default=2.0, help="seconds per run")
    ap.add_argument("--ks-draws", type=int, default=100, help="values drawn from each density per KS test")
    ap.add_argument("--ks-reps", type=int, default=1000, help="KS repetitions (medians reported)")
    ap.add_argument("--work", help="work directory (kept); default a temporary one, removed at the end")
    ap.add_argument("--keep", action="store_true", help="keep the work directory and the generated inputs")
    ap.add_argument("--from-results", metavar="JSON",
                    help="no runs: recompute the measures and tables from a results.json of an earlier run")
    ap.add_argument("--draws", metavar="JSON", nargs="+",
                    help="no runs: Table 2 over the results.json of several runs (sample draws)")
    a = ap.parse_args()
    if a.draws:
        draws(a.draws)
        return
    ensure_venv()
    if a.from_results:
        saved = json.load(open(a.from_results))
        for k in ("subjects", "suites", "size", "pick", "sample_seed", "jobs", "timeout"):
            setattr(a, k, saved["args"][k])
        report([analyse(r, a) for r in saved["results"]], a)
        print(f"\nrun time of that run {saved.get('seconds', 0):.0f}s")
        return
    if not os.path.exists(BRIDGE):
        sys.exit(f"hell.py: {BRIDGE} missing (scripts/build.sh)")
    for tool in (PROFDATA, COV):
        if shutil.which(tool) is None:
            sys.exit(f"hell.py: {tool} missing (scripts/install-deps.sh)")
    work = a.work or tempfile.mkdtemp(prefix="hell-")
    keep = a.keep or a.work is not None
    os.makedirs(work, exist_ok=True)
    t0 = time.time()
    try:
        results = [analyse(subject_run(s, a, work), a) for s in a.subjects.split(",")]
        seconds = time.time() - t0
        with open(os.path.join(work, "results.json"), "w") as f:
            json.dump({"args": vars(a), "seconds": seconds, "results": results}, f)
        report(results, a)
        print(f"\ntotal time {seconds:.0f}s" + (f"; results in {work}/results.json" if keep else ""))
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__":
    main()
