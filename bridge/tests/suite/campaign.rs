//! End-to-end tests of `bridge run`: real campaigns on the examples.

use crate::util::*;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn a_campaign_finds_the_crash_and_it_reproduces() {
    let dir = tempfile::tempdir().unwrap();
    let magic = example("magic", dir.path());
    let seeds = seeds_of("magic", dir.path());
    let out = dir.path().join("out");
    let o = bridge(
        &[
            "run",
            "--unit",
            "none",
            "-i",
            seeds.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--time",
            "20s",
            "--seed",
            "1",
            "--",
            magic.to_str().unwrap(),
            "@@",
        ],
        b"",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let crashes = names(&out.join("crashes"));
    assert!(!crashes.is_empty(), "no crash found: {}", stdout(&o));
    // De-duplicated by signature: the one bug and its few ways of failing
    // (the NULL write, and the undefined behaviour around it), a handful
    // of files at most, each reproducing its own signal.
    assert!(crashes.len() <= 5, "{crashes:?}");
    assert!(crashes.iter().any(|c| c.contains(",sig:11,")), "{crashes:?}");
    // Run directly, outside the campaign's limits and scratch directory,
    // the NULL write crashes the same way; what the undefined behaviour
    // around it does depends on the stack's layout (a copy of 2^64 - 23
    // bytes once ran for minutes instead of faulting), so those get 10 s.
    let mut reproduced = Vec::new();
    for c in &crashes {
        let sig: i32 = c.split(",sig:").nth(1).and_then(|r| r.get(..2)).and_then(|n| n.parse().ok()).expect("sig:NN");
        let mut child = Command::new(&magic).arg(out.join("crashes").join(c)).spawn().unwrap();
        let started = std::time::Instant::now();
        let st = loop {
            if let Some(st) = child.try_wait().unwrap() {
                break Some(st);
            }
            if started.elapsed() > std::time::Duration::from_secs(10) {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        use std::os::unix::process::ExitStatusExt;
        if st.and_then(|s| s.signal()) == Some(sig) {
            reproduced.push(c);
        }
    }
    assert!(reproduced.iter().any(|c| c.contains(",sig:11,")), "no SIGSEGV reproduced directly: {crashes:?}");
    // Every crashing run is counted: against the crash kept for its
    // signature, or (a run whose stack could not be written) on its own.
    let stats = &campaign_json(&out)["stats"];
    let counted: u64 = stats["crash_counts"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    let unsigned = stats["crashes_unsigned"].as_u64().unwrap();
    assert_eq!(Some(counted + unsigned), stats["crashes"].as_u64(), "{stats}");
    assert!(unsigned * 10 < counted, "most crashes leave their stack: {stats}");
    // Provenance: every test traces back to a seed; a crash's trail ends
    // at one, each step naming the operators that made it.
    let p = bridge_json(&["provenance", "--json", out.to_str().unwrap()], b"");
    assert_eq!(p["unresolved"], 0, "{p}");
    let seeds = p["seeds"].as_array().unwrap();
    let descendants: u64 = seeds.iter().map(|s| s["descendants"].as_u64().unwrap()).sum();
    let kept: u64 = seeds.iter().map(|s| s["crashes"].as_u64().unwrap()).sum();
    assert_eq!((descendants, kept), (names(&out.join("queue")).len() as u64 - 2, crashes.len() as u64), "{p}");
    let trail = bridge_json(&["provenance", "--json", out.to_str().unwrap(), &crashes[0]], b"");
    let steps: Vec<_> = trail.as_array().unwrap().iter().map(|s| &s["step"]).collect();
    assert!(steps.len() >= 2 && steps.last().unwrap()["path"].as_str().unwrap().contains(",orig:"), "{trail}");
    assert!(steps[..steps.len() - 1].iter().all(|s| !s["ops"].as_array().unwrap().is_empty()), "{trail}");
    // The crash's own step says which bytes its making wrote.
    assert!(!trail[0]["wrote"].as_array().unwrap().is_empty(), "{trail}");
    let queue = names(&out.join("queue"));
    // Every test has its trail record, and every queue entry's labels are
    // exact: each byte labelled as copied equals the byte it names.
    let total = queue.len() + crashes.len() + names(&out.join("hangs")).len();
    assert_eq!(p["recorded"].as_u64(), Some(total as u64), "{p}");
    let by_id: std::collections::HashMap<u64, Vec<u8>> =
        queue.iter().map(|q| (q[3..9].parse().unwrap(), std::fs::read(out.join("queue").join(q)).unwrap())).collect();
    let mut copied = 0;
    for q in &queue {
        let r = provenance::Record::read(&out, &format!("queue/{q}")).unwrap().expect("a trail record");
        let labels = r.labels.expect("labels");
        let data = &by_id[&q[3..9].parse::<u64>().unwrap()];
        labels.check(data, |id| by_id.get(&id).map(|d| &d[..])).unwrap_or_else(|m| panic!("{q}: {m:?}"));
        copied += labels.runs().filter(|(_, r)| matches!(r.origin, provenance::Origin::Copied { .. })).count();
    }
    assert!(copied > queue.len(), "most entries copy bytes of their seeds");
    assert!(queue.iter().filter(|q| q.contains(",orig:")).count() == 2, "{queue:?}");
    assert!(queue.iter().any(|q| q.contains(",src:") && q.contains(",op:")), "{queue:?}");
    let csv = std::fs::read_to_string(out.join("coverage.csv")).unwrap();
    assert!(csv.starts_with("seconds,execs,edges,"), "{csv}");
    assert!(csv.lines().count() > 2);
    let j = campaign_json(&out);
    assert_eq!(j["stats"]["finished"], true);
    assert!(j["stats"]["execs"].as_u64().unwrap() > 1000);
    assert!(j["stats"]["branches"].as_u64().unwrap() > 0);
}

#[test]
fn an_existing_output_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let calc = example("calc", dir.path());
    let seeds = seeds_of("calc", dir.path());
    std::fs::write(dir.path().join("keep"), "x").unwrap();
    let o = bridge(
        &[
            "run",
            "--unit",
            "none",
            "-i",
            seeds.to_str().unwrap(),
            "-o",
            dir.path().to_str().unwrap(),
            "--time",
            "2s",
            "--",
            calc.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--resume"), "{}", stderr(&o));
    assert!(dir.path().join("keep").exists());
    let o = bridge(
        &["run", "-i", seeds.to_str().unwrap(), "-o", "x", "--unit", "sybmolic", "--", calc.to_str().unwrap()],
        b"",
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("unknown unit generator"), "{}", stderr(&o));
    // A target that starts no fork server leaves only empty directories,
    // and the same output directory is taken again once the command is
    // mended.
    let out = dir.path().join("out");
    let run = |prog: &str| {
        let args = ["run", "--unit", "none", "-i", seeds.to_str().unwrap(), "-o", out.to_str().unwrap()];
        bridge(&[&args[..], &["--time", "2s", "--", prog]].concat(), b"")
    };
    let o = run("/bin/true");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("fork server"), "{}", stderr(&o));
    let o = run(calc.to_str().unwrap());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out.join("campaign.json").is_file());
}

#[test]
fn kill_nine_then_resume_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let magic = example("magic", dir.path());
    let seeds = seeds_of("magic", dir.path());
    let out = dir.path().join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_bridge"))
        .args([
            "run",
            "--unit",
            "none",
            "-i",
            seeds.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--time",
            "60s",
            "--",
            magic.to_str().unwrap(),
            "@@",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Long enough for a corpus, several saves and (usually) a crash.
    std::thread::sleep(Duration::from_secs(12));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let queue_before = names(&out.join("queue"));
    let crashes_before = names(&out.join("crashes"));
    let csv_before = std::fs::read_to_string(out.join("coverage.csv")).unwrap();
    let before = campaign_json(&out);
    assert!(queue_before.len() > 2, "{queue_before:?}");
    assert_eq!(before["stats"]["finished"], false);
    let elapsed_before = before["stats"]["elapsed_s"].as_f64().unwrap();

    let o = bridge(
        &["run", "--resume", "-o", out.to_str().unwrap(), "--time", "20s", "--", magic.to_str().unwrap(), "@@"],
        b"",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let queue_after = names(&out.join("queue"));
    for q in &queue_before {
        assert!(queue_after.contains(q), "{q} lost");
    }
    for c in &crashes_before {
        assert!(names(&out.join("crashes")).contains(c), "{c} lost");
    }
    let csv_after = std::fs::read_to_string(out.join("coverage.csv")).unwrap();
    assert!(csv_after.starts_with(&csv_before), "coverage history rewritten");
    let after = campaign_json(&out);
    assert_eq!(after["stats"]["resumes"], 1);
    assert_eq!(after["stats"]["finished"], true);
    assert!(after["stats"]["elapsed_s"].as_f64().unwrap() >= 20.0 && elapsed_before < 20.0);
    assert!(after["stats"]["edges"].as_u64() >= before["stats"]["edges"].as_u64());
    // Nothing half-written is left behind.
    assert!(names(&out.join(".tmp")).is_empty());
}

/// The parent ids (`src:`) of the queue's generated tests, and the ids of
/// its seeds.
fn parents_and_seeds(queue: &[String]) -> (Vec<u64>, Vec<u64>) {
    let id = |s: &str| s[3..9].parse::<u64>().unwrap();
    let seeds = queue.iter().filter(|q| q.contains(",orig:")).map(|q| id(q)).collect();
    let parents =
        (queue.iter()).filter_map(|q| q.split(",src:").nth(1)).map(|s| s[..6].parse::<u64>().unwrap()).collect();
    (parents, seeds)
}

#[test]
fn a_seeds_only_campaign_mutates_nothing_but_the_seeds_even_after_a_resume() {
    let dir = tempfile::tempdir().unwrap();
    let magic = example("magic", dir.path());
    let seeds = seeds_of("magic", dir.path());
    let run = |out: &Path, parents: &str| {
        let (seeds, out, prog) = (seeds.to_str().unwrap(), out.to_str().unwrap(), magic.to_str().unwrap());
        let o = bridge(
            &[
                "run",
                "--unit",
                "none",
                "-i",
                seeds,
                "-o",
                out,
                "--time",
                "5s",
                "--parents",
                parents,
                "--seed",
                "3",
                "--",
                prog,
                "@@",
            ],
            b"",
        );
        assert!(o.status.success(), "{}", stderr(&o));
    };
    // Coverage-guided (the default): tests kept for new coverage are
    // parents too.
    let guided = dir.path().join("guided");
    run(&guided, "all");
    let (parents, seed_ids) = parents_and_seeds(&names(&guided.join("queue")));
    assert!(parents.iter().any(|p| !seed_ids.contains(p)), "{parents:?}");

    let only = dir.path().join("only");
    run(&only, "seeds");
    assert_eq!(campaign_json(&only)["config"]["parents"], "seeds");
    let o = bridge(
        &["run", "--resume", "-o", only.to_str().unwrap(), "--time", "8s", "--", magic.to_str().unwrap(), "@@"],
        b"",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let (parents, seed_ids) = parents_and_seeds(&names(&only.join("queue")));
    assert_eq!(seed_ids.len(), 2);
    assert!(parents.len() > 2, "nothing new was kept: {parents:?}");
    assert!(parents.iter().all(|p| seed_ids.contains(p)), "{parents:?} besides the seeds {seed_ids:?}");
}

/// Hangs are kept one per signature too: the fork server asks a run past
/// its limit for its stack before killing it, and the function it was in
/// names the hang; the other hanging runs are counted against it.
#[test]
fn hangs_are_kept_one_per_function_they_hang_in() {
    let dir = tempfile::tempdir().unwrap();
    let hang = fixture("hang", dir.path());
    let seeds = dir.path().join("seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    std::fs::write(seeds.join("a"), b"loo\n").unwrap();
    let out = dir.path().join("out");
    let (s, o, h) = (seeds.to_str().unwrap(), out.to_str().unwrap(), hang.to_str().unwrap());
    let r = bridge(&["run", "--unit", "none", "-i", s, "-o", o, "--time", "6s", "-t", "100", "--", h], b"");
    assert!(r.status.success(), "{}", stderr(&r));
    let stats = &campaign_json(&out)["stats"];
    let hangs = stats["hangs"].as_u64().unwrap();
    assert!(hangs >= 2, "the loop was not found often enough to tell: {stats}");
    assert_eq!(names(&out.join("hangs")).len(), 1, "{stats}");
    assert_eq!(stats["hang_counts"]["000000"].as_u64(), Some(hangs), "{stats}");
}
