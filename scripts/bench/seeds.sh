# Sourced by the benchmarks: seed_dir SUBJECT OUT writes the subject's seeds,
# each with its command line on the first line (--args-in-input; @@ is the
# file), into OUT/seeds-SUBJECT and prints that directory. Needs $repo.

# Seeds carry their command line (--args-in-input); @@ is the file.
seed_dir() { # subject out -> directory of seeds
  local s=$1 d="$2/seeds-$1"
  mkdir -p "$d"
  if [ -d "$repo/scripts/bench/seeds/$s" ]; then
    for f in "$repo/scripts/bench/seeds/$s"/*; do
      { head -n 1 "$f" | sed 's/$/ @@/'; tail -n +2 "$f"; } > "$d/$(basename "$f")"
    done
  else
    case "$s" in
      tac) printf -- '@@\none\ntwo\nthree\n' > "$d/a"; printf -- '-s , @@\na,b,c,' > "$d/b"; printf -- '-r -s [0-9] @@\na1b22c333' > "$d/c" ;;
      b2sum) printf -- '@@\nThe quick brown fox\n' > "$d/a"; printf -- '-l 128 @@\nabc' > "$d/b"; printf -- '--tag @@\n' > "$d/c" ;;
      dc) printf -- '@@\n2 3 + p 10 k 1 3 / p\n' > "$d/a"; printf -- '@@\n[la 1 + d sa 5 >b] sb 0 sa lbx la p\n' > "$d/b"; printf -- '@@\n16 o 255 p 2 i 1010 p\n' > "$d/c" ;;
    esac
  fi
  echo "$d"
}

