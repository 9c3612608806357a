# Writes N small, varied, non-empty inputs into DIR, the same bytes on every
# run and with every awk (run it under LC_ALL=C):
#
#   awk -v kind=csv|text -v n=400 -v dir=DIR [-v seed=S] -f gen.awk
#
# csv:  comma-separated lines for `cut -d , -f ...`: 0..8 delimiters a line,
#       empty and long fields, tabs, quotes, bytes above 127, lines without
#       a delimiter, blank lines, files without a final newline.
# text: lines of words for sed: letters, digits, '#' comment lines, slashes,
#       brackets, backslashes, blank lines, and the same irregular endings.
#
# Files are named DIR/id0000, DIR/id0001, ...  The generator is Park-Miller's
# minimal standard (exact in the doubles awk computes with).

function rnd(k) {
  state = (state * 16807) % 2147483647
  return state % k
}

function field(    len, s, j, r) {
  len = rnd(8)
  if (rnd(20) == 0) len = 30 + rnd(120)
  s = ""
  for (j = 0; j < len; j++) {
    r = rnd(100)
    if (r < 3) s = s sprintf("%c", 128 + rnd(128))
    else if (r < 5) s = s "\t"
    else s = s substr(alpha, 1 + rnd(length(alpha)), 1)
  }
  return s
}

function csv_line(    nf, s, k) {
  if (rnd(15) == 0) return ""
  nf = rnd(9)
  s = field()
  for (k = 0; k < nf; k++) s = s "," field()
  return s
}

function text_line(    nw, s, k) {
  if (rnd(12) == 0) return ""
  nw = 1 + rnd(10)
  if (rnd(25) == 0) nw = 20 + rnd(40)
  s = (rnd(8) == 0) ? "#" : ""
  for (k = 0; k < nw; k++) {
    if (k > 0) s = s ((rnd(10) == 0) ? "\t" : " ")
    if (rnd(30) == 0) s = s sprintf("%c", 128 + rnd(128))
    s = s words[1 + rnd(nwords)]
  }
  return s
}

BEGIN {
  if (n == "" || dir == "" || (kind != "csv" && kind != "text")) {
    print "usage: awk -v kind=csv|text -v n=N -v dir=DIR [-v seed=S] -f gen.awk" > "/dev/stderr"
    exit 2
  }
  state = (seed == "" ? 12345 : seed) % 2147483646 + 1
  alpha = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-.;:\"'|/=+"
  nwords = split("a aa ab banana abracadabra xyz zyx x1y2z3 42 7 2024 3.14 " \
                 "Alpha BETA gamma foo/bar a/b/c [a] (x) \\ \\n a.b.c " \
                 "-- ... aaa-aaa saxophone 0x1f path/to/file ~ * ^ $", words, " ")
  for (i = 0; i < n; i++) {
    file = sprintf("%s/id%04d", dir, i)
    lines = 1 + rnd(8)
    if (rnd(10) == 0) lines = 20 + rnd(60)
    out = ""
    for (l = 0; l < lines; l++)
      out = out (kind == "csv" ? csv_line() : text_line()) "\n"
    if (rnd(6) == 0) out = substr(out, 1, length(out) - 1)
    if (out == "" || out == "\n") out = "x\n"
    printf "%s", out > file
    close(file)
  }
}
