//! Programs built with AddressSanitizer and UBSan: runs that end in a
//! report are failures named by the report (its type, access and size,
//! its stack), found at system level and at unit level, where a report
//! the program cannot reach is a false alarm.

use crate::util::*;
use std::path::Path;

const SAN: &[&str] = &["-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"];

fn seeds(dir: &Path, tests: &[(&str, &str)]) -> std::path::PathBuf {
    let s = dir.join("seeds");
    std::fs::create_dir_all(&s).unwrap();
    for (name, text) in tests {
        std::fs::write(s.join(name), text).unwrap();
    }
    s
}

#[test]
fn reports_are_crashes_kept_by_their_kind_and_reviewed_with_their_text() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let prog = carve_compile_with(&repo().join("bridge/tests/fixtures/overflow.c"), d, SAN);
    let p = prog.to_str().unwrap();
    // Seeds that fail already: the campaign keeps each kind once.
    let s = seeds(d, &[("a", "12 34\n"), ("b", "1 2\nfree\n"), ("c", "3 4\nput 8\n"), ("d", "5 6\nfree\n")]);
    let out = d.join("out");
    let o = bridge(
        &[
            "run",
            "--unit",
            "none",
            "--time",
            "3s",
            "-i",
            s.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--",
            p,
            "@@",
        ],
        b"",
    );
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("is built with AddressSanitizer"), "{err}");
    // -m 1024 (the default) would forbid ASan's shadow memory: the seeds ran.
    assert!(err.contains("crash (signal 6, SIGABRT)") && err.contains("exit 0"), "{err}");
    // The seeds' crashes: a use after free (twice) and an overflow, kept
    // once each (a mutant may add a failure of another kind or place).
    let crashes = names(&out.join("crashes"));
    let of_seeds = crashes.iter().filter(|c| c.ends_with(",op:seed")).count();
    assert_eq!(of_seeds, 2, "a use after free and an overflow, once each: {crashes:?}");
    let o = bridge(&["review", out.to_str().unwrap(), "--html", d.join("html").to_str().unwrap()], b"");
    let table = stdout(&o);
    assert!(o.status.success(), "{table}{}", stderr(&o));
    assert!(table.contains("heap-use-after-free READ 1") && table.contains("heap-buffer-overflow WRITE 1"), "{table}");
    assert!(table.contains("ERROR: AddressSanitizer: heap-buffer-overflow on address"), "{table}");
    // The frames are the program's (main at its line), not ASan's own.
    assert!(table.contains("overflow.c:"), "{table}");
    let html = std::fs::read_to_string(d.join("html/index.html")).unwrap();
    assert!(
        html.contains("The sanitizer&#x27;s report") || html.contains("The sanitizer's report"),
        "no report in the page"
    );
    // A reduction keeps the kind: the reduced overflow still overflows.
    let reduced: Vec<_> = std::fs::read_dir(out.join("review"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("reduced"))
        .filter(|p| p.exists())
        .collect();
    assert!(reduced.len() >= 2, "one per signature: {reduced:?}");
    let mut heap = 0;
    for r in reduced {
        let o = std::process::Command::new(&prog).arg(&r).env("ASAN_OPTIONS", "detect_leaks=0").output().unwrap();
        let report = String::from_utf8_lossy(&o.stderr);
        assert!(report.contains("ERROR: AddressSanitizer:"), "{} does not fail as it did: {report}", r.display());
        heap += usize::from(report.contains("AddressSanitizer: heap-"));
    }
    assert!(heap >= 2, "the two heap errors reduced");
}

#[test]
fn a_signed_overflow_is_solved_for_at_unit_level_and_lifted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let prog = carve_compile_with(&repo().join("bridge/tests/fixtures/overflow.c"), d, SAN);
    let p = prog.to_str().unwrap();
    // Five digits each: the product's range reaches past INT_MAX.
    let units = carve_main_on(&prog, b"12345 67890\n", d);
    let out = d.join("out");
    let sum =
        bridge_json(&["explore", &units, "--tries", "40", "--json", "-o", out.to_str().unwrap(), "--", p, "@@"], b"");
    assert!(sum["true_alarms"].as_u64().unwrap() >= 1, "{sum}");
    let alarm = std::fs::read_to_string(out.join("alarms/000000/report.json")).unwrap();
    let input = std::fs::read(out.join("alarms/000000/input")).unwrap();
    let file = d.join("lifted");
    std::fs::write(&file, &input).unwrap();
    // Reproduces on the program alone, with UBSan's report.
    let o = std::process::Command::new(&prog).arg(&file).env("ASAN_OPTIONS", "detect_leaks=0").output().unwrap();
    let report = String::from_utf8_lossy(&o.stderr);
    assert!(report.contains("runtime error: signed integer overflow"), "{alarm}\n{report}");
}

#[test]
fn a_report_the_program_cannot_reach_is_a_false_alarm() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = repo().join("examples/clamp/clamp.c");
    let prog = carve_compile_with(&src, d, SAN);
    let p = prog.to_str().unwrap();
    let seed = std::fs::read(repo().join("examples/clamp/seeds/midterm")).unwrap();
    let units = d.join("units");
    let o = bridge(&["carve", "-o", units.to_str().unwrap(), "--functions", "^tally$", "--", p, "@@"], &seed);
    assert!(o.status.success(), "{}", stderr(&o));
    let replay = bridge(&["replay", units.to_str().unwrap()], b"");
    assert!(stdout(&replay).contains("5 of 5 replays faithful"), "{}{}", stdout(&replay), stderr(&replay));
    let out = d.join("out");
    let sum = bridge_json(
        &["fuzz-unit", units.to_str().unwrap(), "--tries", "60", "--json", "-o", out.to_str().unwrap(), "--", p, "@@"],
        b"",
    );
    // tally() overflows its table for a score past 109; main clamps every
    // score to 0..100 first.
    assert!(sum["unit_failures"].as_u64().unwrap() > 0, "{sum}");
    assert_eq!(sum["true_alarms"], 0, "{sum}");
    assert!(sum["false_alarms"].as_u64().unwrap() > 0, "{sum}");
}
