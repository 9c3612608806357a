//! Derivation trees: what parsing finds and what a kept test's JSON shows.
//! A node is a nonterminal expanded by one of its alternatives, or a
//! terminal; every node knows the span of bytes it covers in the string it
//! derives. (Generation and edits work on the flat form,
//! [`crate::Derivation`].)

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use smallvec::SmallVec;

use crate::Grammar;

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

    /// Visits every node, parents before children.
    pub fn each(&self, f: &mut impl FnMut(&Node)) {
        f(self);
        if let Node::N { children, .. } = self {
            for c in children {
                c.each(f);
            }
        }
    }

    /// The deepest nonterminal node whose span is exactly `start..end`
    /// (`None` when no node covers just those bytes).
    pub fn spanning(&self, start: usize, end: usize) -> Option<&Node> {
        let mut node = self;
        let mut found = None;
        loop {
            let Node::N { children, .. } = node else { return found };
            if node.span() == (start, end) {
                found = Some(node);
            }
            let inside =
                children.iter().find(|c| c.span().0 <= start && end <= c.span().1 && c.nonterminal().is_some());
            match inside {
                Some(c) => node = c,
                None => return found,
            }
        }
    }

    /// The nonterminal a node expands (`None` for a terminal).
    pub fn nonterminal(&self) -> Option<usize> {
        match self {
            Node::N { nt, .. } => Some(*nt),
            Node::T { .. } => None,
        }
    }

    /// The tree as JSON, flat (a deep tree nests no deeper than this):
    /// `{"format": "carve-bridge derivation tree", "version": 1, "nodes":
    /// [...]}`, the nodes in pre-order, a nonterminal as `{"nt": "<name>",
    /// "alt": k, "start": s, "end": e, "parent": p}`, a terminal as `{"t":
    /// "text", "start": s, "parent": p}` (`p` the index of its parent node,
    /// `null` for the root; bytes that are not UTF-8 as `\u{fffd}`). The
    /// terminals in order spell the string.
    pub fn to_json(&self, g: &Grammar) -> Value {
        let mut nodes = Vec::new();
        let mut todo: Vec<(&Node, Option<usize>)> = vec![(self, None)];
        while let Some((node, parent)) = todo.pop() {
            let me = nodes.len();
            nodes.push(match node {
                Node::N { nt, alt, start, end, .. } => json!({
                    "nt": g.rules.get(*nt).map_or("?", |r| &r.name[..]),
                    "alt": alt, "start": start, "end": end, "parent": parent,
                }),
                Node::T { bytes, start } => {
                    json!({ "t": String::from_utf8_lossy(bytes), "start": start, "parent": parent })
                }
            });
            if let Node::N { children, .. } = node {
                todo.extend(children.iter().rev().map(|c| (c, Some(me))));
            }
        }
        json!({ "format": "carve-bridge derivation tree", "version": 1, "nodes": nodes })
    }
}

#[cfg(test)]
mod tests {
    use crate::{parse, Grammar, Node};

    fn g() -> Grammar {
        Grammar::from_json(
            r#"{"<start>": ["<cmd>\n<start>", "<cmd>"], "<cmd>": ["p", "s/<re>/<re>/", "d"], "<re>": ["", "a<re>", "b"]}"#,
            "t",
        )
        .unwrap()
    }

    #[test]
    fn the_deepest_node_of_a_span() {
        let g = g();
        let t = parse(&g, b"s/ab/b/\np").unwrap();
        let nt = |n: Option<&Node>| n.and_then(|n| n.nonterminal()).map(|k| g.rules[k].name.clone());
        assert_eq!(nt(t.spanning(2, 4)).as_deref(), Some("<re>"));
        assert_eq!(nt(t.spanning(0, 7)).as_deref(), Some("<cmd>"));
        assert_eq!(nt(t.spanning(0, 9)).as_deref(), Some("<start>"));
        assert_eq!(nt(t.spanning(8, 9)).as_deref(), Some("<cmd>"));
        assert_eq!(t.spanning(1, 3), None);
    }

    #[test]
    fn json_is_flat_names_the_nonterminals_and_spells_the_text() {
        let g = g();
        let t = parse(&g, b"p").unwrap();
        let j = t.to_json(&g);
        let n = &j["nodes"];
        assert_eq!(
            (n[0]["nt"].as_str(), n[0]["end"].as_u64(), n[0]["parent"].is_null()),
            (Some("<start>"), Some(1), true)
        );
        assert_eq!((n[1]["nt"].as_str(), n[1]["parent"].as_u64()), (Some("<cmd>"), Some(0)));
        assert_eq!((n[2]["t"].as_str(), n[2]["parent"].as_u64()), (Some("p"), Some(1)));
        // A thousand commands deep: still a flat list that serde reads back.
        let text = "p\n".repeat(1000) + "d";
        let t = parse(&g, text.as_bytes()).unwrap();
        let s = t.to_json(&g).to_string();
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        let spelled: String = back["nodes"].as_array().unwrap().iter().filter_map(|n| n["t"].as_str()).collect();
        assert_eq!(spelled, text);
    }
}
