//! The pool of units the rounds take from: a queue entry carved for the
//! functions most worth a unit, its units with parameters ranked by what
//! their function is worth.

use super::{main_rounds, Current, UnitWork, POOL};
use crate::campaign::Campaign;
use driver::carve::{carve_run, Caps};
use std::time::Instant;

impl Campaign {
    /// Carves a queue entry that reaches the function most worth a unit
    /// (see [`Campaign::entry_to_carve`]); its units with parameters (the
    /// best few, by what their function is worth, `Schedule::worth`) wait in
    /// the pool for the rounds to come.
    pub(super) fn fill_pool(&mut self, uw: &mut UnitWork) -> crate::Result<()> {
        let (k, target) = self.entry_to_carve(uw);
        // Only the functions the pool could keep are carved: those the
        // entry reaches with the most uncovered outcomes (a snapshot per
        // function is the cost of a carving run, and with every function
        // carvable, inlined ones too, a run would snapshot them all).
        let cov = &self.cov;
        let covered = |k: u32| cov.is_covered(k as usize);
        let mut functions = uw.schedule.wanted(&self.corpus[k].hits, &covered, 2 * POOL);
        if let Some(t) = &target {
            if !functions.contains(t) {
                functions.push(t.clone());
            }
        }
        // Nothing in the entry has open outcomes: every function is carved
        // (an empty list), but those no longer explored; none when no
        // function is left.
        if functions.is_empty() {
            if let Some(only) = uw.schedule.explorable_only() {
                if only.is_empty() {
                    uw.pool.clear();
                    return Ok(());
                }
                functions = only;
            }
        }
        let mut pool: Vec<(f64, Current)> = Vec::new();
        let asked = functions.clone();
        for c in self.carve_entry(&uw.program, k, functions)? {
            let f = &c.unit.meta.function;
            // `main` has rounds of its own.
            if uw.schedule.has(f) && f != main_rounds::MAIN {
                let cov = &self.cov;
                pool.push((uw.schedule.worth(f, &|k| cov.is_covered(k as usize)), c));
            }
        }
        // Each function asked for that got no unit with parameters.
        for f in &asked {
            let barren = !pool.iter().any(|(_, c)| &c.unit.meta.function == f);
            uw.schedule.record_mut(f).barren += u32::from(barren);
        }
        if let Some(t) = target {
            uw.schedule.record_mut(&t).carves += 1;
        }
        pool.sort_by(|a, b| b.0.total_cmp(&a.0));
        uw.pool = pool.into_iter().take(POOL).map(|p| p.1).collect();
        Ok(())
    }

    /// Carves corpus entry `k` (one call of each of `functions`, or of
    /// every function): its units with parameters, counted.
    pub(super) fn carve_entry(
        &mut self,
        program: &std::path::Path,
        k: usize,
        functions: Vec<String>,
    ) -> crate::Result<Vec<Current>> {
        let (entry, input) = (self.corpus[k].id, self.corpus[k].data.clone());
        let caps = Caps { functions, max_per_function: 1, budget: 256 << 10 };
        let args_in_input = self.fs.target().args_in_input;
        let (_, carved) = carve_run(self.fs.target().clone(), program, &input, &caps)?;
        self.file.stats.units_carved += carved.units.len() as u64;
        let mut out = Vec::new();
        // With a grammar, parameters map to the nodes of the input's tree.
        let tree = self.grammar.as_ref().and_then(|g| grammar::parse(g, &input).ok().map(|t| (g.clone(), t)));
        for mut unit in carved.units {
            let mut params = crate::unit_loop::parameters(&mut unit, &input, args_in_input);
            let nonterminals = match &tree {
                Some((g, t)) => {
                    let a = carver::align::align(g, t, &unit, &mut params);
                    let s = &mut self.file.stats;
                    s.params_on_nodes += a.nonterminals.iter().filter(|n| n.is_some()).count() as u64;
                    s.occurrences_off_nodes += a.dropped as u64;
                    a.nonterminals
                }
                None => Vec::new(),
            };
            self.file.stats.params_as_lengths +=
                params.iter().filter(|p| p.encoding == model::unit::Encoding::Length).count() as u64;
            self.file.stats.units_with_params += u64::from(!params.is_empty());
            self.file.stats.units_with_digit_arrays +=
                u64::from(params.iter().any(|p| matches!(p.encoding, model::unit::Encoding::Digits { .. })));
            if !params.is_empty() {
                out.push(Current {
                    unit,
                    params,
                    entry,
                    input: input.clone(),
                    nonterminals,
                    tries: 0,
                    lifted_at: Instant::now(),
                    runner: None,
                });
            }
        }
        Ok(out)
    }

    /// The queue entry to carve next, and the function it was chosen for
    /// ([`Schedule::entry_to_carve`]); when no function is worth one, the
    /// entries in queue order.
    fn entry_to_carve(&self, uw: &mut UnitWork) -> (usize, Option<String>) {
        let hits: Vec<&[u32]> = self.corpus.iter().map(|e| e.hits.as_slice()).collect();
        let cov = &self.cov;
        if let Some((k, f)) = uw.schedule.entry_to_carve(&hits, &|k| cov.is_covered(k as usize)) {
            return (k, Some(f));
        }
        let k = uw.next_entry % self.corpus.len();
        uw.next_entry += 1;
        (k, None)
    }
}
