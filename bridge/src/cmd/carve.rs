//! `bridge carve`: one run of the target with carving on; its snapshots
//! become unit tests.

use crate::cli::CarveArgs;
use anyhow::Context;
use driver::carve::{carve_run, list_functions, Caps};
use driver::files::write_atomic;
use std::path::Path;

pub fn run(args: CarveArgs) -> anyhow::Result<i32> {
    let target = super::target(&args.target)?;
    let input = super::read_input(args.input.as_deref())?;
    let program = ::exec::forkserver::resolve(&target.program)?;
    let functions = list_functions(&program, &target.args)?;
    let selected: Vec<&str> = match &args.functions {
        Some(re) => {
            let re = regex::Regex::new(re).with_context(|| format!("bad --functions regex '{re}'"))?;
            functions.iter().map(|f| f.name.as_str()).filter(|f| re.is_match(f)).collect()
        }
        None => Vec::new(),
    };
    if args.functions.is_some() && selected.is_empty() {
        anyhow::bail!(
            "no function of {} matches --functions {}",
            program.display(),
            args.functions.unwrap_or_default()
        );
    }
    let caps = Caps {
        functions: selected.iter().map(|s| s.to_string()).collect(),
        max_per_function: args.max_per_function,
        budget: args.budget,
    };
    let (outcome, carved) = carve_run(target, &program, &input, &caps)?;
    std::fs::create_dir_all(&args.output).with_context(|| format!("cannot create {}", args.output.display()))?;
    let (mut written, mut bytes, mut truncated) = (0, 0, 0);
    for (path, why) in &carved.skipped {
        eprintln!("bridge carve: warning: skipping snapshot {}: {why}", path.display());
    }
    let bad = carved.skipped.len();
    let mut per_function = std::collections::BTreeMap::<String, u32>::new();
    for unit in carved.units {
        bytes += unit.snapshot.bytes();
        truncated += usize::from(unit.snapshot.truncated());
        *per_function.entry(unit.meta.function.clone()).or_default() += 1;
        let name = free_name(&args.output, &unit.meta.function);
        write_atomic(&args.output.join(name), &unit.encode())?;
        written += 1;
    }
    eprintln!(
        "bridge carve: {outcome}; {written} calls of {} functions carved into {} ({bytes} bytes of memory, {truncated} cut at the budget{})",
        per_function.len(),
        args.output.display(),
        if bad > 0 { format!(", {bad} unreadable snapshots skipped") } else { String::new() }
    );
    Ok(0)
}

/// `FUNCTION.N.unit` with the first N not taken.
fn free_name(dir: &Path, function: &str) -> String {
    let safe: String =
        function.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '.' { c } else { '_' }).collect();
    (0..).map(|n| format!("{safe}.{n}.unit")).find(|n| !dir.join(n).exists()).expect("a free name")
}
