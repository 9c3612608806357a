#!/usr/bin/env bash
# The main job on the built-in examples: build them with carve-clang, show
# the edges one input covers, then run each example's seeds (and, for
# `magic`, an input that crashes it) through the fork server.
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
echo "== done: build magic with carve-clang and run it on examples/magic/crash.input to see the crash again"
