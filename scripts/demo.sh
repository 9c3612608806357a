#!/usr/bin/env bash
# The main job on the built-in examples: build them with carve-clang, show
# the edges one input covers, run each example's seeds (and, for `magic`,
# an input that crashes it) through the fork server, fuzz `magic` for 15 s
# with the radamsa-like generator, and carve unit tests out of a run of
# `shapes`, then replay them.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tools="$repo/target/release"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== building the examples with carve-clang"
make -s -C "$repo/examples" CC="$tools/carve-clang" OUT="$work/bin"

echo "== bridge showmap: the edges of '2 3 + p' in calc"
"$tools/bridge" showmap -o "$work/edges" -- "$work/bin/calc" < "$repo/examples/calc/seeds/add"
echo "   $(wc -l < "$work/edges") edges, first ones: $(head -3 "$work/edges" | tr '\n' ' ')"

run() {
  local name=$1; shift
  echo "== bridge exec: $name"
  "$tools/bridge" exec --corpus "$work/corpus-$name" -- "$work/bin/$name" "$@" | sed 's/^/   /'
}
for ex in csvstat calc magic; do
  mkdir -p "$work/corpus-$ex"
  cp "$repo/examples/$ex/seeds/"* "$work/corpus-$ex/"
done
cp "$repo/examples/magic/crash.input" "$work/corpus-magic/"
run csvstat @@
run calc
run magic @@
echo "== bridge run: 15 s of radamsa-like fuzzing on magic (from its two harmless seeds)"
"$tools/bridge" run -i "$repo/examples/magic/seeds" -o "$work/campaign" --time 15s --seed 1 -- "$work/bin/magic" @@ 2>/dev/null | sed 's/^/   /'
for c in "$work/campaign/crashes/"*; do
  [ -e "$c" ] || continue
  status=$( { "$work/bin/magic" "$c" >/dev/null 2>&1; echo $?; } 2>/dev/null )
  echo "   reproduced directly: $(basename "$c") -> exit status $status (139: SIGSEGV)"
done

echo "== bridge carve: unit tests out of one run of shapes, then replayed"
"$tools/bridge" carve -o "$work/units" -- "$work/bin/shapes" < "$repo/examples/shapes/seeds/numbers" 2>&1 | sed 's/^/   /'
"$tools/bridge" replay "$work/units" | tail -1 | sed 's/^/   /'
"$tools/bridge" show "$work/units/count_upper.0.unit" | sed -n '/^int main/,$p' | sed 's/^/   /'
echo "== done"
