//! What a mutator may use: the random source, the corpus, the size limit and a burst's focus.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::Seed;

/// A mutator: changes the test in place; `false` means it could not apply and left the
/// test untouched.
pub(crate) type MutFn = fn(&mut Ctx<'_>, &mut Vec<u8>) -> bool;

/// Everything a mutator needs besides the test it changes.
pub(crate) struct Ctx<'a> {
    pub rng: &'a mut ChaCha8Rng,
    /// The whole corpus, for mutators that take material from elsewhere.
    pub corpus: &'a [Seed<'a>],
    /// Tests this generator made lately (`ft` fuses with them).
    pub recent: &'a [Vec<u8>],
    /// The largest the test may grow to.
    pub limit: usize,
    /// Byte range `[lo, hi)` a burst (`bu`) keeps its mutations in.
    pub focus: Option<(usize, usize)>,
    /// Corpus entries a mutator took bytes from (a splice's other
    /// parents), as indices into `corpus`.
    pub donors: Vec<usize>,
    /// The dictionary (`tokens.rs`), possibly empty.
    pub tokens: &'a [Vec<u8>],
}

impl<'a> Ctx<'a> {
    /// A context with no focus and no donors yet.
    pub fn new(
        rng: &'a mut ChaCha8Rng,
        corpus: &'a [Seed<'a>],
        recent: &'a [Vec<u8>],
        tokens: &'a [Vec<u8>],
        limit: usize,
    ) -> Self {
        Ctx { rng, corpus, recent, limit, focus: None, donors: Vec::new(), tokens }
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        self.rng.random_range(0..n)
    }

    /// True `num` times out of `den`.
    pub fn chance(&mut self, num: u32, den: u32) -> bool {
        self.rng.random_ratio(num, den)
    }

    pub fn byte(&mut self) -> u8 {
        self.rng.random()
    }

    /// How many bytes the test may still grow by.
    pub fn room(&self, len: usize) -> usize {
        self.limit.saturating_sub(len)
    }

    /// A log-uniform number in `1..=max` (`max >= 1`): mostly small, sometimes large.
    pub fn small(&mut self, max: usize) -> usize {
        let max = max.max(1);
        let bits = usize::BITS - max.leading_zeros(); // 1..=64
        let top = 1usize.checked_shl(self.rng.random_range(0..bits)).unwrap_or(usize::MAX).min(max);
        self.rng.random_range(1..=top)
    }

    /// Continue with probability 1/2, at most `max` times: 0, 1, 2... with halving odds.
    pub fn geometric(&mut self, max: usize) -> usize {
        let mut n = 0;
        while n < max && self.rng.random_bool(0.5) {
            n += 1;
        }
        n
    }

    /// The focus clipped to `0..len`, if any of it is left.
    fn window(&self, len: usize) -> Option<(usize, usize)> {
        let (lo, hi) = self.focus?;
        let hi = hi.min(len);
        (lo < hi).then_some((lo, hi))
    }

    /// A byte index in `0..len` (`len > 0`), inside the focus when there is one.
    pub fn pos(&mut self, len: usize) -> usize {
        match self.window(len) {
            Some((lo, hi)) => self.rng.random_range(lo..hi),
            None => self.below(len),
        }
    }

    /// A place between bytes, `0..=len`, inside the focus when there is one.
    pub fn gap(&mut self, len: usize) -> usize {
        match self.window(len + 1) {
            Some((lo, hi)) => self.rng.random_range(lo..hi),
            None => self.rng.random_range(0..=len),
        }
    }

    /// One of `n > 0` items whose byte offsets `start(i)` grows with `i`, preferring
    /// items inside the focus.
    pub fn pick_near(&mut self, n: usize, start: impl Fn(usize) -> usize) -> usize {
        if let Some((lo, hi)) = self.focus {
            let first = (0..n).position(|i| start(i) >= lo);
            let last = (0..n).rposition(|i| start(i) < hi);
            if let (Some(a), Some(b)) = (first, last) {
                if a <= b {
                    return self.rng.random_range(a..=b);
                }
            }
        }
        self.below(n)
    }

    /// A random corpus entry (possibly the one being mutated).
    pub fn other(&mut self) -> &'a [u8] {
        if self.corpus.is_empty() {
            return &[];
        }
        let i = self.below(self.corpus.len());
        self.donors.push(i);
        self.corpus[i].data
    }

    /// A test made lately, or a corpus entry when there is none. A recent
    /// test is no corpus entry: bytes taken from it count as written by
    /// the mutator that took them.
    pub fn recent_or_other(&mut self) -> &'a [u8] {
        if self.recent.is_empty() {
            return self.other();
        }
        let i = self.below(self.recent.len());
        &self.recent[i]
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Running one mutator by hand in unit tests.
    use super::{Ctx, MutFn};
    use crate::Seed;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Runs `f` on `input` with seed `seed`: what it returned and the data after.
    pub fn run(f: MutFn, input: &[u8], seed: u64) -> (bool, Vec<u8>) {
        run_with(f, input, &[input], seed)
    }

    /// Like [`run`], with a corpus of `others`.
    pub fn run_with(f: MutFn, input: &[u8], others: &[&[u8]], seed: u64) -> (bool, Vec<u8>) {
        run_full(f, input, others, &[], seed)
    }

    /// Like [`run`], with a dictionary of `tokens`.
    pub fn run_with_tokens(f: MutFn, input: &[u8], tokens: &[Vec<u8>], seed: u64) -> (bool, Vec<u8>) {
        run_full(f, input, &[input], tokens, seed)
    }

    fn run_full(f: MutFn, input: &[u8], others: &[&[u8]], tokens: &[Vec<u8>], seed: u64) -> (bool, Vec<u8>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let corpus: Vec<Seed<'_>> = others
            .iter()
            .enumerate()
            .map(|(i, d)| Seed { id: i as u64, data: d, labels: None, run_us: 0, favored: false })
            .collect();
        let mut ctx = Ctx::new(&mut rng, &corpus, &[], tokens, super::super::size_limit(input.len()));
        let mut data = input.to_vec();
        let ok = f(&mut ctx, &mut data);
        (ok, data)
    }
}
