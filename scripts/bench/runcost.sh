#!/usr/bin/env bash
# What a run of a libFuzzer harness costs the bridge's system level:
# `bridge run --unit none` of a "before" and an "after" configuration, side
# by side, one core each (taskset), on the same harness and seed; pairs
# alternate which one takes core 0. Prints the execs of each and the
# ratio after ÷ before.
#
#   before, one of:
#     --before-tree DIR  another checkout, built with its scripts/build.sh:
#                        the harness is built with its carve-clang and run
#                        by its bridge (a change to the runtime, the
#                        driver or the fork-server protocol needs both)
#     --whole-map        this build with CARVE_WHOLE_MAP=1 (the whole 64 KiB
#                        map cleared and read at every run)
#   after: this checkout's build (scripts/build.sh).
#
#   scripts/bench/runcost.sh (--before-tree DIR | --whole-map)
#                            [--source FILE.c] [--time 20] [--pairs 2] [--out DIR]
#
# The default harness is bridge/tests/fixtures/harness.c, small enough that
# the cost of a run is mostly the bridge's, the fork server's and the
# driver's, not the harness's.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
before_tree=""
whole=0
source="$repo/bridge/tests/fixtures/harness.c"
secs=20
pairs=2
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --before-tree) before_tree=$2; shift 2 ;;
    --whole-map) whole=1; shift ;;
    --source) source=$2; shift 2 ;;
    --time) secs=$2; shift 2 ;;
    --pairs) pairs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "runcost.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -z "$before_tree" ] && [ "$whole" = 0 ]; then
  echo "runcost.sh: say what to compare against: --before-tree DIR or --whole-map" >&2
  exit 2
fi
after="$repo/target/release"
before=${before_tree:+$before_tree/target/release}
before=${before:-$after}
for b in "$after" "$before"; do
  [ -x "$b/carve-clang" ] && [ -x "$b/bridge" ] || { echo "runcost.sh: $b has no carve-clang and bridge: run scripts/build.sh there" >&2; exit 1; }
done
[ -n "$out" ] || out=$(mktemp -d /tmp/carve-bench-runcost.XXXXXX)
mkdir -p "$out/seeds"
out=$(cd "$out" && pwd)
echo "results in $out" >&2
printf 'hello' > "$out/seeds/a"
"$before/carve-clang" -O2 -g -fsanitize=fuzzer "$source" -o "$out/harness-before"
"$after/carve-clang" -O2 -g -fsanitize=fuzzer "$source" -o "$out/harness-after"
benv="X=1"
if [ "$whole" = 1 ]; then benv="CARVE_WHOLE_MAP=1"; fi

run() { # core which build-dir env -> campaign in OUT/WHICH-P
  taskset -c "$1" env "$4" "$3/bridge" run --unit none --time "$secs" -i "$out/seeds" \
    -o "$out/$2-$p" -- "$out/harness-$2" @@ > "$out/$2-$p.log" 2>&1
}
execs() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['stats']['execs'])" "$out/$1/campaign.json"; }

printf '| pair | before execs | after execs | after ÷ before |\n|---|---|---|---|\n'
for p in $(seq 1 "$pairs"); do
  rm -rf "$out/before-$p" "$out/after-$p"
  if [ $((p % 2)) = 1 ]; then
    run 0 before "$before" "$benv" & run 1 after "$after" "X=1" & wait
  else
    run 1 before "$before" "$benv" & run 0 after "$after" "X=1" & wait
  fi
  eb=$(execs "before-$p") ea=$(execs "after-$p")
  printf '| %s | %s | %s | %s |\n' "$p" "$eb" "$ea" "$(python3 -c "print(f'{$ea/$eb:.2f}')")"
done
