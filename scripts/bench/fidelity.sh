#!/usr/bin/env bash
# Carving fidelity on the subjects: for each subject and a few inputs,
# `bridge carve` (at most --max calls per function), then `bridge replay`
# of every unit; a replay is faithful when it returns what the original call
# returned and hits the same edges within the call. Also checks that
# carving does not change what the program does (stdout, exit status), the
# cost of carving (time per snapshot, bytes per snapshot), and whether unit
# coverage compares with system coverage: the map slots a system run of the
# input hits (`bridge showmap`, the optimised program) against those the
# replay of `main` carved from it hits (the out-of-line copies), as the
# Jaccard index of the two sets ("sys~unit", 1.0: the same slots).
#   scripts/bench/fidelity.sh [--cache DIR] [--subjects cut,paste,...] [--max N] [--variant carve|carve-asan] [--cases N]
# (jq and xmllint too, after `scripts/subjects.sh --subjects jq,xmllint`;
# the harness subjects sqlite-fuzz, xml-fuzz, pcre2-fuzz and png-fuzz on their first --cases seeds.)
set -euo pipefail
# Leaks at exit are no failure here (ASan builds).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
subjects=cut,paste,tac,b2sum,sed,dc
max=5
variant=carve
harness_cases=8
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) cache=$2/subjects; shift 2 ;;
    --subjects) subjects=$2; shift 2 ;;
    --max) max=$2; shift 2 ;;
    --variant) variant=$2; shift 2 ;;
    --cases) harness_cases=$2; shift 2 ;;
    *) echo "fidelity.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
bridge="$repo/target/release/bridge"
[ -x "$bridge" ] || "$repo/scripts/build.sh"
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

# Test cases: the first line is the command line (with @@ for the file),
# the rest the file.
cases() {
  case "$1" in
    cut)
      printf -- '-d , -f 1,3 @@\na,b,c\n1,2,3\nx,,z\n'
      printf '\001'; printf -- '-c 2-4,7- @@\nhello world\nabcdefghij\n'
      printf '\001'; printf -- '-s -d : -f 2 --complement @@\nx:y:z\nnone\n'
      printf '\001'; printf -- '-b 1-3 --output-delimiter=| @@\n12345\n' ;;
    paste)
      printf -- '-s -d , @@\na\nb\nc\n'
      printf '\001'; printf -- '-d :| @@ @@\n1\n2\n3\n'
      printf '\001'; printf -- '@@\nx\ty\n' ;;
    tac)
      printf -- '@@\none\ntwo\nthree\n'
      printf '\001'; printf -- '-s , @@\na,b,c,'
      printf '\001'; printf -- '-r -s [0-9] @@\na1b22c333' ;;
    b2sum)
      printf -- '@@\nThe quick brown fox\n'
      printf '\001'; printf -- '-l 128 @@\nabc'
      printf '\001'; printf -- '--tag @@\n' ;;
    sed)
      printf -- '-e s/a/b/g @@\nbanana\napple\n'
      printf '\001'; printf -- '-n -e /x/p -e 3q @@\nx1\ny2\nx3\nx4\n'
      printf '\001'; printf -- '-E -e s/([0-9]+)/<\\1>/g -e 2d @@\na1b22\nc333\nd4\n'
      printf '\001'; printf -- '-e 1h -e 2,3H -e $!d -e x @@\none\ntwo\nthree\nfour\n' ;;
    dc)
      printf -- '@@\n2 3 + p 10 k 1 3 / p\n'
      printf '\001'; printf -- '@@\n[la 1 + d sa 5 >b] sb 0 sa lbx la p\n'
      printf '\001'; printf -- '@@\n16 o 255 p 2 i 1010 p c 1 0 / p\n' ;;
    jq)
      printf -- '. @@\n{"a": [1, 2.5, "x"], "b": null, "c": {"d": true}}\n'
      printf '\001'; printf -- '-c .[] @@\n[{"k": "v"}, [1, [2]], "s\\u00e9"]\n'
      printf '\001'; printf -- '.a+.b @@\n{"a": 40, "b": 2} {"a": "x", "b": "y"}\n' ;;
    xmllint)
      printf -- '@@\n<?xml version="1.0"?>\n<doc a="1"><i id="x">t &amp; u</i><!-- c --><e/></doc>\n'
      printf '\001'; printf -- '--noout --valid @@\n<!DOCTYPE r [<!ELEMENT r (#PCDATA)><!ENTITY e "ent">]>\n<r>&e;</r>\n'
      printf '\001'; printf -- '--format @@\n<a xmlns:n="urn:x"><n:b n:c="d"/><![CDATA[<raw>]]></a>\n' ;;
  esac
}

printf '%-7s %6s %9s %7s %9s %8s %9s %9s %11s %10s %9s\n' subject inputs functions calls faithful "%" truncated same-out "us/snapshot" "B/snapshot" "sys~unit"
IFS=, read -r -a list <<< "$subjects"
for s in "${list[@]}"; do
  bin="$cache/bin-$variant/$s"
  [ -x "$bin" ] || { echo "fidelity.sh: $bin missing: run scripts/subjects.sh" >&2; exit 1; }
  k=0; same=0
  : > "$work/$s.json.all"
  # The test cases, one file each: a harness subject's first seeds
  # (scripts/subjects.sh builds them with it), else the cases above.
  if [ -d "$bin.seeds" ]; then
    for f in $(find "$bin.seeds" -type f | sort | head -n "$harness_cases"); do
      k=$((k + 1))
      { printf '@@\n'; cat "$f"; } > "$work/$s.$k.test"
    done
  else
    while IFS= read -r -d $'\001' tc || [ -n "$tc" ]; do
      k=$((k + 1))
      printf '%s' "$tc" > "$work/$s.$k.test"
    done < <(cases "$s")
  fi
  for j in $(seq 1 "$k"); do
    out="$work/$s/$j"
    "$bridge" carve --args-in-input -t 10000 --max-per-function "$max" -o "$out" -i "$work/$s.$j.test" -- "$bin" >/dev/null 2>"$work/$s.$j.carve.log" || { cat "$work/$s.$j.carve.log" >&2; exit 1; }
    [ -d "$out" ] || mkdir -p "$out"
    if ls "$out"/*.unit >/dev/null 2>&1; then
      "$bridge" replay --json "$out" > "$work/$s.$j.json" || true
      cat "$work/$s.$j.json" >> "$work/$s.json.all"
      "$bridge" showmap --args-in-input -i "$work/$s.$j.test" -o "$work/$s.$j.map" -- "$bin" >/dev/null 2>&1 || true
    fi
    # Carving on and off: the same stdout and exit status.
    args=$(head -n 1 "$work/$s.$j.test"); tail -n +2 "$work/$s.$j.test" > "$work/input"
    # shellcheck disable=SC2086
    set -- ${args//@@/$work/input}
    (cd "$work" && HOME=$work "$bin" "$@" > off.out 2>/dev/null; echo "$?" >> off.out) < /dev/null || true
    mkdir -p "$work/snaps"; rm -f "$work/snaps"/*
    t0=$(date +%s%N)
    (cd "$work" && HOME=$work CARVE_CARVE_DIR="$work/snaps" CARVE_CARVE_MAX="$max" "$bin" "$@" > on.out 2>/dev/null; echo "$?" >> on.out) < /dev/null || true
    t1=$(date +%s%N)
    (cd "$work" && HOME=$work "$bin" "$@" > /dev/null 2>&1) < /dev/null || true
    t2=$(date +%s%N)
    cmp -s "$work/off.out" "$work/on.out" && same=$((same + 1))
    n=$(find "$work/snaps" -name '*.snap' | wc -l)
    bytes=$(find "$work/snaps" -name '*.snap' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
    echo "$n $bytes $(( (t1 - t0) - (t2 - t1) ))" >> "$work/$s.cost"
  done
  python3 - "$s" "$k" "$same" "$work" <<'PY'
import json, sys, glob
s, k, same, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rows = []
for f in sorted(glob.glob(f"{work}/{s}.*.json")):
    rows += json.load(open(f))
judged = [r for r in rows if r["faithful"] is not None]
ok = sum(1 for r in judged if r["faithful"])
trunc = sum(1 for r in rows if r["truncated"])
funcs = len({r["function"] for r in rows})
n = b = t = 0
for line in open(f"{work}/{s}.cost"):
    a, c, d = map(int, line.split()); n += a; b += c; t += d
us = t / 1000 / max(n, 1); per = b / max(n, 1)
pct = 100 * ok / max(len(judged), 1)
# System coverage of each input against its replayed main's.
jac = []
for f in sorted(glob.glob(f"{work}/{s}.*.map")):
    case = f[: -len(".map")]
    sysm = {int(l.split(":")[0]) for l in open(f) if ":" in l}
    try:
        unit = [r for r in json.load(open(case + ".json")) if r["unit"].endswith("/main.0.unit")]
    except (OSError, ValueError):
        unit = []
    if unit and sysm:
        u = set(unit[0].get("edge_slots", []))
        jac.append(len(sysm & u) / len(sysm | u))
comp = f"{sum(jac) / len(jac):9.3f}" if jac else f"{'-':>9}"
print(f"{s:<7} {k:6d} {funcs:9d} {len(judged):7d} {ok:9d} {pct:8.1f} {trunc:9d} {same:>5d}/{k:<3d} {us:11.0f} {per:10.0f} {comp}")
bad = {}
for r in judged:
    if not r["faithful"]:
        bad.setdefault(r["function"], []).append(r["outcome"] if r["outcome"] != "ok" else f"-{r['missing_edges']}/+{r['extra_edges']} edges")
for f, why in sorted(bad.items()):
    print(f"          unfaithful: {f}: {', '.join(sorted(set(why)))}")
open(f"{work}/totals", "a").write(f"{len(judged)} {ok}\n")
PY
done
python3 - "$work" <<'PY'
import sys
n = ok = 0
for line in open(f"{sys.argv[1]}/totals"):
    a, b = map(int, line.split()); n += a; ok += b
print(f"all     {n} calls carved, {ok} faithful ({100 * ok / max(n, 1):.1f} %)   (target: >= 95 %)")
PY
