//! Room for numbers to grow in `main`'s input file. A unit's input file
//! keeps its length through an exploration (the solver writes its bytes,
//! one expression per file position), so a number can change but not get
//! longer: from `push 7 2` no solver reaches `push 7 4294967295`. Here
//! every number of the file gets leading zeros up to a width that holds
//! any 64-bit value (`2` becomes `000000000002`, `0x1f` becomes
//! `0x000000000000001f`), which most parsers read as the same value
//! (`strtol` and `sscanf` in base 10 or 16; not a fixed-width field or
//! base 0's octal), so the padded file takes the carved path and its zeros
//! are digits a solver can set. A decimal fraction's whole part (`0.45`)
//! grows by [`FRACTION_DIGITS`] only: prices and measures are often copied
//! into small buffers before they are read (`char euros[8]`), where twelve
//! digits would leave the carved path; four more digits take a value ten
//! thousand times as far, past the range checks such fields get.

use model::unit::{Param, Site, Unit, Value};

/// Digits of a padded decimal number: a sign and 11 digits hold any
/// 32-bit value, 12 digits any 40-bit one.
pub const DECIMAL_DIGITS: usize = 12;
/// Hex digits of a padded `0x` number: any 64-bit value.
pub const HEX_DIGITS: usize = 16;
/// Leading zeros a decimal fraction's whole part gets.
pub const FRACTION_DIGITS: usize = 4;

/// `file` with its numbers padded, its first `limit` bytes at most (the
/// symbolic part of a file); `None` when it has no number to pad there.
/// A number is a run of digits (or of hex digits after `0x`) that no
/// letter, digit, `_` or `.` touches: not part of a word, a version or an
/// address (`1.2.3`), or a hex string such as an Intel HEX record; or the
/// whole part of a decimal fraction (`12.5`, one dot, digits on both
/// sides), which grows by [`FRACTION_DIGITS`].
pub fn pad_numbers(file: &[u8], limit: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(file.len() + 64);
    let mut padded = false;
    let mut i = 0;
    while i < file.len() {
        let before = if i == 0 { None } else { Some(file[i - 1]) };
        let starts = file[i].is_ascii_digit() && !before.is_some_and(is_word);
        if !starts {
            out.push(file[i]);
            i += 1;
            continue;
        }
        let hex = file[i] == b'0' && matches!(file.get(i + 1), Some(b'x' | b'X'));
        let (digits_at, width) = if hex { (i + 2, HEX_DIGITS) } else { (i, DECIMAL_DIGITS) };
        let is_digit = |b: u8| if hex { b.is_ascii_hexdigit() } else { b.is_ascii_digit() };
        let end = digits_at + file[digits_at..].iter().take_while(|&&b| is_digit(b)).count();
        let whole = end > digits_at && !file.get(end).copied().is_some_and(is_word);
        out.extend_from_slice(&file[i..digits_at]);
        if !hex && !whole && end > digits_at {
            if let Some(past) = fraction_end(file, end) {
                if out.len() + FRACTION_DIGITS + (past - digits_at) <= limit {
                    out.resize(out.len() + FRACTION_DIGITS, b'0');
                    padded = true;
                }
                out.extend_from_slice(&file[digits_at..past]);
                i = past;
                continue;
            }
        }
        let grow = width.saturating_sub(end - digits_at);
        if whole && grow > 0 && out.len() + grow + (end - digits_at) <= limit {
            out.resize(out.len() + grow, b'0');
            padded = true;
        }
        out.extend_from_slice(&file[digits_at..end.max(digits_at)]);
        i = end.max(digits_at);
        if !whole {
            // The rest of the word is copied as it is.
            while i < file.len() && is_word(file[i]) {
                out.push(file[i]);
                i += 1;
            }
        }
    }
    padded.then_some(out)
}

/// Whether `b` belongs to a word around a number: a letter, digit, `_`
/// or `.`.
fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
}

/// Where a decimal fraction whose whole part ends at `end` ends: a dot,
/// digits, then no letter, digit, `_` or dot. `None`: no such fraction.
fn fraction_end(file: &[u8], end: usize) -> Option<usize> {
    if file.get(end) != Some(&b'.') {
        return None;
    }
    let digits = file[end + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
    let past = end + 1 + digits;
    (digits > 0 && !file.get(past).copied().is_some_and(is_word)).then_some(past)
}

/// Gives `unit`'s input file room for its numbers to grow (its content and
/// its `InputFile` parameter's carved value padded, see [`pad_numbers`]),
/// for its first `limit` bytes. False, and nothing changed, when the file
/// has no number to pad. The parameter's occurrence in the system input
/// stays the unpadded file, which a lifted value replaces whole.
pub fn pad_input_file(unit: &mut Unit, params: &mut [Param], limit: usize) -> bool {
    let Some(p) = params.iter_mut().find(|p| p.site == Site::InputFile) else { return false };
    let Some(padded) = pad_numbers(&p.original, limit) else { return false };
    let Some(patched) = crate::patch::apply(unit, &Site::InputFile, &Value::Bytes(padded.clone())) else {
        return false;
    };
    *unit = patched;
    p.original = padded;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pad(s: &str) -> String {
        String::from_utf8(pad_numbers(s.as_bytes(), usize::MAX).unwrap_or_else(|| b"(none)".to_vec())).unwrap()
    }

    #[test]
    fn numbers_get_leading_zeros_and_keep_their_value() {
        assert_eq!(pad("push 7 -1\n"), "push 000000000007 -000000000001\n");
        assert_eq!(pad("addr=0x1f len=4"), "addr=0x000000000000001f len=000000000004");
        assert_eq!(pad("de:ad:12"), "de:ad:000000000012");
        for t in ["push 7 -1\n", "n=0x1f,42;", "x 123456789012345 9"] {
            let p = pad(t);
            let nums = |s: &str| -> Vec<i128> {
                s.split(|c: char| !c.is_ascii_hexdigit() && c != 'x')
                    .filter(|w| !w.is_empty() && w.chars().next().unwrap().is_ascii_digit())
                    .map(|w| match w.strip_prefix("0x") {
                        Some(h) => i128::from_str_radix(h, 16).unwrap(),
                        None => w.parse().unwrap(),
                    })
                    .collect()
            };
            assert_eq!(nums(&p), nums(t), "{t} -> {p}");
        }
    }

    #[test]
    fn a_fraction_s_whole_part_grows_by_a_few_digits() {
        assert_eq!(pad("apples 3 0.45\n"), "apples 000000000003 00000.45\n");
        assert_eq!(pad("x=-2.5;"), "x=-00002.5;");
        assert_eq!(pad("1.5 v2.5"), "00001.5 v2.5");
        // Past the limit it stays as it is.
        assert_eq!(pad_numbers(b"1.5 7", 5), None);
    }

    #[test]
    fn words_versions_addresses_and_hex_records_are_left_alone() {
        for t in ["x86 v2.5 1.2.3", "127.0.0.1", "5.", "3.x", ":10FFE000EA5BE000F0000000FC\n", "abc_12 12ab", "0xZZ"] {
            assert_eq!(pad(t), "(none)", "{t}");
        }
        // Past the limit nothing grows.
        assert_eq!(pad_numbers(b"a 1 b 2", 3 + DECIMAL_DIGITS), Some(b"a 000000000001 b 2".to_vec()));
        assert_eq!(pad_numbers(b"a 1", 5), None);
    }
}
