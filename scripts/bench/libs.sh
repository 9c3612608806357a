#!/usr/bin/env bash
# The libraries with the fuzz harnesses their Debian sources ship
# (scripts/subjects.sh: sqlite-fuzz, SQLite's test/ossfuzz.c; xml-fuzz,
# libxml2's fuzz/xml.c; pcre2-fuzz, PCRE2's src/pcre2_fuzzsupport.c;
# png-fuzz, libpng's contrib/oss-fuzz/libpng_read_fuzzer.cc; the first
# two by default), or any of scripts/subjects.sh's programs with the fixed
# command line afl.sh gives it (cut, paste, tac, b2sum, sed, dc: issue
# 46's matrix): the bridge beside AFL++ on the same harness and
# the same seeds (the packages' own test inputs), measured outside both
# tools by replaying every kept test on the harness's llvm-cov build.
#
#   1. scripts/bench/afl.sh --modes alone[,pair] --cmplog: one core each,
#      `bridge run --unit symbolic` beside AFL++ (afl-clang-fast's
#      -fsanitize=fuzzer build), then AFL++ with cmplog (-c with the
#      afl-cmplog build) for the same time; with pair, two cores: AFL++ +
#      AFL++ against AFL++ + bridge (--system afl++ --sync).
#   2. Coverage over time (scripts/bench/covtime.py, a checkpoint every
#      --every seconds) of the three one-core outputs: the curves as SVG
#      and PNG (OUT/SUBJECT-SEED.svg), and when the bridge reached each
#      AFL++ configuration's final coverage.
#   3. The table of it all (scripts/bench/matrix.py OUT; give it several
#      outputs to merge seeds run at different times): OUT/matrix.md.
#
#   scripts/bench/libs.sh [--subjects sqlite-fuzz,xml-fuzz,...] [--time 10m]
#                         [--seeds 3] [--first-seed 1] [--every 60] [--pair] [--out DIR]
#
# Installs what is missing first (scripts/install-deps.sh --bench: AFL++,
# rsvg-convert), then builds the subjects (scripts/subjects.sh --variant
# carve,afl,afl-cmplog,cov). A subject's execs/s are in afl.sh's `alone`
# and `cmplog` lines.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
subjects=sqlite-fuzz,xml-fuzz
budget=10m
seeds=3
first=1
every=60
modes=alone
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --subjects) subjects=$2; shift 2 ;;
    --time) budget=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --first-seed) first=$2; shift 2 ;;
    --every) every=$2; shift 2 ;;
    --pair) modes=alone,pair; shift ;;
    --out) out=$2; shift 2 ;;
    *) echo "libs.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || out=$(mktemp -d /tmp/carve-bench-libs.XXXXXX)
mkdir -p "$out"
out=$(cd "$out" && pwd)
echo "results in $out" >&2

# AFL++ and rsvg-convert (the plots as PNG) come with the bench packages.
"$repo/scripts/install-deps.sh" --bench >&2
"$repo/scripts/subjects.sh" --variant carve,afl,afl-cmplog,cov --subjects "$subjects" >&2

"$repo/scripts/bench/afl.sh" --subjects "$subjects" --modes "$modes" --cmplog --time "$budget" \
  --seeds "$seeds" --first-seed "$first" --out "$out" | tee -a "$out/afl.txt"

# shellcheck source=scripts/bench/seeds.sh
. "$repo/scripts/bench/seeds.sh"
IFS=, read -r -a list <<< "$subjects"
for s in "${list[@]}"; do
  for seed in $(seq "$first" $((first + seeds - 1))); do
    o="$out/$s/$seed"
    echo
    echo "coverage over time, $s, seed $seed (branch outcomes at each checkpoint):"
    python3 "$repo/scripts/bench/covtime.py" --argv "$(args_of "$s" "$out/data-$s")" --every "$every" --plot "$out/$s-$seed.svg" \
      "$cache/bin-cov/$s" bridge="$o/bridge" afl="$o/afl/default" cmplog="$o/cmplog/default" | tee "$out/$s-$seed.covtime"
  done
done

echo
python3 "$repo/scripts/bench/matrix.py" "$out" | tee "$out/matrix.md"
