//! Self-adjusting scores: choices that make interesting tests get picked more often.
//!
//! A choice is picked with probability proportional to `priority × weight`, where
//! `weight = success × applicability`, clamped to `[MIN, MAX]` so that no choice ever starves
//! and none takes more than `MAX / MIN` times its fair share:
//!
//! - `success` is how much more often than average the tests a choice helped make were
//!   interesting: its hit rate over the hit rate of all judged tests, with [`PRIOR_HITS`]
//!   pseudo-hits at the average rate so that a few lucky tests do not decide. A choice that
//!   does not matter stays near 1 however rare interesting tests are.
//! - `applicability` is the share of its tries that changed the test.
//!
//! Counts are halved now and then ([`WINDOW`]) so scores follow the campaign as it moves on.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

pub(crate) const MIN: f64 = 0.25;
pub(crate) const MAX: f64 = 8.0;
/// Evidence a choice starts with, in hits at the average rate.
const PRIOR_HITS: f64 = 2.0;
/// Judged tests (for success) or tries of one choice (for applicability) after which the
/// counts are halved.
const WINDOW: f64 = 20_000.0;

/// Scores of named choices.
#[derive(Debug, Clone)]
pub(crate) struct Scores {
    names: Vec<&'static str>,
    priority: Vec<f64>,
    /// Judged tests this choice helped make, and how many of them were interesting.
    uses: Vec<f64>,
    hits: Vec<f64>,
    /// Tries, and how many of them changed the test.
    tries: Vec<f64>,
    changes: Vec<f64>,
    /// All judged tests, and how many were interesting.
    cases: f64,
    interesting: f64,
    /// `priority × weight`, kept up to date, and its sum.
    score: Vec<f64>,
    total: f64,
}

impl Scores {
    pub fn new(choices: impl IntoIterator<Item = (&'static str, f64)>) -> Self {
        let (names, priority): (Vec<_>, Vec<f64>) = choices.into_iter().unzip();
        let n = names.len();
        let total = priority.iter().sum();
        Scores {
            names,
            score: priority.clone(),
            priority,
            uses: vec![0.0; n],
            hits: vec![0.0; n],
            tries: vec![0.0; n],
            changes: vec![0.0; n],
            cases: 0.0,
            interesting: 0.0,
            total,
        }
    }

    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|&n| n == name)
    }

    pub fn name(&self, i: usize) -> &'static str {
        self.names[i]
    }

    /// Choice `i`'s priority becomes `priority` (0: never picked).
    pub fn set_priority(&mut self, i: usize, priority: f64) {
        self.priority[i] = priority;
        self.update(i);
    }

    /// The current score of choice `i`.
    pub fn score(&self, i: usize) -> f64 {
        self.score[i]
    }

    /// A choice, with probability proportional to its score.
    pub fn pick(&self, rng: &mut ChaCha8Rng) -> usize {
        let mut r = rng.random_range(0.0..self.total);
        for (i, s) in self.score.iter().enumerate() {
            r -= s;
            if r < 0.0 {
                return i;
            }
        }
        self.score.len() - 1
    }

    /// Choice `i` was tried; `changed`: it changed the test.
    pub fn tried(&mut self, i: usize, changed: bool) {
        self.tries[i] += 1.0;
        self.changes[i] += f64::from(u8::from(changed));
        if self.tries[i] > WINDOW {
            self.tries[i] /= 2.0;
            self.changes[i] /= 2.0;
        }
        self.update(i);
    }

    /// A test made with `used` (indices, each once) was judged.
    pub fn judged(&mut self, used: &[usize], interesting: bool) {
        let hit = f64::from(u8::from(interesting));
        self.cases += 1.0;
        self.interesting += hit;
        for &i in used {
            self.uses[i] += 1.0;
            self.hits[i] += hit;
        }
        if self.cases > WINDOW {
            self.cases /= 2.0;
            self.interesting /= 2.0;
            self.uses.iter_mut().chain(&mut self.hits).for_each(|c| *c /= 2.0);
        }
        // The average rate moved: every weight may change.
        for i in 0..self.names.len() {
            self.update(i);
        }
        self.total = self.score.iter().sum();
    }

    fn update(&mut self, i: usize) {
        let rate = (self.interesting + 1.0) / (self.cases + 2.0);
        let success = (self.hits[i] + PRIOR_HITS) / ((self.uses[i] + PRIOR_HITS / rate) * rate);
        let applicability = (self.changes[i] + 1.0) / (self.tries[i] + 1.0);
        let score = self.priority[i] * (success * applicability).clamp(MIN, MAX);
        self.total += score - self.score[i];
        self.score[i] = score;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn share(s: &Scores, i: usize) -> usize {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        (0..10_000).filter(|_| s.pick(&mut rng) == i).count()
    }

    #[test]
    fn starts_at_priorities() {
        let s = Scores::new([("a", 1.0), ("b", 3.0)]);
        assert_eq!(s.index("b"), Some(1));
        assert_eq!(s.score(1), 3.0);
        assert!((2300..2700).contains(&share(&s, 0)));
    }

    #[test]
    fn rewards_what_finds_more_than_average() {
        let mut s = Scores::new([("a", 1.0), ("b", 1.0), ("c", 1.0)]);
        for k in 0..3000 {
            // One test in 100 is interesting; "a" takes part in all of them, "b" and "c" in
            // their share.
            let hit = k % 100 == 0;
            let used: &[usize] = if hit {
                &[0, 1]
            } else if k % 2 == 0 {
                &[1]
            } else {
                &[2]
            };
            s.judged(used, hit);
        }
        assert!(s.score(0) > 4.0, "{}", s.score(0));
        assert!((0.5..3.0).contains(&s.score(1)), "{}", s.score(1));
        assert!(s.score(2) >= MIN && s.score(2) < 1.0, "{}", s.score(2));
    }

    #[test]
    fn nothing_interesting_keeps_priorities() {
        let mut s = Scores::new([("a", 1.0), ("b", 2.0)]);
        for k in 0..50_000 {
            s.judged(&[k % 2], false);
        }
        let ratio = s.score(1) / s.score(0);
        assert!((1.5..2.5).contains(&ratio), "{ratio}");
    }

    #[test]
    fn useless_choices_fall_to_the_floor_but_not_below() {
        let mut s = Scores::new([("a", 1.0), ("b", 2.0)]);
        for _ in 0..1000 {
            s.tried(1, false);
            s.tried(0, true);
        }
        assert_eq!(s.score(1), 2.0 * MIN);
        assert!((s.score(0) - 1.0).abs() < 0.01);
        assert!((3000..3700).contains(&share(&s, 1)), "{}", share(&s, 1));
    }
}
