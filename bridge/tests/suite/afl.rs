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

/// With `CARVE_ARGS_IN_INPUT=1`, `afl-showmap -- prog @@` runs a test that
/// carries its command line as `bridge showmap --args-in-input` runs it:
/// the same edges, other edges for another command line, and no file left
/// behind.
#[test]
fn afl_showmap_runs_tests_that_carry_their_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let prog = example("options", dir.path());
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mut maps = Vec::new();
    for (k, line) in ["-d , -f 2 @@", "-s -d ';' --fields=1 @@", "-d '\\t' < @@"].iter().enumerate() {
        let test = dir.path().join(format!("test{k}"));
        std::fs::write(&test, format!("{line}\nname,age\nada;36\n")).unwrap();
        let out = dir.path().join("afl.map");
        let o = Command::new("afl-showmap")
            .args(["-q", "-r", "-o"])
            .arg(&out)
            .arg("--")
            .arg(&prog)
            .arg(&test)
            .env("AFL_NO_AFFINITY", "1")
            .env("CARVE_ARGS_IN_INPUT", "1")
            .env("TMPDIR", &tmp)
            .output()
            .expect("afl-showmap is installed (scripts/install-deps.sh)");
        assert!(out.exists(), "afl-showmap wrote no map: {}", stderr(&o));
        let afl = slots(&std::fs::read_to_string(&out).unwrap());
        let o =
            bridge(&["showmap", "--args-in-input", "-i", test.to_str().unwrap(), "--", prog.to_str().unwrap()], b"");
        assert!(o.status.success(), "{}", stderr(&o));
        let ours = slots(&stdout(&o));
        assert!(afl.is_subset(&ours), "{line}: AFL++ sees edges the bridge does not: {:?}", afl.difference(&ours));
        assert!(ours.len() - afl.len() <= 1, "{line}: the bridge sees {:?} that AFL++ does not", ours.difference(&afl));
        maps.push(afl);
    }
    assert!(maps[0] != maps[1] && maps[1] != maps[2], "command lines made no difference: {maps:?}");
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(left.is_empty(), "files left in TMPDIR: {left:?}");
}

/// `afl-fuzz -M NAME` for `secs` seconds on `prog` in the sync directory
/// `sync`; its log.
fn afl_fuzz(prog: &Path, seeds: &Path, sync: &Path, name: &str, secs: u32) -> String {
    let o = Command::new("afl-fuzz")
        .args(["-M", name, "-V", &secs.to_string(), "-i"])
        .arg(seeds)
        .arg("-o")
        .arg(sync)
        .arg("--")
        .arg(prog)
        .arg("@@")
        .env("AFL_NO_UI", "1")
        .env("AFL_NO_AFFINITY", "1")
        .env("AFL_SKIP_CPUFREQ", "1")
        .env("AFL_IMPORT_FIRST", "1")
        .env("AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES", "1")
        .output()
        .expect("afl-fuzz is installed (scripts/install-deps.sh)");
    let log = format!("{}{}", stdout(&o), stderr(&o));
    assert!(o.status.success(), "afl-fuzz failed: {log}");
    log
}

fn listing(dir: &Path) -> Vec<(String, u64, std::time::SystemTime)> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let m = e.metadata().unwrap();
        if m.is_dir() {
            v.extend(listing(&e.path()));
        } else {
            v.push((e.path().display().to_string(), m.len(), m.modified().unwrap()));
        }
    }
    v.sort();
    v
}

#[test]
fn afl_fuzz_drives_a_carve_clang_binary_and_grows_its_queue() {
    let dir = tempfile::tempdir().unwrap();
    let prog = example("interp", dir.path());
    let seeds = seeds_of("interp", dir.path());
    let out = dir.path().join("sync");
    let log = afl_fuzz(&prog, &seeds, &out, "default", 4);
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

/// The bridge as an instance of an AFL++ sync directory: it runs every
/// entry AFL++ queued once, writes only into its own directory, and an
/// AFL++ instance imports what it queued.
#[test]
fn a_bridge_instance_imports_afl_queues_and_afl_imports_its_queue() {
    let dir = tempfile::tempdir().unwrap();
    let prog = example("interp", dir.path());
    let seeds = seeds_of("interp", dir.path());
    let sync = dir.path().join("sync");
    afl_fuzz(&prog, &seeds, &sync, "main", 3);
    let main_queue =
        std::fs::read_dir(sync.join("main/queue")).unwrap().flatten().filter(|e| e.path().is_file()).count();
    let before = listing(&sync.join("main"));
    let (s, p) = (seeds.to_str().unwrap(), prog.to_str().unwrap());
    let sync_s = sync.to_str().unwrap();
    let o = bridge(&["run", "--system", "afl++", "--sync", sync_s, "-i", s, "--time", "6s", "--", p, "@@"], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(listing(&sync.join("main")), before, "the bridge wrote into AFL++'s directory");
    let mine = sync.join("bridge");
    let json = campaign_json(&mine);
    let stats = &json["stats"];
    assert_eq!(stats["imported"].as_u64(), Some(main_queue as u64), "every entry of main's queue once: {stats}");
    let kept: Vec<String> = std::fs::read_dir(mine.join("queue"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(",sync:main,src:"))
        .collect();
    assert!(!kept.is_empty() && kept.len() as u64 == stats["imported_kept"].as_u64().unwrap(), "{kept:?} {stats}");
    assert!(stats["units_analysed"].as_u64().unwrap() > 0, "nothing imported was explored: {stats}");
    assert_eq!(std::fs::read_to_string(mine.join(".synced/main")).unwrap().trim(), main_queue.to_string());

    // An AFL++ instance that sees only the bridge imports from its queue.
    let other = dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::os::unix::fs::symlink(&mine, other.join("bridge")).unwrap();
    afl_fuzz(&prog, &seeds, &other, "judge", 2);
    let imported = std::fs::read_dir(other.join("judge/queue"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().contains(",sync:bridge,"))
        .count();
    assert!(imported > 0, "AFL++ imported nothing from the bridge's queue");
}

#[test]
fn sync_campaigns_refuse_what_afl_would_misread() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = seeds_of("interp", dir.path());
    let (s, sync) = (seeds.to_str().unwrap(), dir.path().join("sync"));
    let sync = sync.to_str().unwrap();
    let refused = |args: &[&str], why: &str| {
        let o = bridge(args, b"");
        assert!(!o.status.success(), "{args:?} was accepted");
        assert!(stderr(&o).contains(why), "{args:?}: {}", stderr(&o));
    };
    refused(&["run", "--system", "afl++", "-i", s, "-o", "out", "--", "./prog", "@@"], "give --sync DIR");
    refused(&["run", "--sync", sync, "--name", "../x", "-i", s, "--", "./prog", "@@"], "plain directory name");
    refused(&["run", "--sync", sync, "-o", "elsewhere", "-i", s, "--", "./prog", "@@"], "leave out -o");
    // AFL++ instances that read command lines from their tests, and an
    // instance that would not.
    let o = Command::new(env!("CARGO_BIN_EXE_bridge"))
        .args(["run", "--sync", sync, "-i", s, "--", "./prog", "@@"])
        .env("CARVE_ARGS_IN_INPUT", "1")
        .output()
        .unwrap();
    assert!(!o.status.success() && stderr(&o).contains("give --args-in-input"), "{}", stderr(&o));
}
