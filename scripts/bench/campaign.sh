#!/usr/bin/env bash
# Throughput of the campaign loop against plain execution, side by side:
# execs/s inside `bridge run` (generation, coverage, corpus, files
# included) and execs/s of `bridge exec` replaying the campaign's own queue
# through the same fork server, alternated for several rounds.
#   scripts/bench/campaign.sh [--cache DIR] [--subjects cut,sed] [--time 30s] [--rounds 3]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
subjects=cut,sed
budget=30s
rounds=3
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) cache=$2; shift 2 ;;
    --subjects) subjects=$2; shift 2 ;;
    --time) budget=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "campaign.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
bridge="$repo/target/release/bridge"
[ -x "$bridge" ] || "$repo/scripts/build.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

seed_files() { # subject dir
  mkdir -p "$2"
  case "$1" in
    cut)
      printf -- '-d , -f 1,3\na,b,c\n1,2,3\n' > "$2/a"
      printf -- '-c 2-4\nhello world\nabcdef\n' > "$2/b"
      printf -- '-s -d : -f 2 --complement\nx:y:z\nnone\n' > "$2/c" ;;
    sed)
      printf -- '-e s/a/b/g\nbanana\napple\n' > "$2/a"
      printf -- '-n -e /x/p\nx1\ny2\nx3\n' > "$2/b"
      printf -- '-E -e s/([0-9]+)/<\\1>/g -e 2d\na1b22\nc333\nd4\n' > "$2/c" ;;
    paste)
      printf -- '-s -d ,\na\nb\nc\n' > "$2/a"
      printf -- '-d :\n1\n2\n' > "$2/b" ;;
    *) echo "campaign.sh: no seeds for $1" >&2; exit 2 ;;
  esac
}

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

printf '%-8s %6s %14s %14s %8s\n' subject round "run execs/s" "exec execs/s" "run/exec"
IFS=, read -r -a list <<< "$subjects"
for s in "${list[@]}"; do
  bin="$cache/bin-carve/$s"
  [ -x "$bin" ] || { echo "campaign.sh: $bin missing: run scripts/subjects.sh" >&2; exit 1; }
  seed_files "$s" "$work/seeds-$s"
  ratios=()
  for r in $(seq 1 "$rounds"); do
    out="$work/out-$s-$r"
    "$bridge" run --unit none --args-in-input -i "$work/seeds-$s" -o "$out" --time "$budget" --seed "$r" -- "$bin" @@ >/dev/null 2>&1
    run_rate=$(json "$out/campaign.json" "d['stats']['execs']/d['stats']['elapsed_s']")
    n=$(find "$out/queue" -type f | wc -l)
    execs=$(python3 -c "print(max(1, int(float('$run_rate') * 10 / $n)))")
    "$bridge" exec --json --args-in-input --repeat "$execs" -c "$out/queue" -- "$bin" @@ > "$work/exec.json"
    exec_rate=$(json "$work/exec.json" "d['execs_per_sec']")
    ratio=$(python3 -c "print(f'{$run_rate/$exec_rate:.3f}')")
    ratios+=("$ratio")
    printf '%-8s %6s %14.0f %14.0f %8s\n' "$s" "$r" "$run_rate" "$exec_rate" "$ratio"
  done
  med=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  printf '%-8s %6s %14s %14s %8s   (target: >= 0.80)\n' "$s" median "" "" "$med"
done
