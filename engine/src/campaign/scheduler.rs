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
//! the shorter when a run time is unknown; each times the runs that took
//! the entry's path, `paths.rs`), among the favoured entries
//! ([`Seed::favored`], `favored.rs`) when there are any. Most picks go to the favoured entries, as AFL++
//! mostly skips the others: the corpus fills with entries kept for a
//! longer loop or a larger count, each slower than the entry it came from,
//! and every mutant of a parent pays for its size and run time again.
//! Weighing the cost by the path's runs is AFL++'s `fast` schedule in
//! this scheduler's terms: of two entries that cost the same, the one
//! whose path fewer runs took is picked, and a parent picked often makes
//! mutants that take its path, so the picks move on to others.

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

    /// The parents of a batch generated from `corpus`, whose entries'
    /// paths `runs` took so many runs each (in corpus order; missing
    /// ones count 1).
    pub(super) fn batch<'a, 's>(&'a mut self, corpus: &'a [Seed<'s>], runs: &'a [u32]) -> Batch<'a, 's> {
        let favored = (0..corpus.len()).filter(|&i| corpus[i].favored).collect();
        Batch { rng: &mut self.rng, corpus, runs, favored }
    }
}

/// Picks for one batch.
pub(super) struct Batch<'a, 's> {
    rng: &'a mut ChaCha8Rng,
    corpus: &'a [Seed<'s>],
    /// Runs of each entry's path.
    runs: &'a [u32],
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
                pick(self.rng, (self.corpus, self.runs), Some(among), &favored)
            }
            _ => pick(self.rng, (self.corpus, self.runs), None, &self.favored),
        }
    }
}

/// An index into `corpus` (its entries' paths' runs beside it), among
/// `among` when given (sorted), by the policy above; `favored`: the
/// favoured entries among those.
fn pick(
    rng: &mut ChaCha8Rng,
    (corpus, runs): (&[Seed<'_>], &[u32]),
    among: Option<&[usize]>,
    favored: &[usize],
) -> usize {
    let n = among.map_or(corpus.len(), <[usize]>::len);
    let at = |k: usize| among.map_or(k, |a| a[k]);
    let a = at(rng.random_range(0..n));
    match rng.random_range(0..16) {
        0 => a,
        1 => a.max(at(rng.random_range(0..n))),
        _ if !favored.is_empty() => {
            let (a, b) = (favored[rng.random_range(0..favored.len())], favored[rng.random_range(0..favored.len())]);
            lighter(corpus, runs, a, b)
        }
        _ => lighter(corpus, runs, a, at(rng.random_range(0..n))),
    }
}

/// The lighter of entries `a` and `b` (`a` on a tie): what each costs to
/// mutate and run (by run time when both are known, by length otherwise)
/// times the runs its path took.
fn lighter(corpus: &[Seed<'_>], runs: &[u32], a: usize, b: usize) -> usize {
    let both_timed = corpus[a].run_us > 0 && corpus[b].run_us > 0;
    let weight = |i: usize| {
        let cost = if both_timed { u64::from(corpus[i].run_us) } else { corpus[i].data.len() as u64 };
        cost * u64::from(runs.get(i).copied().unwrap_or(1).max(1))
    };
    if weight(b) < weight(a) {
        b
    } else {
        a
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
        share_with_runs(corpus, &[], among)
    }

    /// [`share`], the entries' paths having taken `runs`.
    fn share_with_runs(corpus: &[Seed<'_>], runs: &[u32], among: Option<&[usize]>) -> f64 {
        let mut s = Scheduler::new(3);
        let mut b = s.batch(corpus, runs);
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
        assert_eq!((lighter(&short, &[], 0, 1), lighter(&short, &[], 1, 0)), (1, 1));
    }

    #[test]
    fn an_entry_whose_path_few_runs_took_is_picked_more_often() {
        // All favoured and equally fast; entry 5's path took 10 runs, the
        // others' 1,000: it wins every cheap pick it is in.
        let c = corpus(1000, 1000, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        let mut runs = vec![1000; 10];
        runs[5] = 10;
        let rare = share_with_runs(&c, &runs, None);
        let even = share(&c, None);
        assert!(rare > 0.16 && rare > even * 1.6, "{rare} against {even}");
        // Cost and runs are weighed together: 5 times faster, but its
        // path 20 times as worn, it loses to the others.
        let c = corpus(100, 500, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        runs = vec![50; 10];
        runs[5] = 1000;
        let worn = share_with_runs(&c, &runs, None);
        assert!(worn < 0.05, "{worn}");
    }

    #[test]
    fn picks_among_a_subset_follow_the_same_policy_inside_it() {
        // Only 3, 5 and 8 are usable; 7 is favoured but not usable.
        let among = [3, 5, 8];
        let c = corpus(100, 1000, &[7]);
        let mut s = Scheduler::new(1);
        let mut b = s.batch(&c, &[]);
        assert!((0..2000).all(|_| among.contains(&b.pick(Some(&among)))));
        // The cheap one gets more than a third; favoured and usable, nearly all.
        let cheap = share(&c, Some(&among));
        assert!(cheap > 0.5, "{cheap}");
        let favoured = share(&corpus(1000, 1000, &[5, 7]), Some(&among));
        assert!(favoured > 0.85, "{favoured}");
        // An empty corpus gives 0 rather than panicking.
        assert_eq!(Scheduler::new(1).batch(&[], &[]).pick(None), 0);
    }
}
