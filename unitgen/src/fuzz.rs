//! Fuzzilisk's unit fuzzer (seed 001 §4.3.2). Integers: bit flips, random
//! values, 0, INT_MAX, INT_MIN (of the parameter's width: a binary field
//! narrower than its argument, unsigned). Strings: bit
//! flips, random bytes, random ASCII, runs of NUL, runs of 0xFF, repeats of
//! the original; and, beyond the paper, a deletion of some of the
//! original's bytes (a shorter needle, one word fewer: what the others
//! reach only by chance). A digit array (`Encoding::Digits`) gets digits
//! only, as many as it holds: some of the original's changed, or all
//! drawn anew. A sign field (`Encoding::Sign`) gets the other sign.
//! Deterministic for a seed.

use crate::{Candidate, UnitGenerator};
use model::unit::{Encoding, Param, Site, Value, MAX_LENGTH};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Longest string it proposes.
const MAX_LEN: usize = 4096;

pub struct Fuzz {
    rng: ChaCha8Rng,
}

impl Fuzz {
    pub fn new(seed: u64) -> Fuzz {
        Fuzz { rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    fn int(&mut self, original: i64, (min, max): (i64, i64)) -> (Value, &'static str) {
        // Bits of the range: 8, 16, 32 or 64.
        let bits = 64 - (max as u64).leading_zeros() + u32::from(min < 0);
        match self.rng.random_range(0..5) {
            0 => {
                let flipped = original ^ (1i64 << self.rng.random_range(0..bits.min(63)));
                (Value::Int(flipped.clamp(min, max)), "bitflip")
            }
            1 => (Value::Int(self.rng.random_range(min..=max)), "random"),
            2 => (Value::Int(0), "zero"),
            3 => (Value::Int(max), "int_max"),
            _ => (Value::Int(min), "int_min"),
        }
    }

    fn bytes(&mut self, original: &[u8]) -> (Value, &'static str) {
        let len = original.len().max(1);
        let n = self.rng.random_range(1..=len.clamp(1, MAX_LEN) * 2).min(MAX_LEN);
        match self.rng.random_range(0..7) {
            0 => {
                let mut b = original.to_vec();
                if b.is_empty() {
                    b.push(0);
                }
                for _ in 0..self.rng.random_range(1..=4) {
                    let i = self.rng.random_range(0..b.len());
                    b[i] ^= 1 << self.rng.random_range(0..8);
                }
                (Value::Bytes(b), "bitflip")
            }
            1 => (Value::Bytes((0..n).map(|_| self.rng.random()).collect()), "random_bytes"),
            2 => (Value::Bytes((0..n).map(|_| self.rng.random_range(0x20..0x7f)).collect()), "random_ascii"),
            3 => (Value::Bytes(vec![0; n]), "nul_run"),
            4 => (Value::Bytes(vec![0xff; n]), "ff_run"),
            5 if original.len() > 1 => {
                let mut b = original.to_vec();
                let at = self.rng.random_range(0..b.len());
                let k = self.rng.random_range(1..=(b.len() - at).min(b.len() - 1));
                b.drain(at..at + k);
                (Value::Bytes(b), "delete")
            }
            _ => {
                let k = self.rng.random_range(2..=16);
                let mut b = original.repeat(k);
                b.truncate(MAX_LEN);
                (Value::Bytes(b), "repeat")
            }
        }
    }
}

impl Fuzz {
    /// A new value of digit array `p`: its original's digits (the input's
    /// text) with one to all of them drawn anew, held as the array holds
    /// them (raw or ASCII, in its order).
    fn digits(&mut self, p: &Param) -> (Value, &'static str) {
        let Encoding::Digits { reversed, ascii } = p.encoding else { unreachable!("a digit array") };
        let mut text: Vec<u8> = p.original.iter().filter(|b| b.is_ascii_digit()).copied().collect();
        if text.is_empty() {
            text.push(b'0');
        }
        let op = if self.rng.random_range(0..4) == 0 {
            text.iter_mut().for_each(|d| *d = self.rng.random_range(b'0'..=b'9'));
            "random_digits"
        } else {
            for _ in 0..self.rng.random_range(1..=2) {
                let i = self.rng.random_range(0..text.len());
                text[i] = self.rng.random_range(b'0'..=b'9');
            }
            "digit"
        };
        if reversed {
            text.reverse();
        }
        let held = text.into_iter().map(|d| if ascii { d } else { d - b'0' }).collect();
        (Value::Bytes(held), op)
    }
}

impl UnitGenerator for Fuzz {
    fn name(&self) -> &'static str {
        "fuzz"
    }

    fn next(&mut self, params: &[Param], n: usize) -> Vec<Candidate> {
        if params.is_empty() {
            return Vec::new();
        }
        (0..n)
            .map(|_| {
                let param = self.rng.random_range(0..params.len());
                let p = &params[param];
                let (value, op) = match p.site {
                    Site::Arg { size, .. } => self.int(p.original_int().unwrap_or(0), int_range(p, size)),
                    _ if matches!(p.encoding, Encoding::Digits { .. }) => self.digits(p),
                    _ if matches!(p.encoding, Encoding::Sign { .. }) => (sign_flipped(p), "sign"),
                    _ => self.bytes(&p.original),
                };
                Candidate { values: vec![(param, value)], op, tag: 0 }
            })
            .collect()
    }
}

/// Sign field `p` with the other sign.
fn sign_flipped(p: &Param) -> Value {
    let mut held = p.held().unwrap_or_else(|| vec![0; 4]);
    if let Some(first) = held.first_mut() {
        *first ^= 1;
    }
    Value::Bytes(held)
}

/// The values an integer parameter of a `size`-byte argument can take:
/// the argument's signed type's; for a binary field narrower than the
/// argument, the field's unsigned values (the mapping takes such a field
/// only unsigned: see `Param::original_int`); for a length, 0 to
/// [`MAX_LENGTH`] (the others cannot be lifted).
fn int_range(p: &Param, size: u8) -> (i64, i64) {
    match p.encoding {
        Encoding::Binary { width, .. } if width < size.min(8) => (0, (1i64 << (8 * u32::from(width))) - 1),
        Encoding::Length => (0, MAX_LENGTH),
        _ => {
            let bits = (8 * u32::from(size)).clamp(8, 64);
            if bits >= 64 {
                (i64::MIN, i64::MAX)
            } else {
                (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int_param() -> Param {
        Param {
            site: Site::Arg { index: 0, size: 4 },
            encoding: Encoding::Decimal,
            occurrences: vec![(0, 2)],
            original: b"12".to_vec(),
            excluded: Vec::new(),
            room: 0,
        }
    }

    fn str_param() -> Param {
        Param {
            site: Site::Stream { object: 0 },
            encoding: Encoding::Raw,
            occurrences: vec![(0, 3)],
            original: b"abc".to_vec(),
            excluded: Vec::new(),
            room: 0,
        }
    }

    #[test]
    fn boundary_values_of_the_width_come_up() {
        let mut f = Fuzz::new(1);
        let c = f.next(&[int_param()], 200);
        assert!(c.iter().any(|c| c.values[0].1 == Value::Int(i32::MIN as i64)));
        assert!(c.iter().any(|c| c.values[0].1 == Value::Int(i32::MAX as i64)));
        assert!(c.iter().any(|c| c.values[0].1 == Value::Int(0)));
        assert!(c
            .iter()
            .all(|c| matches!(c.values[0].1, Value::Int(v) if v >= i32::MIN as i64 && v <= i32::MAX as i64)));
    }

    #[test]
    fn a_binary_field_narrower_than_its_argument_gets_its_unsigned_values() {
        let p = Param {
            encoding: Encoding::Binary { width: 2, big_endian: true },
            original: vec![0x00, 0x09],
            ..int_param()
        };
        let c = Fuzz::new(3).next(std::slice::from_ref(&p), 300);
        assert!(c.iter().any(|c| c.values[0].1 == Value::Int(0xffff)));
        assert!(c.iter().all(|c| matches!(c.values[0].1, Value::Int(v) if (0..=0xffff).contains(&v))));
        assert!(c.iter().all(|c| p.liftable(&c.values[0].1)));
        // A bit of the original flipped: 9 is the value the bytes hold.
        assert!(c.iter().any(|c| c.op == "bitflip" && c.values[0].1 == Value::Int(9 ^ 0x100)));
        // As wide as the argument: its signed type's values.
        let whole =
            Param { encoding: Encoding::Binary { width: 4, big_endian: true }, original: vec![0, 0, 0, 9], ..p };
        let c = Fuzz::new(3).next(std::slice::from_ref(&whole), 300);
        assert!(c.iter().any(|c| c.values[0].1 == Value::Int(i32::MIN as i64)));
    }

    #[test]
    fn a_length_gets_lengths_that_can_be_lifted() {
        let p = Param { site: Site::Arg { index: 1, size: 8 }, encoding: Encoding::Length, ..int_param() };
        let c = Fuzz::new(4).next(std::slice::from_ref(&p), 300);
        assert!(c.iter().all(|c| p.liftable(&c.values[0].1)), "{c:?}");
        assert!(c.iter().any(|c| c.values[0].1 == Value::Int(MAX_LENGTH)));
    }

    #[test]
    fn a_digit_array_gets_digits_as_it_holds_them() {
        for (reversed, ascii) in [(false, false), (true, false), (false, true), (true, true)] {
            let p = Param { encoding: Encoding::Digits { reversed, ascii }, original: b"1234".to_vec(), ..str_param() };
            let c = Fuzz::new(5).next(std::slice::from_ref(&p), 200);
            assert!(c.iter().all(|c| p.liftable(&c.values[0].1)), "{c:?}");
            assert!(c.iter().all(|c| matches!(&c.values[0].1, Value::Bytes(b) if b.len() == 4)));
            // One digit changed keeps the others where the text has them.
            let texts: Vec<Vec<u8>> = c.iter().map(|c| p.text(&c.values[0].1)).collect();
            assert!(texts.iter().any(|t| t != b"1234" && t.starts_with(b"123")), "{texts:?}");
            for op in ["digit", "random_digits"] {
                assert!(c.iter().any(|x| x.op == op), "{op}");
            }
        }
    }

    #[test]
    fn a_sign_gets_the_other_sign() {
        let site = Site::Bytes { object: 0, offset: 0, len: 4, nul: false };
        for (original, flipped) in [(&b"_"[..], vec![0u8; 4]), (b"", vec![1, 0, 0, 0])] {
            let p = Param {
                site: site.clone(),
                encoding: Encoding::Sign { mark: b'_' },
                original: original.to_vec(),
                ..str_param()
            };
            let c = Fuzz::new(6).next(std::slice::from_ref(&p), 5);
            assert!(
                c.iter().all(|c| c.values[0].1 == Value::Bytes(flipped.clone()) && p.liftable(&c.values[0].1)),
                "{c:?}"
            );
        }
    }

    #[test]
    fn string_mutators_all_come_up_and_are_deterministic() {
        let c = Fuzz::new(7).next(&[str_param()], 300);
        for op in ["bitflip", "random_bytes", "random_ascii", "nul_run", "ff_run", "repeat", "delete"] {
            assert!(c.iter().any(|x| x.op == op), "{op}");
        }
        assert!(c
            .iter()
            .any(|x| matches!(&x.values[0].1, Value::Bytes(b) if b.iter().all(|&y| y == 0xff) && !b.is_empty())));
        // A deletion leaves the original less one run of its bytes.
        let cut = |b: &[u8]| (0..3).any(|at| (1..=3 - at).any(|k| [&b"abc"[..at], &b"abc"[at + k..]].concat() == b));
        assert!(c
            .iter()
            .filter(|x| x.op == "delete")
            .all(|x| matches!(&x.values[0].1, Value::Bytes(b) if !b.is_empty() && cut(b))));
        assert_eq!(c, Fuzz::new(7).next(&[str_param()], 300));
        assert!(Fuzz::new(7).next(&[], 5).is_empty());
    }
}
