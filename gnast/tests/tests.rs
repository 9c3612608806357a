//! The GNAST loop on a small program written in Rust: a lexer of
//! lowercase words whose transitions (pairs of adjacent letters) are its
//! edges; any other byte but a blank is an error that ends the run.

use gnast::{Gnast, Options, NO_ANCHOR};

fn small() -> Options {
    Options {
        latent: 4,
        max_len: 16,
        epoch: 32,
        train_share: 1.0,
        steps: 8,
        keep: 48,
        features: 128,
        hidden: 64,
        width: 16,
        batch: 16,
        lr: 3e-3,
        noise: 0.1,
    }
}

/// The edge map of a run on `data`.
fn run(data: &[u8]) -> Vec<u8> {
    let mut map = vec![0u8; 1 << 16];
    let mut prev = 0usize;
    for &b in data {
        if b == b' ' {
            prev = 0;
            continue;
        }
        if !b.is_ascii_lowercase() {
            map[7] = 1;
            break;
        }
        let e = ((usize::from(b) * 2_654_435_761) ^ prev) & 0xffff;
        map[e] = map[e].saturating_add(1);
        prev = usize::from(b) << 3;
    }
    map
}

const SEEDS: [&[u8]; 3] = [b"hello", b"help me", b"hero"];

fn seeded(opts: Options) -> Gnast {
    let mut g = Gnast::new(opts, 7).unwrap();
    for (i, s) in SEEDS.iter().enumerate() {
        g.observe(s, &run(s), i as u64 + 1, false);
    }
    g.train().unwrap();
    g
}

/// Epochs of propose, run, observe, train.
fn epochs(g: &mut Gnast, n: usize) {
    for _ in 0..n {
        let batch = g.options().epoch;
        for p in g.propose(batch).unwrap() {
            assert!(p.data.len() <= g.options().max_len);
            g.observe(&p.data, &run(&p.data), p.anchor, false);
        }
        assert!(g.due());
        g.train().unwrap();
    }
}

#[test]
fn it_learns_from_the_seeds_and_keeps_making_new_tests() {
    let mut g = seeded(small());
    epochs(&mut g, 25);
    let c = g.counters.clone();
    assert_eq!(c.epochs, 26);
    assert_eq!(c.diverged, 0);
    let (first, last) = (c.gnn_loss_first.unwrap(), c.gnn_loss_last.unwrap());
    assert!(last < first * 0.8, "the generator's loss went from {first} to {last}");
    let tests = g.propose(200).unwrap();
    // Untrained, a byte is a letter or a blank 27 times in 257: a test
    // of three bytes or more is the lexer's one time in a thousand.
    let words = |t: &&gnast::Proposal| t.data.len() >= 3 && t.data.iter().all(|&b| b == b' ' || b.is_ascii_lowercase());
    let valid = tests.iter().filter(words).count();
    assert!(valid > 40, "{valid} of 200 are words of three letters or more");
    let mut distinct: Vec<_> = tests.iter().map(|t| &t.data).collect();
    distinct.sort();
    distinct.dedup();
    assert!(distinct.len() > 50, "only {} distinct tests of 200", distinct.len());
    // Every test names a seed as its pseudo-parent (anchors pass down).
    assert!(
        tests.iter().all(|t| (1..=3).contains(&t.anchor)),
        "{:?}",
        tests.iter().map(|t| t.anchor).collect::<Vec<_>>()
    );
    assert!(c.kept <= 48);
}

#[test]
fn before_any_execution_tests_come_from_noise() {
    let mut g = Gnast::new(small(), 1).unwrap();
    let tests = g.propose(20).unwrap();
    assert_eq!(tests.len(), 20);
    assert!(tests.iter().all(|t| t.anchor == NO_ANCHOR));
}

#[test]
fn divergence_is_undone_counted_and_generation_goes_on() {
    let mut g = seeded(small());
    let lr = g.generator_learning_rate();
    g.poison_generator().unwrap();
    for s in SEEDS {
        g.observe(s, &run(s), 1, false);
    }
    g.train().unwrap();
    assert_eq!(g.counters.diverged, 1);
    assert!(g.generator_learning_rate() < lr);
    epochs(&mut g, 2);
    assert_eq!(g.counters.diverged, 1, "the weights went back to good ones");
    let tests = g.propose(64).unwrap();
    let mut distinct: Vec<_> = tests.iter().map(|t| &t.data).collect();
    distinct.sort();
    distinct.dedup();
    assert!(distinct.len() > 6, "{distinct:?}");
}

#[test]
fn a_generator_that_makes_one_test_is_started_afresh() {
    // No noise, one execution kept many times, many steps: the generator
    // learns to make nothing but it.
    let opts = Options { steps: 400, noise: 0.0, lr: 1e-2, ..small() };
    let mut g = Gnast::new(opts, 3).unwrap();
    for _ in 0..40 {
        g.observe(b"x", &run(b"x"), 9, false);
    }
    g.train().unwrap();
    let tests = g.propose(64).unwrap();
    assert_eq!(g.counters.collapsed, 1, "{:?}", &tests[..4]);
    let mut distinct: Vec<_> = tests.iter().map(|t| &t.data).collect();
    distinct.sort();
    distinct.dedup();
    assert!(distinct.len() > 6, "after a fresh start: {distinct:?}");
}

#[test]
fn nearby_latent_vectors_are_measured_against_edit_distance() {
    let mut g = seeded(small());
    epochs(&mut g, 10);
    let r = g.latent_edit_correlation(30).unwrap().expect("distances vary");
    assert!((-1.0..=1.0).contains(&r), "{r}");
}

#[test]
fn bad_options_are_refused_in_words() {
    let e = Gnast::new(Options { latent: 0, ..Options::default() }, 0).err().unwrap();
    assert!(e.to_string().contains("latent size"), "{e}");
    let e = Gnast::new(Options { max_len: 100_000, ..Options::default() }, 0).err().unwrap();
    assert!(e.to_string().contains("4096"), "{e}");
}

#[test]
fn a_run_that_reached_new_coverage_is_not_dropped_by_the_reservoir() {
    // Far more runs wait than the reservoir holds (4 × keep): a run
    // observed among them as reaching new coverage joins the training
    // set all the same, and the generator's tests descend from it.
    let opts = Options { keep: 8, epoch: 8, ..small() };
    let mut g = Gnast::new(opts, 5).unwrap();
    for i in 0..2_000u64 {
        let s: &[u8] = if i % 2 == 0 { b"1" } else { b"2" };
        g.observe(s, &run(s), 1, false);
        if i == 1_000 {
            g.observe(b"zebra", &run(b"zebra"), 77, true);
        }
    }
    g.train().unwrap();
    let anchors: Vec<u64> = g.propose(400).unwrap().iter().map(|p| p.anchor).collect();
    assert!(anchors.contains(&77), "{anchors:?}");
}
