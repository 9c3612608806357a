//! Leaf lifts on the shipped grammars: a value that parses as its node's
//! nonterminal, written by the lifter in place of the node (the first line
//! quoted as its shell words need, as `--args-in-input` campaigns lift),
//! leaves a test the grammar derives. One value, or two on nodes apart.
//! The nodes are those a parameter can map to: in the file, any; on the
//! command line, those inside one shell word whose bytes are what the
//! program reads (no quote of the word's own inside them).

use grammar::{parse, Generator, Grammar, Node};
use model::shell::{escape_in, quoting_at, words};
use model::unit::{Encoding, Param, Site, Value};
use std::path::Path;

fn grammar(subject: &str) -> Grammar {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    Grammar::load(&repo.join("grammars").join(format!("{subject}.json"))).unwrap()
}

/// Every nonterminal node: its nonterminal and span.
fn nodes(tree: &Node) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    tree.each(&mut |n| {
        if let Node::N { nt, start, end, .. } = n {
            out.push((*nt, *start, *end));
        }
    });
    out
}

/// Whether a parameter can map to bytes `at..end` of `input`: past the
/// first line, or inside one of its words, spelling what the program
/// reads there.
fn mappable(input: &[u8], at: usize, end: usize) -> bool {
    let line = input.iter().position(|&b| b == b'\n').unwrap_or(input.len());
    if at > line {
        return true;
    }
    if end > line {
        return false;
    }
    let in_a_word = words(&input[..line]).unwrap_or_default().iter().any(|w| w.start <= at && end <= w.end);
    let blank = |i: usize| matches!(input.get(i), Some(b' ' | b'\t' | b'\n') | None);
    let start = at == 0 || blank(at - 1);
    in_a_word && escape_in(&input[at..end], quoting_at(&input[..at]), start, blank(end)) == input[at..end]
}

/// A parameter mapped to bytes `at..end`, as `carver::align` maps one.
fn param(input: &[u8], at: usize, end: usize) -> Param {
    Param {
        site: Site::Bytes { object: 0, offset: 0, len: (end - at) as u64, nul: true },
        encoding: Encoding::Raw,
        occurrences: vec![(at as u64, (end - at) as u64)],
        original: input[at..end].to_vec(),
        excluded: Vec::new(),
        room: 0,
    }
}

#[test]
fn values_that_parse_as_their_nonterminal_leave_tests_the_grammar_derives() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut below = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let (mut lifts, mut derived) = (0usize, 0usize);
    let mut failures = Vec::new();
    for subject in ["sed", "dc", "cut", "paste", "tac", "b2sum"] {
        let g = grammar(subject);
        let mut gen = Generator::new(&g, 3).unwrap();
        for _ in 0..60 {
            let tree = gen.generate(200);
            let input = tree.text();
            let all: Vec<_> = nodes(&tree).into_iter().filter(|&(_, s, e)| mappable(&input, s, e)).collect();
            for _ in 0..20 {
                // One node, or two apart from each other.
                let mut picked = vec![all[below(all.len())]];
                let other = all[below(all.len())];
                if below(2) == 0 && (other.2 <= picked[0].1 || other.1 >= picked[0].2) {
                    picked.push(other);
                }
                let mut values = Vec::new();
                for &(nt, at, end) in &picked {
                    if gen.min_nodes(nt) == u64::MAX {
                        continue;
                    }
                    let text = gen.generate_from(nt, 30).text();
                    // Strings hold no NUL; the value, as the lifter writes
                    // it there, is a sentence of nt (a campaign's check).
                    let (p, v) = (param(&input, at, end), Value::Bytes(text));
                    let written = lifter::written(&input, &p, &v, true);
                    if v.text().contains(&0) || parse(&g.with_start(nt), &written).is_err() {
                        continue;
                    }
                    values.push((p, v));
                }
                if values.is_empty() {
                    continue;
                }
                let subs: Vec<(&Param, &Value)> = values.iter().map(|(p, v)| (p, v)).collect();
                let lifted = lifter::lift_all(&input, &subs, true);
                lifts += 1;
                if parse(&g, &lifted).is_ok() {
                    derived += 1;
                } else if failures.len() < 5 {
                    failures.push((subject, String::from_utf8_lossy(&lifted).into_owned()));
                }
            }
        }
    }
    assert!(lifts > 5000, "{lifts} lifts");
    assert!(derived * 100 >= lifts * 99, "{derived} of {lifts} derived; e.g. {failures:#?}");
    eprintln!("{derived} of {lifts} leaf lifts derived again");
}
