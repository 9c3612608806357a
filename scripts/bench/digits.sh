#!/usr/bin/env bash
# Digit-array mapping at the unit level, the paper's Table 3 setting: every
# seed and sample of a subject (scripts/bench/seeds.sh, and
# scripts/bench/samples/SUBJECT/) is carved (one call per function), its
# units explored symbolically (`bridge explore`, --tries each), and what
# they lift put back into that system test and re-run. Prints one row per
# subject: system tests, units, units with parameters, units with a digit
# array among them, lifts of digit-array values, and those that were
# effective (a true alarm, or system coverage the test carved from did
# not reach).
#   scripts/bench/digits.sh [--cache DIR] [--subjects dc] [--tries 50] [--out DIR]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
subjects=dc
tries=50
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) cache=$2/subjects; shift 2 ;;
    --subjects) subjects=$2; shift 2 ;;
    --tries) tries=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "digits.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
bridge="$repo/target/release/bridge"
[ -x "$bridge" ] || "$repo/scripts/build.sh"
[ -n "$out" ] || out=$(mktemp -d /tmp/carve-bench-digits.XXXXXX)
echo "results in $out" >&2
# shellcheck source=scripts/bench/seeds.sh
. "$repo/scripts/bench/seeds.sh"

printf '| subject | system tests | units | with parameters | with a digit array | digit-array lifts | effective | share effective |\n|---|---|---|---|---|---|---|---|\n'
IFS=, read -r -a list <<< "$subjects"
for s in "${list[@]}"; do
  bin="$cache/bin-carve/$s"
  [ -x "$bin" ] || { echo "digits.sh: $bin missing: run scripts/subjects.sh --variant carve" >&2; exit 1; }
  tests="$out/$s/tests"
  rm -rf "$out/$s"; mkdir -p "$tests"
  cp "$(seed_dir "$s" "$out")"/* "$tests/"
  [ -d "$repo/scripts/bench/samples/$s" ] && cp "$repo/scripts/bench/samples/$s"/* "$tests/"
  n=0
  for t in "$tests"/*; do
    n=$((n + 1))
    u="$out/$s/units/$(basename "$t")"
    "$bridge" carve --args-in-input --max-per-function 1 -i "$t" -o "$u" -- "$bin" > /dev/null 2>&1 ||
      { echo "digits.sh: carving $t failed" >&2; continue; }
    "$bridge" explore --args-in-input --json --tries "$tries" -o "$out/$s/lifts/$(basename "$t")" "$u" -- "$bin" \
      > "$u.json" 2> "$u.err" || { echo "digits.sh: exploring $t failed: $(tail -1 "$u.err")" >&2; continue; }
  done
  python3 - "$s" "$n" "$out/$s/units" <<'PY'
import glob, json, sys
s, n, d = sys.argv[1], int(sys.argv[2]), sys.argv[3]
keys = ["units", "units_with_params", "units_with_digit_arrays", "digit_lifts", "digit_lifts_effective"]
tot = dict.fromkeys(keys, 0)
for f in glob.glob(d + "/*.json"):
    j = json.load(open(f))
    for k in keys:
        tot[k] += j[k]
share = 100.0 * tot["digit_lifts_effective"] / tot["digit_lifts"] if tot["digit_lifts"] else 0.0
print(f"| {s} | {n} | " + " | ".join(str(tot[k]) for k in keys) + f" | {share:.1f} % |")
PY
done
