//! The pass and the runtime agree on every entry point: each function the
//! instrumented bitcode declares (`__carve_*`, `__sym_*`) is defined by
//! `libcarve_rt.a`, and its Rust definition takes and returns the same
//! machine types (`runtime/src/exports.rs` checks the table in
//! `model/src/abi.rs` against the runtime's sources and `carve_rt.h`; this
//! checks what the pass really declares against what the library defines).

use crate::util::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// A signature as machine types: `ptr`, `i8`..`i64`, `void`.
type Sig = (Vec<String>, String);

/// The `__carve_*`/`__sym_*` functions the instrumented bitcode of `src`
/// declares.
fn declared(src: &Path, dir: &Path) -> BTreeMap<String, Sig> {
    let temps = dir.join(format!("temps-{}", src.file_stem().unwrap().to_string_lossy()));
    std::fs::create_dir_all(&temps).unwrap();
    let out = dir.join("prog");
    let o = Command::new(tools_dir().join("carve-clang"))
        .env(model::env::SAVE_TEMPS, &temps)
        .args(["-O2", "-o"])
        .arg(&out)
        .arg(src)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let bc = std::fs::read_dir(&temps)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".inst.bc"))
        .expect("the instrumented bitcode");
    let o = Command::new("llvm-dis-19").arg(&bc).arg("-o").arg("-").output().expect("llvm-dis-19");
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let decl = regex::Regex::new(r"(?m)^declare (?:[a-z_]+ )*(\w+) @(__(?:carve|sym)_\w+)\(([^)]*)\)").unwrap();
    decl.captures_iter(&text)
        .map(|c| {
            let params = c[3]
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(|p| p.split(' ').next().unwrap().to_string())
                .collect();
            (c[2].to_string(), (params, c[1].to_string()))
        })
        .collect()
}

/// A Rust or C type as a machine type.
fn machine(t: &str) -> String {
    let t = t.trim();
    if t.contains('*') || t.starts_with('&') || t.contains("fn(") || t.contains("fn (") {
        return "ptr".into();
    }
    let t = t.rsplit("::").next().unwrap_or(t);
    match t.trim_start_matches("const ").trim() {
        "u8" | "i8" | "bool" | "c_char" | "char" | "uint8_t" => "i8",
        "u16" | "i16" | "uint16_t" => "i16",
        "u32" | "i32" | "c_int" | "c_uint" | "int" | "uint32_t" | "int32_t" => "i32",
        "u64" | "i64" | "usize" | "isize" | "c_long" | "uint64_t" | "int64_t" | "size_t" => "i64",
        "" | "()" | "!" | "void" => "void",
        other => panic!("a type this check does not know: {other}"),
    }
    .into()
}

/// The runtime's `extern "C"` functions, from its sources.
fn defined_in_sources() -> BTreeMap<String, Sig> {
    let f =
        regex::Regex::new(r#"(?s)pub (?:unsafe )?extern "C" fn (\w+)\(([^)]*)\)(?:\s*->\s*([^{]+?))?\s*\{"#).unwrap();
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(repo().join("runtime/src")).unwrap().flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap();
        for c in f.captures_iter(&text) {
            let params = c[2]
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(|p| machine(p.split_once(':').map_or(p, |(_, t)| t)))
                .collect();
            let ret = machine(c.get(3).map_or("", |m| m.as_str()));
            out.insert(c[1].to_string(), (params, ret));
        }
    }
    out
}

#[test]
fn every_runtime_symbol_the_pass_declares_is_defined_with_its_signature() {
    let dir = tempfile::tempdir().unwrap();
    let mut wanted = BTreeMap::new();
    for src in ["bridge/tests/fixtures/libc_models.c", "examples/interp/interp.c", "examples/inlined/inlined.c"] {
        wanted.extend(declared(&repo().join(src), dir.path()));
    }
    assert!(wanted.len() > 40, "too few declarations found: {wanted:?}");
    let o = Command::new("nm").args(["--defined-only", "-g"]).arg(tools_dir().join("libcarve_rt.a")).output().unwrap();
    let nm = String::from_utf8_lossy(&o.stdout);
    let exported: std::collections::BTreeSet<&str> =
        nm.lines().filter_map(|l| l.split_whitespace().nth(2).filter(|_| l.contains(" T "))).collect();
    let rust = defined_in_sources();
    let mut wrong = Vec::new();
    for (name, sig) in &wanted {
        if !exported.contains(name.as_str()) {
            wrong.push(format!("{name}: not defined by libcarve_rt.a"));
            continue;
        }
        match rust.get(name) {
            None => wrong.push(format!("{name}: no `extern \"C\" fn` in runtime/src")),
            Some(r) if r != sig => wrong.push(format!("{name}: the pass declares {sig:?}, the runtime defines {r:?}")),
            Some(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
