//! Offset tables: fields that hold where in the input something starts.
//!
//! A binary format that is read by seeking keeps a directory near its
//! start: a table of offsets, one for each entry, each the place of its
//! entry's first byte (an archive's members, an icon file's images, a
//! font's tables, a WAD's lumps). A lifted value that is longer or shorter
//! than the bytes it replaces moves every entry after it, and the table
//! then points into the middle of other entries: the program refuses the
//! file, or reads garbage, where the unit did not.
//!
//! No format is known here either. A table is found by what it must be
//! to point at entries laid out after it:
//! - fields of 2 or 4 bytes in either byte order, each at an
//!   even place, its first within [`FIRST_WITHIN`] bytes of the input's
//!   start, their values strictly increasing and each inside the input;
//! - either three offsets or more, one after the other, the first entry
//!   starting just where the last offset ends;
//! - or two records or more, one every 8, 12 or 16 bytes, each holding
//!   its entry's offset and its size: the field of the same width and
//!   order, at the same place in every record, that measures each entry
//!   up to the next one's start (or up to 3 bytes before it: padding) and
//!   the last one to the input's end (as far); the first entry starts
//!   just after the table, give or take the padding.
//!
//! Numbers that happen to rise are common in binary files (a PNG's
//! chromaticities, a catalog's header of counts and places); rising ones
//! that tile the space up to where the first of them points, or that
//! measure the spaces between them, are not.
//!
//! The table that starts first is taken, the longest of those; of two
//! layouts that make it, the wider field (a 4-byte little-endian table is
//! also one of 2-byte fields with zeros between). An offset moves by what
//! was spliced wholly before the place it holds; an offset a splice is
//! written over, or whose entry a splice starts before and ends after, is
//! left as it is. A size follows what is spliced inside its entry.

use super::{Splice, FIRST_WITHIN};

/// Bytes from one offset to the next: a table of offsets alone, or of
/// records holding one.
const STRIDES: [usize; 4] = [0, 8, 12, 16];

/// Bytes of padding an entry may have after it (to align the next).
const PADDING: usize = 3;

/// One offset of a table, and the size of its entry when its record holds
/// that too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Offset {
    pub at: usize,
    pub width: usize,
    pub big_endian: bool,
    pub value: u64,
    /// Where its entry's size is, and the size.
    pub size: Option<(usize, u64)>,
    /// Where the next entry starts (the input's end after the last).
    pub next: u64,
}

impl Offset {
    /// What to write when `splices` are made, as (place, new value): the
    /// offset, moved by what was spliced wholly before the place it holds;
    /// the size, by what was spliced inside the entry. Neither when a
    /// splice is written over the field, when one crosses the entry's
    /// start (or, for the size, its end), or when the value does not fit.
    pub fn rewrites(&self, splices: &[Splice]) -> Vec<(usize, u64)> {
        let Ok(place) = usize::try_from(self.value) else { return Vec::new() };
        let fits = |v: isize| u64::try_from(v).ok().filter(|&v| v < 1 << (8 * self.width));
        let over = |at: usize| splices.iter().any(|s| s.over(at..at + self.width));
        let mut out = Vec::new();
        let across = |p: usize| splices.iter().any(|s| s.at < p && s.end > p);
        if across(place) {
            return out;
        }
        // What is inserted where an entry starts is the entry's.
        let shift: isize = splices.iter().filter(|s| s.end <= place && s.at != place).map(Splice::delta).sum();
        if let Some(v) = fits(place as isize + shift).filter(|_| shift != 0 && !over(self.at)) {
            out.push((self.at, v));
        }
        if let Some((at, size)) = self.size {
            let end = place + size as usize;
            // What is inserted where the next entry starts is the next's.
            let next = |s: &Splice| s.at == s.end && s.at == end && end as u64 == self.next;
            let grown: isize = splices.iter().filter(|s| s.within(place..end) && !next(s)).map(Splice::delta).sum();
            if let Some(v) = fits(size as isize + grown).filter(|_| grown != 0 && !over(at) && !across(end)) {
                out.push((at, v));
            }
        }
        out
    }
}

/// A layout of offset tables.
#[derive(Debug, Clone, Copy)]
struct Layout {
    width: usize,
    big_endian: bool,
    stride: usize,
}

impl Layout {
    fn value(&self, input: &[u8], at: usize) -> Option<u64> {
        let bytes = input.get(at..at.checked_add(self.width)?)?;
        let fold = |v: u64, &b: &u8| v << 8 | b as u64;
        Some(if self.big_endian { bytes.iter().fold(0, fold) } else { bytes.iter().rev().fold(0, fold) })
    }
}

/// The offset table of `input`, if it has one (see the module).
pub(super) fn table(input: &[u8]) -> Vec<Offset> {
    let mut best: Vec<Offset> = Vec::new();
    for p in 0..input.len().min(FIRST_WITHIN) {
        for width in [4usize, 2] {
            for big_endian in [false, true] {
                for stride in STRIDES.map(|s| s.max(width)) {
                    let t = at(input, p, Layout { width, big_endian, stride });
                    if t.len() > best.len() {
                        best = t;
                    }
                }
            }
        }
        if !best.is_empty() {
            return best;
        }
    }
    best
}

/// The longest table whose first field is at `p` in this layout; empty if
/// there is none.
fn at(input: &[u8], p: usize, layout: Layout) -> Vec<Offset> {
    let Layout { width, big_endian, stride } = layout;
    if !p.is_multiple_of(2) {
        return Vec::new();
    }
    let first = match layout.value(input, p) {
        Some(v) if (v as usize) < input.len() && v as usize > p => v,
        _ => return Vec::new(),
    };
    let mut fields = vec![Offset { at: p, width, big_endian, value: first, size: None, next: 0 }];
    loop {
        let next = p + fields.len() * stride;
        // The table's records end where the first entry starts.
        if next + width > first as usize {
            break;
        }
        match layout.value(input, next) {
            Some(v) if v > fields[fields.len() - 1].value && (v as usize) < input.len() => {
                fields.push(Offset { at: next, width, big_endian, value: v, size: None, next: 0 })
            }
            _ => break,
        }
    }
    let last = p + (fields.len() - 1) * stride;
    // A table of offsets alone: at least three, the first entry just
    // where the last one ends (numbers that happen to rise are seldom
    // that long and that tight).
    if stride == width && (fields.len() < 3 || first as usize != last + width) {
        return Vec::new();
    }
    // The offset may be anywhere in its record: the table ends between
    // the end of the last offset and a stride past it.
    if fields.len() < 2 || !(last + width..=last + stride + PADDING).contains(&(first as usize)) {
        return Vec::new();
    }
    for k in 0..fields.len() {
        fields[k].next = fields.get(k + 1).map_or(input.len() as u64, |n| n.value);
    }
    match sizes(input, layout, &fields) {
        Some(rel) => {
            for f in &mut fields {
                let at = f.at.wrapping_add_signed(rel);
                f.size = layout.value(input, at).map(|v| (at, v));
            }
        }
        // Records of other bytes than the offset, where it could be any
        // of them: what else they hold is too little to tell a table from
        // numbers that happen to rise (a PNG's chunk of chromaticities).
        None if stride > width => return Vec::new(),
        None => {}
    }
    fields
}

/// Where each record of a table of records holds its entry's size,
/// relative to its offset: the field of the same width and byte order, at
/// the same place in every record, that measures each entry to the next
/// one's start (up to [`PADDING`] bytes before it), the last one to the
/// input's end (as far), and lies before the first entry.
fn sizes(input: &[u8], layout: Layout, fields: &[Offset]) -> Option<isize> {
    let room = (layout.stride - layout.width) as isize;
    let w = layout.width as isize;
    let candidates = (1..=room / w).flat_map(|k| [k * w, -k * w]);
    let first = fields[0].value;
    candidates.filter(|&rel| rel.abs() <= room).find(|&rel| {
        fields.iter().all(|f| {
            // Inside the table, before the first entry.
            let Some(at) = f.at.checked_add_signed(rel).filter(|&at| (at + layout.width) as u64 <= first) else {
                return false;
            };
            let Some(size) = layout.value(input, at) else { return false };
            let end = f.value + size;
            end <= f.next && end + PADDING as u64 >= f.next
        })
    })
}
