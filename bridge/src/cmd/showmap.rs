//! `bridge showmap`: one run, its edges.

use crate::cli::ShowmapArgs;
use anyhow::Context;
use std::io::Write;

pub fn run(args: ShowmapArgs) -> anyhow::Result<i32> {
    let target = super::target(&args.target)?;
    let input = super::read_input(args.input.as_deref())?;
    let mut fs = exec::ForkServer::start(target)?;
    let outcome = fs.run(&input)?;
    let edges = exec::coverage::edges(fs.map());
    let mut text = String::with_capacity(edges.len() * 10);
    for (edge, bucket) in &edges {
        if args.edges_only {
            text.push_str(&format!("{edge}\n"));
        } else {
            text.push_str(&format!("{edge:06}:{bucket}\n"));
        }
    }
    match &args.output {
        Some(p) => std::fs::write(p, text).with_context(|| format!("cannot write {}", p.display()))?,
        None => std::io::stdout().write_all(text.as_bytes())?,
    }
    let total = fs.hello().edges;
    eprintln!("bridge showmap: {outcome}; {} of {total} edges", edges.len());
    Ok(0)
}
