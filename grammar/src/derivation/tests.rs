//! The flat form against the tree form: the same derivations, subtrees
//! and replacements, on parsed and on generated trees.

use crate::load::tests::EXPR;
use crate::{parse, Derivation, Generator, Grammar, Node};

fn g() -> Grammar {
    Grammar::from_json(
        r#"{"<start>": ["<cmd>\n<start>", "<cmd>"], "<cmd>": ["p", "s/<re>/<re>/", "d", "<e>x<e>"],
            "<re>": ["", "a<re>", "b"], "<e>": [""]}"#,
        "t",
    )
    .unwrap()
}

/// Sizes are the subtrees' expansions, and a subtree's spans lie in its
/// root's.
fn consistent(d: &Derivation) {
    let n = d.nodes();
    assert_eq!(n[0].size as usize, n.len());
    assert_eq!((n[0].start, n[0].end), (0, d.text().len()));
    for (k, e) in n.iter().enumerate() {
        for x in &n[k + 1..k + e.size as usize] {
            assert!(e.start <= x.start && x.end <= e.end);
        }
    }
}

#[test]
fn the_flat_form_spells_the_same_tree() {
    let g = g();
    for text in ["p", "s/aa/b/\np\nd", "x\ns//ab/\nx", "p\n".repeat(300).as_str()] {
        let text = text.trim_end_matches('\n');
        let t = parse(&g, text.as_bytes()).unwrap();
        let d = Derivation::from_node(&t);
        consistent(&d);
        assert_eq!(d.text(), text.as_bytes());
        assert_eq!(d.to_node(&g), t);
        assert_eq!(d.nodes().len(), t.nonterminal_list().len());
    }
}

#[test]
fn generation_gives_the_flat_form_of_its_tree() {
    let g = Grammar::from_json(EXPR, "e.json").unwrap();
    let (mut a, mut b) = (Generator::new(&g, 3).unwrap(), Generator::new(&g, 3).unwrap());
    let mut d = Derivation::new();
    for i in 0..500 {
        let t = a.generate(1 + i % 80);
        b.generate_into(1 + i % 80, &mut d);
        consistent(&d);
        assert_eq!(Derivation::from_node(&t), d);
        assert_eq!(d.to_node(&g), t);
    }
}

#[test]
fn subtrees_and_replacements_match_the_tree_forms() {
    let g = g();
    let t = parse(&g, b"s/aa/b/\nx\np\ns/b/ab/").unwrap();
    let d = Derivation::from_node(&t);
    let donors = [parse(&g, b"s/aaaa/b/").unwrap(), parse(&g, b"x").unwrap()];
    let donors: Vec<Node> = donors.iter().flat_map(|t| t.nonterminals().into_iter().map(|(_, n)| n.clone())).collect();
    let mut replaced = 0;
    for k in 0..d.nodes().len() {
        let path = t.path_of(k).unwrap();
        let node = t.at_path(&path).unwrap();
        let mut alone = node.clone();
        alone.shift(-(node.span().0 as isize));
        assert_eq!(d.subtree(k), Derivation::from_node(&alone));
        assert_eq!(d.text_of(k), &node.text()[..]);
        for new in donors.iter().filter(|n| n.nonterminal() == node.nonterminal()) {
            let flat = d.replaced(k, &Derivation::from_node(new));
            consistent(&flat);
            assert_eq!(flat, Derivation::from_node(&t.replaced(&path, new).unwrap()));
            // A subtree taken out of a larger derivation replaces as well.
            assert_eq!(d.replaced(k, &flat.subtree(k)), flat);
            replaced += 1;
        }
    }
    assert!(replaced > 20, "{replaced}");
}
