#!/usr/bin/env bash
# shellcheck disable=SC2016,SC1003 # sed/dc programs and backslashes are literal on purpose
# Checks that the instrumented subjects behave like the plain ones: runs every
# test case with $CACHE/bin-plain/X and $CACHE/bin-<against>/X and compares
# stdout, exit status and the files left in the working directory.
#
#   scripts/equiv.sh [--cache DIR] [--against carve|afl|plain] [--subjects cut,sed,...] [--keep] [-v]
#
#   --cache DIR   the subjects cache built by scripts/subjects.sh
#                 (default ${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects)
#   --against V   the variant compared with plain (default carve; `plain`
#                 compares plain with itself, a check of the cases)
#   --subjects    only these subjects
#   --keep        keep the scratch directory and print its path
#   -v            print every case
#
# Each run happens in a fresh scratch directory holding a copy of the inputs,
# with HOME and TMPDIR pointing there, a clean environment, a 5 s timeout and
# a 64 MiB file-size limit. stderr is not compared (only reported), since
# runtime messages may legitimately differ; argv[0] is the bare subject name
# in both runs. Exit status: 0 when every case is identical, 1 otherwise,
# 2 on usage or setup errors.
set -euo pipefail

ALL_SUBJECTS=(cut paste tac b2sum sed dc)
TIMEOUT=5

usage() {
  sed -n '3,/^set -euo/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"
}
die() { printf 'equiv.sh: error: %s\n' "$*" >&2; exit 2; }

cache=${CARVE_CACHE:-$HOME/.cache/carve-bridge}/subjects
against=carve
subjects_arg=$(IFS=,; echo "${ALL_SUBJECTS[*]}")
keep=0
verbose=0
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) [ $# -ge 2 ] || die "--cache needs a value"; cache=$2; shift 2 ;;
    --cache=*) cache=${1#--cache=}; shift ;;
    --against) [ $# -ge 2 ] || die "--against needs a value"; against=$2; shift 2 ;;
    --against=*) against=${1#--against=}; shift ;;
    --subjects) [ $# -ge 2 ] || die "--subjects needs a value"; subjects_arg=$2; shift 2 ;;
    --subjects=*) subjects_arg=${1#--subjects=}; shift ;;
    --keep) keep=1; shift ;;
    -v|--verbose) verbose=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done

# Accept the CARVE_CACHE root as well as its subjects/ directory.
if [ ! -d "$cache/bin-plain" ] && [ -d "$cache/subjects/bin-plain" ]; then
  cache=$cache/subjects
fi
cache=$(cd "$cache" 2>/dev/null && pwd) || die "cache directory '$cache' not found; run scripts/subjects.sh first"

subjects=()
IFS=, read -r -a slist <<<"$subjects_arg"
for s in "${slist[@]}"; do
  case " ${ALL_SUBJECTS[*]} " in
    *" $s "*) subjects+=("$s") ;;
    *) die "unknown subject '$s' (${ALL_SUBJECTS[*]})" ;;
  esac
done

BIN_A=$cache/bin-plain
BIN_B=$cache/bin-$against
for s in "${subjects[@]}"; do
  [ -x "$BIN_A/$s" ] || die "$BIN_A/$s missing; run scripts/subjects.sh --variant plain"
  [ -x "$BIN_B/$s" ] || die "$BIN_B/$s missing; run scripts/subjects.sh --variant $against"
done
command -v timeout >/dev/null || die "timeout (coreutils) not found"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/equiv.XXXXXX")
cleanup() {
  if [ "$keep" = 1 ]; then
    echo "scratch directory kept: $WORK"
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT
mkdir -p "$WORK/in" "$WORK/cases" "$WORK/out"

# --- inputs -------------------------------------------------------------------------
# Every input is generated here, deterministically, into $WORK/in; each run
# gets its own copy of that directory as its working directory.
gen_inputs() {
  local d=$1 i
  cd "$d"
  : >empty
  printf 'alpha\tbeta\tgamma\n1\t2\t3\nfoo bar\tbaz qux\t\nstart\nmiddle line\nend\n\tleading tab\ntrailing tab\t\nab ab ab\naa bb cc dd\n' >lines.txt
  printf 'first line\nsecond line\nno newline at the end' >nonl.txt
  printf 'only\n' >one.txt
  # Long lines: 100000 and 20000 characters.
  { head -c 100000 /dev/zero | tr '\0' 'a'; printf '\n';
    for i in $(seq 1 2000); do printf '%09d,' "$i"; done; printf '\nshort\n'; } >long.txt
  # All 256 byte values, then the same block with newlines every 16 bytes.
  for i in $(seq 0 255); do
    # shellcheck disable=SC2059 # an octal escape built on purpose
    printf "\\$(printf '%03o' "$i")"
  done >bytes.bin
  { cat bytes.bin; for i in $(seq 0 15); do head -c $(( (i + 1) * 16 )) bytes.bin | tail -c 16; printf '\n'; done; } >binary.bin
  printf 'café crème\n日本語のテキスト\nemoji 😀 and ✓ marks\nÀÉÎÕÜ àéîõü\nplain ascii\nΑλφα:Βήτα:Γάμμα\n' >unicode.txt
  # Many fields: 8 lines of 200 comma-separated fields.
  for i in $(seq 1 8); do
    seq -s, "$i" "$((i + 199))"
  done >fields.csv
  printf 'a:b:c:d\nno delimiter here\n:leading\ntrailing:\n::\nx:y\n\nonly:two\none:two:three:four:five:six\n' >ragged.txt
  printf 'dos line one\r\ndos line two\r\nlast\r\n' >crlf.txt
  awk 'BEGIN { for (i = 1; i <= 5000; i++) printf "line %d of many, value %d\n", i, i * i % 9973 }' >many.txt
  printf 'rec1;rec2;rec3;;rec5;last' >semi.txt
  printf 'para one\nstill one\n\npara two\n\n\npara three\n' >paras.txt
  printf 'x 1\ny 22\nz 333\nx 4444\n' >kv.txt
  # Sizes around the BLAKE2b block size and a larger file.
  for i in 1 63 64 65 127 128 129 1000 4096; do
    head -c "$i" many.txt >"sz$i"
  done
  # 1000000 bytes: 17857 lines of 56 bytes and a final partial line.
  awk 'BEGIN { l = "The quick brown fox jumps over the lazy dog 0123456789";
               for (i = 0; i < 17857; i++) print l; printf "%s", substr(l, 1, 8) }' >big.txt
  for i in 1 2 3 4 5 6 7 8; do cat bytes.bin bytes.bin bytes.bin bytes.bin; done >bin8k.bin
  # sed scripts and files.
  printf 's/line/LINE/\n/^$/d\n$a\\\nappended by script\n' >script.sed
  printf 'inserted from file\n' >insert.txt
  cp lines.txt copy.txt
  # dc programs.
  printf '2 3 + p\n10 4 - p\n6 7 * p\n' >arith.dc
  printf '[d p 1 + d 6 >a] sa 1 la x\n' >loop.dc
  printf '20 k 2 v p 1 3 / p' >nonl.dc
  printf '1 0 / p\n' >divzero.dc
  printf '[[factorial]] P 10 P [d 1 - d 1 <f *] sf 20 lf x p\n' >fact.dc
}

# b2sum checksum files, made with the plain binary.
gen_sums() {
  local d=$1 b2=$2
  cd "$d"
  "$b2" lines.txt sz64 big.txt empty >sums.ok
  "$b2" -l 256 unicode.txt binary.bin >sums256.ok
  "$b2" --tag lines.txt nonl.txt >sums.tag
  # One wrong digest (first hex digit of the second line changed).
  awk 'NR == 2 { c = substr($0, 1, 1); $0 = (c == "0" ? "1" : "0") substr($0, 2) } { print }' sums.ok >sums.bad
  { head -n 1 sums.ok; echo 'this line is not a checksum line'; tail -n 1 sums.ok; } >sums.malformed
  { cat sums.ok; "$b2" many.txt | sed 's/many\.txt/does-not-exist.txt/'; } >sums.missing
  : >sums.empty
}

(gen_inputs "$WORK/in")
(gen_sums "$WORK/in" "$BIN_A/b2sum")

# --- cases --------------------------------------------------------------------------
# add SUBJECT NAME [--stdin FILE] [--utf8] -- ARGS...
# Args are stored NUL-separated, so they may contain anything but NUL.
ncases=0
CASE_SUBJ=()
CASE_NAME=()
CASE_STDIN=()
CASE_LOCALE=()
add() {
  local subj=$1 name=$2 stdin=/dev/null loc=C
  shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    case "$1" in
      --stdin) stdin=$2; shift 2 ;;
      --utf8) loc=C.UTF-8; shift ;;
      *) die "add: bad option '$1' in case $subj/$name" ;;
    esac
  done
  [ "${1:-}" = -- ] || die "add: missing -- in case $subj/$name"
  shift
  case " ${subjects[*]} " in *" $subj "*) ;; *) return 0 ;; esac
  CASE_SUBJ[ncases]=$subj
  CASE_NAME[ncases]=$name
  CASE_STDIN[ncases]=$stdin
  CASE_LOCALE[ncases]=$loc
  if [ $# -gt 0 ]; then printf '%s\0' "$@"; fi >"$WORK/cases/$ncases.args"
  ncases=$((ncases + 1))
}

# cut
add cut tab-f2 -- -f2 lines.txt
add cut csv-f1,3 -- -d, -f1,3 fields.csv
add cut csv-open-range -- -d, -f198- fields.csv
add cut csv-mixed-ranges -- -d, -f-3,100,150-152 fields.csv
add cut bytes-binary -- -b1-5,200-210 binary.bin
add cut chars-unicode --utf8 -- -c1-6 unicode.txt
add cut bytes-n-unicode --utf8 -- -n -b1-4 unicode.txt
add cut only-delimited -- -d: -f2 -s ragged.txt
add cut missing-fields -- -d: -f2,4 ragged.txt
add cut complement -- -d: -f2 --complement ragged.txt
add cut output-delim -- -d, -f2-4 --output-delimiter=' | ' fields.csv
add cut zero-terminated -- -z -c1-3 binary.bin
add cut no-trailing-newline -- -c1-5 nonl.txt
add cut empty-file -- -f1 empty
add cut long-line-tail -- -c99990-100005 long.txt
add cut long-line-fields -- -d, -f1000-1002 long.txt
add cut crlf-space -- '-d ' -f2 crlf.txt
add cut stdin --stdin lines.txt -- '-d ' -f2
add cut stdin-dash --stdin many.txt -- -c1-8 -
add cut two-files -- -c1-3 lines.txt nonl.txt one.txt
add cut overlapping -- -c3-5,1-4,10- lines.txt
add cut unicode-delim --utf8 -- -d: -f2 unicode.txt
add cut err-no-list -- lines.txt
add cut err-field-zero -- -f0 lines.txt
add cut err-both-lists -- -c1 -f1 lines.txt
add cut err-decreasing -- -f3-1 lines.txt
add cut err-multichar-delim -- -d ab -f1 lines.txt
add cut err-missing-file -- -f1 does-not-exist.txt lines.txt
add cut err-bad-option -- --bogus -f1 lines.txt
add cut help -- --help

# paste
add paste two-files -- lines.txt nonl.txt
add paste three-files-delims -- -d ',;' lines.txt ragged.txt one.txt
add paste serial -- -s lines.txt
add paste serial-delims -- -s -d ':,' ragged.txt
add paste escapes -- -d '\t\n\\' lines.txt many.txt one.txt
add paste nul-delim -- -d '\0' lines.txt ragged.txt
add paste stdin-twice --stdin many.txt -- - -
add paste stdin-serial --stdin ragged.txt -- -s -d + -
add paste empty-files -- empty empty
add paste empty-and-lines -- empty lines.txt
add paste serial-empty -- -s empty
add paste zero-terminated -- -z binary.bin nonl.txt
add paste binary -- binary.bin lines.txt
add paste unicode-delim --utf8 -- -d 'é' unicode.txt lines.txt
add paste long-lines -- long.txt lines.txt
add paste crlf -- crlf.txt ragged.txt
add paste many-columns -- -d ' ' many.txt many.txt many.txt fields.csv
add paste serial-binary -- --serial binary.bin
add paste no-newline -- nonl.txt nonl.txt
add paste err-missing-file -- lines.txt does-not-exist.txt
add paste err-bad-option -- -x lines.txt
add paste err-trailing-backslash -- -d 'a\' lines.txt
add paste help -- --help

# tac
add tac lines -- lines.txt
add tac no-newline -- nonl.txt
add tac empty -- empty
add tac before -- -b lines.txt
add tac separator -- -s : ragged.txt
add tac separator-before -- -b -s , fields.csv
add tac regex -- -r -s '[0-9]+' many.txt
add tac regex-before -- -b -r -s 'line [0-9]*5 ' many.txt
add tac separator-absent -- -s xyz lines.txt
add tac semicolons -- -s ';' semi.txt
add tac paragraphs -- -s $'\n\n' paras.txt
add tac binary -- binary.bin
add tac binary-nul-sep -- -s $'\x01' bin8k.bin
add tac long-lines -- long.txt
add tac unicode --utf8 -- unicode.txt
add tac many -- many.txt
add tac big -- big.txt
add tac stdin --stdin many.txt --
add tac stdin-dash --stdin ragged.txt -- -s : -
add tac two-files -- lines.txt nonl.txt one.txt
add tac crlf -- crlf.txt
add tac err-bad-regex -- -r -s '[' lines.txt
add tac empty-separator -- -s '' lines.txt
add tac err-missing-file -- does-not-exist.txt
add tac err-bad-option -- --bogus lines.txt
add tac help -- --help

# b2sum
add b2sum empty -- empty
add b2sum small-sizes -- sz1 sz63 sz64 sz65
add b2sum block-sizes -- sz127 sz128 sz129 sz1000 sz4096
add b2sum big -- big.txt
add b2sum binary -- -b binary.bin bin8k.bin
add b2sum len8 -- -l 8 lines.txt
add b2sum len256 -- -l 256 unicode.txt
add b2sum len128-binary -- -l 128 binary.bin
add b2sum tag -- --tag lines.txt sz64
add b2sum tag-len -- --tag -l 160 nonl.txt
add b2sum zero-terminated -- -z nonl.txt one.txt
add b2sum stdin --stdin many.txt --
add b2sum stdin-dash-and-file --stdin lines.txt -- - one.txt
add b2sum check-ok -- --check sums.ok
add b2sum check-len256 -- -c sums256.ok
add b2sum check-tag -- --check sums.tag
add b2sum check-bad -- --check sums.bad
add b2sum check-bad-quiet -- --check --quiet sums.bad
add b2sum check-bad-status -- --check --status sums.bad
add b2sum check-malformed-warn -- --check -w sums.malformed
add b2sum check-malformed-strict -- --check --strict sums.malformed
add b2sum check-missing -- --check sums.missing
add b2sum check-ignore-missing -- --check --ignore-missing sums.missing
add b2sum check-empty -- --check sums.empty
add b2sum check-stdin --stdin sums.ok -- --check
add b2sum err-len-not-multiple -- -l 7 lines.txt
add b2sum err-len-too-big -- -l 1024 lines.txt
add b2sum err-missing-file -- does-not-exist.txt lines.txt
add b2sum err-bad-option -- --bogus lines.txt
add b2sum help -- --help

# sed
add sed subst -- s/a/A/ lines.txt
add sed subst-global -- 's/[0-9]\+/N/g' many.txt
add sed subst-nth -- 's/ab/XY/2' lines.txt
add sed subst-icase-print -- -n 's/LINE/row/Ip' lines.txt
add sed print-match -- -n '/a/p' lines.txt
add sed delete-line -- 3d lines.txt
add sed print-range -- -n 2,5p many.txt
add sed delete-regex-range -- '/start/,/end/d' lines.txt
add sed step-address -- -n '0~3p' lines.txt
add sed last-line-count -- -n '$=' many.txt
add sed translit -- y/abc/xyz/ lines.txt
add sed translit-utf8 --utf8 -- 'y/éàü/eau/' unicode.txt
add sed dot-utf8 --utf8 -- 's/./<&>/3' unicode.txt
add sed ere-swap -- -E 's/([a-z]+) ([a-z]+)/\2 \1/' lines.txt
add sed backref-address -- -n '/\(.\)\1/p' lines.txt
add sed hold-reverse -- '1!G;h;$!d' lines.txt
add sed hold-double-space -- G ragged.txt
add sed hold-exchange -- -n 'h;n;G;p' many.txt
add sed next-join -- 'N;P;D' ragged.txt
add sed append-insert-change -- -e '2i\' -e 'inserted' -e '$a end' -e '/middle/c\changed' lines.txt
add sed read-file -- '3r insert.txt' lines.txt
add sed script-file -- -f script.sed paras.txt
add sed separate-files -- -s -n '$p' lines.txt nonl.txt one.txt
add sed no-newline -- 's/$/!/' nonl.txt
add sed long-line -- 's/a/b/g' long.txt
add sed list-binary -- -n l binary.bin
add sed zero-terminated -- -z 's/a/X/g' binary.bin
add sed crlf -- 's/\r$/<CR>/' crlf.txt
add sed empty-file -- -n '$=' empty
add sed stdin --stdin many.txt -- -n '4990,$p'
add sed quit-status -- 3q5 lines.txt
add sed write-file -- -n '/a/w written.txt' lines.txt
add sed write-stdout -- -n '/b/w /dev/stdout' lines.txt
add sed in-place -- -i 's/a/A/g;1d' copy.txt
add sed err-unterminated -- 's/a/b' lines.txt
add sed err-unknown-command -- 'k' lines.txt
add sed err-sandbox-write -- --sandbox 'w x.txt' lines.txt
add sed err-missing-file -- p does-not-exist.txt
add sed err-bad-option -- --bogus p lines.txt

# dc (never fed arbitrary bytes: `!` runs a shell command)
add dc arith-file -- arith.dc
add dc int-division -- -e '10 3 / p'
add dc precision -- -e '5 k 10 3 / p 20 k 1 7 / p'
add dc power -- -e '2 100 ^ p 3 _5 ^ p'
add dc bignum-mul -- -e '12345678901234567890 987654321987654321 * p'
add dc negative -- -e '_5 3 - p _7 2 / p'
add dc stack-ops -- -e '1 2 3 r f c 4 d * p'
add dc stack-depth -- -e '1 2 3 z p'
add dc strings -- -e '[hello world] p [again] n 10 P'
add dc macro-loop -- loop.dc
add dc registers -- -e '5 sx lx lx * p 7 Sy 8 Sy Ly p Ly p'
add dc arrays -- -e '5 0:a 6 1:a 0;a 1;a + p'
add dc sqrt -- -e '2 v p 20 k 2 v p 0.0004 v p'
add dc bases -- -e '16 o 255 p 2 i 1010 p'
add dc modulo -- -e '10 3 % p 10 3 ~ f'
add dc modexp -- -e '2 100 7 | p'
add dc digits -- -e '3.14159 d X p Z p'
add dc char-conv -- -e '65 a P 10 P [abc] a P 10 P'
add dc compare -- -e '[[less] p] sl 1 2 >l 2 1 !>l'
add dc quit-macro -- -e '[1 p q 2 p] x 3 p'
add dc factorial -- fact.dc
add dc big-output -- -e '2 2000 ^ p'
add dc stdin --stdin arith.dc --
add dc mixed-sources -- -e '1 2 +' -f nonl.dc -e 'f'
add dc empty-program -- empty
add dc err-divide-by-zero -- divzero.dc
add dc err-remainder-by-zero -- -e '5 0 % p 1 p'
add dc err-stack-empty -- -e 'p + 1 p'
add dc err-unimplemented -- -e '1 ` p'
add dc err-negative-scale -- -e '_1 k 1 p'
add dc err-sqrt-negative -- -e '_4 v p'
add dc err-missing-file -- does-not-exist.dc
add dc err-bad-option -- --bogus
add dc help -- --help

# --- running --------------------------------------------------------------------------
# run_case INDEX LABEL BINDIR: runs case INDEX in $WORK/run/LABEL/INDEX and
# leaves out/INDEX.LABEL.{stdout,stderr,status,files}.
run_case() {
  local i=$1 label=$2 bindir=$3
  local subj=${CASE_SUBJ[i]} dir="$WORK/run/$label/$i" stdin=${CASE_STDIN[i]}
  local out="$WORK/out/$i.$label" status=0
  local -a args=()
  mapfile -d '' -t args <"$WORK/cases/$i.args"
  rm -rf "$dir"
  mkdir -p "$dir"
  cp -a "$WORK/in/." "$dir/"
  [ "$stdin" = /dev/null ] || stdin="$dir/$stdin"
  (
    cd "$dir"
    ulimit -f 131072   # 64 MiB in 512-byte blocks
    exec env -i PATH=/usr/bin:/bin HOME="$dir" TMPDIR="$dir" LC_ALL="${CASE_LOCALE[i]}" \
      timeout -k 2 "$TIMEOUT" \
      bash -c 'exec -a "$0" "$@"' "$subj" "$bindir/$subj" "${args[@]}" \
      <"$stdin" >"$out.stdout" 2>"$out.stderr"
  ) || status=$?
  echo "$status" >"$out.status"
  (cd "$dir" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$out.files"
  rm -rf "$dir"
}

# Prints the case's command line, shell-quoted.
case_cmdline() {
  local i=$1 a line
  local -a args=()
  mapfile -d '' -t args <"$WORK/cases/$i.args"
  line=${CASE_SUBJ[i]}
  for a in "${args[@]}"; do
    if [[ "$a" =~ ^[A-Za-z0-9_./,:=+-]+$ ]]; then line+=" $a"; else line+=" ${a@Q}"; fi
  done
  [ "${CASE_STDIN[i]}" = /dev/null ] || line+=" < ${CASE_STDIN[i]}"
  [ "${CASE_LOCALE[i]}" = C ] || line="LC_ALL=${CASE_LOCALE[i]} $line"
  echo "$line"
}

declare -A n_cases n_same n_diff n_errdiff
for s in "${subjects[@]}"; do n_cases[$s]=0; n_same[$s]=0; n_diff[$s]=0; n_errdiff[$s]=0; done
diff_report="$WORK/differences.txt"
: >"$diff_report"

echo "equiv: $ncases cases, plain ($BIN_A) vs $against ($BIN_B)"
for ((i = 0; i < ncases; i++)); do
  s=${CASE_SUBJ[i]}
  run_case "$i" a "$BIN_A"
  run_case "$i" b "$BIN_B"
  o="$WORK/out/$i"
  what=()
  cmp -s "$o.a.stdout" "$o.b.stdout" || what+=(stdout)
  cmp -s "$o.a.status" "$o.b.status" || what+=(status)
  cmp -s "$o.a.files" "$o.b.files" || what+=(files)
  n_cases[$s]=$(( n_cases[$s] + 1 ))
  cmp -s "$o.a.stderr" "$o.b.stderr" || n_errdiff[$s]=$(( n_errdiff[$s] + 1 ))
  if [ "${#what[@]}" = 0 ]; then
    n_same[$s]=$(( n_same[$s] + 1 ))
    [ "$verbose" = 0 ] || printf '  same  %-6s %-28s status %s\n' "$s" "${CASE_NAME[i]}" "$(cat "$o.a.status")"
  else
    n_diff[$s]=$(( n_diff[$s] + 1 ))
    [ "$verbose" = 0 ] || printf '  DIFF  %-6s %-28s (%s)\n' "$s" "${CASE_NAME[i]}" "${what[*]}"
    {
      echo "== $s/${CASE_NAME[i]}: ${what[*]} differ"
      echo "   command: $(case_cmdline "$i")"
      echo "   status: plain $(cat "$o.a.status"), $against $(cat "$o.b.status")"
      echo "   stdout: plain $(wc -c <"$o.a.stdout") bytes, $against $(wc -c <"$o.b.stdout") bytes"
      if [[ " ${what[*]} " == *" stdout "* ]]; then
        cmp "$o.a.stdout" "$o.b.stdout" 2>&1 |
          sed -e "s|$o.a.stdout|plain|" -e "s|$o.b.stdout|$against|" -e 's/^/   /' || true
        diff -a <(head -c 4000 "$o.a.stdout") <(head -c 4000 "$o.b.stdout") | head -n 20 | sed 's/^/   | /' || true
      fi
      if [[ " ${what[*]} " == *" files "* ]]; then
        echo "   files left in the working directory (sha256, name):"
        diff "$o.a.files" "$o.b.files" | sed 's/^/   | /' || true
      fi
      echo "   stderr (plain):"
      head -c 1500 "$o.a.stderr" | head -n 8 | sed 's/^/   | /'
      echo "   stderr ($against):"
      head -c 1500 "$o.b.stderr" | head -n 8 | sed 's/^/   | /'
    } >>"$diff_report"
  fi
done

total_diff=0
echo
printf '%-8s %6s %10s %10s %16s\n' subject cases identical differing stderr-differs
for s in "${subjects[@]}"; do
  printf '%-8s %6d %10d %10d %16d\n' "$s" "${n_cases[$s]}" "${n_same[$s]}" "${n_diff[$s]}" "${n_errdiff[$s]}"
  total_diff=$(( total_diff + n_diff[$s] ))
done
if [ "$total_diff" -gt 0 ]; then
  echo
  echo "differing cases:"
  cat "$diff_report"
  exit 1
fi
echo
echo "equiv: all $ncases cases identical (stdout, exit status, files)"
