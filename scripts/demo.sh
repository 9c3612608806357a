#!/usr/bin/env bash
# The main job on a built-in example, start to finish:
#  1. build the examples with carve-clang (-O2 -g, as their users build them);
#  2. carve unit tests out of one run of `inlined` (an Intel HEX loader whose
#     buggy `store()` is small and static: the optimiser inlines it
#     everywhere) and replay them;
#  3. fuzz `inlined` for DEMO_TIME seconds (default 30) two ways, side by
#     side on the same seeds: system fuzzing alone (`--unit none`) and the
#     bridge (`bridge run`, whose unit level explores carved units with z3
#     and lifts what fails back to whole-program inputs);
#  4. review what the bridge found: one row per bug (signature: signal and
#     innermost frames), each with a reduced reproducer, and SARIF.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tools="$repo/target/release"
time=${DEMO_TIME:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seeds="$repo/examples/inlined/seeds"

echo "== building the examples with carve-clang (-O2 -g)"
make -s -C "$repo/examples" CC="$tools/carve-clang" OUT="$work/bin"
prog="$work/bin/inlined"

echo "== bridge carve: unit tests out of one run of inlined, then replayed"
"$tools/bridge" carve -o "$work/units" -- "$prog" @@ < "$seeds/firmware" 2>&1 | sed 's/^/   /'
"$tools/bridge" replay "$work/units" | tail -1 | sed 's/^/   /'

echo "== ${time} s of fuzzing inlined, side by side: system alone, and the bridge"
"$tools/bridge" run --unit none -i "$seeds" -o "$work/system" --time "${time}s" --seed 1 -- "$prog" @@ \
  > "$work/system.log" 2>&1 &
alone=$!
"$tools/bridge" run -i "$seeds" -o "$work/bridge" --time "${time}s" --seed 1 -- "$prog" @@ 2>/dev/null |
  grep '^bridge run' | sed 's/^/   /'
wait "$alone"
crashes=$(find "$work/system/crashes" -type f | wc -l)
alarms=$(find "$work/bridge/alarms" -name report.json 2>/dev/null | wc -l)
echo "   system fuzzing alone: $crashes crashes kept; the bridge: $alarms true alarms lifted"

echo "== bridge review: what the bridge found"
"$tools/bridge" review --sarif "$work/bridge.sarif" "$work/bridge" | sed 's/^/   /'
for r in "$work"/bridge/review/*/reduced; do
  [ -e "$r" ] || continue
  echo "   reduced reproducer $(basename "$(dirname "$r")"):"
  sed 's/^/     | /' "$r"; echo
  status=$( { clang-19 -O2 -o "$work/plain" "$repo/examples/inlined/inlined.c" && "$work/plain" "$r" >/dev/null 2>&1; echo $?; } 2>/dev/null )
  echo "   on a plain clang-19 -O2 build: exit status $status (134: SIGABRT)"
done
echo "== done"
