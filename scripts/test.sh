#!/usr/bin/env bash
# Runs the tests: installs what is missing, builds the tools (the end-to-end
# tests use the built carve-clang, runtime and bridge), runs every test.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
scripts/install-deps.sh
scripts/build.sh
(cd runtime && cargo test --release --target-dir ../target)
cargo test --release --workspace
