//! `bridge grammar G.json --samples DIR`: parses the samples, prints each
//! nonterminal's learned (or inverted) probabilities, and generates inputs
//! with them.

use std::io::Write;
use std::path::PathBuf;

use crate::cli::GrammarArgs;
use grammar::{Generator, Grammar, Parser};

pub fn run(args: GrammarArgs) -> anyhow::Result<i32> {
    let g = Grammar::load(&args.grammar)?;
    let parser = Parser::new(&g)?;
    let mut files: Vec<PathBuf> = Vec::new();
    for p in &args.samples {
        if p.is_dir() {
            files.extend(super::files_in(p)?);
        } else {
            files.push(p.clone());
        }
    }
    let mut trees = Vec::new();
    for f in &files {
        let data = std::fs::read(f).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", f.display()))?;
        match parser.parse(&data) {
            Ok(t) => trees.push(t),
            Err(e) => eprintln!("bridge grammar: {}: {e}", f.display()),
        }
    }
    if !files.is_empty() {
        eprintln!("bridge grammar: {} of {} samples parse", trees.len(), files.len());
    }
    let counts = grammar::counts(&g, &trees);
    let with = match args.mode.as_str() {
        "uniform" => g.clone(),
        "learned" => grammar::learned(&g, &counts),
        "inverse" => grammar::inverted(&g, &counts),
        "rank-swap" => grammar::rank_swap(&g, &counts),
        m => anyhow::bail!("unknown mode '{m}' (known: uniform, learned, inverse, rank-swap)"),
    };
    if let Some(path) = &args.write {
        std::fs::write(path, with.to_json()?).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    if args.count == 0 {
        // The probabilities, one nonterminal a line: uses in the samples
        // and the mode's probability of each alternative.
        let mut out = std::io::stdout().lock();
        for (nt, r) in with.rules.iter().enumerate() {
            let probs = with.probabilities(nt);
            let alts: Vec<String> = (r.alts.iter().zip(&probs).enumerate())
                .map(|(k, (a, p))| format!("{} {:.1}% ({})", show(&with, a), 100.0 * p, counts.per[nt][k]))
                .collect();
            writeln!(out, "{} ::= {}", r.name, alts.join(" | "))?;
        }
        return Ok(0);
    }
    let mut gen = Generator::new(&with, args.seed)?;
    if let Some(dir) = &args.output {
        std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    }
    let mut out = std::io::stdout().lock();
    for k in 0..args.count {
        let text = gen.generate(args.max_nodes).text();
        match &args.output {
            Some(dir) => std::fs::write(dir.join(format!("{k:06}")), &text)?,
            None => {
                out.write_all(&text)?;
                out.write_all(b"\n")?;
            }
        }
    }
    Ok(0)
}

/// An alternative as the grammar file writes it.
fn show(g: &Grammar, a: &grammar::Alt) -> String {
    let mut s = String::new();
    for sym in &a.symbols {
        match sym {
            grammar::Sym::T(t) => s.push_str(&format!("{:?}", String::from_utf8_lossy(t))),
            grammar::Sym::N(k) => s.push_str(&g.rules[*k].name),
        }
    }
    if s.is_empty() {
        "\"\"".into()
    } else {
        s
    }
}
