//! End-to-end test of the bridge with the unit fuzzer: carve, map, fuzz,
//! lift, and keep only what reproduces on the whole program.

use crate::util::*;

#[test]
fn boundary_bugs_are_lifted_to_true_alarms_and_the_trap_is_filtered() {
    let dir = tempfile::tempdir().unwrap();
    let prog = example("boundary", dir.path());
    let p = prog.to_str().unwrap();
    let units = dir.path().join("units");
    let seed = std::fs::read(repo().join("examples/boundary/seeds/all")).unwrap();
    let o = bridge(
        &["carve", "-o", units.to_str().unwrap(), "--functions", "^(scale_row|check_key|digit_name)$", "--", p, "@@"],
        &seed,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = dir.path().join("out");
    let o = bridge(
        &["fuzz-unit", units.to_str().unwrap(), "--tries", "300", "--json", "-o", out.to_str().unwrap(), "--", p, "@@"],
        b"",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let sum: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let alarms = sum["alarms"].as_array().unwrap();
    let funcs: Vec<&str> = alarms.iter().map(|a| a["function"].as_str().unwrap()).collect();
    assert!(funcs.contains(&"scale_row") && funcs.contains(&"check_key"), "{sum}");
    // digit_name fails at unit level on values main never passes it.
    assert!(!funcs.contains(&"digit_name"), "{sum}");
    assert!(sum["false_alarms"].as_u64().unwrap() > 0, "{sum}");
    assert_eq!(alarms.len(), 2, "one alarm per bug: {sum}");
    for a in std::fs::read_dir(out.join("alarms")).unwrap() {
        let a = a.unwrap().path();
        for f in ["input", "original", "unit", "report.json"] {
            assert!(a.join(f).exists(), "{} lacks {f}", a.display());
        }
        let st = std::process::Command::new(&prog).arg(a.join("input")).status().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(st.signal(), Some(11), "{} does not reproduce", a.display());
        let orig = std::process::Command::new(&prog).arg(a.join("original")).status().unwrap();
        assert!(orig.success(), "the original system test passes");
    }
}

#[test]
fn a_campaign_with_the_unit_fuzzer_lifts_true_alarms_and_counts_false_ones() {
    let dir = tempfile::tempdir().unwrap();
    let prog = example("boundary", dir.path());
    let out = dir.path().join("out");
    let seeds = repo().join("examples/boundary/seeds");
    let o = bridge(
        &[
            "run",
            "--unit",
            "fuzz",
            "-i",
            seeds.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--time",
            "20s",
            "--seed",
            "1",
            "--",
            prog.to_str().unwrap(),
            "@@",
        ],
        b"",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("campaign.json")).unwrap()).unwrap();
    let s = &j["stats"];
    assert!(s["units_analysed"].as_u64().unwrap() >= 1, "{s}");
    assert!(s["false_alarms"].as_u64().unwrap() >= 1, "the digit_name trap fails at unit level: {s}");
    let alarms: Vec<_> = std::fs::read_dir(out.join("alarms")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(alarms.len() as u64, s["unique_true_alarms"].as_u64().unwrap());
    assert!(!alarms.is_empty(), "{s}");
    for a in alarms {
        let report: serde_json::Value = serde_json::from_slice(&std::fs::read(a.join("report.json")).unwrap()).unwrap();
        assert_ne!(report["function"], "digit_name");
        assert!(report["system_test"].is_u64());
        let st = std::process::Command::new(&prog).arg(a.join("input")).status().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(st.signal(), Some(11), "{} does not reproduce", a.display());
    }
}

/// Runs `prog` on `input` for at most `secs` seconds: `None` when it was
/// still running and had to be killed.
fn run_for(prog: &std::path::Path, input: &std::path::Path, secs: u64) -> Option<std::process::ExitStatus> {
    let mut child = std::process::Command::new(prog).arg(input).stdout(std::process::Stdio::null()).spawn().unwrap();
    let end = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < end {
        if let Some(st) = child.try_wait().unwrap() {
            return Some(st);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    None
}

#[test]
fn faulty_units_are_classified_and_stop_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let prog = example("faults", dir.path());
    let p = prog.to_str().unwrap();
    let units = dir.path().join("units");
    let seed = std::fs::read(repo().join("examples/faults/seeds/all")).unwrap();
    let o = bridge(&["carve", "-o", units.to_str().unwrap(), "--", p, "@@"], &seed);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = dir.path().join("out");
    let o = bridge(
        &[
            "fuzz-unit",
            units.to_str().unwrap(),
            "--tries",
            "40",
            "-t",
            "300",
            "--json",
            "-o",
            out.to_str().unwrap(),
            "--",
            p,
            "@@",
        ],
        b"",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let sum: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // wait_token hangs and peek crashes on every try, as carved too: both
    // are skipped, with a word each on stderr.
    assert_eq!(sum["units"], 5, "four functions and main: {sum}");
    assert_eq!(sum["units_unreplayable"], 2, "{sum}");
    let err = stderr(&o);
    assert!(err.contains("wait_token") && err.contains("timeout"), "{err}");
    assert!(err.contains("peek") && err.contains("SIGSEGV"), "{err}");
    // mix's argument occurs nowhere in the input: no parameter. main's is
    // its input file.
    assert_eq!(sum["units_with_params"], 4, "{sum}");
    // delay hangs on negative counts, and so does the whole program: a
    // true alarm of kind timeout, whose input hangs the program run alone.
    let alarms = sum["alarms"].as_array().unwrap();
    assert_eq!(alarms.len(), 1, "{sum}");
    assert_eq!(alarms[0]["function"], "delay", "{sum}");
    assert_eq!(alarms[0]["outcome"], "timeout", "{sum}");
    let input = out.join("alarms/000000/input");
    assert!(run_for(&prog, &input, 3).is_none(), "the lifted input hangs the program");
    let original = out.join("alarms/000000/original");
    assert!(run_for(&prog, &original, 3).is_some_and(|s| s.success()));

    // A campaign meets the same units and goes on to the end of its budget.
    let out = dir.path().join("campaign");
    let seeds = repo().join("examples/faults/seeds");
    let o = bridge(
        &[
            "run",
            "--unit",
            "fuzz",
            "-i",
            seeds.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--time",
            "12s",
            "-t",
            "300",
            "--seed",
            "1",
            "--",
            p,
            "@@",
        ],
        b"",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("campaign.json")).unwrap()).unwrap();
    let s = &j["stats"];
    assert_eq!(s["finished"], true, "{s}");
    // (Units without a parameter mapped to the input are carved, counted
    // and not explored; a short campaign may carve none.)
    assert!(s["units_carved"].as_u64().unwrap() >= s["units_with_params"].as_u64().unwrap(), "{s}");
    assert!(s["units_analysed"].as_u64().unwrap() >= 1, "{s}");
    assert!(s["elapsed_s"].as_f64().unwrap() >= 11.0, "{s}");
}
