//! The system level's scheduler: which corpus entry each generated test
//! derives from. Generators ask it for every parent
//! ([`systemgen::Parents`]), so the policy is the same whatever makes the
//! tests.
//!
//! One pick in sixteen is uniform, one in sixteen leans toward recent
//! entries (the later of two uniform picks: the corpus is in the order it
//! was found), and the rest lean toward cheap ones (the cheaper of two
//! uniform picks, by [`Seed::run_us`]: what a mutant is expected to cost,
//! the time limit its mutants ran into counted in, `child_timeouts.rs`;
//! the shorter when a run time is unknown), among the favoured entries ([`Seed::favored`], `favored.rs`)
//! when there are any. Most picks go to the favoured entries, as AFL++
//! mostly skips the others: the corpus fills with entries kept for a
//! longer loop or a larger count, each slower than the entry it came from,
//! and every mutant of a parent pays for its size and run time again.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use systemgen::{Parents, Seed};

/// The scheduler's state across batches: its random stream.
pub(super) struct Scheduler {
    rng: ChaCha8Rng,
}

impl Scheduler {
    /// A scheduler whose picks follow from `seed`.
    pub(super) fn new(seed: u64) -> Scheduler {
        // Apart from the generator's own stream, which is seeded with `seed`.
        Scheduler { rng: ChaCha8Rng::seed_from_u64(seed ^ 0x5ced_u64.rotate_left(40)) }
    }

    /// The parents of a batch generated from `corpus`.
    pub(super) fn batch<'a, 's>(&'a mut self, corpus: &'a [Seed<'s>]) -> Batch<'a, 's> {
        let favored = (0..corpus.len()).filter(|&i| corpus[i].favored).collect();
        Batch { rng: &mut self.rng, corpus, favored }
    }
}

/// Picks for one batch.
pub(super) struct Batch<'a, 's> {
    rng: &'a mut ChaCha8Rng,
    corpus: &'a [Seed<'s>],
    /// The favoured entries' indices.
    favored: Vec<usize>,
}

impl Parents for Batch<'_, '_> {
    fn pick(&mut self, among: Option<&[usize]>) -> usize {
        if self.corpus.is_empty() {
            return 0;
        }
        match among {
            Some(among) if !among.is_empty() => {
                let favored: Vec<usize> = among.iter().copied().filter(|&i| self.corpus[i].favored).collect();
                pick(self.rng, self.corpus, Some(among), &favored)
            }
            _ => pick(self.rng, self.corpus, None, &self.favored),
        }
    }
}

/// An index into `corpus`, among `among` when given (sorted), by the
/// policy above; `favored`: the favoured entries among those.
fn pick(rng: &mut ChaCha8Rng, corpus: &[Seed<'_>], among: Option<&[usize]>, favored: &[usize]) -> usize {
    let n = among.map_or(corpus.len(), <[usize]>::len);
    let at = |k: usize| among.map_or(k, |a| a[k]);
    let a = at(rng.random_range(0..n));
    match rng.random_range(0..16) {
        0 => a,
        1 => a.max(at(rng.random_range(0..n))),
        _ if !favored.is_empty() => {
            let (a, b) = (favored[rng.random_range(0..favored.len())], favored[rng.random_range(0..favored.len())]);
            if cheaper(&corpus[b], &corpus[a]) {
                b
            } else {
                a
            }
        }
        _ => {
            let b = at(rng.random_range(0..n));
            if cheaper(&corpus[b], &corpus[a]) {
                b
            } else {
                a
            }
        }
    }
}

/// Whether `x` costs less to mutate and run than `y`: by run time when both
/// are known, by length otherwise.
fn cheaper(x: &Seed<'_>, y: &Seed<'_>) -> bool {
    if x.run_us > 0 && y.run_us > 0 {
        x.run_us < y.run_us
    } else {
        x.data.len() < y.data.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAME: &[u8] = b"same length";

    /// Ten entries of one length: entry 5 runs in `cheap` µs, the others
    /// in `rest`; `favoured` are marked so.
    fn corpus(cheap: u32, rest: u32, favoured: &[u64]) -> Vec<Seed<'static>> {
        (0..10)
            .map(|i| Seed {
                id: i,
                data: SAME,
                labels: None,
                run_us: if i == 5 { cheap } else { rest },
                favored: favoured.contains(&i),
            })
            .collect()
    }

    /// The share of 20,000 picks that go to entry 5.
    fn share(corpus: &[Seed<'_>], among: Option<&[usize]>) -> f64 {
        let mut s = Scheduler::new(3);
        let mut b = s.batch(corpus);
        let n = 20_000;
        (0..n).filter(|_| b.pick(among) == 5).count() as f64 / n as f64
    }

    #[test]
    fn cheap_and_favoured_entries_are_picked_more_often() {
        // A tenth each when all cost the same; the fast one about one and
        // four fifths times that (the faster of two, seven times in eight).
        let even = share(&corpus(1000, 1000, &[]), None);
        let fast = share(&corpus(100, 1000, &[]), None);
        assert!((0.08..0.12).contains(&even), "{even}");
        assert!(fast > 0.16 && fast > even * 1.6, "{fast} against {even}");
        // The cheap picks are among the favoured entries: one favoured
        // entry of ten is picked about seven times in eight.
        let favoured = share(&corpus(1000, 1000, &[5]), None);
        assert!(favoured > 0.85, "{favoured}");
        let two = share(&corpus(100, 1000, &[5, 7]), None);
        assert!(two > 0.65 && two < favoured, "{two}");
        // An unknown run time: the shorter of the two is taken instead.
        let short = [
            Seed { id: 0, data: b"xxxxxxxx", labels: None, run_us: 0, favored: false },
            Seed { id: 1, data: b"x", labels: None, run_us: 9, favored: false },
        ];
        assert!(cheaper(&short[1], &short[0]) && !cheaper(&short[0], &short[1]));
    }

    #[test]
    fn picks_among_a_subset_follow_the_same_policy_inside_it() {
        // Only 3, 5 and 8 are usable; 7 is favoured but not usable.
        let among = [3, 5, 8];
        let c = corpus(100, 1000, &[7]);
        let mut s = Scheduler::new(1);
        let mut b = s.batch(&c);
        assert!((0..2000).all(|_| among.contains(&b.pick(Some(&among)))));
        // The cheap one gets more than a third; favoured and usable, nearly all.
        let cheap = share(&c, Some(&among));
        assert!(cheap > 0.5, "{cheap}");
        let favoured = share(&corpus(1000, 1000, &[5, 7]), Some(&among));
        assert!(favoured > 0.85, "{favoured}");
        // An empty corpus gives 0 rather than panicking.
        assert_eq!(Scheduler::new(1).batch(&[]).pick(None), 0);
    }
}
