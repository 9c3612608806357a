//! Unit-level generators behind one trait: they propose new values for the
//! parameters of a carved unit test. `fuzz` (Fuzzilisk) is built; the
//! symbolic explorer (Basilisk) is not yet.

mod fuzz;

pub use fuzz::Fuzz;
use model::unit::{Param, Value};

/// A proposed value for parameter `param` of a unit, and what made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub param: usize,
    pub value: Value,
    pub op: &'static str,
}

/// Proposes parameter values for a unit.
pub trait UnitGenerator {
    fn name(&self) -> &'static str;
    /// The next `n` candidates for the unit whose parameters are `params`.
    fn next(&mut self, params: &[Param], n: usize) -> Vec<Candidate>;
}

/// The generator called `name`, seeded with `seed`.
pub fn by_name(name: &str, seed: u64) -> Option<Box<dyn UnitGenerator>> {
    match name {
        "fuzz" => Some(Box::new(Fuzz::new(seed))),
        _ => None,
    }
}
