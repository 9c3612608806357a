//! System-level test generators behind one trait.

pub mod radamsa;

pub use provenance::Labels;
pub use radamsa::RadamsaLike;

/// One generated system test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestCase {
    /// The whole test (with `--args-in-input`, its first line is the
    /// command line).
    pub data: Vec<u8>,
    /// Id of the corpus entry it was derived from.
    pub parent: u64,
    /// Other corpus entries it took bytes from (a splice), sorted.
    pub donors: Vec<u64>,
    /// Short name of what made it, for file names: `bf`, `num`, `sr+ld`...
    pub op: String,
    /// Where each byte came from: copied from a corpus entry (or where that
    /// entry's labels say it came from), or written by a mutator. Bytes
    /// written for this test are labelled [`provenance::FRESH`] until the
    /// test is kept and [`Labels::adopt`] gives them its id.
    pub labels: Labels,
}

/// A corpus entry a generator may derive tests from.
#[derive(Debug, Clone, Copy)]
pub struct Seed<'a> {
    pub id: u64,
    pub data: &'a [u8],
    /// Where its bytes came from; `None`: they are its own
    /// ([`Labels::own`]). Labels that do not cover `data` count as `None`.
    pub labels: Option<&'a Labels>,
}

impl Seed<'_> {
    /// Its labels (its own bytes when it has none that cover it).
    pub fn labels(&self) -> Labels {
        match self.labels {
            Some(l) if l.len() == self.data.len() => l.clone(),
            _ => Labels::own(self.id, self.data.len()),
        }
    }
}

/// Makes system tests out of a corpus.
pub trait SystemGenerator {
    /// The name users pick it by (`--system NAME`).
    fn name(&self) -> &'static str;
    /// The next `n` tests, derived from `corpus` (never empty).
    fn generate(&mut self, corpus: &[Seed<'_>], n: usize) -> Vec<TestCase>;
    /// What running `case` showed: whether it reached new coverage.
    fn feedback(&mut self, case: &TestCase, interesting: bool);
}

/// The names [`by_name`] knows.
pub const GENERATORS: &[&str] = &[radamsa::NAME];

/// The generator called `name`, seeded with `seed`.
pub fn by_name(name: &str, seed: u64) -> Option<Box<dyn SystemGenerator>> {
    match name {
        radamsa::NAME => Some(Box::new(RadamsaLike::new(seed))),
        _ => None,
    }
}
