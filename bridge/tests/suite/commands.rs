//! `bridge showmap`, `bridge exec` and the workspace layout: real programs built
//! with carve-clang, run through the real fork server.

use crate::util::*;
use std::time::{Duration, Instant};

fn edges_of(prog: &str, args: &[&str], input: &[u8]) -> Vec<String> {
    let mut a = vec!["showmap", "--edges-only", "--", prog];
    a.extend_from_slice(args);
    let o = bridge(&a, input);
    assert!(o.status.success(), "showmap failed: {}", stderr(&o));
    stdout(&o).lines().map(String::from).collect()
}

#[test]
fn showmap_is_deterministic_and_discriminating() {
    let dir = tempfile::tempdir().unwrap();
    let calc = example("calc", dir.path());
    let calc = calc.to_str().unwrap();
    let a1 = edges_of(calc, &[], b"2 3 + p\n");
    let a2 = edges_of(calc, &[], b"2 3 + p\n");
    assert!(!a1.is_empty());
    assert_eq!(a1, a2, "same input, same edges");
    let b = edges_of(calc, &[], b"5 0 /\n");
    assert_ne!(a1, b, "division by zero takes other branches");
    let c = edges_of(calc, &[], b"2 3 * p\n");
    assert_ne!(a1, c, "* and + are different switch edges");
}

#[test]
fn showmap_reads_files_through_at_at() {
    let dir = tempfile::tempdir().unwrap();
    let csv = example("csvstat", dir.path());
    let csv = csv.to_str().unwrap();
    let plain = edges_of(csv, &["@@"], b"a,b\n1,2\n");
    let tab = edges_of(csv, &["-t", "@@"], b"a\tb\n1\t2\n");
    assert!(!plain.is_empty());
    assert_ne!(plain, tab);
    let o = bridge(&["showmap", "--", csv, "@@"], b"1,2\n");
    assert!(stderr(&o).contains("exit 0"), "{}", stderr(&o));
}

#[test]
fn exec_finds_the_crash_and_it_reproduces() {
    let dir = tempfile::tempdir().unwrap();
    let magic = example("magic", dir.path());
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    for f in ["seeds/ok", "seeds/show", "crash.input"] {
        let src = repo().join("examples/magic").join(f);
        std::fs::copy(&src, corpus.join(src.file_name().unwrap())).unwrap();
    }
    let sum = exec_json(&corpus, &[], &[magic.to_str().unwrap(), "@@"]);
    assert_eq!(sum["crashes"], 1);
    assert_eq!(sum["exit_zero"], 2);
    let crashing = sum["crashing_inputs"][0].as_str().unwrap();
    assert!(crashing.contains("crash.input") && crashing.contains("SIGSEGV"), "{crashing}");
    // Run directly, without bridge: the same crash.
    let st = std::process::Command::new(&magic).arg(corpus.join("crash.input")).status().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(st.signal(), Some(libc_sigsegv()));
    assert!(sum["edges"].as_u64().unwrap() > 0 && sum["edges"].as_u64() <= sum["edges_total"].as_u64());
    let (b, bt) = (sum["branches"].as_u64().unwrap(), sum["branches_total"].as_u64().unwrap());
    assert!(b > 0 && b < bt && bt < sum["edges_total"].as_u64().unwrap(), "{sum}");
}

fn libc_sigsegv() -> i32 {
    11
}

#[test]
fn hangs_are_timeouts_and_do_not_stall() {
    let dir = tempfile::tempdir().unwrap();
    let hang = fixture("hang", dir.path());
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    std::fs::write(corpus.join("a_loop"), "loop\n").unwrap();
    std::fs::write(corpus.join("b_fine"), "fine\n").unwrap();
    let start = Instant::now();
    let sum = exec_json(&corpus, &["-t", "200"], &[hang.to_str().unwrap()]);
    assert_eq!(sum["timeouts"], 1);
    assert_eq!(sum["exit_zero"], 1);
    assert!(sum["hanging_inputs"][0].as_str().unwrap().ends_with("a_loop"));
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn children_left_behind_are_killed_and_exit_codes_kept() {
    let dir = tempfile::tempdir().unwrap();
    let forker = fixture("forker", dir.path());
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    for i in 0..5 {
        std::fs::write(corpus.join(format!("in{i}")), format!("{i}")).unwrap();
    }
    let start = Instant::now();
    let sum = exec_json(&corpus, &[], &[forker.to_str().unwrap()]);
    assert_eq!(sum["exit_nonzero"], 5);
    assert!(start.elapsed() < Duration::from_secs(10), "the sleeping children must not hold bridge");
    // No sleeping child survives: they were in the run's process group.
    let ps = std::process::Command::new("pgrep").arg("-f").arg(forker.to_str().unwrap()).output().unwrap();
    assert!(ps.stdout.is_empty(), "left-over children: {}", String::from_utf8_lossy(&ps.stdout));
}

#[test]
fn memory_hogs_meet_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let hog = fixture("hog", dir.path());
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    std::fs::write(corpus.join("x"), "x").unwrap();
    let sum = exec_json(&corpus, &["-m", "256", "-t", "5000"], &[hog.to_str().unwrap()]);
    assert_eq!(sum["exit_nonzero"], 1, "{sum}");
}

#[test]
fn unreadable_corpus_files_are_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let calc = example("calc", dir.path());
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    std::fs::write(corpus.join("good"), "1 2 + p").unwrap();
    std::os::unix::fs::symlink(dir.path().join("nowhere"), corpus.join("dangling")).unwrap();
    let o = bridge(&["exec", "--json", "-c", corpus.to_str().unwrap(), "--", calc.to_str().unwrap()], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("skipping") && stderr(&o).contains("dangling"), "{}", stderr(&o));
    let sum: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(sum["runs"], 1);
    assert_eq!(sum["unreadable"].as_array().unwrap().len(), 1);
}

#[test]
fn bad_targets_get_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    std::fs::write(corpus.join("x"), "x").unwrap();
    let c = corpus.to_str().unwrap();

    let o = bridge(&["exec", "-c", c, "--", "/nonexistent/prog"], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("not found"), "{}", stderr(&o));

    let o = bridge(&["exec", "-c", c, "--", "true"], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("carve-clang"), "uninstrumented target: {}", stderr(&o));

    let early = fixture("early_crash", dir.path());
    let o = bridge(&["exec", "-c", c, "--", early.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(1));
    // A crash before main is told from a binary built without carve-clang.
    let err = stderr(&o);
    assert!(err.contains("is built with carve-clang, but ended (signal: 11 (SIGSEGV)) before it started"), "{err}");

    let o = bridge(&["exec", "-c", "/nonexistent/corpus", "--", "true"], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot read corpus directory"), "{}", stderr(&o));
}

/// Stages never depend on each other: they exchange `model` types and only
/// `bridge` puts them together (ARCHITECTURE.md).
#[test]
fn workspace_layers_hold() {
    let o = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(o.status.success());
    let meta: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let allowed: &[(&str, &[&str])] = &[
        ("model", &[]),
        ("instrument", &["model"]),
        // (The runtime is a workspace of its own; it compiles `model`'s
        // `core`-only files by path.)
        ("exec", &["model"]),
        ("driver", &["model", "exec"]),
        ("carver", &["model", "grammar"]),
        ("systemgen", &["model", "grammar", "provenance", "gnast"]),
        ("gnast", &["model"]),
        ("unitgen", &["model", "exec"]),
        ("lifter", &["model", "exec", "provenance"]),
        ("review", &["model", "exec"]),
        ("provenance", &["model"]),
        ("grammar", &["model"]),
        (
            "engine",
            &[
                "model",
                "exec",
                "driver",
                "carver",
                "unitgen",
                "lifter",
                "systemgen",
                "gnast",
                "grammar",
                "provenance",
                "review",
            ],
        ),
        (
            "bridge",
            &[
                "engine",
                "model",
                "exec",
                "driver",
                "carver",
                "unitgen",
                "lifter",
                "instrument",
                "systemgen",
                "grammar",
                "provenance",
                "review",
            ],
        ),
    ];
    let ours: Vec<&str> = allowed.iter().map(|(n, _)| *n).collect();
    for pkg in meta["packages"].as_array().unwrap() {
        let name = pkg["name"].as_str().unwrap();
        let (_, ok) = allowed
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("crate {name} is not in the layer table"));
        for dep in pkg["dependencies"].as_array().unwrap() {
            let dep = dep["name"].as_str().unwrap();
            if ours.contains(&dep) {
                assert!(ok.contains(&dep), "{name} must not depend on {dep}");
            }
        }
    }
}

#[test]
fn tests_can_carry_their_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let csv = example("csvstat", dir.path());
    let csv = csv.to_str().unwrap();
    let run = |test: &[u8], tail: &[&str]| {
        let mut a = vec!["showmap", "--show-output", "--args-in-input", "--", csv];
        a.extend_from_slice(tail);
        let o = bridge(&a, test);
        assert!(o.status.success(), "{}", stderr(&o));
        (stdout(&o), stderr(&o))
    };
    // The same content read with and without -t: other columns, other edges.
    let (tab, _) = run(b"-t @@\na\tb\n1\t2\n", &[]);
    assert!(tab.contains("2 columns"), "{tab}");
    let (comma, _) = run(b"@@\na\tb\n1\t2\n", &[]);
    assert!(comma.contains("1 columns"), "{comma}");
    // Arguments of the line come before the fixed ones; quoting as in a shell.
    let (quoted, _) = run(b"'-t'\na\tb\n", &["@@"]);
    assert!(quoted.contains("2 columns"), "{quoted}");
    // No arguments at all: the program's own usage error, not ours.
    let (_, err) = run(b"\n", &[]);
    assert!(err.contains("exit 1"), "{err}");
}

#[test]
fn runs_are_contained() {
    let dir = tempfile::tempdir().unwrap();
    let writer = fixture("writer", dir.path());
    let private = dir.path().join("private");
    std::fs::create_dir(&private).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    std::fs::write(corpus.join("a"), format!("{}/victim\n", private.display())).unwrap();
    std::fs::write(corpus.join("b_big"), "big\n").unwrap();
    let cwd = dir.path().join("cwd");
    std::fs::create_dir(&cwd).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_bridge"))
        .current_dir(&cwd)
        .args(["exec", "--json", "-c", corpus.to_str().unwrap(), "--", writer.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let sum: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // 200 MiB is past the file-size limit: a resource limit, not a crash.
    assert_eq!(sum["resource_limits"], 1, "{sum}");
    assert_eq!(sum["crashes"], 0, "{sum}");
    assert_eq!(std::fs::read_dir(&cwd).unwrap().count(), 0, "the target wrote into bridge's directory");
    // SAFETY: geteuid cannot fail.
    if unsafe { libc_geteuid() } == 0 {
        assert_eq!(sum["exit_nonzero"], 1);
        assert!(!private.join("victim").exists(), "as root, targets run unprivileged");
    }
}

extern "C" {
    #[link_name = "geteuid"]
    fn libc_geteuid() -> u32;
}

/// A reader that stops reading ends `bridge` quietly, by SIGPIPE, as it
/// ends a C tool: no panic message.
#[test]
fn a_closed_pipe_ends_commands_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let calc = example("calc", dir.path());
    let units = dir.path().join("units");
    let o = bridge(&["carve", "-o", units.to_str().unwrap(), "--", calc.to_str().unwrap()], b"2 3 + p\n");
    assert!(o.status.success(), "{}", stderr(&o));
    // A pipe whose reader is gone before the command writes a byte.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bridge"))
        .args(["units", units.to_str().unwrap()])
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{err}");
    assert_eq!(out.status.signal(), Some(13), "SIGPIPE expected: {:?} {err}", out.status);
}
