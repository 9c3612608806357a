#!/usr/bin/env bash
# Builds the tools and the runtime (release). The runtime is a workspace of
# its own (it alone builds with `panic = "abort"`); it is built into the
# same target directory, so libcarve_rt.a lands next to carve-clang.
set -euo pipefail
cd "$(dirname "$0")/.."
(cd runtime && cargo build --release --target-dir ../target)
cargo build --release --workspace
# The driver of libFuzzer harnesses (`carve-clang -fsanitize=fuzzer`),
# next to the runtime.
mkdir -p target/release
clang-19 -O2 -g -fPIC -c runtime/fuzzer/driver.c -o target/release/carve_fuzzer.o
rm -f target/release/libcarve_fuzzer.a
ar rcs target/release/libcarve_fuzzer.a target/release/carve_fuzzer.o
