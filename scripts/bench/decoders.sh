#!/usr/bin/env bash
# Fuzzes every decoder of a file the tools read (unit, snapshot and outcome
# payloads, symbolic trace, symbolic-input file, alarm record, campaign.json) and the
# runtime's own parsers (a try's patch, the symbolic-input file) with
# mutated versions of valid files: prints a table of inputs, accepted,
# rejected and panics per decoder. A panic fails the run. The runtime's
# patch test also checks that an accepted patch writes nothing outside its
# objects. N inputs each (default 1000000); the test suite runs the same
# tests with 20000.
#   scripts/bench/decoders.sh [N]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
n=${1:-1000000}
DECODER_FUZZ_INPUTS=$n cargo test --release -q -p model --lib fuzz_decoders -- --nocapture 2>&1 | grep -E '^\|'
DECODER_FUZZ_INPUTS=$n cargo test --release -q -p bridge --bin bridge damaged_campaign_files -- --nocapture 2>&1 | grep -oE '\| [a-z].*'
(cd runtime && RUNTIME_FUZZ_INPUTS=$n cargo test --release -q --target-dir ../target mutated_ -- --nocapture --test-threads=1 2>&1) | grep -oE '\| [a-z].*'
