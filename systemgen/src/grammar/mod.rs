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
//! The entry a test edits is the campaign's to pick ([`Parents`]), among
//! those that parse.
//!
//! Each test carries its derivation tree ([`TestCase::tree`]) and labels:
//! the bytes kept from the parent keep the parent's labels, the new ones
//! are written by the operator.

mod corpus;

use std::str::FromStr;
use std::sync::Arc;

use grammar::{Derivation, Generator, Grammar, Parser};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{Labels, Parents, Seed, SystemGenerator, TestCase, Tree};
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
    pool: Vec<Vec<Derivation>>,
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
    fn one(&mut self, corpus: &[Seed<'_>], parsed: &[usize], parents: &mut dyn Parents) -> TestCase {
        for _ in 0..8 {
            if let Some(t) = self.edit(corpus, parsed, parents) {
                return t;
            }
        }
        self.whole(corpus[0].id)
    }

    /// A whole new derivation, made for `parent`, with pooled values in
    /// some of its nodes (see the module's text).
    fn whole(&mut self, parent: u64) -> TestCase {
        let mut tree = Derivation::new();
        self.pick_generator().generate_into(MAX_NODES, &mut tree);
        // The nodes that take a pooled value, in pre-order, none inside
        // another (a node inside a chosen one is passed over).
        let mut chosen = Vec::new();
        if self.pool.iter().any(|p| !p.is_empty()) {
            let mut past = 0;
            for (k, e) in tree.nodes().iter().enumerate() {
                if k >= past && !self.pool[e.nt as usize].is_empty() && self.rng.random_ratio(1, 4) {
                    chosen.push(k);
                    past = k + e.size as usize;
                }
            }
        }
        // Replaced first to last: a replacement moves the nodes after it
        // by the change in their number, and leaves those before alone.
        let (mut spans, mut moved) = (Vec::new(), 0i64);
        for k in chosen {
            let at = (k as i64 + moved) as usize;
            let (nt, size) = (tree.nodes()[at].nt as usize, tree.nodes()[at].size);
            let value = &self.pool[nt][self.rng.random_range(0..self.pool[nt].len())];
            tree = tree.replaced(at, value);
            moved += value.nodes().len() as i64 - i64::from(size);
            spans.push((tree.nodes()[at].start, tree.nodes()[at].end, nt));
        }
        let data = tree.text().to_vec();
        let mut labels = Labels::default();
        let mut at = 0;
        for &(s, e, nt) in &spans {
            labels.extend(&Labels::inserted("gen", s - at));
            labels.extend(&Labels::inserted(&format!("pool.{}", op_name(&self.grammar.rules[nt].name)), e - s));
            at = e;
        }
        labels.extend(&Labels::inserted("gen", data.len() - at));
        let op = if spans.is_empty() { "gen" } else { "gen.pool" };
        let tree = Some(Tree { derivation: tree, grammar: self.grammar.clone() });
        TestCase { data, parent, donors: Vec::new(), op: op.into(), labels, tree }
    }

    /// A node of a parsed entry replaced (`regen`, `splice`), or a whole
    /// new test; `None` when the edit changed nothing or grew too large.
    /// `parsed`: the indices of the entries of `corpus` that parse, among
    /// which `parents` picks the one to edit.
    fn edit(&mut self, corpus: &[Seed<'_>], parsed: &[usize], parents: &mut dyn Parents) -> Option<TestCase> {
        if parsed.is_empty() || self.rng.random_ratio(1, 16) {
            let parent = corpus[parsed.first().copied().unwrap_or(0)].id;
            return Some(self.whole(parent));
        }
        let seed = corpus[parents.pick(Some(parsed))];
        let entry = self.trees.get(seed.id).expect("filtered");
        let k = self.rng.random_range(0..entry.tree.nodes().len());
        let old = entry.tree.nodes()[k];
        let nt = old.nt as usize;
        let name = op_name(&self.grammar.rules[nt].name);
        let pooled = !self.pool[nt].is_empty() && self.rng.random_ratio(1, 4);
        let spliced = if !pooled && self.rng.random_ratio(1, 3) { self.splice(nt) } else { None };
        let (new, donor) = match spliced {
            Some((sub, id, span)) => (sub, Some((id, span))),
            None if pooled => (self.pool[nt][self.rng.random_range(0..self.pool[nt].len())].clone(), None),
            None => {
                let mut sub = Derivation::new();
                let max = (2 * old.size as usize + 16).min(MAX_NODES);
                self.pick_generator().generate_from_into(nt, max, &mut sub);
                (sub, None)
            }
        };
        let entry = self.trees.get(seed.id).expect("filtered");
        let (s, e) = (old.start, old.end);
        if new.text() == entry.tree.text_of(k) || entry.tree.text().len() - (e - s) + new.text().len() > MAX_LEN {
            return None;
        }
        let tree = entry.tree.replaced(k, &new);
        let data = tree.text().to_vec();
        let parent = seed.labels();
        let mut labels = parent.slice(0, s);
        let op = match donor {
            Some((d, (ds, de))) => {
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
        let donors = donor.map(|(d, _)| d).filter(|&d| d != seed.id).into_iter().collect();
        Some(TestCase {
            data,
            parent: seed.id,
            donors,
            op,
            labels,
            tree: Some(Tree { derivation: tree, grammar: self.grammar.clone() }),
        })
    }

    /// Some parsed entry's subtree for `nt`, with that entry's id and the
    /// subtree's span in it.
    fn splice(&mut self, nt: usize) -> Option<(Derivation, u64, (usize, usize))> {
        let sites = &self.trees.sites[nt];
        if sites.is_empty() {
            return None;
        }
        let (k, n) = sites[self.rng.random_range(0..sites.len())];
        let entry = &self.trees.parsed[k];
        let e = entry.tree.nodes().get(n)?;
        Some((entry.tree.subtree(n), entry.id, (e.start, e.end)))
    }
}

impl SystemGenerator for GrammarGen {
    fn name(&self) -> &'static str {
        NAME
    }

    fn grammar(&self) -> Option<Arc<Grammar>> {
        Some(self.grammar.clone())
    }

    fn generate(&mut self, corpus: &[Seed<'_>], parents: &mut dyn Parents, n: usize) -> Vec<TestCase> {
        let none = [Seed { id: 0, data: &[], labels: None, run_us: 0, favored: false }];
        let corpus = if corpus.is_empty() { &none[..] } else { corpus };
        self.learn(corpus);
        let parsed: Vec<usize> = (0..corpus.len()).filter(|&k| self.trees.get(corpus[k].id).is_some()).collect();
        (0..n).map(|_| self.one(corpus, &parsed, parents)).collect()
    }

    fn feedback(&mut self, _case: &TestCase, _map: Option<&[u8]>, _interesting: bool) {}

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
        pool.push(Derivation::from_node(&node));
    }
}

/// A nonterminal's name as an operator name: `<s-flag>` -> `s-flag`.
fn op_name(nt: &str) -> String {
    let inner = nt.strip_prefix('<').and_then(|s| s.strip_suffix('>')).unwrap_or(nt);
    inner.chars().map(|c| if c.is_ascii_alphanumeric() || "-_".contains(c) { c } else { '_' }).take(24).collect()
}

#[cfg(test)]
mod tests;
