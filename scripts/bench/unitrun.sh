#!/usr/bin/env bash
# Unit runs: the unit fork server restoring each unit once and patching
# only the parameter bytes per try, against restoring the whole unit in
# every try (`bridge fuzz-unit --restore-each-try`), side by side, rounds
# alternating. Units are carved from the subject's seeds (at most 2 calls
# per function); the same tries and generator seed in both modes. Also
# the units carved and those with parameters (the paper's Table 3).
# At most --max-units units per subject (the first, by name).
#   scripts/bench/unitrun.sh [--cache DIR] [--subjects cut,...] [--tries N] [--rounds N] [--max-units N] [--out DIR]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
subjects=cut,paste,tac,b2sum,sed,dc
tries=100
rounds=3
max_units=80
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) cache=$2/subjects; shift 2 ;;
    --subjects) subjects=$2; shift 2 ;;
    --tries) tries=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --max-units) max_units=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "unitrun.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
bridge="$repo/target/release/bridge"
[ -x "$bridge" ] || "$repo/scripts/build.sh"
[ -n "$out" ] || out=$(mktemp -d /tmp/carve-bench-unitrun.XXXXXX)
mkdir -p "$out"
echo "results in $out" >&2
# shellcheck source=scripts/bench/seeds.sh
. "$repo/scripts/bench/seeds.sh"

printf '%-6s %6s %7s %6s %12s %12s %16s\n' subject units params tries "once/s" "each/s" "once/each (med)"
IFS=, read -r -a list <<< "$subjects"
for s in "${list[@]}"; do
  bin="$cache/bin-carve/$s"
  [ -x "$bin" ] || { echo "unitrun.sh: $bin missing: run scripts/subjects.sh" >&2; exit 1; }
  d=$(seed_dir "$s" "$out")
  units="$out/$s/units"
  rm -rf "${out:?}/$s"; mkdir -p "$units"
  for f in "$d"/*; do
    t="$out/$s/carve-$(basename "$f")"
    "$bridge" carve --args-in-input --max-per-function 2 -o "$t" -i "$f" -- "$bin" > "$t.log" 2>&1 || { tail -3 "$t.log" >&2; continue; }
    for u in "$t"/*.unit; do [ -e "$u" ] && cp "$u" "$units/$(basename "$f")-$(basename "$u")"; done
  done
  find "$units" -name '*.unit' | sort | tail -n +$((max_units + 1)) | xargs -r rm -f
  for r in $(seq 1 "$rounds"); do
    for mode in once each; do
      flag=""; [ "$mode" = each ] && flag=--restore-each-try
      "$bridge" fuzz-unit "$units" --tries "$tries" --seed "$r" --json $flag --args-in-input -- "$bin" > "$out/$s/$mode.$r.json" 2> "$out/$s/$mode.$r.log" \
        || { tail -3 "$out/$s/$mode.$r.log" >&2; exit 1; }
    done
  done
  python3 - "$out/$s" "$s" "$rounds" <<'PY'
import json, statistics, sys
d, s, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
rate = lambda j: j["unit_tries"] / max(j["unit_seconds"], 1e-9)
once = [json.load(open(f"{d}/once.{r}.json")) for r in range(1, rounds + 1)]
each = [json.load(open(f"{d}/each.{r}.json")) for r in range(1, rounds + 1)]
ratios = [rate(a) / rate(b) for a, b in zip(once, each)]
j = once[0]
print(f"{s:<6} {j['units']:6d} {j['units_with_params']:7d} {j['tries']:6d} {statistics.median(map(rate, once)):12.0f} "
      f"{statistics.median(map(rate, each)):12.0f} {statistics.median(ratios):8.2f} ({min(ratios):.2f}-{max(ratios):.2f})")
PY
done
