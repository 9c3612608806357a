//! libFuzzer harnesses: `carve-clang -fsanitize=fuzzer` links our driver
//! instead of libFuzzer, so a harness runs files as libFuzzer does and
//! under bridge as any program does; its input is a binary block mapped
//! whole, and the solver finds a value a mutator rarely does.

use crate::util::*;
use std::process::Command;

const FLAGS: &[&str] = &["-g", "-fsanitize=fuzzer,address"];

#[test]
fn a_harness_runs_files_as_libfuzzer_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let h = carve_compile_with(&repo().join("bridge/tests/fixtures/harness.c"), d, FLAGS);
    let corpus = d.join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    std::fs::write(corpus.join("ok"), b"FUZZ\x03\0\0\0").unwrap();
    std::fs::write(corpus.join("short"), b"FU").unwrap();
    // Files and directories, libFuzzer's options skipped.
    let o = Command::new(&h).arg("-runs=1").arg(&corpus).arg(corpus.join("ok")).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bad = d.join("bad");
    std::fs::write(&bad, b"FUZZ\x10\0\0\0").unwrap();
    let o = Command::new(&h).arg(&bad).env("ASAN_OPTIONS", "detect_leaks=0").output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("global-buffer-overflow"), "{err}");
    // Standard input without a file.
    let mut child = Command::new(&h).stdin(std::process::Stdio::piped()).spawn().unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"FUZZ\x01\0\0\0").unwrap();
    assert!(child.wait().unwrap().success());
}

#[test]
fn a_harness_is_carved_and_its_off_by_one_solved_for() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let h = carve_compile_with(&repo().join("bridge/tests/fixtures/harness.c"), d, FLAGS);
    let p = h.to_str().unwrap();
    let units = d.join("units");
    let o = bridge(&["carve", "-o", units.to_str().unwrap(), "--", p, "@@"], b"FUZZ\x03\0\0\0");
    assert!(o.status.success(), "{}", stderr(&o));
    let carved = names(&units);
    assert!(carved.contains(&"LLVMFuzzerTestOneInput.0.unit".to_string()), "{carved:?}");
    let replay = bridge(&["replay", units.to_str().unwrap()], b"");
    assert!(stdout(&replay).contains(&format!("{n} of {n} replays faithful", n = carved.len())), "{}", stdout(&replay));
    // The input block is a parameter (binary: no text to look for), and
    // the length that overflows is solved for.
    let unit = units.join("LLVMFuzzerTestOneInput.0.unit");
    let out = d.join("out");
    let sum = bridge_json(
        &["explore", unit.to_str().unwrap(), "--tries", "20", "--json", "-o", out.to_str().unwrap(), "--", p, "@@"],
        b"",
    );
    assert_eq!(sum["units_with_params"], 1, "{sum}");
    assert!(sum["true_alarms"].as_u64().unwrap() >= 1, "{sum}");
    assert_eq!(std::fs::read(out.join("alarms/000000/input")).unwrap(), b"FUZZ\x10\0\0\0");
}
