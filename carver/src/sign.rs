//! The signs of numbers a program keeps as digit arrays beside a sign
//! field, for the mapping. bc's and dc's `bc_num` holds `n_sign` (0 for
//! plus, 1 for minus) in the struct that points at its digits
//! (`n_value`); the input writes the sign as a mark in front of the
//! digits (`-`, or dc's `_`), or not at all.
//!
//! For each digit array the mapping found (`digits.rs`), the objects that
//! point at it are looked in, in order, up to the first with a sign
//! field: the first 4-byte field before that pointer that is no pointer,
//! holds 0 or 1, and agrees with some of the digits' occurrences: 1 with
//! those that have a mark in front (a mark after a letter or digit is no
//! sign: `4-5`, `x_1`), 0 with those that have none. Those occurrences are the
//! sign's: the mark (length 1), or the empty place in front of the digits
//! (length 0). The mark to write is the one in front of those digits, or
//! else the one in front of some other number of the input (`_` before
//! `-`: a program that spells its minus so makes it plain), or else `-`.
//! A wrong guess costs a lift that does not reproduce, which the lifter
//! filters out.

use model::snapshot::*;
use model::unit::{Encoding, Param, Site, Snapshot};

/// The marks a sign may be written as, the one preferred first.
pub const MARKS: [u8; 2] = [b'_', b'-'];

/// Bytes of a sign field.
const FIELD: u64 = 4;

/// The sign parameters of the digit arrays among `params`, against the
/// system `input`.
pub fn signs(snapshot: &Snapshot, input: &[u8], params: &[Param]) -> Vec<Param> {
    let mut out: Vec<Param> = Vec::new();
    for p in params {
        let (&Site::Bytes { object, .. }, Encoding::Digits { .. }) = (&p.site, p.encoding) else { continue };
        let mut pointing: Vec<&Reloc> = snapshot
            .relocs
            .iter()
            .filter(|r| r.target_kind == RELOC_OBJECT && r.target == object && r.object != RELOC_IN_ARG)
            .collect();
        pointing.sort_by_key(|r| (r.object, r.offset));
        let found = pointing.iter().find_map(|r| {
            let (_, bytes) = snapshot.objects.get(r.object as usize)?;
            let pointers: Vec<u64> =
                snapshot.relocs.iter().filter(|q| q.object == r.object).map(|q| q.offset).collect();
            Some((r.object, field(bytes, r.offset, &pointers, &p.occurrences, input)?))
        });
        let Some((holder, sign)) = found else { continue };
        let site = Site::Bytes { object: holder, offset: sign.offset, len: FIELD, nul: false };
        if out.iter().any(|q| q.site == site) {
            continue;
        }
        let mark = sign.mark.unwrap_or_else(|| input_mark(input));
        out.push(Param {
            site,
            encoding: Encoding::Sign { mark },
            occurrences: sign.occurrences,
            original: sign.mark.map(|m| vec![m]).unwrap_or_default(),
            excluded: (2..=255).collect(),
            room: 0,
        });
    }
    out
}

/// A sign field found: where it is in its object, the places of the
/// input it stands at, and the mark in front of the digits there (none
/// when the field holds 0).
struct Field {
    offset: u64,
    occurrences: Vec<(u64, u64)>,
    mark: Option<u8>,
}

/// The sign field of an object (`bytes`) whose pointer at `pointer`
/// points at digits occurring at `digits` (see the module's rule);
/// `pointers`: where the object holds pointers.
fn field(bytes: &[u8], pointer: u64, pointers: &[u64], digits: &[(u64, u64)], input: &[u8]) -> Option<Field> {
    (0..pointer / FIELD).map(|k| k * FIELD).find_map(|offset| {
        if pointers.iter().any(|&q| q < offset + FIELD && offset < q + 8) {
            return None;
        }
        let b = bytes.get(offset as usize..(offset + FIELD) as usize)?;
        let minus = model::unit::sign_field(b)?;
        let places: Vec<((u64, u64), Option<u8>)> = digits
            .iter()
            .map(|&(at, _)| (at, mark_before(input, at as usize)))
            .filter(|(_, m)| m.is_some() == minus)
            .map(|(at, m)| if minus { ((at - 1, 1), m) } else { ((at, 0), m) })
            .collect();
        let mark = places.first()?.1;
        Some(Field { offset, occurrences: places.into_iter().map(|(o, _)| o).collect(), mark })
    })
}

/// The mark in front of the digits at `at`, if a sign stands there.
fn mark_before(input: &[u8], at: usize) -> Option<u8> {
    let m = *input.get(at.checked_sub(1)?)?;
    let after_word = at >= 2 && input[at - 2].is_ascii_alphanumeric();
    (MARKS.contains(&m) && !after_word).then_some(m)
}

/// The mark the input writes some number's sign with, by [`MARKS`]'s
/// preference; `-` when none is.
fn input_mark(input: &[u8]) -> u8 {
    let signed = |m: u8| {
        input
            .windows(2)
            .enumerate()
            .any(|(i, w)| w[0] == m && w[1].is_ascii_digit() && mark_before(input, i + 1) == Some(m))
    };
    MARKS.into_iter().find(|&m| signed(m)).unwrap_or(b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digits(object: u32, occurrences: Vec<(u64, u64)>) -> Param {
        Param {
            site: Site::Bytes { object, offset: 0, len: 1, nul: false },
            encoding: Encoding::Digits { reversed: false, ascii: false },
            occurrences,
            original: b"5".to_vec(),
            excluded: Vec::new(),
            room: 0,
        }
    }

    /// A `bc_num`: sign, length, scale, references, next, then two
    /// pointers at the digits (object `digits`).
    fn snapshot(sign: u8, len: u8, digits: u32) -> Snapshot {
        let mut num = vec![0u8; 40];
        num[0] = sign;
        num[4] = len;
        num[12] = 1;
        let head = |kind, size| ObjectHead { kind, global: NO_GLOBAL, addr: 0, size, len: size };
        let objects = vec![(head(OBJ_HEAP, 40), num), (head(OBJ_HEAP, 1), vec![5])];
        let reloc = |offset| Reloc { object: 0, offset, target_kind: RELOC_OBJECT, target: digits, addend: 0 };
        Snapshot { objects, relocs: vec![reloc(24), reloc(32)], ..Snapshot::default() }
    }

    #[test]
    fn a_plus_sign_stands_in_front_of_the_digits_and_takes_the_inputs_mark() {
        let input = b"5 3<a _7 x_1";
        let s = signs(&snapshot(0, 1, 1), input, &[digits(1, vec![(0, 1)])]);
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(s[0].site, Site::Bytes { object: 0, offset: 0, len: 4, nul: false });
        assert_eq!(
            (s[0].encoding, &s[0].occurrences, &s[0].original[..]),
            (Encoding::Sign { mark: b'_' }, &vec![(0, 0)], &b""[..])
        );
        // No number of the input has a mark: `-`. (`4-5` is no sign.)
        let s = signs(&snapshot(0, 1, 1), b"5 4-5", &[digits(1, vec![(0, 1)])]);
        assert_eq!(s[0].encoding, Encoding::Sign { mark: b'-' });
    }

    #[test]
    fn a_minus_sign_is_its_mark_and_occurrences_that_disagree_are_left_out() {
        let input = b"_5 5 -5";
        let s = signs(&snapshot(1, 1, 1), input, &[digits(1, vec![(1, 1), (3, 1), (6, 1)])]);
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(
            (s[0].encoding, &s[0].occurrences, &s[0].original[..]),
            (Encoding::Sign { mark: b'_' }, &vec![(0, 1), (5, 1)], &b"_"[..])
        );
    }

    #[test]
    fn the_field_is_the_first_that_agrees_with_the_input_and_no_pointer_or_wide_value_is_one() {
        // Sign 0 but every occurrence marked: the length (1) is taken as
        // the sign; scale (0) does not agree either.
        let s = signs(&snapshot(0, 1, 1), b"_5", &[digits(1, vec![(1, 1)])]);
        assert_eq!(s[0].site, Site::Bytes { object: 0, offset: 4, len: 4, nul: false });
        // A length of 2 is no sign: the field after it (scale 0) would
        // be, but agrees with no occurrence; references (1) does.
        let s = signs(&snapshot(2, 2, 1), b"_5", &[digits(1, vec![(1, 1)])]);
        assert_eq!(s[0].site, Site::Bytes { object: 0, offset: 12, len: 4, nul: false });
        // A pointer with no field before it (a local `char *`, object 0)
        // is passed over for the struct's (object 2).
        let mut s = snapshot(0, 1, 1);
        let stack = ObjectHead { kind: OBJ_STACK, global: NO_GLOBAL, addr: 0, size: 8, len: 8 };
        let num = s.objects.remove(0);
        s.objects = vec![(stack, vec![0; 8]), s.objects.remove(0), num];
        s.relocs.iter_mut().for_each(|r| r.object = 2);
        s.relocs.push(Reloc { object: 0, offset: 0, target_kind: RELOC_OBJECT, target: 1, addend: 0 });
        let found = signs(&s, b"5", &[digits(1, vec![(0, 1)])]);
        assert_eq!(found[0].site, Site::Bytes { object: 2, offset: 0, len: 4, nul: false }, "{found:?}");
        // Digits nothing points at have no sign.
        assert!(signs(&snapshot(0, 1, 9), b"5", &[digits(1, vec![(0, 1)])]).is_empty());
    }
}
