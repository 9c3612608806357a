//! Numbers kept as dc keeps them, a sign field beside a digit array, end
//! to end: the outcomes of a select (a branch the optimiser folded) are
//! edges of their own, and the sign maps to the mark in front of the
//! digits, so that the solver's new sign lifts as `_` put in or taken out.

use crate::util::*;
use std::os::unix::process::ExitStatusExt;

/// The edge ids a run of `prog` on `input` covers.
fn edges(prog: &std::path::Path, input: &[u8], dir: &std::path::Path) -> std::collections::BTreeSet<String> {
    let (file, map) = (dir.join("in"), dir.join("map"));
    std::fs::write(&file, input).unwrap();
    let (f, m) = (file.to_str().unwrap(), map.to_str().unwrap());
    let o = bridge(&["showmap", "--edges-only", "-i", f, "-o", m, "--", prog.to_str().unwrap(), "@@"], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read_to_string(&map).unwrap().lines().map(str::to_string).collect()
}

/// `compare` returns `a->sign == 0 ? 1 : -1` for numbers of two signs, a
/// select at -O2: the runs that take either side differ in that edge
/// alone (each reads one number with `_` and one without).
#[test]
fn the_two_sides_of_a_select_are_edges_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let prog = fixture("signs", dir.path());
    let (a, b) = (edges(&prog, b"_1 2\n", dir.path()), edges(&prog, b"1 _2\n", dir.path()));
    let only_a: Vec<_> = a.difference(&b).collect();
    let only_b: Vec<_> = b.difference(&a).collect();
    assert!(only_a.len() == 1 && only_b.len() == 1, "{only_a:?} {only_b:?}");
}

/// Two positive numbers of different lengths: the solver makes both
/// negative, and the lift writes the input's own mark (`_`, from the
/// third number) in front of both, which aborts the program.
#[test]
fn a_sign_field_is_mapped_solved_and_lifted_as_the_inputs_mark() {
    let dir = tempfile::tempdir().unwrap();
    let prog = fixture("signs", dir.path());
    let p = prog.to_str().unwrap();
    let units = dir.path().join("units");
    let u = units.to_str().unwrap();
    let carve = bridge(&["carve", "-o", u, "--functions", "^compare$", "--", p, "@@"], b"12 3 _7\n");
    assert!(carve.status.success(), "{}", stderr(&carve));
    let listed = bridge(&["units", u], b"");
    assert!(String::from_utf8_lossy(&listed.stdout).contains("sign"), "{}", String::from_utf8_lossy(&listed.stdout));
    let o = dir.path().join("out");
    let sum = bridge_json(&["explore", u, "--tries", "20", "--json", "-o", o.to_str().unwrap(), "--", p, "@@"], b"");
    let alarms = sum["alarms"].as_array().unwrap();
    let alarm = alarms.iter().find(|a| a["function"] == "compare").unwrap_or_else(|| panic!("no alarm: {sum}"));
    assert_eq!(alarm["outcome"], "crash (signal 6, SIGABRT)", "{alarm}");
    let kept: Vec<_> = std::fs::read_dir(o.join("alarms")).unwrap().map(|a| a.unwrap().path().join("input")).collect();
    assert!(!kept.is_empty());
    for input in kept {
        assert!(std::fs::read(&input).unwrap().starts_with(b"_12 _3"), "{}", input.display());
        let st = std::process::Command::new(&prog).arg(&input).output().unwrap().status;
        assert_eq!(st.signal(), Some(6), "{} does not reproduce", input.display());
    }
}
