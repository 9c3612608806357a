# The fixed sed script of scripts/bench/exec.sh: addresses, a range,
# substitutions with a back-reference and an occurrence number, a
# transliteration. Nothing that writes files or runs commands.
/^#/d
s/a/b/g
s/\([0-9][0-9]*\)/<\1>/2
y/xyz/XYZ/
/banana/,/^$/s/^/> /
$s/$/ [end]/
