//! Derivation trees held flat: the string, and its expansions in pre-order
//! (a node before its children, children left to right), each with the
//! number of expansions of its subtree. A subtree is a run of that list and
//! a span of the string, so taking one out, or putting another in its
//! place, copies two slices and moves the spans after it: no allocation per
//! node. The terminals are the grammar's: [`Derivation::to_node`] spells
//! them out into a [`Node`] tree.

use crate::{Grammar, Node, Sym};

/// One expansion: nonterminal `nt` by its alternative `alt`, covering
/// `text[start..end]`; `size` expansions in its subtree, itself included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expansion {
    pub nt: u32,
    pub alt: u32,
    pub start: usize,
    pub end: usize,
    pub size: u32,
}

/// A string and its derivation, flat. The first expansion, when there is
/// one, is the root's and spans the whole string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Derivation {
    pub(crate) text: Vec<u8>,
    pub(crate) nodes: Vec<Expansion>,
}

impl Derivation {
    pub fn new() -> Derivation {
        Derivation::default()
    }

    /// The derived string.
    pub fn text(&self) -> &[u8] {
        &self.text
    }

    /// The expansions in pre-order; the first is the root's.
    pub fn nodes(&self) -> &[Expansion] {
        &self.nodes
    }

    /// The string expansion `k` derives.
    pub fn text_of(&self, k: usize) -> &[u8] {
        let e = &self.nodes[k];
        &self.text[e.start..e.end]
    }

    /// The flat form of a tree whose root is a nonterminal (a terminal has
    /// no expansion: its flat form is its text alone), its spans from 0
    /// wherever the tree's start.
    pub fn from_node(root: &Node) -> Derivation {
        let base = root.span().0;
        let mut out = Derivation { text: root.text(), nodes: Vec::new() };
        // (node, closing): a node's closing mark is popped after its
        // children, when its subtree's size is known.
        let mut todo: Vec<(&Node, bool)> = vec![(root, false)];
        let mut open: Vec<usize> = Vec::new();
        while let Some((node, closing)) = todo.pop() {
            let Node::N { nt, alt, children, start, end } = node else { continue };
            if closing {
                let k = open.pop().expect("opened before it closes");
                out.nodes[k].size = (out.nodes.len() - k) as u32;
                continue;
            }
            open.push(out.nodes.len());
            let (start, end) = (start - base, end - base);
            out.nodes.push(Expansion { nt: *nt as u32, alt: *alt as u32, start, end, size: 1 });
            todo.push((node, true));
            todo.extend(children.iter().rev().filter(|c| c.nonterminal().is_some()).map(|c| (c, false)));
        }
        out
    }

    /// The tree with its terminals, as the alternatives of `g` spell them
    /// (`g` the grammar, or one of the same shape, it was derived in).
    pub fn to_node(&self, g: &Grammar) -> Node {
        struct Open<'a> {
            e: Expansion,
            syms: std::slice::Iter<'a, Sym>,
            children: Vec<Node>,
        }
        let open = |e: Expansion| {
            let syms = &g.rules[e.nt as usize].alts[e.alt as usize].symbols;
            Open { e, syms: syms.iter(), children: Vec::with_capacity(syms.len()) }
        };
        let Some(&root) = self.nodes.first() else { return Node::T { bytes: self.text[..].into(), start: 0 } };
        let mut stack = vec![open(root)];
        let (mut next, mut at) = (1, root.start);
        loop {
            let top = stack.last_mut().expect("the root is open until it closes");
            match top.syms.next() {
                None => {
                    let o = stack.pop().expect("non-empty");
                    at = o.e.end;
                    let (nt, alt) = (o.e.nt as usize, o.e.alt as usize);
                    let node = Node::N { nt, alt, children: o.children, start: o.e.start, end: o.e.end };
                    match stack.last_mut() {
                        Some(p) => p.children.push(node),
                        None => return node,
                    }
                }
                Some(Sym::T(t)) => {
                    top.children.push(Node::T { bytes: t[..].into(), start: at });
                    at += t.len();
                }
                Some(Sym::N(_)) => {
                    let e = self.nodes[next];
                    next += 1;
                    at = e.start;
                    stack.push(open(e));
                }
            }
        }
    }

    /// The subtree of expansion `k`, on its own (its spans from 0).
    pub fn subtree(&self, k: usize) -> Derivation {
        let e = self.nodes[k];
        let nodes = self.nodes[k..k + e.size as usize].iter();
        Derivation {
            text: self.text[e.start..e.end].to_vec(),
            nodes: nodes.map(|x| Expansion { start: x.start - e.start, end: x.end - e.start, ..*x }).collect(),
        }
    }

    /// `self` with the subtree of expansion `k` replaced by `new` (a
    /// derivation of the same nonterminal): `new`'s spans move to where
    /// the old subtree started, and the spans after it, and the ends and
    /// sizes of the expansions around it, follow.
    pub fn replaced(&self, k: usize, new: &Derivation) -> Derivation {
        let old = self.nodes[k];
        debug_assert_eq!(new.nodes.first().map(|n| n.nt), Some(old.nt), "a subtree of the same nonterminal");
        let (s, e, size) = (old.start, old.end, old.size as usize);
        let new_text = &new.text[..];
        let delta = new_text.len() as isize - (e - s) as isize;
        let dsize = new.nodes.len() as i64 - size as i64;
        let mv = |x: usize| (x as isize + delta) as usize;
        let mut text = Vec::with_capacity(self.text.len().saturating_add_signed(delta));
        text.extend_from_slice(&self.text[..s]);
        text.extend_from_slice(new_text);
        text.extend_from_slice(&self.text[e..]);
        let mut nodes = Vec::with_capacity(self.nodes.len() - size + new.nodes.len());
        for (j, x) in self.nodes[..k].iter().enumerate() {
            let around = j + x.size as usize > k;
            nodes.push(match around {
                true => Expansion { end: mv(x.end), size: (i64::from(x.size) + dsize) as u32, ..*x },
                false => *x,
            });
        }
        nodes.extend(new.nodes.iter().map(|x| Expansion { start: x.start + s, end: x.end + s, ..*x }));
        nodes.extend(self.nodes[k + size..].iter().map(|x| Expansion { start: mv(x.start), end: mv(x.end), ..*x }));
        Derivation { text, nodes }
    }

    /// The tree as JSON ([`Node::to_json`]).
    pub fn to_json(&self, g: &Grammar) -> serde_json::Value {
        self.to_node(g).to_json(g)
    }
}

#[cfg(test)]
mod tests;
