#!/usr/bin/env bash
# Two builds of bridge against each other (before and after a change),
# side by side, one core each (taskset), the same subject, seeds, budget
# and `bridge run` options: per pair, system execs and branch outcomes by
# llvm-cov replay of every kept test (scripts/bench/covreplay.py), their
# ratios after ÷ before, and the queues' median size. Pairs alternate which
# build takes core 0.
#   scripts/bench/ab.sh --before BIN [--after BIN] [--before-opts "OPTS"] [--after-opts "OPTS"] [--before-target PATH] [--fixed] [--subjects sed] [--time 2m] [--pairs 2] [--seed-from 1] [--out DIR] [-- RUN-OPTIONS...]
# Pair P runs with `--seed` K+P-1 (K: --seed-from). --after defaults to
# target/release/bridge; RUN-OPTIONS go to both runs
# (e.g. `--system grammar --grammar grammars/sed.json`; GRAMMAR in them is
# replaced by grammars/SUBJECT.json); --before-opts to the before run only,
# --after-opts to the after run only, so one build can be set against
# itself with other options:
#   ab.sh --before target/release/bridge --before-opts "--persistent 1" --subjects xml-fuzz
# --before-target PATH runs the before build on another build of the
# subject (one an earlier carve-clang made), for a change to carve-clang:
#   ab.sh --before OLD/bridge --before-target OLD/dc --subjects dc
# A harness subject (sqlite-fuzz, xml-fuzz, pcre2-fuzz, png-fuzz) runs on the seeds
# scripts/subjects.sh built beside it, as `HARNESS @@`; the others on the
# benchmark seeds with their command lines (--args-in-input), or, with
# --fixed, on the fixed command line and seeds afl.sh and libs.sh give
# them (issue 46's matrix: `dc @@` on the seeds' inputs).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
before=""
after="$repo/target/release/bridge"
subjects=sed
budget=2m
pairs=2
first=1
out=""
before_opts="" after_opts="" before_target="" fixed=""
while [ $# -gt 0 ]; do
  case "$1" in
    --before) before=$2; shift 2 ;;
    --after) after=$2; shift 2 ;;
    --before-opts) before_opts=$2; shift 2 ;;
    --after-opts) after_opts=$2; shift 2 ;;
    --before-target) before_target=$2; shift 2 ;;
    --fixed) fixed=1; shift ;;
    --subjects) subjects=$2; shift 2 ;;
    --time) budget=$2; shift 2 ;;
    --pairs) pairs=$2; shift 2 ;;
    --seed-from) first=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "ab.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$before" ] && [ -x "$before" ] || { echo "ab.sh: --before BIN (an executable bridge) is needed" >&2; exit 2; }
[ -x "$after" ] || { echo "ab.sh: $after is not executable" >&2; exit 2; }
[ -n "$out" ] || out=$(mktemp -d /tmp/carve-bench-ab.XXXXXX)
mkdir -p "$out"
echo "results in $out" >&2
# shellcheck source=scripts/bench/seeds.sh
. "$repo/scripts/bench/seeds.sh"

printf '| subject | seed | execs before | execs after | ratio | branches before | branches after | ratio | queue median before / after |\n|---|---|---|---|---|---|---|---|---|\n'
IFS=, read -r -a list <<< "$subjects"
for s in "${list[@]}"; do
  bin="$cache/bin-carve/$s"
  cov="$cache/bin-cov/$s"
  [ -x "$bin" ] && [ -x "$cov" ] || { echo "ab.sh: $bin or $cov missing: run scripts/subjects.sh --variant carve,cov --subjects $s" >&2; exit 1; }
  if [ -d "$cache/bin-carve/$s.seeds" ]; then
    d="$cache/bin-carve/$s.seeds" mode=() argv=("@@") rargv=(--argv "@@")
  elif [ -n "$fixed" ]; then
    san="" d=$(fixed_seeds "$s") words=$(args_of "$s" "$out/data-$s")
    read -r -a argv <<< "$words"
    mode=() rargv=(--argv "$words")
  else
    d=$(seed_dir "$s" "$out") mode=(--args-in-input) argv=() rargv=()
  fi
  read -r -a bopts <<< "$before_opts"
  read -r -a aopts <<< "$after_opts"
  opts=()
  for o in "$@"; do opts+=("${o//GRAMMAR/$repo/grammars/$s.json}"); done
  for p in $(seq 1 "$pairs"); do
    b="$out/$s/$p/before"; a="$out/$s/$p/after"
    rm -rf "$b" "$a"; mkdir -p "$out/$s/$p"
    cb=$(( p % 2 )); ca=$(( 1 - cb )); seed=$(( first + p - 1 ))
    taskset -c "$cb" "$before" run "${mode[@]}" -i "$d" -o "$b" --time "$budget" --seed "$seed" "${opts[@]}" "${bopts[@]}" -- "${before_target:-$bin}" "${argv[@]}" > "$b.log" 2>&1 &
    taskset -c "$ca" "$after" run "${mode[@]}" -i "$d" -o "$a" --time "$budget" --seed "$seed" "${opts[@]}" "${aopts[@]}" -- "$bin" "${argv[@]}" > "$a.log" 2>&1 \
      || { tail -5 "$a.log" >&2; exit 1; }
    wait
    eb=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stats"]["execs"])' "$b/campaign.json")
    ea=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stats"]["execs"])' "$a/campaign.json")
    bb=$(python3 "$repo/scripts/bench/covreplay.py" "${rargv[@]}" "$cov" "$b" | awk 'NR==2 {print $4}')
    ba=$(python3 "$repo/scripts/bench/covreplay.py" "${rargv[@]}" "$cov" "$a" | awk 'NR==2 {print $4}')
    python3 - "$s" "$seed" "$eb" "$ea" "$bb" "$ba" "$(median_size "$b/queue")" "$(median_size "$a/queue")" <<'PY'
import sys
s, p, eb, ea, bb, ba, mb, ma = sys.argv[1:9]
r = lambda x, y: f"{int(y) / int(x):.3f}" if int(x) else "nan"
print(f"| {s} | {p} | {eb} | {ea} | {r(eb, ea)} | {bb} | {ba} | {r(bb, ba)} | {mb} / {ma} |")
PY
  done
done
