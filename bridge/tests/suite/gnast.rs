//! `bridge run --system gnast`: a generative network's tests, with the
//! unit level lifting into the corpus as with any generator, traced back
//! by pseudo-provenance; its options refused in words where they do not
//! apply.

use crate::util::*;

/// magic's crash needs a tag, a `len` line over 200 and a `copy` line:
/// GNAST learns the seeds' shape, and the symbolic unit level, carving the
/// corpus GNAST runs, finds the length and lifts it.
#[test]
fn gnast_runs_with_the_unit_level_and_its_tests_get_pseudo_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let magic = example("magic", dir.path());
    let seeds = seeds_of("magic", dir.path());
    let out = dir.path().join("out");
    let o = bridge(
        &[
            "run",
            "--system",
            "gnast",
            "--gnast-epoch",
            "200",
            "--gnast-max-len",
            "64",
            "-i",
            seeds.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--time",
            "15s",
            "--seed",
            "2",
            "--",
            magic.to_str().unwrap(),
            "@@",
        ],
        b"",
    );
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let c = campaign_json(&out);
    let g = &c["stats"]["generator"];
    assert!(g["epochs"].as_f64().unwrap() >= 2.0, "{g}");
    assert!(g["proposed"].as_f64().unwrap() >= 400.0, "{g}");
    assert_eq!(g["failed"], 0.0, "{g}");
    assert!(g["latent_edit_correlation"].is_number(), "{g}");
    assert_eq!(c["config"]["gnast"]["max_len"], 64, "{}", c["config"]);
    assert!(stdout(&o).contains("bridge run: gnast: "), "{}", stdout(&o));
    // Its own tests are kept, none longer than it makes.
    let made: Vec<String> = names(&out.join("queue")).into_iter().filter(|n| n.ends_with(",op:gnast")).collect();
    assert!(!made.is_empty(), "{:?}", names(&out.join("queue")));
    for n in &made {
        assert!(std::fs::read(out.join("queue").join(n)).unwrap().len() <= 64, "{n}");
    }
    // The unit level lifted the crash into a whole-program input.
    assert!(c["stats"]["unique_true_alarms"].as_u64().unwrap() >= 1, "{}", c["stats"]);
    // A test it made has no labels recorded; provenance rebuilds them and
    // says so, and counts the tokens traced to a seed.
    let p = bridge_json(&["provenance", "--json", out.to_str().unwrap(), &made[0]], b"");
    let steps = p.as_array().unwrap();
    assert!(steps[0]["wrote"].is_null() && steps[0]["pseudo"]["labels"].is_array(), "{p}");
    assert!(steps.last().unwrap()["step"]["path"].as_str().unwrap().contains(",orig:"), "{p}");
    let s = bridge_json(&["provenance", "--json", out.to_str().unwrap()], b"");
    assert_eq!(s["unresolved"], 0, "{s}");
    let u = &s["unrecorded"];
    assert!(u["tests"].as_u64().unwrap() >= 1 && u["tokens"].as_u64().unwrap() >= 1, "{u}");
    assert!(u["bytes"].as_u64().unwrap() >= u["bytes_from_seeds"].as_u64().unwrap().max(1), "{u}");
}

#[test]
fn gnast_options_are_for_gnast_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let magic = example("magic", dir.path());
    let seeds = seeds_of("magic", dir.path());
    let run = |extra: &[&str], out: &str| {
        let out = dir.path().join(out);
        let mut a =
            vec!["run", "--unit", "none", "--time", "2s", "-i", seeds.to_str().unwrap(), "-o", out.to_str().unwrap()];
        a.extend_from_slice(extra);
        let magic = magic.to_str().unwrap().to_string();
        let mut a: Vec<String> = a.into_iter().map(String::from).collect();
        a.extend(["--".to_string(), magic, "@@".to_string()]);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        bridge(&a, b"")
    };
    let o = run(&["--gnast-latent", "8"], "a");
    assert!(!o.status.success() && stderr(&o).contains("--system gnast"), "{}", stderr(&o));
    let o = run(&["--system", "gnast", "--gnast-max-len", "100000"], "b");
    assert!(!o.status.success() && stderr(&o).contains("4096"), "{}", stderr(&o));
    let o = run(&["--system", "gnast", "--gnast-latent", "0"], "c");
    assert!(!o.status.success() && stderr(&o).contains("latent size"), "{}", stderr(&o));
}
