//! `bridge units DIR` and `bridge show UNIT`.

use crate::cli::{ShowArgs, UnitsArgs};
use anyhow::Context;
use model::unit::Unit;
use std::path::{Path, PathBuf};

pub fn read_unit(path: &Path) -> anyhow::Result<Unit> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    Unit::decode(&bytes).with_context(|| format!("{} is not a unit test", path.display()))
}

/// The unit files of a directory, sorted (or the one file given).
pub fn unit_files(path: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut v: Vec<PathBuf> = std::fs::read_dir(path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "unit"))
        .collect();
    v.sort();
    Ok(v)
}

pub fn list(args: UnitsArgs) -> anyhow::Result<i32> {
    println!(
        "{:<40} {:<24} {:>9} {:>7} {:>6} {:>4} {:>9} {:>8}",
        "unit", "function", "bytes", "objects", "relocs", "raw", "truncated", "returned"
    );
    let mut bad = 0;
    for p in unit_files(&args.dir)? {
        let name = p.file_name().unwrap_or_default().to_string_lossy().into_owned();
        match read_unit(&p) {
            Ok(u) => {
                let s = &u.snapshot;
                println!(
                    "{:<40} {:<24} {:>9} {:>7} {:>6} {:>4} {:>9} {:>8}",
                    name,
                    u.meta.function,
                    s.bytes(),
                    s.objects.len(),
                    s.relocs.len(),
                    s.raw_pointers,
                    if s.truncated() { "yes" } else { "no" },
                    if u.outcome.is_some() { "yes" } else { "no" }
                );
            }
            Err(e) => {
                bad += 1;
                println!("{name:<40} error: {e:#}");
            }
        }
    }
    Ok(if bad > 0 { 1 } else { 0 })
}

pub fn show(args: ShowArgs) -> anyhow::Result<i32> {
    let u = read_unit(&args.unit)?;
    print!("{}", carver::render_c(&u));
    Ok(0)
}
