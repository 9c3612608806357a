//! The flat form against the tree form and against the parser: the same
//! derivations; subtrees and replacements give what parsing their text
//! gives (the grammar here is unambiguous).

use crate::load::tests::EXPR;
use crate::{parse, Derivation, Generator, Grammar};

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
        let mut nonterminals = 0;
        t.each(&mut |n| nonterminals += n.nonterminal().is_some() as usize);
        assert_eq!(d.nodes().len(), nonterminals);
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
fn subtrees_and_replacements_are_what_their_text_parses_to() {
    let g = g();
    let t = parse(&g, b"s/aa/b/\nx\np\ns/b/ab/").unwrap();
    let d = Derivation::from_node(&t);
    let flat = |text: &[u8]| Derivation::from_node(&parse(&g, text).unwrap());
    let donors: Vec<Derivation> = [&b"s/aaaa/b/"[..], b"x", b"d"]
        .iter()
        .map(|text| flat(text))
        .flat_map(|t| (0..t.nodes().len()).map(move |k| t.subtree(k)))
        .collect();
    let mut replaced = 0;
    for (k, e) in d.nodes().iter().enumerate() {
        let alone = &parse(&g.with_start(e.nt as usize), d.text_of(k)).unwrap();
        assert_eq!(d.subtree(k), Derivation::from_node(alone));
        for new in donors.iter().filter(|n| n.nodes()[0].nt == e.nt) {
            let out = d.replaced(k, new);
            consistent(&out);
            let want = [&d.text()[..e.start], new.text(), &d.text()[e.end..]].concat();
            assert_eq!(out, flat(&want), "{k}: {:?}", String::from_utf8_lossy(&want));
            // A subtree taken out of a larger derivation replaces as well.
            assert_eq!(d.replaced(k, &out.subtree(k)), out);
            replaced += 1;
        }
    }
    assert!(replaced > 20, "{replaced}");
}
