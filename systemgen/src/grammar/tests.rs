//! The grammar generator: its tests are sentences with exact trees and
//! labels; learned and inverted modes follow the corpus's counts.

use super::*;
use crate::{Labels, Uniform};

/// A small command language: commands separated by newlines.
const CMDS: &str = r#"{
  "<start>": ["<cmd>", "<cmd>\n<start>"],
  "<cmd>": ["p", "d", "q", "s/<re>/<re>/<flag>", "y/<re>/<re>/"],
  "<re>": ["", "<ch><re>"],
  "<ch>": ["a", "b", "c", "."],
  "<flag>": ["", "g", "p", "<digit>"],
  "<digit>": ["1", "2", "9"]
}"#;

fn grammar() -> Grammar {
    Grammar::from_json(CMDS, "cmds.json").unwrap()
}

fn seeds() -> Vec<(u64, Vec<u8>)> {
    vec![(0, b"p\np\ns/ab/c/g".to_vec()), (1, b"p".to_vec()), (2, b"not a sentence".to_vec())]
}

/// Uniform picks: the grammar generator asks for parents among the
/// entries that parse, so the corpus's length plays no part.
fn parents() -> Uniform {
    Uniform::new(1, 1)
}

fn corpus(s: &[(u64, Vec<u8>)]) -> Vec<Seed<'_>> {
    s.iter().map(|(id, d)| Seed { id: *id, data: d, labels: None, run_us: 0, favored: false }).collect()
}

#[test]
fn every_test_is_a_sentence_with_its_tree_and_exact_labels() {
    let g = grammar();
    let s = seeds();
    let c = corpus(&s);
    for mode in [Mode::Uniform, Mode::Learned, Mode::Inverse, Mode::Mixed] {
        let mut gen = GrammarGen::new(g.clone(), mode, 7).unwrap();
        let tests = gen.generate(&c, &mut parents(), 2000);
        assert_eq!(gen.parsed(), (2, 1));
        let mut ops = std::collections::BTreeSet::new();
        for t in &tests {
            let tree = t.tree.as_ref().expect("a tree");
            let node = tree.node();
            assert_eq!(node.text(), t.data, "{}", t.op);
            assert_eq!(node.span(), (0, t.data.len()));
            assert_eq!(grammar::Derivation::from_node(&node), tree.derivation, "{}", t.op);
            assert_eq!(grammar::parse(&g, &t.data).unwrap().text(), t.data, "{}", t.op);
            assert!(t.parent == 0 || t.parent == 1, "{} from {}", t.op, t.parent);
            assert_eq!(t.labels.len(), t.data.len());
            t.labels.check(&t.data, |id| s.iter().find(|(i, _)| *i == id).map(|(_, d)| &d[..])).unwrap();
            ops.insert(t.op.split('.').next().unwrap().to_string());
        }
        assert_eq!(ops.into_iter().collect::<Vec<_>>(), ["gen", "regen", "splice"], "{mode:?}");
    }
}

/// The commands new derivations choose: learned follows the corpus (only
/// `p` and `s` seen), inverted gives the unseen ones the mass.
#[test]
fn learned_and_inverse_follow_the_corpus_counts() {
    let g = grammar();
    let s = seeds();
    let c = corpus(&s);
    let cmd = g.index("<cmd>").unwrap();
    let share = |mode: Mode| {
        let mut gen = GrammarGen::new(g.clone(), mode, 3).unwrap();
        gen.generate(&c, &mut parents(), 1);
        let (mut seen, mut all) = (0, 0);
        for _ in 0..3000 {
            let node = gen.pick_generator().generate_from(cmd, 10);
            let first = node.text()[0];
            all += 1;
            seen += (first == b'p' || first == b's') as usize;
        }
        seen as f64 / all as f64
    };
    assert_eq!(share(Mode::Learned), 1.0);
    assert_eq!(share(Mode::Inverse), 0.0);
    let u = share(Mode::Uniform);
    assert!((0.3..0.5).contains(&u), "uniform {u}");
    let m = share(Mode::Mixed);
    assert!((0.4..0.6).contains(&m), "mixed {m}");
}

#[test]
fn the_same_seed_gives_the_same_tests() {
    let s = seeds();
    let c = corpus(&s);
    let run = |seed| {
        let mut gen = GrammarGen::new(grammar(), Mode::Mixed, seed).unwrap();
        gen.generate(&c, &mut parents(), 300).into_iter().map(|t| (t.data, t.op)).collect::<Vec<_>>()
    };
    assert_eq!(run(5), run(5));
    assert_ne!(run(5), run(6));
}

#[test]
fn without_a_parsed_entry_tests_are_whole_derivations() {
    let s = vec![(4, b"nothing here parses".to_vec())];
    let mut gen = GrammarGen::new(grammar(), Mode::Learned, 1).unwrap();
    for t in gen.generate(&corpus(&s), &mut parents(), 200) {
        assert_eq!((t.op.as_str(), t.parent), ("gen", 4));
        assert_eq!(t.labels, Labels::inserted("gen", t.data.len()));
        assert!(grammar::parse(&gen.grammar, &t.data).is_ok());
    }
    assert_eq!(gen.parsed(), (0, 1));
}

/// Entries that join the corpus are parsed and counted once.
#[test]
fn the_queue_is_learned_as_it_grows() {
    let mut s = seeds();
    let mut gen = GrammarGen::new(grammar(), Mode::Learned, 2).unwrap();
    gen.generate(&corpus(&s), &mut parents(), 10);
    let q = g_count(&gen, b'q');
    assert_eq!(q, 0);
    s.push((3, b"q\nq".to_vec()));
    gen.generate(&corpus(&s), &mut parents(), 10);
    gen.generate(&corpus(&s), &mut parents(), 10);
    assert_eq!(g_count(&gen, b'q'), 2);
    assert_eq!(gen.parsed(), (3, 1));
}

/// Uses of the `<cmd>` alternative that starts with `b`.
fn g_count(gen: &GrammarGen, b: u8) -> u64 {
    let cmd = gen.grammar.index("<cmd>").unwrap();
    let alt = gen.grammar.rules[cmd].alts.iter().position(|a| a.symbols[0] == grammar::Sym::T(vec![b])).unwrap();
    gen.trees.counts.per[cmd][alt]
}

/// Values offered for a nonterminal are put in its nodes (`pool.NT`);
/// one that does not parse as it is not kept.
#[test]
fn offered_values_join_their_nonterminals_pool() {
    let s = seeds();
    let c = corpus(&s);
    let mut gen = GrammarGen::new(grammar(), Mode::Learned, 9).unwrap();
    gen.offer("<cmd>", b"s/cab/b/9");
    gen.offer("<cmd>", b"not a command");
    gen.offer("<nope>", b"p");
    assert_eq!(gen.pool.iter().map(Vec::len).sum::<usize>(), 1);
    let tests = gen.generate(&c, &mut parents(), 3000);
    let pooled: Vec<_> = tests.iter().filter(|t| t.op == "pool.cmd").collect();
    assert!(pooled.len() > 50, "{}", pooled.len());
    // Whole derivations take them too.
    let whole: Vec<_> = tests.iter().filter(|t| t.op == "gen.pool").collect();
    assert!(whole.len() > 10, "{}", whole.len());
    for t in pooled.into_iter().chain(whole) {
        assert!(t.data.windows(9).any(|w| w == b"s/cab/b/9"), "{:?}", String::from_utf8_lossy(&t.data));
        t.labels.check(&t.data, |id| s.iter().find(|(i, _)| *i == id).map(|(_, d)| &d[..])).unwrap();
        let tree = t.tree.as_ref().unwrap();
        assert_eq!(tree.node().text(), t.data);
        assert_eq!(grammar::Derivation::from_node(&tree.node()), tree.derivation);
        assert_eq!(grammar::parse(&grammar(), &t.data).unwrap().text(), t.data);
    }
    // The pooled bytes are labelled as such.
    let t = tests.iter().find(|t| t.op == "gen.pool").unwrap();
    let at = t.data.windows(9).position(|w| w == b"s/cab/b/9").unwrap();
    assert_eq!(t.labels.slice(at, at + 9), Labels::inserted("pool.cmd", 9));
}

#[test]
fn modes_by_name() {
    for m in ["uniform", "learned", "inverse", "mixed"] {
        assert_eq!(m.parse::<Mode>().unwrap().name(), m);
    }
    assert!("hell".parse::<Mode>().unwrap_err().contains("known: uniform"));
}
