//! The radamsa-like generator through the public interface.

mod labels;

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use systemgen::radamsa::{size_limit, HARD_CAP, MAX_OP_LEN};
use systemgen::{by_name, RadamsaLike, Seed, SystemGenerator, TestCase, Uniform, GENERATORS};

const TEXT: &[u8] = b"# config\nname = \"demo\"\nsize = 10\nlist = [1, 2, (3 + 4)]\n\
                      map = {a: <b>, c: 'd'}\npath = /tmp/x\n";

fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..len).map(|_| rng.random()).collect()
}

fn seeds(entries: &[Vec<u8>]) -> Vec<Seed<'_>> {
    entries
        .iter()
        .enumerate()
        .map(|(i, d)| Seed { id: 100 + i as u64, data: d, labels: None, run_us: 0, favored: false })
        .collect()
}

/// The mutator names listed in an op (`nd:bf+num` holds `bf` and `num`).
fn op_mutators(op: &str) -> Vec<&str> {
    op.split_once(':').map(|(_, m)| m.split('+').collect()).unwrap_or_default()
}

fn check_case(case: &TestCase, corpus: &[Seed<'_>]) {
    let parent = corpus.iter().find(|s| s.id == case.parent).expect("parent from the corpus");
    assert_ne!(case.data, parent.data, "op {}", case.op);
    assert!(case.data.len() <= size_limit(parent.data.len()), "op {}", case.op);
    assert!(case.op.len() <= MAX_OP_LEN, "{}", case.op);
    assert!(case.op.bytes().all(|b| b.is_ascii_alphanumeric() || b"+-_:".contains(&b)), "{}", case.op);
    let (pattern, _) = case.op.split_once(':').expect("pattern:mutators");
    assert!(RadamsaLike::patterns().any(|p| p == pattern), "{}", case.op);
    let names = op_mutators(&case.op);
    assert!(!names.is_empty(), "{}", case.op);
    assert!(names.iter().all(|n| RadamsaLike::mutators().any(|m| m.0 == *n)), "{}", case.op);
}

#[test]
fn registry() {
    assert_eq!(GENERATORS, &["radamsa-like", "grammar", "gnast", "afl++"]);
    let g = || grammar::Grammar::from_json(r#"{"<start>": ["a", "b<start>"]}"#, "g").unwrap();
    assert_eq!(by_name("radamsa-like", 1, None).expect("known").name(), "radamsa-like");
    assert_eq!(by_name("grammar", 1, Some((g(), systemgen::Mode::Inverse))).expect("known").name(), "grammar");
    let err = |r: Result<Box<dyn SystemGenerator>, String>| r.err().expect("an error");
    assert!(err(by_name("nope", 1, None)).contains("known: radamsa-like, grammar, gnast, afl++"));
    // GNAST first runs the corpus again (to see its edge maps), then makes
    // tests of its own, recorded without labels.
    let mut gnast = by_name("gnast", 1, None).expect("known");
    let corpus = [Seed { id: 4, data: b"seed", labels: None, run_us: 0, favored: false }];
    let batch = gnast.generate(&corpus, &mut Uniform::new(1, 1), 10);
    assert_eq!(batch.len(), 10);
    assert_eq!((batch[0].op.as_str(), batch[0].data.as_slice(), batch[0].parent), ("gnast-replay", &b"seed"[..], 4));
    assert!(batch[1..].iter().all(|t| t.op == "gnast" && t.parent == 4), "{batch:?}");
    assert!(!gnast.records_labels());
    assert!(err(by_name("gnast", 1, Some((g(), systemgen::Mode::Uniform)))).contains("--system grammar"));
    let small = systemgen::GnastOptions { latent: 0, ..Default::default() };
    let refused = systemgen::Config::new("gnast", None).and_then(|c| c.with_gnast(Some(small)));
    assert!(refused.expect_err("an error").contains("latent size"));
    let other = systemgen::Config::new("radamsa-like", None).and_then(|c| c.with_gnast(Some(Default::default())));
    assert!(other.expect_err("an error").contains("--system gnast"));
    let mut external = by_name("afl++", 1, None).expect("known");
    assert!(
        external
            .generate(
                &[Seed { id: 0, data: b"x", labels: None, run_us: 0, favored: false }],
                &mut Uniform::new(1, 1),
                10
            )
            .is_empty(),
        "afl++ makes no tests"
    );
    assert!(err(by_name("grammar", 1, None)).contains("--grammar"));
    assert!(err(by_name("radamsa-like", 1, Some((g(), systemgen::Mode::Uniform)))).contains("--system grammar"));
    // What a campaign asks of a generator, not of its name: whether it
    // makes tests, and the grammar they derive in.
    let radamsa = by_name("radamsa-like", 1, None).unwrap();
    let grammar = by_name("grammar", 1, Some((g(), systemgen::Mode::Inverse))).unwrap();
    assert_eq!((radamsa.generates(), grammar.generates(), external.generates()), (true, true, false));
    assert!(radamsa.grammar().is_none() && external.grammar().is_none());
    assert_eq!(grammar.grammar().map(|g| g.rules.len()), Some(g().rules.len()));
}

/// Generates `rounds` batches, giving feedback on each case by `interesting`.
fn campaign(
    gen: &mut dyn SystemGenerator,
    corpus: &[Seed<'_>],
    rounds: usize,
    interesting: impl Fn(&TestCase) -> bool,
) -> Vec<TestCase> {
    let mut all = Vec::new();
    let mut parents = Uniform::new(corpus.len(), 1);
    for _ in 0..rounds {
        let cases = gen.generate(corpus, &mut parents, 50);
        for c in &cases {
            gen.feedback(c, Some(&[]), interesting(c));
        }
        all.extend(cases);
    }
    all
}

#[test]
fn deterministic() {
    let entries = vec![TEXT.to_vec(), random_bytes(1, 300), Vec::new()];
    let corpus = seeds(&entries);
    let odd = |c: &TestCase| c.data.len().is_multiple_of(3);
    let a = campaign(&mut RadamsaLike::new(7), &corpus, 20, odd);
    let b = campaign(&mut RadamsaLike::new(7), &corpus, 20, odd);
    let c = campaign(&mut RadamsaLike::new(8), &corpus, 20, odd);
    assert_eq!(a, b);
    assert_ne!(a, c);
    let boxed = campaign(by_name("radamsa-like", 7, None).unwrap().as_mut(), &corpus, 20, odd);
    assert_eq!(a, boxed);
}

#[test]
fn empty_and_binary_inputs_never_panic() {
    for seed in 0..300u64 {
        let entries = vec![
            Vec::new(),
            random_bytes(seed, (seed as usize * 7) % 200),
            vec![0; 3],
            b"\n".to_vec(),
            b"((((".to_vec(),
            b"\"".to_vec(),
            b"-".to_vec(),
        ];
        let corpus = seeds(&entries);
        let mut gen = RadamsaLike::new(seed);
        for c in campaign(&mut gen, &corpus, 2, |c| c.data.len().is_multiple_of(2)) {
            check_case(&c, &corpus);
        }
        // A corpus of one empty entry still yields tests.
        let empty = [Seed { id: 5, data: &[], labels: None, run_us: 0, favored: false }];
        for c in gen.generate(&empty, &mut Uniform::new(empty.len(), 1), 20) {
            assert!(!c.data.is_empty());
            assert_eq!(c.parent, 5);
        }
    }
}

#[test]
fn without_a_dictionary_no_token_is_put_in() {
    let entries = vec![TEXT.to_vec(), random_bytes(3, 256)];
    let corpus = seeds(&entries);
    let cases = campaign(&mut RadamsaLike::new(3), &corpus, 40, |_| false);
    assert!(cases.iter().all(|c| !op_mutators(&c.op).contains(&"ti") && !op_mutators(&c.op).contains(&"to")));
    assert!(!RadamsaLike::new(3).add_tokens(&[Vec::new()]), "an empty token is no dictionary");
}

#[test]
fn every_op_shows_up() {
    let entries = vec![TEXT.to_vec(), random_bytes(3, 256)];
    let corpus = seeds(&entries);
    let mut gen = RadamsaLike::new(3);
    // The token mutators need a dictionary.
    assert!(gen.add_tokens(&[b"while".to_vec(), b"\x89PNG".to_vec(), b"_".to_vec()]));
    let cases = campaign(&mut gen, &corpus, 100, |_| false);
    for c in &cases {
        check_case(c, &corpus);
    }
    for (name, _) in RadamsaLike::mutators() {
        assert!(cases.iter().any(|c| op_mutators(&c.op).contains(&name)), "{name} never used");
    }
    for p in RadamsaLike::patterns() {
        assert!(cases.iter().any(|c| c.op.starts_with(&format!("{p}:"))), "{p} never used");
    }
}

#[test]
fn outputs_respect_size_caps() {
    for (len, cap, n) in [(1024, 4 << 10, 3000), (200 << 10, 800 << 10, 300), (2 << 20, HARD_CAP, 40)] {
        let entries = vec![TEXT.repeat(len / TEXT.len() + 1)[..len].to_vec()];
        let corpus = seeds(&entries);
        let mut gen = RadamsaLike::new(len as u64);
        let mut largest = 0;
        for c in gen.generate(&corpus, &mut Uniform::new(corpus.len(), 1), n) {
            assert!(c.data.len() <= cap, "{} > {cap} by {}", c.data.len(), c.op);
            largest = largest.max(c.data.len());
        }
        if len < cap {
            assert!(largest > len, "some tests grow");
        }
    }
}

#[test]
fn mutators_on_crafted_inputs() {
    let mut gen = RadamsaLike::new(11);
    let none: &[Seed<'_>] = &[];
    for _ in 0..100 {
        // `num` changes the number and keeps the rest.
        let out = gen.mutate_once("num", b"len 10", none).unwrap();
        let n = std::str::from_utf8(&out).unwrap().strip_prefix("len ").unwrap().to_string();
        assert_ne!(n, "10");
        assert!(n.trim_start_matches('-').bytes().all(|b| b.is_ascii_digit()), "{n}");

        // `uw` turns one ASCII byte into an overlong sequence.
        let out = gen.mutate_once("uw", b"/", none).unwrap();
        assert!([&[0xc0, 0xaf][..], &[0xe0, 0x80, 0xaf], &[0xf0, 0x80, 0x80, 0xaf]].contains(&&out[..]));
        assert!(std::str::from_utf8(&out).is_err());

        // Line ops keep whole lines.
        let text = b"one\ntwo\nthree\n";
        for op in ["ld", "lr2", "li", "ls", "lp", "lr"] {
            if let Some(out) = gen.mutate_once(op, text, none) {
                assert!(out.ends_with(b"\n"), "{op}");
                let lines: Vec<&[u8]> = out[..out.len() - 1].split(|&b| b == b'\n').collect();
                assert!(lines.iter().all(|l| [&b"one"[..], b"two", b"three"].contains(l)), "{op}");
            }
        }

        // Tree ops keep brackets balanced.
        let doc = b"a(b[c]{d<e>}) [f]";
        for op in ["td", "tr2", "ts1", "ts2", "tr"] {
            if let Some(out) = gen.mutate_once(op, doc, none) {
                let depth = out.iter().try_fold(0i32, |d, b| {
                    let d = d + match b {
                        b'(' | b'[' | b'{' | b'<' => 1,
                        b')' | b']' | b'}' | b'>' => -1,
                        _ => 0,
                    };
                    (d >= 0).then_some(d)
                });
                assert_eq!(depth, Some(0), "{op}: {}", String::from_utf8_lossy(&out));
            }
        }
    }
    // Inserting mutators work on empty input; the others decline.
    for (name, _) in RadamsaLike::mutators() {
        let out = gen.mutate_once(name, b"", none);
        if ["bi", "ui", "ab"].contains(&name) {
            assert!(out.is_some(), "{name}");
        }
    }
    assert!(gen.mutate_once("nope", b"x", none).is_none());
}

#[test]
fn scores_adapt_to_feedback() {
    let entries = vec![TEXT.to_vec()];
    let corpus = seeds(&entries);
    let uses_num = |c: &TestCase| op_mutators(&c.op).contains(&"num");
    let mut rewarded = RadamsaLike::new(5);
    let mut control = RadamsaLike::new(5);
    campaign(&mut rewarded, &corpus, 40, uses_num);
    campaign(&mut control, &corpus, 40, |_| false);
    assert!(rewarded.score("num").unwrap() > control.score("num").unwrap());
    let share = |gen: &mut RadamsaLike| {
        let cases = gen.generate(&corpus, &mut Uniform::new(corpus.len(), 1), 4000);
        cases.iter().filter(|c| uses_num(c)).count() as f64 / cases.len() as f64
    };
    let (r, c) = (share(&mut rewarded), share(&mut control));
    eprintln!("num used in {:.0} % of tests after rewards, {:.0} % without", r * 100.0, c * 100.0);
    assert!(r > 1.5 * c, "{r} vs {c}");
}

#[test]
fn throughput() {
    let entries = vec![TEXT.repeat(20)[..1024].to_vec(), random_bytes(9, 1024)];
    let corpus = seeds(&entries);
    let mut gen = RadamsaLike::new(1);
    let start = Instant::now();
    let mut total = 0;
    let mut bytes = 0;
    let mut listed = 0;
    while total < 100_000 {
        let cases = gen.generate(&corpus, &mut Uniform::new(corpus.len(), 1), 1000);
        for c in &cases {
            gen.feedback(c, Some(&[]), false);
            bytes += c.data.len();
            listed += op_mutators(&c.op).len();
        }
        total += cases.len();
    }
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "{total} tests of 1 KiB seeds in {secs:.2} s: {:.0} tests/s, {:.2} distinct mutators \
         per test, {:.0} bytes on average",
        total as f64 / secs,
        listed as f64 / total as f64,
        bytes as f64 / total as f64
    );
    assert!(secs < 20.0, "{secs} s");
}

/// A test that took bytes from other corpus entries (a splice) names them
/// as its other parents: entries of the corpus, not its first parent.
#[test]
fn splices_name_their_other_parents() {
    let entries = vec![TEXT.to_vec(), b"alpha beta gamma\ndelta\n".to_vec(), random_bytes(3, 64)];
    let corpus = seeds(&entries);
    let mut g = RadamsaLike::new(7);
    let mut spliced = 0;
    for _ in 0..20 {
        for case in g.generate(&corpus, &mut Uniform::new(corpus.len(), 1), 100) {
            for d in &case.donors {
                assert!(corpus.iter().any(|s| s.id == *d) && *d != case.parent, "{:?} of {}", case.donors, case.parent);
            }
            assert!(case.donors.windows(2).all(|w| w[0] < w[1]), "{:?}", case.donors);
            spliced += usize::from(!case.donors.is_empty());
        }
    }
    assert!(spliced > 0, "no splice in 2000 tests");
}
