//! carve-clang never corrupts its memory.

use crate::{carve, fixtures, run_in};
use std::path::Path;
use std::process::Command;

/// A regression test of a heap corruption in the pass: a function whose
/// body was deleted block by block (the originals of the out-of-line
/// copies lose their bodies in the symbolic clones' module) freed values
/// that later blocks still used. The compiler then hung or aborted at
/// random, mostly with `-O2 -g`, whose larger heap moved the damage where
/// it showed. valgrind sees every such write, whatever the heap's layout.
#[test]
fn the_pass_writes_no_freed_memory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(fixtures().join("loops.c"), d.join("loops.c")).unwrap();
    for flags in [&["-O2", "-g"][..], &["-O0"][..]] {
        let mut args = vec!["-q", "--error-exitcode=99", "--trace-children=no"];
        let exe = carve();
        args.push(exe.to_str().unwrap());
        args.extend(flags);
        args.extend(["-c", "loops.c", "-o", "loops.o"]);
        let o =
            Command::new("valgrind").current_dir(d).args(&args).output().expect("valgrind (scripts/install-deps.sh)");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success() && !err.contains("Invalid"), "{flags:?}: {:?}\n{err}", o.status);
    }
    run_in(d, &carve(), &["-O2", "-g", "-o", "loops", "loops.c"]);
    run_in(d, Path::new("clang-19"), &["-O2", "-o", "plain", "loops.c"]);
    let args = ["a b  c", "the quick\tbrown fox", ""];
    let mine = Command::new(d.join("loops")).args(args).output().unwrap();
    let theirs = Command::new(d.join("plain")).args(args).output().unwrap();
    assert_eq!(mine.stdout, theirs.stdout);
}
