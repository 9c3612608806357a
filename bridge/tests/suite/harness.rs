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

#[test]
fn a_harness_size_is_solved_for_and_lifted_as_the_input_length() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let h = carve_compile_with(&repo().join("bridge/tests/fixtures/harness_size.c"), d, &["-g", "-fsanitize=fuzzer"]);
    let p = h.to_str().unwrap();
    let units = d.join("units");
    let seed = b"SIZE and more";
    let o = bridge(&["carve", "--functions", "^check$", "-o", units.to_str().unwrap(), "--", p, "@@"], seed);
    assert!(o.status.success(), "{}", stderr(&o));
    // The input block (binary) and its size, as its length.
    let listed = stdout(&bridge(&["units", units.to_str().unwrap()], b""));
    assert!(listed.contains("1 length"), "{listed}");
    let unit = units.join("check.0.unit");
    let out = d.join("out");
    let sum = bridge_json(
        &["explore", unit.to_str().unwrap(), "--tries", "20", "--json", "-o", out.to_str().unwrap(), "--", p, "@@"],
        b"",
    );
    assert!(sum["true_alarms"].as_u64().unwrap() >= 1, "{sum}");
    // 333 bytes, the seed repeated from its start.
    let lifted = std::fs::read(out.join("alarms/000000/input")).unwrap();
    assert_eq!(lifted.len(), 333);
    assert!(lifted.starts_with(b"SIZE and moreSIZE"), "{:?}", String::from_utf8_lossy(&lifted[..40]));
}

/// A campaign on a harness whose process keeps state: one campaign in
/// persistent mode (the default), one with a fork per run. Returns the
/// campaign's stats, its kept crashes' sizes, the runs and the processes
/// they ran in (the runs that were their process's first).
fn stateful_campaign(
    d: &std::path::Path,
    h: &std::path::Path,
    persistent: &str,
) -> (serde_json::Value, Vec<u64>, usize, usize) {
    let seeds = d.join("seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    std::fs::write(seeds.join("a"), b"abcd").unwrap();
    let out = d.join(format!("out{persistent}"));
    let log = d.join(format!("log{persistent}"));
    let o = Command::new(env!("CARGO_BIN_EXE_bridge"))
        .args(["run", "--unit", "none", "--no-contain", "--time", "5s", "--seed", "1", "--persistent", persistent])
        .args([
            "-i".as_ref(),
            seeds.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
            "--".as_ref(),
            h.as_os_str(),
            "@@".as_ref(),
        ])
        .env("HARNESS_LOG", &log)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let counts = std::fs::read_to_string(&log).unwrap();
    let runs = counts.lines().count();
    let processes = counts.lines().filter(|&n| n == "1").count();
    let sizes = names(&out.join("crashes"))
        .iter()
        .filter(|n| n.starts_with("id:"))
        .map(|n| std::fs::metadata(out.join("crashes").join(n)).unwrap().len())
        .collect();
    (campaign_json(&out)["stats"].clone(), sizes, runs, processes)
}

#[test]
fn a_harness_child_runs_many_inputs_and_keeps_only_crashes_of_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let h = carve_compile_with(&repo().join("bridge/tests/fixtures/harness_state.c"), d, &["-g", "-fsanitize=fuzzer"]);
    let (stats, sizes, runs, processes) = stateful_campaign(d, &h, "1000");
    // Many runs per process, each its own map: the campaign goes on.
    assert!(runs > 1000 && processes * 20 < runs, "{runs} runs in {processes} processes");
    // Every 50th run of a process fails whatever its input: run again in
    // a fresh child it does not, and it is neither kept nor counted.
    let not_repeated = stats["crashes_not_repeated"].as_u64().unwrap();
    assert!(not_repeated * 60 >= runs as u64, "{not_repeated} of {runs}: {stats}");
    // The input's own failure is found and kept, and nothing else is.
    assert!(!sizes.is_empty() && sizes.iter().all(|&n| n >= 16), "{sizes:?}: {stats}");
    assert!(stats["crashes"].as_u64().unwrap() * 10 < runs as u64, "{stats}");

    // A fork per run: every run in its own process, and no failure of
    // the runs before.
    let (stats, sizes, runs, processes) = stateful_campaign(d, &h, "1");
    assert_eq!(runs, processes, "a process ran twice");
    assert_eq!(stats["crashes_not_repeated"], 0, "{stats}");
    assert!(!sizes.is_empty() && sizes.iter().all(|&n| n >= 16), "{sizes:?}: {stats}");
}

/// A C++ harness calls through `invoke` (a call with an unwind
/// destination) wherever an object with a destructor is alive: the callee
/// is carved all the same, the replay copies invoke each other, and the
/// solver finds the byte the record needs through the invoke.
#[test]
fn a_cpp_harness_is_carved_through_its_invokes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cxx = d.join("carve-clang++");
    std::os::unix::fs::symlink(tools_dir().join("carve-clang"), &cxx).unwrap();
    let h = d.join("harness_cpp");
    let src = repo().join("bridge/tests/fixtures/harness_cpp.cc");
    let o = Command::new(&cxx).args(["-O2", "-g", "-fsanitize=fuzzer", "-o"]).arg(&h).arg(&src).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let p = h.to_str().unwrap();
    let units = d.join("units");
    let o = bridge(&["carve", "-o", units.to_str().unwrap(), "--", p, "@@"], b"RECX");
    assert!(o.status.success(), "{}", stderr(&o));
    let carved = names(&units);
    assert!(carved.iter().any(|u| u.starts_with("_Z12check_recordPKhm.")), "{carved:?}");
    let unit = units.join("LLVMFuzzerTestOneInput.0.unit");
    let out = d.join("out");
    let sum = bridge_json(
        &["explore", unit.to_str().unwrap(), "--tries", "20", "--json", "-o", out.to_str().unwrap(), "--", p, "@@"],
        b"",
    );
    assert!(sum["true_alarms"].as_u64().unwrap() >= 1, "{sum}");
    assert_eq!(std::fs::read(out.join("alarms/000000/input")).unwrap(), b"REC\x7f");
}

/// A pointer just past its object (`data + size`) is that object's end,
/// not a raw address: the replay's `end` moves with the input's block, so
/// the walk from `data` to `end` replays as it ran.
#[test]
fn an_end_pointer_replays_with_its_object() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let h = carve_compile_with(&repo().join("bridge/tests/fixtures/harness_end.c"), d, &["-g", "-fsanitize=fuzzer"]);
    let units = d.join("units");
    let o = bridge(&["carve", "-o", units.to_str().unwrap(), "--", h.to_str().unwrap(), "@@"], b"a1b2c3d4");
    assert!(o.status.success(), "{}", stderr(&o));
    let carved = names(&units);
    assert!(carved.contains(&"count_digits.0.unit".to_string()), "{carved:?}");
    let list = stdout(&bridge(&["units", units.to_str().unwrap()], b""));
    let row = list.lines().find(|l| l.starts_with("count_digits.0.unit")).unwrap();
    // unit, function, bytes, objects, relocs, raw: no raw pointer.
    assert_eq!(row.split_whitespace().nth(5), Some("0"), "{list}");
    let replay = bridge(&["replay", units.to_str().unwrap()], b"");
    assert!(stdout(&replay).contains(&format!("{n} of {n} replays faithful", n = carved.len())), "{}", stdout(&replay));
    // Units replay on the program they were carved from: exploring them
    // against another build says so, once.
    let other = d.join("other");
    std::fs::copy(&h, &other).unwrap();
    let o = bridge(&["explore", units.to_str().unwrap(), "--tries", "1", "--", other.to_str().unwrap(), "@@"], b"");
    assert_eq!(stderr(&o).matches("was carved from").count(), 1, "{}", stderr(&o));
    let o = bridge(&["explore", units.to_str().unwrap(), "--tries", "1", "--", h.to_str().unwrap(), "@@"], b"");
    assert!(!stderr(&o).contains("was carved from"), "{}", stderr(&o));
}
