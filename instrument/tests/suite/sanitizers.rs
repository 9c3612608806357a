//! carve-clang with sanitizers: ASan and UBSan builds carry the same
//! counters as a plain build (a sanitizer's checks are not branches of
//! the program), report as clang's do, and sanitizers that are not
//! supported are refused with the reason.

use crate::{carve, fixtures, run_in};
use std::path::Path;
use std::process::Command;

/// `carve-clang: checked.c: 3 functions, N edges (M branch outcomes)`.
fn counters(d: &Path, flags: &[&str]) -> String {
    let mut args = vec!["-O2", "-c", "checked.c", "-o", "checked.o"];
    args.extend(flags);
    let o = Command::new(carve()).current_dir(d).env("CARVE_DEBUG", "1").args(&args).output().unwrap();
    assert!(o.status.success(), "{flags:?}: {}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    err.lines().find(|l| l.contains(" edges (")).expect("the counters line").to_string()
}

/// Memory accesses (an ASan check each), arithmetic that may overflow and
/// an index that may be out of bounds (UBSan checks), and one branch of
/// the program's own.
const CHECKED: &str = "int table[8];\n\
    int sum4(int *p) { return p[0] + p[1] * p[2] - p[3]; }\n\
    int scale(int a, int b) { return a * b + table[a & 7]; }\n\
    int pick(int i, int j) { if (i > j) return sum4(table + (i & 3)); return scale(j, i); }\n";

#[test]
fn sanitized_builds_count_the_programs_branches_only() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("checked.c"), CHECKED).unwrap();
    let plain = counters(d, &[]);
    assert!(plain.ends_with("3 functions, 5 edges (2 branch outcomes)"), "{plain}");
    for flags in [&["-fsanitize=address"][..], &["-fsanitize=undefined"], &["-fsanitize=address,undefined", "-g"]] {
        assert_eq!(counters(d, flags), plain, "{flags:?}");
    }
}

#[test]
fn sanitized_programs_report_as_clangs_builds_do() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("t.c"),
        "#include <stdlib.h>\n#include <string.h>\nint main(int argc, char **argv) {\n  char *p = malloc(4);\n  \
         memset(p, 0, 4);\n  int r = argc > 1 ? p[strlen(argv[1])] : 0;\n  free(p);\n  return r;\n}\n",
    )
    .unwrap();
    run_in(d, &carve(), &["-O1", "-g", "-fsanitize=address", "-o", "t", "t.c"]);
    let ok = Command::new(d.join("t")).arg("ab").output().unwrap();
    assert!(ok.status.success());
    let bad = Command::new(d.join("t")).arg("abcd").env("ASAN_OPTIONS", "detect_leaks=0").output().unwrap();
    let report = String::from_utf8_lossy(&bad.stderr);
    assert!(report.contains("AddressSanitizer: heap-buffer-overflow") && report.contains("READ of size 1"), "{report}");
}

#[test]
fn unsupported_sanitizers_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(fixtures().join("loops.c"), d.join("loops.c")).unwrap();
    for (flag, why) in [("-fsanitize=memory", "MemorySanitizer"), ("-fsanitize=thread", "ThreadSanitizer")] {
        let o = Command::new(carve()).current_dir(d).args([flag, "-c", "loops.c"]).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(&format!("{flag} is not supported")) && err.contains(why), "{err}");
    }
    // Turned off again, it is no request.
    run_in(d, &carve(), &["-fsanitize=thread", "-fno-sanitize=thread", "-c", "loops.c"]);
}
