#!/usr/bin/env bash
# System-level generators side by side: branch coverage reached in the same
# time budget, from the same seeds, on coreutils cut and paste and GNU sed,
# counted the same way for all (branch outcomes of carve's instrumentation,
# cumulative, as `bridge exec` reports them on the carve build):
#
#   1. radamsa-like: bridge run --system radamsa-like --unit none
#      --args-in-input on the carve build (the first line of a test is the
#      command line, the rest the `@@` file);
#   2. radamsa: the real one (pyradamsa), driven by radamsa_batches.py with
#      the batch protocol of bridge run (parents picked uniformly from the
#      corpus, batches of 100, each batch through `bridge exec --state
#      --save-new`, the budget covering generation and execution), same
#      tests with their command lines, same carve build;
#   3. AFL++ (afl-fuzz -V, AFL++ build): it cannot vary the command line, so
#      it gets one fixed command line per subject (below) and the seeds
#      without their first line; its queue, crashes and hangs are then
#      replayed through the carve build (`bridge exec --state`, in the order
#      AFL++ found them, to get its coverage over time in the same measure).
#
# The tools run one after another (never two at a time), for each subject
# and each seed 1..N. With N > 1 the table shows medians.
#
#   scripts/bench/system.sh [--time 5m] [--seeds N] [--subjects cut,sed,paste]
#                           [--tools radamsa-like,radamsa,afl] [--out DIR]
#                           [--cache DIR] [--bridge PATH]
#
#   --time T       budget per tool and run: 300, 90s, 5m, 1h (default 5m)
#   --seeds N      repetitions, with seeds 1..N (default 1)
#   --subjects L   comma-separated, from cut,sed,paste (default all three)
#   --tools L      comma-separated, from radamsa-like,radamsa,afl (default all)
#   --out DIR      results directory, created (must not exist, or be empty);
#                  default: a new directory under ${TMPDIR:-/tmp}, kept
#   --cache DIR    where scripts/subjects.sh put its builds: DIR/subjects/
#                  bin-{carve,afl}/ (default ${CARVE_CACHE:-$HOME/.cache/carve-bridge})
#   --bridge PATH  the bridge binary (default target/release/bridge, else
#                  bridge on PATH); copied into the results directory first,
#                  so a rebuild during the benchmark changes nothing
#
# AFL++'s fixed command lines (the arguments after the program):
#   cut    -d , -f 1,3 @@
#   sed    -e s/a/b/g -e /^#/d -e y/xyz/XYZ/ -e $!N;P;D @@
#          (substitution, deletion by address, transliteration and the
#          N/P/D two-line window: more of sed than one `s` command)
#   paste  -s -d , @@
#
# Seeds: scripts/bench/seeds/<subject>/, arguments on the first line.
# Results directory:
#   summary.txt                the table (also printed)
#   results.csv                subject,seed,tool,branches,branches_total,
#                              branch_pct,execs,elapsed_s
#   bin/bridge                 the bridge binary used
#   afl-seeds/<subject>/       the seeds without their first line
#   <subject>/seed<N>/radamsa-like/   bridge run's directory (coverage.csv,
#                              campaign.json, queue/, crashes/, hangs/), log
#   <subject>/seed<N>/radamsa/        radamsa_batches.py's (coverage.csv,
#                              summary.json, corpus/, crashes/, hangs/), log
#   <subject>/seed<N>/afl/     afl-fuzz's -o directory (default/), afl.log,
#                              coverage.csv (the replay, same columns as the
#                              others), replay.json (bridge exec's last summary)
# Every coverage.csv has the columns of bridge run's: seconds,execs,edges,
# edges_total,branches,branches_total,branch_pct,queue,unique_crashes.
#
# Needs: the carve and afl subject builds (scripts/subjects.sh --variant all),
# the bridge binary (scripts/build.sh), afl-fuzz (AFL++ 4.04c), python3
# with pyradamsa (scripts/install-deps.sh --bench).
set -euo pipefail
export LC_ALL=C

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE="$REPO/scripts/bench"

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }
die() { printf 'system.sh: error: %s\n' "$*" >&2; exit 1; }
log() { printf '[system.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# AFL++'s fixed command lines (see above).
afl_args() {
  case "$1" in
    cut) printf '%s\n' -d , -f 1,3 @@ ;;
    sed) printf '%s\n' -e s/a/b/g -e '/^#/d' -e 'y/xyz/XYZ/' -e '$!N;P;D' @@ ;;
    paste) printf '%s\n' -s -d , @@ ;;
  esac
}

cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}
time_arg=5m
nseeds=1
subjects_arg=cut,sed,paste
tools_arg=radamsa-like,radamsa,afl
out=""
bridge=""
while [ $# -gt 0 ]; do
  case "$1" in
    --time) [ $# -ge 2 ] || die "--time needs a value"; time_arg=$2; shift 2 ;;
    --time=*) time_arg=${1#--time=}; shift ;;
    --seeds) [ $# -ge 2 ] || die "--seeds needs a value"; nseeds=$2; shift 2 ;;
    --seeds=*) nseeds=${1#--seeds=}; shift ;;
    --subjects) [ $# -ge 2 ] || die "--subjects needs a value"; subjects_arg=$2; shift 2 ;;
    --subjects=*) subjects_arg=${1#--subjects=}; shift ;;
    --tools) [ $# -ge 2 ] || die "--tools needs a value"; tools_arg=$2; shift 2 ;;
    --tools=*) tools_arg=${1#--tools=}; shift ;;
    --out) [ $# -ge 2 ] || die "--out needs a value"; out=$2; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    --cache) [ $# -ge 2 ] || die "--cache needs a value"; cache=$2; shift 2 ;;
    --cache=*) cache=${1#--cache=}; shift ;;
    --bridge) [ $# -ge 2 ] || die "--bridge needs a value"; bridge=$2; shift 2 ;;
    --bridge=*) bridge=${1#--bridge=}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done

# --- arguments and prerequisites --------------------------------------------
if [[ $time_arg =~ ^([0-9]+)(s|m|min|h)?$ ]]; then
  case "${BASH_REMATCH[2]}" in
    ""|s) budget=${BASH_REMATCH[1]} ;;
    m|min) budget=$((BASH_REMATCH[1] * 60)) ;;
    h) budget=$((BASH_REMATCH[1] * 3600)) ;;
  esac
else
  die "bad --time '$time_arg': use e.g. 300, 90s, 5m, 1h (whole numbers)"
fi
[ "$budget" -gt 0 ] || die "--time must be positive"
[[ $nseeds =~ ^[1-9][0-9]*$ ]] || die "--seeds must be a positive integer"
IFS=, read -r -a subjects <<<"$subjects_arg"
[ ${#subjects[@]} -gt 0 ] || die "--subjects is empty"
for s in "${subjects[@]}"; do
  case "$s" in cut|sed|paste) ;; *) die "unknown subject '$s' (cut, sed, paste)" ;; esac
done
IFS=, read -r -a tools <<<"$tools_arg"
[ ${#tools[@]} -gt 0 ] || die "--tools is empty"
want_rl=0 want_ra=0 want_afl=0
for t in "${tools[@]}"; do
  case "$t" in
    radamsa-like) want_rl=1 ;;
    radamsa) want_ra=1 ;;
    afl) want_afl=1 ;;
    *) die "unknown tool '$t' (radamsa-like, radamsa, afl)" ;;
  esac
done

if [ -d "$cache/subjects/bin-carve" ] || [ ! -d "$cache/bin-carve" ]; then
  bins="$cache/subjects"
else
  bins="$cache"
fi
variants=(carve)
if [ "$want_afl" = 1 ]; then variants+=(afl); fi
missing=()
for s in "${subjects[@]}"; do
  for v in "${variants[@]}"; do
    [ -x "$bins/bin-$v/$s" ] || missing+=("$bins/bin-$v/$s")
  done
  [ -d "$HERE/seeds/$s" ] || die "no seeds for $s in $HERE/seeds/$s"
done
if [ ${#missing[@]} -gt 0 ]; then
  printf 'system.sh: error: missing subject binaries:\n' >&2
  printf '  %s\n' "${missing[@]}" >&2
  printf 'Build them with: scripts/subjects.sh --variant all' >&2
  if [ "$cache" != "${CARVE_CACHE:-$HOME/.cache/carve-bridge}" ]; then
    printf ' (with --cache %s)' "$cache" >&2
  fi
  printf '\n' >&2
  exit 1
fi
if [ -z "$bridge" ]; then
  if [ -x "$REPO/target/release/bridge" ]; then
    bridge="$REPO/target/release/bridge"
  elif command -v bridge >/dev/null; then
    bridge=$(command -v bridge)
  else
    die "no bridge binary: build it with scripts/build.sh in $REPO (or pass --bridge PATH)"
  fi
fi
[ -x "$bridge" ] || die "no bridge binary at $bridge: build it with scripts/build.sh in $REPO (or pass --bridge PATH)"
command -v python3 >/dev/null || die "python3 not found on PATH"
if [ "$want_ra" = 1 ]; then
  python3 -c 'import pyradamsa' 2>/dev/null ||
    die "the Python module pyradamsa is missing (python3 $(command -v python3)): install it with scripts/install-deps.sh --bench"
  [ -f "$HERE/radamsa_batches.py" ] || die "missing $HERE/radamsa_batches.py"
fi
if [ "$want_afl" = 1 ]; then
  command -v afl-fuzz >/dev/null || die "afl-fuzz not found on PATH: install AFL++ with scripts/install-deps.sh --bench"
fi

# --- results and scratch directories ---------------------------------------
case "$(realpath -m "${TMPDIR:-/tmp}")/" in
  "$REPO"/*) die "TMPDIR ${TMPDIR:-} is inside the repository; point it elsewhere" ;;
esac
if [ -z "$out" ]; then
  out=$(mktemp -d "${TMPDIR:-/tmp}/carve-bench-system.XXXXXX")
else
  out=$(realpath -m "$out")
  case "$out/" in
    "$REPO"/*) die "--out $out is inside the repository; pick a directory outside $REPO" ;;
  esac
  if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
    die "--out $out exists and is not empty"
  fi
  mkdir -p "$out"
fi
SCRATCH=""
cleanup() { if [ -n "$SCRATCH" ]; then rm -rf "$SCRATCH"; fi; }
trap cleanup EXIT
trap 'exit 130' INT TERM
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/carve-bench-system-tmp.XXXXXX")
# Run as root, bridge runs its targets as nobody: they must reach what they use.
chmod 755 "$out" "$SCRATCH"
export TMPDIR="$SCRATCH"

bridge_src=$(readlink -f "$bridge")
mkdir -p "$out/bin"
cp "$bridge_src" "$out/bin/bridge"
bridge="$out/bin/bridge"

# Nothing from the caller's environment may turn the targets into something
# else (a fork server, a shared map, a debug mode).
for var in $(compgen -e); do
  case "$var" in CARVE_*|__AFL_*|AFL_*) unset "$var" ;; esac
done

# --- helpers ----------------------------------------------------------------
json_num() { sed -n "s/.*\"$1\": *\([0-9.eE+-]*\).*/\1/p" "$2" | head -n 1; }
median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
    END { if (NR == 0) { print "nan"; exit }
          m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m }'
}
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0) ? 100 * a / b : 0 }'; }
csv_header="seconds,execs,edges,edges_total,branches,branches_total,branch_pct,queue,unique_crashes"
results="$out/results.csv"
echo "subject,seed,tool,branches,branches_total,branch_pct,execs,elapsed_s" >"$results"
record() { # SUBJECT SEED TOOL BRANCHES TOTAL EXECS ELAPSED
  echo "$1,$2,$3,$4,$5,$(pct "$4" "$5"),$6,$7" >>"$results"
}

run_radamsa_like() { # SUBJECT SEED DIR
  local subj=$1 seed=$2 dir=$3 cbin="$bins/bin-carve/$1"
  local cmd=("$bridge" run --system radamsa-like --unit none --args-in-input -i "$HERE/seeds/$subj"
    -o "$dir" --time "${budget}s" --seed "$seed" -- "$cbin" @@)
  log "$subj seed $seed: radamsa-like: ${cmd[*]}"
  "${cmd[@]}" >"$dir.log" 2>&1 || { tail -n 20 "$dir.log" >&2; die "bridge run failed: ${cmd[*]}"; }
  mv "$dir.log" "$dir/run.log"
  local j="$dir/campaign.json"
  [ -f "$j" ] || die "bridge run left no $j"
  local b t e el
  b=$(json_num branches "$j") t=$(json_num branches_total "$j") e=$(json_num execs "$j") el=$(json_num elapsed_s "$j")
  record "$subj" "$seed" radamsa-like "$b" "$t" "$e" "$el"
  log "$subj seed $seed: radamsa-like: $b of $t branch outcomes ($(pct "$b" "$t") %), $e execs"
}

run_radamsa() { # SUBJECT SEED DIR
  local subj=$1 seed=$2 dir=$3 cbin="$bins/bin-carve/$1"
  local cmd=(python3 "$HERE/radamsa_batches.py" --seeds "$HERE/seeds/$subj" --out "$dir" --time "$budget"
    --seed "$seed" --batch 100 --bridge "$bridge" --args-in-input -- "$cbin" @@)
  log "$subj seed $seed: radamsa: ${cmd[*]}"
  "${cmd[@]}" >"$dir.log" 2>&1 || { tail -n 20 "$dir.log" >&2; die "radamsa_batches.py failed: ${cmd[*]}"; }
  mv "$dir.log" "$dir/run.log"
  local j="$dir/summary.json"
  local b t e el
  b=$(json_num branches "$j") t=$(json_num branches_total "$j") e=$(json_num execs "$j") el=$(json_num elapsed_s "$j")
  record "$subj" "$seed" radamsa "$b" "$t" "$e" "$el"
  log "$subj seed $seed: radamsa: $b of $t branch outcomes ($(pct "$b" "$t") %), $e execs"
}

# The seeds without their first line (the command line), for AFL++.
afl_seeds() { # SUBJECT -> prints the directory
  local d="$out/afl-seeds/$1" f
  if [ ! -d "$d" ]; then
    mkdir -p "$d"
    for f in "$HERE/seeds/$1"/*; do
      [ -f "$f" ] || continue
      tail -n +2 "$f" >"$d/${f##*/}"
      [ -s "$d/${f##*/}" ] || rm -f "$d/${f##*/}"
    done
    [ -n "$(ls -A "$d")" ] || die "the seeds of $1 have no content after their first line"
  fi
  echo "$d"
}

run_afl() { # SUBJECT SEED DIR
  local subj=$1 seed=$2 dir=$3 cbin="$bins/bin-carve/$1" abin="$bins/bin-afl/$1" seeds args
  seeds=$(afl_seeds "$subj")
  mapfile -t args < <(afl_args "$subj")
  mkdir -p "$dir/cwd"
  local cmd=(afl-fuzz -i "$seeds" -o "$dir/out" -V "$budget" -s "$seed" -- "$abin" "${args[@]}")
  log "$subj seed $seed: AFL++: ${cmd[*]}"
  local t0=$EPOCHSECONDS rc=0
  (cd "$dir/cwd" && env AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
    AFL_NO_AFFINITY=1 "${cmd[@]}") >"$dir/afl.log" 2>&1 </dev/null || rc=$?
  local wall=$((EPOCHSECONDS - t0))
  rmdir "$dir/cwd" 2>/dev/null || true
  local d="$dir/out/default"
  if [ "$rc" != 0 ] || [ ! -f "$d/fuzzer_stats" ]; then
    sed 's/\x1b\[[0-9;]*m//g' "$dir/afl.log" | tail -n 25 >&2
    die "afl-fuzz failed (exit $rc): ${cmd[*]}"
  fi
  local execs run_time
  execs=$(sed -n 's/^execs_done *: *\([0-9]*\).*/\1/p' "$d/fuzzer_stats")
  run_time=$(sed -n 's/^run_time *: *\([0-9]*\).*/\1/p' "$d/fuzzer_stats")
  log "$subj seed $seed: AFL++: $execs execs in ${run_time} s (wall ${wall} s); replaying through the carve build"

  # Replay in the order found, in steps of STEP seconds (AFL++ names its
  # finds with time:MS), through the carve build with the same command line.
  local step=$((budget / 60)) list="$dir/replay.list"
  [ "$step" -ge 5 ] || step=5
  local kind f name t
  for kind in queue crashes hangs; do
    for f in "$d/$kind"/id:*; do
      [ -f "$f" ] || continue
      name=${f##*/}
      t=0
      [[ $name =~ ,time:([0-9]+) ]] && t=${BASH_REMATCH[1]}
      echo "$t $kind $name"
    done
  done | sort -n -k1,1 >"$list"
  # Executions at a given time: AFL++'s plot_data and the execs:N of its finds.
  local plot="$d/plot_data"
  execs_at() { # SECONDS
    awk -v t="$1" -v fin="$execs" -v rt="$run_time" '
      FNR == 1 && FILENAME != "-" && /^#/ {
        for (i = 2; i <= NF; i++) { h = $i; gsub(/[ ,#]/, "", h); if (h == "total_execs") col = i - 1 }
        next }
      FILENAME != "-" { split($0, v, /, */); if (col && v[1] + 0 <= t && v[col] + 0 > best) best = v[col] + 0; next }
      { if ($1 / 1000 <= t && match($3, /,execs:[0-9]+/)) {
          n = substr($3, RSTART + 7, RLENGTH - 7) + 0; if (n > best) best = n } }
      END { if (t >= rt) best = fin; print best + 0 }' "$plot" - <"$list"
  }
  local csv="$dir/coverage.csv" bindir="$SCRATCH/replay" json="$dir/replay.json" state="$SCRATCH/replay.state"
  echo "$csv_header" >"$csv"
  rm -f "$state"
  local bins_list b upto nq=0 nc=0 row_t
  bins_list=$(awk -v s="$step" '{ print int($1 / 1000 / s) }' "$list" | sort -n -u)
  for b in $bins_list; do
    rm -rf "$bindir"
    mkdir -p "$bindir"
    chmod 755 "$bindir"
    while read -r t kind name; do
      cp "$d/$kind/$name" "$bindir/$kind,$name"
      case "$kind" in queue) nq=$((nq + 1)) ;; crashes) nc=$((nc + 1)) ;; esac
    done < <(awk -v s="$step" -v b="$b" 'int($1 / 1000 / s) == b' "$list")
    local ecmd=("$bridge" exec --json --state "$state" -c "$bindir" -- "$cbin" "${args[@]}")
    "${ecmd[@]}" >"$json" 2>"$json.err" ||
      { cat "$json.err" >&2; die "bridge exec failed: ${ecmd[*]}"; }
    rm -f "$json.err"
    upto=$(((b + 1) * step))
    row_t=$upto
    [ "$row_t" -le "$run_time" ] || row_t=$run_time
    echo "$row_t,$(execs_at "$row_t"),$(json_num edges "$json"),$(json_num edges_total "$json"),$(json_num branches "$json"),$(json_num branches_total "$json"),$(awk -v a="$(json_num branches "$json")" -v b="$(json_num branches_total "$json")" 'BEGIN { printf "%.3f", 100 * a / b }'),$nq,$nc" >>"$csv"
  done
  rm -rf "$bindir" "$state"
  local bb tt
  bb=$(json_num branches "$json") tt=$(json_num branches_total "$json")
  record "$subj" "$seed" afl "$bb" "$tt" "$execs" "$run_time"
  log "$subj seed $seed: AFL++: $bb of $tt branch outcomes ($(pct "$bb" "$tt") %) after replaying $nq queue entries, $nc crashes, $(($(wc -l <"$list") - nq - nc)) hangs"
}

# --- run --------------------------------------------------------------------
{
  echo "command: $0 --time $time_arg --seeds $nseeds --subjects $subjects_arg --tools $tools_arg --out $out"
  echo "date: $(date -Is)"
  echo "host: $(nproc) cores, $(uname -sr)"
  echo "bridge: $("$bridge" --version 2>/dev/null) ($(sha256sum "$bridge" | cut -c1-16)), copied from $bridge_src"
  echo "pyradamsa: $(python3 -c 'from importlib.metadata import version; print(version("pyradamsa"))' 2>/dev/null || echo none)"
  echo "afl-fuzz: $(afl-fuzz -h 2>&1 | sed -n '1s/\x1b\[[0-9;]*m//gp')"
  echo "binaries: $bins/bin-{carve,afl}"
  for s in "${subjects[@]}"; do echo "AFL++ command line for $s: $s $(afl_args "$s" | tr '\n' ' ')"; done
} >"$out/config.txt"

log "results in $out; budget ${budget} s per tool and run; subjects ${subjects[*]}; seeds 1..$nseeds; tools ${tools[*]}"
for subj in "${subjects[@]}"; do
  for ((seed = 1; seed <= nseeds; seed++)); do
    d="$out/$subj/seed$seed"
    mkdir -p "$d"
    if [ "$want_rl" = 1 ]; then run_radamsa_like "$subj" "$seed" "$d/radamsa-like"; fi
    if [ "$want_ra" = 1 ]; then run_radamsa "$subj" "$seed" "$d/radamsa"; fi
    if [ "$want_afl" = 1 ]; then run_afl "$subj" "$seed" "$d/afl"; fi
  done
done

# --- report -----------------------------------------------------------------
col() { # SUBJECT TOOL FIELD(4 branches, 5 total, 7 execs) -> values, one per seed
  awk -F, -v s="$1" -v t="$2" -v c="$3" 'NR > 1 && $1 == s && $3 == t { print $c }' "$results"
}
cell() { # SUBJECT TOOL -> "branches (pct %)" of the median
  local b t v
  mapfile -t v < <(col "$1" "$2" 4)
  [ ${#v[@]} -gt 0 ] || { echo "-"; return; }
  b=$(median "${v[@]}")
  t=$(col "$1" "$2" 5 | head -n 1)
  echo "$b ($(pct "$b" "$t") %)"
}
execs_cell() { # SUBJECT TOOL
  local v
  mapfile -t v < <(col "$1" "$2" 7)
  [ ${#v[@]} -gt 0 ] || { echo "-"; return; }
  median "${v[@]}" | awk '{ printf "%.0f", $1 }'
}
{
  what="branch outcomes covered"
  [ "$nseeds" -gt 1 ] && what="$what, median of $nseeds seeds"
  echo "System-level generators, ${budget} s each, run one after another; $what"
  echo "(carve build, cumulative over each run; AFL++'s finds replayed through the carve build)."
  echo "Target: radamsa-like >= radamsa on every subject."
  echo
  fmt='%-7s | %-22s | %-22s | %-22s | %-26s | %s\n'
  # shellcheck disable=SC2059
  printf "$fmt" subject "radamsa-like" "radamsa" "AFL++ (fixed args)" "radamsa-like / radamsa" "execs (rl / radamsa / AFL++)"
  # shellcheck disable=SC2059
  printf "$fmt" ------- ---------------------- ---------------------- ---------------------- \
    -------------------------- ----------------------------
  for subj in "${subjects[@]}"; do
    ratio="-"
    mapfile -t rl < <(col "$subj" radamsa-like 4)
    mapfile -t ra < <(col "$subj" radamsa 4)
    if [ ${#rl[@]} -gt 0 ] && [ ${#ra[@]} -gt 0 ]; then
      ratio=$(awk -v a="$(median "${rl[@]}")" -v b="$(median "${ra[@]}")" 'BEGIN {
        printf "%.3f %s", (b > 0) ? a / b : 0, (a >= b) ? "(target met)" : "(target MISSED)" }')
    fi
    # shellcheck disable=SC2059
    printf "$fmt" "$subj" "$(cell "$subj" radamsa-like)" "$(cell "$subj" radamsa)" "$(cell "$subj" afl)" \
      "$ratio" "$(execs_cell "$subj" radamsa-like) / $(execs_cell "$subj" radamsa) / $(execs_cell "$subj" afl)"
  done
  echo
  echo "Branch totals (outcomes in the carve build):"
  for subj in "${subjects[@]}"; do
    echo "  $subj: $(awk -F, -v s="$subj" 'NR > 1 && $1 == s { print $5; exit }' "$results")"
  done
  echo "AFL++ command lines (fixed; the others vary the command line, first line of each test):"
  for subj in "${subjects[@]}"; do echo "  $subj $(afl_args "$subj" | tr '\n' ' ')"; done
  echo "Per run: $results; coverage over time: $out/<subject>/seed<N>/<tool>/coverage.csv"
} >"$out/summary.txt"
echo
cat "$out/summary.txt"
echo
echo "Results directory (kept): $out"
