//! Probabilities learned from samples' derivation trees, and inverted
//! ("Inputs from Hell", sections 3.2 and 3.3), plus the Fuzzing Book's
//! rank-swapping inversion for comparison.

#[cfg(test)]
mod tests;

use crate::{Grammar, Node};

/// How often each alternative of each nonterminal is used in some trees:
/// `per[nt][alt]`, shaped like the grammar's rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counts {
    pub per: Vec<Vec<u64>>,
}

impl Counts {
    /// No uses yet, shaped like `g`.
    pub fn new(g: &Grammar) -> Counts {
        Counts { per: g.rules.iter().map(|r| vec![0; r.alts.len()]).collect() }
    }

    /// Adds the uses in `tree`. A node naming a nonterminal or alternative
    /// `g` lacks (a tree of another grammar) is not counted, nor are the
    /// nodes below it.
    pub fn add(&mut self, tree: &Node) {
        let mut todo = vec![tree];
        while let Some(node) = todo.pop() {
            if let Node::N { nt, alt, children, .. } = node {
                if let Some(c) = self.per.get_mut(*nt).and_then(|r| r.get_mut(*alt)) {
                    *c += 1;
                    todo.extend(children);
                }
            }
        }
    }

    /// How often nonterminal `nt` is expanded.
    pub fn total(&self, nt: usize) -> u64 {
        self.per.get(nt).map_or(0, |r| r.iter().sum())
    }
}

/// The uses of each alternative in `trees` (see [`Counts::add`]).
pub fn counts(g: &Grammar, trees: &[Node]) -> Counts {
    let mut c = Counts::new(g);
    trees.iter().for_each(|t| c.add(t));
    c
}

/// `g` with every probability set: an alternative's count over its
/// nonterminal's (equation 4); a nonterminal never expanded in the
/// samples gets uniform probabilities.
pub fn learned(g: &Grammar, c: &Counts) -> Grammar {
    with_probabilities(g, c, |w| {
        let total: u64 = w.iter().sum();
        w.iter().map(|&k| k as f64 / total as f64).collect()
    })
}

/// `g` with the learned probabilities inverted (section 3.3): each
/// alternative weighs the reciprocal of its count, normalised. An unseen
/// alternative weighs 1/0 = ∞: when a nonterminal has some, they share its
/// whole mass equally and the seen ones get 0 (the paper's Figure 5). A
/// nonterminal never expanded gets uniform probabilities.
pub fn inverted(g: &Grammar, c: &Counts) -> Grammar {
    with_probabilities(g, c, |w| {
        let unseen = w.iter().filter(|&&k| k == 0).count();
        if unseen > 0 {
            return w.iter().map(|&k| if k == 0 { 1.0 / unseen as f64 } else { 0.0 }).collect();
        }
        let sum: f64 = w.iter().map(|&k| 1.0 / k as f64).sum();
        w.iter().map(|&k| 1.0 / k as f64 / sum).collect()
    })
}

/// `g` with the learned probabilities swapped by rank (the Fuzzing Book's
/// `invert_expansion`): the alternatives sorted by learned probability,
/// stably (ties keep grammar order), the `j`-th least likely gets the
/// probability of the `j`-th most likely. The multiset of probabilities
/// is kept; an unseen alternative gets the largest one, but of several
/// unseen ones only as many as there are seen ones get any mass.
pub fn rank_swap(g: &Grammar, c: &Counts) -> Grammar {
    let mut out = learned(g, c);
    for nt in 0..out.rules.len() {
        let p = out.probabilities(nt);
        let mut order: Vec<usize> = (0..p.len()).collect();
        order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
        for (j, &i) in order.iter().enumerate() {
            out.rules[nt].alts[i].prob = Some(p[order[order.len() - 1 - j]]);
        }
    }
    out
}

/// `g` with each nonterminal's probabilities made by `f` from its counts,
/// or uniform when it was never expanded (or `c` is not shaped like `g`).
fn with_probabilities(g: &Grammar, c: &Counts, f: impl Fn(&[u64]) -> Vec<f64>) -> Grammar {
    let mut out = g.clone();
    for (nt, r) in out.rules.iter_mut().enumerate() {
        let n = r.alts.len();
        let probs = match c.per.get(nt) {
            Some(w) if w.len() == n && w.iter().any(|&k| k > 0) => f(w),
            _ => vec![1.0 / n as f64; n],
        };
        for (a, p) in r.alts.iter_mut().zip(probs) {
            a.prob = Some(p);
        }
    }
    out
}
