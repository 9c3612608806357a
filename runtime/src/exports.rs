//! The runtime exports exactly the entry points of `model/src/abi.rs`,
//! with their machine types, and `include/carve_rt.h` declares exactly
//! those, each under a comment (a test build only: it reads the sources).

use crate::model::abi::{Ty, DATA, ENTRIES};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// Exports that are no entry point: `core` wants the personality.
const NOT_ENTRY_POINTS: &[&str] = &["rust_eh_personality"];

/// A signature in machine types.
type Sig = (Vec<Ty>, Ty);

/// Functions and data of one interface, by name.
#[derive(Default)]
struct Interface {
    functions: BTreeMap<String, Sig>,
    data: Vec<String>,
    /// Functions declared without a comment before them.
    undocumented: Vec<String>,
}

/// A Rust or C type as a machine type; `Err` for one this check does not know.
fn machine(t: &str) -> Result<Ty, String> {
    let t = t.trim();
    if t.contains('*') || t.starts_with('&') {
        return Ok(Ty::Ptr);
    }
    Ok(match t.trim_start_matches("const ").rsplit("::").next().unwrap_or(t).trim() {
        "" | "()" | "!" | "void" => Ty::Void,
        "u32" | "i32" | "c_int" | "c_uint" | "int" | "int32_t" | "uint32_t" => Ty::I32,
        "u64" | "i64" | "usize" | "isize" | "int64_t" | "uint64_t" | "size_t" => Ty::I64,
        other => return Err(format!("a type this check does not know: `{other}`")),
    })
}

/// The words of a parameter list, each as a machine type (C's `(void)` is none).
fn params(list: &str, c: bool) -> Result<Vec<Ty>, String> {
    let list = list.trim();
    if list.is_empty() || (c && list == "void") {
        return Ok(Vec::new());
    }
    list.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            if c {
                // `const char *name`: all but the name.
                let name = p.trim_end_matches(|ch: char| ch.is_alphanumeric() || ch == '_');
                machine(name)
            } else {
                machine(p.split_once(':').map_or(p, |(_, t)| t))
            }
        })
        .collect()
}

/// The `#[no_mangle]` functions and statics of the Rust sources in `dir`.
fn rust_exports(dir: &str) -> Result<Interface, String> {
    let mut out = Interface::default();
    for e in std::fs::read_dir(dir).map_err(|e| e.to_string())?.flatten() {
        let text = std::fs::read_to_string(e.path()).map_err(|e| e.to_string())?;
        // The attribute, not a mention of it.
        for (at, _) in text.match_indices("\n#[no_mangle]") {
            let rest = text[at + 1..].split_once('\n').map_or("", |(_, r)| r);
            if let Some(s) = rest.strip_prefix("pub static ") {
                out.data.push(s.split(':').next().unwrap_or("").trim().to_string());
                continue;
            }
            let fn_at =
                rest.lines().next().and_then(|l| l.find("extern \"C\" fn ")).filter(|_| rest.starts_with("pub "));
            let Some(f) = fn_at.map(|k| &rest[k + "extern \"C\" fn ".len()..]) else {
                return Err(format!("{}: a #[no_mangle] item this check does not read", e.path().display()));
            };
            let (name, f) = f.split_once('(').ok_or("no parameters")?;
            let (list, f) = f.split_once(')').ok_or("no end of parameters")?;
            let head = f.split_once('{').map_or(f, |(h, _)| h);
            let ret = head.trim().strip_prefix("->").unwrap_or("");
            let sig = (params(list, false)?, machine(ret)?);
            out.functions.insert(name.trim().to_string(), sig);
        }
    }
    Ok(out)
}

/// The declarations of a C header: prototypes and `extern` data, each
/// statement's comment noted. Preprocessor lines and `struct`s are skipped.
fn header_declarations(text: &str) -> Result<Interface, String> {
    let mut out = Interface::default();
    let (mut statement, mut commented, mut depth) = (String::new(), false, 0);
    let mut rest = text;
    while let Some(ch) = rest.chars().next() {
        if let Some(r) = rest.strip_prefix("/*") {
            rest = r.split_once("*/").map_or("", |(_, r)| r);
            commented = true;
            continue;
        }
        if ch == '#' && statement.trim().is_empty() {
            rest = rest.split_once('\n').map_or("", |(_, r)| r);
            continue;
        }
        rest = &rest[ch.len_utf8()..];
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ';' if depth == 0 => {
                let s = statement.split_whitespace().collect::<Vec<_>>().join(" ");
                statement.clear();
                if let Some(d) = s.strip_prefix("extern ") {
                    let name = d.split('[').next().unwrap_or(d).rsplit(' ').next().unwrap_or("");
                    out.data.push(name.to_string());
                } else if let Some((head, list)) = s.split_once('(').filter(|_| !s.starts_with("struct ")) {
                    let name = head.rsplit([' ', '*']).next().unwrap_or("").to_string();
                    let ret = machine(&head[..head.len() - name.len()])?;
                    let list = list.strip_suffix(')').ok_or_else(|| format!("{s}: not a prototype"))?;
                    if !commented {
                        out.undocumented.push(name.clone());
                    }
                    out.functions.insert(name, (params(list, true)?, ret));
                }
                commented = false;
                continue;
            }
            _ => {}
        }
        statement.push(ch);
    }
    Ok(out)
}

/// What differs between the table and `found` (from `what`).
fn differences(found: &Interface, what: &str, others: &[&str]) -> Vec<String> {
    let mut wrong = Vec::new();
    for e in ENTRIES {
        match found.functions.get(e.name) {
            None => wrong.push(format!("{}: in model/src/abi.rs, not in {what}", e.name)),
            Some(sig) if *sig != (e.params.to_vec(), e.ret) => wrong
                .push(format!("{}: {what} has {sig:?}, model/src/abi.rs has {:?} -> {:?}", e.name, e.params, e.ret)),
            Some(_) => {}
        }
    }
    for name in found.functions.keys() {
        if !ENTRIES.iter().any(|e| e.name == name) && !others.contains(&name.as_str()) {
            wrong.push(format!("{name}: in {what}, not in model/src/abi.rs"));
        }
    }
    let mut data = found.data.clone();
    data.sort();
    let mut want: Vec<_> = DATA.iter().map(|d| d.to_string()).collect();
    want.sort();
    if data != want {
        wrong.push(format!("data: {what} has {data:?}, model/src/abi.rs has {want:?}"));
    }
    wrong
}

#[test]
fn the_runtime_exports_the_table() {
    let found = rust_exports(concat!(env!("CARGO_MANIFEST_DIR"), "/src")).unwrap();
    assert!(found.functions.len() > 50, "too few exports read: {:?}", found.functions.keys());
    let wrong = differences(&found, "runtime/src", NOT_ENTRY_POINTS);
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn carve_rt_h_declares_the_table_each_with_a_comment() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/carve_rt.h")).unwrap();
    let found = header_declarations(&text).unwrap();
    let mut wrong = differences(&found, "carve_rt.h", &[]);
    wrong.extend(found.undocumented.iter().map(|n| format!("{n}: no comment in carve_rt.h")));
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn the_readers_see_what_they_should() {
    let h = header_declarations("#include <x.h>\n/* a */\nstruct s { int a; };\n/* f */\nvoid *f(const char *s, size_t n);\nint g(void);\nextern uint8_t d[4];\n").unwrap();
    assert_eq!(h.functions["f"], (alloc::vec![Ty::Ptr, Ty::I64], Ty::Ptr));
    assert_eq!(h.functions["g"], (Vec::new(), Ty::I32));
    assert_eq!(h.data, ["d"]);
    assert_eq!(h.undocumented, ["g"]);
    assert!(machine("struct option").is_err());
}
