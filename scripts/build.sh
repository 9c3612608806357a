#!/usr/bin/env bash
# Builds the tools and the runtime (release). The runtime is a workspace of
# its own (it alone builds with `panic = "abort"`); it is built into the
# same target directory, so libcarve_rt.a lands next to carve-clang.
set -euo pipefail
cd "$(dirname "$0")/.."
(cd runtime && cargo build --release --target-dir ../target)
cargo build --release --workspace
