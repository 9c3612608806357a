//! `main`'s unit rounds (as many as its share of the unit time allows, see
//! `shares.rs`) explore `main` carved from a corpus entry, taking in turn:
//! the oldest lift that added a word to the command line (a mode the
//! explorer opened, from which it goes deeper: `--check`, then a file of
//! checksum lines), an entry explored once already, again with its input
//! file's numbers padded so they can grow (`carver::grow`: an exploration
//! keeps the file's length), and the next entry in queue order (seeds
//! first, then what the campaign found). The padded turn comes second: a
//! bug behind a number longer than any seed has (accum's quantity times
//! price past `INT_MAX`) is found from the first seed's padded file, not
//! after every seed was explored as it is. `main`'s parameters are the whole
//! command line and input file, so its symbolic runs reach the whole
//! program: each entry is a new starting point for concolic search, as a
//! concolic fuzzer takes its queue.

use super::{Current, UnitWork};
use crate::campaign::{Campaign, Entry};
use std::collections::BTreeSet;

pub(super) const MAIN: &str = "main";

/// What a turn of `main` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Turn {
    Lift,
    Queue,
    Grown,
}

impl Turn {
    fn nth(n: u64) -> Turn {
        [Turn::Lift, Turn::Grown, Turn::Queue][(n % 3) as usize]
    }
}

impl Campaign {
    /// `main` of an entry not explored for this turn's kind (see the
    /// module's text), while `main` is still worth it.
    pub(super) fn main_turn(&mut self, uw: &mut UnitWork) -> crate::Result<Option<Current>> {
        if !uw.schedule.has(MAIN) || !uw.schedule.record(MAIN).explorable() {
            return Ok(None);
        }
        let turn = Turn::nth(uw.main_turns);
        uw.main_turns += 1;
        let args_in_input = self.fs.target().args_in_input;
        let limit = unitgen::symbolic::MAX_FILE_SYMBOLIC as usize;
        let has_numbers = |e: &Entry| {
            let file = if args_in_input { ::exec::split_test(&e.data).1 } else { &e.data[..] };
            carver::grow::pad_numbers(file, limit).is_some()
        };
        let Some((k, grow)) = pick(turn, &self.corpus, &uw.main_done, &uw.main_grown, has_numbers) else {
            return Ok(None);
        };
        let id = self.corpus[k].id;
        if grow {
            uw.main_grown.insert(id);
        } else {
            uw.main_done.insert(id);
        }
        let Some(mut cur) = self.main_of(uw, k)? else { return Ok(None) };
        if grow && carver::grow::pad_input_file(&mut cur.unit, &mut cur.params, limit) {
            self.file.stats.main_grown += 1;
        }
        Ok(Some(cur))
    }

    fn main_of(&mut self, uw: &UnitWork, k: usize) -> crate::Result<Option<Current>> {
        Ok(self.carve_entry(&uw.program, k, vec![MAIN.into()])?.into_iter().find(|c| c.unit.meta.function == MAIN))
    }
}

/// The entry `main` is carved from on a `turn`, and whether its file's
/// numbers are padded: on a `Grown` turn the first entry explored as it
/// is (in `done`) and not yet padded (in `grown`) whose file has numbers;
/// otherwise, or when there is none, the oldest lift that added a word
/// and is not in `done` (on a `Lift` turn, when there is one), else the
/// first entry not in `done`, else (every entry explored as it is) the
/// first to pad.
fn pick(
    turn: Turn,
    corpus: &[Entry],
    done: &BTreeSet<u64>,
    grown: &BTreeSet<u64>,
    has_numbers: impl Fn(&Entry) -> bool,
) -> Option<(usize, bool)> {
    let again = |e: &Entry| done.contains(&e.id) && !grown.contains(&e.id) && has_numbers(e);
    let grow = || corpus.iter().position(again).map(|k| (k, true));
    if turn == Turn::Grown {
        if let Some(k) = grow() {
            return Some(k);
        }
    }
    let open = |e: &Entry| !done.contains(&e.id);
    let first_lift = (turn == Turn::Lift).then(|| corpus.iter().position(|e| e.new_word && open(e))).flatten();
    first_lift.or_else(|| corpus.iter().position(open)).map(|k| (k, false)).or_else(grow)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(new_words: &[bool]) -> Vec<Entry> {
        new_words
            .iter()
            .enumerate()
            .map(|(i, &new_word)| Entry {
                id: i as u64,
                name: String::new(),
                trimmed: false,
                data: vec![b'0' + i as u8],
                hits: Vec::new(),
                new_word,
                seed: false,
                labels: provenance::Labels::own(i as u64, 1),
                run_us: 0,
            })
            .collect()
    }

    /// The entries `main` takes, turn after turn, and whether padded.
    fn order(corpus: &[Entry], has_numbers: impl Fn(&Entry) -> bool) -> Vec<(usize, bool)> {
        let (mut done, mut grown) = (BTreeSet::new(), BTreeSet::new());
        let mut out = Vec::new();
        for n in 0.. {
            let Some((k, grow)) = pick(Turn::nth(n), corpus, &done, &grown, &has_numbers) else { break };
            if grow { &mut grown } else { &mut done }.insert(corpus[k].id);
            out.push((k, grow));
        }
        out
    }

    #[test]
    fn lifts_the_queue_and_padded_entries_take_turns() {
        let c = corpus(&[false, false, true, false, true]);
        let all = order(&c, |_| true);
        assert_eq!(
            all,
            [
                (2, false),
                (2, true),
                (0, false),
                (4, false),
                (0, true),
                (1, false),
                (3, false),
                (1, true),
                (3, true),
                (4, true)
            ]
        );
        // Every entry is explored as it is once; entries with numbers
        // again, padded, once each, after their first exploration (those
        // left when no entry is left to explore as it is).
        let some = order(&c, |e| e.data[0] == b'2');
        assert_eq!(some, [(2, false), (2, true), (0, false), (4, false), (1, false), (3, false)]);
        assert_eq!(order(&c, |_| false).iter().filter(|p| p.1).count(), 0);
    }
}
