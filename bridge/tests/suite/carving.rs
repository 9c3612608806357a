//! End-to-end tests of `bridge carve`, `replay`, `units` and `show` on the
//! `shapes` example, whose calls take every shape of argument carving must
//! handle.

use crate::util::*;
use std::path::Path;

fn carve_shapes(dir: &Path, extra: &[&str]) -> (std::path::PathBuf, std::path::PathBuf) {
    let shapes = example("shapes", dir);
    let units = dir.join("units");
    let input = std::fs::read(repo().join("examples/shapes/seeds/numbers")).unwrap();
    let mut args = vec!["carve", "-o", units.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.extend(["--", shapes.to_str().unwrap()]);
    let o = bridge(&args, &input);
    assert!(o.status.success(), "{}", stderr(&o));
    (shapes, units)
}

fn replay_json(units: &Path) -> Vec<serde_json::Value> {
    let o = bridge(&["replay", "--json", units.to_str().unwrap()], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap().as_array().unwrap().clone()
}

#[test]
fn every_shape_replays_faithfully_or_is_reported_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let (_, units) = carve_shapes(dir.path(), &["--budget", "65536"]);
    let results = replay_json(&units);
    let by_fn = |name: &str| {
        results.iter().find(|r| r["function"] == name).unwrap_or_else(|| panic!("{name} not carved: {results:?}"))
    };
    for f in ["sum_list", "pair_score", "mid_sum", "count_upper", "bits_set"] {
        assert_eq!(by_fn(f)["faithful"], true, "{f}: {}", by_fn(f));
    }
    // Function pointers: `apply` gets `twice` or `negate` back in the replay.
    assert!(results
        .iter()
        .filter(|r| r["function"].as_str().unwrap().starts_with("apply"))
        .all(|r| r["faithful"] == true));
    // 4 MiB past a 64 KiB budget: cut, and said so.
    assert_eq!(by_fn("big_sum")["truncated"], true);
    // `main` is a unit too, and replays (not as it ran: it reads standard
    // input, which is no part of its context; `examples/options` has a
    // `main` that replays faithfully).
    assert_eq!(by_fn("main")["outcome"], "ok", "{}", by_fn("main"));
}

#[test]
fn units_are_listed_and_shown_as_c() {
    let dir = tempfile::tempdir().unwrap();
    let (_, units) = carve_shapes(dir.path(), &["--functions", "^(sum_list|count_upper)$"]);
    let o = bridge(&["units", units.to_str().unwrap()], b"");
    assert!(o.status.success());
    let listing = stdout(&o);
    assert!(
        listing.contains("sum_list") && listing.contains("count_upper") && !listing.contains("pair_score"),
        "{listing}"
    );
    let unit = units.join("count_upper.0.unit");
    let o = bridge(&["show", unit.to_str().unwrap()], b"");
    let c = stdout(&o);
    assert!(c.contains("count_upper(o0, 6);") && c.contains("/* returned 4 */"), "{c}");
    let o = bridge(&["carve", "-o", "x", "--functions", "^nothing$", "--", "/bin/true"], b"");
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn broken_unit_files_get_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (_, units) = carve_shapes(dir.path(), &["--functions", "^sum_list$"]);
    let good = std::fs::read(units.join("sum_list.0.unit")).unwrap();
    let bad = dir.path().join("bad");
    std::fs::create_dir(&bad).unwrap();
    std::fs::write(bad.join("truncated.unit"), &good[..good.len() / 2]).unwrap();
    let mut flipped = good.clone();
    flipped[40] ^= 1;
    std::fs::write(bad.join("corrupt.unit"), &flipped).unwrap();
    let mut version = good.clone();
    version[4] = 99;
    std::fs::write(bad.join("version.unit"), &version).unwrap();
    std::fs::write(bad.join("empty.unit"), b"").unwrap();
    let o = bridge(&["units", bad.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("truncated"), "{out}");
    assert!(out.contains("checksum"), "{out}");
    assert!(out.contains("version 99"), "{out}");
    assert!(out.contains("no snapshot"), "{out}");
    let o = bridge(&["show", bad.join("corrupt.unit").to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("not a unit test"), "{}", stderr(&o));
}

#[test]
fn a_replay_that_crashes_is_reported_as_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let (_, units) = carve_shapes(dir.path(), &["--functions", "^sum_list$"]);
    // Point the list's head at nothing: a snapshot of a call that faults.
    let mut unit = model_unit(&units.join("sum_list.0.unit"));
    unit.snapshot.relocs.retain(|r| r.object != u32::MAX);
    unit.snapshot.args[0].value = 0x10;
    std::fs::write(units.join("sum_list.0.unit"), unit.encode()).unwrap();
    let results = replay_json(&units);
    assert!(results[0]["outcome"].as_str().unwrap().contains("SIGSEGV"), "{:?}", results[0]);
    assert_eq!(results[0]["faithful"], false);
}

fn model_unit(p: &Path) -> model::unit::Unit {
    model::unit::Unit::decode(&std::fs::read(p).unwrap()).unwrap()
}

/// A call made while its caller holds a recursive mutex that the callee
/// takes again replays: the mutex's owner becomes the replaying thread
/// (in a replay, the carving thread's id would leave a lock no one frees,
/// and the replay would hang).
#[test]
fn a_call_under_a_held_recursive_mutex_replays() {
    let dir = tempfile::tempdir().unwrap();
    let prog = fixture("mutex", dir.path());
    let units = dir.path().join("units");
    let args =
        ["carve", "-o", units.to_str().unwrap(), "--functions", "^count_lines$", "--", prog.to_str().unwrap(), "@@"];
    let o = bridge(&args, b"a\nb\nc\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let o = bridge(&["replay", "-t", "2000", units.to_str().unwrap()], b"");
    let out = stdout(&o);
    assert!(out.contains("count_lines: ok") && out.contains("; faithful"), "{out}{}", stderr(&o));
}
