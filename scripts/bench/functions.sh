#!/usr/bin/env bash
# Functions of each subject: defined in its sources (llvm-cov's function
# count on the coverage build, scripts/subjects.sh --variant cov) against
# those the carve build can carve (its function table, CARVE_LIST: every
# function with an out-of-line copy, plus those the optimiser made).
#   scripts/bench/functions.sh [--cache DIR] [--carve-bin DIR] [--subjects cut,...]
#   --carve-bin DIR   the carve builds to list (default CACHE/bin-carve), e.g.
#                     a copy made before a change, for a before/after table
set -euo pipefail
cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
carve=""
subjects=cut,paste,tac,b2sum,sed,dc
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) cache=$2/subjects; shift 2 ;;
    --carve-bin) carve=$2; shift 2 ;;
    --subjects) subjects=$2; shift 2 ;;
    *) echo "functions.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
carve=${carve:-$cache/bin-carve}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-11s %9s %9s\n' subject source carvable
IFS=, read -r -a list <<< "$subjects"
for s in "${list[@]}"; do
  cov="$cache/bin-cov/$s"
  [ -x "$cov" ] || { echo "functions.sh: $cov missing: run scripts/subjects.sh --variant cov" >&2; exit 1; }
  # A run that reads no input: --version, or for a harness one seed (a
  # libFuzzer harness given a file runs it once).
  arg=--version
  [ -d "$carve/$s.seeds" ] && arg=$(find "$carve/$s.seeds" -type f | sort | head -n 1)
  rm -f "$work"/*.profraw
  (cd "$work" && LLVM_PROFILE_FILE="$work/%p.profraw" "$cov" "$arg" >/dev/null 2>&1 < /dev/null) || true
  llvm-profdata-19 merge -sparse "$work"/*.profraw -o "$work/p.profdata"
  src=$(llvm-cov-19 export -summary-only -instr-profile "$work/p.profdata" "$cov" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["data"][0]["totals"]["functions"]["count"])')
  (cd "$work" && CARVE_LIST="$work/list" "$carve/$s" "$arg" >/dev/null 2>&1 < /dev/null) || true
  listed=$(wc -l < "$work/list")
  printf '%-11s %9d %9d\n' "$s" "$src" "$listed"
done
