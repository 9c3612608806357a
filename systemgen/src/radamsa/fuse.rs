//! Fuse mutators: cut the test and continue it from a similar place in other data.
//!
//! The cut keeps `data[..i]` and appends `other[j..]`, where `other[..j]` ends with the same
//! few bytes as `data[..i]` (4, 2 or 1 of them; any place when nothing matches).

use super::ctx::Ctx;
use memchr::memmem;
use std::ops::Range;

/// At most this many places of the other data are compared per try.
const SCAN: usize = 1 << 16;

/// Where in `other` to continue after `head`: just past an occurrence of the last bytes of
/// `head`, searched from a random place (wrapping around, at most [`SCAN`] places); never
/// `not` (fusing a test with itself).
fn similar(ctx: &mut Ctx<'_>, head: &[u8], other: &[u8], not: Option<usize>) -> Option<usize> {
    for k in [4, 2, 1] {
        if k > head.len() || k > other.len() {
            continue;
        }
        let needle = &head[head.len() - k..];
        let places = other.len() - k + 1;
        let from = ctx.below(places);
        let upto = places.min(from + SCAN);
        let wrapped = SCAN - (upto - from);
        let found = first_match(other, needle, from..upto, not)
            .or_else(|| first_match(other, needle, 0..from.min(wrapped), not));
        if let Some(p) = found {
            return Some(p + k);
        }
    }
    None
}

/// The first place `p` in `places` where `hay[p..]` starts with `needle`, other than the one
/// ending at `not`.
fn first_match(hay: &[u8], needle: &[u8], places: Range<usize>, not: Option<usize>) -> Option<usize> {
    let mut start = places.start;
    while start < places.end {
        let window = &hay[start..places.end + needle.len() - 1];
        let p = start + memmem::find(window, needle)?;
        if Some(p + needle.len()) != not {
            return Some(p);
        }
        start = p + 1;
    }
    None
}

/// Keeps `data[..i]` and continues with `other` from a similar place.
fn fuse(ctx: &mut Ctx<'_>, data: &mut Vec<u8>, other: &[u8], same: bool) -> bool {
    if data.is_empty() && other.is_empty() {
        return false;
    }
    let i = ctx.gap(data.len());
    let not = same.then_some(i);
    let j = similar(ctx, &data[..i], other, not).unwrap_or_else(|| ctx.below(other.len() + 1));
    let take = (other.len() - j).min(ctx.limit.saturating_sub(i));
    data.truncate(i);
    data.extend_from_slice(&other[j..j + take]);
    true
}

/// `ft`: jump to a similar place in another test (one made lately, or a corpus entry).
pub(crate) fn fuse_this(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let other = ctx.recent_or_other();
    fuse(ctx, data, other, false)
}

/// `fn`: jump to a similar place in the same test (forwards drops a part, backwards repeats
/// one).
pub(crate) fn fuse_next(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let copy = data.clone();
    fuse(ctx, data, &copy, true)
}

/// `fo`: jump to a similar place in a corpus entry.
pub(crate) fn fuse_old(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let other = ctx.other();
    fuse(ctx, data, other, false)
}

#[cfg(test)]
mod tests {
    use super::super::ctx::testing::{run, run_with};
    use super::*;

    #[test]
    fn fuses_at_shared_bytes() {
        let a: &[u8] = b"GET /index.html HTTP/1.0\r\nHost: a\r\n\r\n";
        let b: &[u8] = b"POST /form HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc";
        let mut mixed = 0;
        for seed in 0..200 {
            let (ok, out) = run_with(fuse_old, a, &[b], seed);
            assert!(ok);
            // A prefix of `a` followed by a suffix of `b`.
            let ok = (0..=out.len()).any(|cut| a.starts_with(&out[..cut]) && b.ends_with(&out[cut..]));
            assert!(ok, "{}", String::from_utf8_lossy(&out));
            mixed += usize::from(out != a && out != b);
        }
        assert!(mixed > 100);
    }

    #[test]
    fn fuse_next_moves_within_the_test() {
        let a: &[u8] = b"one two three four five six";
        let mut changed = 0;
        for seed in 0..200 {
            let (ok, out) = run(fuse_next, a, seed);
            assert!(ok);
            changed += usize::from(out != a);
            assert!(out.iter().all(|b| a.contains(b)));
        }
        assert!(changed > 150, "{changed}");
    }

    #[test]
    fn first_match_is_the_first_place_a_scan_finds() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..2000 {
            let hay: Vec<u8> = (0..rng.random_range(1..40)).map(|_| rng.random_range(b'a'..b'c')).collect();
            let k = rng.random_range(1..=hay.len().min(4));
            let needle: Vec<u8> = (0..k).map(|_| rng.random_range(b'a'..b'd')).collect();
            let places = hay.len() - k + 1;
            let lo = rng.random_range(0..=places);
            let hi = rng.random_range(lo..=places);
            let at = |p: usize| hay[p..p + k] == needle[..];
            // Often the end of the first match, so that the next one (perhaps overlapping it)
            // is the answer.
            let not = match rng.random_range(0..3) {
                0 => None,
                1 => Some(rng.random_range(0..=hay.len())),
                _ => (lo..hi).find(|&p| at(p)).map(|p| p + k),
            };
            let scan = (lo..hi).find(|&p| at(p) && Some(p + k) != not);
            assert_eq!(first_match(&hay, &needle, lo..hi, not), scan, "{hay:?} {needle:?} {lo}..{hi} {not:?}");
        }
    }

    #[test]
    fn empty_inputs() {
        assert_eq!(run_with(fuse_old, b"", &[b""], 1), (false, vec![]));
        let (ok, out) = run_with(fuse_old, b"", &[b"xyz"], 1);
        assert!(ok && b"xyz".ends_with(&out));
        let (ok, out) = run_with(fuse_this, b"abc", &[b""], 1);
        assert!(ok && b"abc".starts_with(&out));
    }
}
