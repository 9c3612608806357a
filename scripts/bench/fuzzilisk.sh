#!/usr/bin/env bash
# radamsa-like alone against radamsa-like + the unit fuzzer (Fuzzilisk) on
# the six subjects, same budget and seeds, run one after the other: branch
# coverage, units analysed, unit tries, lifted values and effective lifts
# (true alarms + coverage lifts), and the time of a unit run against a
# system run.
#   scripts/bench/fuzzilisk.sh [--cache DIR] [--subjects cut,...] [--time 2m] [--seeds N] [--out DIR]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
subjects=cut,paste,tac,b2sum,sed,dc
budget=2m
seeds=1
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) cache=$2/subjects; shift 2 ;;
    --subjects) subjects=$2; shift 2 ;;
    --time) budget=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "fuzzilisk.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
bridge="$repo/target/release/bridge"
[ -x "$bridge" ] || (cd "$repo" && cargo build --release -q)
[ -n "$out" ] || out=$(mktemp -d /tmp/carve-bench-fuzzilisk.XXXXXX)
mkdir -p "$out"
echo "results in $out" >&2

# Seeds carry their command line (--args-in-input); @@ is the file.
seed_dir() { # subject -> directory of seeds
  local s=$1 d="$out/seeds-$1"
  mkdir -p "$d"
  if [ -d "$repo/scripts/bench/seeds/$s" ]; then
    for f in "$repo/scripts/bench/seeds/$s"/*; do
      { head -n 1 "$f" | sed 's/$/ @@/'; tail -n +2 "$f"; } > "$d/$(basename "$f")"
    done
  else
    case "$s" in
      tac) printf -- '@@\none\ntwo\nthree\n' > "$d/a"; printf -- '-s , @@\na,b,c,' > "$d/b"; printf -- '-r -s [0-9] @@\na1b22c333' > "$d/c" ;;
      b2sum) printf -- '@@\nThe quick brown fox\n' > "$d/a"; printf -- '-l 128 @@\nabc' > "$d/b"; printf -- '--tag @@\n' > "$d/c" ;;
      dc) printf -- '@@\n2 3 + p 10 k 1 3 / p\n' > "$d/a"; printf -- '@@\n[la 1 + d sa 5 >b] sb 0 sa lbx la p\n' > "$d/b"; printf -- '@@\n16 o 255 p 2 i 1010 p\n' > "$d/c" ;;
    esac
  fi
  echo "$d"
}

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['stats']; print($2)" "$1"; }

printf '%-6s %4s %-13s %9s %7s %6s %7s %7s %8s %9s %12s\n' subject seed config branches "%" units tries lifted effective "eff %" "unit/sys run"
IFS=, read -r -a list <<< "$subjects"
for s in "${list[@]}"; do
  bin="$cache/bin-carve/$s"
  [ -x "$bin" ] || { echo "fuzzilisk.sh: $bin missing: run scripts/subjects.sh" >&2; exit 1; }
  d=$(seed_dir "$s")
  for seed in $(seq 1 "$seeds"); do
    for unit in none fuzz; do
      o="$out/$s/$seed/$unit"
      rm -rf "$o"; mkdir -p "$(dirname "$o")"
      "$bridge" run --args-in-input --unit "$unit" -i "$d" -o "$o" --time "$budget" --seed "$seed" -- "$bin" > "$o.log" 2>&1 || { tail -5 "$o.log" >&2; exit 1; }
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
print(f"{s:<6} {seed:>4} {'rl' if unit == 'none' else 'rl+fuzz':<13} {d['branches']:9d} {pct:7.1f} {units:6d} {tries:7d} {lifted:7d} {eff:8d} {effp:>9} {ratio:>12}")
PY
    done
  done
done
