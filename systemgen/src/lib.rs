//! System-level test generators behind one trait.

pub mod dict;
pub mod external;
pub mod gnast;
pub mod grammar;
pub mod parents;
pub mod radamsa;

use std::sync::Arc;

pub use ::gnast::Options as GnastOptions;
pub use external::{External, NAME as EXTERNAL};
pub use gnast::GnastGen;
pub use grammar::{GrammarGen, Mode};
pub use parents::{Parents, Uniform};
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
    /// Its derivation tree, when a grammar made it.
    pub tree: Option<Tree>,
}

/// A test's derivation tree and the grammar it derives in.
#[derive(Debug, Clone, PartialEq)]
pub struct Tree {
    pub derivation: ::grammar::Derivation,
    pub grammar: Arc<::grammar::Grammar>,
}

impl Tree {
    /// The tree with its terminals.
    pub fn node(&self) -> ::grammar::Node {
        self.derivation.to_node(&self.grammar)
    }

    /// The tree as JSON with the nonterminals' names
    /// ([`::grammar::Node::to_json`]).
    pub fn to_json(&self) -> String {
        self.derivation.to_json(&self.grammar).to_string()
    }
}

impl Eq for Tree {}

/// A corpus entry a generator may derive tests from.
#[derive(Debug, Clone, Copy)]
pub struct Seed<'a> {
    pub id: u64,
    pub data: &'a [u8],
    /// Where its bytes came from; `None`: they are its own
    /// ([`Labels::own`]). Labels that do not cover `data` count as `None`.
    pub labels: Option<&'a Labels>,
    /// What a mutant of it is expected to cost, in microseconds: how long
    /// the target took on it, plus the share of its mutants that ran into
    /// the calibrated time limit times that limit; 0 when unknown. The
    /// campaign's scheduler favours cheap entries, as AFL++ gives fast
    /// ones more energy: a test's run time is paid on each of its mutants.
    pub run_us: u32,
    /// The cheapest entry (run time × length) to reach one of the branch
    /// outcomes the corpus reaches, as AFL++ marks its favoured entries;
    /// the scheduler picks among these more often.
    pub favored: bool,
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
    /// The next `n` tests, derived from `corpus` (never empty), each from
    /// the parent `parents` picks for it ([`Parents`]).
    fn generate(&mut self, corpus: &[Seed<'_>], parents: &mut dyn Parents, n: usize) -> Vec<TestCase>;
    /// What running `case` showed: its edge map (hit counts, as the
    /// target left them; `None` when the time limit stopped it, which cut
    /// the map where it struck) and whether it reached new coverage.
    fn feedback(&mut self, case: &TestCase, map: Option<&[u8]>, interesting: bool);
    /// A value that, put in place of a derivation node of `nonterminal`,
    /// made a test that failed or reached new code: a generator that
    /// knows the grammar may put it in other tests. Others ignore it.
    fn offer(&mut self, _nonterminal: &str, _text: &[u8]) {}
    /// A dictionary: byte strings the target compares its input with (or
    /// a user's dictionary file). A generator that mutates bytes may put
    /// them into its tests and says so; others ignore it (`false`).
    fn add_tokens(&mut self, _tokens: &[Vec<u8>]) -> bool {
        false
    }
    /// The grammar its tests derive in, if any: the campaign then keeps
    /// each test's derivation tree, and the unit level lifts values in
    /// place of derivation nodes and offers them back ([`offer`]).
    ///
    /// [`offer`]: SystemGenerator::offer
    fn grammar(&self) -> Option<Arc<::grammar::Grammar>> {
        None
    }
    /// Whether it makes tests of its own. One that does not (it takes
    /// another fuzzer's, see [`External`]) leaves the campaign's time to
    /// importing and to the unit level.
    fn generates(&self) -> bool {
        true
    }
    /// Whether its tests' labels are a record of where their bytes came
    /// from. One whose tests have no trail (a model trained on many tests
    /// made them) leaves them unrecorded: `bridge provenance` rebuilds
    /// them, as pseudo-provenance.
    fn records_labels(&self) -> bool {
        true
    }
    /// Figures of its own for the campaign's statistics, by name. `last`:
    /// the campaign ends, and costly ones may be measured now.
    fn report(&mut self, _last: bool) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
}

/// Which system generator a campaign runs, with what it needs.
#[derive(Debug, Clone)]
pub enum Config {
    /// Mutation of the corpus ([`RadamsaLike`]).
    RadamsaLike,
    /// Derivations of a probabilistic grammar, in its mode ([`GrammarGen`]).
    Grammar { grammar: ::grammar::Grammar, mode: Mode },
    /// Another fuzzer's tests ([`External`]).
    External,
    /// A generative network's tests ([`GnastGen`]).
    Gnast(GnastOptions),
}

impl Config {
    /// The configuration `--system NAME` asks for, with the grammar and
    /// mode of `--grammar` when given. The error says what is wrong in
    /// words.
    pub fn new(name: &str, grammar: Option<(::grammar::Grammar, Mode)>) -> Result<Config, String> {
        match (name, grammar) {
            (radamsa::NAME, None) => Ok(Config::RadamsaLike),
            (external::NAME, None) => Ok(Config::External),
            (gnast::NAME, None) => Ok(Config::Gnast(GnastOptions::default())),
            (radamsa::NAME | external::NAME | gnast::NAME, Some(_)) => {
                Err("a grammar is for the grammar generator (--system grammar)".into())
            }
            (grammar::NAME, Some((grammar, mode))) => Ok(Config::Grammar { grammar, mode }),
            (grammar::NAME, None) => Err("the grammar generator needs a grammar (--grammar FILE)".into()),
            _ => Err(format!("unknown system generator '{name}' (known: {})", GENERATORS.join(", "))),
        }
    }

    /// With GNAST's sizes and cadence `opts`, for `--system gnast` only.
    pub fn with_gnast(self, opts: Option<GnastOptions>) -> Result<Config, String> {
        match (self, opts) {
            (c, None) => Ok(c),
            (Config::Gnast(_), Some(o)) => {
                ::gnast::Gnast::new(o.clone(), 0).map_err(|e| e.to_string())?;
                Ok(Config::Gnast(o))
            }
            (_, Some(_)) => Err("the --gnast-* options are for --system gnast".into()),
        }
    }

    /// The generator, seeded with `seed`.
    pub fn build(self, seed: u64) -> Result<Box<dyn SystemGenerator>, String> {
        Ok(match self {
            Config::RadamsaLike => Box::new(RadamsaLike::new(seed)),
            Config::External => Box::new(External),
            Config::Gnast(opts) => Box::new(GnastGen::new(opts, seed)?),
            Config::Grammar { grammar, mode } => {
                Box::new(GrammarGen::new(grammar, mode, seed).map_err(|e| e.to_string())?)
            }
        })
    }
}

/// The names [`by_name`] knows.
pub const GENERATORS: &[&str] = &[radamsa::NAME, grammar::NAME, gnast::NAME, external::NAME];

/// The generator called `name`, seeded with `seed` (see [`Config::new`]).
pub fn by_name(
    name: &str,
    seed: u64,
    grammar: Option<(::grammar::Grammar, Mode)>,
) -> Result<Box<dyn SystemGenerator>, String> {
    Config::new(name, grammar)?.build(seed)
}
