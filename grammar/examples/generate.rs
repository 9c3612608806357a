//! Measures generation speed: `generate GRAMMAR.json MAX_NODES SECONDS`
//! prints one tab-separated line per mode (`derivation`: the flat
//! derivation tree, in reused buffers; `node tree`: the same tree spelled
//! out as `Node`s): mode, inputs, seconds, inputs/s, mean bytes, mean
//! nonterminal nodes. With `--print N` it prints N inputs instead.

use std::time::Instant;

use grammar::{Derivation, Generator, Grammar};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: generate GRAMMAR.json MAX_NODES SECONDS | generate GRAMMAR.json MAX_NODES --print N");
        std::process::exit(2);
    }
    let g = match Grammar::load(args[0].as_ref()) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let max: usize = args[1].parse().expect("MAX_NODES is a number");
    let mut gen = Generator::new(&g, 1).expect("a checked grammar generates");
    if args[2] == "--print" {
        let n: usize = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(10);
        for _ in 0..n {
            println!("{}", String::from_utf8_lossy(&gen.generate(max).text()));
        }
        return;
    }
    let secs: f64 = args[2].parse().expect("SECONDS is a number");
    let mut d = Derivation::new();
    for tree in [false, true] {
        let (mut n, mut bytes, mut nodes) = (0u64, 0usize, 0usize);
        let t0 = Instant::now();
        while t0.elapsed().as_secs_f64() < secs {
            for _ in 0..1000 {
                if tree {
                    let t = gen.generate(max);
                    bytes += t.span().1;
                    t.each(&mut |x| nodes += matches!(x, grammar::Node::N { .. }) as usize);
                } else {
                    gen.generate_into(max, &mut d);
                    bytes += d.text().len();
                    nodes += d.nodes().len();
                }
            }
            n += 1000;
        }
        let dt = t0.elapsed().as_secs_f64();
        let mode = if tree { "node tree" } else { "derivation" };
        let per = n as f64;
        println!("{mode}\t{n}\t{dt:.2}\t{:.0}\t{:.1}\t{:.1}", per / dt, bytes as f64 / per, nodes as f64 / per);
    }
}
