//! `bridge run --system grammar`: tests derived from a grammar learned
//! from the seeds, each with its derivation tree beside it, traced back to
//! a seed; clear errors for a bad grammar.

use crate::util::*;
use std::path::Path;

/// The text a tree (as the campaign writes it) derives: its terminals in
/// order, each inside its parent's span.
fn text_of(tree: &serde_json::Value) -> Vec<u8> {
    let nodes = tree["nodes"].as_array().unwrap();
    let mut out = Vec::new();
    for n in nodes {
        if let Some(p) = n["parent"].as_u64() {
            let (s, e) = (nodes[p as usize]["start"].as_u64().unwrap(), nodes[p as usize]["end"].as_u64().unwrap());
            assert!(s <= n["start"].as_u64().unwrap() && n["start"].as_u64().unwrap() <= e, "{n}");
        }
        if let Some(t) = n["t"].as_str() {
            assert_eq!(n["start"].as_u64().unwrap() as usize, out.len());
            out.extend_from_slice(t.as_bytes());
        }
    }
    out
}

fn run_grammar(prog: &Path, seeds: &Path, out: &Path, mode: &str, unit: &str, time: &str) -> std::process::Output {
    let g = repo().join("examples/interp/grammar.json");
    bridge(
        &[
            "run",
            "--system",
            "grammar",
            "--grammar",
            g.to_str().unwrap(),
            "--mode",
            mode,
            "--unit",
            unit,
            "--time",
            time,
            "-i",
            seeds.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--",
            prog.to_str().unwrap(),
            "@@",
        ],
        b"",
    )
}

/// interp's seeds never show a variable in binary: the inverted grammar
/// gives its unseen `bin` format the mass of the seen ones, and finds the
/// NULL printer behind it. Unit parameters map to derivation nodes: a
/// third seed has `dec` and `nn` inside a comment's word too, which are
/// no nodes and are dropped.
#[test]
fn an_inverted_grammar_finds_what_the_seeds_never_do_and_keeps_every_tree() {
    let dir = tempfile::tempdir().unwrap();
    let prog = example("interp", dir.path());
    let seeds = seeds_of("interp", dir.path());
    std::fs::write(seeds.join("chance"), "set nn 5\n# decnn\nshow nn dec\nget nn\n").unwrap();
    let out = dir.path().join("out");
    let o = run_grammar(&prog, &seeds, &out, "inverse", "symbolic", "8s");
    assert!(o.status.success(), "{:?}: {}{}", o.status, stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("3 of 3 seeds parse"), "{}", stderr(&o));
    let c: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("campaign.json")).unwrap()).unwrap();
    let stat = |k: &str| c["stats"][k].as_u64().unwrap();
    assert!(stat("params_on_nodes") >= 1 && stat("occurrences_off_nodes") >= 1, "{:#}", c["stats"]);

    // Every entry (the seeds too) has its tree beside it, deriving its bytes.
    let mut made = 0;
    for e in std::fs::read_dir(out.join("queue")).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        let tree_file = out.join("trees/queue").join(format!("{name}.json"));
        match name.split(",op:").nth(1) {
            // A lift has its tree when the grammar derives it.
            Some(op) if op.starts_with("lift_") && !tree_file.exists() => continue,
            Some(op) if op.starts_with("lift_") => {}
            Some(op) => {
                assert!(op == "gen" || op.starts_with("regen.") || op.starts_with("splice."), "{name}");
                made += 1;
            }
            None => {}
        }
        let tree: serde_json::Value = serde_json::from_slice(&std::fs::read(&tree_file).unwrap()).unwrap();
        assert_eq!(tree["nodes"][0]["nt"], "<start>");
        assert_eq!(text_of(&tree), std::fs::read(e.path()).unwrap(), "{name}");
    }
    assert!(made >= 5, "{made} entries made by the grammar");

    // The crash of `show NAME bin`, kept with its tree.
    let crashes: Vec<_> = std::fs::read_dir(out.join("crashes")).unwrap().map(|e| e.unwrap().path()).collect();
    let show_bin = crashes.iter().find(|p| {
        let t = String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
        t.lines().any(|l| l.starts_with("show ") && l.ends_with(" bin"))
    });
    let show_bin = show_bin.unwrap_or_else(|| panic!("no `show NAME bin` crash among {crashes:?}"));
    let name = show_bin.file_name().unwrap().to_string_lossy();
    assert!(out.join("trees/crashes").join(format!("{name}.json")).is_file());

    // Every test traces back to a seed.
    let p = bridge_json(&["provenance", "--json", out.to_str().unwrap()], b"");
    assert_eq!(p["unresolved"], 0, "{p:#}");
    let ops: Vec<String> = p["operators"].as_array().unwrap().iter().map(|s| s["name"].to_string()).collect();
    assert!(ops.iter().any(|o| o.contains("regen.")), "{ops:?}");

    // A resumed campaign keeps its grammar and mode.
    let r = bridge(
        &["run", "--resume", "--time", "10s", "-o", out.to_str().unwrap(), "--", prog.to_str().unwrap(), "@@"],
        b"",
    );
    assert!(r.status.success(), "{}", stderr(&r));
    let c: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("campaign.json")).unwrap()).unwrap();
    assert_eq!(c["config"]["system"], "grammar");
    assert_eq!(c["config"]["grammar_mode"], "inverse");
}

#[test]
fn a_bad_grammar_or_a_missing_one_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = seeds_of("interp", dir.path());
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\n  \"<start>\": [\"<cmd>\"],\n  \"<cmd>\": [\"<nope>\"]\n}\n").unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "--unit", "none", "--time", "1s", "-i", seeds.to_str().unwrap()];
        let out = dir.path().join(format!("out{}", extra.len()));
        args.extend_from_slice(&["-o", out.to_str().unwrap()]);
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--", "/bin/true", "@@"]);
        let o = bridge(&args, b"");
        assert!(!o.status.success());
        assert!(!out.join("campaign.json").exists(), "nothing is started");
        stderr(&o)
    };
    let e = run(&["--system", "grammar", "--grammar", bad.to_str().unwrap()]);
    assert!(e.contains("line 3") && e.contains("<cmd>") && e.contains("<nope>"), "{e}");
    let e = run(&["--system", "grammar"]);
    assert!(e.contains("--grammar"), "{e}");
    let e = run(&["--system", "grammar", "--grammar", bad.to_str().unwrap(), "--mode", "hell"]);
    assert!(e.contains("known: uniform, learned, inverse, mixed"), "{e}");
}

/// A grammar that writes `@@` derives a command line: without
/// `--args-in-input` the campaign says that its tests' first line is input.
#[test]
fn a_grammar_of_command_lines_without_args_in_input_is_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = seeds_of("interp", dir.path());
    let lines = dir.path().join("lines.json");
    std::fs::write(&lines, "{\"<start>\": [\"-v @@\\n<cmd>\"], \"<cmd>\": [\"get x\\n\"]}").unwrap();
    let plain = dir.path().join("plain.json");
    std::fs::write(&plain, "{\"<start>\": [\"<cmd>\"], \"<cmd>\": [\"get x\\n\"]}").unwrap();
    let run = |grammar: &Path, extra: &[&str], out: &str| {
        let mut args = vec!["run", "--unit", "none", "--time", "1s", "-i", seeds.to_str().unwrap()];
        let out = dir.path().join(out);
        args.extend_from_slice(&["-o", out.to_str().unwrap(), "--system", "grammar"]);
        args.extend_from_slice(&["--grammar", grammar.to_str().unwrap()]);
        args.extend_from_slice(extra);
        // Not instrumented: the run ends at the fork server, after the check.
        args.extend_from_slice(&["--", "/bin/true", "@@"]);
        stderr(&bridge(&args, b""))
    };
    let warned = |e: &str| e.contains("writes `@@`") && e.contains("--args-in-input");
    let e = run(&lines, &[], "a");
    assert!(warned(&e), "{e}");
    let e = run(&lines, &["--args-in-input"], "b");
    assert!(!warned(&e) && e.contains("fork server"), "{e}");
    let e = run(&plain, &[], "c");
    assert!(!warned(&e) && e.contains("fork server"), "{e}");
}

/// "Inputs from Hell"'s worked example through the command line: the
/// arithmetic grammar learned from `1+(2*3)` has the probabilities of the
/// paper's Figure 3, and inverts to those of its Figure 5.
#[test]
fn bridge_grammar_learns_and_inverts_the_papers_example() {
    let dir = tempfile::tempdir().unwrap();
    let g = repo().join("examples/arith/grammar.json");
    let sample = dir.path().join("sample");
    std::fs::write(&sample, "1+(2*3)").unwrap();
    let line = |mode: &str, nt: &str| {
        let o = bridge(&["grammar", g.to_str().unwrap(), "--samples", sample.to_str().unwrap(), "--mode", mode], b"");
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o).lines().find(|l| l.starts_with(&format!("{nt} ::="))).unwrap().to_string()
    };
    assert_eq!(
        line("learned", "<expr>"),
        r#"<expr> ::= <term> 66.7% (2) | <expr>"+"<term> 33.3% (1) | <expr>"-"<term> 0.0% (0)"#
    );
    assert_eq!(
        line("learned", "<factor>"),
        r#"<factor> ::= <int> 75.0% (3) | "+"<factor> 0.0% (0) | "-"<factor> 0.0% (0) | "("<expr>")" 25.0% (1)"#
    );
    assert_eq!(
        line("inverse", "<factor>"),
        r#"<factor> ::= <int> 0.0% (3) | "+"<factor> 50.0% (0) | "-"<factor> 50.0% (0) | "("<expr>")" 0.0% (1)"#
    );
    assert!(line("inverse", "<digit>").contains(r#""0" 14.3% (0) | "1" 0.0% (1)"#));
    // Generated inputs parse, and the inverted ones use no seen digit.
    let out = dir.path().join("gen");
    let o = bridge(
        &["grammar", g.to_str().unwrap(), "--samples", sample.to_str().unwrap(), "--mode", "inverse", "-n", "50", "-o"],
        b"",
    );
    assert!(!o.status.success(), "-o needs a directory");
    let o = bridge(
        &[
            "grammar",
            g.to_str().unwrap(),
            "--samples",
            sample.to_str().unwrap(),
            "--mode",
            "inverse",
            "-n",
            "50",
            "-o",
            out.to_str().unwrap(),
        ],
        b"",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    for e in std::fs::read_dir(&out).unwrap() {
        let t = std::fs::read(e.unwrap().path()).unwrap();
        assert!(!t.iter().any(|b| b"123".contains(b)), "{}", String::from_utf8_lossy(&t));
    }
}
