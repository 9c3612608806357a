//! `bridge reduce TEST`: one failing test reduced while it fails the same
//! way; `bridge signature TEST`: what a failure is (kind and stack).

use crate::cli::{ReduceArgs, SignatureArgs};
use anyhow::Context;

pub fn reduce(args: ReduceArgs) -> anyhow::Result<i32> {
    let target = super::target(&args.target)?;
    let test = std::fs::read(&args.test).with_context(|| format!("cannot read {}", args.test.display()))?;
    let Some(r) = engine::review::reduce_test(&target, &test, usize::from(args.depth), args.max_runs)? else {
        anyhow::bail!("{} does not crash the program: nothing to reduce (hangs are not reduced)", args.test.display());
    };
    driver::files::write_atomic(&args.output, &r.test)
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    println!(
        "bridge reduce: {} bytes -> {} bytes in {} runs, same signal and {} innermost frames; written to {}",
        test.len(),
        r.test.len(),
        r.runs,
        args.depth,
        args.output.display()
    );
    Ok(0)
}

pub fn signature_of(args: SignatureArgs) -> anyhow::Result<i32> {
    let target = super::target(&args.target)?;
    let test = std::fs::read(&args.test).with_context(|| format!("cannot read {}", args.test.display()))?;
    let symbolizer = review::symbolize::find();
    let found = review::signature::of_test(&target, &test, target.timeout, symbolizer.as_deref())?;
    let depth = usize::from(args.depth);
    match (found, args.json) {
        (None, true) => println!("null"),
        (None, false) => println!("{}: no failure (the program exits)", args.test.display()),
        (Some((s, _)), true) => {
            let v = serde_json::json!({ "signature": s, "key": s.key(depth), "fingerprint": review::sarif::fingerprint(&s.key(depth)) });
            println!("{}", serde_json::to_string_pretty(&v)?);
        }
        (Some((s, _)), false) => {
            println!("{}", s.key(depth));
            for f in &s.frames {
                println!("  {} [{}]", f.place(), if f.in_program() { "program" } else { f.module.as_str() });
            }
        }
    }
    Ok(0)
}
