#!/usr/bin/env bash
# A robustness sweep of carve-clang, as compilers are tested: it must never
# hang, crash, reject what clang-19 accepts, or change what a program does.
#
#   scripts/bench/compiler.sh csmith  [-n N] [--seed S] [--jobs J] [--keep]
#   scripts/bench/compiler.sh sources [--packages coreutils,sed,bc,jq,libxml2] [--jobs J]
#                                     [--valgrind SETS] [--keep]
#
# csmith: N random programs (Debian's csmith, default 200, seeds S, S+1...)
#   compiled with carve-clang and with clang-19 at -O0, -O2 and -O2 -g, each
#   run (5 s limit); the checksums they print must agree. A program that
#   clang-19's build does not finish in time is left out (counted apart).
#   Programs that fail are kept in the work folder (removed when nothing
#   failed, unless --keep) for reduction (creduce).
# sources: every C file the package's build compiles (configured and built
#   once with a compiler that logs its commands; Debian source packages,
#   through scripts/subjects.sh's cache), compiled again with carve-clang at
#   -O0, -O2 and -O2 -g with the build's own flags otherwise. A file that
#   fails with carve-clang but compiles with clang-19 is a failure. With
#   --valgrind SETS (e.g. "-O2 -g" or all) those flag sets run carve-clang
#   under valgrind, and any error it reports counts as a crash.
#
# Each compile runs with CARVE_CC_TIMEOUT=120 (the watchdog's message counts
# as a hang) under `timeout 600`. Prints one table row per flag set:
# compiled, ok, hangs, crashes, failures (clang-19 compiles it), mismatches.
# Needs: scripts/build.sh's carve-clang; csmith and libcsmith-dev
# (scripts/install-deps.sh --bench); valgrind for --valgrind.
set -euo pipefail
export LC_ALL=C

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CARVE=${CARVE_CLANG:-$REPO/target/release/carve-clang}
SETS=("-O0" "-O2" "-O2 -g")

die() { printf 'compiler.sh: error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; }

[ $# -ge 1 ] || { usage >&2; exit 2; }
mode=$1; shift
n=200 seed=1 jobs=2 keep="" packages="coreutils,sed,bc" valgrind_sets=""
while [ $# -gt 0 ]; do
  case "$1" in
    -n) n=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --packages) packages=$2; shift 2 ;;
    --valgrind) valgrind_sets=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done
[ -x "$CARVE" ] || die "carve-clang not found at $CARVE (scripts/build.sh)"

work=$(mktemp -d /tmp/carve-compiler.XXXXXX)
failed_any=0
cleanup() {
  if [ -z "$keep" ] && [ "$failed_any" = 0 ]; then rm -rf "$work"; else echo "compiler.sh: kept $work" >&2; fi
}
trap cleanup EXIT

# classify LOG STATUS: ok | hang | crash | fail, for one carve-clang compile.
classify() {
  local log=$1 st=$2
  if [ "$st" = 0 ]; then echo ok
  elif [ "$st" = 124 ] || grep -q "still ran after" "$log"; then echo hang
  elif [ "$st" -ge 128 ] || grep -qE "crashed \(|ERROR SUMMARY: [1-9]|Invalid (read|write|free)" "$log"; then echo crash
  else echo fail
  fi
}
export -f classify

# valgrind_wrap SET: the command prefix that runs carve-clang for SET.
valgrind_wrap() {
  case ",$valgrind_sets," in
    *",all,"*|*",$1,"*) echo "valgrind -q --error-exitcode=99 --trace-children=no" ;;
    *) echo "" ;;
  esac
}

summarise() {
  local results=$1
  printf '\n%-8s %9s %9s %6s %7s %9s %11s\n' flags compiled ok hangs crashes failures mismatches
  for set in "${SETS[@]}"; do
    awk -F'\t' -v s="$set" '$2 == s {
        n++; c[$3]++
      } END {
        printf "%-8s %9d %9d %6d %7d %9d %11d\n", s, n, c["ok"] + c["mismatch"], c["hang"], c["crash"], c["fail"], c["mismatch"]
      }' "$results"
  done
  if awk -F'\t' '$3 != "ok" && $3 != "skip" { bad = 1 } END { exit !bad }' "$results"; then
    failed_any=1
    echo
    echo "not ok:"
    awk -F'\t' '$3 != "ok" && $3 != "skip"' "$results" | head -50
  fi
}

# --- csmith --------------------------------------------------------------------------
csmith_one() {
  local seed=$1 work=$2 carve=$3 inc=$4 vg_sets=$5
  local d="$work/p$seed"
  mkdir -p "$d"
  (cd "$d" && csmith --seed "$seed" -o p.c >/dev/null 2>&1) || { printf '%s\t%s\tskip\tcsmith failed\n' "$seed" "-O0"; return; }
  local set tag want got st log
  for set in "-O0" "-O2" "-O2 -g"; do
    tag=${set// /}
    # shellcheck disable=SC2086 # the flag set is words
    if ! clang-19 $set -w -I"$inc" "$d/p.c" -o "$d/plain$tag" 2>/dev/null; then
      printf '%s\t%s\tskip\tclang-19 does not compile it\n' "$seed" "$set"; continue
    fi
    want=$(timeout 5 "$d/plain$tag" 2>/dev/null) || { printf '%s\t%s\tskip\tslow or failing\n' "$seed" "$set"; continue; }
    log="$d/carve$tag.log"
    local vg=""
    case ",$vg_sets," in *",all,"*|*",$set,"*) vg="valgrind -q --error-exitcode=99 --trace-children=no" ;; esac
    st=0
    # shellcheck disable=SC2086
    CARVE_CC_TIMEOUT=120 timeout 600 $vg "$carve" $set -w -I"$inc" "$d/p.c" -o "$d/carve$tag" >"$log" 2>&1 || st=$?
    local c
    c=$(classify "$log" "$st")
    if [ "$c" != ok ]; then printf '%s\t%s\t%s\t%s\n' "$seed" "$set" "$c" "$(head -c 200 "$log" | tr '\n\t' '  ')"; continue; fi
    got=$(timeout 20 "$d/carve$tag" 2>/dev/null) || st=$?
    if [ "$got" != "$want" ]; then
      printf '%s\t%s\tmismatch\t%s vs %s\n' "$seed" "$set" "$want" "$got"
    else
      printf '%s\t%s\tok\t\n' "$seed" "$set"
    fi
  done
}
export -f csmith_one

run_csmith() {
  command -v csmith >/dev/null || die "csmith not found (scripts/install-deps.sh --bench)"
  local inc=/usr/include/csmith
  [ -f "$inc/csmith.h" ] || die "csmith.h not found in $inc (libcsmith-dev)"
  local results="$work/results.tsv"
  echo "compiler.sh: $n csmith programs (seeds $seed..$((seed + n - 1))) x ${#SETS[@]} flag sets, $jobs at a time, in $work" >&2
  seq "$seed" $((seed + n - 1)) |
    xargs -P "$jobs" -I{} bash -c 'csmith_one "$@" >"$2/out.$1"; [ "$(grep -c "	ok	" "$2/out.$1")" = 3 ] && rm -rf "$2/p$1"; :' _ {} "$work" "$CARVE" "$inc" "$valgrind_sets"
  cat "$work"/out.* >"$results"
  local skipped
  skipped=$(awk -F'\t' '$3 == "skip"' "$results" | wc -l)
  summarise "$results"
  echo
  echo "left out: $skipped (program, flag set) pairs that clang-19's build did not finish in 5 s or could not build"
}

# --- sources ---------------------------------------------------------------------------
# The logging compiler: records "cwd<TAB>args..." of every compile of one C
# file, then runs clang-19.
write_logger() {
  cat >"$1" <<'EOF'
#!/usr/bin/env bash
case " $* " in
  *" -c "*)
    for a in "$@"; do
      case "$a" in *.c) printf '%s\t%s\n' "$PWD" "$(printf '%q ' "$@")" >>"$CARVE_SWEEP_LOG"; break ;; esac
    done ;;
esac
exec clang-19 "$@"
EOF
  chmod +x "$1"
}

# Builds package $1 once with the logger; prints the log's path.
record_package() {
  local pkg=$1 cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
  local src
  src=$(find "$cache/src" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*" | head -1)
  if [ -z "$src" ]; then
    "$REPO/scripts/subjects.sh" --variant plain --subjects "$(subject_of "$pkg")" >&2 || die "scripts/subjects.sh failed"
    src=$(find "$cache/src" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*" | head -1)
  fi
  [ -n "$src" ] || die "no sources of $pkg in $cache/src"
  local b="$work/build-$pkg" log="$work/$pkg.commands"
  cp -a "$src" "$b"
  write_logger "$work/cc-log"
  local extra=""
  [ "$pkg" = bc ] && extra="-Wno-error=implicit-function-declaration"
  echo "compiler.sh: building $pkg with a logging clang-19 (every C file it compiles)" >&2
  : >"$log"
  # Debian's jq and libxml2 trees need their build files made again.
  case "$pkg" in
    jq|libxml2) (cd "$b" && autoreconf -fi >"$b/autoreconf.log" 2>&1) || die "$pkg: autoreconf failed (see $b/autoreconf.log)" ;;
  esac
  (cd "$b" && FORCE_UNSAFE_CONFIGURE=1 CARVE_SWEEP_LOG="$log" ./configure CC="$work/cc-log" CFLAGS="-O2 $extra" >"$b/configure.log" 2>&1 &&
    CARVE_SWEEP_LOG="$log" make -k -j"$jobs" MAKEINFO=true >"$b/make.log" 2>&1) || true
  # configure's own test programs (conftest.c) are not the package's sources.
  grep -v "conftest\.c" "$log" | sort -u >"$log.files"
  echo "$log.files"
}

subject_of() {
  case "$1" in
    coreutils) echo cut ;; sed) echo sed ;; bc) echo dc ;; jq) echo jq ;; libxml2) echo xmllint ;;
    *) die "unknown package '$1' (coreutils, sed, bc, jq, libxml2)" ;;
  esac
}

# sources_one LINE: the recorded compile at each flag set.
sources_one() {
  local line=$1 work=$2 carve=$3 vg_sets=$4
  local dir=${line%%$'\t'*} cmd=${line#*$'\t'}
  local -a args
  eval "args=($cmd)"
  # The build's flags without its optimisation, debug, output and
  # dependency-file flags.
  local -a base=()
  local i=0 file=""
  while [ $i -lt ${#args[@]} ]; do
    local a=${args[$i]}
    case "$a" in
      -O*|-g|-g[0-9]|-ggdb*|-gline-tables-only) ;;
      -o|-MF|-MT|-MQ) i=$((i + 1)) ;;
      -MD|-MMD|-MP) ;;
      *.c) file=$a; base+=("$a") ;;
      *) base+=("$a") ;;
    esac
    i=$((i + 1))
  done
  local id
  id=$(printf '%s/%s' "$dir" "$file" | md5sum | cut -c1-12)
  local set
  for set in "-O0" "-O2" "-O2 -g"; do
    local out="$work/obj/$id${set// /}"
    local vg=""
    case ",$vg_sets," in *",all,"*|*",$set,"*) vg="valgrind -q --error-exitcode=99 --trace-children=no" ;; esac
    local st=0
    # shellcheck disable=SC2086
    (cd "$dir" && CARVE_CC_TIMEOUT=120 timeout 600 $vg "$carve" "${base[@]}" $set -o "$out.o" >"$out.log" 2>&1) || st=$?
    local c
    c=$(classify "$out.log" "$st")
    if [ "$c" = fail ]; then
      # shellcheck disable=SC2086
      if ! (cd "$dir" && clang-19 "${base[@]}" $set -o "$out.plain.o" >/dev/null 2>&1); then c=skip; fi
    fi
    printf '%s\t%s\t%s\t%s\n' "${dir#"$work"/}/$file" "$set" "$c" "$( [ "$c" = ok ] || [ "$c" = skip ] || head -c 300 "$out.log" | tr '\n\t' '  ')"
    rm -f "$out.o" "$out.plain.o"
    if [ "$c" = ok ]; then rm -f "$out.log"; fi
  done
}
export -f sources_one

run_sources() {
  local results="$work/results.tsv"
  mkdir -p "$work/obj"
  : >"$results"
  IFS=, read -r -a pkgs <<<"$packages"
  for pkg in "${pkgs[@]}"; do
    local files
    files=$(record_package "$pkg")
    local count
    count=$(wc -l <"$files")
    echo "compiler.sh: $pkg: $count C files x ${#SETS[@]} flag sets, $jobs at a time${valgrind_sets:+ (valgrind: $valgrind_sets)}" >&2
    local t0=$SECONDS
    tr '\n' '\0' <"$files" |
      xargs -0 -P "$jobs" -I{} bash -c 'sources_one "$1" "$2" "$3" "$4"' _ {} "$work" "$CARVE" "$valgrind_sets" >>"$results"
    echo "compiler.sh: $pkg done in $((SECONDS - t0)) s" >&2
  done
  summarise "$results"
  local skipped
  skipped=$(awk -F'\t' '$3 == "skip"' "$results" | wc -l)
  echo
  echo "left out: $skipped (file, flag set) pairs that clang-19 does not compile either"
}

case "$mode" in
  csmith) run_csmith ;;
  sources) run_sources ;;
  *) usage >&2; die "unknown mode '$mode' (csmith, sources)" ;;
esac
