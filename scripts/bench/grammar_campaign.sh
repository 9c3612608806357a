#!/usr/bin/env bash
# The grammar generator against radamsa-like, both with the symbolic
# explorer (the bridge), same seeds and budget, on sed and dc: the two
# campaigns of each seed run side by side (one core each), then every
# test of both is replayed on the source-based coverage build (llvm-cov,
# scripts/bench/covreplay.py) and the branch outcomes compared. Also the
# grammar campaign's own counts: parameters aligned with derivation nodes,
# lifts in place of a node and those the grammar no longer derives, and
# values offered back to the generator.
#   scripts/bench/grammar_campaign.sh [--subjects sed,dc] [--time 2m] [--seeds N] [--mode mixed] [--out DIR]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
subjects=sed,dc
budget=2m
seeds=3
mode=mixed
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --subjects) subjects=$2; shift 2 ;;
    --time) budget=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "grammar_campaign.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
bridge="$repo/target/release/bridge"
[ -x "$bridge" ] || "$repo/scripts/build.sh"
[ -n "$out" ] || out=$(mktemp -d /tmp/carve-bench-grammar.XXXXXX)
mkdir -p "$out"
echo "results in $out" >&2
# shellcheck source=scripts/bench/seeds.sh
. "$repo/scripts/bench/seeds.sh"

printf '| subject | seed | radamsa-like + symbolic | grammar (%s) + symbolic | ratio | params on nodes | node lifts (not derived) | leaf values parsing as their nonterminal | lifts of such values derived again | values offered |\n|---|---|---|---|---|---|---|---|---|---|\n' "$mode"
IFS=, read -r -a list <<< "$subjects"
for s in "${list[@]}"; do
  bin="$cache/bin-carve/$s"
  cov="$cache/bin-cov/$s"
  [ -x "$bin" ] && [ -x "$cov" ] || { echo "grammar_campaign.sh: $bin or $cov missing: run scripts/subjects.sh --variant carve,cov" >&2; exit 1; }
  d=$(seed_dir "$s" "$out")
  for seed in $(seq 1 "$seeds"); do
    r="$out/$s/$seed/radamsa"; g="$out/$s/$seed/grammar"
    rm -rf "$r" "$g"; mkdir -p "$(dirname "$r")"
    "$bridge" run --args-in-input --unit symbolic -i "$d" -o "$r" --time "$budget" --seed "$seed" -- "$bin" > "$r.log" 2>&1 &
    "$bridge" run --args-in-input --unit symbolic --system grammar --grammar "$repo/grammars/$s.json" --mode "$mode" \
      -i "$d" -o "$g" --time "$budget" --seed "$seed" -- "$bin" > "$g.log" 2>&1 || { tail -5 "$g.log" >&2; exit 1; }
    wait
    rb=$(python3 "$repo/scripts/bench/covreplay.py" "$cov" "$r" | awk 'NR==2 {print $4}')
    gb=$(python3 "$repo/scripts/bench/covreplay.py" "$cov" "$g" | awk 'NR==2 {print $4}')
    python3 - "$s" "$seed" "$rb" "$gb" "$g/campaign.json" <<'PY'
import json, sys
s, seed, rb, gb, c = sys.argv[1:6]
st = json.load(open(c))["stats"]
ratio = int(gb) / int(rb) if int(rb) else float("nan")
print(f"| {s} | {seed} | {rb} | {gb} | {ratio:.2f} | {st.get('params_on_nodes', 0)} | "
      f"{st.get('node_lifts', 0)} ({st.get('node_lifts_unparsed', 0)}) | "
      f"{st.get('leaf_lifts_parsed', 0)}/{st.get('leaf_lifts', 0)} | "
      f"{st.get('node_lifts_valid_reparsed', 0)}/{st.get('node_lifts_valid', 0)} | {st.get('values_offered', 0)} |")
PY
  done
done
