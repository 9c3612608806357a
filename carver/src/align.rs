//! Grammar-aware mapping ("Inputs from Hell" meets the bridge): a
//! parameter whose value stands in the system input as a whole derivation
//! node of the input's parse tree maps to that node, and its occurrences
//! that are no node (the same text by chance inside another token) are
//! dropped. An integer argument that is the length of a node another
//! parameter maps to (the count beside a pointer) maps to that node as
//! its length ([`Encoding::Length`]).

use grammar::{Grammar, Node};
use model::snapshot::ARG_INT;
use model::unit::{Encoding, Param, Site, Unit};

/// What aligning a unit's parameters found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Alignment {
    /// Per parameter: the nonterminal its occurrences are nodes of
    /// (`None`: no occurrence is a node, or a parameter of the whole input
    /// file or a new word, left as mapped).
    pub nonterminals: Vec<Option<usize>>,
    /// Occurrences dropped for not being a node.
    pub dropped: usize,
    /// Integer arguments mapped as a node's length.
    pub lengths: usize,
}

/// Aligns `params` with `tree`, the parse by `g` of the system input they
/// were mapped against: a parameter with an occurrence whose bytes are
/// exactly a nonterminal node's keeps only such occurrences, of that
/// node's nonterminal (the deepest node of the span, that of its first
/// aligned occurrence), and its new values keep to the bytes that
/// nonterminal can derive and NUL (`excluded` gets the others), so that
/// what a solver finds mostly still parses. Then the integer arguments of
/// `unit` whose occurrences are no node (or that have none) and whose
/// value is the length of a node an aligned parameter has, `n` beside a
/// string of `n` bytes, map to that node as its length (added to
/// `params` when they were not among them).
pub fn align(g: &Grammar, tree: &Node, unit: &Unit, params: &mut Vec<Param>) -> Alignment {
    let mut out = nodes(g, tree, params);
    lengths(unit, params, &mut out);
    out
}

/// The first part of [`align`]: parameters whose occurrences are nodes.
fn nodes(g: &Grammar, tree: &Node, params: &mut [Param]) -> Alignment {
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
        if !matches!(p.encoding, Encoding::Digits { .. } | Encoding::Sign { .. }) {
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

/// The second part of [`align`]: integer arguments as nodes' lengths.
fn lengths(unit: &Unit, params: &mut Vec<Param>, out: &mut Alignment) {
    // The nodes aligned parameters have (not another length), shortest
    // first is no matter: the first of each length is taken.
    let mut nodes: Vec<((u64, u64), usize)> = Vec::new();
    for (p, nt) in params.iter().zip(&out.nonterminals) {
        if let (Some(nt), false) = (nt, p.encoding == Encoding::Length) {
            nodes.extend(p.occurrences.iter().map(|&o| (o, *nt)));
        }
    }
    if nodes.is_empty() || unit.meta.function == "main" {
        return;
    }
    for (i, a) in unit.snapshot.args.iter().enumerate() {
        if a.kind != ARG_INT || a.size > 8 {
            continue;
        }
        let site = Site::Arg { index: i as u16, size: a.size };
        let k = params.iter().position(|p| p.site == site);
        // An argument whose text is a node stays as it is.
        if k.is_some_and(|k| out.nonterminals[k].is_some()) {
            continue;
        }
        let n = crate::mapping::signed(a.value, a.size);
        let Some(&(occ, nt)) = nodes.iter().find(|((_, len), _)| n > 0 && *len == n as u64) else { continue };
        let p = crate::counts::length(site, occ, n);
        match k {
            Some(k) => {
                out.dropped += params[k].occurrences.len();
                params[k] = p;
                out.nonterminals[k] = Some(nt);
            }
            None => {
                params.push(p);
                out.nonterminals.push(Some(nt));
            }
        }
        out.lengths += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use grammar::{parse, Grammar};
    use model::snapshot::Arg;

    fn grammar() -> Grammar {
        Grammar::from_json(
            r#"{"<start>": ["<cmd>", "<cmd>\n<start>"], "<cmd>": ["push <num>", "name <word>"],
                "<num>": ["<d>", "<d><num>"], "<d>": ["1", "2", "7"],
                "<word>": ["<l>", "<l><word>"], "<l>": ["a", "x", "1", "7"]}"#,
            "g",
        )
        .unwrap()
    }

    fn param(index: u16, text: &[u8], occ: Vec<(u64, u64)>) -> Param {
        Param {
            site: Site::Arg { index, size: 4 },
            encoding: Encoding::Decimal,
            occurrences: occ,
            original: text.to_vec(),
            excluded: Vec::new(),
            room: 0,
        }
    }

    #[test]
    fn an_integer_beside_a_node_of_its_length_is_that_nodes_length() {
        let g = grammar();
        let input = b"push 17\nname x17\npush 1";
        let tree = parse(&g, input).unwrap();
        // f(word, 3, 1): the word "x17" at 13 is a parameter; 3 is its
        // length (no occurrence of its own); 1 occurs as a number node.
        let mut unit = Unit::default();
        unit.meta.function = "f".into();
        let int = |v| Arg { kind: ARG_INT, size: 4, value: v };
        unit.snapshot.args = vec![Arg { kind: 0, size: 8, value: 0 }, int(3), int(1)];
        let mut ps = vec![param(0, b"x17", vec![(13, 3)]), param(2, b"1", vec![(22, 1)])];
        let a = align(&g, &tree, &unit, &mut ps);
        assert_eq!(a.lengths, 1);
        assert_eq!(ps.len(), 3);
        assert_eq!(ps[2].site, Site::Arg { index: 1, size: 4 });
        assert_eq!((ps[2].encoding, &ps[2].occurrences[..]), (Encoding::Length, &[(13, 3)][..]));
        let word = g.index("<word>");
        assert_eq!(a.nonterminals, [word, g.index("<d>"), word], "the deepest node of a span");
        // As `main` it is left alone (argc is no length).
        unit.meta.function = "main".into();
        let mut ps = vec![param(0, b"x17", vec![(13, 3)])];
        assert_eq!(align(&g, &tree, &unit, &mut ps).lengths, 0);
    }

    #[test]
    fn occurrences_that_are_nodes_are_kept_chance_ones_dropped() {
        let g = grammar();
        let input = b"push 17\nname x17\npush 1";
        let tree = parse(&g, input).unwrap();
        let param = |text: &[u8], occ: Vec<(u64, u64)>| param(0, text, occ);
        // "17" is a number at 5 and, by chance, the end of the word "x17"
        // at 14; "x17" is a word; "am" is no node ("name"'s middle).
        let mut ps =
            vec![param(b"17", vec![(5, 2), (14, 2)]), param(b"x17", vec![(13, 3)]), param(b"am", vec![(9, 2)])];
        let a = align(&g, &tree, &Unit::default(), &mut ps);
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
