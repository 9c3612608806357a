#!/usr/bin/env bash
# Fork-server throughput and instrumentation overhead, side by side, on cut
# and sed (plus a trivial reference target, `int main(void){return 0;}`):
#
#   1. throughput: `bridge exec` on the carve build against `afl-showmap -i`
#      (AFL++'s fork server, whole directory in one process) on the AFL++
#      build, same generated corpus, same per-run timeout, no memory limit.
#      Both are timed as whole processes (wall clock, start-up included),
#      alternating A B / B A for --rounds rounds; bridge's own figure (its
#      run loop only) is reported beside. A one-input corpus, timed the same
#      way, gives each tool's start-up cost and the rate without it.
#   2. overhead: instructions executed (valgrind --tool=callgrind, which is
#      deterministic) by the carve and afl builds against the plain build,
#      run directly (no fork server, no shared map) on a handful of corpus
#      inputs, summed; whole process, and split at `main` (before `main`:
#      loader and constructors; from `main` on: the program's own work).
#
#   scripts/bench/exec.sh [--cache DIR] [--rounds N] [--inputs N]
#                         [--subjects cut,sed] [--no-trivial] [--bridge PATH]
#                         [--tmp DIR]
#
#   --cache DIR     where scripts/subjects.sh put its builds: DIR/subjects/
#                   bin-{plain,carve,afl}/ (DIR/bin-*/ is accepted too);
#                   default ${CARVE_CACHE:-$HOME/.cache/carve-bridge}
#   --rounds N      timed runs of each tool and corpus (default 5)
#   --inputs N      generated inputs per subject (default 400)
#   --subjects L    comma-separated, from cut,sed (default cut,sed)
#   --no-trivial    skip the trivial reference target
#   --bridge PATH   the bridge binary (default target/release/bridge)
#   --tmp DIR       where corpora and the tools' per-run files go (default
#                   /dev/shm when it is a writable tmpfs, else $TMPDIR or /tmp)
#
# Needs: the subject binaries (scripts/subjects.sh --variant all), the bridge
# binary (scripts/build.sh), afl-showmap, valgrind; clang-19,
# carve-clang and afl-clang-fast for the trivial target. Everything it
# writes goes to two temporary directories, removed on exit.
set -euo pipefail
export LC_ALL=C

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE="$REPO/scripts/bench"

# The targets the figures are judged against.
TARGET_RATIO=1.0     # bridge exec/s over afl-showmap exec/s, at least
TARGET_OVERHEAD=1.3  # carve instructions over plain instructions, at most

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }
die() { printf 'exec.sh: error: %s\n' "$*" >&2; exit 1; }
log() { printf '[exec.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}
rounds=5
ninputs=400
subjects_arg=cut,sed
trivial=1
bridge="$REPO/target/release/bridge"
run_base=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) [ $# -ge 2 ] || die "--cache needs a value"; cache=$2; shift 2 ;;
    --cache=*) cache=${1#--cache=}; shift ;;
    --rounds) [ $# -ge 2 ] || die "--rounds needs a value"; rounds=$2; shift 2 ;;
    --rounds=*) rounds=${1#--rounds=}; shift ;;
    --inputs) [ $# -ge 2 ] || die "--inputs needs a value"; ninputs=$2; shift 2 ;;
    --inputs=*) ninputs=${1#--inputs=}; shift ;;
    --subjects) [ $# -ge 2 ] || die "--subjects needs a value"; subjects_arg=$2; shift 2 ;;
    --subjects=*) subjects_arg=${1#--subjects=}; shift ;;
    --no-trivial) trivial=0; shift ;;
    --bridge) [ $# -ge 2 ] || die "--bridge needs a value"; bridge=$2; shift 2 ;;
    --bridge=*) bridge=${1#--bridge=}; shift ;;
    --tmp) [ $# -ge 2 ] || die "--tmp needs a value"; run_base=$2; shift 2 ;;
    --tmp=*) run_base=${1#--tmp=}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done

# --- arguments and prerequisites --------------------------------------------
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a positive integer"
if ! [[ $ninputs =~ ^[1-9][0-9]*$ ]] || [ "$ninputs" -lt 8 ]; then
  die "--inputs must be an integer of at least 8"
fi
IFS=, read -r -a subjects <<<"$subjects_arg"
[ ${#subjects[@]} -gt 0 ] || die "--subjects is empty"
for s in "${subjects[@]}"; do
  case "$s" in cut|sed) ;; *) die "unknown subject '$s' (cut, sed)" ;; esac
done

if [ -d "$cache/subjects/bin-carve" ] || [ ! -d "$cache/bin-carve" ]; then
  bins="$cache/subjects"
else
  bins="$cache"
fi
missing=()
for s in "${subjects[@]}"; do
  for v in plain carve afl; do
    [ -x "$bins/bin-$v/$s" ] || missing+=("$bins/bin-$v/$s")
  done
done
if [ ${#missing[@]} -gt 0 ]; then
  printf 'exec.sh: error: missing subject binaries:\n' >&2
  printf '  %s\n' "${missing[@]}" >&2
  printf 'Build them with: scripts/subjects.sh --variant all' >&2
  if [ "$bins" = "$cache" ]; then
    printf ' (it builds into %s/subjects/bin-*)' "\$CARVE_CACHE" >&2
  elif [ "$cache" != "${CARVE_CACHE:-$HOME/.cache/carve-bridge}" ]; then
    printf ' (with CARVE_CACHE=%s)' "$cache" >&2
  fi
  printf '\n' >&2
  exit 1
fi
[ -x "$bridge" ] || die "no bridge binary at $bridge: build it with scripts/build.sh in $REPO (or pass --bridge PATH)"
bridge=$(cd "$(dirname "$bridge")" && pwd)/$(basename "$bridge")
for tool in afl-showmap valgrind awk; do
  command -v "$tool" >/dev/null || die "$tool not found on PATH (see scripts/install-deps.sh)"
done
if [ ! -f "$HERE/corpus/gen.awk" ] || [ ! -f "$HERE/corpus/bench.sed" ]; then
  die "missing $HERE/corpus/gen.awk or bench.sed"
fi

carve_cc=""
if [ "$trivial" = 1 ]; then
  if [ -x "$REPO/target/release/carve-clang" ]; then
    carve_cc="$REPO/target/release/carve-clang"
  elif command -v carve-clang >/dev/null; then
    carve_cc=$(command -v carve-clang)
  fi
  for cc in clang-19 afl-clang-fast; do
    command -v "$cc" >/dev/null || { log "no $cc: skipping the trivial target"; trivial=0; }
  done
  [ -n "$carve_cc" ] || { log "no carve-clang: skipping the trivial target"; trivial=0; }
fi

# Two temporary directories: RUN for the corpora, the tools' per-run files
# and the outputs, on tmpfs unless --tmp says otherwise (afl-showmap creates
# its input file anew for every run, which costs about 0.5 ms on some disks);
# BTMP for the binaries this script builds or copies (tmpfs may be noexec).
if [ -z "$run_base" ]; then
  if [ -d /dev/shm ] && [ -w /dev/shm ] && [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
    run_base=/dev/shm
  else
    run_base=${TMPDIR:-/tmp}
  fi
fi
if [ ! -d "$run_base" ] || [ ! -w "$run_base" ]; then
  die "--tmp $run_base is not a writable directory"
fi
TMP="" BTMP=""
cleanup() { rm -rf "$TMP" "$BTMP"; }
trap cleanup EXIT
BTMP=$(mktemp -d "${TMPDIR:-/tmp}/carve-bench-exec-bin.XXXXXX")
TMP=$(mktemp -d "$run_base/carve-bench-exec.XXXXXX")
# Run as root, bridge runs its targets as nobody: they must reach the inputs.
chmod 755 "$TMP" "$BTMP"
trap 'exit 130' INT TERM
# bridge's scratch directories and afl-showmap's input file land in $TMP.
export TMPDIR="$TMP"

# Nothing from the caller's environment may turn the targets into something
# else (a fork server, a shared map, a debug mode).
for var in $(compgen -e); do
  case "$var" in CARVE_*|__AFL_*|AFL_*) unset "$var" ;; esac
done
export AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1

# --- helpers ----------------------------------------------------------------
now_us() { local t=$EPOCHREALTIME; echo "${t/./}"; }

# min median max of the numbers given, one per argument.
stats() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
    END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
          printf "%s %s %s\n", v[1], m, v[NR] }'
}
median() { stats "$@" | awk '{ print $2 }'; }
calc() { awk "BEGIN { printf \"$1\n\", $2 }" 2>/dev/null || echo n/a; }
json_num() { sed -n "s/.*\"$1\": *\([0-9.eE+-]*\).*/\1/p" "$2" | head -n 1; }

# Target argument lists, `@@` for the input file.
target_args() {
  case "$1" in
    cut) echo "-d , -f 1,3 @@" ;;
    sed) echo "-f $TMP/bench.sed @@" ;;
    trivial) echo "@@" ;;
  esac
}
cp "$HERE/corpus/bench.sed" "$TMP/bench.sed"

# bridge exec on CORPUS: prints wall seconds; its JSON goes to OUT.
run_bridge() { # SUBJECT BIN CORPUS OUT
  local args t0 t1
  read -r -a args <<<"$(target_args "$1")"
  t0=$(now_us)
  "$bridge" exec --json --corpus "$3" -t 1000 -m 0 -- "$2" "${args[@]}" >"$4" 2>"$4.err" ||
    { cat "$4.err" >&2; die "bridge exec failed on $2"; }
  t1=$(now_us)
  calc "%.6f" "($t1 - $t0) / 1e6"
}

# afl-showmap -i on CORPUS: prints wall seconds; its messages go to OUT.
run_afl() { # SUBJECT BIN CORPUS OUT
  local args t0 t1
  read -r -a args <<<"$(target_args "$1")"
  t0=$(now_us)
  (cd "$TMP/afl-cwd" &&
    afl-showmap -q -C -i "$3" -o /dev/null -t 1000 -m none -- "$2" "${args[@]}") >"$4" 2>&1 ||
    { cat "$4" >&2; die "afl-showmap failed on $2"; }
  t1=$(now_us)
  calc "%.6f" "($t1 - $t0) / 1e6"
}
mkdir -p "$TMP/afl-cwd"

# Runs the corpus through both tools RUNS times, alternating which goes
# first; appends "bridge_wall afl_wall bridge_self_eps bridge_runs edges" per
# round to RESULT.
throughput_rounds() { # SUBJECT CARVE_BIN AFL_BIN CORPUS NFILES RESULT
  local subj=$1 cbin=$2 abin=$3 corpus=$4 n=$5 result=$6 r tb ta out="$TMP/out"
  : >"$result"
  # Warm-up (page cache, the binaries' pages), and the checks.
  run_bridge "$subj" "$cbin" "$corpus" "$out.b" >/dev/null
  local runs restarts
  runs=$(json_num runs "$out.b")
  restarts=$(json_num fork_server_restarts "$out.b")
  [ "$runs" = "$n" ] || die "bridge exec ran $runs inputs of $n in $corpus"
  [ "$restarts" = 0 ] || log "warning: bridge's fork server restarted $restarts times on $subj"
  [ "$(json_num edges "$out.b")" != 0 ] || log "warning: bridge saw no coverage on $subj (is $cbin a carve build?)"
  run_afl "$subj" "$abin" "$corpus" "$out.a" >/dev/null
  if grep -q 'with [0-9]* input files' "$out.a"; then
    local afl_n
    afl_n=$(sed -n 's/.*with \([0-9]*\) input files.*/\1/p' "$out.a" | head -n 1)
    [ "$afl_n" = "$n" ] || die "afl-showmap ran $afl_n inputs of $n in $corpus"
  fi
  for ((r = 1; r <= rounds; r++)); do
    if ((r % 2)); then
      tb=$(run_bridge "$subj" "$cbin" "$corpus" "$out.b")
      ta=$(run_afl "$subj" "$abin" "$corpus" "$out.a")
    else
      ta=$(run_afl "$subj" "$abin" "$corpus" "$out.a")
      tb=$(run_bridge "$subj" "$cbin" "$corpus" "$out.b")
    fi
    echo "$tb $ta $(json_num execs_per_sec "$out.b") $(json_num runs "$out.b") $(json_num edges "$out.b")" >>"$result"
  done
  # What the last bridge run saw, for the details.
  echo "$(json_num exit_zero "$out.b") $(json_num exit_nonzero "$out.b") $(json_num crashes "$out.b") $(json_num timeouts "$out.b") $(json_num edges_total "$out.b")" >"$result.outcomes"
}

# How many inputs of CORPUS make BIN, run directly, end other than with 0.
direct_failures() { # SUBJECT BIN CORPUS
  local args a f c=0
  read -r -a args <<<"$(target_args "$1")"
  for f in "$3"/*; do
    a=("${args[@]/@@/$f}")
    (cd "$TMP/afl-cwd" && "$2" "${a[@]}" </dev/null >/dev/null 2>&1) || c=$((c + 1))
  done
  echo "$c"
}

# Instructions (callgrind) of one binary over the selected inputs, summed:
# prints "total before_main".
instructions() { # SUBJECT BIN INPUT...
  local subj=$1 bin=$2 in args a total=0 pre=0 t p
  shift 2
  read -r -a args <<<"$(target_args "$subj")"
  for in in "$@"; do
    a=("${args[@]/@@/$in}")
    rm -f "$TMP/cg/out" "$TMP/cg/out".*
    (cd "$TMP/cg/run" &&
      env -i PATH=/usr/bin:/bin LC_ALL=C \
        valgrind --tool=callgrind --callgrind-out-file="$TMP/cg/out" --dump-before=main \
        "$bin" "${a[@]}" >"$TMP/cg/stdout" 2>"$TMP/cg/stderr") || true
    grep -q '== Collected :' "$TMP/cg/stderr" ||
      { tail -n 20 "$TMP/cg/stderr" >&2; die "valgrind failed on $bin $in"; }
    t=$(sed -n 's/.*== Collected : *\([0-9]*\).*/\1/p' "$TMP/cg/stderr")
    p=0
    [ -f "$TMP/cg/out.1" ] && p=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$TMP/cg/out.1")
    total=$((total + t))
    pre=$((pre + p))
    cksum <"$TMP/cg/stdout" >>"$TMP/cg/outputs.$(basename "$(dirname "$bin")")"
  done
  echo "$total $pre"
}

# Copies of the three builds under same-length paths (the path is in argv and
# so in the instruction count), without debug information (valgrind 3.19
# cannot read the DWARF 5 of AFL++'s runtime; instructions are unchanged).
stage_for_valgrind() { # SUBJECT PLAIN CARVE AFL
  local d
  for d in p c a; do mkdir -p "$BTMP/cg/$d"; done
  mkdir -p "$TMP/cg/run"
  local src dst
  for pair in "p:$2" "c:$3" "a:$4"; do
    src=${pair#*:}
    dst="$BTMP/cg/${pair%%:*}/$1"
    if command -v strip >/dev/null; then
      strip --strip-debug -o "$dst" "$src"
    else
      cp "$src" "$dst"
    fi
  done
}

# --- the trivial reference target ------------------------------------------
if [ "$trivial" = 1 ]; then
  mkdir -p "$BTMP/trivial/bin-plain" "$BTMP/trivial/bin-carve" "$BTMP/trivial/bin-afl"
  printf 'int main(void) { return 0; }\n' >"$BTMP/trivial/t.c"
  if ! { clang-19 -O2 -o "$BTMP/trivial/bin-plain/trivial" "$BTMP/trivial/t.c" &&
    "$carve_cc" -O2 -o "$BTMP/trivial/bin-carve/trivial" "$BTMP/trivial/t.c" &&
    AFL_QUIET=1 afl-clang-fast -O2 -o "$BTMP/trivial/bin-afl/trivial" "$BTMP/trivial/t.c"; } \
    >"$BTMP/trivial/build.log" 2>&1; then
    cat "$BTMP/trivial/build.log" >&2
    log "warning: the trivial target did not build: skipping it"
    trivial=0
  fi
fi

# --- measure ----------------------------------------------------------------
rows=("${subjects[@]}")
[ "$trivial" = 1 ] && rows+=(trivial)
ncg=8 # inputs for the instruction counts

log "inputs per subject: $ninputs, rounds: $rounds, binaries: $bins/bin-*"
log "run files in $TMP ($(stat -f -c %T "$TMP")), bridge: $bridge"
for subj in "${rows[@]}"; do
  if [ "$subj" = trivial ]; then
    b="$BTMP/trivial"
    kind=csv
  else
    b="$bins"
    kind=$([ "$subj" = cut ] && echo csv || echo text)
  fi
  d="$TMP/$subj"
  mkdir -p "$d/corpus" "$d/one"
  awk -v kind="$kind" -v n="$ninputs" -v dir="$d/corpus" -f "$HERE/corpus/gen.awk"
  cp "$d/corpus/id0000" "$d/one/"
  bytes=$(cat "$d/corpus"/* | wc -c)
  echo "$bytes" >"$d/bytes"

  log "$subj: throughput, $ninputs inputs ($bytes bytes), $rounds rounds"
  throughput_rounds "$subj" "$b/bin-carve/$subj" "$b/bin-afl/$subj" "$d/corpus" "$ninputs" "$d/full"
  # The carve build under bridge must behave as the plain build run directly.
  read -r _ bnz bcr bto _ <"$d/full.outcomes"
  pnz=$(direct_failures "$subj" "$b/bin-plain/$subj" "$d/corpus")
  if [ "$((bnz + bcr + bto))" != "$pnz" ]; then
    log "warning: $subj: under bridge $((bnz + bcr + bto)) of $ninputs runs failed, run directly $pnz (is the corpus readable by the target's user?)"
  fi
  echo "$pnz" >"$d/direct_failures"
  log "$subj: start-up (one input), $rounds rounds"
  throughput_rounds "$subj" "$b/bin-carve/$subj" "$b/bin-afl/$subj" "$d/one" 1 "$d/one.res"

  log "$subj: instructions (callgrind), $ncg inputs x 3 builds"
  stage_for_valgrind "$subj" "$b/bin-plain/$subj" "$b/bin-carve/$subj" "$b/bin-afl/$subj"
  picks=()
  for ((k = 0; k < ncg; k++)); do
    picks+=("$d/corpus/$(printf 'id%04d' $((k * ninputs / ncg)))")
  done
  rm -f "$TMP/cg/outputs".*
  for v in p c a; do
    instructions "$subj" "$BTMP/cg/$v/$subj" "${picks[@]}" >"$d/instr.$v"
  done
  if ! cmp -s "$TMP/cg/outputs.p" "$TMP/cg/outputs.c" || ! cmp -s "$TMP/cg/outputs.p" "$TMP/cg/outputs.a"; then
    log "warning: $subj: the three builds printed different output on the same inputs"
  fi
done

# --- report -----------------------------------------------------------------
verdict() { # VALUE OP LIMIT
  awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
    ok = (op == ">=") ? (v >= l) : (v <= l)
    printf "%s", ok ? "met" : "MISSED" }'
}

echo
echo "Fork-server throughput (whole-process wall time, median of $rounds rounds, A/B alternated)"
echo "and instructions executed (callgrind, $ncg inputs summed, run without a fork server)."
echo "Targets: throughput ratio >= $TARGET_RATIO; carve instructions / plain <= ${TARGET_OVERHEAD}x."
echo "Per-run files of both tools on $(stat -f -c %T "$TMP") ($run_base); tools: $("$bridge" --version 2>/dev/null || echo "(version unknown)"), $(afl-showmap -h 2>&1 | sed -n '1s/\x1b\[[0-9;]*m//gp')."
echo
fmt='%-8s | %-18s | %13s | %18s | %-18s | %-20s | %-16s\n'
# shellcheck disable=SC2059
printf "$fmt" subject corpus "bridge exec/s" "afl-showmap exec/s" "ratio (>= $TARGET_RATIO)" \
  "carve instr / plain" "afl instr / plain"
# shellcheck disable=SC2059
printf "$fmt" -------- ------------------ ------------- ------------------ ------------------ \
  -------------------- ----------------
details=()
for subj in "${rows[@]}"; do
  d="$TMP/$subj"
  mapfile -t full <"$d/full"
  mapfile -t one <"$d/one.res"
  bw=() aw=() self=() ratios=() b1=() a1=()
  for line in "${full[@]}"; do
    read -r tb ta se _ _ <<<"$line"
    bw+=("$tb") aw+=("$ta") self+=("$se")
    ratios+=("$(calc "%.4f" "$ta / $tb")")
  done
  for line in "${one[@]}"; do
    read -r tb ta _ _ _ <<<"$line"
    b1+=("$tb") a1+=("$ta")
  done
  read -r bmin bmed bmax <<<"$(stats "${bw[@]}")"
  read -r amin amed amax <<<"$(stats "${aw[@]}")"
  read -r rmin rmed rmax <<<"$(stats "${ratios[@]}")"
  read -r smin smed smax <<<"$(stats "${self[@]}")"
  b1med=$(median "${b1[@]}")
  a1med=$(median "${a1[@]}")
  read -r ip pp <<<"$(cat "$d/instr.p")"
  read -r ic pc <<<"$(cat "$d/instr.c")"
  read -r ia pa <<<"$(cat "$d/instr.a")"
  n=$ninputs
  beps=$(calc "%.0f" "$n / $bmed")
  aeps=$(calc "%.0f" "$n / $amed")
  ratio=$(calc "%.2f" "$amed / $bmed")
  cov=$(calc "%.3f" "$ic / $ip")
  aov=$(calc "%.3f" "$ia / $ip")
  label=$subj
  [ "$subj" = trivial ] && label="trivial*"
  rv="" ov=""
  if [ "$subj" != trivial ]; then
    rv=" $(verdict "$ratio" ">=" "$TARGET_RATIO")"
    ov=" $(verdict "$cov" "<=" "$TARGET_OVERHEAD")"
  fi
  # shellcheck disable=SC2059
  printf "$fmt" "$label" "$n files, $(($(cat "$d/bytes") / 1024)) KiB" "$beps" "$aeps" \
    "$ratio$rv" "$cov$ov" "$aov"
  read -r oz onz ocr oto oet <<<"$(cat "$d/full.outcomes")"
  edges=$(awk '{ print $5 }' "$d/full" | tail -n 1)
  details+=("$subj:"
    "  wall s, $n inputs   bridge min/med/max $(calc "%.3f %.3f %.3f" "$bmin, $bmed, $bmax")   afl-showmap $(calc "%.3f %.3f %.3f" "$amin, $amed, $amax")"
    "  exec/s (best run)   bridge $(calc "%.0f" "$n / $bmin")   afl-showmap $(calc "%.0f" "$n / $amin")   ratio of each round's pair min/med/max $(calc "%.2f %.2f %.2f" "$rmin, $rmed, $rmax")"
    "  bridge's own figure (run loop only) exec/s min/med/max $(calc "%.0f %.0f %.0f" "$smin, $smed, $smax")"
    "  start-up (one-input corpus, median wall s)   bridge $(calc "%.3f" "$b1med")   afl-showmap $(calc "%.3f" "$a1med")"
    "  exec/s without start-up ((n-1) / (wall - one-input wall))   bridge $(calc "%.0f" "($n - 1) / ($bmed - $b1med)")   afl-showmap $(calc "%.0f" "($n - 1) / ($amed - $a1med)")   ratio $(calc "%.2f" "($amed - $a1med) / ($bmed - $b1med)")"
    "  per exec (same, in microseconds)   bridge $(calc "%.0f" "1e6 * ($bmed - $b1med) / ($n - 1)")   afl-showmap $(calc "%.0f" "1e6 * ($amed - $a1med) / ($n - 1)")"
    "  bridge outcomes: $oz exit 0, $onz exit non-zero, $ocr crashes, $oto timeouts (plain build run directly: $(cat "$d/direct_failures") non-zero); edges $edges of $oet"
    "  instructions   plain $ip   carve $ic   afl $ia   (before main: plain $pp   carve $pc   afl $pa)"
    "  from main on   carve / plain $(calc "%.3f" "($ic - $pc) / ($ip - $pp)")   afl / plain $(calc "%.3f" "($ia - $pa) / ($ip - $pp)")")
done
echo
[ "$trivial" = 1 ] &&
  echo "* trivial: int main(void){return 0;}, the same inputs as cut: the tools' own cost per exec (reference, not judged)."
echo "exec/s: inputs / median wall time of the whole process; ratio: bridge exec/s / afl-showmap exec/s"
echo "(the ratio of each round's pair, A and B run back to back, is in the details)."
echo
echo "Details:"
printf '%s\n' "${details[@]}"
