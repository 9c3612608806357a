//! Grammar-aware mapping ("Inputs from Hell" meets the bridge): a
//! parameter whose value stands in the system input as a whole derivation
//! node of the input's parse tree maps to that node, and its occurrences
//! that are no node (the same text by chance inside another token) are
//! dropped.

use grammar::{Grammar, Node};
use model::unit::{Encoding, Param, Site};

/// What aligning a unit's parameters found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Alignment {
    /// Per parameter: the nonterminal its occurrences are nodes of
    /// (`None`: no occurrence is a node, or a parameter of the whole input
    /// file or a new word, left as mapped).
    pub nonterminals: Vec<Option<usize>>,
    /// Occurrences dropped for not being a node.
    pub dropped: usize,
}

/// Aligns `params` with `tree`, the parse by `g` of the system input they
/// were mapped against: a parameter with an occurrence whose bytes are
/// exactly a nonterminal node's keeps only such occurrences, of that
/// node's nonterminal (the deepest node of the span, that of its first
/// aligned occurrence), and its new values keep to the bytes that
/// nonterminal can derive and NUL (`excluded` gets the others), so that
/// what a solver finds mostly still parses.
pub fn align(g: &Grammar, tree: &Node, params: &mut [Param]) -> Alignment {
    let mut out = Alignment::default();
    for p in params.iter_mut() {
        if matches!(p.site, Site::InputFile | Site::NewWord { .. }) {
            out.nonterminals.push(None);
            continue;
        }
        let node_of = |&(at, len): &(u64, u64)| {
            (len > 0).then(|| tree.spanning(at as usize, (at + len) as usize)).flatten().and_then(|n| n.nonterminal())
        };
        let Some(nt) = p.occurrences.iter().find_map(node_of) else {
            out.nonterminals.push(None);
            continue;
        };
        let before = p.occurrences.len();
        p.occurrences.retain(|o| node_of(o) == Some(nt));
        out.dropped += before - p.occurrences.len();
        out.nonterminals.push(Some(nt));
        if !matches!(p.encoding, Encoding::Digits { .. }) {
            let allowed = g.bytes(nt);
            // (NUL stays allowed: it ends a string, and fills the room
            // a word may grow into.)
            p.excluded.extend((1..=255u8).filter(|&b| !allowed[b as usize]));
            p.excluded.sort_unstable();
            p.excluded.dedup();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use grammar::{parse, Grammar};

    #[test]
    fn occurrences_that_are_nodes_are_kept_chance_ones_dropped() {
        let g = Grammar::from_json(
            r#"{"<start>": ["<cmd>", "<cmd>\n<start>"], "<cmd>": ["push <num>", "name <word>"],
                "<num>": ["<d>", "<d><num>"], "<d>": ["1", "2", "7"],
                "<word>": ["<l>", "<l><word>"], "<l>": ["a", "x", "1", "7"]}"#,
            "g",
        )
        .unwrap();
        let input = b"push 17\nname x17\npush 1";
        let tree = parse(&g, input).unwrap();
        let param = |text: &[u8], occ: Vec<(u64, u64)>| Param {
            site: Site::Arg { index: 0, size: 4 },
            encoding: Encoding::Decimal,
            occurrences: occ,
            original: text.to_vec(),
            excluded: Vec::new(),
            room: 0,
        };
        // "17" is a number at 5 and, by chance, the end of the word "x17"
        // at 14; "x17" is a word; "am" is no node ("name"'s middle).
        let mut ps =
            vec![param(b"17", vec![(5, 2), (14, 2)]), param(b"x17", vec![(13, 3)]), param(b"am", vec![(9, 2)])];
        let a = align(&g, &tree, &mut ps);
        let name = |k: Option<usize>| k.map(|k| g.rules[k].name.as_str());
        assert_eq!(a.nonterminals.iter().map(|&k| name(k)).collect::<Vec<_>>(), [Some("<num>"), Some("<word>"), None]);
        assert_eq!(ps[0].occurrences, [(5, 2)]);
        assert_eq!(ps[1].occurrences, [(13, 3)]);
        assert_eq!(ps[2].occurrences, [(9, 2)], "left as mapped");
        assert_eq!(a.dropped, 1);
        // A number's new values keep to digits, a word's to its letters.
        assert!(ps[0].excluded.contains(&b'a') && !ps[0].excluded.contains(&b'7') && ps[0].excluded.len() == 252);
        assert!(!ps[1].excluded.contains(&b'x') && ps[1].excluded.contains(&b'2'));
        assert!(ps[2].excluded.is_empty());
    }
}
