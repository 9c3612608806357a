//! Lifter: writes a unit-level value back into the system input at the
//! parameter's mapped offsets, re-runs the whole program, and says what the
//! value is worth at system level: a true alarm (the failure reproduces), a
//! coverage lift (new system-level edges), or a false alarm.

use exec::{Coverage, ForkServer, Newness, Outcome};
use model::shell::{self, Quote};
use model::unit::{Encoding, Param, Site, Value, MAX_LENGTH};

mod http;
mod labels;
pub use labels::lift_labelled;

/// What a lifted value turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// The program fails on the lifted input (crash or hang).
    TrueAlarm,
    /// The lifted input reaches code no system test reached.
    CoverageLift,
    /// The unit failed or found something, the whole program does not.
    FalseAlarm,
}

/// `input` with every occurrence of `param` replaced by `value`'s text
/// (lengths may change: later occurrences are replaced first).
/// `command_line`: the input's first line is the program's command line,
/// where a value is written as its shell word needs (see [`lift_all`]).
pub fn lift(input: &[u8], param: &Param, value: &Value, command_line: bool) -> Vec<u8> {
    lift_all(input, &[(param, value)], command_line)
}

/// `input` with several parameters replaced at once (their occurrences,
/// from the last to the first; one that overlaps a later one is left);
/// the length fields and checksums of a binary input's records, and an
/// HTTP request's `Content-Length`, follow what they cover
/// (`model::fields`, `http`). A length ([`Encoding::Length`]) resizes the
/// text at its occurrence: the new value of another parameter there when
/// it has one too.
///
/// [`Encoding::Length`]: model::unit::Encoding::Length
/// With `command_line`, a value that lands in the first line is written
/// for the quoting in force there (`a b` becomes `'a b'`, an empty word
/// `''`, `it's` inside single quotes `it'\''s`), so the line splits into
/// the words the unit had, here and in a shell.
pub fn lift_all(input: &[u8], values: &[(&Param, &Value)], command_line: bool) -> Vec<u8> {
    lift_spliced(input, values, command_line).0
}

/// The text [`lift`] writes for `value` at the first occurrence of
/// `param` (as its place in the command line needs it); the occurrence's
/// own text when the value leaves it as it is.
pub fn written(input: &[u8], param: &Param, value: &Value, command_line: bool) -> Vec<u8> {
    let Some(&(at, len)) = param.occurrences.iter().min() else { return Vec::new() };
    let (out, splices) = lift_spliced(input, &[(param, value)], command_line);
    match splices.first() {
        Some(s) if s.at == at as usize => out[s.at..s.at + s.len].to_vec(),
        _ => input.get(at as usize..(at + len) as usize).unwrap_or_default().to_vec(),
    }
}

/// What [`lift_all`] replaced: bytes `at..end` of the input, by `len`
/// bytes of the value of parameter `value` (an index into `values`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Splice {
    pub at: usize,
    pub end: usize,
    pub len: usize,
    pub value: usize,
}

/// [`lift_all`], and the replacements it made, from the first to the last.
pub(crate) fn lift_spliced(input: &[u8], values: &[(&Param, &Value)], command_line: bool) -> (Vec<u8>, Vec<Splice>) {
    let line = if command_line { input.iter().position(|&b| b == b'\n').unwrap_or(input.len()) } else { 0 };
    // A line whose quotes do not balance splits at blanks alone: nothing
    // to escape there.
    let shell = command_line && shell::words(&input[..line]).is_some();
    let mut subs: Vec<(usize, usize, usize)> = values
        .iter()
        .enumerate()
        .flat_map(|(k, &(p, _))| p.occurrences.iter().map(move |&(at, len)| (at as usize, (at + len) as usize, k)))
        .collect();
    // Lengths of what another value replaces: applied to that value.
    let mut lengths = std::collections::HashMap::new();
    subs.retain(|&(at, end, k)| {
        let (p, v) = values[k];
        match v {
            Value::Int(n) if p.encoding == Encoding::Length && subs_other(values, k, at, end) => {
                lengths.insert((at, end), (*n).clamp(0, MAX_LENGTH) as usize);
                false
            }
            _ => true,
        }
    });
    // From the last to the first; of two at the same place, the empty
    // one last, so that what it inserts goes in front of the other's
    // text (a sign in front of its digits).
    subs.sort_by_key(|s| (std::cmp::Reverse(s.0), s.0 == s.1));
    let mut out = input.to_vec();
    let mut done = Vec::new();
    let mut limit = usize::MAX;
    for (at, end, k) in subs {
        let (p, v) = values[k];
        if end <= out.len() && end <= limit {
            // (An empty occurrence at the line's end is a new last word.)
            let in_the_line = at < line || at == line && end == at;
            // A value the parameter already has stays as it is written
            // (unless a length resizes it).
            let resized = p.encoding == Encoding::Length || lengths.contains_key(&(at, end));
            if in_the_line && p.text(v) == p.original && !resized {
                continue;
            }
            let mut text = p.text_over(v, &out[at..end]);
            if let Some(&n) = lengths.get(&(at, end)) {
                text = model::unit::resized(&text, n);
            }
            if shell && in_the_line {
                text = in_line(&out, at, end, p, v, text);
            }
            // A value that leaves its bytes as they are takes no place:
            // another one over them (a string whose numbers are values
            // of their own) is still written.
            if text == out[at..end] {
                continue;
            }
            done.push(Splice { at, end, len: text.len(), value: k });
            out.splice(at..end, text);
            limit = at;
        }
    }
    done.reverse();
    let spliced: Vec<_> = done.iter().map(|s| model::fields::Splice { at: s.at, end: s.end, len: s.len }).collect();
    model::fields::fix(input, &mut out, &spliced);
    http::fix_content_length(input, &mut out, &mut done);
    (out, done)
}

/// `value` of `param` (its `text` in the input) written in place of
/// `at..end` of the command line `out` starts with.
fn in_line(out: &[u8], at: usize, end: usize, param: &Param, value: &Value, text: Vec<u8>) -> Vec<u8> {
    let quote = shell::quoting_at(&out[..at]);
    if let Site::NewWord { .. } = param.site {
        // A new word after a blank; an empty one is no word.
        let word = value.text();
        return if word.is_empty() {
            word
        } else {
            [&b" "[..], &shell::escape_in(&word, Quote::None, true, true)].concat()
        };
    }
    let blank = |i: usize| matches!(out.get(i), Some(b' ' | b'\t' | b'\n') | None);
    shell::escape_in(&text, quote, at == 0 || blank(at - 1), blank(end))
}

/// Whether a parameter of `values` other than `k` has occurrence
/// `at..end`.
fn subs_other(values: &[(&Param, &Value)], k: usize, at: usize, end: usize) -> bool {
    values.iter().enumerate().any(|(j, (p, _))| {
        j != k && p.occurrences.iter().any(|&(a, len)| a as usize == at && (a + len) as usize == end)
    })
}

/// The bytes a new value of `param` cannot hold and be lifted, when the
/// test's first line is the program's command line (`--args-in-input`):
/// a newline, which would end the line, where an occurrence is in it.
/// Anything else is written as its place in the line needs ([`lift_all`]); but
/// in a line whose quotes do not balance, which splits at blanks alone,
/// neither a blank, a quote, a backslash nor a `#` can be.
pub fn unliftable_bytes(input: &[u8], param: &Param) -> Vec<u8> {
    let line = input.iter().position(|&b| b == b'\n').unwrap_or(input.len());
    // What starts at the line's end and is empty is a new last word.
    let in_line = |&(at, len): &(u64, u64)| at < line as u64 || at == line as u64 && len == 0;
    if !param.occurrences.iter().any(in_line) {
        return Vec::new();
    }
    if shell::words(&input[..line]).is_some() {
        b"\n".to_vec()
    } else {
        b"\t\n \"#'\\".to_vec()
    }
}

/// Runs `lifted` through `system` and classifies it against `cov`, the
/// system-level coverage so far (which it updates).
pub fn check(system: &mut ForkServer, cov: &mut Coverage, lifted: &[u8]) -> Result<(Class, Outcome), exec::Error> {
    let outcome = system.run(lifted)?;
    let newness = cov.add(system.map());
    let class = match outcome {
        Outcome::Crash(_) | Outcome::Timeout => Class::TrueAlarm,
        _ if newness == Newness::NewEdges => Class::CoverageLift,
        _ => Class::FalseAlarm,
    };
    Ok((class, outcome))
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::unit::Encoding;

    #[test]
    fn every_occurrence_is_replaced_and_lengths_may_change() {
        let p = Param {
            site: Site::Arg { index: 0, size: 4 },
            encoding: Encoding::Decimal,
            occurrences: vec![(4, 2), (10, 2)],
            original: b"12".to_vec(),
            excluded: Vec::new(),
            room: 0,
        };
        assert_eq!(
            lift(b"len 12\nn  12\n", &p, &Value::Int(i32::MIN as i64), false),
            b"len -2147483648\nn  -2147483648\n"
        );
        let s = Param {
            site: Site::Stream { object: 0 },
            encoding: Encoding::Raw,
            occurrences: vec![(0, 3)],
            original: b"abc".to_vec(),
            excluded: Vec::new(),
            room: 0,
        };
        assert_eq!(lift(b"abc!", &s, &Value::Bytes(b"xy\0z".to_vec()), false), b"xy!", "a string ends at its NUL");
        let n = Param { occurrences: vec![(4, 2)], ..p.clone() };
        let w = Param { occurrences: vec![(7, 3)], ..s.clone() };
        let both = lift_all(b"len 12\nabc!", &[(&n, &Value::Int(7)), (&w, &Value::Bytes(b"q".to_vec()))], false);
        assert_eq!(both, b"len 7\nq!", "each at its own occurrences");
    }

    /// A string whose bytes hold numbers that are parameters of their own
    /// (a macro with its numbers, each with its sign): the string's new
    /// value is written when theirs leave the input as it is, and a new
    /// value of theirs when the string's does.
    #[test]
    fn values_left_as_they_are_do_not_keep_a_string_over_them_from_its_own() {
        let string = Param {
            site: Site::Bytes { object: 2, offset: 0, len: 5, nul: true },
            encoding: Encoding::Raw,
            occurrences: vec![(1, 5)],
            original: b"1p 2p".to_vec(),
            excluded: Vec::new(),
            room: 0,
        };
        let sign = |at| Param {
            site: Site::Bytes { object: 0, offset: 0, len: 4, nul: false },
            encoding: Encoding::Sign { mark: b'_' },
            occurrences: vec![(at, 0)],
            original: Vec::new(),
            excluded: Vec::new(),
            room: 0,
        };
        let (first, second) = (sign(1), sign(4));
        let (plus, minus) = (Value::Bytes(vec![0; 4]), Value::Bytes(vec![1, 0, 0, 0]));
        let bang = Value::Bytes(b"!p 2p".to_vec());
        let same = Value::Bytes(b"1p 2p".to_vec());
        let input = b"[1p 2p]x\n";
        let all = |s: &Value, a: &Value, b: &Value| lift_all(input, &[(&string, s), (&first, a), (&second, b)], false);
        assert_eq!(all(&bang, &plus, &plus), b"[!p 2p]x\n");
        assert_eq!(all(&same, &plus, &minus), b"[1p _2p]x\n");
        assert_eq!(all(&same, &plus, &plus), input);
    }

    /// A sign's empty occurrence in front of its digits' occurrence: the
    /// mark goes in front of the new digits; a mark there is taken out.
    #[test]
    fn a_sign_is_put_in_front_of_its_digits_or_taken_out() {
        let digits = |at| Param {
            site: Site::Bytes { object: 1, offset: 0, len: 2, nul: false },
            encoding: Encoding::Digits { reversed: false, ascii: false },
            occurrences: vec![(at, 2)],
            original: b"12".to_vec(),
            excluded: Vec::new(),
            room: 0,
        };
        let sign = |occurrence, original: &[u8]| Param {
            site: Site::Bytes { object: 0, offset: 0, len: 4, nul: false },
            encoding: Encoding::Sign { mark: b'_' },
            occurrences: vec![occurrence],
            original: original.to_vec(),
            excluded: Vec::new(),
            room: 0,
        };
        let (minus, plus) = (Value::Bytes(vec![1, 0, 0, 0]), Value::Bytes(vec![0; 4]));
        let new = Value::Bytes(vec![4, 5]);
        // The sign listed before the digits and after them alike.
        let (d, s) = (digits(0), sign((0, 0), b""));
        assert_eq!(lift_all(b"12 3", &[(&s, &minus), (&d, &new)], false), b"_45 3");
        assert_eq!(lift_all(b"12 3", &[(&d, &new), (&s, &minus)], false), b"_45 3");
        assert_eq!(lift(b"12 3", &s, &minus, false), b"_12 3");
        let (d, s) = (digits(1), sign((0, 1), b"_"));
        assert_eq!(lift_all(b"_12 3", &[(&s, &plus), (&d, &new)], false), b"45 3");
        assert!(!s.liftable(&Value::Bytes(vec![2, 0, 0, 0])) && !s.liftable(&Value::Bytes(vec![0, 0, 0, 1])));
    }

    #[test]
    fn command_line_values_keep_their_shell_word() {
        let input = b"-e 's/a/b/' -n x \"y\\\"z\"\nbody s/a/b/\n";
        let at = |frag: &[u8]| input.windows(frag.len()).position(|w| w == frag).unwrap() as u64;
        let p = |occurrences: Vec<(u64, u64)>| Param {
            site: Site::Stream { object: 0 },
            encoding: Encoding::Raw,
            occurrences,
            original: b"?".to_vec(),
            excluded: Vec::new(),
            room: 0,
        };
        for frag in [&b"s/a"[..], b"x ", b"z\""] {
            assert_eq!(unliftable_bytes(input, &p(vec![(at(frag), 1)])), b"\n");
        }
        assert!(unliftable_bytes(input, &p(vec![(at(b"body") + 5, 5)])).is_empty(), "the content is free");
        let args = |test: &[u8]| exec::split_test(test).0;
        let lifted = |occ, v: &[u8]| lift(input, &p(occ), &Value::Bytes(v.to_vec()), true);
        // In single quotes, bare, in double quotes; the content as it is.
        let v = b"it's a \"\\$`#";
        assert_eq!(args(&lifted(vec![(at(b"s/a"), 5)], v))[1], [v, &b"/"[..]].concat());
        assert_eq!(args(&lifted(vec![(at(b"x "), 1)], v))[3], v);
        assert_eq!(args(&lifted(vec![(at(b"z\""), 1)], v))[4], [&b"y\""[..], v].concat());
        assert!(lifted(vec![(at(b"body") + 5, 5)], v).ends_with(&[&b"body "[..], v, b"/\n"].concat()));
        // An empty value that is a whole word stays a word.
        assert_eq!(args(&lifted(vec![(at(b"-n"), 2)], b"")), [&b"-e"[..], b"s/a/b/", b"", b"x", b"y\"z"]);
        assert_eq!(args(&lifted(vec![(at(b"-n"), 1)], b"")), [&b"-e"[..], b"s/a/b/", b"n", b"x", b"y\"z"]);
        // A value a word already has stays as it is written.
        let same = Param { original: b"s/a/b/".to_vec(), ..p(vec![(at(b"'s/a"), 8)]) };
        assert_eq!(lift(input, &same, &Value::Bytes(b"s/a/b/".to_vec()), true), input);
        // Nothing is escaped without a command line.
        let raw = lift(input, &p(vec![(at(b"x "), 1)]), &Value::Bytes(b"a b".to_vec()), false);
        assert_eq!(args(&raw), [&b"-e"[..], b"s/a/b/", b"-n", b"a", b"b", b"y\"z"]);
    }

    #[test]
    fn characters_no_shell_expands_inside_a_word_stay_bare() {
        let input = b"-e 7z @@\nbody";
        let p = Param {
            site: Site::Stream { object: 0 },
            encoding: Encoding::Raw,
            occurrences: vec![(3, 1)],
            original: b"7".to_vec(),
            excluded: Vec::new(),
            room: 0,
        };
        let lifted = |v: &[u8]| lift(input, &p, &Value::Bytes(v.to_vec()), true);
        assert_eq!(lifted(b"1~5"), b"-e 1~5z @@\nbody");
        assert_eq!(lifted(b"/^a=%/"), b"-e /^a=%/z @@\nbody");
        // A tilde that would start the word, a blank or a `*` are quoted.
        assert_eq!(lifted(b"~5"), b"-e '~5'z @@\nbody");
        assert_eq!(lifted(b"a b*"), b"-e 'a b*'z @@\nbody");
        // Nothing before the rest of a word is nothing; a whole word, ''.
        assert_eq!(lifted(b""), b"-e z @@\nbody");
        let whole = Param { occurrences: vec![(3, 2)], original: b"7z".to_vec(), ..p.clone() };
        assert_eq!(lift(input, &whole, &Value::Bytes(Vec::new()), true), b"-e '' @@\nbody");
        assert_eq!(written(input, &whole, &Value::Bytes(b"a b".to_vec()), true), b"'a b'");
        assert_eq!(written(input, &whole, &Value::Bytes(b"7z".to_vec()), true), b"7z");
        // Single quotes unless the text holds one.
        assert_eq!(lifted(b"s/\\(a\\)/\\1/"), b"-e 's/\\(a\\)/\\1/'z @@\nbody");
        assert_eq!(lifted(b"2,4d"), b"-e 2,4dz @@\nbody");
        assert_eq!(lifted(b"it's"), b"-e \"it's\"z @@\nbody");
        for v in [&b"1~5"[..], b"/^a=%/", b"~5", b"a b*", b"", b"s/\\(a\\)/\\1/", b"it's", b"a\\'b\"$"] {
            assert_eq!(exec::split_test(&lifted(v)).0[1], [v, b"z"].concat());
        }
    }

    #[test]
    fn a_line_whose_quotes_do_not_balance_splits_at_blanks() {
        let input = b"-e 'open x\nbody";
        let p = Param {
            site: Site::Stream { object: 0 },
            encoding: Encoding::Raw,
            occurrences: vec![(9, 1)],
            original: Vec::new(),
            excluded: Vec::new(),
            room: 0,
        };
        assert_eq!(unliftable_bytes(input, &p), b"\t\n \"#'\\");
        assert_eq!(lift(input, &p, &Value::Bytes(b"y".to_vec()), true), b"-e 'open y\nbody");
    }

    #[test]
    fn a_new_word_goes_at_the_end_of_the_command_line_after_a_blank() {
        let input = b"-s @@\na\nb\n\n";
        let line = 5;
        let p = Param {
            site: Site::NewWord { argv: 0, word: 3, slot: 1 },
            encoding: Encoding::Raw,
            occurrences: vec![(line, 0)],
            original: Vec::new(),
            excluded: Vec::new(),
            room: 16,
        };
        assert_eq!(unliftable_bytes(input, &p), b"\n");
        let file = Param { site: Site::InputFile, occurrences: vec![(line + 1, 5)], ..p.clone() };
        let both =
            lift_all(input, &[(&p, &Value::Bytes(b"-c\0x".to_vec())), (&file, &Value::Bytes(b"z".to_vec()))], true);
        assert_eq!(both, b"-s @@ -c\nz");
        assert_eq!(lift(input, &p, &Value::Bytes(vec![0; 4]), true), input, "an empty word is no word");
        assert_eq!(lift(input, &p, &Value::Bytes(b"a b".to_vec()), true), b"-s @@ 'a b'\na\nb\n\n");
    }

    #[test]
    fn a_length_resizes_its_node_and_the_new_text_of_a_string_there() {
        let input = b"name abc; next";
        let at = (5, 3);
        let len = Param {
            site: Site::Arg { index: 1, size: 4 },
            encoding: Encoding::Length,
            occurrences: vec![at],
            original: b"3".to_vec(),
            excluded: Vec::new(),
            room: 0,
        };
        assert_eq!(lift(input, &len, &Value::Int(5), false), b"name abcab; next");
        assert_eq!(lift(input, &len, &Value::Int(1), false), b"name a; next");
        assert!(!len.liftable(&Value::Int(-1)) && !len.liftable(&Value::Int(MAX_LENGTH + 1)));
        // With the string it is the length of: the new string, resized.
        let word = Param { site: Site::Arg { index: 0, size: 8 }, encoding: Encoding::Raw, ..len.clone() };
        let both = lift_all(input, &[(&len, &Value::Int(4)), (&word, &Value::Bytes(b"xy".to_vec()))], false);
        assert_eq!(both, b"name xyxy; next");
    }

    #[test]
    fn a_binary_integer_is_written_in_place_and_the_input_keeps_its_length() {
        // A TLV title record: type 1, length 9 (big endian), the title.
        let input = b"TLV\x01\x01\x00\x09inventory\x02\x00\x09\x05apples12 red.....";
        let p = Param {
            site: Site::Arg { index: 1, size: 4 },
            encoding: Encoding::Binary { width: 2, big_endian: true },
            occurrences: vec![(5, 2), (17, 2)],
            original: vec![0x00, 0x09],
            excluded: Vec::new(),
            room: 0,
        };
        let lifted = lift(input, &p, &Value::Int(48), false);
        assert_eq!(lifted.len(), input.len());
        assert_eq!((&lifted[4..8], &lifted[16..20]), (&b"\x01\x00\x30i"[..], &b"\x02\x00\x30\x05"[..]));
        let le = Param { encoding: Encoding::Binary { width: 2, big_endian: false }, ..p.clone() };
        assert_eq!(&lift(input, &le, &Value::Int(-2), false)[5..7], b"\xfe\xff");
        assert!(!le.liftable(&Value::Int(65536)));
        assert_eq!(written(input, &p, &Value::Int(0x1234), false), b"\x12\x34");
    }
}
