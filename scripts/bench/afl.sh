#!/usr/bin/env bash
# The bridge beside AFL++ (Debian's afl++ 4.04c), measured outside both
# tools: every test of every output is replayed on the subject's llvm-cov
# build (scripts/bench/covreplay.py).
#
#   speed  AFL++ on the carve-clang build against AFL++ on the
#          afl-clang-fast build, side by side, one core each: execs/s; then
#          the same inputs (the second one's queue) run on both builds by
#          afl-showmap, in turn: the instrumentation's cost alone.
#   alone  `bridge run --unit symbolic` against AFL++ alone, side by side,
#          one core each (taskset): system execs and branch coverage.
#   pair   two cores, one configuration after the other: AFL++ -M + AFL++ -S
#          against AFL++ -M + `bridge run --system afl++ --sync`: branch
#          coverage of the union of the two instances' outputs, the bridge's
#          entries AFL++ imported (`sync:bridge` in its queue), and the
#          failure signatures only the bridge found.
#
# Command lines are fixed (AFL++ cannot vary them), one per subject below;
# the seeds are the inputs of the benchmark seeds (for sed, their scripts,
# run by `sed -f` on the seeds' data; for a harness subject (sqlite-fuzz,
# xml-fuzz, pcre2-fuzz, png-fuzz), the seeds scripts/subjects.sh built beside it). AFL++ syncs every minute
# (AFL_SYNC_TIME=1) in both pair configurations. Needs the plain-free
# variants carve, afl and cov: scripts/subjects.sh --variant carve,afl,cov.
#
# `--seeds N --first-seed K` runs seeds K..K+N-1 (1 by default), so that
# seeds can be added to an output later.
#
# `--bridge PATH` runs another build of bridge (an older commit's, for a
# before/after comparison of `alone`).
#
# `--args-in-input`: the tests carry their command lines (the benchmark
# seeds as they are), so both tools fuzz them: the bridge with
# --args-in-input, AFL++ with CARVE_ARGS_IN_INPUT=1 on the carve-clang
# build (the afl-clang-fast build cannot read a command line from a test),
# in `alone` and `pair` alike.
#
# `--cmplog`: `alone` also runs AFL++ at its best, with cmplog (RedQueen's
# input-to-state: `afl-fuzz -c` with the afl-cmplog build beside the afl
# one: scripts/subjects.sh --variant afl-cmplog), for the same time on
# core 1 after the pair, and adds its execs and branches and the bridge's
# ratio to it (the bridge's and AFL++'s outputs are replayed on core 0
# meanwhile), the failure signatures each of the three found (crashes and
# alarms, by `bridge signature`; those only the bridge found) and the
# queues' median sizes. Fixed command lines only: cmplog needs AFL++'s own
# instrumentation, which the carve-clang build that reads command lines
# from tests does not have.
#
# `--asan`: both tools on AddressSanitizer builds (carve-asan and
# afl-asan: scripts/subjects.sh --variant carve-asan,afl-asan), AFL++ with
# the ASAN_OPTIONS it asks for (abort_on_error=1, symbolize=0, no leaks).
#
#   scripts/bench/afl.sh [--cache DIR] [--subjects sed,dc,cut] [--time 5m]
#                        [--seeds N] [--first-seed K] [--modes speed,alone,pair] [--out DIR]
#                        [--bridge PATH] [--args-in-input] [--asan] [--cmplog]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
subjects=sed,dc,cut
budget=5m
seeds=1
first=1
modes=speed,alone,pair
out=""
bridge_bin=""
aii=0
san=""
cmplog=0
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) cache=$2/subjects; shift 2 ;;
    --subjects) subjects=$2; shift 2 ;;
    --time) budget=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --first-seed) first=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --bridge) bridge_bin=$2; shift 2 ;;
    --args-in-input) aii=1; shift ;;
    --cmplog) cmplog=1; shift ;;
    --asan) san=-asan; export ASAN_OPTIONS=abort_on_error=1:symbolize=0:detect_leaks=0; shift ;;
    *) echo "afl.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ "$cmplog" = 1 ] && { [ "$aii" = 1 ] || [ -n "$san" ]; }; then
  echo "afl.sh: --cmplog is for fixed command lines without --asan (cmplog needs AFL++'s own instrumentation)" >&2; exit 2
fi
if [ "$aii" = 1 ] && [[ ",$modes," == *,speed,* ]]; then
  echo "afl.sh: --args-in-input is for the alone and pair modes (speed compares two builds on fixed command lines)" >&2; exit 2
fi
bridge=${bridge_bin:-$repo/target/release/bridge}
[ -x "$bridge" ] || "$repo/scripts/build.sh"
command -v afl-fuzz >/dev/null || { echo "afl.sh: afl-fuzz missing: scripts/install-deps.sh --bench" >&2; exit 1; }
[ -n "$out" ] || out=$(mktemp -d /tmp/carve-bench-afl.XXXXXX)
mkdir -p "$out"
out=$(cd "$out" && pwd)
echo "results in $out" >&2
# AFL++ runs the target in its own working directory, and programs write
# files there (sed's `w`): everything runs from a scratch directory, a
# fresh one for each subject and seed (a file `,` that sed's runs wrote
# must not be there when cut runs with `-d ,`).
mkdir -p "$out/cwd"
cd "$out/cwd"
secs=$(python3 -c "import sys; t=sys.argv[1]; m={'s':1,'m':60,'h':3600}; print(int(float(t[:-1])*m[t[-1]]) if t[-1] in m else int(float(t)))" "$budget")

# shellcheck source=scripts/bench/seeds.sh
. "$repo/scripts/bench/seeds.sh"

export AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1 AFL_SYNC_TIME=1

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['stats']; print($2)" "$1"; }
showmap_time() { # queue outdir program args... -> seconds afl-showmap takes to run every input, on core 1
  local q=$1 m=$2 t0; shift 2; rm -rf "$m"; t0=$(date +%s.%N)
  taskset -c 1 afl-showmap -q -t 1000 -i "$q" -o "$m" -- "$@" > /dev/null 2>&1 || true
  python3 -c "print($(date +%s.%N) - $t0)"
}
afl_stat() { awk -F: -v k="$2" '$1 ~ "^"k" *$" {gsub(/ /, "", $2); print $2}' "$1/fuzzer_stats"; }
branches() { # argv out... -> covered branches of the union (run under $pin, e.g. taskset -c 0, if set)
  if [ "$aii" = 1 ]; then
    ${pin:-} python3 "$repo/scripts/bench/covreplay.py" --union "$cov" "${@:2}" | tail -1 | awk '{print $4}'
  else
    ${pin:-} python3 "$repo/scripts/bench/covreplay.py" --argv "$1" --union "$cov" "${@:2}" | tail -1 | awk '{print $4}'
  fi
}
# Failure signatures (kind and innermost frames) of every crash and alarm in the outputs.
signatures() { # argv out... -> one key a line
  local a=$1 f; shift
  for o in "$@"; do
    for f in "$o"/crashes/id:* "$o"/alarms/*/input; do
      [ -f "$f" ] || continue
      # shellcheck disable=SC2086
      "$bridge" signature $bflags --json "$f" -- "$carve" $a 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin) or {}; print(d.get('key') or '')" || true
    done
  done | { grep -v '^$' || true; } | sort -u
}

IFS=, read -r -a list <<< "$subjects"
for s in "${list[@]}"; do
  carve="$cache/bin-carve$san/$s" afl="$cache/bin-afl$san/$s" cov="$cache/bin-cov/$s"
  for b in "$carve" "$afl" "$cov"; do
    [ -x "$b" ] || { echo "afl.sh: $b missing: scripts/subjects.sh --variant carve$san,afl$san,cov --subjects $s" >&2; exit 1; }
  done
  if [ "$aii" = 1 ]; then
    # Command lines in the tests: AFL++ runs the carve-clang build, which
    # reads them (CARVE_ARGS_IN_INPUT=1); the bridge reads them too.
    d=$(seed_dir "$s" "$out") a="" fuzzed="$carve" bflags=--args-in-input aflargs="@@"
    export CARVE_ARGS_IN_INPUT=1
  else
    d=$(fixed_seeds "$s")
    a=$(args_of "$s" "$out/data-$s") fuzzed="$afl" bflags="" aflargs=$a
    # AFL++'s harness driver takes its inputs from AFL++ itself (shared
    # memory, several per forked child: persistent mode), not from a file.
    if [ -d "$cache/bin-carve$san/$s.seeds" ]; then aflargs=""; fi
  fi
  for seed in $(seq "$first" $((first + seeds - 1))); do
    o="$out/$s/$seed"
    rm -rf "$o"; mkdir -p "$o"
    rm -rf "$out/cwd/$s-$seed"; mkdir -p "$out/cwd/$s-$seed"; cd "$out/cwd/$s-$seed"
    if [[ ",$modes," == *,speed,* ]]; then
      # shellcheck disable=SC2086
      taskset -c 0 afl-fuzz -V 60 -s "$seed" -i "$d" -o "$o/speed-carve" -- "$carve" $a > "$o/speed-carve.log" 2>&1 &
      # shellcheck disable=SC2086
      taskset -c 1 afl-fuzz -V 60 -s "$seed" -i "$d" -o "$o/speed-afl" -- "$afl" $a > "$o/speed-afl.log" 2>&1 &
      wait
      ec=$(afl_stat "$o/speed-carve/default" execs_done) ea=$(afl_stat "$o/speed-afl/default" execs_done)
      printf 'speed %-6s %s  AFL++ execs in 60 s: carve-clang %s, afl-clang-fast %s, ratio %s\n' "$s" "$seed" "$ec" "$ea" \
        "$(python3 -c "print(f'{$ec/$ea:.2f}')")"
      # The two campaigns' queues differ (a hang costs a second's recheck):
      # the same inputs, AFL++'s queue on the afl-clang-fast build, run on
      # both builds by afl-showmap's fork server, in turn, three times.
      q="$o/speed-afl/default/queue" tc=0 ta=0
      for _ in 1 2 3; do
        # shellcheck disable=SC2086
        tc=$(python3 -c "print($tc + $(showmap_time "$q" "$o/showmap" "$carve" $a))")
        # shellcheck disable=SC2086
        ta=$(python3 -c "print($ta + $(showmap_time "$q" "$o/showmap" "$afl" $a))")
      done
      printf 'speed %-6s %s  the same %s inputs, 3 times: carve-clang %.2f s, afl-clang-fast %.2f s, ratio %s\n' "$s" "$seed" \
        "$(find "$q" -maxdepth 1 -type f | wc -l)" "$tc" "$ta" "$(python3 -c "print(f'{$ta/$tc:.2f}')")"
    fi
    if [[ ",$modes," == *,alone,* ]]; then
      # shellcheck disable=SC2086
      taskset -c 0 "$bridge" run $bflags --unit symbolic --seed "$seed" -i "$d" -o "$o/bridge" --time "$secs" -- "$carve" $a > "$o/bridge.log" 2>&1 &
      # shellcheck disable=SC2086
      taskset -c 1 afl-fuzz -V "$secs" -s "$seed" -i "$d" -o "$o/afl" -- "$fuzzed" $aflargs > "$o/afl.log" 2>&1 &
      wait
      eb=$(json "$o/bridge/campaign.json" "d['execs']") ea=$(afl_stat "$o/afl/default" execs_done)
      if [ "$cmplog" = 1 ]; then
        # AFL++ with cmplog on core 1 while the two outputs are replayed on
        # core 0 (replays are not timed; nothing else runs on core 1).
        cmp="$cache/bin-afl-cmplog/$s"
        [ -x "$cmp" ] || { echo "afl.sh: $cmp missing: scripts/subjects.sh --variant afl-cmplog --subjects $s" >&2; exit 1; }
        # shellcheck disable=SC2086
        taskset -c 1 afl-fuzz -V "$secs" -s "$seed" -c "$cmp" -i "$d" -o "$o/cmplog" -- "$fuzzed" $aflargs > "$o/cmplog.log" 2>&1 &
        cmplog_pid=$!
        cb=$(pin="taskset -c 0" branches "$a" "$o/bridge") ca=$(pin="taskset -c 0" branches "$a" "$o/afl/default")
        wait "$cmplog_pid"
      else
        cb=$(branches "$a" "$o/bridge") ca=$(branches "$a" "$o/afl/default")
      fi
      printf 'alone %-6s %s  execs bridge %s, AFL++ %s, ratio %s | branches bridge %s, AFL++ %s, ratio %s | %s\n' "$s" "$seed" \
        "$eb" "$ea" "$(python3 -c "print(f'{$eb/$ea:.2f}')")" "$cb" "$ca" "$(python3 -c "print(f'{$cb/max($ca,1):.3f}')")" \
        "$(grep -h '^bridge run: .*system execs' "$o/bridge.log" | sed 's/^bridge run: //')"
      if [ "$cmplog" = 1 ]; then
        ek=$(afl_stat "$o/cmplog/default" execs_done) ck=$(branches "$a" "$o/cmplog/default")
        printf 'cmplog %-5s %s  execs bridge %s, AFL++ with cmplog %s, ratio %s | branches bridge %s, AFL++ with cmplog %s, ratio %s\n' "$s" "$seed" \
          "$eb" "$ek" "$(python3 -c "print(f'{$eb/$ek:.2f}')")" "$cb" "$ck" "$(python3 -c "print(f'{$cb/max($ck,1):.3f}')")"
        signatures "$a" "$o/bridge" > "$o/sig-bridge"
        signatures "$a" "$o/afl/default" > "$o/sig-afl"
        signatures "$a" "$o/cmplog/default" > "$o/sig-cmplog"
        only=$(sort -u "$o/sig-afl" "$o/sig-cmplog" | comm -13 - "$o/sig-bridge" | wc -l)
        printf 'found %-6s %s  failure signatures: bridge %s, AFL++ %s, AFL++ with cmplog %s, only the bridge'"'"'s %s (OUT/%s/%s/sig-*)\n' "$s" "$seed" \
          "$(wc -l < "$o/sig-bridge")" "$(wc -l < "$o/sig-afl")" "$(wc -l < "$o/sig-cmplog")" "$only" "$s" "$seed"
        printf 'sizes %-6s %s  queue median bytes: bridge %s, AFL++ %s, AFL++ with cmplog %s\n' "$s" "$seed" \
          "$(median_size "$o/bridge/queue")" "$(median_size "$o/afl/default/queue")" "$(median_size "$o/cmplog/default/queue")"
      fi
    fi
    if [[ ",$modes," == *,pair,* ]]; then
      # shellcheck disable=SC2086
      taskset -c 0 afl-fuzz -M main -V "$secs" -s "$seed" -i "$d" -o "$o/aa" -- "$fuzzed" $aflargs > "$o/aa-main.log" 2>&1 &
      # shellcheck disable=SC2086
      taskset -c 1 afl-fuzz -S second -V "$secs" -s "$((seed + 100))" -i "$d" -o "$o/aa" -- "$fuzzed" $aflargs > "$o/aa-second.log" 2>&1 &
      wait
      # shellcheck disable=SC2086
      taskset -c 0 afl-fuzz -M main -V "$secs" -s "$seed" -i "$d" -o "$o/ab" -- "$fuzzed" $aflargs > "$o/ab-main.log" 2>&1 &
      sleep 2
      # shellcheck disable=SC2086
      taskset -c 1 "$bridge" run $bflags --system afl++ --sync "$o/ab" --seed "$seed" -i "$d" --time "$((secs - 2))" -- "$carve" $a > "$o/ab-bridge.log" 2>&1 &
      wait
      caa=$(branches "$a" "$o/aa/main" "$o/aa/second") cab=$(branches "$a" "$o/ab/main" "$o/ab/bridge")
      imported=$(find "$o/ab/main/queue" -maxdepth 1 -name '*,sync:bridge,*' | wc -l)
      signatures "$a" "$o/aa/main" "$o/aa/second" "$o/ab/main" > "$o/sig-afl"
      signatures "$a" "$o/ab/bridge" > "$o/sig-bridge"
      only=$(comm -13 "$o/sig-afl" "$o/sig-bridge" | wc -l)
      printf 'pair  %-6s %s  branches AFL++ + AFL++ %s, AFL++ + bridge %s, ratio %s | AFL++ imported %s bridge entries | signatures only the bridge found: %s of %s\n' \
        "$s" "$seed" "$caa" "$cab" "$(python3 -c "print(f'{$cab/max($caa,1):.3f}')")" "$imported" "$only" "$(wc -l < "$o/sig-bridge")"
    fi
  done
done
