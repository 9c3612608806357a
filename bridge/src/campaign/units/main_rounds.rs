//! `main`'s unit rounds (as many as its share of the unit time allows, see
//! `shares.rs`) explore `main` carved from a corpus entry whose `main` was
//! not explored yet: in turn, the oldest lift that added a word
//! to the command line (a mode the explorer opened, from which it goes
//! deeper: `--check`, then a file of checksum lines) and the next entry in
//! queue order (seeds first, then what the campaign found). `main`'s
//! parameters are the whole command line and input file, so its symbolic
//! runs reach the whole program: each entry is a new starting point for
//! concolic search, as a concolic fuzzer takes its queue.

use super::{Current, UnitWork, MAX_FRUITLESS, MAX_UNREPLAYABLE};
use crate::campaign::{Campaign, Entry};
use std::collections::BTreeSet;

pub(super) const MAIN: &str = "main";

impl Campaign {
    /// `main` of an entry not explored for it (the oldest lift that added
    /// a word or the first in queue order, in turn), while `main` is still
    /// worth it.
    pub(super) fn main_turn(&mut self, uw: &mut UnitWork) -> anyhow::Result<Option<Current>> {
        let count = |m: &std::collections::BTreeMap<String, u32>| m.get(MAIN).copied().unwrap_or(0);
        if !uw.functions.contains_key(MAIN)
            || count(&uw.unreplayable) >= MAX_UNREPLAYABLE
            || count(&uw.fruitless) >= MAX_FRUITLESS
        {
            return Ok(None);
        }
        uw.main_lift_next = !uw.main_lift_next;
        let Some(k) = next_entry(&self.corpus, &uw.main_done, uw.main_lift_next) else { return Ok(None) };
        uw.main_done.insert(self.corpus[k].id);
        Ok(self.carve_entry(&uw.program, k, vec![MAIN.into()])?.into_iter().find(|c| c.unit.meta.function == MAIN))
    }
}

/// The position of the entry `main` is carved from next: the oldest lift
/// that added a word, not in `done`, when `lift` says so and there is one,
/// else the first entry not in `done`.
fn next_entry(corpus: &[Entry], done: &BTreeSet<u64>, lift: bool) -> Option<usize> {
    let open = |e: &Entry| !done.contains(&e.id);
    let first_lift = lift.then(|| corpus.iter().position(|e| e.new_word && open(e))).flatten();
    first_lift.or_else(|| corpus.iter().position(open))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifts_that_added_a_word_and_the_queue_take_turns() {
        let corpus: Vec<Entry> = [false, false, true, false, true]
            .iter()
            .enumerate()
            .map(|(i, &new_word)| Entry { id: i as u64, data: Vec::new(), hits: Vec::new(), new_word, seed: false })
            .collect();
        let mut done = BTreeSet::new();
        let mut order = Vec::new();
        let mut lift = false;
        while let Some(k) = {
            lift = !lift;
            next_entry(&corpus, &done, lift)
        } {
            done.insert(corpus[k].id);
            order.push(k);
        }
        assert_eq!(order, [2, 0, 4, 1, 3]);
    }
}
