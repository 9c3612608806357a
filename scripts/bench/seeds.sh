# shellcheck shell=bash disable=SC2154
# Sourced by the benchmarks: seed_dir SUBJECT OUT writes the subject's seeds,
# each with its command line on the first line (--args-in-input; @@ is the
# file), into OUT/seeds-SUBJECT and prints that directory; probe_dir does
# the same with the hand-written probes of scripts/bench/probes/SUBJECT
# (OUT/probes-SUBJECT, empty when it has none). Needs $repo. args_of and
# fixed_seeds give a subject's fixed command line and its seeds without one.

# Copies each file of $1 into $2, ` @@` added to its first line.
with_file_arg() {
  local f
  for f in "$1"/*; do
    { head -n 1 "$f" | sed 's/$/ @@/'; tail -n +2 "$f"; } > "$2/$(basename "$f")"
  done
}

# Seeds carry their command line (--args-in-input); @@ is the file.
seed_dir() { # subject out -> directory of seeds
  local s=$1 d="$2/seeds-$1"
  mkdir -p "$d"
  if [ -d "$repo/scripts/bench/seeds/$s" ]; then
    with_file_arg "$repo/scripts/bench/seeds/$s" "$d"
  else
    case "$s" in
      tac) printf -- '@@\none\ntwo\nthree\n' > "$d/a"; printf -- '-s , @@\na,b,c,' > "$d/b"; printf -- '-r -s [0-9] @@\na1b22c333' > "$d/c" ;;
      b2sum) printf -- '@@\nThe quick brown fox\n' > "$d/a"; printf -- '-l 128 @@\nabc' > "$d/b"; printf -- '--tag @@\n' > "$d/c" ;;
      dc) printf -- '@@\n2 3 + p 10 k 1 3 / p\n' > "$d/a"; printf -- '@@\n[la 1 + d sa 5 >b] sb 0 sa lbx la p\n' > "$d/b"; printf -- '@@\n16 o 255 p 2 i 1010 p\n' > "$d/c" ;;
    esac
  fi
  echo "$d"
}

probe_dir() { # subject out -> directory of probes
  local d="$2/probes-$1"
  mkdir -p "$d"
  [ -d "$repo/scripts/bench/probes/$1" ] && with_file_arg "$repo/scripts/bench/probes/$1" "$d"
  echo "$d"
}

# The subject's fixed arguments (`@@` the test; DATA a file of the seeds' data).
args_of() {
  case "$1" in
    cut) echo "-d , -f 1,3- @@" ;;
    paste) echo "-s -d , @@" ;;
    sed) echo "-f @@ $2" ;;
    *) echo "@@" ;;
  esac
}

# Seeds without their command lines: OUT/fixed-SUBJECT (and OUT/data-SUBJECT).
# Needs $out, $cache and $san ("" or -asan).
# A harness subject's seeds are built with it (scripts/subjects.sh), as they are.
fixed_seeds() { # subject -> directory
  local s=$1 src d="$out/fixed-$1"
  rm -rf "$d"; mkdir -p "$d"
  if [ -d "$cache/bin-carve$san/$s.seeds" ]; then
    cp "$cache/bin-carve$san/$s.seeds"/* "$d/"
    : > "$out/data-$s"
    echo "$d"
    return
  fi
  src=$(seed_dir "$s" "$out")
  python3 - "$s" "$src" "$d" "$out/data-$s" <<'PY'
import os, shlex, sys
s, src, dst, data = sys.argv[1:]
lines = []
for f in sorted(os.listdir(src)):
    raw = open(os.path.join(src, f), "rb").read()
    first, _, rest = raw.partition(b"\n")
    if s == "sed":
        words = shlex.split(first.decode("latin-1"))
        script = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "-e"]
        open(os.path.join(dst, f), "w").write("\n".join(script) + "\n")
        lines.append(rest)
    else:
        open(os.path.join(dst, f), "wb").write(rest)
open(data, "wb").write(b"".join(lines))
PY
  echo "$d"
}

# The median size in bytes of the files of a queue directory (0 if none).
median_size() { # queue dir -> bytes
  find "$1" -maxdepth 1 -type f -name 'id:*' -printf '%s\n' | sort -n | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : 0)}'
}
