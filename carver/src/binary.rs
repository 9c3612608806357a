//! Integer arguments found as binary bytes in the input (a binary
//! format's field: a record's type, a 16-bit big-endian length), for the
//! mapping when their decimal text is not there.
//!
//! Small numbers are everywhere in binary data, and the bytes of some are
//! text (`00 30` is a NUL and a `0`), so most places a value's bytes occur
//! are chance. A place mapped by chance costs a lift into bytes that mean
//! something else; the rules below keep those rare:
//! - only in a binary input (a control byte other than a blank, or bytes
//!   that are not UTF-8): in text, a value's bytes would match the text by
//!   chance, and a program that reads text reads no binary numbers;
//! - never 0, whose bytes are all zeros (padding, terminators, high bytes
//!   of every small field);
//! - widths 2, 4 and 8 up to the argument's size; narrower than the
//!   argument only a value that is not negative and fits the width
//!   unsigned (so it reads back zero-extended: `Param::original_int`),
//!   and as wide as the argument any value;
//! - at width 2, not a pair of text bytes (printable ASCII or blanks):
//!   the text inside binary formats (names, keys) holds any pair (four
//!   or eight such bytes that are the argument's value are a tag, as
//!   RIFF's `WAVE`, and no chance);
//! - width 1 only for a byte that is no text and occurs exactly once (a
//!   byte's value is met once in every 256 bytes by chance; text bytes far
//!   more often);
//! - at most [`MAX_OCCURRENCES`] places: more is a value common in the
//!   input (a fill byte, a count of 1), not the argument's one field.
//!
//! The widest width that has places wins (its bytes are the narrower
//! widths' too, and fewer match by chance); of its byte orders, the one
//! with fewer places (a chance match of the other order is likelier to
//! add places than to remove them), big endian on a tie (the order of
//! most file and wire formats). One parameter per argument: the explorer
//! makes the argument's bytes symbolic once.

use model::unit::{binary_bytes, Encoding, Param, Site};

/// Most places a binary value may have in the input and be mapped.
pub const MAX_OCCURRENCES: usize = 4;

/// Whether `input` is binary: it holds a control byte other than a blank
/// (tab, newline, vertical tab, form feed, carriage return), or is not
/// UTF-8.
pub fn is_binary(input: &[u8]) -> bool {
    input.iter().any(|&b| (b < 0x20 && !b"\t\n\x0b\x0c\r".contains(&b)) || b == 0x7f)
        || std::str::from_utf8(input).is_err()
}

/// A byte of text: printable ASCII or a blank.
fn is_text_byte(b: u8) -> bool {
    (0x20..0x7f).contains(&b) || b"\t\n\x0b\x0c\r".contains(&b)
}

/// Argument `index` (`size` bytes, signed value `value`) as a binary
/// integer of `input`, under the rules of this module; `None` when it is
/// not found so.
pub fn binary_int(index: u16, size: u8, value: i64, input: &[u8]) -> Option<Param> {
    if value == 0 || !is_binary(input) {
        return None;
    }
    for width in [8u8, 4, 2, 1].into_iter().filter(|&w| w <= size) {
        let fits = width == size || (0..1i128 << (8 * u32::from(width))).contains(&i128::from(value));
        if !fits {
            continue;
        }
        let orders: &[bool] = if width == 1 { &[true] } else { &[true, false] };
        let most = if width == 1 { 1 } else { MAX_OCCURRENCES };
        // (The first of the fewest: big endian on a tie.)
        let found = orders
            .iter()
            .filter_map(|&big_endian| {
                let bytes = binary_bytes(value, width, big_endian);
                if width <= 2 && bytes.iter().all(|&b| is_text_byte(b)) {
                    return None;
                }
                let occ = crate::mapping::find_all(input, &bytes);
                (!occ.is_empty() && occ.len() <= most).then(|| Param {
                    site: Site::Arg { index, size },
                    encoding: Encoding::Binary { width, big_endian },
                    occurrences: occ,
                    original: bytes,
                    excluded: Vec::new(),
                    room: 0,
                })
            })
            .min_by_key(|p| p.occurrences.len());
        if found.is_some() {
            return found;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::map;
    use model::snapshot::{Arg, ARG_INT};
    use model::unit::{Snapshot, Unit, Value};

    /// A unit of `f(…)` whose integer arguments are `args` (size, value).
    fn unit(args: &[(u8, i64)]) -> Unit {
        let args = args.iter().map(|&(size, v)| Arg { kind: ARG_INT, size, value: v as u64 }).collect();
        Unit { snapshot: Snapshot { args, ..Snapshot::default() }, ..Unit::default() }
    }

    /// A TLV file: magic, a title record of 48 bytes (type 1, length
    /// `00 30` big endian), an end record.
    fn tlv() -> Vec<u8> {
        [&b"TLV\x01\x01\x00\x30"[..], &[b'A'; 48], b"\x05\x00\x00"].concat()
    }

    #[test]
    fn a_big_endian_length_maps_to_its_two_bytes_and_lifts_in_place() {
        let input = tlv();
        let ps = map(&unit(&[(4, 48)]), &input);
        assert_eq!(ps.len(), 1, "{ps:?}");
        let p = &ps[0];
        assert_eq!(
            (&p.site, p.encoding, &p.occurrences[..], &p.original[..]),
            (
                &Site::Arg { index: 0, size: 4 },
                Encoding::Binary { width: 2, big_endian: true },
                &[(5, 2)][..],
                &[0, 0x30][..]
            )
        );
        assert_eq!(p.original_int(), Some(48));
        assert_eq!(p.text(&Value::Int(9)), [0, 9]);
    }

    #[test]
    fn little_endian_and_wider_fields_map_too() {
        let input = b"HDR\x00\x34\x12\x00\x00\xff\x10\x27\x01";
        let ps = map(&unit(&[(4, 0x1234), (2, 10000), (8, 0x1234)]), input);
        let found: Vec<_> = ps.iter().map(|p| (p.encoding, p.occurrences.clone())).collect();
        assert_eq!(
            found,
            [
                // As four bytes: the widest that holds it wins.
                (Encoding::Binary { width: 4, big_endian: false }, vec![(4, 4)]),
                (Encoding::Binary { width: 2, big_endian: false }, vec![(9, 2)]),
                (Encoding::Binary { width: 4, big_endian: false }, vec![(4, 4)]),
            ]
        );
        // A negative value as wide as its argument.
        let ps = map(&unit(&[(2, -2)]), b"\x01\xff\xfe\x02");
        assert_eq!(
            (ps[0].encoding, &ps[0].occurrences[..]),
            (Encoding::Binary { width: 2, big_endian: true }, &[(1, 2)][..])
        );
        assert_eq!(ps[0].original_int(), Some(-2));
        // Narrower than its argument, a negative value is not looked for.
        assert!(map(&unit(&[(4, -2)]), b"\x01\xff\xfe\x02").is_empty());
    }

    #[test]
    fn a_text_input_maps_no_binary_value() {
        // 48 is `0` as a byte, 0x3031 is `01`: chance in a text.
        for (size, v) in [(4, 48), (4, 0x3031), (1, 48)] {
            assert!(map(&unit(&[(size, v)]), b"x 0 y 01 z 10\n").is_empty(), "{v}");
        }
        assert!(!is_binary(b"x\t0\r\n\xc3\xa9\n") && is_binary(b"x\x000") && is_binary(b"x\xff"));
        // In a binary input, two text bytes are no 16-bit value either;
        // four are.
        let input = b"\x00\x01 key 01 \x00abcd";
        assert!(map(&unit(&[(4, 0x3031)]), input).is_empty());
        let ps = map(&unit(&[(4, 0x6162_6364)]), input);
        assert_eq!(ps[0].occurrences, [(11, 4)]);
    }

    #[test]
    fn zero_and_values_that_occur_too_often_are_not_mapped() {
        assert!(map(&unit(&[(4, 0)]), b"\x00\x00\x00\x00\x01").is_empty());
        let input = b"\x02\x00\x01\x02\x00\x01\x02\x00\x01\x02\x00\x01\x02\x00\x01";
        assert!(map(&unit(&[(4, 1)]), input).is_empty(), "five places");
        assert_eq!(map(&unit(&[(4, 1)]), &input[..12])[0].occurrences.len(), 4);
        // The order with fewer places: `01 00` is there once, `00 01` five times.
        let ps = map(&unit(&[(4, 1)]), &[&input[..], b"\x01\x00"].concat());
        let p = &ps[0];
        assert_eq!(
            (p.encoding, &p.occurrences[..]),
            (Encoding::Binary { width: 2, big_endian: false }, &[(15, 2)][..])
        );
    }

    #[test]
    fn one_byte_values_map_only_once_found_and_not_text() {
        // A type byte 0x05 once: found; 0x01 twice: not; 'A' (65) never.
        let input = tlv();
        let ps = map(&unit(&[(1, 5), (1, 1), (1, 65)]), &input);
        assert_eq!(ps.len(), 1, "{ps:?}");
        assert_eq!((&ps[0].site, &ps[0].occurrences[..]), (&Site::Arg { index: 0, size: 1 }, &[(55, 1)][..]));
        // An int holding a byte: two bytes first (`05 00`, the end
        // record's type and length), one when they are not there.
        assert_eq!(map(&unit(&[(4, 5)]), &input)[0].encoding, Encoding::Binary { width: 2, big_endian: false });
        let ps = map(&unit(&[(4, 5)]), &input[..56]);
        assert_eq!(
            (ps[0].encoding, &ps[0].occurrences[..]),
            (Encoding::Binary { width: 1, big_endian: true }, &[(55, 1)][..])
        );
    }
}
