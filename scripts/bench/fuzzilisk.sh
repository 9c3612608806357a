#!/usr/bin/env bash
# radamsa-like alone against radamsa-like + the unit fuzzer (Fuzzilisk) on
# the six subjects, same budget and seeds, run one after the other: branch
# coverage, units carved and with parameters, units analysed, unit tries,
# lifted values and effective lifts (true alarms + coverage lifts), and the
# time of a unit run against a system run. basilisk.sh with two configs.
#   scripts/bench/fuzzilisk.sh [--cache DIR] [--subjects cut,...] [--time 2m] [--seeds N] [--out DIR]
set -euo pipefail
exec "$(dirname "$0")/basilisk.sh" --configs none,fuzz "$@"
