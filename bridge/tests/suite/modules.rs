//! `examples/script`, a program of two modules compiled one file at a
//! time: symbolic replay follows a call into another module's clone, and
//! falls back to the concrete function when that module was built without
//! carve-clang; a replayed `main` reads the file the carving run read.

use crate::util::*;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

/// Carves `script`'s main from its seed and explores it; the summary.
fn explore_main(prog: &Path, dir: &Path) -> serde_json::Value {
    let p = prog.to_str().unwrap();
    let unit = carve_main(prog, "examples/script/seeds/upper", dir);
    let out = dir.join("out");
    let (u, o) = (unit.to_str().unwrap(), out.to_str().unwrap());
    let args = ["explore", u, "--args-in-input", "--tries", "60", "--json", "-o", o, "--", p, "@@"];
    bridge_json(&args, b"")
}

#[test]
fn main_reaches_the_interpreter_in_another_module_and_its_alarm_reproduces() {
    let dir = tempfile::tempdir().unwrap();
    let prog = example_by_parts("script", dir.path(), &[]);
    let sum = explore_main(&prog, dir.path());
    // The script word (main's parameter) steers compile() in commands.c:
    // past the command switch's default, a doubled capital crashes; `x`
    // aborts when run() meets it on a line.
    // (An alarm is kept per parameter changed first: the file may carry
    // one of the two too.)
    let alarms = sum["alarms"].as_array().unwrap();
    let mut signals = Vec::new();
    for alarm in alarms {
        let k = alarm["id"].as_u64().unwrap();
        let input = std::fs::read(dir.path().join(format!("out/alarms/{k:06}/input"))).unwrap();
        let line = String::from_utf8_lossy(input.split(|&b| b == b'\n').next().unwrap()).into_owned();
        let script = line.split(' ').skip_while(|w| *w != "-e").nth(1).expect("-e SCRIPT").as_bytes().to_vec();
        let signal = if script.contains(&b'x') {
            6
        } else {
            assert!(script.windows(2).any(|w| w[0].is_ascii_uppercase() && w[0] == w[1]), "{alarm}");
            11
        };
        let file = dir.path().join("file");
        std::fs::write(&file, &input[line.len() + 1..]).unwrap();
        let st = std::process::Command::new(&prog).args(line.split(' ')).arg(&file).output().unwrap().status;
        assert_eq!(st.signal(), Some(signal), "{line} does not reproduce");
        signals.push(signal);
    }
    assert!(signals.contains(&6) && signals.contains(&11), "{sum}");
    assert!(alarms.iter().any(|a| a["original_value"] == "p;u;k"), "{sum}");
}

#[test]
fn a_replayed_main_reads_the_file_the_carving_run_read() {
    let dir = tempfile::tempdir().unwrap();
    let prog = example_by_parts("script", dir.path(), &[]);
    let p = prog.to_str().unwrap();
    let units = dir.path().join("units");
    // `x` aborts on the file's first line: the carving run aborts there,
    // after main's snapshot.
    let o = bridge(&["carve", "--args-in-input", "-o", units.to_str().unwrap(), "--", p, "@@"], b"-e x\nhello\n");
    assert!(stderr(&o).contains("SIGABRT"), "{}", stderr(&o));
    // The carving run's file went with its run; the unit runner puts it
    // back, so main replayed as carved aborts as it did (without the
    // file it would end early, "cannot read"): reported, not explored.
    let unit = units.join("main.0.unit");
    let o =
        bridge(&["fuzz-unit", unit.to_str().unwrap(), "--args-in-input", "--tries", "5", "--json", "--", p, "@@"], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    let sum: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(sum["units_unreplayable"].as_u64(), Some(1), "{sum}");
    assert!(stderr(&o).contains("ends in crash (signal 6, SIGABRT)"), "{}", stderr(&o));
}

#[test]
fn a_module_built_without_carve_clang_runs_concretely_under_symbolic_replay() {
    let dir = tempfile::tempdir().unwrap();
    let prog = example_by_parts("script", dir.path(), &["commands.c"]);
    let sum = explore_main(&prog, dir.path());
    // Links, replays and explores main's options; the interpreter's
    // branches are out of sight, so neither of its crashes is found.
    assert!(sum["unit_tries"].as_u64().unwrap() >= 2, "{sum}");
    assert_eq!(sum["unit_failures"].as_u64(), Some(0), "{sum}");
    assert_eq!(sum["unique_true_alarms"].as_u64(), Some(0), "{sum}");
}
