//! Bounded generation from a probabilistic grammar ("Inputs from Hell",
//! 3.4). Alternatives are drawn by their probabilities; each nonterminal's
//! cheapest derivation (fewest expansions) is known ahead, and a budget of
//! expansions keeps the cheapest completion of every open nonterminal in
//! reserve, so that near the bound each one is closed by the alternatives
//! that still fit, in the end by its cheapest: every output terminates,
//! with at most `max_nodes` nonterminal nodes.
//!
//! The fast path ([`Generator::generate_into`]) writes the text and a flat
//! pre-order list of expansions into reused buffers, with no allocation per
//! node; [`Generator::generate`] builds the derivation tree from it.

use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{Derivation, Error, Expansion, Grammar, Node, Sym};

/// The fewest expansions (nonterminal nodes) a derivation from each
/// nonterminal needs; `u64::MAX` for one that derives no finite string.
pub(crate) fn min_costs(g: &Grammar) -> Vec<u64> {
    let mut cost = vec![u64::MAX; g.rules.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for (i, r) in g.rules.iter().enumerate() {
            for a in &r.alts {
                let c = a.symbols.iter().fold(1u64, |acc, s| match s {
                    Sym::T(_) => acc,
                    Sym::N(k) => acc.saturating_add(cost.get(*k).copied().unwrap_or(u64::MAX)),
                });
                if c < cost[i] {
                    cost[i] = c;
                    changed = true;
                }
            }
        }
    }
    cost
}

/// A symbol, compiled: terminal bytes in the pool, or a nonterminal.
#[derive(Clone, Copy)]
enum CSym {
    T(u32, u32),
    N(u32),
}

/// An alternative, compiled: its index among its nonterminal's
/// alternatives in the grammar, its symbols, the cheapest cost of its
/// nonterminals together, and its cumulative probability threshold (out
/// of 2^32). A nonterminal's alternatives are held cheapest first, so
/// that those which fit a budget are a prefix, and their thresholds
/// accumulate in that order.
#[derive(Clone, Copy)]
struct CAlt {
    orig: u32,
    syms: (u32, u32),
    kids: u64,
    cum: u64,
}

/// An open node: its index among the expansions and the symbols left.
#[derive(Clone, Copy)]
struct Frame {
    node: u32,
    pos: u32,
    end: u32,
}

/// Generates strings and their derivations from a grammar; deterministic
/// for a seed.
pub struct Generator {
    /// The start symbol.
    start: usize,
    /// Per nonterminal: its alternatives' range in `alts`.
    nts: Vec<(u32, u32)>,
    min: Vec<u64>,
    alts: Vec<CAlt>,
    syms: Vec<CSym>,
    pool: Vec<u8>,
    rng: ChaCha8Rng,
    stack: Vec<Frame>,
    scratch: Derivation,
    /// The grammar, for the terminals of [`Generator::generate`]'s trees.
    grammar: Grammar,
}

const ONE: u64 = 1 << 32;

impl Generator {
    /// A generator for `grammar`, seeded with `seed`. Fails when the start
    /// symbol or a reference is missing or the start symbol derives no
    /// finite string.
    pub fn new(grammar: &Grammar, seed: u64) -> Result<Generator, Error> {
        let bad = |why: &str| {
            let (name, line) = grammar.rules.get(grammar.start).map_or(("<start>", 0), |r| (&r.name[..], r.line));
            Err(Error::Rule { path: String::new(), line, nonterminal: name.to_string(), why: why.to_string() })
        };
        let n = grammar.rules.len();
        if grammar.start >= n {
            return bad("the grammar has no start symbol");
        }
        if grammar
            .rules
            .iter()
            .flat_map(|r| &r.alts)
            .flat_map(|a| &a.symbols)
            .any(|s| matches!(s, Sym::N(k) if *k >= n))
        {
            return bad("the grammar refers to a nonterminal that does not exist");
        }
        let min = min_costs(grammar);
        if min[grammar.start] == u64::MAX {
            return bad("derives no finite string");
        }
        let (mut nts, mut alts, mut syms, mut pool) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (i, r) in grammar.rules.iter().enumerate() {
            let probs = grammar.probabilities(i);
            let weight = |p: f64| if p.is_finite() && p > 0.0 { p } else { 0.0 };
            let total: f64 = probs.iter().map(|&p| weight(p)).sum();
            let first = alts.len() as u32;
            for (a, alt) in r.alts.iter().enumerate() {
                let s0 = syms.len() as u32;
                let mut kids = 0u64;
                for s in &alt.symbols {
                    syms.push(match s {
                        Sym::T(t) => {
                            pool.extend_from_slice(t);
                            CSym::T((pool.len() - t.len()) as u32, t.len() as u32)
                        }
                        Sym::N(k) => {
                            kids = kids.saturating_add(min[*k]);
                            CSym::N(*k as u32)
                        }
                    });
                }
                alts.push(CAlt { orig: a as u32, syms: (s0, syms.len() as u32), kids, cum: 0 });
            }
            let mine = &mut alts[first as usize..];
            mine.sort_by_key(|a| a.kids);
            // Without weights, every alternative alike.
            let share =
                |a: &CAlt| if total > 0.0 { weight(probs[a.orig as usize]) / total } else { 1.0 / r.alts.len() as f64 };
            let mut acc = 0.0;
            for a in mine.iter_mut() {
                acc += share(a);
                a.cum = ((acc * ONE as f64).round() as u64).min(ONE);
            }
            if let Some(last) = mine.last_mut() {
                last.cum = ONE;
            }
            nts.push((first, alts.len() as u32));
        }
        let rng = ChaCha8Rng::seed_from_u64(seed);
        Ok(Generator {
            start: grammar.start,
            nts,
            min,
            alts,
            syms,
            pool,
            rng,
            stack: Vec::new(),
            scratch: Derivation::new(),
            grammar: grammar.clone(),
        })
    }

    /// Starts the random sequence again from `seed`.
    pub fn reseed(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    /// The fewest expansions a derivation from nonterminal `nt` needs
    /// (`u64::MAX`: none is finite).
    pub fn min_nodes(&self, nt: usize) -> u64 {
        self.min.get(nt).copied().unwrap_or(u64::MAX)
    }

    /// A random derivation with at most `max_nodes` nonterminal nodes (or
    /// the start symbol's cheapest derivation, when that needs more).
    pub fn generate(&mut self, max_nodes: usize) -> Node {
        self.generate_from(self.start, max_nodes)
    }

    /// As [`Generator::generate`], from nonterminal `nt` (spans start at
    /// 0); `nt` must be a nonterminal of the grammar with a finite
    /// derivation ([`Generator::min_nodes`]).
    pub fn generate_from(&mut self, nt: usize, max_nodes: usize) -> Node {
        let mut d = std::mem::take(&mut self.scratch);
        self.generate_from_into(nt, max_nodes, &mut d);
        let tree = d.to_node(&self.grammar);
        self.scratch = d;
        tree
    }

    /// As [`Generator::generate`], into `out` (its buffers reused).
    pub fn generate_into(&mut self, max_nodes: usize, out: &mut Derivation) {
        self.generate_from_into(self.start, max_nodes, out)
    }

    /// As [`Generator::generate_from`], into `out` (its buffers reused).
    pub fn generate_from_into(&mut self, start: usize, max_nodes: usize, out: &mut Derivation) {
        out.text.clear();
        out.nodes.clear();
        self.stack.clear();
        assert!(self.min[start] != u64::MAX, "nonterminal {start} derives no finite string");
        let limit = (max_nodes as u64).max(self.min[start]);
        // `used`: nodes made; `reserved`: the cheapest cost of the
        // nonterminals still to expand. used + reserved <= limit throughout.
        let (mut used, mut reserved) = (0u64, self.min[start]);
        self.expand(start as u32, limit, &mut used, &mut reserved, out);
        while let Some(f) = self.stack.last_mut() {
            if f.pos == f.end {
                let (at, size) = (out.text.len(), (out.nodes.len() - f.node as usize) as u32);
                let n = &mut out.nodes[f.node as usize];
                (n.end, n.size) = (at, size);
                self.stack.pop();
                continue;
            }
            let s = self.syms[f.pos as usize];
            f.pos += 1;
            match s {
                CSym::T(off, len) => out.text.extend_from_slice(&self.pool[off as usize..(off + len) as usize]),
                CSym::N(k) => self.expand(k, limit, &mut used, &mut reserved, out),
            }
        }
    }

    fn expand(&mut self, k: u32, limit: u64, used: &mut u64, reserved: &mut u64, out: &mut Derivation) {
        *reserved -= self.min[k as usize];
        let avail = limit - *used - *reserved;
        let a = self.choose(k as usize, avail);
        let alt = self.alts[a];
        *used += 1;
        *reserved += alt.kids;
        out.nodes.push(Expansion { nt: k, alt: alt.orig, start: out.text.len(), end: out.text.len(), size: 1 });
        self.stack.push(Frame { node: out.nodes.len() as u32 - 1, pos: alt.syms.0, end: alt.syms.1 });
    }

    /// An alternative of `k` drawn by probability among those whose
    /// cheapest completion costs at most `avail` (the cheapest always does).
    fn choose(&mut self, k: usize, avail: u64) -> usize {
        let (lo, hi) = (self.nts[k].0 as usize, self.nts[k].1 as usize);
        if hi - lo == 1 {
            return lo;
        }
        let alts = &self.alts[lo..hi];
        let r = u64::from(self.rng.next_u32());
        let a = alts.partition_point(|a| a.cum <= r).min(alts.len() - 1);
        if alts[a].kids < avail {
            return lo + a;
        }
        // Near the bound: draw among the alternatives that fit, a prefix.
        let fit = alts.partition_point(|a| a.kids < avail).max(1);
        let total = alts[fit - 1].cum;
        if total == 0 {
            return lo + self.rng.random_range(0..fit);
        }
        let r = self.rng.random_range(0..total);
        lo + alts[..fit].partition_point(|a| a.cum <= r).min(fit - 1)
    }
}

#[cfg(test)]
mod tests;
