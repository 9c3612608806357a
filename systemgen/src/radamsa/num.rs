//! `num`: find a textual number and change it (off by one, boundaries, random, huge).

use rand::Rng;

use super::ctx::Ctx;

/// Numbers longer than this are not parsed, only replaced.
const MAX_DIGITS: usize = 36;

/// Bit widths whose boundaries (2^k - 1, 2^k, 2^k + 1, signed and not) are worth hitting.
const WIDTHS: &[u32] = &[1, 2, 4, 7, 8, 15, 16, 24, 31, 32, 53, 63, 64, 100];

/// The decimal numbers in `data` as `start..end` byte ranges, a `-` included when it does not
/// follow a letter or digit (`x=-5` holds `-5`, `4-5` holds `4` and `5`).
fn numbers(data: &[u8]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < data.len() {
        if !data[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let mut start = i;
        while i < data.len() && data[i].is_ascii_digit() {
            i += 1;
        }
        if start > 0 && data[start - 1] == b'-' && (start < 2 || !data[start - 2].is_ascii_alphanumeric()) {
            start -= 1;
        }
        found.push((start, i));
    }
    found
}

/// A value near 2^k for one of the interesting widths, maybe negative.
fn boundary(ctx: &mut Ctx<'_>) -> i128 {
    let k = WIDTHS[ctx.below(WIDTHS.len())];
    let v = (1i128 << k) + ctx.rng.random_range(-1..=1);
    if ctx.chance(1, 3) {
        -v
    } else {
        v
    }
}

/// A random value of a random width.
fn random(ctx: &mut Ctx<'_>) -> i128 {
    match ctx.below(4) {
        0 => i128::from(ctx.rng.random::<u8>()),
        1 => i128::from(ctx.rng.random::<u16>()),
        2 => i128::from(ctx.rng.random::<i32>()),
        _ => i128::from(ctx.rng.random::<u64>()),
    }
}

/// The new text of a number whose value is `v` (`None`: too long to parse).
fn mutate(ctx: &mut Ctx<'_>, v: Option<i128>, room: usize) -> Vec<u8> {
    let v = match v {
        Some(v) => v,
        None => match ctx.below(3) {
            0 => return b"0".to_vec(),
            1 => return boundary(ctx).to_string().into_bytes(),
            _ => return random(ctx).to_string().into_bytes(),
        },
    };
    let new = match ctx.below(10) {
        0 => v.saturating_add(1),
        1 => v.saturating_sub(1),
        2 => v.saturating_add(ctx.small(256) as i128),
        3 => v.saturating_sub(ctx.small(256) as i128),
        4 => random(ctx),
        5 => 0,
        6 => v.saturating_neg(),
        7 => v.saturating_mul(1 << ctx.small(64)),
        8 => {
            // Many digits: far past any fixed-size integer.
            let len = 20 + ctx.small(room.clamp(1, 4096));
            let digit = if ctx.chance(1, 2) { b'9' } else { b'0' + ctx.below(10) as u8 };
            let mut out = vec![digit; len];
            out[0] = b'1' + ctx.below(9) as u8;
            return out;
        }
        _ => boundary(ctx),
    };
    new.to_string().into_bytes()
}

/// `num`: change a textual number, keeping the rest of the test.
pub(crate) fn mutate_number(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let found = numbers(data);
    if found.is_empty() {
        return false;
    }
    let (start, end) = found[ctx.pick_near(found.len(), |i| found[i].0)];
    let old = &data[start..end];
    let value =
        if old.len() <= MAX_DIGITS { std::str::from_utf8(old).ok().and_then(|s| s.parse::<i128>().ok()) } else { None };
    let room = ctx.room(data.len());
    for _ in 0..4 {
        let new = mutate(ctx, value, room);
        if new != data[start..end] && new.len() <= old.len() + room {
            data.splice(start..end, new);
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::ctx::testing::run;
    use super::*;

    #[test]
    fn finds_numbers() {
        assert_eq!(numbers(b"len 10"), vec![(4, 6)]);
        assert_eq!(numbers(b"x=-5,4-5"), vec![(2, 4), (5, 6), (7, 8)]);
        assert_eq!(numbers(b"-1"), vec![(0, 2)]);
        assert!(numbers(b"none").is_empty());
    }

    #[test]
    fn changes_the_number_and_keeps_the_rest() {
        let mut values = std::collections::HashSet::new();
        for seed in 0..20_000 {
            let (ok, out) = run(mutate_number, b"len 10;", seed);
            assert!(ok);
            let text = String::from_utf8(out).unwrap();
            let n = text.strip_prefix("len ").unwrap().strip_suffix(';').unwrap();
            assert_ne!(n, "10");
            let digits = n.strip_prefix('-').unwrap_or(n);
            assert!(!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()), "{n}");
            values.insert(n.to_string());
        }
        for expected in ["11", "9", "0", "-10", "128", "255", "65536", "2147483647", "4294967296"] {
            assert!(values.contains(expected), "{expected} never seen");
        }
        assert!(values.iter().any(|v| v.len() > 20), "many digits");
    }

    #[test]
    fn huge_numbers_are_replaced() {
        let input = [b"n=".to_vec(), vec![b'7'; 100]].concat();
        let (ok, out) = run(mutate_number, &input, 3);
        assert!(ok);
        assert!(out.starts_with(b"n=") && out != input);
        assert_eq!(run(mutate_number, b"", 3), (false, vec![]));
    }
}
