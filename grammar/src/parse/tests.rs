use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::rules::grammar;
use super::{parse, Parser};
use crate::{Error, Grammar, Node, Sym};

/// Checks every node of `t` against `g` and `input`: children match the
/// alternative's symbols, spans are contiguous and cover the parent's,
/// terminals are the input's bytes, and the root covers all of `input`.
/// Iterative: trees may be deep. Returns the number of nodes.
fn check(g: &Grammar, t: &Node, input: &[u8]) -> usize {
    assert_eq!(t.span(), (0, input.len()), "the root covers the input");
    let mut todo = vec![t];
    let mut count = 0;
    while let Some(node) = todo.pop() {
        count += 1;
        match node {
            Node::T { bytes, start } => assert_eq!(&input[*start..start + bytes.len()], bytes.as_slice()),
            Node::N { nt, alt, children, start, end } => {
                let syms = &g.rules[*nt].alts[*alt].symbols;
                assert_eq!(children.len(), syms.len(), "{} alternative {alt}", g.rules[*nt].name);
                let mut at = *start;
                for (c, s) in children.iter().zip(syms) {
                    match (c, s) {
                        (Node::T { bytes, .. }, Sym::T(t)) => assert_eq!(bytes[..], t[..]),
                        (Node::N { nt, .. }, Sym::N(m)) => assert_eq!(nt, m),
                        _ => panic!("child {c:?} does not match symbol {s:?}"),
                    }
                    assert_eq!(c.span().0, at, "children are contiguous");
                    at = c.span().1;
                    todo.push(c);
                }
                assert_eq!(at, *end, "the children cover the parent");
            }
        }
    }
    count
}

fn ok(g: &Grammar, input: &str) -> Node {
    let t = parse(g, input.as_bytes()).unwrap_or_else(|e| panic!("{input:?}: {e}"));
    check(g, &t, input.as_bytes());
    assert_eq!(t.text(), input.as_bytes());
    t
}

fn fails_at(g: &Grammar, input: &str) -> usize {
    match parse(g, input.as_bytes()) {
        Err(Error::NoParse { at }) => at,
        other => panic!("{input:?}: expected no parse, got {other:?}"),
    }
}

/// The (nonterminal, alternative) of every nonterminal node, parents first.
fn alts(t: &Node) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    t.each(&mut |n| {
        if let Node::N { nt, alt, .. } = n {
            out.push((*nt, *alt));
        }
    });
    out
}

fn expr() -> Grammar {
    grammar(&[
        ("<start>", &["<expr>"]),
        ("<expr>", &["<term>", "<expr>+<term>", "<expr>-<term>"]),
        ("<term>", &["<factor>", "<term>*<factor>", "<term>/<factor>"]),
        ("<factor>", &["<int>", "+<factor>", "-<factor>", "(<expr>)"]),
        ("<int>", &["<digit><int>", "<digit>"]),
        ("<digit>", &["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]),
    ])
}

#[test]
fn nullable_chain() {
    let g = grammar(&[("<a>", &["<b><b>"]), ("<b>", &["", "x"])]);
    let t = ok(&g, "");
    assert_eq!(alts(&t), [(0, 0), (1, 0), (1, 0)]);
    ok(&g, "x");
    assert_eq!(alts(&ok(&g, "xx")), [(0, 0), (1, 1), (1, 1)]);
    assert_eq!(fails_at(&g, "xxx"), 2);
    assert_eq!(fails_at(&g, "y"), 0);
}

#[test]
fn empty_before_and_after_terminals() {
    // Aycock and Horspool's example: plain Earley misses "a" here.
    let g = grammar(&[("<s>", &["<a><a><a><a>"]), ("<a>", &["a", "<e>"]), ("<e>", &[""])]);
    for input in ["", "a", "aa", "aaa", "aaaa"] {
        let t = ok(&g, input);
        let used_a = alts(&t).iter().filter(|&&p| p == (1, 0)).count();
        assert_eq!(used_a, input.len());
    }
    assert_eq!(fails_at(&g, "aaaaa"), 4);
    let g = grammar(&[("<s>", &["<e><e>x<e>y<e>"]), ("<e>", &["", "<e><e>"])]);
    let t = ok(&g, "xy");
    assert_eq!(alts(&t), [(0, 0), (1, 0), (1, 0), (1, 0), (1, 0)]);
}

#[test]
fn alternative_of_only_empty_nonterminals() {
    let g = grammar(&[
        ("<start>", &["<x><y>"]),
        ("<x>", &["<e><f>"]),
        ("<e>", &[""]),
        ("<f>", &["<e>", "f"]),
        ("<y>", &["y", "<e><x><e>"]),
    ]);
    let t = ok(&g, "");
    // <y> by its second alternative, <f> by its first (the one without
    // recursion), everything empty at 0.
    assert_eq!(
        alts(&t),
        [(0, 0), (1, 0), (2, 0), (3, 0), (2, 0), (4, 1), (2, 0), (1, 0), (2, 0), (3, 0), (2, 0), (2, 0)]
    );
    ok(&g, "y");
    ok(&g, "f");
    ok(&g, "fy");
    assert_eq!(fails_at(&g, "yf"), 1);
}

#[test]
fn left_and_right_recursion() {
    let g = grammar(&[("<l>", &["<l>a", "a"])]);
    let t = ok(&g, "aaaa");
    assert_eq!(alts(&t), [(0, 0), (0, 0), (0, 0), (0, 1)]);
    let Node::N { children, .. } = &t else { panic!() };
    assert_eq!(children[0].span(), (0, 3));

    let g = grammar(&[("<r>", &["a<r>", "a"])]);
    let t = ok(&g, "aaaa");
    assert_eq!(alts(&t), [(0, 0), (0, 0), (0, 0), (0, 1)]);
    let Node::N { children, .. } = &t else { panic!() };
    assert_eq!(children[1].span(), (1, 4));
    assert_eq!(fails_at(&g, "aab"), 2);

    // Right recursion through other nonterminals and a nullable tail.
    let g = grammar(&[
        ("<start>", &["<list>"]),
        ("<list>", &["", "<item><list>"]),
        ("<item>", &["<x>", "<x>,"]),
        ("<x>", &["ab", "a"]),
    ]);
    for input in ["", "a", "ab,a", "a,ab,abab,a", "aaaa"] {
        ok(&g, input);
    }
    assert_eq!(fails_at(&g, "ab,,"), 3);
}

#[test]
fn ambiguity_is_resolved_the_same_way_every_time() {
    let g = grammar(&[("<e>", &["<e>+<e>", "x"])]);
    let t = ok(&g, "x+x+x");
    for _ in 0..3 {
        assert_eq!(parse(&g, b"x+x+x").unwrap(), t);
    }
    // The first derivation found groups to the left here.
    let Node::N { children, .. } = &t else { panic!() };
    assert_eq!(children[0].span(), (0, 3));

    // "x" as the first <b> or the second: the empty <b> is skipped when
    // it is predicted, before "x" is scanned, so the first <b> is empty.
    let g = grammar(&[("<a>", &["<b><b>"]), ("<b>", &["", "x"])]);
    assert_eq!(alts(&ok(&g, "x")), [(0, 0), (1, 0), (1, 1)]);
}

#[test]
fn cycles_terminate() {
    let g = grammar(&[("<a>", &["<a>", "x"])]);
    assert_eq!(alts(&ok(&g, "x")), [(0, 1)]);
    assert_eq!(fails_at(&g, ""), 0);
    assert_eq!(fails_at(&g, "xx"), 1);

    let g = grammar(&[("<a>", &["<b>", "x"]), ("<b>", &["<a>", ""])]);
    assert_eq!(alts(&ok(&g, "")), [(0, 0), (1, 1)]);
    ok(&g, "x");

    let g = grammar(&[("<a>", &["<a><a>", "", "x"])]);
    for input in ["", "x", "xxx"] {
        ok(&g, input);
    }
}

#[test]
fn empty_input() {
    assert_eq!(fails_at(&expr(), ""), 0);
    let g = grammar(&[("<start>", &["<o>"]), ("<o>", &["", "o"])]);
    assert_eq!(ok(&g, "").span(), (0, 0));
}

#[test]
fn where_parsing_stops() {
    let g = expr();
    assert_eq!(fails_at(&g, "1+(2*"), 5);
    assert_eq!(fails_at(&g, "1+)"), 2);
    assert_eq!(fails_at(&g, "12 "), 2);
    assert_eq!(fails_at(&g, "x"), 0);
}

#[test]
fn multi_byte_terminals() {
    let g = grammar(&[("<s>", &["if<s>", "i<f>", "ifx"]), ("<f>", &["f"])]);
    ok(&g, "if");
    ok(&g, "ififif");
    ok(&g, "ififx");
    assert_eq!(fails_at(&g, "ifi"), 3);
    assert_eq!(fails_at(&g, "ifxf"), 3);
}

#[test]
fn bad_grammars_are_errors() {
    let mut g = grammar(&[("<a>", &["x"])]);
    g.rules[0].alts[0].symbols.push(Sym::N(7));
    assert!(matches!(parse(&g, b"x"), Err(Error::Rule { .. })));
    let mut g = grammar(&[("<a>", &["x"])]);
    g.start = 3;
    assert!(matches!(parse(&g, b"x"), Err(Error::Rule { .. })));
    let g = grammar(&[("<a>", &[])]);
    assert_eq!(fails_at(&g, "x"), 0);
    let g = grammar(&[("<a>", &["<a>x"])]);
    assert_eq!(fails_at(&g, "xx"), 0);
}

/// A random derivation tree of `nt` at byte `at`, choosing the shortest
/// alternatives (by `depth`) below `budget`.
fn expand(g: &Grammar, rng: &mut ChaCha8Rng, nt: usize, at: usize, budget: usize, depth: &[usize]) -> Node {
    let alts = &g.rules[nt].alts;
    let choices: Vec<usize> =
        (0..alts.len()).filter(|&a| budget > 0 || alt_depth(g, nt, a, depth) < depth[nt] + 1).collect();
    let alt = choices[rng.random_range(0..choices.len())];
    let mut children = Vec::new();
    let mut end = at;
    for s in &alts[alt].symbols {
        let c = match s {
            Sym::T(t) => Node::T { bytes: crate::Bytes::from_slice(t), start: end },
            Sym::N(m) => expand(g, rng, *m, end, budget.saturating_sub(1), depth),
        };
        end = c.span().1;
        children.push(c);
    }
    Node::N { nt, alt, children, start: at, end }
}

fn alt_depth(g: &Grammar, nt: usize, a: usize, depth: &[usize]) -> usize {
    g.rules[nt].alts[a].symbols.iter().map(|s| if let Sym::N(m) = s { depth[*m] + 1 } else { 1 }).max().unwrap_or(1)
}

/// The least derivation depth of every nonterminal.
fn depths(g: &Grammar) -> Vec<usize> {
    let mut d = vec![usize::MAX / 2; g.rules.len()];
    for _ in 0..g.rules.len() {
        for nt in 0..g.rules.len() {
            d[nt] = (0..g.rules[nt].alts.len()).map(|a| alt_depth(g, nt, a, &d)).min().unwrap_or(usize::MAX / 2);
        }
    }
    d
}

#[test]
fn generated_strings_parse_back_to_their_trees() {
    // Unambiguous, with left and right recursion and nullable parts.
    let g = grammar(&[
        ("<start>", &["<stmts>"]),
        ("<stmts>", &["", "<stmt>;<stmts>"]),
        ("<stmt>", &["<opt><id>=<expr>", "{<stmts>}"]),
        ("<opt>", &["", "let "]),
        ("<expr>", &["<term>", "<expr>+<term>"]),
        ("<term>", &["<id>", "<num>", "(<expr>)", "-<term>"]),
        ("<num>", &["<digit><num>", "<digit>"]),
        ("<digit>", &["0", "1", "2"]),
        ("<id>", &["<letter><idrest>"]),
        ("<idrest>", &["", "<idrest><letter>", "<idrest><digit>"]),
        ("<letter>", &["a", "b", "z"]),
    ]);
    let depth = depths(&g);
    let parser = Parser::new(&g).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for round in 0..300 {
        let t = expand(&g, &mut rng, g.start, 0, round % 12, &depth);
        let input = t.text();
        let back = parser.parse(&input).unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(&input)));
        check(&g, &back, &input);
        assert_eq!(back, t, "{:?}", String::from_utf8_lossy(&input));
    }
    // Ambiguous: the text comes back, not necessarily the tree.
    let g = grammar(&[("<start>", &["<e>"]), ("<e>", &["<e><e>", "(<e>)", "", "x"])]);
    let depth = depths(&g);
    for round in 0..200 {
        let t = expand(&g, &mut rng, g.start, 0, round % 8, &depth);
        let input = t.text();
        let back = parse(&g, &input).unwrap();
        check(&g, &back, &input);
    }
}

/// Runs `f` on a thread with a large stack (deep trees drop recursively).
fn big_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new().stack_size(256 << 20).spawn(f).unwrap().join().unwrap();
}

#[test]
fn ten_kilobytes_of_expressions_parse_fast() {
    big_stack(|| {
        let g = expr();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut input = String::new();
        while input.len() < 10_000 {
            if !input.is_empty() {
                input.push(['+', '-', '*', '/'][rng.random_range(0..4)]);
            }
            match rng.random_range(0..4) {
                0 => input += &format!("({}*-{})", rng.random_range(0..1000), rng.random_range(0..99)),
                _ => input += &rng.random_range(0..100_000).to_string(),
            }
        }
        let time = std::time::Instant::now();
        let t = parse(&g, input.as_bytes()).unwrap();
        let took = time.elapsed();
        eprintln!("{} bytes of expressions: {took:?}", input.len());
        assert!(took.as_secs_f64() < 1.0, "{took:?}");
        check(&g, &t, input.as_bytes());
    });
}

#[test]
fn long_right_recursion_is_linear() {
    big_stack(|| {
        let g = grammar(&[
            ("<start>", &["<chars>"]),
            ("<chars>", &["", "<char><chars>"]),
            ("<char>", &["a", "b", "<esc>"]),
            ("<esc>", &["\\<char>"]),
        ]);
        let input: Vec<u8> = (0..100_000).map(|i| if i % 7 == 0 { b'\\' } else { b'a' + (i % 2) as u8 }).collect();
        let time = std::time::Instant::now();
        let t = parse(&g, &input).unwrap();
        let took = time.elapsed();
        eprintln!("100 000 bytes of right recursion: {took:?}");
        assert!(took.as_secs_f64() < 2.0, "{took:?}");
        assert!(check(&g, &t, &input) > 200_000);
        let mut numbers = String::new();
        for i in 0..3000 {
            numbers += &format!("{}", i % 10);
        }
        let t = parse(&expr(), numbers.as_bytes()).unwrap();
        check(&expr(), &t, numbers.as_bytes());
    });
}
