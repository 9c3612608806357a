//! Functions the optimiser inlines stay carvable: `examples/inlined` keeps
//! its interesting function `static` and small, so that at every `-O`
//! level it exists in the program only inside its callers; carving and
//! replay use its out-of-line copy, whose coverage lands in the slots that
//! system runs of the optimised program hit.

use crate::util::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn build(name: &str, level: &str, dir: &Path) -> PathBuf {
    let out = dir.join(format!("{name}{level}"));
    let src = repo().join("examples").join(name).join(format!("{name}.c"));
    let o = Command::new(tools_dir().join("carve-clang")).args([level, "-o"]).arg(&out).arg(&src).output().unwrap();
    assert!(o.status.success(), "carve-clang {level} failed: {}", stderr(&o));
    out
}

/// `bridge carve` of `prog` on a seed, then the replays as JSON.
fn carve_and_replay(prog: &Path, seed: &Path, units: &Path) -> Vec<serde_json::Value> {
    let input = std::fs::read(seed).unwrap();
    let o = bridge(&["carve", "-o", units.to_str().unwrap(), "--", prog.to_str().unwrap(), "@@"], &input);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = bridge(&["replay", "--json", units.to_str().unwrap()], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap().as_array().unwrap().clone()
}

/// The program's own symbols (functions defined in it).
fn defined_functions(prog: &Path) -> BTreeSet<String> {
    let o = Command::new("nm").arg("--defined-only").arg(prog).output().unwrap();
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let (_, kind, name) = (w.next()?, w.next()?, w.next()?);
            matches!(kind, "t" | "T").then(|| name.to_string())
        })
        .collect()
}

#[test]
fn functions_inlined_at_every_level_are_carved_and_replay_faithfully() {
    let dir = tempfile::tempdir().unwrap();
    let seed = repo().join("examples/inlined/seeds/firmware");
    for level in ["-O1", "-O2", "-O3", "-Os"] {
        let prog = build("inlined", level, dir.path());
        let symbols = defined_functions(&prog);
        // The optimised program has no `store` of its own: it was inlined.
        assert!(!symbols.contains("store"), "{level}: store kept out of line: {symbols:?}");
        assert!(symbols.contains("store..carve"), "{level}: no out-of-line copy: {symbols:?}");
        let units = dir.path().join(format!("units{level}"));
        let results = carve_and_replay(&prog, &seed, &units);
        let carved: BTreeSet<&str> = results.iter().filter_map(|r| r["function"].as_str()).collect();
        for f in ["main", "store", "checksum_ok", "decode"] {
            assert!(carved.contains(f), "{level}: {f} not carved: {carved:?}");
        }
        let unfaithful: Vec<_> = results.iter().filter(|r| r["faithful"] != true).collect();
        assert!(unfaithful.is_empty(), "{level}: unfaithful replays: {unfaithful:?}");
    }
}

#[test]
fn unit_runs_count_in_the_slots_of_system_runs() {
    let dir = tempfile::tempdir().unwrap();
    for (name, seed) in [("hexdump", "patch"), ("interp", "vars")] {
        let prog = build(name, "-O2", dir.path());
        let seed = repo().join("examples").join(name).join("seeds").join(seed);
        let units = dir.path().join(format!("units-{name}"));
        let results = carve_and_replay(&prog, &seed, &units);
        let main = results
            .iter()
            .find(|r| r["unit"].as_str().unwrap().ends_with("main.0.unit"))
            .unwrap_or_else(|| panic!("{name}: main not carved"));
        let unit: BTreeSet<u64> = main["edge_slots"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
        let map = dir.path().join(format!("{name}.map"));
        let input = std::fs::read(&seed).unwrap();
        let o = bridge(&["showmap", "-o", map.to_str().unwrap(), "--", prog.to_str().unwrap(), "@@"], &input);
        assert!(o.status.success(), "{}", stderr(&o));
        let system: BTreeSet<u64> =
            std::fs::read_to_string(&map).unwrap().lines().filter_map(|l| l.split(':').next()?.parse().ok()).collect();
        // The same input: the optimised program and the out-of-line copies
        // hit the same source edges (the program's own vectorised loops and
        // the copies' function entries aside).
        let shared = system.intersection(&unit).count();
        assert!(
            shared * 10 >= system.len() * 9,
            "{name}: {shared} of the {} slots of the system run are hit by the unit ({} slots)",
            system.len(),
            unit.len()
        );
    }
}

#[test]
fn calls_through_pointers_reach_the_copies_and_their_clones() {
    let dir = tempfile::tempdir().unwrap();
    // shapes calls `negate` only through a pointer handed to `apply`.
    let shapes = build("shapes", "-O2", dir.path());
    let units = dir.path().join("units-shapes");
    let results = carve_and_replay(&shapes, &repo().join("examples/shapes/seeds/numbers"), &units);
    assert!(results.iter().any(|r| r["function"] == "negate"), "{results:?}");
    // The symbolic clone of the handler a table points to gets the
    // number's shadow: 77 is solved for, nothing is pinned.
    let prog = fixture("dispatch", dir.path());
    let (p, units) = (prog.to_str().unwrap(), carve_main_on(&prog, b"13\n", dir.path()));
    let sum = bridge_json(&["explore", &units, "--tries", "20", "--json", "--", p, "@@"], b"");
    let values: Vec<&str> = sum["alarms"].as_array().unwrap().iter().filter_map(|a| a["new_value"].as_str()).collect();
    assert!(values.iter().any(|v| v.starts_with("77")), "{sum}");
    assert!(sum["generator"][0]["stats"]["pinned"].get("(indirect call)").is_none(), "{sum}");
}
