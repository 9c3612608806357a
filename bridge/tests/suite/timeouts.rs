//! Calibrated time limits in `bridge run`: a short limit from the seeds'
//! run times, every run past it re-run under the full limit, and `-t`
//! taking the calibration away.

use crate::util::*;
use std::path::Path;

fn campaign(prog: &Path, dir: &Path, name: &str, extra: &[&str]) -> (serde_json::Value, std::path::PathBuf) {
    let seeds = dir.join("seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    std::fs::write(seeds.join("a"), b"hello world\n").unwrap();
    let out = dir.join(name);
    let (s, o, p) = (seeds.to_str().unwrap(), out.to_str().unwrap(), prog.to_str().unwrap());
    let mut args = vec!["run", "--unit", "none", "-i", s, "-o", o, "--seed", "3"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", p]);
    let r = bridge(&args, b"");
    assert!(r.status.success(), "{}", stderr(&r));
    assert!(stdout(&r).contains("lost to timeouts"), "the time report is missing: {}", stdout(&r));
    (campaign_json(&out)["stats"].clone(), out)
}

#[test]
fn runs_past_the_calibrated_limit_are_rechecked_when_new_and_only_real_hangs_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let slow = fixture("slow", dir.path());
    let (stats, out) = campaign(&slow, dir.path(), "calibrated", &["--time", "6s"]);
    let limit = stats["timeout_calibrated_ms"].as_u64().unwrap();
    assert!((20..50).contains(&limit), "the seed takes well under 10 ms: {stats}");
    let (rechecked, slow_runs, hangs) = (
        stats["timeouts_rechecked"].as_u64().unwrap(),
        stats["slow_runs"].as_u64().unwrap(),
        stats["hangs"].as_u64().unwrap(),
    );
    assert!(slow_runs > 0, "no 50 ms run was seen to finish under the full limit: {stats}");
    assert!(hangs > 0, "no input long enough to hang: {stats}");
    // Runs past the short limit run again under the full one when they
    // would be kept as a hang: the slow ones (their stack is in `usleep`,
    // no hang's) and the first of the loop's; later runs of the loop are
    // counted against the hang kept, at the cost of the short limit.
    let unique = stats["unique_hangs"].as_u64().unwrap();
    assert_eq!(unique, 1, "one loop, one hang kept: {stats}");
    assert!(rechecked >= slow_runs + unique && rechecked <= slow_runs + hangs, "{stats}");
    assert!(hangs > rechecked - slow_runs, "every hang was run again under the full limit: {stats}");
    assert!(stats["timeout_lost_s"].as_f64().unwrap() >= unique as f64 * 1.0, "{stats}");
    // The hangs counted are those counted against a kept one (or left no
    // stack): the progress line, the summary and hang_counts agree.
    let counted: u64 = stats["hang_counts"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(hangs, counted + stats["hangs_unsigned"].as_u64().unwrap(), "{stats}");
    assert_eq!(names(&out.join("hangs")).len() as u64, unique, "{stats}");
    for h in std::fs::read_dir(out.join("hangs")).unwrap() {
        let len = std::fs::metadata(h.unwrap().path()).unwrap().len();
        assert!(len > 64, "a kept hang of {len} bytes finishes in 50 ms");
    }

    let (given, _) = campaign(&slow, dir.path(), "given", &["--time", "2s", "-t", "400"]);
    assert_eq!(given["timeout_calibrated_ms"], 0, "-t takes the calibration away: {given}");
    assert_eq!(given["timeouts_rechecked"], 0, "{given}");
}

/// A run past the calibrated limit that stopped where a kept hang loops
/// (its key: the function and its callers) is not run again under the
/// full limit, new edges or not: it is counted against that hang, at the
/// cost of the short limit.
#[test]
fn a_run_stopped_where_a_kept_hang_loops_is_not_rechecked() {
    let dir = tempfile::tempdir().unwrap();
    let loops = fixture("loops", dir.path());
    let seeds = dir.path().join("seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    std::fs::write(seeds.join("a"), b"hello world\n").unwrap();
    let out = dir.path().join("out");
    let (s, o, p) = (seeds.to_str().unwrap(), out.to_str().unwrap(), loops.to_str().unwrap());
    let r = bridge(&["run", "--unit", "none", "-i", s, "-o", o, "--seed", "5", "--time", "8s", "--", p], b"");
    assert!(r.status.success(), "{}", stderr(&r));
    let stats = &campaign_json(&out)["stats"];
    assert!(stats["timeout_calibrated_ms"].as_u64().is_some_and(|ms| ms > 0), "{stats}");
    assert_eq!(stats["unique_hangs"], 1, "one loop: {stats}");
    let spared = stats["rechecks_spared"].as_u64().unwrap();
    assert!(spared >= 1, "no later path into the loop was spared its recheck: {stats}");
    // Only the first run into the loop (and none of the spared) took the
    // full limit to be kept.
    let (rechecked, slow) = (stats["timeouts_rechecked"].as_u64().unwrap(), stats["slow_runs"].as_u64().unwrap());
    assert_eq!(rechecked - slow, 1, "{stats}");
    assert_eq!(stats["hang_counts"]["000000"].as_u64(), stats["hangs"].as_u64(), "{stats}");
    assert!(stdout(&r).contains("not (stopped where a kept hang loops)"), "{}", stdout(&r));
}

/// A test kept for new coverage that took longer than the calibrated
/// limit (it finished under the full one) stays in the queue, but is no
/// parent: its mutants would mostly take the short limit to say nothing,
/// as AFL++ keeps no such test at all. What lies behind the slow path is
/// still reached, from fast parents.
#[test]
fn a_test_slower_than_the_calibrated_limit_is_kept_but_is_no_parent() {
    let dir = tempfile::tempdir().unwrap();
    let prog = fixture("slowpath", dir.path());
    let (stats, out) = campaign(&prog, dir.path(), "out", &["--time", "8s"]);
    assert!(stats["slow_runs"].as_u64().unwrap() > 0, "{stats}");
    let mut len = std::collections::HashMap::new();
    let mut parents = Vec::new();
    for sub in ["queue", "hangs"] {
        for name in names(&out.join(sub)) {
            let id: u64 = name[3..9].parse().unwrap();
            if sub == "queue" {
                len.insert(id, std::fs::metadata(out.join(sub).join(&name)).unwrap().len());
            }
            if let Some(src) = name.split(",src:").nth(1) {
                let src = src.split(',').next().unwrap();
                parents.extend(src.split('+').map(|p| (p.parse::<u64>().unwrap(), name.clone())));
            }
        }
    }
    let slow = len.values().filter(|&&l| l > 24).count();
    assert!(slow >= 2, "the slow path's outcomes were not found: {len:?}");
    for (p, child) in parents {
        assert!(len[&p] <= 24, "{child} was made from a test of {} bytes, which takes 50 ms", len[&p]);
    }
}
