//! Derivation trees: what generation makes and parsing finds. A node is a
//! nonterminal expanded by one of its alternatives, or a terminal; every
//! node knows the span of bytes it covers in the string it derives.

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

/// A terminal's bytes: held in the node up to 16 bytes (most terminals
/// are a byte or a keyword), so that a tree costs no allocation per leaf.
pub type Bytes = SmallVec<[u8; 16]>;

/// A node of a derivation tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Node {
    /// Nonterminal `nt` (an index into `Grammar::rules`) expanded by its
    /// alternative `alt`; `children` match that alternative's symbols.
    N { nt: usize, alt: usize, children: Vec<Node>, start: usize, end: usize },
    /// Terminal bytes at `start`.
    T { bytes: Bytes, start: usize },
}

impl Node {
    /// The bytes it covers: `start..end`.
    pub fn span(&self) -> (usize, usize) {
        match self {
            Node::N { start, end, .. } => (*start, *end),
            Node::T { bytes, start } => (*start, start + bytes.len()),
        }
    }

    /// The string it derives.
    pub fn text(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Node::N { children, .. } => children.iter().for_each(|c| c.write(out)),
            Node::T { bytes, .. } => out.extend_from_slice(bytes),
        }
    }

    /// Visits every nonterminal node, parents before children.
    pub fn each(&self, f: &mut impl FnMut(&Node)) {
        f(self);
        if let Node::N { children, .. } = self {
            for c in children {
                c.each(f);
            }
        }
    }
}
