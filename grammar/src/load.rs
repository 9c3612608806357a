//! Reading and writing the Fuzzing Book's JSON form of a grammar: an object
//! mapping `"<name>"` to its alternatives, each a string (`<name>` a
//! reference, the rest literal text) or `["string", {"prob": p}]`. Every
//! nonterminal keeps its line; every problem is reported with a line.

use std::fmt::Write as _;
use std::path::Path;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

use crate::{Alt, Error, Grammar, NonTerminal, Sym};

/// How far a nonterminal's probabilities may sum above 1 (or, all given,
/// below it) before the grammar is refused: rounding of learned ones.
const SLACK: f64 = 1e-6;

impl Grammar {
    /// Reads the grammar file at `path` (see [`Grammar::from_json`]).
    pub fn load(path: &Path) -> Result<Grammar, Error> {
        let text = std::fs::read_to_string(path).map_err(|err| Error::Read { path: path.to_path_buf(), err })?;
        Grammar::from_json(&text, &path.display().to_string())
    }

    /// Parses a grammar in the Fuzzing Book's JSON form; `path` names it in
    /// errors. The grammar needs `<start>`; every nonterminal must be
    /// defined, reachable from `<start>` and derive a finite string; each
    /// has at least one alternative, with probabilities in [0, 1] summing
    /// to at most 1 (to 1 when all are given). Options other than `prob`
    /// are ignored. `<` that does not open a reference (`<`, `<>`, `< x>`)
    /// is literal text.
    pub fn from_json(text: &str, path: &str) -> Result<Grammar, Error> {
        let format = |line: usize, why: String| Error::Format { path: path.to_string(), line, why };
        let mut de = serde_json::Deserializer::from_str(text);
        let entries = Entries::deserialize(&mut de)
            .and_then(|e| de.end().map(|()| e))
            .map_err(|e| format(e.line(), format!("{e} (column {})", e.column())))?;
        let lines = key_lines(text);
        let line_of = |i: usize| lines.get(i).map_or(1, |k| k.line);
        let alt_line = |i: usize, j: usize| lines.get(i).and_then(|k| k.alts.get(j)).copied().unwrap_or(line_of(i));

        let mut rules: Vec<NonTerminal> = Vec::with_capacity(entries.0.len());
        for (i, (name, _)) in entries.0.iter().enumerate() {
            if !is_reference(name) {
                return Err(format(line_of(i), format!("{name:?} is not a nonterminal's name (`<name>`, no spaces)")));
            }
            if rules.iter().any(|r| &r.name == name) {
                return Err(rule_error(path, line_of(i), name, "defined twice"));
            }
            rules.push(NonTerminal { name: name.clone(), alts: Vec::new(), line: line_of(i) });
        }
        let names: Vec<&str> = entries.0.iter().map(|(name, _)| &name[..]).collect();
        let index = |name: &str| names.iter().position(|n| *n == name);
        let mut alts_of = Vec::with_capacity(rules.len());
        for (i, (name, value)) in entries.0.iter().enumerate() {
            let Value::Array(list) = value else {
                return Err(format(line_of(i), format!("{name}: the alternatives are not a list")));
            };
            let mut alts = Vec::with_capacity(list.len());
            for (j, item) in list.iter().enumerate() {
                let line = alt_line(i, j);
                let (body, prob) = alternative(item).map_err(|why| format(line, format!("{name}: {why}")))?;
                let mut symbols = Vec::new();
                for piece in split(body) {
                    symbols.push(match piece {
                        Piece::Text(t) => Sym::T(t.as_bytes().to_vec()),
                        Piece::Ref(r) => Sym::N(index(r).ok_or_else(|| {
                            rule_error(path, line, name, &format!("refers to {r}, which is not defined"))
                        })?),
                    });
                }
                alts.push(Alt { symbols, prob });
            }
            alts_of.push(alts);
        }
        for (rule, alts) in rules.iter_mut().zip(alts_of) {
            rule.alts = alts;
        }
        let start =
            index("<start>").ok_or_else(|| rule_error(path, 1, "<start>", "the grammar has no start symbol"))?;
        let grammar = Grammar { rules, start };
        grammar.check(path)?;
        Ok(grammar)
    }

    /// Checks a grammar however it was made: the start symbol and every
    /// reference exist; every nonterminal has alternatives whose
    /// probabilities are in [0, 1] and sum to at most 1 (to 1 when all are
    /// given), is reachable from the start symbol and derives a finite
    /// string. `path` names the grammar in errors.
    pub fn check(&self, path: &str) -> Result<(), Error> {
        let n = self.rules.len();
        if self.start >= n {
            return Err(rule_error(path, 0, "<start>", "the grammar has no start symbol"));
        }
        for r in &self.rules {
            let err = |why: &str| Err(rule_error(path, r.line, &r.name, why));
            if r.alts.is_empty() {
                return err("has no alternatives");
            }
            if r.alts.iter().flat_map(|a| &a.symbols).any(|s| matches!(s, Sym::N(k) if *k >= n)) {
                return err("refers to a nonterminal that does not exist");
            }
            if let Some(p) = r.alts.iter().filter_map(|a| a.prob).find(|p| !(0.0..=1.0).contains(p)) {
                return err(&format!("probability {p} is not in [0, 1]"));
            }
            let sum: f64 = r.alts.iter().filter_map(|a| a.prob).sum();
            let all = r.alts.iter().all(|a| a.prob.is_some());
            if sum > 1.0 + SLACK || (all && sum < 1.0 - SLACK) {
                let sum = (sum * 1e9).round() / 1e9;
                return err(&format!("its probabilities sum to {sum}, not {}1", if all { "" } else { "at most " }));
            }
        }
        let mut seen = vec![false; n];
        let mut todo = vec![self.start];
        seen[self.start] = true;
        while let Some(i) = todo.pop() {
            for s in self.rules[i].alts.iter().flat_map(|a| &a.symbols) {
                if let Sym::N(k) = *s {
                    if !seen[k] {
                        seen[k] = true;
                        todo.push(k);
                    }
                }
            }
        }
        if let Some(r) = self.rules.iter().zip(&seen).find(|(_, s)| !**s).map(|(r, _)| r) {
            return Err(rule_error(path, r.line, &r.name, "is not reachable from the start symbol"));
        }
        let costs = crate::generate::min_costs(self);
        if let Some(r) = self.rules.iter().zip(&costs).find(|(_, c)| **c == u64::MAX).map(|(r, _)| r) {
            return Err(rule_error(path, r.line, &r.name, "derives no finite string"));
        }
        Ok(())
    }

    /// The grammar in the Fuzzing Book's JSON form, one nonterminal a line,
    /// probabilities included. Fails when a terminal cannot be written in
    /// that form: bytes that are not UTF-8, or text that would read back as
    /// a reference (`<x>`).
    pub fn to_json(&self) -> Result<String, Error> {
        let mut out = String::from("{\n");
        for (i, r) in self.rules.iter().enumerate() {
            let err = |why: String| rule_error("", r.line, &r.name, &why);
            let _ = write!(out, "  {}: [", quote(&r.name));
            for (j, a) in r.alts.iter().enumerate() {
                let mut body = String::new();
                for s in &a.symbols {
                    match s {
                        Sym::T(t) => {
                            body += std::str::from_utf8(t).map_err(|_| err(format!("terminal {t:?} is not UTF-8")))?
                        }
                        Sym::N(k) => {
                            body += &self.rules.get(*k).ok_or_else(|| err(format!("no nonterminal {k}")))?.name
                        }
                    }
                }
                let refs = a.symbols.iter().filter(|s| matches!(s, Sym::N(_))).count();
                if split(&body).filter(|p| matches!(p, Piece::Ref(_))).count() != refs {
                    return Err(err(format!("alternative {body:?} has text that reads as a reference")));
                }
                let sep = if j == 0 { "" } else { ", " };
                match a.prob {
                    None => _ = write!(out, "{sep}{}", quote(&body)),
                    Some(p) => _ = write!(out, "{sep}[{}, {{\"prob\": {}}}]", quote(&body), Value::from(p)),
                }
            }
            out += if i + 1 == self.rules.len() { "]\n" } else { "],\n" };
        }
        out += "}\n";
        Ok(out)
    }
}

fn rule_error(path: &str, line: usize, nonterminal: &str, why: &str) -> Error {
    Error::Rule { path: path.to_string(), line, nonterminal: nonterminal.to_string(), why: why.to_string() }
}

fn quote(s: &str) -> String {
    Value::from(s).to_string()
}

/// An alternative's text and probability.
fn alternative(item: &Value) -> Result<(&str, Option<f64>), String> {
    let (body, opts) = match item {
        Value::String(s) => return Ok((s, None)),
        Value::Array(v) => match v.as_slice() {
            [Value::String(s)] => (s, None),
            [Value::String(s), opts] => (s, Some(opts)),
            _ => return Err("an alternative is a string or [string, {\"prob\": p}]".into()),
        },
        _ => return Err(format!("an alternative is a string, not {item}")),
    };
    let prob = match opts {
        None => None,
        Some(Value::Object(o)) => match o.get("prob") {
            None | Some(Value::Null) => None,
            Some(Value::Number(p)) => p.as_f64(),
            Some(p) => return Err(format!("probability {p} is not a number")),
        },
        Some(o) => return Err(format!("options {o} are not an object")),
    };
    Ok((body, prob))
}

/// A piece of an alternative's text.
enum Piece<'a> {
    Text(&'a str),
    Ref(&'a str),
}

/// Whether `s` is a whole reference: `<`, one or more characters other
/// than spaces and angle brackets, `>`.
fn is_reference(s: &str) -> bool {
    s.len() > 2 && s.starts_with('<') && s.ends_with('>') && !s[1..s.len() - 1].contains(['<', '>', ' '])
}

/// An alternative's text cut into literal text and references.
fn split(s: &str) -> impl Iterator<Item = Piece<'_>> {
    let mut rest = s;
    let mut pending: Option<&str> = None;
    std::iter::from_fn(move || {
        if let Some(r) = pending.take() {
            return Some(Piece::Ref(r));
        }
        if rest.is_empty() {
            return None;
        }
        // The first `<` that opens a reference.
        let mut from = 0;
        while let Some(k) = rest[from..].find('<').map(|k| k + from) {
            if let Some(len) = rest[k + 1..].find(['<', '>', ' ']) {
                let close = k + 1 + len;
                if len > 0 && rest.as_bytes()[close] == b'>' {
                    let (text, r) = (&rest[..k], &rest[k..=close]);
                    rest = &rest[close + 1..];
                    if text.is_empty() {
                        return Some(Piece::Ref(r));
                    }
                    pending = Some(r);
                    return Some(Piece::Text(text));
                }
            }
            from = k + 1;
        }
        let text = rest;
        rest = "";
        Some(Piece::Text(text))
    })
}

/// The top-level object's entries in file order, duplicates kept.
struct Entries(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Entries;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object mapping nonterminals to their alternatives")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    out.push(entry);
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// Where a top-level key and each of its alternatives start.
struct KeyLines {
    line: usize,
    alts: Vec<usize>,
}

/// The lines of the top-level object's keys and of each alternative of
/// their values, in file order (the text is valid JSON).
fn key_lines(text: &str) -> Vec<KeyLines> {
    let b = text.as_bytes();
    let (mut out, mut line, mut depth, mut i) = (Vec::<KeyLines>::new(), 1, 0usize, 0);
    // At depth 1 a string is a key or a value; at depth 2 an element opens
    // after `[` or `,` of the key's list.
    let (mut expect_key, mut expect_alt) = (false, false);
    while i < b.len() {
        let c = b[i];
        let token = !matches!(c, b' ' | b'\t' | b'\r' | b'\n' | b',' | b':' | b']' | b'}');
        if depth == 2 && expect_alt && token {
            if let Some(k) = out.last_mut() {
                k.alts.push(line);
            }
            expect_alt = false;
        }
        match c {
            b'\n' => line += 1,
            b'"' => {
                if depth == 1 && expect_key {
                    out.push(KeyLines { line, alts: Vec::new() });
                    expect_key = false;
                }
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' | b'[' => {
                depth += 1;
                expect_key = depth == 1;
                expect_alt = depth == 2 && c == b'[';
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' => {
                expect_key = depth == 1;
                expect_alt = depth == 2;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

#[cfg(test)]
pub(crate) mod tests;
