//! Measures the grammar generator as a campaign runs it: `grammar_rate
//! GRAMMAR.json SEEDS_DIR SECONDS [MODE]` asks for tests in batches of
//! 1000 from the seeds (every file of SEEDS_DIR), each with its derivation
//! tree, and prints one tab-separated line: tests, seconds, tests/s, mean
//! bytes, the share of whole new derivations (`gen`, `gen.pool`).

use std::time::Instant;

use systemgen::{GrammarGen, Mode, Seed, SystemGenerator};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: grammar_rate GRAMMAR.json SEEDS_DIR SECONDS [uniform|learned|inverse|mixed]");
        std::process::exit(2);
    }
    let g = grammar::Grammar::load(args[0].as_ref()).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let mut files: Vec<_> = std::fs::read_dir(&args[1]).expect("SEEDS_DIR is a directory").flatten().collect();
    files.sort_by_key(|e| e.file_name());
    let data: Vec<Vec<u8>> = files.iter().filter_map(|e| std::fs::read(e.path()).ok()).collect();
    let corpus: Vec<Seed<'_>> = data
        .iter()
        .enumerate()
        .map(|(i, d)| Seed { id: i as u64, data: d, labels: None, run_us: 0, favored: false })
        .collect();
    let secs: f64 = args[2].parse().expect("SECONDS is a number");
    let mode: Mode = args.get(3).map_or("mixed", |s| s).parse().expect("a mode");
    let mut gen = GrammarGen::new(g, mode, 1).expect("a checked grammar");
    let (mut n, mut bytes, mut whole) = (0u64, 0usize, 0u64);
    let t0 = Instant::now();
    while t0.elapsed().as_secs_f64() < secs {
        for t in gen.generate(&corpus, &mut systemgen::Uniform::new(corpus.len(), 1), 1000) {
            assert!(t.tree.is_some(), "a grammar test has its tree");
            bytes += t.data.len();
            whole += t.op.starts_with("gen") as u64;
        }
        n += 1000;
    }
    let dt = t0.elapsed().as_secs_f64();
    let per = n as f64;
    println!("{n}\t{dt:.2}\t{:.0}\t{:.1}\t{:.3}", per / dt, bytes as f64 / per, whole as f64 / per);
}
