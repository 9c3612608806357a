//! Kept system tests trimmed as AFL++ trims its queue.

use crate::util::*;

/// The sizes of the tests a campaign kept in its queue (seeds left out),
/// and whether each one's trail labels cover it byte for byte.
fn kept(out: &std::path::Path) -> (Vec<usize>, bool) {
    let mut sizes = Vec::new();
    let mut labelled = true;
    for name in names(&out.join("queue")).into_iter().filter(|n| !n.contains(",orig:")) {
        let data = std::fs::read(out.join("queue").join(&name)).unwrap();
        let trail = std::fs::read(out.join("trails/queue").join(format!("{name}.json"))).unwrap();
        let record: serde_json::Value = serde_json::from_slice(&trail).unwrap();
        let runs = record["labels"].as_array().cloned().unwrap_or_default();
        let len: u64 = runs.iter().map(|r| r["len"].as_u64().unwrap_or(0)).sum();
        labelled &= len as usize == data.len();
        sizes.push(data.len());
    }
    sizes.sort_unstable();
    (sizes, labelled)
}

/// A program that looks at its input's first 16 bytes only: with trimming
/// the tests it keeps lose the padding its seed came with as they come up
/// as parents, their files rewritten and their labels trimmed with them;
/// with --no-trim they keep it.
#[test]
fn kept_tests_lose_the_bytes_that_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let prog = fixture("padded", dir.path());
    let p = prog.to_str().unwrap();
    let seeds = dir.path().join("seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    let padding: Vec<u8> = (0..300).map(|i| b'a' + (i % 26) as u8).collect();
    std::fs::write(seeds.join("a"), [&b"Ab"[..], &padding].concat()).unwrap();
    let run = |out: &str, extra: &[&str]| {
        let o = dir.path().join(out);
        let mut args = vec![
            "run",
            "-i",
            seeds.to_str().unwrap(),
            "-o",
            o.to_str().unwrap(),
            "--time",
            "6s",
            "--unit",
            "none",
            "--batch",
            "10",
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--", p, "@@"]);
        let r = bridge(&args, b"");
        assert!(r.status.success(), "{}", stderr(&r));
        (o, stdout(&r))
    };
    let (trimmed, said) = run("trimmed", &[]);
    let (whole, _) = run("whole", &["--no-trim"]);
    let (t, t_labelled) = kept(&trimmed);
    let (w, _) = kept(&whole);
    assert!(!t.is_empty() && !w.is_empty(), "both keep tests: {t:?} {w:?}");
    assert!(t_labelled, "trimmed tests keep labels of their length");
    // Only the first 16 bytes change anything; the smallest chunk cut is
    // 4 bytes, so a trimmed test has at most 19. Favoured entries are
    // trimmed as they come up for mutation, 4 before each batch of 10
    // tests: most of them in 6 s.
    let big = |v: &[usize]| v.iter().filter(|&&n| n >= 20).count();
    eprintln!("trimmed {t:?}\nwhole {w:?}");
    assert!(big(&t) < big(&w), "trimmed {t:?} against whole {w:?}");
    assert!(said.contains("kept tests trimmed by"), "{said}");
    let stats = &campaign_json(&trimmed)["stats"];
    assert!(stats["trim_runs"].as_u64().unwrap() > 0 && stats["trim_cut_bytes"].as_u64().unwrap() > 0, "{stats}");
    assert_eq!(campaign_json(&whole)["stats"]["trim_runs"].as_u64(), Some(0));
}
