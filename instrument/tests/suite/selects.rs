//! A select is a branch the optimiser folded: each of its two outcomes
//! has a counter, the source branch's. (That a run sets only the counter of the
//! outcome it takes is tested end to end, with `bridge showmap`.)

use crate::carve;
use std::process::Command;

/// `flip` folds to `select (s == 0), r, -r`; `pick` to a select of two
/// offsets; `same` to a select whose two sides are one value (none).
const FOLDED: &str = "int flip(int s, int r) { return s == 0 ? r : -r; }\n\
    int pick(int *p, int i) { return i > 3 ? p[0] : p[1]; }\n\
    int same(int *p, int i) { return i > 3 ? p[0] : p[0]; }\n";

#[test]
fn both_outcomes_of_a_select_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("folded.c"), FOLDED).unwrap();
    let o =
        Command::new(carve()).current_dir(d).env("CARVE_DEBUG", "1").args(["-O2", "-c", "folded.c"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let line = err.lines().find(|l| l.contains(" edges (")).expect("the counters line");
    // 3 entries and 4 outcomes: the out-of-line copies' selects are on the
    // same source branches' conditions, and count in their slots.
    assert!(line.ends_with("3 functions, 7 edges (4 branch outcomes)"), "{line}");
}
