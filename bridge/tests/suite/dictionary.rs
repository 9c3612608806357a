//! The system generator's dictionary: the constants the program compares
//! with (collected by carve-clang, listed by the runtime) and `--dict`
//! files in AFL++'s format.

use crate::util::*;
use std::path::{Path, PathBuf};

/// A campaign of the system level alone on `keyword` (seed "hello world"),
/// with `extra` options: its directory and stderr.
fn campaign(dir: &Path, prog: &Path, out: &str, extra: &[&str]) -> (PathBuf, String) {
    let seeds = dir.join("seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    std::fs::write(seeds.join("a"), b"hello world\n").unwrap();
    let o = dir.join(out);
    let mut args =
        vec!["run", "-i", seeds.to_str().unwrap(), "-o", o.to_str().unwrap(), "--time", "8s", "--unit", "none"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", prog.to_str().unwrap(), "@@"]);
    let r = bridge(&args, b"");
    assert!(r.status.success(), "{}", stderr(&r));
    (o, stderr(&r))
}

/// The crashes a campaign kept whose input holds the word.
fn keyword_crashes(out: &Path) -> usize {
    let dir = out.join("crashes");
    names(&dir)
        .into_iter()
        .filter(|n| n.starts_with("id:"))
        .filter(|n| std::fs::read(dir.join(n)).unwrap().windows(5).any(|w| w == b"xyzzy"))
        .count()
}

/// carve-clang puts the string `strcmp` compares with in the program's
/// dictionary, and the characters it compares `word[0]` with; the program
/// lists them; the campaign's system level alone
/// (no unit level to solve for it) writes it into a test and aborts the
/// program.
#[test]
fn the_program_s_own_comparisons_make_its_dictionary() {
    let dir = tempfile::tempdir().unwrap();
    let prog = fixture("keyword", dir.path());
    let list = dir.path().join("list");
    let st = std::process::Command::new(&prog).arg("/dev/null").env("CARVE_LIST", &list).status().unwrap();
    assert!(st.success());
    let listed = std::fs::read_to_string(&list).unwrap();
    // strcmp's string (the optimiser may make it a bcmp of its 6 bytes,
    // NUL and all: the literal alone is listed too), the character
    // compared with `==`, a switch's cases.
    for t in ["78797a7a79", "23", "2b", "2d", "7e"] {
        assert!(listed.lines().any(|l| l == format!("token {t}")), "{t} listed:\n{listed}");
    }
    // Unoptimised, the comparisons stay calls: memmem's needle is its
    // third argument and keeps its NUL; the empty string and the array of
    // zeros (no bytes of their own in the IR) are skipped, not read.
    let o0 = dir.path().join("o0");
    std::fs::create_dir_all(&o0).unwrap();
    let unopt = carve_compile_with(&repo().join("bridge/tests/fixtures/keyword.c"), &o0, &["-O0"]);
    let st = std::process::Command::new(&unopt).arg("/dev/null").env("CARVE_LIST", &list).status().unwrap();
    assert!(st.success());
    let listed = std::fs::read_to_string(&list).unwrap();
    for t in ["78797a7a79", "7f454c0046"] {
        assert!(listed.lines().any(|l| l == format!("token {t}")), "{t} listed at -O0:\n{listed}");
    }
    let (out, said) = campaign(dir.path(), &prog, "auto", &[]);
    assert!(said.contains("a dictionary of"), "{said}");
    let stats = &campaign_json(&out)["stats"];
    assert!(stats["tokens_auto"].as_u64().unwrap() >= 1, "{stats}");
    assert!(keyword_crashes(&out) >= 1, "a crash with the word: {:?}", names(&out.join("crashes")));
}

/// `--dict` (`-x`) adds a file's tokens, with the program's own left out
/// (`--no-auto-dict`); a file with an error is refused, naming its line,
/// before the campaign's directory is made.
#[test]
fn a_dictionary_file_is_read_and_a_bad_one_refused() {
    let dir = tempfile::tempdir().unwrap();
    let prog = fixture("keyword", dir.path());
    let good = dir.path().join("words.dict");
    std::fs::write(&good, "# AFL++'s format\nmagic=\"xyzzy\"\n\"\\x00\\x01\"\n").unwrap();
    let (out, said) = campaign(dir.path(), &prog, "given", &["--no-auto-dict", "-x", good.to_str().unwrap()]);
    assert!(said.contains("a dictionary of 2 tokens (0 from the program's comparisons, 2 from --dict)"), "{said}");
    assert!(keyword_crashes(&out) >= 1, "a crash with the word: {:?}", names(&out.join("crashes")));

    let bad = dir.path().join("bad.dict");
    std::fs::write(&bad, "\"fine\"\nnot a token\n").unwrap();
    let o = dir.path().join("refused");
    let seeds = dir.path().join("seeds");
    let r = bridge(
        &[
            "run",
            "-i",
            seeds.to_str().unwrap(),
            "-o",
            o.to_str().unwrap(),
            "-x",
            bad.to_str().unwrap(),
            "--",
            prog.to_str().unwrap(),
            "@@",
        ],
        b"",
    );
    assert!(!r.status.success());
    assert!(stderr(&r).contains("bad.dict:2"), "{}", stderr(&r));
    assert!(!o.exists(), "nothing written for a refused campaign");
}
