#!/usr/bin/env bash
# What CI checks, plus formatting and lints: run before every commit.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo fmt --manifest-path runtime/Cargo.toml -- --check
cargo clippy --release --all-targets -- -D warnings
(cd runtime && cargo clippy --release --all-targets --target-dir ../target -- -D warnings)
scripts/test.sh
