#!/usr/bin/env bash
# Where the fork server starts in a Python host: execs per second of the
# web application's request driver (examples/webapp/driver.py) on the
# carve-clang build of SQLite, with the fork server deferred until the
# application is imported and its database filled (CARVE_DEFER=1, the
# driver calls __carve_start) against starting it when the instrumented
# library is loaded (CARVE_DEFER unset: each run then imports the
# application and fills the database again).
#
#   scripts/bench/webapp.sh [--rounds N] [--repeat N] [--bridge PATH]
#
#   --rounds N   timed runs of each configuration, alternating A B / B A
#                (default 5)
#   --repeat N   passes over the five seed requests per run (default 20)
#   --bridge P   the bridge binary (default target/release/bridge)
#
# Needs the sqlite-shop build (scripts/subjects.sh --variant carve
# --subjects sqlite-shop) and python3. The figures are bridge exec's own
# (its run loop, fork server start-up excluded).
set -euo pipefail
export LC_ALL=C

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
rounds=5
repeat=20
bridge="$REPO/target/release/bridge"

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }
die() { printf 'webapp.sh: error: %s\n' "$*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) [ $# -ge 2 ] || die "--rounds needs a value"; rounds=$2; shift 2 ;;
    --repeat) [ $# -ge 2 ] || die "--repeat needs a value"; repeat=$2; shift 2 ;;
    --bridge) [ $# -ge 2 ] || die "--bridge needs a value"; bridge=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done
[ -x "$bridge" ] || die "$bridge not found (scripts/build.sh builds it)"
[ -e "$CACHE/bin-carve/sqlite-shop" ] ||
  die "no carve build of sqlite-shop (scripts/subjects.sh --variant carve --subjects sqlite-shop)"
lib=$(dirname "$(readlink -f "$CACHE/bin-carve/sqlite-shop")")

# execs/s of one run; $1: the CARVE_DEFER value ("" for unset).
measure() {
  local json
  json=$(env ${1:+CARVE_DEFER=$1} LD_LIBRARY_PATH="$lib" "$bridge" exec --repeat "$repeat" --json \
    -c "$REPO/examples/webapp/seeds" -- /usr/bin/python3 "$REPO/examples/webapp/driver.py" @@ 2>/dev/null)
  python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["exit_zero"] == d["runs"], d; print("%.1f" % d["execs_per_sec"])' <<<"$json" ||
    die "a run of the driver failed (CARVE_DEFER=${1:-unset})"
}

deferred=()
eager=()
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) = 1 ]; then
    deferred+=("$(measure 1)"); eager+=("$(measure "")")
  else
    eager+=("$(measure "")"); deferred+=("$(measure 1)")
  fi
done

printf '%-6s %16s %16s %8s\n' round "deferred exec/s" "at load exec/s" ratio
for i in $(seq 0 $((rounds - 1))); do
  printf '%-6s %16s %16s %8s\n' "$((i + 1))" "${deferred[$i]}" "${eager[$i]}" \
    "$(python3 -c "print('%.2f' % (${deferred[$i]} / ${eager[$i]}))")"
done
python3 - "${deferred[*]}" "${eager[*]}" <<'EOF'
import statistics, sys
d = [float(x) for x in sys.argv[1].split()]
e = [float(x) for x in sys.argv[2].split()]
r = [a / b for a, b in zip(d, e)]
print("%-6s %16.1f %16.1f %8.2f" % ("median", statistics.median(d), statistics.median(e), statistics.median(r)))
EOF
