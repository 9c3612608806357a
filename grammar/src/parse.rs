//! Parsing samples into derivation trees: an Earley recogniser over bytes
//! (terminals scanned whole), with Aycock and Horspool's treatment of
//! nullable nonterminals and Leo's for right recursion, then one derivation
//! read back from the items' first back pointers.
//!
//! Nullable nonterminals: when an item waits for a nullable nonterminal,
//! the predictor also moves its dot over it at once (Aycock and Horspool,
//! "Practical Earley Parsing", 2002). The completion of an empty
//! nonterminal in the set it started in can then not miss an item added to
//! that set later, which is how plain Earley miscounts empty alternatives.
//!
//! Right recursion: when a nonterminal completes from set `o` and exactly
//! one item of `o` waits for it as its last symbol, starting before `o`,
//! the chain of such single completions is followed to its top at once
//! and only the top item is added (Leo, 1991). A right-recursive list of
//! `n` elements then costs `O(n)`, not `O(n²)`.
//!
//! Ambiguity: one derivation is chosen, deterministically: the first one
//! the recogniser finds. Every item keeps the first way it was made (a scan,
//! a completion, a nullable skip); sets are processed left to right, items
//! in the order they were added, alternatives predicted in grammar order,
//! and the accepting item is the first complete `<start>` item of the last
//! set. Because a back pointer always refers to an item that existed
//! before, the derivation is finite even when the grammar has cycles
//! (`<a> ::= <a> | "x"`, or empty ones): `<a>` over `"x"` is derived as
//! `"x"`, never through `<a> ::= <a>`. An empty nonterminal the
//! recogniser skipped is derived by its first alternative that derives the
//! empty string without recursion (see [`Parser::new`]). Counting or
//! listing all derivations is not offered: with cycles there can be
//! infinitely many.

mod extract;
#[cfg(test)]
pub(crate) mod rules;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use crate::{Error, Grammar, Node, Sym};

/// Parses `input` with `g` from its start symbol (see [`Parser`]).
pub fn parse(g: &Grammar, input: &[u8]) -> Result<Node, Error> {
    Parser::new(g)?.parse(input)
}

/// A grammar checked and prepared for parsing many samples.
pub struct Parser<'g> {
    g: &'g Grammar,
    /// Per nonterminal, the alternative of its canonical empty derivation
    /// (`None`: it does not derive the empty string).
    empty: Vec<Option<usize>>,
}

/// An Earley item: alternative `alt` of `nt` with its dot before symbol
/// `dot`, started at byte `origin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Item {
    nt: u32,
    alt: u32,
    dot: u32,
    origin: usize,
}

impl Item {
    fn advanced(self) -> Item {
        Item { dot: self.dot + 1, ..self }
    }
}

/// How an item was first made; `pred` is the item with the dot one symbol
/// earlier, `child` a complete item of the same set.
#[derive(Debug, Clone, Copy)]
enum Back {
    /// Predicted: the dot at the start.
    Start,
    /// Over a terminal, from the set the terminal starts in.
    Scan { pred: u32 },
    /// Over a nullable nonterminal, in the same set.
    Null { pred: u32 },
    /// Over a nonterminal, from the set `child` started in.
    Complete { pred: u32, child: u32 },
    /// The top of a chain of single completions, `child` at its bottom.
    Leo { child: u32 },
}

/// An Earley set: its items in the order they were added.
#[derive(Default)]
struct Set {
    items: Vec<Item>,
    back: Vec<Back>,
    seen: HashMap<Item, u32>,
    /// Per nonterminal, the items waiting for it (dot before it).
    waiting: HashMap<u32, Vec<u32>>,
}

impl Set {
    fn add(&mut self, item: Item, back: Back) {
        if let std::collections::hash_map::Entry::Vacant(e) = self.seen.entry(item) {
            e.insert(self.items.len() as u32);
            self.items.push(item);
            self.back.push(back);
        }
    }
}

impl<'g> Parser<'g> {
    /// Checks that every symbol names a nonterminal of `g` (else
    /// [`Error::Rule`]) and finds the nullable nonterminals. The canonical
    /// empty derivation of one is its first alternative whose symbols are
    /// all nullable by the previous rounds of the fixpoint (or empty).
    pub fn new(g: &'g Grammar) -> Result<Self, Error> {
        let n = g.rules.len();
        let bad = |r: &crate::NonTerminal, why: String| Error::Rule {
            path: String::new(),
            line: r.line,
            nonterminal: r.name.clone(),
            why,
        };
        if g.start >= n {
            return Err(Error::Rule {
                path: String::new(),
                line: 0,
                nonterminal: format!("#{}", g.start),
                why: format!("the start symbol is not one of the {n} nonterminals"),
            });
        }
        for r in &g.rules {
            if r.alts.len() > u32::MAX as usize {
                return Err(bad(r, "too many alternatives".into()));
            }
            for a in &r.alts {
                if let Some(m) = a.symbols.iter().find_map(|s| match s {
                    Sym::N(m) if *m >= n => Some(*m),
                    _ => None,
                }) {
                    return Err(bad(r, format!("refers to nonterminal #{m}, which does not exist")));
                }
            }
        }
        let mut empty: Vec<Option<usize>> = vec![None; n];
        loop {
            let mut changed = false;
            for (nt, r) in g.rules.iter().enumerate() {
                if empty[nt].is_some() {
                    continue;
                }
                empty[nt] = r.alts.iter().position(|a| {
                    a.symbols.iter().all(|s| match s {
                        Sym::T(t) => t.is_empty(),
                        Sym::N(m) => empty[*m].is_some(),
                    })
                });
                changed |= empty[nt].is_some();
            }
            if !changed {
                break;
            }
        }
        Ok(Parser { g, empty })
    }

    fn symbols(&self, it: Item) -> &'g [Sym] {
        &self.g.rules[it.nt as usize].alts[it.alt as usize].symbols
    }

    /// The derivation tree of `input` (the first derivation found, see the
    /// module's documentation), or [`Error::NoParse`] with the end of the
    /// longest prefix of `input` that some sentence of `g` starts with.
    pub fn parse(&self, input: &[u8]) -> Result<Node, Error> {
        let sets = self.recognise(input);
        let n = input.len();
        let accept = sets[n].items.iter().position(|it| {
            it.nt as usize == self.g.start && it.origin == 0 && it.dot as usize == self.symbols(*it).len()
        });
        match accept {
            Some(root) => Ok(extract::tree(self, &sets, input, n, root as u32)),
            None => {
                let at = sets.iter().rposition(|s| !s.items.is_empty()).unwrap_or(0);
                Err(Error::NoParse { at })
            }
        }
    }

    /// The Earley sets of `input`, one per byte boundary.
    fn recognise(&self, input: &[u8]) -> Vec<Set> {
        let n = input.len();
        let mut sets: Vec<Set> = (0..=n).map(|_| Set::default()).collect();
        let mut leo: HashMap<(usize, u32), Option<Item>> = HashMap::new();
        let start = self.g.start as u32;
        for alt in 0..self.g.rules[self.g.start].alts.len() {
            sets[0].add(Item { nt: start, alt: alt as u32, dot: 0, origin: 0 }, Back::Start);
        }
        let mut last = 0;
        for i in 0..=n {
            if i > last {
                break;
            }
            let mut k = 0;
            while k < sets[i].items.len() {
                let it = sets[i].items[k];
                let syms = self.symbols(it);
                match syms.get(it.dot as usize) {
                    Some(Sym::T(t)) => {
                        if input[i..].starts_with(t) {
                            sets[i + t.len()].add(it.advanced(), Back::Scan { pred: k as u32 });
                            last = last.max(i + t.len());
                        }
                    }
                    Some(Sym::N(m)) => {
                        let m = *m;
                        let waiting = sets[i].waiting.entry(m as u32).or_default();
                        waiting.push(k as u32);
                        if waiting.len() == 1 {
                            for alt in 0..self.g.rules[m].alts.len() {
                                let p = Item { nt: m as u32, alt: alt as u32, dot: 0, origin: i };
                                sets[i].add(p, Back::Start);
                            }
                        }
                        if self.empty[m].is_some() {
                            sets[i].add(it.advanced(), Back::Null { pred: k as u32 });
                        }
                    }
                    None => self.complete(&mut sets, &mut leo, i, k),
                }
                k += 1;
            }
        }
        sets
    }

    /// Completes item `k` of set `i`.
    fn complete(&self, sets: &mut [Set], leo: &mut HashMap<(usize, u32), Option<Item>>, i: usize, k: usize) {
        let it = sets[i].items[k];
        let child = k as u32;
        if it.origin == i {
            let mut j = 0;
            while let Some(&w) = sets[i].waiting.get(&it.nt).and_then(|v| v.get(j)) {
                let adv = sets[i].items[w as usize].advanced();
                sets[i].add(adv, Back::Complete { pred: w, child });
                j += 1;
            }
            return;
        }
        let (done, rest) = sets.split_at_mut(i);
        if let Some(top) = self.leo_top(done, leo, it.origin, it.nt) {
            rest[0].add(top, Back::Leo { child });
            return;
        }
        for &w in done[it.origin].waiting.get(&it.nt).into_iter().flatten() {
            let adv = done[it.origin].items[w as usize].advanced();
            rest[0].add(adv, Back::Complete { pred: w, child });
        }
    }

    /// The item of set `o` that alone waits for `b`, as its last symbol,
    /// having started before `o`: completing `b` from `o` can only complete
    /// it in turn.
    fn single(&self, sets: &[Set], o: usize, b: u32) -> Option<u32> {
        match sets[o].waiting.get(&b).map(Vec::as_slice) {
            Some(&[w]) => {
                let it = sets[o].items[w as usize];
                (it.dot as usize + 1 == self.symbols(it).len() && it.origin < o).then_some(w)
            }
            _ => None,
        }
    }

    /// The top of the chain of single completions from `(o, b)`, if there
    /// is a chain (memoised; every set of the chain is finished).
    fn leo_top(&self, sets: &[Set], memo: &mut HashMap<(usize, u32), Option<Item>>, o: usize, b: u32) -> Option<Item> {
        let mut keys = Vec::new();
        let mut cur = (o, b);
        let mut last = None;
        let top = loop {
            if let Some(&m) = memo.get(&cur) {
                break m.or(last);
            }
            match self.single(sets, cur.0, cur.1) {
                None => {
                    memo.insert(cur, None);
                    break last;
                }
                Some(w) => {
                    let it = sets[cur.0].items[w as usize];
                    keys.push(cur);
                    last = Some(it.advanced());
                    cur = (it.origin, it.nt);
                }
            }
        };
        for key in keys {
            memo.insert(key, top);
        }
        top
    }
}
