#!/usr/bin/env bash
# System execs of the bridge against AFL++'s on the same libFuzzer harness,
# side by side, one core each (taskset): `bridge run --unit none` (the
# system level alone: what a run costs, without the unit level's share of
# the core) in persistent mode (the default, 1000 runs a child) and with a
# fork per run (`--persistent 1`), each beside `afl-fuzz` on the
# afl-clang-fast build (AFL++'s harness driver: persistent, the test in
# shared memory). Pairs alternate which tool takes core 0. Prints execs and
# the ratio bridge ÷ AFL++ per run. The full campaign's execs (with the
# unit level) are in scripts/bench/libs.sh's `alone` lines.
#
#   scripts/bench/execs.sh [--subjects xml-fuzz,sqlite-fuzz] [--time 60]
#                          [--pairs 2] [--out DIR]
#
# Needs the subjects' carve and afl builds (scripts/subjects.sh --variant
# carve,afl) and afl-fuzz (scripts/install-deps.sh --bench).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
bridge=${bridge_bin:-$repo/target/release/bridge}
subjects=xml-fuzz,sqlite-fuzz
secs=60
pairs=2
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --subjects) subjects=$2; shift 2 ;;
    --time) secs=$2; shift 2 ;;
    --pairs) pairs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "execs.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
command -v afl-fuzz >/dev/null || { echo "execs.sh: afl-fuzz missing: scripts/install-deps.sh --bench" >&2; exit 1; }
[ -x "$bridge" ] || { echo "execs.sh: $bridge missing: scripts/build.sh" >&2; exit 1; }
[ -n "$out" ] || out=$(mktemp -d /tmp/carve-bench-execs.XXXXXX)
mkdir -p "$out"
out=$(cd "$out" && pwd)
echo "results in $out" >&2
export AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1

afl_execs() { awk -F: '$1 ~ "^execs_done *$" {gsub(/ /, "", $2); print $2}' "$1/default/fuzzer_stats"; }
bridge_execs() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['stats']['execs'])" "$1/campaign.json"; }

printf '| subject | pair | bridge mode | bridge execs | AFL++ execs | bridge ÷ AFL++ |\n|---|---|---|---|---|---|\n'
IFS=, read -r -a list <<< "$subjects"
for s in "${list[@]}"; do
  carve="$cache/bin-carve/$s" afl="$cache/bin-afl/$s" seeds="$cache/bin-carve/$s.seeds"
  [ -x "$carve" ] && [ -x "$afl" ] && [ -d "$seeds" ] || {
    echo "execs.sh: $carve, $afl or $seeds missing: scripts/subjects.sh --variant carve,afl --subjects $s" >&2
    exit 1
  }
  for p in $(seq 1 "$pairs"); do
    if [ $((p % 2)) = 1 ]; then cb=0 ca=1; else cb=1 ca=0; fi
    for mode in persistent fork; do
      o="$out/$s-$p-$mode"
      rm -rf "$o"; mkdir -p "$o"
      opts=(--unit none)
      if [ "$mode" = fork ]; then opts+=(--persistent 1); fi
      taskset -c "$cb" "$bridge" run "${opts[@]}" --no-bind --time "${secs}s" -i "$seeds" -o "$o/bridge" \
        -- "$carve" @@ > "$o/bridge.log" 2>&1 &
      taskset -c "$ca" afl-fuzz -V "$secs" -s "$p" -i "$seeds" -o "$o/afl" -- "$afl" > "$o/afl.log" 2>&1 &
      wait
      eb=$(bridge_execs "$o/bridge") ea=$(afl_execs "$o/afl")
      printf '| %s | %s | %s | %s | %s | %s |\n' "$s" "$p" "$mode" "$eb" "$ea" "$(python3 -c "print(f'{$eb/$ea:.2f}')")"
    done
  done
done
