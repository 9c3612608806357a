//! The grammars shipped under `grammars/`: each loads, parses every seed
//! the benchmarks give its subject (made by `scripts/bench/seeds.sh`) into
//! a tree that spells the seed, and generates tests that parse back.

use std::path::{Path, PathBuf};
use std::process::Command;

use grammar::{parse, Generator, Grammar};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The seeds of `subject` as the benchmarks write them.
fn seeds(subject: &str, dir: &Path) -> Vec<(String, Vec<u8>)> {
    let script = format!(
        "repo='{}'; . \"$repo/scripts/bench/seeds.sh\"; seed_dir {subject} '{}'",
        repo().display(),
        dir.display()
    );
    let out = Command::new("bash").args(["-c", &script]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let d = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    let mut all: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap())
        })
        .collect();
    all.sort();
    all
}

#[test]
fn every_shipped_grammar_derives_its_subjects_seeds_and_its_own_tests() {
    let dir = tempfile::tempdir().unwrap();
    for subject in ["sed", "dc", "cut", "paste", "tac", "b2sum"] {
        let g = Grammar::load(&repo().join("grammars").join(format!("{subject}.json"))).unwrap();
        let seeds = seeds(subject, dir.path());
        assert!(seeds.len() >= 3, "{subject}: {} seeds", seeds.len());
        for (name, data) in &seeds {
            let tree = parse(&g, data).unwrap_or_else(|e| panic!("{subject} seed {name}: {e}"));
            assert_eq!(&tree.text(), data, "{subject} seed {name}");
        }
        let mut gen = Generator::new(&g, 1).unwrap();
        for _ in 0..200 {
            let t = gen.generate(400);
            let text = t.text();
            assert!(text.contains(&b'\n'), "{subject}: a test has its command line, then the file");
            let back =
                parse(&g, &text).unwrap_or_else(|e| panic!("{subject}: {:?}: {e}", String::from_utf8_lossy(&text)));
            assert_eq!(back.text(), text);
        }
    }
}
