#!/usr/bin/env bash
# radamsa-like alone, + the unit fuzzer (Fuzzilisk) and + the symbolic
# explorer (Basilisk) on the six subjects, same budget and seeds, run one
# after the other: branch coverage and its ratio to radamsa-like alone
# (the paper's Table 2), units carved and with parameters (Table 3), unit
# tries, lifted values and effective lifts (Table 5), the time of a unit
# run against a system run, and the symbolic explorer's solver statistics.
# `--configs` picks among none (radamsa-like alone), fuzz and symbolic.
# `--seeds N` runs seeds 1..N, `--seed-from K` starts them at K instead.
# `--parents seeds` has radamsa-like mutate the seeds only, without coverage
# feedback, in every configuration: the paper's protocol, where Radamsa ran
# alone in batches (default `all`: coverage-guided, see `bridge run --help`).
#   scripts/bench/basilisk.sh [--cache DIR] [--subjects cut,...] [--time 2m] [--seeds N] [--seed-from K] [--configs none,fuzz,symbolic] [--parents all|seeds] [--out DIR]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
subjects=cut,paste,tac,b2sum,sed,dc
budget=2m
seeds=1
first=1
configs=none,fuzz,symbolic
parents=all
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) cache=$2/subjects; shift 2 ;;
    --subjects) subjects=$2; shift 2 ;;
    --time) budget=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --seed-from) first=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    --parents) parents=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "basilisk.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
bridge="$repo/target/release/bridge"
[ -x "$bridge" ] || "$repo/scripts/build.sh"
[ -n "$out" ] || out=$(mktemp -d /tmp/carve-bench-basilisk.XXXXXX)
mkdir -p "$out"
echo "results in $out" >&2

# shellcheck source=scripts/bench/seeds.sh
. "$repo/scripts/bench/seeds.sh"

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['stats']; print($2)" "$1"; }

printf '%-6s %4s %-8s %5s %9s %6s %7s %7s %6s %6s %7s %7s %6s %6s %12s\n' subject seed config "vs rl" branches "%" carved params "par %" units tries lifted eff "eff %" "unit/sys run"
IFS=, read -r -a list <<< "$subjects"
for s in "${list[@]}"; do
  bin="$cache/bin-carve/$s"
  [ -x "$bin" ] || { echo "basilisk.sh: $bin missing: run scripts/subjects.sh" >&2; exit 1; }
  d=$(seed_dir "$s" "$out")
  for seed in $(seq "$first" $((first + seeds - 1))); do
    for unit in ${configs//,/ }; do
      o="$out/$s/$seed/$unit"
      rm -rf "$o"; mkdir -p "$(dirname "$o")"
      "$bridge" run --args-in-input --parents "$parents" --unit "$unit" -i "$d" -o "$o" --time "$budget" --seed "$seed" -- "$bin" > "$o.log" 2>&1 || { tail -5 "$o.log" >&2; exit 1; }
      c="$o/campaign.json"
      python3 - "$c" "$s" "$seed" "$unit" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["stats"]
s, seed, unit = sys.argv[2:5]
units, tries, lifted = d.get("units_analysed", 0), d.get("unit_tries", 0), d.get("lifted", 0)
eff = d.get("coverage_lifts", 0) + d.get("true_alarms", 0)
us = d.get("unit_seconds", 0.0)
sys_runs = max(d["execs"] - lifted, 1)
ratio = "-"
if tries:
    unit_run = us / tries
    sys_run = (d["elapsed_s"] - us) / sys_runs
    ratio = f"{unit_run / sys_run:.2f}"
pct = 100 * d["branches"] / max(d["branches_total"], 1)
effp = f"{100 * eff / lifted:.1f}" if lifted else "-"
carved, params = d.get("units_carved", 0), d.get("units_with_params", 0)
parp = f"{100 * params / carved:.1f}" if carved else "-"
base = None
if unit != "none":
    try:
        base = json.load(open(sys.argv[1].replace(f"/{unit}/", "/none/")))["stats"]["branches"]
    except OSError:
        pass
vs = f"{d['branches'] / base:.2f}" if base else "-"
name = {"none": "rl", "fuzz": "rl+fuzz", "symbolic": "rl+sym"}[unit]
g = d.get("unit_generator") or {}
if g.get("solver"):
    q = g["solver"]
    mean = q["solver_ms"] / max(q["queries"] - q["cache_hits"], 1)
    print(f"#  {s} seed {seed} solver: {q['queries']} queries, {q['cache_hits']} cache hits, {q['timeouts']} timeouts, "
          f"{mean:.1f} ms per query; {g['traces']} traces ({g['truncated']} truncated), {g['inputs_queued']} inputs queued ({g.get('optimistic', 0)} optimistic)", file=sys.stderr)
print(f"{s:<6} {seed:>4} {name:<8} {vs:>5} {d['branches']:9d} {pct:6.1f} {carved:7d} {params:7d} {parp:>6} {units:6d} {tries:7d} {lifted:7d} {eff:6d} {effp:>6} {ratio:>12}")
PY
    done
  done
done
