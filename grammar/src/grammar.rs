//! A context-free grammar: nonterminals by index, each with its
//! alternatives; an alternative is a sequence of terminals (bytes) and
//! nonterminals, with an optional probability.

use serde::Serialize;

/// A symbol of an alternative.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub enum Sym {
    /// Literal bytes (never empty).
    T(Vec<u8>),
    /// A nonterminal, by index into [`Grammar::rules`].
    N(usize),
}

/// One alternative of a nonterminal.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alt {
    /// Its symbols; empty for the empty string.
    pub symbols: Vec<Sym>,
    /// Its probability among its nonterminal's alternatives, when given
    /// or learned; `None`: shares what the given ones leave, uniformly.
    pub prob: Option<f64>,
}

/// A nonterminal and its alternatives.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NonTerminal {
    /// Its name with the angle brackets, as written (`<expr>`).
    pub name: String,
    pub alts: Vec<Alt>,
    /// The line of the grammar file it is defined on (0: not from a file).
    pub line: usize,
}

/// A grammar: its nonterminals, the start symbol first-class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Grammar {
    pub rules: Vec<NonTerminal>,
    /// The index of the start symbol (`<start>`).
    pub start: usize,
}

impl Grammar {
    /// The index of the nonterminal called `name` (with its brackets).
    pub fn index(&self, name: &str) -> Option<usize> {
        self.rules.iter().position(|r| r.name == name)
    }

    /// The probability of each alternative of nonterminal `n`: given ones
    /// as given, the rest sharing what is left equally (all equal when
    /// none is given).
    pub fn probabilities(&self, n: usize) -> Vec<f64> {
        let alts = &self.rules[n].alts;
        let given: f64 = alts.iter().filter_map(|a| a.prob).sum();
        let unset = alts.iter().filter(|a| a.prob.is_none()).count();
        let rest = if unset == 0 { 0.0 } else { (1.0 - given).max(0.0) / unset as f64 };
        alts.iter().map(|a| a.prob.unwrap_or(rest)).collect()
    }

    /// The same grammar with nonterminal `nt` as its start symbol (to
    /// parse or generate what one nonterminal derives).
    pub fn with_start(&self, nt: usize) -> Grammar {
        Grammar { rules: self.rules.clone(), start: nt }
    }

    /// Every byte a string derived from nonterminal `nt` may hold: those
    /// of the terminals reachable from it.
    pub fn bytes(&self, nt: usize) -> [bool; 256] {
        let mut out = [false; 256];
        let mut seen = vec![false; self.rules.len()];
        let mut todo = vec![nt];
        while let Some(n) = todo.pop() {
            if n >= self.rules.len() || std::mem::replace(&mut seen[n], true) {
                continue;
            }
            for s in self.rules[n].alts.iter().flat_map(|a| &a.symbols) {
                match s {
                    Sym::T(t) => t.iter().for_each(|&b| out[b as usize] = true),
                    Sym::N(k) => todo.push(*k),
                }
            }
        }
        out
    }

    /// Whether one of the grammar's terminals holds `needle` (a grammar
    /// that writes `@@` derives a command line: `--args-in-input`).
    pub fn writes(&self, needle: &[u8]) -> bool {
        let holds = |t: &[u8]| t.windows(needle.len().max(1)).any(|w| w == needle);
        self.rules.iter().flat_map(|r| &r.alts).flat_map(|a| &a.symbols).any(|s| matches!(s, Sym::T(t) if holds(t)))
    }
}
