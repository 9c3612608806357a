#!/usr/bin/env bash
# Builds the evaluation subjects (DESIGN.md section 10) from Debian source
# packages: cut, paste, tac, b2sum (coreutils 9.1), sed (sed 4.9) and dc
# (bc 1.07.1), sources unchanged: `./configure CC=... CFLAGS=...`, then make
# of just what the subjects need (see run_make). Also jq (jq 1.6) and
# xmllint (libxml2 2.9.14), with their default shared build: the program
# is libtool's wrapper script in the build tree (bin-<variant>/ holds a
# link to it), the library it loads is instrumented too. Their Debian
# trees need `autoreconf -fi` before configure (their generated files are
# older than the automake Debian ships); the version is pinned, and any
# other version the archive offers is tried when the pinned one is gone.
# And sqlite-shop: SQLite 3.40.1's amalgamation with the SQL functions of
# examples/webapp (shopext.c) compiled in, as the libsqlite3.so.0 Python's
# sqlite3 module loads (bin-<variant>/sqlite-shop links to it; see
# scripts/webapp.sh).
# And two libraries with the fuzz harnesses their sources ship, each a
# static build of the library with its harness linked by the compiler's
# -fsanitize=fuzzer (carve-clang: the bridge's driver; afl-clang-fast:
# AFL++'s; clang-19: libFuzzer, which runs the files it is given once):
#   sqlite-fuzz  SQLite 3.40.1's test/ossfuzz.c on its amalgamation
#   xml-fuzz     libxml2 2.9.14's fuzz/xml.c (with fuzz/fuzz.c), configured
#                --disable-shared --without-python
#   pcre2-fuzz   PCRE2 10.42's src/pcre2_fuzzsupport.c (compiles its input as
#                a pattern and matches it against itself) on libpcre2-8,
#                configured --disable-shared (no JIT)
#   png-fuzz     libpng 1.6.39's contrib/oss-fuzz/libpng_read_fuzzer.cc (C++)
#                on libpng16, configured --disable-shared after the edit of
#                scripts/pnglibconf.dfa its contrib/oss-fuzz/build.sh makes
#                (no stdio, warnings or writing); zlib is the system's
# Their seeds (bin-<variant>/<subject>.seeds/) come from the packages' own
# tests: SQL scripts of test/fuzzdata1.db, the XML documents left in
# libxml2's test/ directory in the harness's format (fuzz/genSeed), the
# one-line patterns of PCRE2's testdata/testinput*, and libpng's own PNG
# files (contrib/pngsuite, contrib/testpngs and the like).
#
#   scripts/subjects.sh [--variant plain|carve|afl|all|v1,v2] [--subjects cut,sed,...] [--force]
#
# --subjects: among cut paste tac b2sum sed dc jq xmllint sqlite-shop
# sqlite-fuzz xml-fuzz pcre2-fuzz png-fuzz (default: the first six).
#
# Variants (all with CFLAGS="-O2 -g0", jq and libxml2 with "-g -O2"; for bc also
# -Wno-error=implicit-function-declaration, see build_package):
#   plain  CC=clang-19
#   carve  CC=carve-clang ($REPO/target/release/carve-clang, or on PATH; built
#          with `scripts/build.sh` if missing)
#   afl    CC=afl-clang-fast (AFL++ reference build, AFL_QUIET=1)
#   afl-cmplog
#          the same with AFL_LLVM_CMPLOG=1: the comparison-logging build
#          that `afl-fuzz -c` runs beside the afl one (AFL++ with cmplog)
#   cov    CC=clang-19 with -fprofile-instr-generate -fcoverage-mapping: the
#          source-based coverage build that benchmarks replay tests on
#          (scripts/bench/covreplay.sh; needs libclang-rt-19-dev)
#   plain-asan, carve-asan, afl-asan
#          the same with -fsanitize=address (AddressSanitizer builds: the
#          plain one to reproduce on, the AFL++ one to compare with)
# Default: plain and carve.
#
# Layout, under CACHE=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects:
#   src/<pkg>-<version>/          pristine sources from `apt-get source`
#   build-<variant>/<pkg>/        per-variant copy, configured and built there
#                                 (configure.log, make.log inside)
#   bin-<variant>/<subject>       the final binaries
# A variant whose requested binaries all exist is skipped; --force rebuilds.
# The bin directory is only filled once every package of the variant built.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
ALL_SUBJECTS=(cut paste tac b2sum sed dc jq xmllint sqlite-shop sqlite-fuzz xml-fuzz pcre2-fuzz png-fuzz)
# Without --subjects: the paper's six.
DEFAULT_SUBJECTS=(cut paste tac b2sum sed dc)
CFLAGS_ALL="-O2 -g0"

usage() {
  sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"
}

log() { printf '[subjects %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { printf 'subjects.sh: error: %s\n' "$*" >&2; exit 1; }

variant_arg="plain,carve"
subjects_arg=$(IFS=,; echo "${DEFAULT_SUBJECTS[*]}")
force=0
while [ $# -gt 0 ]; do
  case "$1" in
    --variant) [ $# -ge 2 ] || die "--variant needs a value"; variant_arg=$2; shift 2 ;;
    --variant=*) variant_arg=${1#--variant=}; shift ;;
    --subjects) [ $# -ge 2 ] || die "--subjects needs a value"; subjects_arg=$2; shift 2 ;;
    --subjects=*) subjects_arg=${1#--subjects=}; shift ;;
    --force) force=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done

# --- argument checking ------------------------------------------------------
variants=()
IFS=, read -r -a vlist <<<"$variant_arg"
for v in "${vlist[@]}"; do
  case "$v" in
    plain|carve|afl|afl-cmplog|cov|plain-asan|carve-asan|afl-asan) variants+=("$v") ;;
    all) variants+=(plain carve afl) ;;
    *) die "unknown variant '$v' (plain, carve, afl, afl-cmplog, cov, plain-asan, carve-asan, afl-asan, all)" ;;
  esac
done
[ "${#variants[@]}" -gt 0 ] || die "no variant given"

subjects=()
IFS=, read -r -a slist <<<"$subjects_arg"
for s in "${slist[@]}"; do
  case " ${ALL_SUBJECTS[*]} " in
    *" $s "*) subjects+=("$s") ;;
    *) die "unknown subject '$s' (${ALL_SUBJECTS[*]})" ;;
  esac
done
[ "${#subjects[@]}" -gt 0 ] || die "no subject given"

# Debian source package, expected upstream version, and path of the built
# binary inside the package's build tree, per subject.
pkg_of() {
  case "$1" in
    cut|paste|tac|b2sum) echo coreutils ;;
    sed) echo sed ;;
    dc) echo bc ;;
    jq) echo jq ;;
    xmllint) echo libxml2 ;;
    sqlite-shop) echo sqlite3 ;;
    sqlite-fuzz) echo sqlite3-fuzz ;;
    xml-fuzz) echo libxml2-fuzz ;;
    pcre2-fuzz) echo pcre2-fuzz ;;
    png-fuzz) echo libpng1.6-fuzz ;;
  esac
}
# The Debian source package a package is built from (a harness build is a
# second build of a library's sources).
source_of() {
  case "$1" in *-fuzz) echo "${1%-fuzz}" ;; *) echo "$1" ;; esac
}
# The upstream version: the name of the extracted directory.
version_of() {
  case "$1" in
    coreutils) echo 9.1 ;;
    sed) echo 4.9 ;;
    bc) echo 1.07.1 ;;
    jq) echo 1.6 ;;
    libxml2) echo 2.9.14+dfsg ;;
    sqlite3) echo 3.40.1 ;;
    pcre2) echo 10.42 ;;
    libpng1.6) echo 1.6.39 ;;
  esac
}
# The Debian version asked for first (empty: whatever the archive has).
pin_of() {
  case "$1" in
    jq) echo 1.6-2.1+deb12u2 ;;
    libxml2) echo 2.9.14+dfsg-1.3~deb12u1 ;;
    sqlite3) echo 3.40.1-2+deb12u2 ;;
    pcre2) echo 10.42-1 ;;
    libpng1.6) echo 1.6.39-2+deb12u5 ;;
  esac
}
binpath_of() {
  case "$1" in
    cut|paste|tac|b2sum) echo "src/$1" ;;
    sed) echo sed/sed ;;
    dc) echo dc/dc ;;
    jq) echo jq ;;
    xmllint) echo xmllint ;;
    sqlite-shop) echo libsqlite3.so.0 ;;
    sqlite-fuzz) echo sqlite-fuzz ;;
    xml-fuzz) echo fuzz/xml ;;
    pcre2-fuzz) echo pcre2-fuzz ;;
    png-fuzz) echo png-fuzz ;;
  esac
}
# Harness subjects: their seeds are built with them (see seeds_of).
is_harness() {
  case "$1" in sqlite-fuzz|xml-fuzz|pcre2-fuzz|png-fuzz) return 0 ;; *) return 1 ;; esac
}
# Generated files older than the automake Debian ships: autoreconf first.
needs_autoreconf() {
  case "$1" in jq|libxml2|libxml2-fuzz) return 0 ;; *) return 1 ;; esac
}
# Packages built as their default build does, shared libraries included:
# their programs are libtool wrapper scripts, linked rather than copied.
is_shared_build() {
  case "$1" in jq|libxml2|sqlite3) return 0 ;; *) return 1 ;; esac
}

packages=()
for s in "${subjects[@]}"; do
  p=$(pkg_of "$s")
  case " ${packages[*]:-} " in *" $p "*) ;; *) packages+=("$p") ;; esac
done

# --- system packages ----------------------------------------------------------
"$REPO/scripts/install-deps.sh" --subjects
command -v clang-19 >/dev/null || die "clang-19 not found"
command -v apt-get >/dev/null || die "apt-get not found (Debian needed for the source packages)"
command -v dpkg-source >/dev/null || die "dpkg-source not found (install dpkg-dev)"
command -v flock >/dev/null || die "flock not found (util-linux)"

mkdir -p "$CACHE/src"

# --- pristine sources -----------------------------------------------------------
# Prints the directory holding the extracted sources of package $1.
src_dir_of() {
  local pkg=$1 ver
  ver=$(version_of "$pkg")
  echo "$CACHE/src/$pkg-$ver"
}

fetch_sources() {
  local pkg=$1 dir ver
  ver=$(version_of "$pkg")
  dir=$(src_dir_of "$pkg")
  if [ -f "$CACHE/src/.$pkg.extracted" ] && [ -d "$dir" ]; then
    return 0
  fi
  log "fetching Debian source package $pkg into $CACHE/src"
  rm -rf "$dir" "$CACHE/src/.$pkg.extracted"
  local logf="$CACHE/src/$pkg.apt-get-source.log"
  : >"$logf"
  if ! apt-cache showsrc "$pkg" >/dev/null 2>&1 || [ -z "$(apt-cache showsrc "$pkg" 2>/dev/null)" ]; then
    log "no source index yet; running apt-get update"
    apt-get update -qq >>"$logf" 2>&1 || true
  fi
  # The pinned version first, then every version the index lists (newest
  # first), then whatever `apt-get source` picks: a mirror may list a
  # version it no longer serves.
  local pin tries=() v ok=0
  pin=$(pin_of "$pkg")
  [ -n "$pin" ] && tries+=("$pkg=$pin")
  while read -r v; do tries+=("$pkg=$v"); done < <(apt-cache showsrc "$pkg" 2>/dev/null | awk '/^Version:/ {print $2}' | sort -rV | uniq)
  tries+=("$pkg")
  for v in "${tries[@]}"; do
    echo "+ apt-get source $v" >>"$logf"
    if (cd "$CACHE/src" && apt-get source "$v") >>"$logf" 2>&1 && [ -d "$dir" ]; then
      ok=1
      if [ -n "$pin" ] && [ "$v" != "$pkg=$pin" ]; then
        log "$pkg: the pinned version $pin was not available; took $v"
      fi
      break
    fi
  done
  if [ "$ok" = 0 ]; then
    tail -n 20 "$logf" >&2
    die "apt-get source $pkg failed for every version tried (${tries[*]}; log: $logf)"
  fi
  if [ ! -d "$dir" ]; then
    local found
    found=$(find "$CACHE/src" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*" -printf '%f ')
    die "apt-get source $pkg did not produce $dir (found: ${found:-nothing}); version $ver expected"
  fi
  touch "$CACHE/src/.$pkg.extracted"
}

(
  flock 9
  for pkg in "${packages[@]}"; do fetch_sources "$(source_of "$pkg")"; done
) 9>"$CACHE/src/.lock"

# --- compilers --------------------------------------------------------------------
# The wrapper links libcarve_rt.a from its own directory unless CARVE_RUNTIME
# says otherwise, so a repository build counts only with both files.
find_carve_clang() {
  if [ -x "$REPO/target/release/carve-clang" ] &&
     { [ -f "$REPO/target/release/libcarve_rt.a" ] || [ -n "${CARVE_RUNTIME:-}" ]; }; then
    echo "$REPO/target/release/carve-clang"
  elif command -v carve-clang >/dev/null 2>&1; then
    command -v carve-clang
  fi
}

compiler_of() {
  local v=${1%-asan} cc
  case "$v" in
    plain|cov) echo clang-19 ;;
    afl|afl-cmplog)
      command -v afl-clang-fast >/dev/null 2>&1 ||
        die "afl-clang-fast not found; install AFL++ (scripts/install-deps.sh --bench)"
      echo afl-clang-fast ;;
    carve)
      cc=$(find_carve_clang)
      if [ -z "$cc" ]; then
        log "carve-clang not found; running scripts/build.sh" >&2
        "$REPO/scripts/build.sh" >&2 ||
          die "scripts/build.sh failed"
        cc=$(find_carve_clang)
      fi
      [ -n "$cc" ] || die "carve-clang not found at $REPO/target/release/carve-clang nor on PATH, even after scripts/build.sh"
      echo "$cc" ;;
  esac
}

# --- building -----------------------------------------------------------------------
# run_make PKG: the make step for PKG, run inside its build directory. Only
# what the subjects need is built.
run_make() {
  case "$1" in
    coreutils)
      # Single targets skip automake's BUILT_SOURCES (generated headers such
      # as lib/string.h), so those are made first.
      local built_sources
      # shellcheck disable=SC2016 # $(BUILT_SOURCES) is for make
      built_sources=$(printf 'include Makefile\nprint-built-sources:\n\t@echo $(BUILT_SOURCES)\n' |
        make -s -f - print-built-sources)
      echo "+ make -j2 \$(BUILT_SOURCES)"
      # shellcheck disable=SC2086 # a list of make targets
      make -j2 $built_sources
      echo "+ make -j2 src/cut src/paste src/tac src/b2sum"
      make -j2 src/cut src/paste src/tac src/b2sum ;;
    sed)
      echo "+ make -j2"
      make -j2 ;;
    bc)
      # Debian's patch 08 edits bc/Makefile.am, so the bc/ directory wants to
      # rerun automake-1.14; dc/ and lib/ do not.
      echo "+ make -j2 -C lib"
      make -j2 -C lib
      echo "+ make -j2 -C dc"
      make -j2 -C dc ;;
    jq|libxml2)
      local built_sources prog
      prog=$([ "$1" = jq ] && echo jq || echo xmllint)
      # shellcheck disable=SC2016 # $(BUILT_SOURCES) is for make
      built_sources=$(printf 'include Makefile\nprint-built-sources:\n\t@echo $(BUILT_SOURCES)\n' |
        make -s -f - print-built-sources)
      echo "+ make -j2 \$(BUILT_SOURCES) $prog"
      # shellcheck disable=SC2086 # a list of make targets
      make -j2 $built_sources "$prog" ;;
    sqlite3)
      # The amalgamation (tclsh writes it), then one shared library of it
      # and the example's extension, registered at initialisation.
      echo "+ make sqlite3.c"
      make sqlite3.c
      echo "+ $cc $cflags -fPIC -shared -DSQLITE_EXTRA_INIT=shopext_register sqlite3.c shopext.c -o libsqlite3.so.0"
      cp "$REPO/examples/webapp/shopext.c" .
      # shellcheck disable=SC2086 # a list of flags
      "$cc" $cflags -fPIC -shared -I. -DSQLITE_EXTRA_INIT=shopext_register sqlite3.c shopext.c \
        -o libsqlite3.so.0 -Wl,-soname,libsqlite3.so.0 -lm -ldl -lpthread ;;
    sqlite3-fuzz)
      echo "+ make sqlite3.c"
      make sqlite3.c
      echo "+ $cc $cflags -fsanitize=fuzzer test/ossfuzz.c sqlite3.c -o sqlite-fuzz"
      # shellcheck disable=SC2086 # a list of flags
      "$cc" $cflags -I. -fsanitize=fuzzer test/ossfuzz.c sqlite3.c -o sqlite-fuzz -lm -ldl -lpthread
      sqlite_seeds ;;
    libxml2-fuzz)
      echo "+ make -j2 libxml2.la"
      make -j2 libxml2.la
      echo "+ make -C fuzz xml genSeed"
      make -C fuzz xml genSeed
      xml_seeds ;;
    pcre2-fuzz)
      echo "+ make -j2 libpcre2-8.la"
      make -j2 libpcre2-8.la
      echo "+ $cc $cflags -fsanitize=fuzzer src/pcre2_fuzzsupport.c .libs/libpcre2-8.a -o pcre2-fuzz"
      # shellcheck disable=SC2086 # a list of flags
      "$cc" $cflags -Isrc -fsanitize=fuzzer src/pcre2_fuzzsupport.c .libs/libpcre2-8.a -o pcre2-fuzz
      pcre2_seeds ;;
    libpng1.6-fuzz)
      echo "+ make -j2 libpng16.la"
      make -j2 libpng16.la
      echo "+ $cxx $cflags -std=c++11 -fsanitize=fuzzer contrib/oss-fuzz/libpng_read_fuzzer.cc .libs/libpng16.a -lz -o png-fuzz"
      # shellcheck disable=SC2086 # a list of flags
      "$cxx" $cflags -std=c++11 -I. -fsanitize=fuzzer contrib/oss-fuzz/libpng_read_fuzzer.cc .libs/libpng16.a -lz -o png-fuzz
      png_seeds ;;
  esac
}

# The seeds of the harness subjects, into seeds/ of the build directory:
# small inputs from the package's own tests (at most SEEDS_MAX, each at most
# SEED_BYTES), the same for every variant.
SEEDS_MAX=48
SEED_BYTES=2048
sqlite_seeds() {
  echo "+ SQL scripts of test/fuzzdata1.db into seeds/"
  mkdir -p seeds
  python3 - "$SEEDS_MAX" "$SEED_BYTES" <<'PY'
import sqlite3, sys
most, size = int(sys.argv[1]), int(sys.argv[2])
db = sqlite3.connect("test/fuzzdata1.db")
rows = db.execute("SELECT sqlid, CAST(sqltext AS BLOB) FROM xsql WHERE length(CAST(sqltext AS BLOB)) BETWEEN 16 AND ? ORDER BY sqlid", (size,)).fetchall()
step = max(1, len(rows) // most)
for sqlid, text in rows[::step][:most]:
    with open("seeds/sql-%05d" % sqlid, "wb") as f:
        f.write(text)
PY
}
xml_seeds() {
  # Debian's +dfsg sources keep a few of upstream's test documents: every
  # XML document under test/ (.xml, .rng, .xsd, .sct).
  echo "+ fuzz/genSeed xml on the XML documents of test/ into seeds/"
  rm -rf fuzz/seed/xml seeds
  mkdir -p seeds fuzz/seed/xml
  # genSeed runs the parser on each document (its external entities go in
  # the seed too); a document it cannot read is left out.
  (cd fuzz && find ../test -type f \( -name '*.xml' -o -name '*.rng' -o -name '*.xsd' -o -name '*.sct' \) \
    -size -"$SEED_BYTES"c | sort | xargs ./genSeed xml) >/dev/null 2>&1 || true
  find fuzz/seed/xml -type f -size -"$SEED_BYTES"c | sort | awk -v n="$SEEDS_MAX" 'NR <= n' |
    while read -r f; do cp "$f" "seeds/$(basename "$f")"; done
  [ -n "$(ls seeds)" ] || { echo "no seed was made"; return 1; }
}

# One-line patterns of PCRE2's own tests (/pattern/modifiers in
# testdata/testinput*): the pattern's bytes, which the harness compiles.
pcre2_seeds() {
  echo "+ the one-line patterns of testdata/testinput* into seeds/"
  rm -rf seeds; mkdir -p seeds
  python3 - "$SEEDS_MAX" "$SEED_BYTES" <<'PY'
import glob, re, sys
most, size = int(sys.argv[1]), int(sys.argv[2])
line = re.compile(rb"^/(.{3,})/[A-Za-z0-9_,=-]*$")
pats = []
names = [f for f in glob.glob("testdata/testinput*") if f[len("testdata/testinput"):].isdigit()]
for f in sorted(names, key=lambda f: int(f[len("testdata/testinput"):])):
    for raw in open(f, "rb").read().split(b"\n"):
        m = line.match(raw)
        if m and len(m.group(1)) <= size and m.group(1) not in pats:
            pats.append(m.group(1))
step = max(1, len(pats) // most)
for i, p in enumerate(pats[::step][:most]):
    open("seeds/pattern-%03d" % i, "wb").write(p)
PY
  [ -n "$(ls seeds)" ] || { echo "no seed was made"; return 1; }
}
# libpng's own PNG files, as its contrib/oss-fuzz/build.sh collects them
# (crashers left out), spread over the sorted list.
png_seeds() {
  echo "+ the PNG files of the sources into seeds/"
  rm -rf seeds; mkdir -p seeds
  local all n step
  all=$(find . -path ./seeds -prune -o -name '*.png' -size -"$SEED_BYTES"c -print | grep -v crashers | sort)
  n=$(printf '%s\n' "$all" | grep -c . || true)
  step=$(( n / SEEDS_MAX )); [ "$step" -ge 1 ] || step=1
  printf '%s\n' "$all" | awk -v s="$step" -v m="$SEEDS_MAX" '(NR - 1) % s == 0 && k < m { print; k++ }' |
    while read -r f; do cp "$f" "seeds/$(echo "${f#./}" | tr / _)"; done
  [ -n "$(ls seeds)" ] || { echo "no seed was made"; return 1; }
}

make_step_desc() {
  case "$1" in
    pcre2-fuzz) echo "make libpcre2-8.la; \$CC -fsanitize=fuzzer src/pcre2_fuzzsupport.c" ;;
    libpng1.6-fuzz) echo "make libpng16.la; \$CXX -fsanitize=fuzzer contrib/oss-fuzz/libpng_read_fuzzer.cc" ;;
    coreutils) echo "make -j2 \$(BUILT_SOURCES); make -j2 src/cut src/paste src/tac src/b2sum" ;;
    sed) echo "make -j2" ;;
    bc) echo "make -j2 -C lib; make -j2 -C dc" ;;
    jq) echo "make -j2 \$(BUILT_SOURCES) jq" ;;
    libxml2) echo "make -j2 \$(BUILT_SOURCES) xmllint" ;;
    sqlite3) echo "make sqlite3.c; \$CC -shared sqlite3.c shopext.c -o libsqlite3.so.0" ;;
    sqlite3-fuzz) echo "make sqlite3.c; \$CC -fsanitize=fuzzer test/ossfuzz.c sqlite3.c" ;;
    libxml2-fuzz) echo "make libxml2.la; make -C fuzz xml genSeed" ;;
  esac
}

# stale BDIR PKG: whether a built package is older than the example
# sources built into it (sqlite-shop's shopext.c).
stale() {
  [ "$2" = sqlite3 ] && [ "$REPO/examples/webapp/shopext.c" -nt "$1/.built" ]
}

# build_package VARIANT CC PKG: configure and make PKG in build-VARIANT/PKG.
build_package() {
  local v=$1 cc=$2 pkg=$3
  local bdir="$CACHE/build-$v/$pkg" src start
  src=$(src_dir_of "$(source_of "$pkg")")
  if [ "$force" = 0 ] && [ -f "$bdir/.built" ] && ! stale "$bdir" "$pkg"; then
    log "$v/$pkg: already built in $bdir"
    return 0
  fi
  start=$(date +%s)
  log "$v/$pkg: copying sources to $bdir"
  rm -rf "$bdir"
  mkdir -p "$CACHE/build-$v"
  cp -a "$src" "$bdir"

  export FORCE_UNSAFE_CONFIGURE=1   # coreutils' configure refuses root otherwise
  case "$v" in afl|afl-*) export AFL_QUIET=1 ;; esac
  # AFL++'s cmplog build (for afl-fuzz -c): its comparisons logged.
  if [ "$v" = afl-cmplog ]; then export AFL_LLVM_CMPLOG=1; else unset AFL_LLVM_CMPLOG; fi
  # configure's test programs leak: LeakSanitizer must not fail them.
  case "$v" in *-asan) export ASAN_OPTIONS=detect_leaks=0 ;; esac

  local cflags=$CFLAGS_ALL
  # jq and libxml2 with the flags their configure picks by default.
  if is_shared_build "$pkg"; then cflags="-g -O2"; fi
  if [ "$v" = cov ]; then cflags="$cflags -fprofile-instr-generate -fcoverage-mapping"; fi
  case "$v" in *-asan) cflags="$cflags -fsanitize=address" ;; esac
  if [ "$pkg" = bc ]; then
    # Debian's patch 05 calls checkferror_output() in dc/*.c without a
    # prototype in scope; clang >= 16 makes that an error by default.
    cflags="$cflags -Wno-error=implicit-function-declaration"
  fi

  if needs_autoreconf "$pkg"; then
    log "$v/$pkg: autoreconf -fi (log: $bdir/autoreconf.log)"
    (cd "$bdir" && autoreconf -fi) >"$bdir/autoreconf.log" 2>&1 || {
      tail -n 30 "$bdir/autoreconf.log" >&2
      die "$v/$pkg: autoreconf failed"
    }
  fi
  log "$v/$pkg: ./configure CC=$cc CFLAGS=\"$cflags\" (log: $bdir/configure.log)"
  local extra=()
  case "$pkg" in
    libxml2-fuzz) extra=(--disable-shared --without-python) ;;
    pcre2-fuzz|libpng1.6-fuzz) extra=(--disable-shared) ;;
  esac
  if [ "$pkg" = libpng1.6-fuzz ]; then
    # As contrib/oss-fuzz/build.sh: no stdio, warnings or writing.
    sed -i -e "s/option STDIO/option STDIO disabled/" \
      -e "s/option WARNING /option WARNING disabled/" \
      -e "s/option WRITE enables WRITE_INT_FUNCTIONS/option WRITE disabled/" \
      "$bdir/scripts/pnglibconf.dfa"
  fi
  # The C++ compiler beside the C one (libpng's harness is C++).
  local cxx
  case "$cc" in
    */carve-clang) ln -sf "$cc" "$bdir/carve-clang++"; cxx="$bdir/carve-clang++" ;;
    afl-clang-fast) cxx=afl-clang-fast++ ;;
    *) cxx="${cc/clang/clang++}" ;;
  esac
  if ! (cd "$bdir" && ./configure CC="$cc" CXX="$cxx" CFLAGS="$cflags" CXXFLAGS="$cflags" "${extra[@]}") >"$bdir/configure.log" 2>&1; then
    echo "---- tail of $bdir/configure.log ----" >&2
    tail -n 30 "$bdir/configure.log" >&2
    if [ -f "$bdir/config.log" ]; then
      echo "---- tail of $bdir/config.log ----" >&2
      tail -n 30 "$bdir/config.log" >&2
    fi
    die "$v/$pkg: configure failed after $(( $(date +%s) - start ))s"
  fi

  log "$v/$pkg: $(make_step_desc "$pkg") (log: $bdir/make.log)"
  if ! (cd "$bdir" && set -e && run_make "$pkg") >"$bdir/make.log" 2>&1; then
    echo "---- tail of $bdir/make.log ----" >&2
    tail -n 40 "$bdir/make.log" >&2
    die "$v/$pkg: make failed after $(( $(date +%s) - start ))s"
  fi
  touch "$bdir/.built"
  log "$v/$pkg: built in $(( $(date +%s) - start ))s"
}

build_variant() {
  local v=$1 cc missing=() s vstart
  local bin="$CACHE/bin-$v"
  for s in "${subjects[@]}"; do
    if [ ! -x "$bin/$s" ] || stale "$CACHE/build-$v/$(pkg_of "$s")" "$(pkg_of "$s")"; then
      missing+=("$s")
    fi
  done
  if [ "$force" = 0 ] && [ "${#missing[@]}" = 0 ]; then
    log "$v: skipping, ${subjects[*]} already in $bin"
    return 0
  fi
  cc=$(compiler_of "$v")
  vstart=$(date +%s)
  log "$v: building ${subjects[*]} with CC=$cc"
  local pkg
  for pkg in "${packages[@]}"; do
    build_package "$v" "$cc" "$pkg"
  done
  # Check everything first, then fill the bin directory.
  local p
  for s in "${subjects[@]}"; do
    p="$CACHE/build-$v/$(pkg_of "$s")/$(binpath_of "$s")"
    [ -x "$p" ] || die "$v: $p missing after a successful build"
  done
  local stage="$CACHE/.bin-$v.stage.$$"
  rm -rf "$stage"
  mkdir -p "$stage" "$bin"
  for s in "${subjects[@]}"; do
    if is_shared_build "$(pkg_of "$s")"; then
      ln -s "$CACHE/build-$v/$(pkg_of "$s")/$(binpath_of "$s")" "$stage/$s"
    else
      cp "$CACHE/build-$v/$(pkg_of "$s")/$(binpath_of "$s")" "$stage/$s"
    fi
    if is_harness "$s"; then
      cp -r "$CACHE/build-$v/$(pkg_of "$s")/seeds" "$stage/$s.seeds"
    fi
  done
  for s in "${subjects[@]}"; do
    mv -f "$stage/$s" "$bin/$s"
    if is_harness "$s"; then
      rm -rf "$bin/$s.seeds"
      mv "$stage/$s.seeds" "$bin/$s.seeds"
    fi
  done
  rmdir "$stage"
  log "$v: done in $(( $(date +%s) - vstart ))s -> $bin"
}

for v in "${variants[@]}"; do
  mkdir -p "$CACHE"
  (
    flock 8
    build_variant "$v"
  ) 8>"$CACHE/.lock-$v"
done
