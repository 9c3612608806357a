//! `bridge units DIR` and `bridge show UNIT`.

use crate::cli::{ShowArgs, UnitsArgs};
use driver::files::{read_unit, unit_files};

pub fn list(args: UnitsArgs) -> anyhow::Result<i32> {
    let files = unit_files(&args.dir)?;
    anyhow::ensure!(!files.is_empty(), "no unit in {}", args.dir.display());
    println!(
        "{:<40} {:<24} {:>9} {:>7} {:>6} {:>4} {:>9} {:>8}  parameters",
        "unit", "function", "bytes", "objects", "relocs", "raw", "truncated", "returned"
    );
    let mut by_encoding: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut bad = 0;
    for p in files {
        let name = p.file_name().unwrap_or_default().to_string_lossy().into_owned();
        match read_unit(&p) {
            Ok(u) => {
                let s = &u.snapshot;
                // Parameters as mapped to the system input the unit was
                // carved from.
                let params = carver::mapping::map(&u, &u.meta.system_input);
                let mut encodings: Vec<&str> = params.iter().map(|p| p.encoding.name()).collect();
                for e in &encodings {
                    *by_encoding.entry(e).or_default() += 1;
                }
                encodings.dedup();
                println!(
                    "{:<40} {:<24} {:>9} {:>7} {:>6} {:>4} {:>9} {:>8}  {}{}",
                    name,
                    u.meta.function,
                    s.bytes(),
                    s.objects.len(),
                    s.relocs.len(),
                    s.raw_pointers,
                    if s.truncated() { "yes" } else { "no" },
                    if u.outcome.is_some() { "yes" } else { "no" },
                    params.len(),
                    if encodings.is_empty() { String::new() } else { format!(" ({})", encodings.join(", ")) }
                );
            }
            Err(e) => {
                bad += 1;
                println!("{name:<40} error: {:#}", anyhow::Error::from(e));
            }
        }
    }
    let total: usize = by_encoding.values().sum();
    let each: Vec<String> = by_encoding.iter().map(|(e, n)| format!("{n} {e}")).collect();
    println!(
        "parameters mapped to the system input: {total}{}",
        if each.is_empty() { String::new() } else { format!(" ({})", each.join(", ")) }
    );
    Ok(if bad > 0 { 1 } else { 0 })
}

pub fn show(args: ShowArgs) -> anyhow::Result<i32> {
    let u = read_unit(&args.unit)?;
    print!("{}", carver::render_c(&u));
    Ok(0)
}
