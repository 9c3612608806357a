use super::{counts, inverted, learned, rank_swap, Counts};
use crate::parse::rules::grammar;
use crate::{parse, Grammar, Node};

/// The paper's arithmetic grammar (section 2), `Expr` its start symbol,
/// without whitespace (the paper spaces its samples for reading only).
fn paper() -> Grammar {
    grammar(&[
        ("<expr>", &["<term>", "<expr>+<term>", "<expr>-<term>"]),
        ("<term>", &["<factor>", "<term>*<factor>", "<term>/<factor>"]),
        ("<factor>", &["<int>", "+<factor>", "-<factor>", "(<expr>)"]),
        ("<int>", &["<digit><int>", "<digit>"]),
        ("<digit>", &["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]),
    ])
}

/// Every nonterminal's probabilities, in percent.
fn percent(g: &Grammar) -> Vec<Vec<f64>> {
    (0..g.rules.len()).map(|nt| g.probabilities(nt).iter().map(|p| p * 100.0).collect()).collect()
}

/// `got` equals `want` to the precision the paper prints (0.1%).
fn same(got: &[Vec<f64>], want: &[&[f64]]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.len(), w.len());
        for (a, b) in g.iter().zip(w.iter()) {
            assert!((a - b).abs() < 0.05, "{got:?}\nis not\n{want:?}");
        }
    }
}

/// Figure 3, row by row (Expr, Term, Factor, Int, Digit).
const FIGURE_3: [&[f64]; 5] = [
    &[66.7, 33.3, 0.0],
    &[75.0, 25.0, 0.0],
    &[75.0, 0.0, 0.0, 25.0],
    &[0.0, 100.0],
    &[0.0, 33.3, 33.3, 33.3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
];

/// Figure 5.
const FIGURE_5: [&[f64]; 5] = [
    &[0.0, 0.0, 100.0],
    &[0.0, 0.0, 100.0],
    &[0.0, 50.0, 50.0, 0.0],
    &[100.0, 0.0],
    &[14.3, 0.0, 0.0, 0.0, 14.3, 14.3, 14.3, 14.3, 14.3, 14.3],
];

#[test]
fn the_papers_worked_example() {
    let g = paper();
    // Figure 2 derives "1 + (2 * 3)"; section 2 names "1 * (2 + 3)". Both
    // give the same counts.
    for sample in ["1+(2*3)", "1*(2+3)"] {
        let tree = parse(&g, sample.as_bytes()).unwrap();
        let c = counts(&g, &[tree]);
        // Section 3.2: Expr expands 3 times (twice to Term), Term 4 times
        // (once to Term "*" Factor), Factor 4 times (three to Int).
        assert_eq!(
            c.per,
            [vec![2, 1, 0], vec![3, 1, 0], vec![3, 0, 0, 1], vec![0, 3], vec![0, 1, 1, 1, 0, 0, 0, 0, 0, 0]]
        );
        assert_eq!((c.total(0), c.total(1), c.total(2)), (3, 4, 4));

        let l = learned(&g, &c);
        same(&percent(&l), &FIGURE_3);
        assert_eq!(l.probabilities(0), [2.0 / 3.0, 1.0 / 3.0, 0.0]);
        assert!(l.rules.iter().flat_map(|r| &r.alts).all(|a| a.prob.is_some()));

        let i = inverted(&g, &c);
        same(&percent(&i), &FIGURE_5);
        assert_eq!(i.probabilities(4)[0], 1.0 / 7.0);
        assert_eq!(format!("{:.1}", i.probabilities(4)[0] * 100.0), "14.3");
    }
}

#[test]
fn nonterminals_never_expanded_stay_uniform() {
    let g = grammar(&[("<start>", &["a", "b<x>"]), ("<x>", &["1", "2", "3", "4"])]);
    let c = counts(&g, &[parse(&g, b"a").unwrap(), parse(&g, b"a").unwrap()]);
    assert_eq!(c.per, [vec![2, 0], vec![0; 4]]);
    assert_eq!(learned(&g, &c).probabilities(1), [0.25; 4]);
    assert_eq!(inverted(&g, &c).probabilities(1), [0.25; 4]);
    assert_eq!(rank_swap(&g, &c).probabilities(1), [0.25; 4]);
    assert_eq!(learned(&g, &c).probabilities(0), [1.0, 0.0]);
    assert_eq!(inverted(&g, &c).probabilities(0), [0.0, 1.0]);
    // No samples at all: every nonterminal uniform.
    let none = counts(&g, &[]);
    assert_eq!(learned(&g, &none).probabilities(0), [0.5, 0.5]);
    assert_eq!(inverted(&g, &none).probabilities(0), [0.5, 0.5]);
}

#[test]
fn all_seen_inverts_to_normalised_reciprocals() {
    let g = grammar(&[("<start>", &["a", "b", "c"])]);
    let c = Counts { per: vec![vec![1, 3, 6]] };
    let p = inverted(&g, &c).probabilities(0);
    // Weights 1, 1/3, 1/6 over their sum 3/2.
    let want = [2.0 / 3.0, 2.0 / 9.0, 1.0 / 9.0];
    for (a, b) in p.iter().zip(want) {
        assert!((a - b).abs() < 1e-12, "{p:?}");
    }
    // Inverting by reciprocal of counts or of probabilities is the same.
    let q = inverted(&g, &Counts { per: vec![vec![2, 6, 12]] }).probabilities(0);
    assert!(p.iter().zip(&q).all(|(a, b)| (a - b).abs() < 1e-12));
}

#[test]
fn rank_swap_reverses_the_ranks() {
    // The Fuzzing Book's URL scheme: http 2/9, https 6/9, ftp 0, ftps 1/9.
    let g = grammar(&[("<scheme>", &["http", "https", "ftp", "ftps"])]);
    let c = Counts { per: vec![vec![2, 6, 0, 1]] };
    let p = rank_swap(&g, &c).probabilities(0);
    assert_eq!(p, [1.0 / 9.0, 0.0, 6.0 / 9.0, 2.0 / 9.0]);
    // Swapping back gives the learned probabilities (no ties here).
    let back = rank_swap(&g, &Counts { per: vec![vec![1, 0, 6, 2]] });
    assert_eq!(back.probabilities(0), learned(&g, &c).probabilities(0));

    // On the paper's example, unlike inversion, only as many unseen digits
    // as there are seen ones get mass: ties keep grammar order.
    let g = paper();
    let c = counts(&g, &[parse(&g, b"1+(2*3)").unwrap()]);
    let r = rank_swap(&g, &c);
    let third = 1.0 / 3.0;
    assert_eq!(r.probabilities(0), [0.0, third, 2.0 / 3.0]);
    assert_eq!(r.probabilities(2), [0.0, 0.75, 0.25, 0.0]);
    assert_eq!(r.probabilities(3), [1.0, 0.0]);
    assert_eq!(r.probabilities(4), [third, 0.0, 0.0, 0.0, third, third, 0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn every_result_is_a_distribution() {
    let g = paper();
    let trees: Vec<Node> =
        ["12+3", "-(4/5)*67", "((8))-9-0"].iter().map(|s| parse(&g, s.as_bytes()).unwrap()).collect();
    let c = counts(&g, &trees);
    for h in [learned(&g, &c), inverted(&g, &c), rank_swap(&g, &c)] {
        for nt in 0..h.rules.len() {
            let p = h.probabilities(nt);
            assert!(p.iter().all(|x| (0.0..=1.0).contains(x)));
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{p:?}");
        }
    }
}

#[test]
fn foreign_nodes_are_not_counted() {
    let g = grammar(&[("<start>", &["a"])]);
    let child = Node::N { nt: 0, alt: 0, children: vec![], start: 0, end: 0 };
    let stranger = Node::N { nt: 5, alt: 0, children: vec![child.clone()], start: 0, end: 0 };
    let wrong_alt = Node::N { nt: 0, alt: 3, children: vec![], start: 0, end: 0 };
    let c = counts(&g, &[stranger, wrong_alt, child]);
    assert_eq!(c.per, [vec![1]]);
    // Counts of another shape: uniform.
    assert_eq!(learned(&g, &Counts { per: vec![] }).probabilities(0), [1.0]);
}
