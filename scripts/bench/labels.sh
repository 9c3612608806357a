#!/usr/bin/env bash
# Checks the labels of generated system tests and of lifts: N random mutation chains
# (default 100000) over a small corpus of varied seeds, each 6 generations
# deep, every mutator used; every copied byte of every test is compared
# with the byte its label names. Prints one table row: chains, tests,
# bytes checked, mismatching bytes, seconds. A mismatch fails the run.
# The test suite runs the same test with 300 chains.
#   scripts/bench/labels.sh [N]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
n=${1:-100000}
LABEL_CHAINS=$n cargo test --release -q -p systemgen --test tests generated_tests_carry_exact_labels -- --nocapture 2>&1 |
    grep -E '^\||copied|mismatch'
# The lifter's labels: as many random lifts (every encoding, with and
# without a command line), each lifted test's labels checked byte by byte.
LIFT_ROUNDS=$n cargo test --release -q -p lifter --lib lifted_labels_are_exact -- --nocapture 2>&1 | grep -E '^\| lifts|panicked'
