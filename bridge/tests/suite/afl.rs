//! AFL++ (Debian's `afl++`) driving binaries built by carve-clang: its
//! fork-server hello, the map it gives, and a short `afl-fuzz` campaign.

use crate::util::*;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The edges of one `afl-showmap -r` run (raw counts, every slot kept).
fn afl_showmap(prog: &Path, input: &Path, dir: &Path) -> BTreeSet<u32> {
    let out = dir.join("afl.map");
    let o = Command::new("afl-showmap")
        .args(["-q", "-r", "-o"])
        .arg(&out)
        .arg("--")
        .arg(prog)
        .arg(input)
        .env("AFL_NO_AFFINITY", "1")
        .output()
        .expect("afl-showmap is installed (scripts/install-deps.sh)");
    assert!(out.exists(), "afl-showmap wrote no map: {}", stderr(&o));
    slots(&std::fs::read_to_string(out).unwrap())
}

fn slots(map: &str) -> BTreeSet<u32> {
    map.lines().filter_map(|l| l.split_once(':')).map(|(slot, _)| slot.parse().unwrap()).collect()
}

#[test]
fn afl_showmap_sees_the_edges_the_bridge_sees() {
    let dir = tempfile::tempdir().unwrap();
    let prog = example("interp", dir.path());
    let seeds = repo().join("examples/interp/seeds");
    let mut differ = false;
    let mut last = BTreeSet::new();
    for seed in ["stack", "vars"] {
        let input = seeds.join(seed);
        let afl = afl_showmap(&prog, &input, dir.path());
        let o = bridge(&["showmap", "--", prog.to_str().unwrap(), input.to_str().unwrap()], b"");
        assert!(o.status.success(), "{}", stderr(&o));
        let ours = slots(&stdout(&o));
        // `main`'s entry counts in the fork server before AFL++ clears
        // the map; every other edge is the same.
        assert!(afl.is_subset(&ours), "AFL++ sees edges the bridge does not: {:?}", afl.difference(&ours));
        assert!(ours.len() - afl.len() <= 1, "the bridge sees {:?} that AFL++ does not", ours.difference(&afl));
        assert!(afl.len() > 20, "{afl:?}");
        differ |= !last.is_empty() && last != afl;
        last = afl;
    }
    assert!(differ, "two different seeds gave AFL++ the same map");
}

#[test]
fn afl_fuzz_drives_a_carve_clang_binary_and_grows_its_queue() {
    let dir = tempfile::tempdir().unwrap();
    let prog = example("interp", dir.path());
    let seeds = seeds_of("interp", dir.path());
    let out = dir.path().join("sync");
    let o = Command::new("afl-fuzz")
        .args(["-V", "4", "-i"])
        .arg(&seeds)
        .arg("-o")
        .arg(&out)
        .arg("--")
        .arg(&prog)
        .arg("@@")
        .env("AFL_NO_UI", "1")
        .env("AFL_NO_AFFINITY", "1")
        .env("AFL_SKIP_CPUFREQ", "1")
        .env("AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES", "1")
        .output()
        .expect("afl-fuzz is installed (scripts/install-deps.sh)");
    let log = format!("{}{}", stdout(&o), stderr(&o));
    assert!(o.status.success(), "afl-fuzz failed: {log}");
    assert!(log.contains("Target map size"), "the hello announced no map size: {log}");
    let stats = std::fs::read_to_string(out.join("default/fuzzer_stats")).unwrap();
    let stat = |k: &str| -> u64 {
        let line = stats.lines().find(|l| l.starts_with(k)).unwrap_or_else(|| panic!("no {k}: {stats}"));
        line.split(':').nth(1).unwrap().trim().parse().unwrap()
    };
    let seeds_n = std::fs::read_dir(&seeds).unwrap().count() as u64;
    assert!(stat("execs_done") > 500, "{stats}");
    assert!(stat("corpus_count") > seeds_n, "no new path in AFL++'s queue: {stats}");
}
