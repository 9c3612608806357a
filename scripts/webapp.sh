#!/usr/bin/env bash
# The web application of examples/webapp, end to end: HTTP requests to a
# Python application whose SQL runs in a carve-clang build of SQLite.
#
#   scripts/webapp.sh [--time DURATION] [--seed N] [--all-functions] [-o DIR]
#
#  1. builds SQLite 3.40.1 (Debian's source package) with the example's SQL
#     functions compiled in, as libsqlite3.so.0, with carve-clang and with
#     clang-19 (scripts/subjects.sh --subjects sqlite-shop; cached);
#  2. runs a campaign (default 5m) on the request driver: Python's own
#     interpreter, the instrumented library loaded by its sqlite3 module,
#     the fork server started by the driver once the application is
#     imported and its database filled (CARVE_DEFER=1); the unit level
#     takes the example's own SQL functions (--functions, the names
#     defined in shopext.c), or all of SQLite's with --all-functions;
#  3. shows `bridge review` of what it kept;
#  4. starts the real server (app.py, on the clang-19 build of the library)
#     on 127.0.0.1 for each lifted true alarm and each reduced reproducer,
#     sends it as a real HTTP request, and prints whether it reproduced.
# The campaign directory is kept (-o DIR, default a new directory under
# /tmp); its path is printed at the end.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
time=5m
seed=1
out=""
all=0

usage() { sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; }
die() { printf 'webapp.sh: error: %s\n' "$*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --time) [ $# -ge 2 ] || die "--time needs a value"; time=$2; shift 2 ;;
    --time=*) time=${1#--time=}; shift ;;
    --seed) [ $# -ge 2 ] || die "--seed needs a value"; seed=$2; shift 2 ;;
    --all-functions) all=1; shift ;;
    -o) [ $# -ge 2 ] || die "-o needs a directory"; out=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done
[ -z "$out" ] && out=$(mktemp -d /tmp/webapp.XXXXXX)/campaign
[ -e "$out" ] && die "$out exists (the campaign directory must be new)"

start=$(date +%s)
[ -x "$REPO/target/release/bridge" ] || "$REPO/scripts/build.sh"
bridge="$REPO/target/release/bridge"
python=/usr/bin/python3
[ -x "$python" ] || die "$python not found (scripts/install-deps.sh --subjects installs it)"
"$python" -c 'import sqlite3' 2>/dev/null || die "$python has no sqlite3 module"

echo "== building SQLite and the example's SQL functions (carve-clang and clang-19; cached)"
"$REPO/scripts/subjects.sh" --variant carve,plain --subjects sqlite-shop 2>&1 | sed -u 's/^/   /'
carve_lib=$(dirname "$(readlink -f "$CACHE/bin-carve/sqlite-shop")")
plain_lib=$(dirname "$(readlink -f "$CACHE/bin-plain/sqlite-shop")")

functions=()
if [ "$all" = 0 ]; then
  # The functions shopext.c defines (one definition per line, `name(...) {`).
  names=$(sed -nE 's/^(static )?[a-z_0-9 ]+[ *]([a-z_0-9]+)\(.*\) \{$/\2/p' "$REPO/examples/webapp/shopext.c" | paste -sd'|')
  [ -n "$names" ] || die "no function definition found in examples/webapp/shopext.c"
  functions=(--functions "^($names)\$")
fi
echo "== bridge run, $time, on the request driver (python3 driver.py REQUEST)"
LD_LIBRARY_PATH=$carve_lib CARVE_DEFER=1 "$bridge" run -i "$REPO/examples/webapp/seeds" -o "$out" \
  --time "$time" --seed "$seed" "${functions[@]}" -- "$python" "$REPO/examples/webapp/driver.py" @@ 2>&1 |
  sed -u 's/^/   /' || true
[ -f "$out/campaign.json" ] || die "the campaign did not start (see above)"

echo "== bridge review"
LD_LIBRARY_PATH=$carve_lib CARVE_DEFER=1 "$bridge" review "$out" | sed -u 's/^/   /'

echo "== against the live server (app.py on 127.0.0.1, clang-19 build of the library)"
tests=()
for f in "$out"/alarms/*/input "$out"/review/*/reduced; do
  [ -f "$f" ] && tests+=("$f")
done
if [ "${#tests[@]}" = 0 ]; then
  echo "   no true alarm was kept: nothing to send"
else
  LD_LIBRARY_PATH=$plain_lib "$python" "$REPO/examples/webapp/live.py" "${tests[@]}" | sed -u 's/^/   /' || true
fi
echo "== done in $(( $(date +%s) - start )) s; the campaign is in $out"
