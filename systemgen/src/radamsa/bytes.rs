//! Byte mutators: drop, flip, insert, repeat, permute, increment, decrement or replace a byte.

// Every mutator has the `MutFn` shape, even those that only change bytes in place.
#![allow(clippy::ptr_arg)]

use rand::seq::SliceRandom;

use super::ctx::Ctx;

/// `bd`: drop a byte.
pub(crate) fn drop_byte(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    if data.is_empty() {
        return false;
    }
    let p = ctx.pos(data.len());
    data.remove(p);
    true
}

/// `bf`: flip one bit.
pub(crate) fn flip_bit(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    if data.is_empty() {
        return false;
    }
    let p = ctx.pos(data.len());
    data[p] ^= 1 << ctx.below(8);
    true
}

/// `bi`: insert a random byte.
pub(crate) fn insert_byte(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    if ctx.room(data.len()) == 0 {
        return false;
    }
    let p = ctx.gap(data.len());
    let b = ctx.byte();
    data.insert(p, b);
    true
}

/// `br`: repeat a byte (a few times, now and then many).
pub(crate) fn repeat_byte(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let room = ctx.room(data.len());
    if data.is_empty() || room == 0 {
        return false;
    }
    let p = ctx.pos(data.len());
    let n = ctx.small(room.min(1 << 12));
    let b = data[p];
    data.splice(p..p, std::iter::repeat_n(b, n));
    true
}

/// `bp`: permute a few neighbouring bytes (a window of 2 to 16).
pub(crate) fn permute_bytes(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    if data.len() < 2 {
        return false;
    }
    let p = ctx.pos(data.len() - 1);
    let width = 1 + ctx.small((data.len() - p).min(16) - 1);
    data[p..p + width].shuffle(ctx.rng);
    true
}

/// `bei`: increment a byte by one (wrapping).
pub(crate) fn inc_byte(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    if data.is_empty() {
        return false;
    }
    let p = ctx.pos(data.len());
    data[p] = data[p].wrapping_add(1);
    true
}

/// `bed`: decrement a byte by one (wrapping).
pub(crate) fn dec_byte(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    if data.is_empty() {
        return false;
    }
    let p = ctx.pos(data.len());
    data[p] = data[p].wrapping_sub(1);
    true
}

/// `ber`: swap a byte for a different random one.
pub(crate) fn replace_byte(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    if data.is_empty() {
        return false;
    }
    let p = ctx.pos(data.len());
    data[p] ^= 1 + ctx.below(255) as u8;
    true
}

#[cfg(test)]
mod tests {
    use super::super::ctx::{testing::run, MutFn};
    use super::*;

    #[test]
    fn empty_input_only_grows() {
        let all: [MutFn; 7] = [drop_byte, flip_bit, repeat_byte, permute_bytes, inc_byte, dec_byte, replace_byte];
        for f in all {
            assert_eq!(run(f, b"", 1), (false, vec![]));
        }
        let (ok, out) = run(insert_byte, b"", 1);
        assert!(ok);
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn each_does_what_it_says() {
        for seed in 0..50 {
            let input = b"abcdefgh";
            let (_, out) = run(drop_byte, input, seed);
            assert_eq!(out.len(), 7);
            let (_, out) = run(flip_bit, input, seed);
            let diff: u32 = out.iter().zip(input).map(|(a, b)| (a ^ b).count_ones()).sum();
            assert_eq!(diff, 1);
            let (_, out) = run(insert_byte, input, seed);
            assert_eq!(out.len(), 9);
            let (_, out) = run(repeat_byte, input, seed);
            assert!(out.len() > 8);
            let mut dedup = out.clone();
            dedup.dedup();
            assert_eq!(dedup, input, "only one byte repeated");
            let (_, out) = run(permute_bytes, input, seed);
            let (mut a, mut b) = (out.clone(), input.to_vec());
            a.sort();
            b.sort();
            assert_eq!(a, b, "same bytes");
            let steps: [(MutFn, u8); 2] = [(inc_byte, 1), (dec_byte, 255)];
            for (f, delta) in steps {
                let (_, out) = run(f, input, seed);
                let changed: Vec<_> = (0..8).filter(|&i| out[i] != input[i]).collect();
                assert_eq!(changed.len(), 1);
                assert_eq!(out[changed[0]], input[changed[0]].wrapping_add(delta));
            }
            let (_, out) = run(replace_byte, input, seed);
            assert_eq!((0..8).filter(|&i| out[i] != input[i]).count(), 1);
        }
    }
}
