#!/usr/bin/env bash
# Installs the system packages the project needs (Debian 12). Idempotent.
#   scripts/install-deps.sh            toolchain for building and testing
#   scripts/install-deps.sh --subjects  also deb-src, the subjects' build needs and
#                                       the profile runtime of their llvm-cov builds
#   scripts/install-deps.sh --bench     also the outside references (AFL++, valgrind, pyradamsa)
set -euo pipefail

want_subjects=0
want_bench=0
for arg in "$@"; do
  case "$arg" in
    --subjects) want_subjects=1 ;;
    --bench) want_subjects=1; want_bench=1 ;;
    *) echo "install-deps.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

# llvm-19: llvm-symbolizer-19 names the frames of a failure (bridge review);
# chromium: the tests open the review's HTML report in a real browser.
# afl++: the tests run afl-fuzz and afl-showmap on carve-clang binaries.
# valgrind: a test runs carve-clang under it (no write to freed memory).
# python3: the scripts' tables, and the web application of examples/webapp.
# libclang-rt-19-dev: clang-19's sanitizer runtimes (the examples' and
# tests' -fsanitize=address builds) and the profile runtime of the
# subjects' llvm-cov builds (scripts/subjects.sh --variant cov).
pkgs=(clang-19 llvm-19 llvm-19-dev libpolly-19-dev libclang-rt-19-dev libzstd-dev zlib1g-dev libz3-dev pkg-config make procps binutils chromium afl++ valgrind python3)
if [ "$want_subjects" = 1 ]; then
  # autoconf, automake, libtool: jq's and libxml2's Debian trees need
  # autoreconf; libonig-dev, zlib1g-dev, liblzma-dev: what they link.
  # tcl: SQLite's build writes its amalgamation with tclsh (sqlite-shop).
  pkgs+=(dpkg-dev texinfo bison flex ed perl autoconf automake libtool libonig-dev zlib1g-dev liblzma-dev tcl)
fi
if [ "$want_bench" = 1 ]; then
  # libclang-rt-14-dev: the ASan runtime of afl-clang-fast (AFL++ is built
  # on LLVM 14), for the afl-asan builds of the subjects.
  # librsvg2-bin: covtime.py's plots as PNG (rsvg-convert).
  pkgs+=(valgrind python3-pip csmith libcsmith-dev creduce libclang-rt-14-dev librsvg2-bin)
fi

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# Debian source packages are needed for the evaluation subjects.
if [ "$want_subjects" = 1 ]; then
  src=/etc/apt/sources.list.d/debian.sources
  if [ -f "$src" ] && ! grep -q '^Types: deb deb-src' "$src"; then
    $SUDO sed -i 's/^Types: deb$/Types: deb deb-src/' "$src"
    missing+=("__update__")
  fi
fi

if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  real=()
  for p in "${missing[@]}"; do [ "$p" = "__update__" ] || real+=("$p"); done
  if [ "${#real[@]}" -gt 0 ]; then
    $SUDO apt-get install -y -qq --no-install-recommends "${real[@]}" >/dev/null
  fi
fi

if [ "$want_bench" = 1 ]; then
  python3 -c 'import pyradamsa' 2>/dev/null || python3 -m pip install -q pyradamsa==0.1.1
fi
echo "install-deps: ok" >&2
