//! Editing derivation trees: finding nodes by path, replacing a subtree
//! (later spans shift), and the tree as JSON with nonterminal names, as a
//! campaign keeps it beside a test.

use serde_json::{json, Value};

use crate::{Grammar, Node};

impl Node {
    /// The nonterminal nodes in pre-order, each with its path: the child
    /// indices that lead to it from `self` (the root's path is empty).
    /// (Tests only: the paths take the tree's size times its depth.)
    #[cfg(test)]
    pub fn nonterminals(&self) -> Vec<(Vec<usize>, &Node)> {
        let mut out = Vec::new();
        let mut todo = vec![(Vec::new(), self)];
        while let Some((path, node)) = todo.pop() {
            if let Node::N { children, .. } = node {
                for (i, c) in children.iter().enumerate().rev() {
                    let mut p = path.clone();
                    p.push(i);
                    todo.push((p, c));
                }
                out.push((path, node));
            }
        }
        out
    }

    /// The nonterminal of every nonterminal node, in pre-order (a node's
    /// place in this list is its number for [`Node::path_of`]).
    pub fn nonterminal_list(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let mut todo = vec![self];
        while let Some(node) = todo.pop() {
            if let Node::N { nt, children, .. } = node {
                out.push(*nt);
                todo.extend(children.iter().rev());
            }
        }
        out
    }

    /// The path of the `k`-th nonterminal node in pre-order (0: `self`).
    pub fn path_of(&self, k: usize) -> Option<Vec<usize>> {
        let Node::N { .. } = self else { return None };
        if k == 0 {
            return Some(Vec::new());
        }
        let mut seen = 1;
        let mut path = Vec::new();
        let mut stack: Vec<(&Node, usize)> = vec![(self, 0)];
        while let Some((node, next)) = stack.last_mut() {
            let Node::N { children, .. } = *node else { unreachable!("only nonterminals are stacked") };
            let Some(c) = children.get(*next) else {
                stack.pop();
                path.pop();
                continue;
            };
            let i = *next;
            *next += 1;
            if let Node::N { .. } = c {
                path.push(i);
                if seen == k {
                    return Some(path);
                }
                seen += 1;
                stack.push((c, 0));
            }
        }
        None
    }

    /// The node at `path` (child indices from `self`).
    pub fn at_path(&self, path: &[usize]) -> Option<&Node> {
        let mut node = self;
        for &i in path {
            match node {
                Node::N { children, .. } => node = children.get(i)?,
                Node::T { .. } => return None,
            }
        }
        Some(node)
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

    /// `self` with the node at `path` replaced by `new`: `new`'s spans are
    /// moved to where the old node started, and every span after it (and
    /// the ends of the nodes around it) shift by the change in length.
    /// `None` when `path` leads nowhere.
    pub fn replaced(&self, path: &[usize], new: &Node) -> Option<Node> {
        let old = self.at_path(path)?;
        let (start, end) = old.span();
        let mut put = new.clone();
        put.shift(start as isize - new.span().0 as isize);
        let delta = (put.span().1 - put.span().0) as isize - (end - start) as isize;
        let mut out = self.clone();
        let mut node = &mut out;
        for &i in path {
            let Node::N { children, end, .. } = node else { unreachable!("at_path checked the path") };
            *end = (*end as isize + delta) as usize;
            for later in &mut children[i + 1..] {
                later.shift(delta);
            }
            node = &mut children[i];
        }
        *node = put;
        Some(out)
    }

    /// Moves every span by `delta` bytes.
    pub fn shift(&mut self, delta: isize) {
        let mv = |x: &mut usize| *x = (*x as isize + delta) as usize;
        match self {
            Node::N { start, end, children, .. } => {
                mv(start);
                mv(end);
                children.iter_mut().for_each(|c| c.shift(delta));
            }
            Node::T { start, .. } => mv(start),
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

    /// Spans are consistent: children tile their parent, terminals hold
    /// the text at their start.
    fn consistent(n: &Node, text: &[u8]) {
        match n {
            Node::N { children, start, end, .. } => {
                let mut at = *start;
                for c in children {
                    assert_eq!(c.span().0, at);
                    consistent(c, text);
                    at = c.span().1;
                }
                assert_eq!(at, *end);
            }
            Node::T { bytes, start } => assert_eq!(&text[*start..start + bytes.len()], &bytes[..]),
        }
    }

    #[test]
    fn replacing_a_subtree_shifts_what_follows() {
        let g = g();
        let t = parse(&g, b"s/aa/b/\np\nd").unwrap();
        let re = g.index("<re>").unwrap();
        let donor = parse(&g, b"s/aaaa/b/").unwrap();
        let (_, long) = donor.nonterminals().into_iter().find(|(_, n)| n.nonterminal() == Some(re)).unwrap();
        for (path, node) in t.nonterminals() {
            if node.nonterminal() != Some(re) {
                continue;
            }
            let out = t.replaced(&path, long).unwrap();
            let text = out.text();
            consistent(&out, &text);
            assert_eq!(out.span(), (0, text.len()));
            // The result is a sentence of the grammar, and parses back.
            assert_eq!(parse(&g, &text).unwrap().text(), text);
            let (s, e) = node.span();
            let mut want = t.text()[..s].to_vec();
            want.extend_from_slice(&long.text());
            want.extend_from_slice(&t.text()[e..]);
            assert_eq!(text, want);
        }
        assert!(t.replaced(&[9, 9], long).is_none());
        assert_eq!(t.replaced(&[], &donor).unwrap(), donor);
    }

    #[test]
    fn nonterminals_by_number_in_pre_order() {
        let g = g();
        let t = parse(&g, b"s/ab/b/\np\nd").unwrap();
        let all = t.nonterminals();
        let list = t.nonterminal_list();
        assert_eq!(list.len(), all.len());
        for (k, (path, node)) in all.iter().enumerate() {
            assert_eq!(list[k], node.nonterminal().unwrap());
            assert_eq!(t.path_of(k).as_ref(), Some(path));
        }
        assert_eq!(t.path_of(all.len()), None);
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
