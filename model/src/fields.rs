//! Binary length fields kept true when a lift resizes what they measure.
//!
//! Binary formats hold their records as a length and that many bytes: a
//! PNG chunk (`00 00 00 0d "IHDR"` then 13 bytes and a CRC), a
//! type-length-value record, a RIFF or MP4 box. A lifted value that is
//! shorter or longer than the bytes it replaces (a string solved shorter,
//! a length parameter's block cut or repeated) leaves the record's length
//! stale, and the program then reads the record with bytes of the next
//! one, or the next one from the middle of this one: the lift fails where
//! the unit did not.
//!
//! No format is known here. A length field is found as part of a **chain
//! of records** that tiles the input to its very end: a field of 2 or 4
//! bytes (either byte order), perhaps a few bytes (a type) before what it
//! measures, counting from its own first byte or from what it measures,
//! and perhaps a few bytes (a checksum, the next record's type) before
//! the next field; the last record's bytes (or its trailer) end exactly
//! where the input does. Rules against chance:
//! - a chain starts within [`FIRST_WITHIN`] bytes of the input's start
//!   (after a magic or a header);
//! - it has two records or more; one record alone counts only as a 4-byte
//!   field within the first 16 bytes (a header giving the length of the
//!   rest);
//! - only the last record may be empty (a run of zeros chains by itself);
//! - the longest chain is taken, and where several layouts make chains of
//!   that length they must agree on what to change, or nothing is.
//!
//! Records inside a record's bytes (nested boxes) are looked for the same
//! way, [`DEPTH`] levels deep. A field some lifted value is written over
//! is that value's, and is left alone.

use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::rc::Rc;

/// Inputs longer than this are not searched: the search passes over the
/// input once for each of its 128 layouts (27 ms at this size; a search
/// is kept for the next lifts into the same input, see [`cached_chains`]).
const SEARCH_LIMIT: usize = 1 << 16;
/// A chain's first field is within this many bytes of its range's start.
const FIRST_WITHIN: usize = 64;
/// A chain of one record: a 4-byte field within this many bytes of its
/// range's start.
const HEADER_WITHIN: usize = 16;
/// Levels of records inside records.
const DEPTH: usize = 3;
/// Bytes between a field and what it measures, and between what it
/// measures and the next field.
const SPACES: [usize; 4] = [0, 1, 2, 4];

/// How a format lays out its records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    width: usize,
    big_endian: bool,
    /// Bytes between the field and what it measures (a type).
    gap: usize,
    /// Bytes between what it measures and the next field (a checksum, the
    /// next record's type).
    trailer: usize,
    /// The value counts from the field's first byte (its header included),
    /// not from what it measures.
    from_field: bool,
}

impl Layout {
    fn all() -> impl Iterator<Item = Layout> {
        [2usize, 4].into_iter().flat_map(|width| {
            [true, false].into_iter().flat_map(move |big_endian| {
                SPACES.into_iter().flat_map(move |gap| {
                    SPACES.into_iter().flat_map(move |trailer| {
                        [false, true].into_iter().map(move |from_field| Layout {
                            width,
                            big_endian,
                            gap,
                            trailer,
                            from_field,
                        })
                    })
                })
            })
        })
    }

    fn value(&self, input: &[u8], at: usize) -> u64 {
        let bytes = &input[at..at + self.width];
        let fold = |v: u64, &b: &u8| v << 8 | b as u64;
        if self.big_endian {
            bytes.iter().fold(0, fold)
        } else {
            bytes.iter().rev().fold(0, fold)
        }
    }

    /// The record whose field is at `at`, when its bytes end by `hi`.
    fn record(&self, input: &[u8], at: usize, hi: usize) -> Option<Field> {
        let start = at + self.width + self.gap;
        let value = self.value(input, at);
        let counted = if self.from_field { (self.width + self.gap) as u64 } else { 0 };
        let len = usize::try_from(value.checked_sub(counted)?).ok()?;
        let end = start.checked_add(len)?;
        (end <= hi).then_some(Field { at, width: self.width, big_endian: self.big_endian, counted, start, end })
    }
}

/// A length field at `at` and the bytes it measures, `start..end`; its
/// value is their length and `counted` (the header's bytes, when it
/// counts them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Field {
    at: usize,
    width: usize,
    big_endian: bool,
    counted: u64,
    start: usize,
    end: usize,
}

impl Field {
    /// Its new value when `splices` are made, `None` when it keeps its
    /// value, a splice is written over it or across one of its record's
    /// ends, or the new length does not fit.
    fn new_value(&self, splices: &[Splice]) -> Option<u64> {
        let inside: Vec<&Splice> = splices.iter().filter(|s| s.at < self.end && s.end > self.start).collect();
        let moved: isize = inside.iter().map(|s| delta(s)).sum();
        let over_field = splices.iter().any(|s| s.at < self.at + self.width && s.end > self.at);
        let straddles = inside.iter().any(|s| s.at < self.start || s.end > self.end);
        if moved == 0 || over_field || straddles {
            return None;
        }
        let len = u64::try_from((self.end - self.start) as isize + moved).ok()?;
        Some(len + self.counted).filter(|&v| v < 1 << (8 * self.width))
    }

    fn bytes(&self, value: u64) -> Vec<u8> {
        let be = value.to_be_bytes();
        let mut bytes = be[8 - self.width..].to_vec();
        if !self.big_endian {
            bytes.reverse();
        }
        bytes
    }
}

/// Bytes `at..end` of an input replaced by `len` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Splice {
    pub at: usize,
    pub end: usize,
    pub len: usize,
}

/// The chains of records an input holds at its top level: found once for
/// an input that many changes are made to ([`fix_top_lengths`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Records {
    chains: Vec<Vec<Field>>,
}

impl Records {
    /// `input`'s; none when it is longer than [`SEARCH_LIMIT`].
    pub fn of(input: &[u8]) -> Records {
        if input.len() > SEARCH_LIMIT {
            return Records::default();
        }
        Records { chains: first_chains(input, 0, input.len()) }
    }

    pub fn is_empty(&self) -> bool {
        self.chains.is_empty()
    }
}

/// Rewrites, in `out` (made from `input` by `splices`, which do not
/// overlap), every length field of `input` whose record a splice resized,
/// by what the splices inside the record added or took away; records
/// inside records too. Says where in `out` it wrote.
pub fn fix_lengths(input: &[u8], out: &mut [u8], splices: &[Splice]) -> Vec<Range<usize>> {
    if input.len() > SEARCH_LIMIT || splices.iter().all(|s| delta(s) == 0) {
        return Vec::new();
    }
    let mut changes = Vec::new();
    fields_in(input, 0, input.len(), splices, 0, &mut changes);
    write(out, splices, changes)
}

/// [`fix_lengths`] with `records`, found beforehand in the input, at the
/// top level only: no search.
pub fn fix_top_lengths(records: &Records, out: &mut [u8], splices: &[Splice]) -> Vec<Range<usize>> {
    match changes(&records.chains, splices) {
        Some(changes) => write(out, splices, changes),
        None => Vec::new(),
    }
}

/// Writes each field's new value where the field is in `out`.
fn write(out: &mut [u8], splices: &[Splice], changes: Vec<(Field, u64)>) -> Vec<Range<usize>> {
    let mut written = Vec::with_capacity(changes.len());
    for (field, value) in changes {
        // Only splices before the field move it (it is before what it
        // measures, and no splice is written over it).
        let shift: isize = splices.iter().filter(|s| s.end <= field.at).map(delta).sum();
        let at = field.at.checked_add_signed(shift).expect("a field moves by what was spliced before it");
        out[at..at + field.width].copy_from_slice(&field.bytes(value));
        written.push(at..at + field.width);
    }
    written
}

fn delta(s: &Splice) -> isize {
    s.len as isize - (s.end - s.at) as isize
}

/// The fields of the first of `chains` that `splices` resize, with their
/// new values; `None` when the chains disagree on them.
fn changes(chains: &[Vec<Field>], splices: &[Splice]) -> Option<Vec<(Field, u64)>> {
    let first = chains.first()?;
    let of = |chain: &Vec<Field>| -> Vec<(Field, u64)> {
        chain.iter().filter_map(|f| Some((*f, f.new_value(splices)?))).collect()
    };
    let found = of(first);
    let key = |c: &[(Field, u64)]| -> Vec<_> { c.iter().map(|(f, v)| (f.at, f.width, f.big_endian, *v)).collect() };
    chains[1..].iter().all(|c| key(&of(c)) == key(&found)).then_some(found)
}

/// The fields of `input[lo..hi]`'s chain of records that `splices` resize,
/// with their new values, into `changes`; and those of records inside
/// them. Nothing at a level where the chains found disagree.
fn fields_in(input: &[u8], lo: usize, hi: usize, splices: &[Splice], depth: usize, out: &mut Vec<(Field, u64)>) {
    let Some(found) = changes(&cached_chains(input, lo, hi), splices) else { return };
    for (field, value) in found {
        out.push((field, value));
        if depth + 1 < DEPTH {
            fields_in(input, field.start, field.end, splices, depth + 1, out);
        }
    }
}

/// The chains of the last inputs searched, by a hash of the input and the
/// range: a unit's tries are lifted into the same input one after another.
type Cache = Vec<(u64, usize, usize, Rc<Vec<Vec<Field>>>)>;
const CACHED: usize = 16;
thread_local! {
    static CACHE: RefCell<Cache> = const { RefCell::new(Vec::new()) };
}

/// [`first_chains`], looked up first among the last searches.
fn cached_chains(input: &[u8], lo: usize, hi: usize) -> Rc<Vec<Vec<Field>>> {
    let mut h = std::hash::DefaultHasher::new();
    input.hash(&mut h);
    let key = h.finish();
    CACHE.with_borrow_mut(|cache| {
        if let Some(k) = cache.iter().position(|c| (c.0, c.1, c.2) == (key, lo, hi)) {
            let hit = cache.remove(k);
            cache.push(hit);
        } else {
            if cache.len() == CACHED {
                cache.remove(0);
            }
            cache.push((key, lo, hi, Rc::new(first_chains(input, lo, hi))));
        }
        Rc::clone(&cache.last().expect("just pushed").3)
    })
}

/// The chains of records that tile `input[lo..hi]` from the first field
/// nearest `lo` to `hi`, the longest of those (one for each layout that
/// makes such a chain). A chain that starts first holds the others, if
/// they are true chains too: they are found inside its records.
fn first_chains(input: &[u8], lo: usize, hi: usize) -> Vec<Vec<Field>> {
    let mut best: (usize, usize, Vec<Vec<Field>>) = (usize::MAX, 0, Vec::new());
    let mut count = vec![0u32; hi - lo];
    for layout in Layout::all() {
        // count[p - lo]: records of the chain whose first field is at p.
        for p in (lo..hi).rev() {
            count[p - lo] = 0;
            if p + layout.width > hi {
                continue;
            }
            let Some(r) = layout.record(input, p, hi) else { continue };
            let next = r.end + layout.trailer;
            count[p - lo] = if r.end == hi || next == hi {
                1
            } else if r.end > r.start && next < hi && count[next - lo] > 0 {
                count[next - lo] + 1
            } else {
                0
            };
        }
        for p in lo..hi.min(lo + FIRST_WITHIN).min(best.0.saturating_add(1)) {
            let n = count[p - lo] as usize;
            let header = layout.width == 4 && p < lo + HEADER_WITHIN;
            if n == 0 || n == 1 && !header || p == best.0 && n < best.1 {
                continue;
            }
            let fields = follow(input, layout, p, hi);
            // (A record alone has no trailer: it is no chain's last.)
            if fields.iter().all(|f| f.end == f.start) || n == 1 && fields[0].end != hi {
                continue;
            }
            if (p, n) != (best.0, best.1) {
                best = (p, n, Vec::new());
            }
            best.2.push(fields);
            break;
        }
    }
    best.2
}

/// The records of the chain whose first field is at `p`.
fn follow(input: &[u8], layout: Layout, mut p: usize, hi: usize) -> Vec<Field> {
    let mut fields = Vec::new();
    while let Some(r) = layout.record(input, p, hi) {
        fields.push(r);
        p = r.end + layout.trailer;
        if p >= hi || r.end == hi {
            break;
        }
    }
    fields
}

#[cfg(test)]
#[path = "fields_tests.rs"]
mod tests;
