//! Word mutators for binary formats: a 1-, 2- or 4-byte integer of the test, in either byte
//! order, moved by a small amount or set to a value at the edge of its range.
//!
//! Radamsa's own mutators see bytes, lines, trees and numbers written as text; a binary
//! format's widths, counts and lengths (PNG's chunk lengths and image size, a TLV record's
//! length) are integers held as bytes, and a byte flip rarely makes one a little larger, or
//! zero, or the largest it can be. These two make what AFL++'s arithmetic and
//! interesting-value stages make; their scores learn, as every mutator's do, whether the
//! target cares.

// Every mutator has the `MutFn` shape.
#![allow(clippy::ptr_arg)]

use super::ctx::Ctx;

/// The largest amount `wa` moves a word by.
const ARITH_MAX: u64 = 35;

/// Values at the edges of 8-, 16- and 32-bit ranges, and round sizes programs compare with:
/// the first [`FOR_WIDTH`]`[0]` fit a byte, the first `[1]` two bytes, all of them four. Those
/// a width takes are distinct at that width.
const INTERESTING: [i64; 27] = [
    -128,
    -1,
    0,
    1,
    16,
    32,
    64,
    100,
    127, // 8 bits
    -32768,
    -129,
    128,
    255,
    256,
    512,
    1000,
    1024,
    4096,
    32767, // 16 bits
    -2147483648,
    -100663046,
    -32769,
    32768,
    65535,
    65536,
    100663045,
    2147483647, // 32 bits
];
const FOR_WIDTH: [usize; 3] = [9, 19, 27];
/// The widths of a word, in bytes.
const WIDTHS: [usize; 3] = [1, 2, 4];

/// A word's place in the test: where it starts, its width in bytes and its byte order.
struct Word {
    at: usize,
    width: usize,
    big_endian: bool,
}

impl Word {
    /// A word of `data` at random, of a width it has room for; `None` for an empty test.
    fn pick(ctx: &mut Ctx<'_>, data: &[u8]) -> Option<Word> {
        let fit = WIDTHS.iter().filter(|&&w| w <= data.len()).count();
        if fit == 0 {
            return None;
        }
        let width = WIDTHS[ctx.below(fit)];
        let at = ctx.pos(data.len() - width + 1);
        Some(Word { at, width, big_endian: width > 1 && ctx.chance(1, 2) })
    }

    fn read(&self, data: &[u8]) -> u64 {
        let bytes = &data[self.at..self.at + self.width];
        let fold = |v: u64, &b: &u8| v << 8 | u64::from(b);
        if self.big_endian {
            bytes.iter().fold(0, fold)
        } else {
            bytes.iter().rev().fold(0, fold)
        }
    }

    /// Writes the low `width` bytes of `v`.
    fn write(&self, data: &mut [u8], v: u64) {
        for i in 0..self.width {
            let b = (v >> (8 * i)) as u8;
            let k = if self.big_endian { self.width - 1 - i } else { i };
            data[self.at + k] = b;
        }
    }
}

/// `wa`: add to or subtract from a 1-, 2- or 4-byte word (either byte order) 1 to 35.
pub(crate) fn word_arith(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let Some(w) = Word::pick(ctx, data) else { return false };
    let delta = 1 + ctx.below(ARITH_MAX as usize) as u64;
    let v = w.read(data);
    let v = if ctx.chance(1, 2) { v.wrapping_add(delta) } else { v.wrapping_sub(delta) };
    w.write(data, v);
    true
}

/// `wi`: set a 1-, 2- or 4-byte word (either byte order) to a value at the edge of an 8-,
/// 16- or 32-bit range, one it does not hold already.
pub(crate) fn word_interesting(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let Some(w) = Word::pick(ctx, data) else { return false };
    let n = FOR_WIDTH[WIDTHS.iter().position(|&x| x == w.width).expect("a word's width")];
    let mask = (1u64 << (8 * w.width)) - 1;
    let value = |i: usize| INTERESTING[i % n] as u64 & mask;
    let i = ctx.below(n);
    // The values are distinct at this width: the next one differs from the word's.
    let v = if value(i) == w.read(data) { value(i + 1) } else { value(i) };
    w.write(data, v);
    true
}

#[cfg(test)]
mod tests {
    use super::super::ctx::testing::run;
    use super::*;

    /// The window of `after` that differs from `before`: where it starts and ends.
    fn changed(before: &[u8], after: &[u8]) -> (usize, usize) {
        let diff: Vec<usize> = (0..before.len()).filter(|&i| before[i] != after[i]).collect();
        (diff[0], diff[diff.len() - 1] + 1)
    }

    /// The word of `width` bytes at `at`, little and big endian.
    fn words(data: &[u8], at: usize, width: usize) -> [i64; 2] {
        let le = (0..width).fold(0u64, |v, i| v | u64::from(data[at + i]) << (8 * i));
        let be = (0..width).fold(0u64, |v, i| v << 8 | u64::from(data[at + i]));
        [le as i64, be as i64]
    }

    #[test]
    fn the_values_a_width_takes_are_distinct_at_that_width() {
        for (k, &width) in WIDTHS.iter().enumerate() {
            let mask = (1u64 << (8 * width)) - 1;
            let set: std::collections::BTreeSet<u64> =
                INTERESTING[..FOR_WIDTH[k]].iter().map(|&v| v as u64 & mask).collect();
            assert_eq!(set.len(), FOR_WIDTH[k], "width {width}");
        }
    }

    #[test]
    fn an_empty_test_has_no_word() {
        assert_eq!(run(word_arith, b"", 1), (false, vec![]));
        assert_eq!(run(word_interesting, b"", 1), (false, vec![]));
    }

    #[test]
    fn a_word_moves_by_at_most_35_within_its_width() {
        let input = b"\x00\x00\x01\x00IHDR\x00\x00\x00\x10\xff\xff";
        for seed in 0..200 {
            let (ok, out) = run(word_arith, input, seed);
            assert!(ok && out.len() == input.len() && out != input, "{seed}: {out:?}");
            let (lo, hi) = changed(input, &out);
            // Some width of 1, 2 or 4 from some start covers every changed byte, and the
            // word there moved by 1 to 35 (mod its range) in one byte order.
            let moved = [1usize, 2, 4].iter().any(|&width| {
                let range = 1i128 << (8 * width);
                (hi.saturating_sub(width)..=lo).filter(|&at| at + width <= input.len()).any(|at| {
                    let (a, b) = (words(input, at, width), words(&out, at, width));
                    (0..2).any(|e| {
                        let d = (i128::from(b[e]) - i128::from(a[e])).rem_euclid(range);
                        (1..=35).contains(&d) || (1..=35).contains(&(range - d))
                    })
                })
            });
            assert!(moved, "{seed}: {input:?} -> {out:?}");
        }
    }

    #[test]
    fn a_word_becomes_an_edge_value_it_was_not() {
        let input = b"\x00\x00\x00\x0dIHDR";
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..5000 {
            let (ok, out) = run(word_interesting, input, seed);
            assert!(ok && out.len() == input.len() && out != input, "{seed}: {out:?}");
            let (lo, hi) = changed(input, &out);
            assert!(hi - lo <= 4, "{seed}: {out:?}");
            seen.insert(out);
        }
        // The length field 13 becomes 0x7fffffff, big endian, in some of them; and -1 in a
        // byte somewhere.
        assert!(seen.contains(b"\x7f\xff\xff\xffIHDR".as_slice()), "{}", seen.len());
        assert!(seen.iter().any(|o| o.contains(&0xff)), "{}", seen.len());
    }
}
