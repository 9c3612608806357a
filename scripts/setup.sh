#!/usr/bin/env bash
# Sets everything up and runs the main job on a built-in example:
# installs the system packages, builds the tools, puts carve-clang,
# carve-clang++ and bridge on PATH (/usr/local/bin), then builds the
# examples with carve-clang and runs their seeds and a crashing input
# through bridge. Safe to run again.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

scripts/install-deps.sh
echo "== building (scripts/build.sh)"
scripts/build.sh

bin=/usr/local/bin
if [ -w "$bin" ]; then
  ln -sf "$repo/target/release/carve-clang" "$bin/carve-clang"
  ln -sf "$repo/target/release/carve-clang" "$bin/carve-clang++"
  ln -sf "$repo/target/release/bridge" "$bin/bridge"
  echo "== carve-clang, carve-clang++ and bridge are in $bin"
else
  echo "== add $repo/target/release to PATH to use carve-clang and bridge"
fi

exec scripts/demo.sh
