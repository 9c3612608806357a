#!/usr/bin/env bash
# Records libc reads on a program's behalf, on GNU coreutils' who and users
# (utmp records through utmpxname and getutxent; who copies the ones it
# keeps into an array with room after them): both are built from the
# carve build of coreutils, run on a utmp file of five records (a boot, a
# run level, two users, a dead process), carved, and their units explored.
# Prints per program: units, units with parameters, lifts, coverage lifts
# and true alarms (the units and their parameters are in OUT/NAME-units.txt).
# Needs scripts/subjects.sh --variant carve (coreutils' build tree).
#   scripts/bench/records.sh [--tries 20] [--out DIR]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
tries=20
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tries) tries=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "records.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
bridge="$repo/target/release/bridge"
[ -x "$bridge" ] || "$repo/scripts/build.sh"
tree="$cache/build-carve/coreutils"
[ -f "$tree/Makefile" ] || { echo "records.sh: $tree missing: scripts/subjects.sh --variant carve --subjects cut" >&2; exit 1; }
[ -n "$out" ] || out=$(mktemp -d /tmp/carve-bench-records.XXXXXX)
mkdir -p "$out"
echo "results in $out" >&2
make -C "$tree" src/who src/users > "$out/make.log" 2>&1 || { echo "records.sh: make failed: $out/make.log" >&2; exit 1; }
python3 - "$out/utmp" <<'PY'
import struct, sys
def rec(kind, pid, line, user, host=b""):
    r = bytearray(384)  # glibc's struct utmpx on x86-64
    struct.pack_into("<h", r, 0, kind)
    struct.pack_into("<i", r, 4, pid)
    r[8:8 + len(line)] = line
    r[40:44] = line[-4:].ljust(4, b"\0")
    r[44:44 + len(user)] = user
    r[76:76 + len(host)] = host
    struct.pack_into("<i", r, 340, 1700000000)
    return bytes(r)
recs = [rec(2, 0, b"~", b"reboot"), rec(1, 0x35, b"~", b"runlevel"), rec(7, 1000, b"pts/1", b"alice", b"10.0.0.1"),
        rec(7, 2000, b"tty2", b"bob"), rec(8, 3000, b"pts/3", b"")]
open(sys.argv[1], "wb").write(b"".join(recs))
PY
printf '| program | units | with parameters | lifted | coverage lifts | true alarms |\n|---|---|---|---|---|---|\n'
for p in "who -a" "users"; do
  name=${p%% *}
  # shellcheck disable=SC2086
  set -- "$tree/src/$name" ${p#"$name"}
  "$bridge" carve -o "$out/$name-units" -- "$@" @@ < "$out/utmp" > "$out/$name-carve.log" 2>&1
  "$bridge" units "$out/$name-units" > "$out/$name-units.txt"
  "$bridge" explore --json --tries "$tries" -o "$out/$name-out" "$out/$name-units" -- "$@" @@ > "$out/$name.json" 2> "$out/$name.err"
  python3 - "$name" "$out/$name.json" <<'PY'
import json, sys
name, f = sys.argv[1], sys.argv[2]
j = json.load(open(f))
print(f"| {name} | {j['units']} | {j['units_with_params']} | {j['lifted']} | {j['coverage_lifts']} | {j['true_alarms']} |")
PY
done
