#!/usr/bin/env bash
# How far the bench's ratios can go with the tests known: per subject, the
# branch outcomes covered by every test of the given bench outputs (the
# queues, crashes, hangs and lifts of all their configurations and seeds),
# the seeds, and the hand-written probes of scripts/bench/probes/SUBJECT
# (each option and error path the bench's command line reaches), and that
# union over the radamsa-like-alone campaigns' branches, per bench output
# (`bound`, over the seed whose campaign covered most), beside the lowest
# ratio another configuration reached over its seed (`best`). The bound
# holds for the tests known, not for one a new campaign may find; a
# target above it needs coverage no known test has.
#   scripts/bench/ceiling.sh [--cache DIR] [--subjects cut,...] OUT...
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
subjects=cut,paste,tac,b2sum,sed,dc
outs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) cache=$2/subjects; shift 2 ;;
    --subjects) subjects=$2; shift 2 ;;
    -*) echo "ceiling.sh: unknown option $1" >&2; exit 2 ;;
    *) outs+=("$1"); shift ;;
  esac
done
[ ${#outs[@]} -gt 0 ] || { echo "usage: scripts/bench/ceiling.sh [--cache DIR] [--subjects cut,...] OUT..." >&2; exit 2; }
[ -x "$repo/target/release/bridge" ] || "$repo/scripts/build.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=scripts/bench/seeds.sh
. "$repo/scripts/bench/seeds.sh"

covered() { # bin dir... -> branch outcomes covered
  python3 "$repo/scripts/bench/uncovered.py" --args-in-input --top 0 "$@" | awk '{print $2}'
}

printf '%-6s %-22s %6s %6s %6s %6s %10s %6s %6s %6s\n' subject out seeds probes tests union "rl alone" bound best paper
IFS=, read -r -a list <<< "$subjects"
for s in "${list[@]}"; do
  bin="$cache/bin-carve/$s"
  [ -x "$bin" ] || { echo "ceiling.sh: $bin missing: run scripts/subjects.sh" >&2; exit 1; }
  seeds=$(seed_dir "$s" "$tmp")
  probes=$(probe_dir "$s" "$tmp")
  dirs=()
  for o in "${outs[@]}"; do
    for d in "$o/$s"/*/*/{queue,crashes,hangs,lifts}; do
      [ -d "$d" ] && dirs+=("$d")
    done
  done
  [ ${#dirs[@]} -gt 0 ] || { echo "ceiling.sh: no campaign of $s in ${outs[*]}" >&2; exit 1; }
  n_seeds=$(covered "$bin" "$seeds")
  n_probes=$(covered "$bin" "$probes")
  n_tests=$(covered "$bin" "${dirs[@]}")
  union=$(covered "$bin" "$seeds" "$probes" "${dirs[@]}")
  # Per bench output: the union over the radamsa-like-alone campaign that
  # covered most (the lowest bound: a target holds on every seed), and the
  # lowest ratio another configuration reached over its seed's campaign.
  python3 - "$s" "$n_seeds" "$n_probes" "$n_tests" "$union" "${outs[@]}" <<'PY'
import glob, json, os, sys
paper = {"cut": 1.05, "paste": 1.12, "tac": 1.12, "b2sum": 1.19, "sed": 1.59, "dc": 0.54}
s, seeds, probes, tests, union = sys.argv[1], *map(int, sys.argv[2:6])
def branches(path):
    return json.load(open(path))["stats"]["branches"]
for out in sys.argv[6:]:
    rl, best = {}, {}
    for c in glob.glob(os.path.join(out, s, "*", "*", "campaign.json")):
        seed, config = c.split(os.sep)[-3:-1]
        if config == "none":
            rl[seed] = branches(c)
    for c in glob.glob(os.path.join(out, s, "*", "*", "campaign.json")):
        seed, config = c.split(os.sep)[-3:-1]
        if config != "none" and seed in rl:
            best[seed] = max(best.get(seed, 0), branches(c) / rl[seed])
    if not rl:
        continue
    lo, hi = min(rl.values()), max(rl.values())
    span = f"{lo}-{hi}" if lo != hi else f"{lo}"
    low = f"{min(best.values()):.2f}" if best else "-"
    name = out if len(out) <= 22 else "..." + out[-19:]
    print(f"{s:<6} {name:<22} {seeds:6d} {probes:6d} {tests:6d} {union:6d} {span:>10} {union / hi:6.2f} {low:>6} {paper.get(s, float('nan')):6.2f}")
PY
done
