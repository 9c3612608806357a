//! Commands on units exit non-zero when they could not do their job: a
//! unit that cannot be replayed at all, a directory with no unit.

use crate::util::*;

#[test]
fn a_unit_that_cannot_be_read_fails_the_replay() {
    let dir = tempfile::tempdir().unwrap();
    let good = model::unit::Unit::default().encode();
    let bad = dir.path().join("bad.unit");
    std::fs::write(&bad, &good[..good.len() / 2]).unwrap();
    let o = bridge(&["replay", bad.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("is not a unit test: truncated"), "{err}");
    // In a directory too, alongside another broken unit, and with --json.
    std::fs::write(dir.path().join("empty.unit"), b"").unwrap();
    let o = bridge(&["replay", "--json", dir.path().to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("bad.unit is not a unit test") && err.contains("empty.unit is not a unit test"), "{err}");
    assert!(err.contains("2 of 2 units could not be replayed"), "{err}");
}

/// A listing or an exploration of a directory that holds no unit did not
/// do its job: it says so and exits 1.
#[test]
fn commands_on_a_directory_without_units_fail() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for args in
        [&["units", d][..], &["replay", d], &["fuzz-unit", d, "--", "/bin/true"], &["explore", d, "--", "/bin/true"]]
    {
        let o = bridge(args, b"");
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("no unit"), "{args:?}: {}", stderr(&o));
    }
}
