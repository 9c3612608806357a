//! Binary length fields, offset tables and the checksums of records, kept
//! true when a change resizes, moves or rewrites what they cover.
//!
//! Binary formats hold their records as a length and that many bytes: a
//! PNG chunk (`00 00 00 0d "IHDR"` then 13 bytes and a CRC), a
//! type-length-value record, a RIFF or MP4 box. A lifted value that is
//! shorter or longer than the bytes it replaces (a string solved shorter,
//! a length parameter's block cut or repeated) leaves the record's length
//! stale, and the program then reads the record with bytes of the next
//! one, or the next one from the middle of this one: the lift fails where
//! the unit did not. A record whose checksum no longer matches its bytes
//! is refused by a program that checks it (libpng does, for the chunks it
//! needs), whatever its length.
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
//! - the chain that starts first is taken, and the longest of those; where
//!   several layouts make it they must agree on what to change, or nothing
//!   is.
//!
//! Records inside a record's bytes (nested boxes) are looked for the same
//! way, [`DEPTH`] levels deep. A 4-byte trailer that is the CRC-32 of
//! every record of its chain (of the record's type and bytes, or of its
//! bytes, in either byte order) is that record's checksum (`crc.rs`). A
//! field or checksum some change is written over is that change's, and is
//! left alone.
//!
//! A table of offsets near the input's start (a directory of where its
//! entries begin) is found the same way, by what it must be to point at
//! entries laid out after it, and its offsets follow their entries when a
//! change before them moves them (`offsets.rs`).

use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::rc::Rc;

mod chain;
mod crc;
mod offsets;

use chain::{first_chains, Chain, Field};
use offsets::Offset;

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

/// Bytes `at..end` of an input replaced by `len` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Splice {
    pub at: usize,
    pub end: usize,
    pub len: usize,
}

impl Splice {
    fn delta(&self) -> isize {
        self.len as isize - (self.end - self.at) as isize
    }

    /// Whether it changes something of a record's bytes `range`: what it
    /// replaces overlaps them, or it inserts at their start, inside them
    /// or at their end (bytes inserted where a record's bytes meet its
    /// header or its trailer are the record's).
    fn within(&self, range: Range<usize>) -> bool {
        if self.at == self.end {
            range.start <= self.at && self.at <= range.end
        } else {
            self.at < range.end && self.end > range.start
        }
    }

    /// Whether it is written over something of `range` (a field, a
    /// checksum): an insertion at its ends is not.
    fn over(&self, range: Range<usize>) -> bool {
        self.at < range.end && self.end > range.start && (self.at != self.end || self.at > range.start)
    }
}

/// What to rewrite of one record: its length field's new value, its
/// checksum; and how deep it lies.
struct Rewrite {
    field: Field,
    value: Option<u64>,
    check: Option<crc::Check>,
    depth: usize,
}

/// Rewrites, in `out` (made from `input` by `splices`, which do not
/// overlap), every length field of `input` whose record a splice resized,
/// by what the splices inside the record added or took away, every offset
/// of its offset table (`offsets.rs`) that points past a splice that
/// resized something, and every checksum of a record a splice changed;
/// records inside records too.
pub fn fix(input: &[u8], out: &mut [u8], splices: &[Splice]) {
    if input.len() > SEARCH_LIMIT || splices.is_empty() {
        return;
    }
    let mut rewrites = Vec::new();
    rewrites_in(input, 0, input.len(), splices, 0, &mut rewrites);
    // Where a chain and an offset table meet, one of them is chance. A
    // chain of three records or more (agreed on by its layouts: see
    // `rewrites`) is taken over a table that shares bytes with its fields
    // or lies inside one of its records (its offsets could count from the
    // record, and the record's checksum would go stale); a table of three
    // offsets, or of offsets and sizes, over a shorter chain whose fields
    // share bytes with it.
    let mut table = offsets::table(input);
    let places: Vec<Range<usize>> = table
        .iter()
        .flat_map(|o| std::iter::once(o.at).chain(o.size.map(|(at, _)| at)).map(|at| at..at + o.width))
        .collect();
    let meets = |r: Range<usize>| places.iter().any(|t| t.start < r.end && r.start < t.end);
    let chains = cached_chains(input, 0, input.len());
    if let Some(c) = chains.first().filter(|_| !places.is_empty()) {
        let trusted = c.fields.len() > 2 && self::rewrites(&chains, splices, 0).is_some();
        let fields_meet = c.fields.iter().any(|f| meets(f.at..f.at + f.width));
        let inside = trusted && c.fields.iter().any(|f| meets(f.start..f.end));
        if trusted && (fields_meet || inside) {
            table.clear();
        } else if fields_meet {
            rewrites.clear();
        }
    }
    let offsets = table.iter().flat_map(|o| o.rewrites(splices).into_iter().map(|(at, v)| (*o, at, v))).collect();
    write(out, splices, rewrites, offsets)
}

/// Writes each length and each offset where its field is in `out`, then
/// each checksum, inner records' first (an outer record's checksum covers
/// them).
fn write(out: &mut [u8], splices: &[Splice], mut rewrites: Vec<Rewrite>, offsets: Vec<(Offset, usize, u64)>) {
    // Where byte `p` of the input is in `out`; `starts`: `p` starts a
    // record's bytes (what is inserted at `p` is the record's, after it).
    let moved = |p: usize, starts: bool| -> usize {
        let shift: isize = splices.iter().filter(|s| s.end <= p && !(starts && s.at == p)).map(Splice::delta).sum();
        p.checked_add_signed(shift).expect("a place moves by what was spliced before it")
    };
    for r in &rewrites {
        if let Some(value) = r.value {
            let at = moved(r.field.at, false);
            out[at..at + r.field.width].copy_from_slice(&r.field.bytes(value));
        }
    }
    for (o, at, value) in offsets {
        let at = moved(at, false);
        out[at..at + o.width].copy_from_slice(&chain::bytes(value, o.width, o.big_endian));
    }
    rewrites.sort_by_key(|r| std::cmp::Reverse(r.depth));
    for r in &rewrites {
        let Some(check) = r.check else { continue };
        let (from, end) = (moved(check.from(&r.field), true), moved(r.field.end, false));
        if end + 4 <= out.len() && from <= end {
            let sum = check.sum(&out[from..end]);
            out[end..end + 4].copy_from_slice(&sum);
        }
    }
}

/// What to rewrite of the records of the first of `chains`; `None` when
/// the chains disagree on their lengths.
fn rewrites(chains: &[Chain], splices: &[Splice], depth: usize) -> Option<Vec<Rewrite>> {
    let first = chains.first()?;
    fn values<'a>(chain: &'a Chain, splices: &[Splice]) -> Vec<(&'a Field, Option<u64>)> {
        chain.fields.iter().map(|f| (f, f.new_value(splices))).collect()
    }
    let found = values(first, splices);
    let lengths = |v: &[(&Field, Option<u64>)]| -> Vec<_> {
        v.iter().filter_map(|(f, n)| Some((f.at, f.width, f.big_endian, (*n)?))).collect()
    };
    let key = lengths(&found);
    if chains[1..].iter().any(|c| lengths(&values(c, splices)) != key) {
        return None;
    }
    let rewrites = found.into_iter().filter_map(|(&field, value)| {
        let check = first.check.filter(|c| c.stale(&field, splices));
        (value.is_some() || check.is_some()).then_some(Rewrite { field, value, check, depth })
    });
    Some(rewrites.collect())
}

/// What to rewrite of `input[lo..hi]`'s chain of records, and of records
/// inside its records that `splices` change, into `out`.
fn rewrites_in(input: &[u8], lo: usize, hi: usize, splices: &[Splice], depth: usize, out: &mut Vec<Rewrite>) {
    let chains = cached_chains(input, lo, hi);
    let Some(found) = rewrites(&chains, splices, depth) else { return };
    let inner: Vec<Field> = chains[0]
        .fields
        .iter()
        .filter(|f| depth + 1 < DEPTH && splices.iter().any(|s| s.within(f.start..f.end)))
        .copied()
        .collect();
    out.extend(found);
    for f in inner {
        rewrites_in(input, f.start, f.end, splices, depth + 1, out);
    }
}

/// The chains of the last inputs searched, by a hash of the input and the
/// range: a unit's tries are lifted into the same input one after another.
type Cache = Vec<(u64, usize, usize, Rc<Vec<Chain>>)>;
const CACHED: usize = 16;
thread_local! {
    static CACHE: RefCell<Cache> = const { RefCell::new(Vec::new()) };
}

/// [`first_chains`], looked up first among the last searches.
fn cached_chains(input: &[u8], lo: usize, hi: usize) -> Rc<Vec<Chain>> {
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

#[cfg(test)]
mod tests;
