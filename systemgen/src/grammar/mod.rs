//! The grammar generator ("Inputs from Hell"): tests derived from a
//! context-free grammar with probabilities that are uniform, learned from
//! the corpus's derivation trees, or inverted.
//!
//! Every corpus entry is parsed once ([`corpus::Trees`]); the counts of the
//! alternatives its tree uses feed the learned and inverted probabilities,
//! which are made again whenever new entries parsed (the seeds first, then
//! the queue as it grows). A test is one of:
//! - `regen.NT`: a node of a parsed entry's tree, expanding `NT`, replaced
//!   by a fresh derivation of `NT` (bounded: at most twice its nodes plus
//!   16, every open nonterminal closed by its cheapest derivation);
//! - `splice.NT`: the same node replaced by another entry's subtree for
//!   `NT` (its bytes keep that entry's labels);
//! - `pool.NT`: the same node replaced by a value the bridge lifted well
//!   in place of an `NT` node ([`SystemGenerator::offer`]), one edit in
//!   four of a nonterminal that has some;
//! - `gen`: a whole new derivation of the start symbol, one test in 16, or
//!   every test when no entry parses (its parent is then the entry the
//!   generator was asked about first, its bytes all written by `gen`);
//!   `gen.pool` when some of its nodes took pooled values (one node in
//!   four of a nonterminal that has some; their bytes written by
//!   `pool.NT`).
//!
//! Each test carries its derivation tree ([`TestCase::tree`]) and labels:
//! the bytes kept from the parent keep the parent's labels, the new ones
//! are written by the operator.

mod corpus;

use std::str::FromStr;
use std::sync::Arc;

use grammar::{Generator, Grammar, Node, Parser};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{Labels, Seed, SystemGenerator, TestCase, Tree};
use corpus::Trees;

/// The name users pick it by.
pub const NAME: &str = "grammar";
/// The most nonterminal nodes of a whole generated test.
pub const MAX_NODES: usize = 400;
/// Tests longer than this are not made (the edit is tried again).
const MAX_LEN: usize = 64 << 10;
/// Values kept per nonterminal from lifts (the oldest go first).
const POOL: usize = 64;

/// Which probabilities new derivations follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// As the grammar file gives them (uniform where it gives none).
    Uniform,
    /// Learned from the corpus's trees (section 3.2).
    Learned,
    /// Learned, then inverted (section 3.3).
    Inverse,
    /// Uniform, learned or inverted, a third of the tests each (measured
    /// on sed and dc, uniform suites reach the most functions, learned
    /// ones stay closest to the corpus, inverted ones reach what the
    /// corpus does not on sed and narrow dc's programs).
    Mixed,
}

impl FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Mode, String> {
        match s {
            "uniform" => Ok(Mode::Uniform),
            "learned" => Ok(Mode::Learned),
            "inverse" => Ok(Mode::Inverse),
            "mixed" => Ok(Mode::Mixed),
            _ => Err(format!("unknown grammar mode '{s}' (known: uniform, learned, inverse, mixed)")),
        }
    }
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Uniform => "uniform",
            Mode::Learned => "learned",
            Mode::Inverse => "inverse",
            Mode::Mixed => "mixed",
        }
    }
}

/// Tests from a grammar. Deterministic for a seed, a corpus and a sequence
/// of calls.
pub struct GrammarGen {
    grammar: Arc<Grammar>,
    mode: Mode,
    rng: ChaCha8Rng,
    trees: Trees,
    /// Generators with the uniform, learned and inverted probabilities.
    uniform: Generator,
    learned: Generator,
    inverse: Generator,
    /// Per nonterminal, values lifted well in place of one of its nodes,
    /// parsed.
    pool: Vec<Vec<Node>>,
}

impl GrammarGen {
    /// A generator for `grammar` (checked: see [`Grammar::check`]).
    pub fn new(grammar: Grammar, mode: Mode, seed: u64) -> Result<GrammarGen, grammar::Error> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let uniform = Generator::new(&grammar, rng.random())?;
        let learned = Generator::new(&grammar, rng.random())?;
        let inverse = Generator::new(&grammar, rng.random())?;
        Parser::new(&grammar)?;
        let trees = Trees::new(&grammar);
        let pool = vec![Vec::new(); grammar.rules.len()];
        Ok(GrammarGen { grammar: Arc::new(grammar), mode, rng, trees, uniform, learned, inverse, pool })
    }

    /// Corpus entries seen so far that parse, and that do not.
    pub fn parsed(&self) -> (usize, usize) {
        (self.trees.parsed.len(), self.trees.unparsed())
    }

    /// Parses entries not seen yet; when some parsed, learns again.
    fn learn(&mut self, corpus: &[Seed<'_>]) {
        let parser = Parser::new(&self.grammar).expect("checked in new");
        if self.trees.update(&parser, corpus.iter().map(|s| (s.id, s.data))) == 0 {
            return;
        }
        let g = &self.grammar;
        let learned = grammar::learned(g, &self.trees.counts);
        let inverse = grammar::inverted(g, &self.trees.counts);
        self.learned = Generator::new(&learned, self.rng.random()).expect("same shape as the checked grammar");
        self.inverse = Generator::new(&inverse, self.rng.random()).expect("same shape as the checked grammar");
    }

    /// The generator this test's new derivation follows.
    fn pick_generator(&mut self) -> &mut Generator {
        let mode = match self.mode {
            Mode::Mixed => [Mode::Uniform, Mode::Learned, Mode::Inverse][self.rng.random_range(0..3)],
            m => m,
        };
        match mode {
            Mode::Learned => &mut self.learned,
            Mode::Inverse => &mut self.inverse,
            _ => &mut self.uniform,
        }
    }

    /// One test.
    fn one(&mut self, corpus: &[Seed<'_>], parsed: &[&Seed<'_>]) -> TestCase {
        for _ in 0..8 {
            if let Some(t) = self.edit(corpus, parsed) {
                return t;
            }
        }
        self.whole(corpus[0].id)
    }

    /// A whole new derivation, made for `parent`, with pooled values in
    /// some of its nodes (see the module's text).
    fn whole(&mut self, parent: u64) -> TestCase {
        let mut tree = self.pick_generator().generate(MAX_NODES);
        // The nodes that take a pooled value, outermost first (none inside
        // another), chosen on the tree as generated: replacing one leaves
        // the paths of the others as they were.
        let mut chosen: Vec<(Vec<usize>, usize)> = Vec::new();
        if self.pool.iter().any(|p| !p.is_empty()) {
            for (k, nt) in tree.nonterminal_list().into_iter().enumerate() {
                if self.pool[nt].is_empty() || !self.rng.random_ratio(1, 4) {
                    continue;
                }
                let Some(path) = tree.path_of(k) else { continue };
                if !chosen.iter().any(|(p, _)| path.starts_with(p)) {
                    chosen.push((path, nt));
                }
            }
        }
        let mut pooled = Vec::new();
        for (path, nt) in chosen {
            let value = &self.pool[nt][self.rng.random_range(0..self.pool[nt].len())];
            if let Some(t) = tree.replaced(&path, value) {
                tree = t;
                pooled.push((path, nt));
            }
        }
        let data = tree.text();
        let mut spans: Vec<(usize, usize, usize)> =
            (pooled.iter()).filter_map(|(p, nt)| tree.at_path(p).map(|n| (n.span().0, n.span().1, *nt))).collect();
        spans.sort_unstable();
        let mut labels = Labels::default();
        let mut at = 0;
        for (s, e, nt) in spans {
            labels.extend(&Labels::inserted("gen", s - at));
            labels.extend(&Labels::inserted(&format!("pool.{}", op_name(&self.grammar.rules[nt].name)), e - s));
            at = e;
        }
        labels.extend(&Labels::inserted("gen", data.len() - at));
        let op = if pooled.is_empty() { "gen" } else { "gen.pool" };
        let tree = Some(Tree { node: tree, grammar: self.grammar.clone() });
        TestCase { data, parent, donors: Vec::new(), op: op.into(), labels, tree }
    }

    /// A node of a parsed entry replaced (`regen`, `splice`), or a whole
    /// new test; `None` when the edit changed nothing or grew too large.
    /// `parsed`: the entries of `corpus` that parse.
    fn edit(&mut self, corpus: &[Seed<'_>], parsed: &[&Seed<'_>]) -> Option<TestCase> {
        if parsed.is_empty() || self.rng.random_ratio(1, 16) {
            let parent = parsed.first().map_or(corpus[0].id, |s| s.id);
            return Some(self.whole(parent));
        }
        let seed = *parsed[self.rng.random_range(0..parsed.len())];
        let entry = self.trees.get(seed.id).expect("filtered");
        let path = entry.tree.path_of(self.rng.random_range(0..entry.nodes)).expect("a node of the tree");
        let old = entry.tree.at_path(&path).expect("a path of the tree").clone();
        let nt = old.nonterminal().expect("nonterminals only");
        let name = op_name(&self.grammar.rules[nt].name);
        let pooled = !self.pool[nt].is_empty() && self.rng.random_ratio(1, 4);
        let spliced = if !pooled && self.rng.random_ratio(1, 3) { self.splice(nt) } else { None };
        let (new, donor) = match spliced {
            Some((node, id)) => (node, Some(id)),
            None if pooled => (self.pool[nt][self.rng.random_range(0..self.pool[nt].len())].clone(), None),
            None => {
                let size = count(&old);
                (self.pick_generator().generate_from(nt, (2 * size + 16).min(MAX_NODES)), None)
            }
        };
        let entry = self.trees.get(seed.id).expect("filtered");
        if new.text() == old.text() {
            return None;
        }
        let tree = entry.tree.replaced(&path, &new)?;
        let data = tree.text();
        if data.len() > MAX_LEN {
            return None;
        }
        let (s, e) = old.span();
        let parent = seed.labels();
        let mut labels = parent.slice(0, s);
        let op = match donor {
            Some(d) => {
                let (ds, de) = new.span();
                let l = corpus.iter().find(|c| c.id == d).map(|c| c.labels());
                match l {
                    Some(l) if l.len() >= de => labels.extend(&l.slice(ds, de)),
                    _ => labels.extend(&Labels::inserted(&format!("splice.{name}"), de - ds)),
                }
                format!("splice.{name}")
            }
            None => {
                let op = format!("{}.{name}", if pooled { "pool" } else { "regen" });
                labels.extend(&Labels::inserted(&op, new.text().len()));
                op
            }
        };
        labels.extend(&parent.slice(e, parent.len()));
        let donors = donor.filter(|&d| d != seed.id).into_iter().collect();
        Some(TestCase {
            data,
            parent: seed.id,
            donors,
            op,
            labels,
            tree: Some(Tree { node: tree, grammar: self.grammar.clone() }),
        })
    }

    /// Some parsed entry's subtree for `nt`, with that entry's id.
    fn splice(&mut self, nt: usize) -> Option<(Node, u64)> {
        let sites = &self.trees.sites[nt];
        if sites.is_empty() {
            return None;
        }
        let (k, n) = sites[self.rng.random_range(0..sites.len())];
        let entry = &self.trees.parsed[k];
        Some((entry.tree.at_path(&entry.tree.path_of(n)?)?.clone(), entry.id))
    }
}

impl SystemGenerator for GrammarGen {
    fn name(&self) -> &'static str {
        NAME
    }

    fn generate(&mut self, corpus: &[Seed<'_>], n: usize) -> Vec<TestCase> {
        let none = [Seed { id: 0, data: &[], labels: None }];
        let corpus = if corpus.is_empty() { &none[..] } else { corpus };
        self.learn(corpus);
        let parsed: Vec<&Seed<'_>> = corpus.iter().filter(|s| self.trees.get(s.id).is_some()).collect();
        (0..n).map(|_| self.one(corpus, &parsed)).collect()
    }

    fn feedback(&mut self, _case: &TestCase, _interesting: bool) {}

    /// Keeps `text` for nodes of `nonterminal` when it parses as one.
    fn offer(&mut self, nonterminal: &str, text: &[u8]) {
        let Some(nt) = self.grammar.index(nonterminal) else { return };
        let Ok(node) = grammar::parse(&self.grammar.with_start(nt), text) else { return };
        let pool = &mut self.pool[nt];
        if pool.iter().any(|n| n.text() == text) {
            return;
        }
        if pool.len() >= POOL {
            pool.remove(0);
        }
        pool.push(node);
    }
}

/// Nonterminal nodes in a tree.
fn count(n: &Node) -> usize {
    let mut k = 0;
    n.each(&mut |x| k += x.nonterminal().is_some() as usize);
    k
}

/// A nonterminal's name as an operator name: `<s-flag>` -> `s-flag`.
fn op_name(nt: &str) -> String {
    let inner = nt.strip_prefix('<').and_then(|s| s.strip_suffix('>')).unwrap_or(nt);
    inner.chars().map(|c| if c.is_ascii_alphanumeric() || "-_".contains(c) { c } else { '_' }).take(24).collect()
}

#[cfg(test)]
mod tests;
