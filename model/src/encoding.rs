//! How a parameter's value stands in the system input ([`Encoding`]), and
//! the writers of the encodings a program decodes on the way:
//! percent-encoding, JSON escapes, SQL quoting; and binary integers.

use serde::{Deserialize, Serialize};

/// How the value appears in the system input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Encoding {
    /// Decimal text of a (signed) integer.
    Decimal,
    /// The bytes themselves.
    Raw,
    /// A digit array: one byte per decimal digit, holding the digit's
    /// value (`c - '0'`), as dc and bc keep their numbers, or its
    /// character when `ascii`; most significant first, or least
    /// significant first when `reversed`. Written into the input as the
    /// digits' text.
    Digits {
        reversed: bool,
        #[serde(default, skip_serializing_if = "is_false")]
        ascii: bool,
    },
    /// The length of the text at its occurrence: with a grammar, a
    /// derivation node's (`strlen` of a token, the count passed beside a
    /// pointer; see `carver::align`); without one, the count passed beside
    /// a pointer to bytes of the input (a harness's `size`; see
    /// `carver::counts`). Written by resizing that text: cut, or repeated
    /// from its start (`ab` of length 5 is `ababa`).
    Length,
    /// The bytes, percent-encoded where they occur (a query string or a
    /// form body, which the program decodes): written with `+` for a
    /// blank and `%XX` for any byte but letters, digits and `-._~`.
    Percent,
    /// The bytes, as the contents of a JSON string (escapes decoded by
    /// the program): written with JSON's escapes, non-ASCII characters as
    /// `\uXXXX`. Only UTF-8 text can be written so.
    Json,
    /// An SQL string literal (`'it''s'`: in single quotes, a quote inside
    /// doubled), as an application that quotes builds it and SQLite's
    /// parser sees it, whose inside occurs in the input written `within`.
    /// Written as its inside, encoded so. A value that is no well-formed
    /// literal cannot be written: the application makes no other.
    Quoted { within: Within },
    /// An integer written as `width` bytes (1, 2, 4 or 8) in the given
    /// byte order, as a binary format's field holds it: only a value that
    /// fits them (as unsigned or as two's complement) can be written. Read
    /// back zero-extended when narrower than the argument (see
    /// `Param::original_int`).
    Binary { width: u8, big_endian: bool },
    /// The sign of a number a program keeps as a digit array beside a
    /// sign field (bc's and dc's `n_sign`: 0 for plus, 1 for minus): the
    /// character `mark` (`-`, or dc's `_`) in front of the digits, or
    /// nothing. The value is the field's bytes; written as `mark` when
    /// any of them is not 0, else as nothing.
    Sign { mark: u8 },
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// How the inside of an [`Encoding::Quoted`] literal is written in the
/// input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Within {
    Raw,
    Percent,
    Json,
}

impl Within {
    /// The one that writes as `encoding` does; `None` for the encodings
    /// a literal's inside is never found in.
    pub fn of(encoding: Encoding) -> Option<Within> {
        match encoding {
            Encoding::Raw => Some(Within::Raw),
            Encoding::Percent => Some(Within::Percent),
            Encoding::Json => Some(Within::Json),
            _ => None,
        }
    }

    fn encoding(self) -> Encoding {
        match self {
            Within::Raw => Encoding::Raw,
            Within::Percent => Encoding::Percent,
            Within::Json => Encoding::Json,
        }
    }
}

impl Encoding {
    /// Its name, as listings print it.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Decimal => "decimal",
            Encoding::Raw => "raw",
            Encoding::Digits { ascii: false, .. } => "digits",
            Encoding::Digits { ascii: true, .. } => "ascii-digits",
            Encoding::Length => "length",
            Encoding::Percent => "percent",
            Encoding::Json => "json",
            Encoding::Quoted { .. } => "quoted",
            Encoding::Binary { .. } => "binary",
            Encoding::Sign { .. } => "sign",
        }
    }

    /// The bytes a value written in this encoding cannot hold and stay
    /// what the program decodes: with percent-encoding and JSON, anything
    /// not ASCII (a decoder of UTF-8 text would replace a lone byte).
    pub fn unwritable(self) -> Vec<u8> {
        match self {
            Encoding::Percent | Encoding::Json => (0x80..=0xff).collect(),
            Encoding::Quoted { within } => within.encoding().unwritable(),
            _ => Vec::new(),
        }
    }

    /// A string's bytes as this encoding writes them, for the encodings a
    /// program decodes on the way (percent, JSON, quoted); `None` for the
    /// others, and for a value that is no literal where one is quoted.
    pub fn write_string(self, b: &[u8]) -> Option<Vec<u8>> {
        match self {
            Encoding::Percent => Some(percent_encoded(trimmed(b))),
            Encoding::Json => Some(json_escaped(trimmed(b))),
            Encoding::Quoted { within } => {
                let inside = sql_unquoted(up_to_nul(b))?;
                match within {
                    Within::Raw => Some(inside),
                    w => w.encoding().write_string(&inside),
                }
            }
            _ => None,
        }
    }
}

/// Whether `n` fits `width` bytes, as an unsigned number or as a signed
/// one (two's complement): width 1 holds -128 to 255.
pub fn fits_binary(n: i64, width: u8) -> bool {
    match width {
        0 => false,
        8.. => true,
        w => {
            let bits = 8 * u32::from(w);
            (-(1i64 << (bits - 1))..1i64 << bits).contains(&n)
        }
    }
}

/// The low `width` bytes of `n` in the given byte order (what a program
/// that reads them as its field gets back, modulo the width).
pub fn binary_bytes(n: i64, width: u8, big_endian: bool) -> Vec<u8> {
    let le = n.to_le_bytes();
    let mut b = le[..usize::from(width.min(8))].to_vec();
    if big_endian {
        b.reverse();
    }
    b
}

/// The unsigned number `bytes` (at most 8) hold in the given byte order.
pub fn binary_value(bytes: &[u8], big_endian: bool) -> u64 {
    let mut le = [0u8; 8];
    for (k, &b) in bytes.iter().take(8).enumerate() {
        le[if big_endian { bytes.len().min(8) - 1 - k } else { k }] = b;
    }
    u64::from_le_bytes(le)
}

/// `bytes` percent-encoded as a query string or a form body has them.
pub fn percent_encoded(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b' ' => out.push(b'+'),
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => out.push(b),
            _ => out.extend_from_slice(format!("%{b:02X}").as_bytes()),
        }
    }
    out
}

/// UTF-8 `bytes` as the contents of a JSON string (what is not UTF-8 is
/// written as the replacement character: see `Param::liftable`).
pub fn json_escaped(bytes: &[u8]) -> Vec<u8> {
    let mut out = String::with_capacity(bytes.len());
    for c in String::from_utf8_lossy(bytes).chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
    }
    out.into_bytes()
}

/// The inside of SQL string literal `text` (`'it''s'` is `it's`); `None`
/// when it is no literal, or more than one.
pub fn sql_unquoted(text: &[u8]) -> Option<Vec<u8>> {
    let inside = text.strip_prefix(b"'")?.strip_suffix(b"'")?;
    let mut out = Vec::with_capacity(inside.len());
    let mut i = 0;
    while i < inside.len() {
        if inside[i] == b'\'' {
            if inside.get(i + 1) != Some(&b'\'') {
                return None;
            }
            i += 1;
        }
        out.push(inside[i]);
        i += 1;
    }
    Some(out)
}

/// `inside` as an SQL string literal, a quote doubled.
pub fn sql_quoted(inside: &[u8]) -> Vec<u8> {
    let mut out = vec![b'\''];
    for &b in inside {
        out.push(b);
        if b == b'\'' {
            out.push(b);
        }
    }
    out.push(b'\'');
    out
}

/// A C string's bytes: up to its first NUL.
pub(crate) fn up_to_nul(b: &[u8]) -> &[u8] {
    &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())]
}

/// A string's bytes as an encoding that can write a NUL (`%00`,
/// `\u0000`) writes them: the NULs at the end left out (a string the value
/// shortened), the ones inside kept, since the program gets them all (a
/// JSON string handed on with its length: a checksum over it counts the
/// bytes past a NUL).
pub(crate) fn trimmed(b: &[u8]) -> &[u8] {
    &b[..b.iter().rposition(|&c| c != 0).map_or(0, |k| k + 1)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sql_literals_are_read_and_written_with_their_quotes_doubled() {
        assert_eq!(sql_unquoted(b"'it''s'").as_deref(), Some(&b"it's"[..]));
        assert_eq!(sql_unquoted(b"''").as_deref(), Some(&b""[..]));
        assert_eq!(sql_unquoted(b"''''").as_deref(), Some(&b"'"[..]));
        for bad in [&b"'it's'"[..], b"'a", b"a'", b"'", b"'a' || 'b'", b"it"] {
            assert_eq!(sql_unquoted(bad), None, "{}", String::from_utf8_lossy(bad));
        }
        for inside in [&b"it's"[..], b"", b"''", b"a b%"] {
            assert_eq!(sql_unquoted(&sql_quoted(inside)).as_deref(), Some(inside));
        }
    }

    #[test]
    fn a_literal_is_written_as_its_inside_in_the_encoding_of_its_place() {
        let q = |within| Encoding::Quoted { within };
        assert_eq!(q(Within::Percent).write_string(b"'it''s new'\0junk").as_deref(), Some(&b"it%27s+new"[..]));
        assert_eq!(q(Within::Json).write_string(b"'say \"hi\"'").as_deref(), Some(&br#"say \"hi\""#[..]));
        assert_eq!(q(Within::Raw).write_string(b"'a''b'").as_deref(), Some(&b"a'b"[..]));
        assert_eq!(q(Within::Percent).write_string(b"'it's'"), None);
        assert_eq!(q(Within::Percent).unwritable(), Encoding::Percent.unwritable());
        assert_eq!(Encoding::Raw.write_string(b"x"), None);
    }

    #[test]
    fn binary_integers_are_their_low_bytes_in_either_order() {
        assert_eq!(binary_bytes(48, 2, true), [0x00, 0x30]);
        assert_eq!(binary_bytes(48, 2, false), [0x30, 0x00]);
        assert_eq!(binary_bytes(-2, 4, true), [0xff, 0xff, 0xff, 0xfe]);
        assert_eq!(binary_bytes(0x0102_0304_0506_0708, 8, false), [8, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(binary_bytes(200, 1, false), [200]);
        for (bytes, be, n) in
            [(&[0x00, 0x30][..], true, 48), (&[0x30, 0x00], false, 48), (&[0xff; 4], true, 0xffff_ffff), (&[], true, 0)]
        {
            assert_eq!(binary_value(bytes, be), n, "{bytes:?}");
        }
        assert_eq!(binary_value(&binary_bytes(-1, 8, true), true) as i64, -1);
    }

    #[test]
    fn a_binary_width_holds_its_unsigned_and_its_signed_range() {
        let limits = [(1, -128, 255), (2, -32768, 65535), (4, i32::MIN as i64, u32::MAX as i64)];
        for (width, lo, hi) in limits {
            assert!(fits_binary(lo, width) && fits_binary(hi, width) && fits_binary(0, width), "{width}");
            assert!(!fits_binary(lo - 1, width) && !fits_binary(hi + 1, width), "{width}");
        }
        assert!(fits_binary(i64::MIN, 8) && fits_binary(i64::MAX, 8));
        assert!(!fits_binary(0, 0));
    }

    #[test]
    fn encodings_read_as_unit_files_and_campaigns_wrote_them() {
        let read = |json: &str| serde_json::from_str::<Encoding>(json).unwrap();
        assert_eq!(read(r#""Decimal""#), Encoding::Decimal);
        assert_eq!(read(r#"{"Digits":{"reversed":true}}"#), Encoding::Digits { reversed: true, ascii: false });
        let ascii = Encoding::Digits { reversed: false, ascii: true };
        assert_eq!(read(&serde_json::to_string(&ascii).unwrap()), ascii);
        assert_eq!(read(r#"{"Quoted":{"within":"Json"}}"#), Encoding::Quoted { within: Within::Json });
        let binary = Encoding::Binary { width: 2, big_endian: true };
        let json = serde_json::to_string(&binary).unwrap();
        assert_eq!(json, r#"{"Binary":{"width":2,"big_endian":true}}"#);
        assert_eq!(read(&json), binary);
        let sign = Encoding::Sign { mark: b'_' };
        assert_eq!(read(&serde_json::to_string(&sign).unwrap()), sign);
    }
}
