#!/usr/bin/env python3
"""Checks the grammars under grammars/ (the Fuzzing Book's JSON form).

For each grammar: the JSON loads; every alternative is a string or
[string, {"prob": p}]; every referenced nonterminal is defined; every
nonterminal is reachable from <start> and productive; given probabilities
sum to at most 1. A reference is `<`, one or more characters other than
space, `<` and `>`, then `>`; any other `<` or `>` is literal text (as in
the grammar crate's loader). Then it generates N random tests with a
bounded expansion (past a depth, or past a budget of expansions, each
nonterminal closes by its cheapest alternative)
and runs each through the plain binary: the first line is the command line
(`@@` replaced by a temporary file holding the rest of the test), run by
`sh -c` with a 2 s timeout. It reports the share the program accepts
(exit status 0; for dc, no parse error or "unimplemented" on stderr) and
whether the command line splits the same under sh and under a POSIX shlex
split (the campaign's). With --seeds, it also checks with an Earley
recognizer that the existing seeds (scripts/bench/seeds.sh and
scripts/bench/seeds/{cut,paste,sed}) are sentences of their grammar.

    scripts/grammar-check.py [-n 200] [--seed 1] [--seeds] [-v] [SUBJECT...]
"""
import argparse
import json
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRAMMARS = os.path.join(REPO, "grammars")
BIN = os.path.expanduser("~/.cache/carve-bridge/subjects/bin-plain")
SUBJECTS = ["sed", "dc", "cut", "paste", "tac", "b2sum"]
NT = re.compile(r"(<[^<> ]+>)")


def alt_text(alt):
    return alt if isinstance(alt, str) else alt[0]


def alt_prob(alt):
    return None if isinstance(alt, str) else alt[1].get("prob")


def symbols(text):
    return [s for s in NT.split(text) if s]


def is_nt(s):
    return NT.fullmatch(s) is not None


def validate(g):
    errors = []
    if "<start>" not in g:
        errors.append("no <start>")
    for name, alts in g.items():
        if not is_nt(name):
            errors.append(f"bad nonterminal name {name!r}")
        if not isinstance(alts, list) or not alts:
            errors.append(f"{name}: no alternatives")
            continue
        given = 0.0
        for a in alts:
            if isinstance(a, list):
                if len(a) != 2 or not isinstance(a[0], str) or not isinstance(a[1], dict):
                    errors.append(f"{name}: bad alternative {a!r}")
                    continue
                p = a[1].get("prob")
                if p is not None:
                    given += p
            elif not isinstance(a, str):
                errors.append(f"{name}: bad alternative {a!r}")
                continue
            for s in symbols(alt_text(a)):
                if is_nt(s):
                    if s not in g:
                        errors.append(f"{name}: undefined {s}")
        if given > 1.0 + 1e-9:
            errors.append(f"{name}: probabilities sum to {given}")
    if errors:
        return errors
    seen, todo = {"<start>"}, ["<start>"]
    while todo:
        for a in g[todo.pop()]:
            for s in symbols(alt_text(a)):
                if is_nt(s) and s not in seen:
                    seen.add(s)
                    todo.append(s)
    errors += [f"unreachable {n}" for n in g if n not in seen]
    cost = min_costs(g)
    errors += [f"unproductive {n}" for n in g if cost[n] == float("inf")]
    return errors


def min_costs(g):
    """Fewest expansions needed to close each nonterminal."""
    cost = {n: float("inf") for n in g}
    changed = True
    while changed:
        changed = False
        for n, alts in g.items():
            for a in alts:
                c = 1 + sum(cost[s] for s in symbols(alt_text(a)) if is_nt(s))
                if c < cost[n]:
                    cost[n], changed = c, True
    return cost


class Generator:
    def __init__(self, g, rng, max_depth=14, budget=400):
        self.g, self.rng = g, rng
        self.max_depth, self.budget = max_depth, budget
        self.cost = min_costs(g)
        self.alt_cost = {
            n: [1 + sum(self.cost[s] for s in symbols(alt_text(a)) if is_nt(s)) for a in alts]
            for n, alts in g.items()
        }

    def pick(self, n, closing):
        alts = self.g[n]
        if closing:
            best = min(self.alt_cost[n])
            cands = [a for a, c in zip(alts, self.alt_cost[n]) if c == best]
            return self.rng.choice(cands)
        given = [alt_prob(a) for a in alts]
        rest = 1.0 - sum(p for p in given if p is not None)
        unset = sum(1 for p in given if p is None)
        w = [p if p is not None else max(rest, 0.0) / unset for p in given]
        if sum(w) <= 0:
            w = [1.0] * len(alts)
        return self.rng.choices(alts, weights=w)[0]

    def generate(self):
        self.left = self.budget
        out = []
        self.expand("<start>", 0, out)
        return "".join(out)

    def expand(self, n, depth, out):
        self.left -= 1
        closing = depth > self.max_depth or self.left <= 0
        for s in symbols(alt_text(self.pick(n, closing))):
            if is_nt(s):
                self.expand(s, depth + 1, out)
            else:
                out.append(s)


def accepted(subject, rc, err):
    if rc is None:
        return False
    if subject == "dc":
        e = err.lower()
        return not ("unimplemented" in e or "parse error" in e or "syntax" in e)
    return rc == 0


def run_test(subject, test, tmp):
    line, _, body = test.partition("\n")
    path = os.path.join(tmp, "input")
    with open(path, "wb") as f:
        f.write(body.encode("utf-8", "surrogateescape"))
    cmd = line.replace("@@", path)
    # The campaign splits the line like a POSIX shell (shlex); sh must agree.
    try:
        mine = shlex.split(cmd, comments=True)
        sh = subprocess.run(["sh", "-c", "printf '%s\\0' " + cmd if cmd.strip() else "true"],
                            cwd=tmp, capture_output=True, timeout=2).stdout
        theirs = sh.decode("utf-8", "surrogateescape").split("\0")[:-1] if cmd.strip() else []
        same_split = mine == theirs
    except (ValueError, subprocess.TimeoutExpired):
        same_split = False
    try:
        p = subprocess.run(["sh", "-c", f"exec {os.path.join(BIN, subject)} {cmd}"], cwd=tmp,
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=2)
        rc, err = p.returncode, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        rc, err = None, "timeout"
    return rc, err, same_split


# --- Earley recognizer, for the seeds -----------------------------------

def compile_rules(g):
    rules = {}
    for n, alts in g.items():
        rs = []
        for a in alts:
            seq = []
            for s in symbols(alt_text(a)):
                if is_nt(s):
                    seq.append(s)
                else:
                    seq.extend(("", c) for c in s)  # terminals: ("", char)
            rs.append(tuple(seq))
        rules[n] = rs
    return rules


def nullable_set(rules):
    null = set()
    changed = True
    while changed:
        changed = False
        for n, rs in rules.items():
            if n not in null and any(all(isinstance(s, str) and s in null for s in r) for r in rs):
                null.add(n)
                changed = True
    return null


def earley(rules, null, text, start="<start>"):
    chart = [dict() for _ in range(len(text) + 1)]

    def add(i, item):
        if item not in chart[i]:
            chart[i][item] = True
            return True
        return False

    for r in rules[start]:
        add(0, (start, r, 0, 0))
    for i in range(len(text) + 1):
        agenda = list(chart[i].keys())
        while agenda:
            n, r, dot, origin = agenda.pop()
            if dot < len(r):
                s = r[dot]
                if isinstance(s, str):  # nonterminal: predict
                    for r2 in rules[s]:
                        it = (s, r2, 0, i)
                        if add(i, it):
                            agenda.append(it)
                    if s in null:
                        it = (n, r, dot + 1, origin)
                        if add(i, it):
                            agenda.append(it)
                elif i < len(text) and s[1] == text[i]:
                    add(i + 1, (n, r, dot + 1, origin))
            else:  # complete
                for (n2, r2, d2, o2) in list(chart[origin].keys()):
                    if d2 < len(r2) and r2[d2] == n:
                        it = (n2, r2, d2 + 1, o2)
                        if add(i, it):
                            agenda.append(it)
        if i < len(text) and not chart[i + 1] and not any(True for _ in chart[i]):
            return False
    return any(n == start and dot == len(r) and o == 0 for (n, r, dot, o) in chart[len(text)])


def seeds_of(subject):
    """The seeds as the campaign sees them (first line ending in ` @@`)."""
    d = os.path.join(REPO, "scripts", "bench", "seeds", subject)
    out = []
    if os.path.isdir(d):
        for f in sorted(os.listdir(d)):
            data = open(os.path.join(d, f), encoding="utf-8", errors="surrogateescape").read()
            line, nl, body = data.partition("\n")
            out.append((f, line + " @@" + nl + body))
    else:
        text = open(os.path.join(REPO, "scripts", "bench", "seeds.sh")).read()
        m = re.search(r"^\s*%s\)(.*?);;\s*$" % re.escape(subject), text, re.M)
        if m:
            for k, s in enumerate(re.findall(r"printf -- '((?:[^'])*)'", m.group(1))):
                s = s.encode().decode("unicode_escape")
                out.append((f"seeds.sh#{k}", s))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seeds", action="store_true", help="also check the seeds parse")
    ap.add_argument("-v", action="store_true", help="print rejected tests")
    ap.add_argument("subjects", nargs="*", default=SUBJECTS)
    a = ap.parse_args()
    bad = False
    for subject in a.subjects:
        path = os.path.join(GRAMMARS, subject + ".json")
        try:
            g = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"{subject}: cannot load {path}: {e}")
            bad = True
            continue
        errs = validate(g)
        if errs:
            print(f"{subject}: INVALID: " + "; ".join(errs[:20]))
            bad = True
            continue
        gen = Generator(g, random.Random(a.seed))
        ok = split_ok = 0
        lengths = []
        with tempfile.TemporaryDirectory() as tmp:
            for _ in range(a.n):
                t = gen.generate()
                lengths.append(len(t))
                rc, err, same = run_test(subject, t, tmp)
                split_ok += same
                if accepted(subject, rc, err):
                    ok += 1
                elif a.v:
                    print(f"--- {subject} rc={rc} {err.strip()[:200]}\n{t}")
                if not same and a.v:
                    print(f"--- {subject} split differs:\n{t.partition(chr(10))[0]}")
        line = (f"{subject}: {len(g)} nonterminals; accepted {ok}/{a.n} ({100.0 * ok / a.n:.1f} %); "
                f"same split under sh {split_ok}/{a.n}; mean length {sum(lengths) / len(lengths):.0f}")
        if a.seeds:
            rules = compile_rules(g)
            null = nullable_set(rules)
            seeds = seeds_of(subject)
            parsed = [name for name, s in seeds if earley(rules, null, s)]
            line += f"; seeds parsed {len(parsed)}/{len(seeds)}"
            missing = [name for name, _ in seeds if name not in parsed]
            if missing:
                line += " (not: " + ", ".join(missing) + ")"
        print(line)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
