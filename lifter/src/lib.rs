//! Lifter: writes a unit-level value back into the system input at the
//! parameter's mapped offsets, re-runs the whole program, and says what the
//! value is worth at system level: a true alarm (the failure reproduces), a
//! coverage lift (new system-level edges), or a false alarm.

use exec::{Coverage, ForkServer, Newness, Outcome};
use model::unit::{Param, Value};

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
pub fn lift(input: &[u8], param: &Param, value: &Value) -> Vec<u8> {
    let text = param.text(value);
    let mut out = input.to_vec();
    let mut occ = param.occurrences.clone();
    occ.sort_unstable();
    for &(at, len) in occ.iter().rev() {
        let (at, end) = (at as usize, (at + len) as usize);
        if end <= out.len() {
            out.splice(at..end, text.iter().copied());
        }
    }
    out
}

/// `input` with several parameters replaced at once (their occurrences,
/// from the last to the first; one that overlaps a later one is left).
pub fn lift_all(input: &[u8], values: &[(&Param, &Value)]) -> Vec<u8> {
    let mut subs: Vec<(usize, usize, Vec<u8>)> = values
        .iter()
        .flat_map(|(p, v)| {
            let text = p.text(v);
            p.occurrences.iter().map(move |&(at, len)| (at as usize, (at + len) as usize, text.clone()))
        })
        .collect();
    subs.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = input.to_vec();
    let mut limit = usize::MAX;
    for (at, end, text) in subs {
        if end <= out.len() && end <= limit {
            out.splice(at..end, text);
            limit = at;
        }
    }
    out
}

/// The bytes a new value of `param` cannot hold and be lifted, when the
/// test's first line is the program's command line (`--args-in-input`):
/// a newline anywhere in it, and at each occurrence in it what would end
/// or change the shell word it sits in (a blank, quote, backslash or `#`
/// outside quotes; the closing quote inside quotes), the same at the end
/// of the line for a new word there.
pub fn unliftable_bytes(input: &[u8], param: &Param) -> Vec<u8> {
    let line = input.iter().position(|&b| b == b'\n').unwrap_or(input.len());
    let mut out = Vec::new();
    for &(at, len) in &param.occurrences {
        let at = at as usize;
        // What starts at the line's end and is empty is a new last word.
        if at > line || at == line && len > 0 {
            continue;
        }
        let extra: &[u8] = match quoting_at(&input[..at]) {
            Quote::None => b"\n \t'\"\\#",
            Quote::Single => b"\n'",
            Quote::Double => b"\n\"\\$`",
        };
        out.extend_from_slice(extra);
    }
    out.sort_unstable();
    out.dedup();
    out
}

enum Quote {
    None,
    Single,
    Double,
}

/// The shell quoting in force after `line`.
fn quoting_at(line: &[u8]) -> Quote {
    let (mut q, mut i) = (Quote::None, 0);
    while i < line.len() {
        match (&q, line[i]) {
            (Quote::None | Quote::Double, b'\\') => i += 1,
            (Quote::None, b'\'') => q = Quote::Single,
            (Quote::None, b'"') => q = Quote::Double,
            (Quote::Single, b'\'') | (Quote::Double, b'"') => q = Quote::None,
            _ => {}
        }
        i += 1;
    }
    q
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
    use model::unit::{Encoding, Site};

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
        assert_eq!(lift(b"len 12\nn  12\n", &p, &Value::Int(i32::MIN as i64)), b"len -2147483648\nn  -2147483648\n");
        let s = Param {
            site: Site::Stream { object: 0 },
            encoding: Encoding::Raw,
            occurrences: vec![(0, 3)],
            original: b"abc".to_vec(),
            excluded: Vec::new(),
            room: 0,
        };
        assert_eq!(lift(b"abc!", &s, &Value::Bytes(b"xy\0z".to_vec())), b"xy!", "a string ends at its NUL");
        let n = Param { occurrences: vec![(4, 2)], ..p.clone() };
        let w = Param { occurrences: vec![(7, 3)], ..s.clone() };
        let both = lift_all(b"len 12\nabc!", &[(&n, &Value::Int(7)), (&w, &Value::Bytes(b"q".to_vec()))]);
        assert_eq!(both, b"len 7\nq!", "each at its own occurrences");
    }

    #[test]
    fn command_line_values_keep_their_shell_word() {
        let input = b"-e 's/a/b/' -n x \"y\\\"z\"\nbody s/a/b/\n";
        let at = |frag: &[u8]| input.windows(frag.len()).position(|w| w == frag).unwrap() as u64;
        let p = |occurrences: Vec<(u64, u64)>| Param {
            site: Site::Stream { object: 0 },
            encoding: Encoding::Raw,
            occurrences,
            original: Vec::new(),
            excluded: Vec::new(),
            room: 0,
        };
        assert_eq!(unliftable_bytes(input, &p(vec![(at(b"s/a"), 5)])), b"\n'");
        assert_eq!(unliftable_bytes(input, &p(vec![(at(b"x "), 1)])), b"\t\n \"#'\\");
        assert_eq!(unliftable_bytes(input, &p(vec![(at(b"z\""), 1)])), b"\n\"$\\`");
        assert!(unliftable_bytes(input, &p(vec![(at(b"body") + 5, 5)])).is_empty(), "the content is free");
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
        assert_eq!(unliftable_bytes(input, &p), b"\t\n \"#'\\");
        let file = Param { site: Site::InputFile, occurrences: vec![(line + 1, 5)], ..p.clone() };
        let both = lift_all(input, &[(&p, &Value::Bytes(b"-c\0x".to_vec())), (&file, &Value::Bytes(b"z".to_vec()))]);
        assert_eq!(both, b"-s @@ -c\nz");
        assert_eq!(lift(input, &p, &Value::Bytes(vec![0; 4])), input, "an empty word is no word");
    }
}
