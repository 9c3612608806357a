//! Which unit a round explores, from what the rounds know of each function
//! (a [`Record`]): pure, so that the campaign only runs and writes. A
//! function is worth units while system runs leave some of its branch
//! outcomes open; it is dropped when its units cannot be replayed, when
//! its lifts keep reproducing nothing, when carving gives it no unit with
//! parameters, when its rounds keep failing, or when its units keep
//! giving nothing to try beyond themselves.

use driver::carve::FunctionInfo;
use std::collections::BTreeMap;

/// Units of one function that could not be replayed, after which the
/// function is no longer chosen (its context is not in its snapshots).
const MAX_UNREPLAYABLE: u32 = 2;
/// Carvings for a function that gave it no unit with parameters, after
/// which no more entries are carved for it.
const MAX_BARREN: u32 = 2;
/// Lifts in a row from one function that reproduced nothing at system
/// level, after which its values are no longer lifted and it is no longer
/// chosen (its parameters are coincidences: `version_etc_arn`'s count of
/// authors mapped to a `2` of the input).
pub(super) const MAX_FRUITLESS: u32 = 8;
/// Rounds of one function that failed (a trace that does not decode, a
/// replay that cannot start), after which it is no longer chosen.
const MAX_FAILED: u32 = 3;
/// Units in a row of one function that gave nothing to try but
/// themselves as carved (no branch their parameters decide, no mutation
/// that ran), after which it is no longer chosen: a function such as a SQL
/// function's wrapper, whose only parameter (its argument count) maps to
/// a digit of the input by chance, would take every round otherwise.
pub(super) const MAX_IDLE: u32 = 8;

/// What the rounds know of one function.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Record {
    /// Queue entries carved for it (chosen because they reach it).
    pub carves: u32,
    /// Carvings that asked for it and gave it no unit with parameters.
    pub barren: u32,
    /// Its units explored.
    pub analysed: u32,
    /// Lifts in a row that were neither coverage lifts nor true alarms.
    pub fruitless: u32,
    /// Its units whose replay, as carved, crashed or hung.
    pub unreplayable: u32,
    /// Its rounds that failed.
    pub failed: u32,
    /// Rounds in a row that tried its unit as carved and nothing else.
    pub idle: u32,
}

impl Record {
    /// Its units may still be explored.
    pub fn explorable(&self) -> bool {
        self.unreplayable < MAX_UNREPLAYABLE
            && self.fruitless < MAX_FRUITLESS
            && self.failed < MAX_FAILED
            && self.idle < MAX_IDLE
    }

    /// Entries may still be carved for it.
    fn carvable(&self) -> bool {
        self.explorable() && self.barren < MAX_BARREN
    }
}

/// The instrumented functions and what the rounds know of each.
pub(super) struct Schedule {
    functions: BTreeMap<String, FunctionInfo>,
    records: BTreeMap<String, Record>,
    /// Whether `functions` is a part of the program's (`--functions`).
    part: bool,
}

impl Schedule {
    /// `part`: whether `functions` are some of the program's only.
    pub fn new(functions: Vec<FunctionInfo>, part: bool) -> Schedule {
        Schedule {
            functions: functions.into_iter().map(|f| (f.name.clone(), f)).collect(),
            records: BTreeMap::new(),
            part,
        }
    }

    pub fn has(&self, function: &str) -> bool {
        self.functions.contains_key(function)
    }

    pub fn record(&self, function: &str) -> Record {
        self.records.get(function).copied().unwrap_or_default()
    }

    pub fn record_mut(&mut self, function: &str) -> &mut Record {
        self.records.entry(function.to_string()).or_default()
    }

    /// Branch outcomes of `function` that no system run has covered.
    pub fn open(&self, function: &str, covered: &impl Fn(u32) -> bool) -> usize {
        self.functions.get(function).map_or(0, |f| open_outcomes(f, covered))
    }

    /// What a unit of `function` is worth to the rounds: its open
    /// outcomes, plus one while it was never explored, less what earlier
    /// rounds spent on it. The one unexplained outcome is for what system
    /// coverage cannot show: a function without a branch (`set_title`'s
    /// `memcpy` and store), or whose branches are all covered, still has
    /// the checks the explorer asks about (an access past its object, an
    /// overflow, a division by zero) that no system run has met.
    pub fn worth(&self, function: &str, covered: &impl Fn(u32) -> bool) -> f64 {
        let r = self.record(function);
        let untried = u32::from(r.analysed == 0);
        (self.open(function, covered) as f64 + f64::from(untried)) / f64::from(1 + r.analysed)
    }

    /// Of a pool of units (their functions), the one to explore: the
    /// explorable one worth most ([`Schedule::worth`]). `None`: no unit of
    /// the pool is worth it.
    pub fn best_in_pool(&self, pool: &[&str], covered: &impl Fn(u32) -> bool) -> Option<usize> {
        let score = |f: &str| self.worth(f, covered);
        (0..pool.len())
            .filter(|&i| self.record(pool[i]).explorable())
            .max_by(|&i, &j| score(pool[i]).total_cmp(&score(pool[j])))
    }

    /// The functions worth carving in an entry whose run hit `hits`
    /// (sorted slots): the carvable ones it reaches with open outcomes,
    /// most first, at most `n` (`main` has rounds of its own).
    pub fn wanted(&self, hits: &[u32], covered: &impl Fn(u32) -> bool, n: usize) -> Vec<String> {
        let mut wanted: Vec<(usize, &str)> = self
            .functions
            .values()
            .filter(|f| f.name != "main" && reaches(hits, f) && self.record(&f.name).carvable())
            .map(|f| (open_outcomes(f, covered), f.name.as_str()))
            .filter(|(open, _)| *open > 0)
            .collect();
        wanted.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        wanted.into_iter().take(n).map(|(_, f)| f.to_string()).collect()
    }

    /// The functions a carving may take when it takes all it can: `None`
    /// for all the program's, or the carvable ones of the schedule
    /// (`main` aside) when it holds some of the program's only or some
    /// are no longer carvable.
    pub fn explorable_only(&self) -> Option<Vec<String>> {
        let dropped = self.records.iter().any(|(f, r)| self.functions.contains_key(f) && !r.carvable());
        (dropped || self.part)
            .then(|| self.functions.keys().filter(|f| *f != "main" && self.record(f).carvable()).cloned().collect())
    }

    /// The entry to carve next (its position in `corpus`, each entry
    /// given by the sorted slots its run hit) and the function it is
    /// carved for: among the carvable functions that system runs reach but
    /// do not cover fully, the one with the most open outcomes (less the
    /// entries carved for it already), its reaching entries in turn. When
    /// there is none, `None`: the caller takes the entries in order.
    pub fn entry_to_carve(&self, corpus: &[&[u32]], covered: &impl Fn(u32) -> bool) -> Option<(usize, String)> {
        let mut targets: Vec<(f64, &FunctionInfo)> = self
            .functions
            .values()
            .filter(|f| self.record(&f.name).carvable())
            .filter_map(|f| {
                let open = open_outcomes(f, covered);
                (open > 0 && (open as u32) < f.branches)
                    .then(|| (open as f64 / f64::from(1 + self.record(&f.name).carves), f))
            })
            .collect();
        targets.sort_by(|a, b| b.0.total_cmp(&a.0));
        targets.into_iter().find_map(|(_, f)| {
            let reaching: Vec<usize> = (0..corpus.len()).filter(|&k| reaches(corpus[k], f)).collect();
            (!reaching.is_empty())
                .then(|| (reaching[self.record(&f.name).carves as usize % reaching.len()], f.name.clone()))
        })
    }
}

fn open_outcomes(f: &FunctionInfo, covered: &impl Fn(u32) -> bool) -> usize {
    (f.first_branch..f.first_branch + f.branches).filter(|&s| !covered(s)).count()
}

/// Whether a run that hit `hits` (sorted slots) hit a branch outcome of `f`.
fn reaches(hits: &[u32], f: &FunctionInfo) -> bool {
    let (lo, hi) = (f.first_branch, f.first_branch + f.branches);
    let i = hits.partition_point(|&s| s < lo);
    i < hits.len() && hits[i] < hi
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, first_branch: u32, branches: u32) -> FunctionInfo {
        FunctionInfo { first_branch, branches, name: name.into() }
    }

    /// `main` 0..4, `parse` 4..10, `emit` 10..12.
    fn schedule() -> Schedule {
        Schedule::new(vec![f("main", 0, 4), f("parse", 4, 6), f("emit", 10, 2)], false)
    }

    #[test]
    fn entries_reach_the_functions_whose_outcomes_they_hit() {
        let g = f("g", 10, 4);
        assert!(reaches(&[1, 9, 14, 15], &FunctionInfo { first_branch: 10, branches: 5, name: "h".into() }));
        assert!(!reaches(&[1, 9, 14], &g));
        assert!(reaches(&[10], &g) && reaches(&[2, 11, 12], &g));
        assert!(!reaches(&[], &g) && !reaches(&[10], &f("empty", 10, 0)));
    }

    #[test]
    fn the_function_with_most_open_outcomes_is_carved_for_from_its_entries_in_turn() {
        let mut s = schedule();
        // Slots 0..6 covered: parse has 4 open of 6, emit 2 of 2 (never
        // reached: not a target), main none.
        let covered = |k: u32| k < 6;
        let corpus: [&[u32]; 3] = [&[0, 1], &[0, 4], &[2, 5]];
        assert_eq!(s.entry_to_carve(&corpus, &covered), Some((1, "parse".into())));
        s.record_mut("parse").carves += 1;
        assert_eq!(s.entry_to_carve(&corpus, &covered), Some((2, "parse".into())));
        // Barren twice: no more carving for it, and nothing else to carve for.
        s.record_mut("parse").barren = MAX_BARREN;
        assert_eq!(s.entry_to_carve(&corpus, &covered), None);
    }

    #[test]
    fn the_pool_gives_the_explorable_unit_with_most_open_outcomes_per_round_spent() {
        let mut s = schedule();
        let covered = |k: u32| k < 6;
        let pool = ["emit", "parse"];
        // parse: 4 open, emit: 2.
        assert_eq!(s.best_in_pool(&pool, &covered), Some(1));
        s.record_mut("parse").analysed = 2;
        assert_eq!(s.best_in_pool(&pool, &covered), Some(0));
        // A function with every outcome covered, or none, is worth one
        // round while it was never explored, and less than one with open
        // outcomes.
        let all = |_: u32| true;
        assert_eq!(s.worth("emit", &all), 1.0);
        assert!(s.worth("emit", &all) < s.worth("emit", &covered));
        s.record_mut("emit").analysed = 1;
        assert_eq!(s.worth("emit", &all), 0.0);
        assert_eq!(s.best_in_pool(&pool, &covered), Some(1));
        s.record_mut("emit").analysed = 0;
        s.record_mut("emit").failed = MAX_FAILED;
        assert_eq!(s.best_in_pool(&pool, &covered), Some(1));
        s.record_mut("parse").idle = MAX_IDLE - 1;
        assert_eq!(s.best_in_pool(&pool, &covered), Some(1));
        s.record_mut("parse").idle = MAX_IDLE;
        assert_eq!(s.best_in_pool(&pool, &covered), None);
        s.record_mut("parse").idle = 0;
        s.record_mut("parse").fruitless = MAX_FRUITLESS;
        assert_eq!(s.best_in_pool(&pool, &covered), None);
    }

    #[test]
    fn an_entry_is_carved_for_the_functions_it_reaches_with_open_outcomes_but_main() {
        let s = schedule();
        let covered = |k: u32| k == 11;
        assert_eq!(s.wanted(&[0, 4, 10], &covered, 8), ["parse", "emit"]);
        assert_eq!(s.wanted(&[0, 4, 10], &covered, 1), ["parse"]);
        assert!(s.wanted(&[0, 1], &covered, 8).is_empty());
        let mut s = s;
        assert_eq!(s.explorable_only(), None);
        s.record_mut("parse").idle = MAX_IDLE;
        assert_eq!(s.wanted(&[0, 4, 10], &covered, 8), ["emit"]);
        assert_eq!(s.explorable_only(), Some(vec!["emit".to_string()]));
        s.record_mut("emit").barren = MAX_BARREN;
        assert!(s.wanted(&[0, 4, 10], &covered, 8).is_empty());
        assert_eq!(s.explorable_only(), Some(vec![]));
    }
}
