#!/usr/bin/env bash
# GNAST's research questions, scaled to this machine (a generative
# network's tests against radamsa-like's and AFL++'s), and farthest-first
# culling of radamsa-like's parents against random culling and against
# today's parents. Fixed command lines (as afl.sh's), one core each, the
# same seeds and budget, system level alone (--unit none), side by side in
# three pairs per subject:
#   1. bridge --system gnast          | bridge --system radamsa-like
#   2. AFL++ (afl-clang-fast build)   | radamsa-like --parents diverse
#   3. radamsa-like --parents sample  | AFL++ with cmplog (-c)
# Branch outcomes by llvm-cov replay of every kept test
# (scripts/bench/covreplay.py); for GNAST also its figures from
# campaign.json (tests made per second, training time per pass, epochs,
# diverged and collapsed passes, the correlation of latent distance with
# edit distance) and the share of its kept tests' tokens (and bytes) that
# pseudo-provenance traces to a seed (`bridge provenance --json`).
# Needs scripts/subjects.sh --variant carve,afl,afl-cmplog,cov.
#
#   scripts/bench/gnast.sh [--subjects sed,dc,cut] [--time 5m] [--seed 1] [--out DIR]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
subjects=sed,dc,cut
budget=5m
seed=1
out=""
san=""
while [ $# -gt 0 ]; do
  case "$1" in
    --subjects) subjects=$2; shift 2 ;;
    --time) budget=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "gnast.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
bridge=$repo/target/release/bridge
[ -x "$bridge" ] || "$repo/scripts/build.sh"
command -v afl-fuzz >/dev/null || { echo "gnast.sh: afl-fuzz missing: scripts/install-deps.sh --bench" >&2; exit 1; }
[ -n "$out" ] || out=$(mktemp -d /tmp/carve-bench-gnast.XXXXXX)
mkdir -p "$out"
out=$(cd "$out" && pwd)
echo "results in $out" >&2
mkdir -p "$out/cwd"
cd "$out/cwd"
secs=$(python3 -c "import sys; t=sys.argv[1]; m={'s':1,'m':60,'h':3600}; print(int(float(t[:-1])*m[t[-1]]) if t[-1] in m else int(float(t)))" "$budget")
# shellcheck source=scripts/bench/seeds.sh
. "$repo/scripts/bench/seeds.sh"
export AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1

branches() { # argv out -> covered branch outcomes
  python3 "$repo/scripts/bench/covreplay.py" --argv "$1" "$cov" "$2" | awk 'NR==2 {print $4}'
}
run_bridge() { # core out options... (the subject's command line follows)
  local c=$1 o=$2; shift 2
  # shellcheck disable=SC2086
  taskset -c "$c" "$bridge" run --unit none --seed "$seed" -i "$d" -o "$o" --time "$secs" "$@" -- "$carve" $a > "$o.log" 2>&1
}
run_afl() { # core out [afl-fuzz options]
  local c=$1 o=$2; shift 2
  # shellcheck disable=SC2086
  taskset -c "$c" afl-fuzz -V "$secs" -s "$seed" "$@" -i "$d" -o "$o" -- "$afl" $a > "$o.log" 2>&1
}

printf '| subject | GNAST | radamsa-like | GNAST ÷ radamsa-like | AFL++ | GNAST ÷ AFL++ | cmplog | GNAST ÷ cmplog | diverse | sample | diverse ÷ all | sample ÷ all |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|\n'
IFS=, read -r -a list <<< "$subjects"
for s in "${list[@]}"; do
  carve="$cache/bin-carve/$s" afl="$cache/bin-afl/$s" cmp="$cache/bin-afl-cmplog/$s" cov="$cache/bin-cov/$s"
  for b in "$carve" "$afl" "$cmp" "$cov"; do
    [ -x "$b" ] || { echo "gnast.sh: $b missing: scripts/subjects.sh --variant carve,afl,afl-cmplog,cov --subjects $s" >&2; exit 1; }
  done
  d=$(fixed_seeds "$s") a=$(args_of "$s" "$out/data-$s")
  o="$out/$s"; rm -rf "$o"; mkdir -p "$o"
  # A fresh scratch directory per subject (what sed's runs wrote stays
  # out of cut's).
  rm -rf "$out/cwd/$s"; mkdir -p "$out/cwd/$s"; cd "$out/cwd/$s"
  run_bridge 0 "$o/gnast" --system gnast & run_bridge 1 "$o/radamsa"; wait
  run_afl 0 "$o/afl" & run_bridge 1 "$o/diverse" --parents diverse; wait
  run_bridge 0 "$o/sample" --parents sample & run_afl 1 "$o/cmplog" -c "$cmp"; wait
  bg=$(branches "$a" "$o/gnast") br=$(branches "$a" "$o/radamsa") bd=$(branches "$a" "$o/diverse") bs=$(branches "$a" "$o/sample")
  ba=$(branches "$a" "$o/afl/default") bc=$(branches "$a" "$o/cmplog/default")
  "$bridge" provenance --json "$o/gnast" > "$o/gnast-provenance.json"
  python3 - "$s" "$bg" "$br" "$ba" "$bc" "$bd" "$bs" <<'PY'
import sys
s, g, r, a, c, d, m = sys.argv[1], *map(int, sys.argv[2:])
q = lambda x, y: f"{x / y:.3f}" if y else "nan"
print(f"| {s} | {g} | {r} | {q(g, r)} | {a} | {q(g, a)} | {c} | {q(g, c)} | {d} | {m} | {q(d, r)} | {q(m, r)} |")
PY
done

echo
printf '| subject | GNAST execs | radamsa-like execs | AFL++ execs | tests made /s | training ms per pass | passes | diverged | collapsed | kept | latent–edit correlation | generator loss first → last | tokens traced to a seed | bytes traced to a seed |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for s in "${list[@]}"; do
  o="$out/$s"
  ea=$(awk -F: '$1 ~ "^execs_done *$" {gsub(/ /, "", $2); print $2}' "$o/afl/default/fuzzer_stats")
  python3 - "$s" "$o/gnast/campaign.json" "$o/radamsa/campaign.json" "$ea" "$o/gnast-provenance.json" <<'PY'
import json, sys
s, g, r, ea, p = sys.argv[1:]
g, r, p = json.load(open(g))["stats"], json.load(open(r))["stats"], json.load(open(p))
f = g.get("generator", {})
u = p.get("unrecorded", {})
corr = f.get("latent_edit_correlation")
print(f"| {s} | {g['execs']} | {r['execs']} | {ea} | {f.get('proposed', 0) / max(g['elapsed_s'], 1):.0f} | "
      f"{f.get('train_ms_per_epoch', 0):.0f} | {f.get('epochs', 0):.0f} | {f.get('diverged', 0):.0f} | {f.get('collapsed', 0):.0f} | "
      f"{f.get('kept', 0):.0f} | {'n/a' if corr is None else f'{corr:.3f}'} | "
      f"{f.get('gnn_loss_first', float('nan')):.2f} → {f.get('gnn_loss_last', float('nan')):.2f} | "
      f"{u.get('from_seeds', 0)} of {u.get('tokens', 0)} ({100 * u.get('from_seeds_share', 0):.1f} %) | "
      f"{u.get('bytes_from_seeds', 0)} of {u.get('bytes', 0)} |")
PY
done
