//! The search for chains of records (see the module above).

use super::crc::Check;
use super::{Splice, FIRST_WITHIN, HEADER_WITHIN};

/// Bytes between a field and what it measures, and between what it
/// measures and the next field.
const SPACES: [usize; 4] = [0, 1, 2, 4];

/// A chain of records, and the checksum its trailers hold, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Chain {
    pub fields: Vec<Field>,
    pub check: Option<Check>,
}

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
        (end <= hi).then_some(Field {
            at,
            width: self.width,
            big_endian: self.big_endian,
            counted,
            start,
            end,
            trailer: self.trailer,
        })
    }
}

/// A length field at `at` and the bytes it measures, `start..end`; its
/// value is their length and `counted` (the header's bytes, when it
/// counts them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Field {
    pub at: usize,
    pub width: usize,
    pub big_endian: bool,
    pub counted: u64,
    pub start: usize,
    pub end: usize,
    /// Bytes after `end` that are no record's (a checksum, a type).
    pub trailer: usize,
}

impl Field {
    /// Its new value when `splices` are made, `None` when it keeps its
    /// value, a splice is written over it or across one of its record's
    /// ends, or the new length does not fit.
    pub fn new_value(&self, splices: &[Splice]) -> Option<u64> {
        let inside = || splices.iter().filter(|s| s.within(self.start..self.end));
        let moved: isize = inside().map(Splice::delta).sum();
        let over_field = splices.iter().any(|s| s.over(self.at..self.at + self.width));
        let straddles = inside().any(|s| s.at < self.start || s.end > self.end);
        if moved == 0 || over_field || straddles {
            return None;
        }
        let len = u64::try_from((self.end - self.start) as isize + moved).ok()?;
        Some(len + self.counted).filter(|&v| v < 1 << (8 * self.width))
    }

    pub fn bytes(&self, value: u64) -> Vec<u8> {
        bytes(value, self.width, self.big_endian)
    }
}

/// `value` as a field of `width` bytes in that byte order.
pub(super) fn bytes(value: u64, width: usize, big_endian: bool) -> Vec<u8> {
    let be = value.to_be_bytes();
    let mut bytes = be[8 - width..].to_vec();
    if !big_endian {
        bytes.reverse();
    }
    bytes
}

/// The chains of records that tile `input[lo..hi]` from the first field
/// nearest `lo` to `hi`, the longest of those (one for each layout that
/// makes such a chain). A chain that starts first holds the others, if
/// they are true chains too: they are found inside its records.
pub(super) fn first_chains(input: &[u8], lo: usize, hi: usize) -> Vec<Chain> {
    // No field of two bytes or more holds less than its least byte times
    // 257, and what a field counts lies inside the range (a header of 8
    // bytes at most included): most text, whose least byte is a newline,
    // is done here.
    let least = input[lo..hi].iter().min().map_or(0, |&b| b as usize);
    if least * 257 > hi - lo + 8 {
        return Vec::new();
    }
    let mut best: (usize, usize, Vec<Chain>) = (usize::MAX, 0, Vec::new());
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
            let check = Check::find(input, &fields);
            best.2.push(Chain { fields, check });
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
