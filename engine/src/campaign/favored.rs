//! Favoured queue entries, as AFL++ marks them: for each branch outcome the
//! queue reaches, the entry that reaches it at the least cost (run time ×
//! length); the scheduler picks among these for its cheap picks, so that a
//! large or slow entry is mutated when nothing cheaper reaches what it does.

use std::collections::HashMap;

/// What an entry costs to mutate and run: its run time (1 µs when unknown)
/// times its length (at least 1).
fn cost(run_us: u32, len: usize) -> u64 {
    u64::from(run_us.max(1)) * len.max(1) as u64
}

/// The cheapest entry of each branch outcome, kept up as entries come.
#[derive(Default)]
pub struct Favored {
    /// Outcome slot: (cost, entry index).
    best: HashMap<u32, (u64, usize)>,
    /// Entries taken in so far.
    seen: usize,
    flags: Vec<bool>,
}

impl Favored {
    /// Takes in the entries past those already seen (`hits`, `run_us`,
    /// length, in corpus order) and says, for each entry, whether it is
    /// the cheapest to reach one of its branch outcomes (the earlier of
    /// equals).
    pub fn update<'a>(&mut self, entries: impl Iterator<Item = (&'a [u32], u32, usize)>) -> &[bool] {
        let before = self.seen;
        for (i, (hits, run_us, len)) in entries.enumerate().skip(before) {
            self.seen = i + 1;
            let c = cost(run_us, len);
            for &slot in hits {
                let b = self.best.entry(slot).or_insert((c, i));
                if c < b.0 {
                    *b = (c, i);
                }
            }
        }
        if self.seen != before {
            self.flags = vec![false; self.seen];
            for &(_, i) in self.best.values() {
                self.flags[i] = true;
            }
        }
        &self.flags
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_outcome_favours_its_cheapest_entry() {
        // 0 reaches 1 and 2; 1 reaches 2 faster; 2 reaches 1 but is long;
        // 3 reaches nothing.
        let entries: [(&[u32], u32, usize); 4] = [(&[1, 2], 100, 10), (&[2], 10, 10), (&[1], 100, 50), (&[], 1, 1)];
        assert_eq!(Favored::default().update(entries.into_iter()), [true, true, false, false]);
        // Equal costs: the earlier.
        let tie: [(&[u32], u32, usize); 2] = [(&[7], 5, 5), (&[7], 5, 5)];
        assert_eq!(Favored::default().update(tie.into_iter()), [true, false]);
        // Taken in a few at a time: the same answer, and a later cheaper
        // entry takes an outcome from an earlier one.
        let mut f = Favored::default();
        assert_eq!(f.update(entries[..1].iter().copied()), [true]);
        assert_eq!(f.update(entries.iter().copied()), [true, true, false, false]);
        let more: Vec<(&[u32], u32, usize)> = entries.iter().copied().chain([(&[1u32][..], 1, 1)]).collect();
        assert_eq!(f.update(more.into_iter()), [false, true, false, false, true]);
    }
}
