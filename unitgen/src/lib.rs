//! Unit-level generators behind one trait: they propose new values for the
//! parameters of a carved unit test. `fuzz` (Fuzzilisk) mutates them;
//! `symbolic` (Basilisk) explores them concolically, with the traces of
//! symbolic replays and a solver chain ([`solver`]).

mod fuzz;
pub mod solver;
pub mod symbolic;

pub use fuzz::Fuzz;
use model::symtrace::Trace;
use model::trace::SymInput;
use model::unit::{Param, Value};
pub use symbolic::Symbolic;

/// Proposed values for some parameters of a unit (`values` may be empty:
/// the unit as carved), and what made them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub values: Vec<(usize, Value)>,
    pub op: &'static str,
    /// The generator's own mark, handed back with the run's trace.
    pub tag: u64,
}

impl Candidate {
    /// The value a report names: the first that differs from what its
    /// parameter was carved with (a solver's candidate holds every
    /// parameter), else the first. `None` for the unit as carved.
    pub fn changed(&self, params: &[Param]) -> Option<&(usize, Value)> {
        let differs = |(k, v): &&(usize, Value)| params.get(*k).is_some_and(|p| p.text(v) != p.original);
        self.values.iter().find(differs).or(self.values.first())
    }
}

/// Candidates a generator has in store for its current unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pending {
    Nothing,
    /// Being worked out (solved) now.
    Working,
    /// Ready for `next`.
    Ready,
}

/// Proposes parameter values for a unit.
pub trait UnitGenerator {
    fn name(&self) -> &'static str;
    /// A new unit of `function`, whose parameters are `params`, begins.
    fn start(&mut self, _function: &str, _params: &[Param]) {}
    /// The next candidates, at most `n`; none when it has nothing more.
    fn next(&mut self, params: &[Param], n: usize) -> Vec<Candidate>;
    /// The parameter bytes to make symbolic in each run (`None`: runs are
    /// concrete).
    fn symbolic_inputs(&self) -> Option<Vec<SymInput>> {
        None
    }
    /// What running a candidate gave: its trace, for a symbolic run that
    /// finished.
    fn observe(&mut self, _c: &Candidate, _trace: Option<Trace>) {}
    /// Whether it has, or is working on its own towards, more candidates
    /// for this unit (when `next` gave none, they may come later).
    fn pending(&self) -> Pending {
        Pending::Nothing
    }
    /// What system runs have covered so far (the coverage map's union of
    /// buckets, one byte per slot): a generator may put the directions
    /// that lead to edges not covered first.
    fn system_coverage(&mut self, _covered: &[u8]) {}
    /// Blocks until more candidates may be ready, or `limit` passed.
    fn wait(&self, _limit: std::time::Duration) {}
    /// The share of a core its own thread may take (a campaign on one
    /// core sets it, so that system runs are not starved): from 0.05 to 1.
    fn set_cpu_share(&self, _share: f64) {}
    /// CPU seconds its own thread has used (0 when it has none).
    fn own_cpu_seconds(&self) -> f64 {
        0.0
    }
    /// Counters worth reporting.
    fn stats_json(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
}

/// The generators there are.
pub const NAMES: &[&str] = &["fuzz", "symbolic"];

/// Solver timeout per query of the `symbolic` generator, in milliseconds:
/// an eighth of the solving time one trace gets, so that a few hard
/// queries leave time for the others (most take a few milliseconds).
pub const SOLVER_TIMEOUT_MS: u32 = 250;

/// The generator called `name`, seeded with `seed`.
pub fn by_name(name: &str, seed: u64) -> Option<Box<dyn UnitGenerator>> {
    match name {
        "fuzz" => Some(Box::new(Fuzz::new(seed))),
        "symbolic" => Some(Box::new(Symbolic::new(SOLVER_TIMEOUT_MS, None))),
        _ => None,
    }
}
