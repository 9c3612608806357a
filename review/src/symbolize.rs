//! Places to source frames with `llvm-symbolizer-19` (one process for a
//! batch; its JSON output lists inlined functions as frames of their own,
//! so a function the optimiser inlined still names the bug). Without a
//! symbolizer, or without debug information, a frame is named by its
//! module and offset.

use crate::stack::Place;
use model::alarm::Frame;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The symbolizer: `CARVE_SYMBOLIZER`, else `llvm-symbolizer-19` on the
/// PATH, else LLVM 19's own directory. `None` when there is none.
pub fn find() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(model::env::SYMBOLIZER) {
        return Some(PathBuf::from(p));
    }
    let on_path = std::env::var_os("PATH").into_iter().flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>());
    on_path
        .map(|d| d.join("llvm-symbolizer-19"))
        .chain([PathBuf::from("/usr/lib/llvm-19/bin/llvm-symbolizer")])
        .find(|p| p.is_file())
}

/// The frames of `places` (innermost first; `pc`: the first is the
/// interrupted instruction, the others return addresses, looked up one
/// byte back so a call's own line is named). `program` stands for `-`.
pub fn frames(symbolizer: Option<&Path>, program: &Path, places: &[Place], pc: bool) -> Vec<Frame> {
    let lookups: Vec<(String, u64)> = places
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let module = match p.module.as_str() {
                "-" => program.display().to_string(),
                m => m.trim_start_matches('+').to_string(),
            };
            let back = u64::from(k > 0 || !pc);
            (module, p.offset.saturating_sub(back))
        })
        .collect();
    let answers = symbolizer.and_then(|s| ask(s, &lookups)).unwrap_or_default();
    let mut out = Vec::new();
    for (k, p) in places.iter().enumerate() {
        let named: Vec<Frame> = answers.get(k).into_iter().flatten().cloned().collect();
        if named.is_empty() || named.iter().all(|f| f.function == "??" || f.function.is_empty()) {
            let function = format!("{}+0x{:x}", short(&p.module), p.offset);
            out.push(Frame { function, file: None, line: None, module: p.module.clone() });
        } else {
            out.extend(named.into_iter().map(|f| Frame { module: p.module.clone(), ..f }));
        }
    }
    out
}

fn short(module: &str) -> &str {
    if module == "-" {
        "program"
    } else {
        module.rsplit('/').next().unwrap_or(module).trim_start_matches('+')
    }
}

/// One symbolizer run over every lookup: per lookup, its frames
/// (innermost inlined function first).
fn ask(symbolizer: &Path, lookups: &[(String, u64)]) -> Option<Vec<Vec<Frame>>> {
    let mut child = Command::new(symbolizer)
        .args(["--output-style=JSON", "--inlining=true"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut input = String::new();
    for (module, offset) in lookups {
        input.push_str(&format!("\"{module}\" 0x{offset:x}\n"));
    }
    let mut stdin = child.stdin.take()?;
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().ok()?;
    let _ = writer.join();
    let text = String::from_utf8_lossy(&out.stdout);
    let answers: Vec<Vec<Frame>> = text.lines().filter(|l| l.starts_with('{')).map(parse_answer).collect();
    (answers.len() == lookups.len()).then_some(answers)
}

fn parse_answer(line: &str) -> Vec<Frame> {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else { return Vec::new() };
    let symbols = v["Symbol"].as_array().cloned().unwrap_or_default();
    symbols
        .iter()
        .map(|s| {
            let file = s["FileName"].as_str().filter(|f| !f.is_empty()).map(str::to_string);
            let line = s["Line"].as_u64().filter(|&l| l > 0).map(|l| l as u32);
            let function = s["FunctionName"].as_str().unwrap_or("??").to_string();
            Frame { function, file: file.filter(|_| line.is_some()), line, module: String::new() }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_give_inlined_frames_and_unknowns_their_place() {
        let line = r#"{"Address":"0x6481","ModuleName":"p","Symbol":[{"FileName":"p.c","FunctionName":"push_one","Line":221},{"FileName":"p.c","FunctionName":"main","Line":312}]}"#;
        let f = parse_answer(line);
        assert_eq!((f[0].function.as_str(), f[0].line, f[1].function.as_str()), ("push_one", Some(221), "main"));
        let unknown = r#"{"Address":"0x1","Symbol":[{"FileName":"","FunctionName":"??","Line":0}]}"#;
        assert_eq!(parse_answer(unknown)[0].file, None);
        // No symbolizer: a frame is its module and offset.
        let places = [Place { module: "/lib/libc.so.6".into(), offset: 0x10 }];
        let f = frames(None, Path::new("p"), &places, true);
        assert_eq!(f[0].function, "libc.so.6+0x10");
    }
}
