//! Numbers a program keeps as digit arrays, one byte per decimal digit,
//! for the mapping: dc's and bc's numbers (a heap object of raw digits,
//! `c - '0'`), and digits wherever else they live: inside structs and
//! arrays of structs, in globals and on the stack, as raw values or as
//! ASCII, most significant digit first or last.
//!
//! A whole heap object of raw digits is a number as it stands (its leading
//! zeros are room). Inside an object, the input's whole numbers are looked
//! for; the rules below keep chance matches rare:
//! - a number of [`MIN_INSIDE`] digits or more, two of them not 0, with no
//!   leading 0 (a digit array holds none past its room); as raw digits,
//!   three of them not 0 and fewer 0s than other digits: bytes 0 and 1
//!   fill structs (`2001`, the year in every XML schema's namespace, is
//!   `01 00 00 02` by chance in libxml2's structs);
//! - raw digits: the match is bounded by the object's ends, a 0 (room, or
//!   padding between fields) or a byte that is no digit (10 or more), and
//!   the run of raw digits it lies in is at most [`MAX_RUN`] bytes once
//!   its zeros at either end are cut (longer ones are tables of small
//!   values); from each place a number may start at, left to right, the
//!   longest one found there is taken, and the search goes on past it;
//! - ASCII digits: the match is a whole run of `0`–`9`, and the bytes on
//!   either side are no text (a NUL, binary, the object's end; text being
//!   what the mapping takes for a string's, `mapping::string_byte`): a number inside a line of text is that line's
//!   string parameter, not one of its own;
//! - a place some parameter of the object already starts at (its string)
//!   is left to it;
//! - at most [`MAX_PER_OBJECT`] numbers an object.

use std::collections::{HashMap, HashSet};

use model::snapshot::*;
use model::unit::{Encoding, Param, Site};

/// Longest digit array mapped.
pub const MAX_DIGITS: usize = 64;
/// Shortest number looked for inside an object.
pub const MIN_INSIDE: usize = 3;
/// Longest run of raw digits (its zeros at the ends cut) looked in.
pub const MAX_RUN: usize = 4 * MAX_DIGITS;
/// Most numbers mapped inside one object.
pub const MAX_PER_OBJECT: usize = 8;

/// A digit array (a heap object whose every byte is 0 to 9) whose digits,
/// past its leading zeros, stand as a whole number in the input, most
/// significant first (or else last). A new value may only hold digits
/// (`excluded`).
pub fn whole_heap_object(object: u32, bytes: &[u8], input: &[u8]) -> Option<Param> {
    // A zeroed buffer is no number (a lone 0 may be one: dc's zero).
    if bytes.is_empty() || bytes.len() > MAX_DIGITS || (bytes.len() > 1 && bytes.iter().all(|&d| d == 0)) {
        return None;
    }
    // Leading zeros are room the number was allocated with (bc's
    // `_bc_rm_leading_zeros` moves the digits' pointer past them).
    let start = bytes.iter().take_while(|&&d| d == 0).count().min(bytes.len() - 1);
    let bytes = &bytes[start..];
    let text: Vec<u8> = bytes.iter().map(|&d| b'0' + d).collect();
    let reversed: Vec<u8> = text.iter().rev().copied().collect();
    let ways = [(false, text.clone()), (true, reversed)];
    ways.into_iter().filter(|(r, t)| !*r || *t != text).find_map(|(reversed, t)| {
        let occ = crate::mapping::numbers(input, &t);
        (!occ.is_empty()).then(|| Param {
            site: Site::Bytes { object, offset: start as u64, len: bytes.len() as u64, nul: false },
            encoding: Encoding::Digits { reversed, ascii: false },
            occurrences: occ,
            original: t,
            excluded: Param::not_digits(false),
            room: 0,
        })
    })
}

/// A number of the input as an object may hold it.
struct Form<'a> {
    /// Its text in the input, and where it stands there.
    text: &'a [u8],
    places: &'a [(u64, u64)],
    reversed: bool,
}

/// The input's whole numbers worth looking for inside objects (see the
/// module's rules), each with its places: every run of ASCII digits, a
/// minus sign before it left out (a digit array holds no sign).
fn input_numbers(input: &[u8]) -> HashMap<Vec<u8>, Vec<(u64, u64)>> {
    let mut out: HashMap<Vec<u8>, Vec<(u64, u64)>> = HashMap::new();
    let mut i = 0;
    while i < input.len() {
        if !input[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let end = i + input[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        let t = &input[i..end];
        let nonzero = t.iter().filter(|&&b| b != b'0').count();
        if (MIN_INSIDE..=MAX_DIGITS).contains(&t.len()) && nonzero >= 2 && t[0] != b'0' {
            out.entry(t.to_vec()).or_default().push((i as u64, t.len() as u64));
        }
        i = end;
    }
    out
}

/// The numbers by the bytes an object holds them as: raw digits (`c -
/// '0'`) or ASCII, in the input's order or reversed; and their lengths,
/// longest first.
struct Index<'a> {
    raw: HashMap<Vec<u8>, Form<'a>>,
    ascii: HashMap<Vec<u8>, Form<'a>>,
    lengths: Vec<usize>,
}

impl<'a> Index<'a> {
    fn new(numbers: &'a HashMap<Vec<u8>, Vec<(u64, u64)>>) -> Index<'a> {
        let (mut raw, mut ascii) = (HashMap::new(), HashMap::new());
        let mut sorted: Vec<_> = numbers.iter().collect();
        sorted.sort();
        // Bytes that are one number reversed and another in order (or
        // the same read both ways) are taken in order.
        for reversed in [true, false] {
            for &(text, places) in &sorted {
                let held: Vec<u8> = if reversed { text.iter().rev().copied().collect() } else { text.clone() };
                let form = || Form { text, places, reversed };
                raw.insert(held.iter().map(|c| c - b'0').collect(), form());
                ascii.insert(held, form());
            }
        }
        let mut lengths: Vec<usize> = numbers.keys().map(Vec::len).collect();
        lengths.sort_unstable_by(|a, b| b.cmp(a));
        lengths.dedup();
        Index { raw, ascii, lengths }
    }
}

/// Numbers of `input` held as digit arrays inside the objects of `objects`
/// (heap, global, stack), under the module's rules. `taken` are the
/// parameters mapped so far: an object mapped whole as digits, and a place
/// an object's string starts at, are left alone.
pub fn inside(objects: &[(ObjectHead, Vec<u8>)], input: &[u8], taken: &[Param]) -> Vec<Param> {
    let numbers = input_numbers(input);
    if numbers.is_empty() {
        return Vec::new();
    }
    let index = Index::new(&numbers);
    let mut whole = HashSet::new();
    let mut starts = HashSet::new();
    for p in taken {
        if let Site::Bytes { object, offset, .. } = p.site {
            if matches!(p.encoding, Encoding::Digits { .. }) {
                whole.insert(object);
            }
            starts.insert((object, offset));
        }
    }
    let mut out = Vec::new();
    for (o, (h, bytes)) in objects.iter().enumerate() {
        let o = o as u32;
        if ![OBJ_HEAP, OBJ_GLOBAL, OBJ_STACK].contains(&h.kind) || whole.contains(&o) {
            continue;
        }
        let mut found = raw_places(bytes, &index);
        found.extend(ascii_places(bytes, &index));
        found.retain(|(at, _, _)| !starts.contains(&(o, *at as u64)));
        found.truncate(MAX_PER_OBJECT);
        out.extend(found.into_iter().map(|(at, form, ascii)| Param {
            site: Site::Bytes { object: o, offset: at as u64, len: form.text.len() as u64, nul: false },
            encoding: Encoding::Digits { reversed: form.reversed, ascii },
            occurrences: form.places.to_vec(),
            original: form.text.to_vec(),
            excluded: Param::not_digits(ascii),
            room: 0,
        }));
    }
    out
}

/// A number found: where it starts in the object, which, and whether as
/// ASCII.
type Found<'a> = (usize, &'a Form<'a>, bool);

/// Numbers held as raw digits (0 to 9 a byte) in `bytes`.
fn raw_places<'a>(bytes: &[u8], index: &'a Index<'a>) -> Vec<Found<'a>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] > 9 {
            i += 1;
            continue;
        }
        let end = i + bytes[i..].iter().take_while(|&&d| d <= 9).count();
        // The run's zeros at either end are room or padding: its size is
        // taken without them, and a number's 0s at its ends are looked
        // for up to a number's length into them.
        let (mut a, mut b) = (i, end);
        while a < b && bytes[a] == 0 {
            a += 1;
        }
        while b > a && bytes[b - 1] == 0 {
            b -= 1;
        }
        if b - a >= 2 && b - a <= MAX_RUN {
            let (a, b) = (a.saturating_sub(MAX_DIGITS).max(i), (b + MAX_DIGITS).min(end));
            out.extend(run_places(&bytes[a..b], a, index));
        }
        i = end;
    }
    out
}

/// Numbers in `run` (raw digits, starting at `base` of the object): from
/// each place the run starts at or a 0 precedes, left to right, the
/// longest number there that a 0 or the run's end follows; the search goes
/// on past it.
fn run_places<'a>(run: &[u8], base: usize, index: &'a Index<'a>) -> Vec<Found<'a>> {
    let mut out = Vec::new();
    let mut s = 0;
    'next: while s < run.len() {
        if s > 0 && run[s - 1] != 0 {
            s += 1;
            continue;
        }
        for &len in &index.lengths {
            let e = s + len;
            if e > run.len() || (e < run.len() && run[e] != 0) {
                continue;
            }
            if let Some(form) = index.raw.get(&run[s..e]).filter(|_| dense(&run[s..e])) {
                out.push((base + s, form, false));
                s = e;
                continue 'next;
            }
        }
        s += 1;
    }
    out
}

/// Raw digits dense enough to be a number's: three or more not 0, and
/// fewer 0s than those.
fn dense(digits: &[u8]) -> bool {
    let nonzero = digits.iter().filter(|&&d| d != 0).count();
    nonzero >= 3 && digits.len() - nonzero < nonzero
}

/// Numbers held as ASCII digits in `bytes`, in either order, each a whole
/// run of digits between bytes that are no text.
fn ascii_places<'a>(bytes: &[u8], index: &'a Index<'a>) -> Vec<Found<'a>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let end = i + bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        let fenced = !(i.checked_sub(1).map(|k| bytes[k]).is_some_and(crate::mapping::string_byte)
            || bytes.get(end).copied().is_some_and(crate::mapping::string_byte));
        if let Some(form) = index.ascii.get(&bytes[i..end]).filter(|_| fenced) {
            out.push((i, form, true));
        }
        i = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::unit::Value;

    fn object(kind: u8, bytes: Vec<u8>) -> (ObjectHead, Vec<u8>) {
        let size = bytes.len() as u64;
        (ObjectHead { kind, global: NO_GLOBAL, addr: 0x1000, size, len: size }, bytes)
    }

    fn found(ps: &[Param]) -> Vec<(u32, u64, u64, Encoding, Vec<u8>)> {
        (ps.iter())
            .map(|p| match p.site {
                Site::Bytes { object, offset, len, .. } => (object, offset, len, p.encoding, p.original.clone()),
                _ => panic!("{p:?}"),
            })
            .collect()
    }

    const fn digits(reversed: bool, ascii: bool) -> Encoding {
        Encoding::Digits { reversed, ascii }
    }

    #[test]
    fn numbers_inside_structs_are_found_in_either_order_raw_or_ascii() {
        // An array of two structs { int sign; char digits[6]; short len }
        // in a global, least significant digit first; a stack struct
        // { int n; char text[8] } with ASCII digits; a heap struct whose
        // ASCII digits run backwards.
        let mut recs = Vec::new();
        for d in [[4u8, 3, 2, 1, 0, 0], [8, 7, 0, 5, 0, 0]] {
            recs.extend([1, 0, 0, 0]);
            recs.extend(d);
            recs.extend([4, 0]);
        }
        let mut stack = vec![0xff, 0xee, 0, 0];
        stack.extend(b"90125\0\0\0");
        let heap = b"\x02\x00\x00\x0042424\x00".to_vec();
        let objects = vec![object(OBJ_GLOBAL, recs), object(OBJ_STACK, stack), object(OBJ_HEAP, heap)];
        let input = b"1234 -5078\n90125 x 42424\n";
        let ps = inside(&objects, input, &[]);
        assert_eq!(
            found(&ps),
            [
                (0, 4, 4, digits(true, false), b"1234".to_vec()),
                (0, 16, 4, digits(true, false), b"5078".to_vec()),
                (1, 4, 5, digits(false, true), b"90125".to_vec()),
                (2, 4, 5, digits(false, true), b"42424".to_vec()),
            ]
        );
        assert_eq!(ps[1].occurrences, [(6, 4)], "the sign is not the array's");
        assert_eq!(ps[0].text(&Value::Bytes(vec![2, 4, 2, 4])), b"4242");
        assert!(ps[0].liftable(&Value::Bytes(vec![9, 0])) && !ps[0].liftable(&Value::Bytes(vec![b'9'])));
        assert!(ps[2].liftable(&Value::Bytes(b"77".to_vec())) && !ps[2].liftable(&Value::Bytes(vec![7])));
        assert!(ps[2].excluded.contains(&7) && !ps[2].excluded.contains(&b'7'));
        assert_eq!(ps[2].text(&Value::Bytes(b"321".to_vec())), b"321");
    }

    #[test]
    fn reversed_ascii_digits_write_back_in_the_input_s_order() {
        let objects = vec![object(OBJ_STACK, b"\x0165432\0".to_vec())];
        let ps = inside(&objects, b"23456", &[]);
        assert_eq!(found(&ps), [(0, 1, 5, digits(true, true), b"23456".to_vec())]);
        assert_eq!(ps[0].text(&Value::Bytes(b"12399".to_vec())), b"99321");
    }

    #[test]
    fn chance_matches_are_left_out() {
        let objects = vec![
            // A number in a line of text is the line's.
            object(OBJ_HEAP, b"x = 123;\0".to_vec()),
            // Small fields: 01 00 02 00 holds no "12"; "100" has one digit
            // that is not 0; a run inside a longer run of digits is part
            // of another number.
            object(OBJ_GLOBAL, vec![1, 0, 2, 0, 0, 0, 0xff, 1, 0, 0, 0xff, 9, 1, 2, 3, 9]),
            // A table of small values.
            object(OBJ_GLOBAL, (0..600).map(|i| (i % 7) as u8 + 1).collect()),
            // A stream is what was left to read, not a number's digits.
            object(OBJ_STREAM, vec![1, 2, 3]),
        ];
        let ps = inside(&objects, b"12 100 123 1234567 0123", &[]);
        assert!(ps.is_empty(), "{:?}", found(&ps));
    }

    #[test]
    fn zeros_at_a_number_s_ends_are_its_digits_where_the_input_has_them() {
        // 1250 most significant first with room after it, 3450 least
        // significant first after a field of 0xff; 123 and 321 are both
        // in the input: bytes 1 2 3 are 123 in order; 2001 is too sparse
        // to be one as raw digits.
        let objects = vec![
            object(OBJ_GLOBAL, vec![0xff, 1, 2, 5, 0, 0, 0, 0xff, 0, 5, 4, 3, 0xff, 1, 2, 3, 0xff, 1, 0, 0, 2, 0xff]),
            // Digits after UTF-8 text are that text's.
            object(OBJ_HEAP, "é1250\0".as_bytes().to_vec()),
        ];
        let ps = inside(&objects, b"1250 3450 321 123 2001", &[]);
        assert_eq!(
            found(&ps),
            [
                (0, 1, 4, digits(false, false), b"1250".to_vec()),
                (0, 8, 4, digits(true, false), b"3450".to_vec()),
                (0, 13, 3, digits(false, false), b"123".to_vec()),
            ]
        );
    }

    #[test]
    fn the_longest_number_wins_and_mapped_places_are_left_alone() {
        let objects = vec![
            object(OBJ_GLOBAL, vec![0xff, 1, 2, 3, 4, 0xff, 0x7f, 5, 6, 7, 0, 0]),
            object(OBJ_HEAP, vec![1, 2, 3]),
        ];
        let whole = whole_heap_object(1, &objects[1].1, b"123 1234 567").unwrap();
        let ps = inside(&objects, b"123 1234 567", std::slice::from_ref(&whole));
        assert_eq!(
            found(&ps),
            [(0, 1, 4, digits(false, false), b"1234".to_vec()), (0, 7, 3, digits(false, false), b"567".to_vec())]
        );
        // A string parameter starts at 7.
        let at_7 = Param {
            site: Site::Bytes { object: 0, offset: 7, len: 3, nul: false },
            encoding: Encoding::Raw,
            ..whole.clone()
        };
        let ps = inside(&objects, b"123 1234 567", &[whole, at_7]);
        assert_eq!(found(&ps), [(0, 1, 4, digits(false, false), b"1234".to_vec())]);
    }
}
