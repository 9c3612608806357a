#!/usr/bin/env bash
# Provenance of whole campaigns: on each subject, `bridge run --unit
# symbolic` is killed with SIGKILL half way through its budget and resumed
# for the rest; then `bridge provenance --json` must trace every queue
# entry, crash, hang and alarm back to a seed and find a trail record for
# each, and `bridge provenance --rebuild` strips the recorded labels of the
# queue entries, rebuilds them greedily from the seeds and ancestors
# (pseudo-provenance) and compares the two. One row per subject.
#
#   scripts/bench/provenance.sh [--cache DIR] [--subjects cut,sed,...] [--time 5m] [--seed N] [--out DIR]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
subjects=cut,paste,tac,b2sum,sed,dc
budget=5m
seed=1
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) cache=$2/subjects; shift 2 ;;
    --subjects) subjects=$2; shift 2 ;;
    --time) budget=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --out) keep=$2; shift 2 ;;
    *) echo "provenance.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
seconds() { case "$1" in *m) echo $(( ${1%m} * 60 )) ;; *s) echo "${1%s}" ;; *) echo "$1" ;; esac; }
total=$(seconds "$budget")
half=$(( total / 2 ))
bridge="$repo/target/release/bridge"
[ -x "$bridge" ] || "$repo/scripts/build.sh"
if [ -n "$keep" ]; then work=$keep; mkdir -p "$work"; else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
# shellcheck source=scripts/bench/seeds.sh
. "$repo/scripts/bench/seeds.sh"
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
printf '%-7s %6s %6s %6s %6s %9s %9s %8s %11s %10s %10s\n' \
  subject queue crashes hangs alarms resolved recorded tokens "same source" "run pseudo" "run recorded"
IFS=, read -r -a list <<< "$subjects"
for s in "${list[@]}"; do
  bin="$cache/bin-carve/$s"
  [ -x "$bin" ] || { echo "provenance.sh: $bin missing: run scripts/subjects.sh" >&2; exit 1; }
  d=$(seed_dir "$s" "$work")
  out="$work/out-$s"
  rm -rf "$out"
  # The first half, killed without warning.
  "$bridge" run --args-in-input --unit symbolic -i "$d" -o "$out" --time "${total}s" --seed "$seed" -- "$bin" > "$out.log" 2>&1 &
  pid=$!
  sleep "$half"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  "$bridge" run --resume --args-in-input -o "$out" --time "${total}s" -- "$bin" >> "$out.log" 2>&1 || { tail -5 "$out.log" >&2; exit 1; }
  "$bridge" provenance "$out" --json > "$work/prov-$s.json"
  "$bridge" provenance "$out" --rebuild --json > "$work/rebuild-$s.json"
  python3 - "$s" "$out" "$work/prov-$s.json" "$work/rebuild-$s.json" <<'EOF'
import json, os, sys
s, out, prov, rebuild = sys.argv[1:5]
p = json.load(open(prov)); r = json.load(open(rebuild))
count = lambda d: len([f for f in os.listdir(os.path.join(out, d))]) if os.path.isdir(os.path.join(out, d)) else 0
q, c, h, a = count("queue"), count("crashes"), count("hangs"), count("alarms")
total = q + c + h + a
resolved = total - p["unresolved"]
print(f"{s:<7} {q:>6} {c:>6} {h:>6} {a:>6} {resolved:>4}/{total:<4} {p['recorded']:>4}/{total:<4} "
      f"{r['tokens']:>8} {r['same_source_share']:>11.3f} {r['mean_run_rebuilt']:>10.1f} {r['mean_run_recorded']:>10.1f}")
EOF
done
