//! Grammars written inline, for tests: `(name, alternatives)` pairs, each
//! alternative a string in which `<name>` of a defined nonterminal is a
//! reference and the rest literal text. The start symbol is `<start>`, or
//! else the first nonterminal.

use crate::{Alt, Grammar, NonTerminal, Sym};

/// The grammar of `rules`; panics on a reference to an undefined name.
pub(crate) fn grammar(rules: &[(&str, &[&str])]) -> Grammar {
    let names: Vec<&str> = rules.iter().map(|(n, _)| *n).collect();
    let index = |r: &str| names.iter().position(|n| *n == r);
    let rules: Vec<NonTerminal> = rules
        .iter()
        .map(|(name, alts)| NonTerminal {
            name: name.to_string(),
            alts: alts.iter().map(|a| Alt { symbols: symbols(a, &index), prob: None }).collect(),
            line: 0,
        })
        .collect();
    let start = index("<start>").unwrap_or(0);
    Grammar { rules, start }
}

fn symbols(mut s: &str, index: &impl Fn(&str) -> Option<usize>) -> Vec<Sym> {
    let mut out = Vec::new();
    let mut text = Vec::new();
    while !s.is_empty() {
        let reference = s
            .strip_prefix('<')
            .and_then(|r| r.find(['<', '>', ' ']).filter(|&k| k > 0 && r.as_bytes()[k] == b'>'))
            .map(|k| &s[..k + 2]);
        match reference {
            Some(r) => {
                let n = index(r).unwrap_or_else(|| panic!("{r} is not defined"));
                if !text.is_empty() {
                    out.push(Sym::T(std::mem::take(&mut text)));
                }
                out.push(Sym::N(n));
                s = &s[r.len()..];
            }
            None => {
                let c = s.chars().next().expect("not empty");
                text.extend_from_slice(&s.as_bytes()[..c.len_utf8()]);
                s = &s[c.len_utf8()..];
            }
        }
    }
    if !text.is_empty() {
        out.push(Sym::T(text));
    }
    out
}
