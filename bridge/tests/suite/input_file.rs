//! `main`'s input file as a parameter (`examples/records`): in symbolic
//! replay the bytes `main` reads from it (`fgets`, then `getc`) are
//! symbolic, so the solver writes a file no seed or mutation has, and the
//! lifter puts it back as the test's file part, or its stdin. Its command
//! line may get a word (`examples/check`: `-c`, then a file for it), and
//! a word read through an end pointer may grow (`examples/subst`).

use crate::util::*;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

/// Explores `unit` of `prog` (its arguments after the command line's)
/// with `generator` (`explore` or `fuzz-unit`); the summary.
fn explore(generator: &str, unit: &Path, prog: &Path, args: &[&str], out: &Path) -> serde_json::Value {
    explore_tries(generator, unit, prog, args, out, "60")
}

/// [`explore`] with another number of tries.
fn explore_tries(
    generator: &str,
    unit: &Path,
    prog: &Path,
    args: &[&str],
    out: &Path,
    tries: &str,
) -> serde_json::Value {
    let (u, p, o) = (unit.to_str().unwrap(), prog.to_str().unwrap(), out.to_str().unwrap());
    let mut a = vec![generator, u, "--args-in-input", "--tries", tries, "--json", "-o", o, "--", p];
    a.extend_from_slice(args);
    bridge_json(&a, b"")
}

/// The one alarm: a `halt` record whose value adds up to 500, in a file
/// otherwise the seed's; its system test.
fn the_halt_alarm(sum: &serde_json::Value, out: &Path) -> Vec<u8> {
    assert_eq!(sum["unique_true_alarms"].as_u64(), Some(1), "{sum}");
    let alarm = &sum["alarms"][0];
    assert_eq!(alarm["original_value"], "records 1\nname=widget\nsize=12\n", "{alarm}");
    assert_eq!(alarm["outcome"], "crash (signal 6, SIGABRT)", "{alarm}");
    let input = std::fs::read(out.join("alarms/000000/input")).unwrap();
    let halt = input.split(|&b| b == b'\n').find(|l| l.starts_with(b"halt=")).expect("a halt record");
    assert_eq!(halt[5..].iter().map(|&b| u32::from(b)).sum::<u32>(), 500, "{input:?}");
    input
}

#[test]
fn bytes_main_reads_from_its_file_are_solved_into_a_file_that_aborts() {
    let dir = tempfile::tempdir().unwrap();
    let prog = example("records", dir.path());
    let unit = carve_main(&prog, "examples/records/seeds/two", dir.path());
    let out = dir.path().join("out");
    let sum = explore("explore", &unit, &prog, &["@@"], &out);
    let input = the_halt_alarm(&sum, &out);
    // The system test reproduces from the command line: its file part is
    // the solved file.
    let st = run_test(&prog, &input, dir.path());
    assert_eq!(st.signal(), Some(6), "{input:?}");
    // The unit fuzzer, with the same tries, mutates the file blindly.
    let fuzz = explore("fuzz-unit", &unit, &prog, &["@@"], &dir.path().join("fuzz"));
    assert_eq!(fuzz["unique_true_alarms"].as_u64(), Some(0), "{fuzz}");
}

#[test]
fn bytes_main_reads_from_stdin_are_solved_too() {
    let dir = tempfile::tempdir().unwrap();
    let prog = example("records", dir.path());
    let (units, p) = (dir.path().join("units"), prog.to_str().unwrap());
    // No `@@`: the test's rest (after its empty command line) is stdin.
    let seed = b"\nrecords 1\nname=widget\nsize=12\n";
    let o =
        bridge(&["carve", "--args-in-input", "-o", units.to_str().unwrap(), "--functions", "^main$", "--", p], seed);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = dir.path().join("out");
    let sum = explore("explore", &units.join("main.0.unit"), &prog, &[], &out);
    let input = the_halt_alarm(&sum, &out);
    assert_eq!(input[0], b'\n', "the command line stays empty: {input:?}");
    let mut child = std::process::Command::new(&prog)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&input[1..]).unwrap();
    assert_eq!(child.wait().unwrap().signal(), Some(6), "{input:?}");
}

#[test]
fn a_campaign_explores_main_of_entry_after_entry_and_lifts_the_file_alarm() {
    let dir = tempfile::tempdir().unwrap();
    let prog = example("records", dir.path());
    let seeds = seeds_of("records", dir.path());
    let out = dir.path().join("out");
    let (s, o, p) = (seeds.to_str().unwrap(), out.to_str().unwrap(), prog.to_str().unwrap());
    let args = ["run", "--unit", "symbolic", "--args-in-input", "-i", s, "-o", o, "--time", "10s", "--", p, "@@"];
    let r = bridge(&args, b"");
    assert!(r.status.success(), "{}", stderr(&r));
    // main's rounds start from one entry after another: the seed, then
    // what the campaign found.
    let csv = std::fs::read_to_string(out.join("units.csv")).unwrap();
    let entries: std::collections::BTreeSet<&str> = csv
        .lines()
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|r| r[1] == "main" && r[3] == "start")
        .map(|r| r[2])
        .collect();
    assert!(entries.len() >= 2, "{csv}");
    // The halt record, solved in main's file, is a true alarm of main.
    let mut found = false;
    for a in std::fs::read_dir(out.join("alarms")).unwrap() {
        let a = a.unwrap().path();
        let report: serde_json::Value = serde_json::from_slice(&std::fs::read(a.join("report.json")).unwrap()).unwrap();
        if report["function"] == "main" && report["site"] == "the input file" {
            // Its command line (line 1) may be `@@` (main's own argv, lifted)
            // or empty (the target's `@@` alone).
            let input = std::fs::read(a.join("input")).unwrap();
            let st = run_test(&prog, &input, dir.path());
            assert_eq!(st.signal(), Some(6), "{input:?}");
            found = true;
        }
    }
    assert!(found, "{csv}");
    // Resumed without the flag, its tests still carry their command line.
    let r = bridge(&["run", "--resume", "-o", o, "--time", "12s", "--", p, "@@"], b"");
    assert!(r.status.success(), "{}", stderr(&r));
    assert!(stderr(&r).contains("resuming with --args-in-input"), "{}", stderr(&r));
}

/// The system test of the alarm with `outcome`: the words of its command
/// line (line 1, split as a shell splits it) and its file.
fn alarm_test(sum: &serde_json::Value, outcome: &str, out: &Path) -> (Vec<Vec<u8>>, Vec<u8>) {
    let alarm = sum["alarms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["outcome"] == outcome)
        .unwrap_or_else(|| panic!("no {outcome}: {sum}"));
    let id = alarm["id"].as_u64().unwrap();
    let input = std::fs::read(out.join(format!("alarms/{id:06}/input"))).unwrap();
    let (words, file) = exec::split_test(&input);
    (words, file.to_vec())
}

/// How `prog` ends on the system test `input` as a campaign with
/// `--args-in-input -- prog @@` runs it: the words of its line 1 (`@@` in
/// them for the file), then the file.
fn run_test(prog: &Path, input: &[u8], dir: &Path) -> std::process::ExitStatus {
    let (words, content) = exec::split_test(input);
    let file = dir.join("file");
    std::fs::write(&file, content).unwrap();
    let argv = words.iter().map(|w| std::ffi::OsString::from_vec(exec::substitute(w, file.as_os_str().as_bytes())));
    std::process::Command::new(prog).args(argv).arg(&file).output().unwrap().status
}

/// The signal `prog WORD FILE` ends with (`word` as one argument).
fn signal_of(prog: &Path, word: &[u8], file: &[u8], dir: &Path) -> Option<i32> {
    let path = dir.join("file");
    std::fs::write(&path, file).unwrap();
    let st =
        std::process::Command::new(prog).arg(std::ffi::OsStr::from_bytes(word)).arg(&path).output().unwrap().status;
    st.signal()
}

#[test]
fn an_option_no_word_could_become_is_added_then_the_file_is_solved_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let prog = example("check", dir.path());
    // The seed's command line is empty; `@@` is the target's own word.
    let unit = carve_main(&prog, "examples/check/seeds/numbers", dir.path());
    let out = dir.path().join("out");
    let sum = explore("explore", &unit, &prog, &["@@"], &out);
    // A new word: `-`, then `-c` (getopt's model), then a `sum:` line
    // first in the file: the division by a count of zero.
    let (words, file) = alarm_test(&sum, "crash (signal 8, SIGFPE)", &out);
    assert_eq!(words, [b"-c"], "{words:?}");
    assert!(file.starts_with(b"sum:"), "{file:?}");
    // It reproduces: the word before the target's `@@`.
    assert_eq!(signal_of(&prog, b"-c", &file, dir.path()), Some(8), "{file:?}");
    // The unit fuzzer, with the same tries, would have to write both
    // blindly.
    let fuzz = explore("fuzz-unit", &unit, &prog, &["@@"], &dir.path().join("fuzz"));
    assert_eq!(fuzz["unique_true_alarms"].as_u64(), Some(0), "{fuzz}");
}

#[test]
fn a_word_read_up_to_an_end_pointer_grows_by_the_flag_it_needs() {
    let dir = tempfile::tempdir().unwrap();
    let prog = example("subst", dir.path());
    let unit = carve_main(&prog, "examples/subst/seeds/fruit", dir.path());
    let out = dir.path().join("out");
    // (The order of solutions varies with the solver thread's pace:
    // 150 tries leave room for it.)
    let sum = explore_tries("explore", &unit, &prog, &["@@"], &out, "150");
    // `s/a/b/g` is read through `cur < end` (`end`: the script plus its
    // length): that compare, symbolic, lets it grow, a byte at a time,
    // past where any run read it, and a grown byte is solved into `I`.
    // (The first alarm may come from a script that grew by another flag
    // first, and the delimiter may have been solved into another byte.)
    let (words, file) = alarm_test(&sum, "crash (signal 6, SIGABRT)", &out);
    let [script] = &words[..] else { panic!("{words:?}") };
    assert!(script.len() > b"s/a/b/g".len() && !script.contains(&0), "{script:?}");
    let parts: Vec<&[u8]> = script[2..].split(|&b| b == script[1]).collect();
    let [from, to, flags] = parts[..] else { panic!("{script:?}") };
    assert!(script[0] == b's' && !from.is_empty() && !to.is_empty(), "{script:?}");
    assert!(flags.contains(&b'g') && flags.contains(&b'I'), "{script:?}");
    assert!(flags.iter().all(|b| b"gpI".contains(b)), "{script:?}");
    // It reproduces.
    assert_eq!(signal_of(&prog, script, &file, dir.path()), Some(6), "{script:?}");
    // The unit fuzzer, with the same tries, does not write that byte.
    let fuzz = explore_tries("fuzz-unit", &unit, &prog, &["@@"], &dir.path().join("fuzz"), "150");
    assert_eq!(fuzz["unique_true_alarms"].as_u64(), Some(0), "{fuzz}");
}
