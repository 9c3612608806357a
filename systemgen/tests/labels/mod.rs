//! Every generated test's labels are exact: random mutation chains over a
//! small corpus of varied seeds, each several generations deep (a test
//! joins the corpus with its labels, adopted under its new id, and later
//! tests are made from it), every mutator used; every copied byte of every
//! test is compared with the byte its label names. `LABEL_CHAINS` chains
//! (default 300; `scripts/bench/labels.sh` runs 100 000).

use std::time::Instant;

use provenance::{Labels, Origin};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use systemgen::{RadamsaLike, Seed, SystemGenerator, Uniform};

/// Generations per chain.
const DEPTH: usize = 6;
/// Tests generated per generation (one of them joins the corpus), besides
/// one made by a named mutator.
const PER_GENERATION: usize = 3;

struct Entry {
    id: u64,
    data: Vec<u8>,
    /// `None` for a seed (its own bytes).
    labels: Option<Labels>,
}

/// Seeds of every kind the mutators care about: lines, numbers, brackets,
/// UTF-8, binary, tiny and empty.
fn seeds(rng: &mut ChaCha8Rng) -> Vec<Vec<u8>> {
    let mut lines = Vec::new();
    for i in 0..rng.random_range(3..40) {
        lines.extend_from_slice(format!("key{i} = value {} # line {i}\n", rng.random_range(0..100_000)).as_bytes());
    }
    let numbers: Vec<u8> = (0..rng.random_range(1..60))
        .map(|_| rng.random_range(-5000i64..5000).to_string())
        .collect::<Vec<_>>()
        .join(",")
        .into_bytes();
    let binary: Vec<u8> = (0..rng.random_range(0..2048)).map(|_| rng.random()).collect();
    let tree = b"{\"a\": [1, 2, {\"b\": (x + y) * <z>}], \"c\": 'quoted ( text'}\n(f (g 1) [h 2])\n".to_vec();
    let utf8 = "päivää ünïcödé → ∑ 日本語 ok\nsecond line\n".as_bytes().to_vec();
    let args = b"-v --size 10 input.txt\nGET /index.html HTTP/1.0\r\nHost: a\r\n\r\n".to_vec();
    vec![lines, numbers, binary, tree, utf8, args, b"x".to_vec(), Vec::new()]
}

/// Bytes whose label is not exact: copied from a test that is not in the
/// corpus, past its end, or from another byte; and the bytes by which the
/// labels' length differs from the test's.
fn mismatches(labels: &Labels, data: &[u8], corpus: &[Entry]) -> usize {
    let mut bad = labels.len().abs_diff(data.len());
    for (at, run) in labels.runs() {
        let Origin::Copied { test, offset } = run.origin else { continue };
        let src = corpus.iter().find(|e| e.id == test).map(|e| &e.data[..]).unwrap_or(&[]);
        for k in 0..run.len as usize {
            let (i, j) = (at + k, offset as usize + k);
            bad += usize::from(i >= data.len() || src.get(j) != Some(&data[i]));
        }
    }
    bad
}

/// What a run of chains showed.
#[derive(Default)]
struct Tally {
    tests: usize,
    bytes: usize,
    copied: usize,
    mismatches: usize,
    /// Tests each mutator took part in.
    made: Vec<(&'static str, usize)>,
}

impl Tally {
    fn check(&mut self, labels: &Labels, data: &[u8], corpus: &[Entry], ops: &[&str]) {
        let bad = mismatches(labels, data, corpus);
        if bad > 0 && self.mismatches == 0 {
            eprintln!("first mismatch: {:?} (ops {ops:?})", labels.check(data, |id| source(corpus, id)).err());
        }
        self.mismatches += bad;
        self.tests += 1;
        self.bytes += data.len();
        self.copied += labels
            .runs()
            .filter(|(_, r)| matches!(r.origin, Origin::Copied { .. }))
            .map(|(_, r)| r.len as usize)
            .sum::<usize>();
        for op in ops {
            if let Some(m) = self.made.iter_mut().find(|m| m.0 == *op) {
                m.1 += 1;
            }
        }
    }
}

fn source(corpus: &[Entry], id: u64) -> Option<&[u8]> {
    corpus.iter().find(|e| e.id == id).map(|e| &e.data[..])
}

/// One chain: a corpus of seeds, `DEPTH` generations, each test checked.
fn chain(c: u64, tally: &mut Tally) {
    let mut rng = ChaCha8Rng::seed_from_u64(c);
    let mut gen = RadamsaLike::new(c);
    gen.add_tokens(&[b"while".to_vec(), b"\x89PNG".to_vec(), b"_".to_vec()]);
    let mut corpus: Vec<Entry> =
        seeds(&mut rng).into_iter().enumerate().map(|(i, data)| Entry { id: i as u64, data, labels: None }).collect();
    let names: Vec<&'static str> = RadamsaLike::mutators().map(|m| m.0).collect();
    for depth in 0..DEPTH {
        let mut made = {
            let view: Vec<Seed<'_>> = corpus
                .iter()
                .map(|e| Seed { id: e.id, data: &e.data, labels: e.labels.as_ref(), run_us: 0, favored: false })
                .collect();
            let mut made = Vec::new();
            for case in gen.generate(&view, &mut Uniform::new(view.len(), c + depth as u64), PER_GENERATION) {
                let ops: Vec<&str> = case.op.split_once(':').map(|(_, m)| m.split('+').collect()).unwrap_or_default();
                tally.check(&case.labels, &case.data, &corpus, &ops);
                gen.feedback(&case, Some(&[]), rng.random_ratio(1, 4));
                made.push((case.data, case.labels));
            }
            // A named mutator, every one in turn, on a random entry.
            let name = names[(c as usize * DEPTH + depth) % names.len()];
            let seed = view[rng.random_range(0..view.len())];
            if let Some((data, labels)) = gen.mutate_once_labelled(name, seed, &view) {
                tally.check(&labels, &data, &corpus, &[name]);
                made.push((data, labels));
            }
            made
        };
        // One of this generation's tests joins the corpus under a new id.
        let (data, mut labels) = made.swap_remove(rng.random_range(0..made.len()));
        let id = corpus.len() as u64 + 1000;
        labels.adopt(id);
        assert_eq!(mismatches(&labels, &data, &corpus), 0, "adopted labels stay exact");
        corpus.push(Entry { id, data, labels: Some(labels) });
    }
}

#[test]
fn generated_tests_carry_exact_labels() {
    let chains: u64 = std::env::var("LABEL_CHAINS").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
    let start = Instant::now();
    let mut tally = Tally { made: RadamsaLike::mutators().map(|m| (m.0, 0)).collect(), ..Tally::default() };
    for c in 0..chains {
        chain(c, &mut tally);
    }
    let secs = start.elapsed().as_secs_f64();
    eprintln!("| chains | tests | bytes checked | mismatches | seconds |");
    eprintln!("| {chains} | {} | {} | {} | {secs:.2} |", tally.tests, tally.bytes, tally.mismatches);
    eprintln!(
        "{:.1} % of the bytes copied from a seed or test; tests per mutator: {:?}",
        100.0 * tally.copied as f64 / tally.bytes.max(1) as f64,
        tally.made
    );
    assert_eq!(tally.mismatches, 0);
    for (name, n) in &tally.made {
        assert!(*n > 0, "{name} made no test");
    }
}
