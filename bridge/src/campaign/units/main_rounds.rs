//! Every other unit round explores `main` carved from the next corpus
//! entry whose `main` was not explored yet (seeds first, then what the
//! campaign found, lifts included). `main`'s parameters are the whole
//! command line and input file, so its symbolic runs reach the whole
//! program: each entry is a new starting point for concolic search, as a
//! concolic fuzzer takes its queue.

use super::{Current, UnitWork, MAX_FRUITLESS, MAX_UNREPLAYABLE};
use crate::campaign::Campaign;

const MAIN: &str = "main";

impl Campaign {
    /// `main` of the next entry not explored for it, when this round is
    /// its turn and `main` is still worth it; its turn passes either way.
    pub(super) fn main_turn(&mut self, uw: &mut UnitWork) -> anyhow::Result<Option<Current>> {
        uw.main_turn = !uw.main_turn;
        let count = |m: &std::collections::BTreeMap<String, u32>| m.get(MAIN).copied().unwrap_or(0);
        if !uw.main_turn
            || !uw.functions.contains_key(MAIN)
            || count(&uw.unreplayable) >= MAX_UNREPLAYABLE
            || count(&uw.fruitless) >= MAX_FRUITLESS
        {
            return Ok(None);
        }
        let Some(k) = self.corpus.iter().position(|e| !uw.main_done.contains(&e.id)) else { return Ok(None) };
        uw.main_done.insert(self.corpus[k].id);
        Ok(self.carve_entry(&uw.program, k, vec![MAIN.into()])?.into_iter().find(|c| c.unit.meta.function == MAIN))
    }
}
