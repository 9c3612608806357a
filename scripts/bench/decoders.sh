#!/usr/bin/env bash
# Fuzzes every decoder of a file the tools read (unit, snapshot and outcome
# payloads, symbolic trace, symbolic-input file, alarm record) with mutated
# versions of valid files: prints a table of inputs, accepted, rejected and
# panics per decoder. N inputs each (default 1000000); the test suite runs
# the same test with 20000.
#   scripts/bench/decoders.sh [N]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
DECODER_FUZZ_INPUTS=${1:-1000000} cargo test --release -q -p model --lib fuzz_decoders -- --nocapture 2>&1 | grep -E '^\|'
