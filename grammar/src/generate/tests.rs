//! Generation: exact spans, determinism, the bound on every output
//! (left- and right-recursive and exploding grammars), probabilities.

use crate::load::tests::EXPR;
use crate::{Derivation, Generator, Grammar, Node, Sym};

fn load(text: &str) -> Grammar {
    Grammar::from_json(text, "g.json").unwrap()
}

fn count(n: &Node) -> usize {
    let mut k = 0;
    n.each(&mut |x| k += matches!(x, Node::N { .. }) as usize);
    k
}

/// Every node's span is its own text, its children follow its alternative
/// and tile its span.
fn check_tree(g: &Grammar, root: &Node) {
    let text = root.text();
    root.each(&mut |n| {
        let (s, e) = n.span();
        assert_eq!(text[s..e], n.text()[..]);
        if let Node::N { nt, alt, children, .. } = n {
            let syms = &g.rules[*nt].alts[*alt].symbols;
            assert_eq!(syms.len(), children.len());
            let mut at = s;
            for (sym, c) in syms.iter().zip(children) {
                match (sym, c) {
                    (Sym::T(t), Node::T { bytes, .. }) => assert_eq!(t[..], bytes[..]),
                    (Sym::N(k), Node::N { nt, .. }) => assert_eq!(k, nt),
                    _ => panic!("child does not match its symbol"),
                }
                assert_eq!(c.span().0, at);
                at = c.span().1;
            }
            assert_eq!(at, e);
        }
    });
}

#[test]
fn spans_are_exact_on_random_outputs() {
    let g = load(EXPR);
    let mut gen = Generator::new(&g, 7).unwrap();
    let mut flat = Derivation::new();
    let least = gen.min_nodes(g.start) as usize;
    assert_eq!(least, 6);
    for i in 0..2000 {
        let max = 1 + i % 120;
        let t = gen.generate(max);
        check_tree(&g, &t);
        assert!(count(&t) <= max.max(least), "{} > {max}", count(&t));
        gen.generate_into(max, &mut flat);
        for e in flat.nodes() {
            assert!(e.start <= e.end && e.end <= flat.text().len());
        }
        assert_eq!(flat.nodes()[0].end, flat.text().len());
    }
}

#[test]
fn flat_and_tree_agree_and_a_seed_repeats() {
    let g = load(EXPR);
    let (mut a, mut b) = (Generator::new(&g, 42).unwrap(), Generator::new(&g, 42).unwrap());
    let mut flat = Derivation::new();
    let mut outputs = std::collections::HashSet::new();
    for _ in 0..500 {
        let t = a.generate(60);
        b.generate_into(60, &mut flat);
        assert_eq!(t.text(), flat.text());
        let mut pre = Vec::new();
        t.each(&mut |n| {
            if let Node::N { nt, alt, start, end, .. } = n {
                pre.push((*nt as u32, *alt as u32, *start, *end));
            }
        });
        let flat_nodes: Vec<_> = flat.nodes().iter().map(|e| (e.nt, e.alt, e.start, e.end)).collect();
        assert_eq!(pre, flat_nodes);
        outputs.insert(t.text());
    }
    assert!(outputs.len() > 300, "{} distinct", outputs.len());
    let mut c = Generator::new(&g, 43).unwrap();
    a.reseed(42);
    let same = (0..20).filter(|_| a.generate(60).text() == c.generate(60).text()).count();
    assert!(same < 5);
}

#[test]
fn recursive_and_exploding_grammars_terminate_within_the_bound() {
    let grammars = [
        // Left-recursive, mostly recursing.
        r#"{"<start>": ["<l>"], "<l>": [["<l>a", {"prob": 0.95}], "b"]}"#,
        // Right-recursive, mostly recursing.
        r#"{"<start>": ["<r>"], "<r>": [["a<r>", {"prob": 0.95}], "b"]}"#,
        // Unbounded in expectation: each node opens three more.
        r#"{"<start>": ["<t>"], "<t>": [["(<t><t><t>)", {"prob": 0.9}], "<leaf>"], "<leaf>": ["x", "y<leaf>"]}"#,
        // The only way out is deep: <a> needs five expansions.
        r#"{"<start>": ["<a>"], "<a>": [["<a><a>", {"prob": 0.99}], ["<b>", {"prob": 0.01}]],
            "<b>": ["<c>"], "<c>": ["<d>"], "<d>": ["<e>"], "<e>": ["z"]}"#,
    ];
    for (k, text) in grammars.iter().enumerate() {
        let g = load(text);
        let mut gen = Generator::new(&g, k as u64).unwrap();
        let least = gen.min_nodes(g.start) as usize;
        let mut biggest = 0;
        for max in (0..300).chain([2000, 5000]) {
            let t = gen.generate(max);
            check_tree(&g, &t);
            let n = count(&t);
            assert!(n <= max.max(least), "grammar {k}: {n} nodes > {max}");
            biggest = biggest.max(n);
        }
        if k >= 2 {
            assert!(biggest > 1000, "grammar {k}: the bound is used ({biggest})");
        }
    }
}

#[test]
fn below_the_cheapest_derivation_gives_the_cheapest() {
    let g = load(r#"{"<start>": ["<a>"], "<a>": ["<a><a>", "<b>"], "<b>": ["<c>"], "<c>": ["q"]}"#);
    let mut gen = Generator::new(&g, 1).unwrap();
    assert_eq!(gen.min_nodes(g.start), 4);
    for max in 0..4 {
        assert_eq!(gen.generate(max).text(), b"q");
    }
}

#[test]
fn alternatives_follow_their_probabilities() {
    let g = load(r#"{"<start>": [["a", {"prob": 0.8}], "b", ["c", {"prob": 0}], "d"]}"#);
    let mut gen = Generator::new(&g, 3).unwrap();
    let mut n = [0usize; 4];
    for _ in 0..20000 {
        n[(gen.generate(10).text()[0] - b'a') as usize] += 1;
    }
    assert!((15600..16400).contains(&n[0]), "{n:?}");
    assert!((1700..2300).contains(&n[1]) && (1700..2300).contains(&n[3]), "{n:?}");
    assert_eq!(n[2], 0);
}

#[test]
fn a_zero_probability_way_out_is_still_taken_at_the_bound() {
    let g = load(r#"{"<start>": ["<a>"], "<a>": [["x<a>", {"prob": 1}], ["y", {"prob": 0}]]}"#);
    let mut gen = Generator::new(&g, 5).unwrap();
    assert_eq!(gen.generate(6).text(), b"xxxxy");
}

#[test]
fn at_the_bound_the_alternatives_that_fit_keep_their_weights() {
    // Listed dearest first: at two nodes only `a` and `b` fit, 3 to 1,
    // and `c`, which fits but has no weight, is never drawn.
    let g = load(
        r#"{"<start>": ["<x>"], "<x>": [["(<x>)", {"prob": 0.6}], ["a", {"prob": 0.3}], ["c", {"prob": 0}], ["b", {"prob": 0.1}]]}"#,
    );
    let mut gen = Generator::new(&g, 9).unwrap();
    let mut n = std::collections::HashMap::new();
    for _ in 0..8000 {
        *n.entry(gen.generate(2).text()).or_insert(0usize) += 1;
    }
    assert_eq!(n.len(), 2, "{n:?}");
    let (a, b) = (n[&b"a"[..].to_vec()], n[&b"b"[..].to_vec()]);
    assert!((5700..6300).contains(&a) && a + b == 8000, "{n:?}");
}

#[test]
fn made_grammars_without_a_finite_derivation_are_refused() {
    let mut g = load(r#"{"<start>": ["<a>"], "<a>": ["x"]}"#);
    g.rules[1].alts[0].symbols = vec![Sym::N(1)];
    assert!(Generator::new(&g, 0).is_err());
    g.rules[1].alts[0].symbols = vec![Sym::N(9)];
    assert!(Generator::new(&g, 0).is_err());
}

#[test]
fn any_nonterminal_can_be_generated_from() {
    let g = load(EXPR);
    let mut gen = Generator::new(&g, 11).unwrap();
    for nt in 0..g.rules.len() {
        for max in [1, 5, 40] {
            let t = gen.generate_from(nt, max);
            check_tree(&g, &t);
            assert_eq!(t.nonterminal(), Some(nt));
            assert_eq!(t.span().0, 0);
            assert!(count(&t) <= max.max(gen.min_nodes(nt) as usize));
        }
    }
}
