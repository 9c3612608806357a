//! Who picks a test's parent. The policy (favoured entries, cheap ones,
//! recent ones) is the campaign's scheduler, not the generator's, as
//! LibAFL keeps schedulers apart from mutators: a generator asks for each
//! parent, among the entries it can derive from, and makes the test.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The parents of one batch: indices into the corpus the batch is
/// generated from.
pub trait Parents {
    /// The next parent. With `among` (indices into the corpus, sorted, not
    /// empty): one of those, the entries the generator can use (the
    /// grammar generator's: those that parse).
    fn pick(&mut self, among: Option<&[usize]>) -> usize;
}

/// Uniform picks from a corpus of `len` entries, for callers without a
/// scheduler of their own (tests, tools).
#[derive(Debug, Clone)]
pub struct Uniform {
    rng: ChaCha8Rng,
    len: usize,
}

impl Uniform {
    /// Picks for a corpus of `len` entries (at least one), seeded with `seed`.
    pub fn new(len: usize, seed: u64) -> Uniform {
        Uniform { rng: ChaCha8Rng::seed_from_u64(seed), len: len.max(1) }
    }
}

impl Parents for Uniform {
    fn pick(&mut self, among: Option<&[usize]>) -> usize {
        match among {
            Some(a) if !a.is_empty() => a[self.rng.random_range(0..a.len())],
            _ => self.rng.random_range(0..self.len),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_picks_stay_among_what_is_asked() {
        let mut p = Uniform::new(5, 1);
        let mut seen = [0usize; 5];
        for _ in 0..500 {
            seen[p.pick(None)] += 1;
            assert!([1, 3].contains(&p.pick(Some(&[1, 3]))));
        }
        assert!(seen.iter().all(|&n| n > 50), "{seen:?}");
        assert_eq!(Uniform::new(0, 1).pick(None), 0);
    }
}
