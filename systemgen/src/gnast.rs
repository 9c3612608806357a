//! `--system gnast`: tests made by a generative network that trains on
//! the executions it finds most unusual ([`::gnast`], after Joffe and
//! Clark). It takes no parents: the campaign's corpus (the seeds, then
//! every test kept, lifts included) is run once more through it so that
//! each entry's edge map joins its training set; its own tests come from
//! the encodings of the executions it keeps.
//!
//! Its tests have no mutation trail. Each names as its parent the corpus
//! entry its latent vector descends from (the entry whose execution was
//! encoded, or whose descendant's was), and records no labels: `bridge
//! provenance` rebuilds them from the seeds and that entry, marked as
//! pseudo-provenance.

use std::collections::HashSet;

use ::gnast::{Gnast, Options, NO_ANCHOR};

use crate::{Labels, Seed, SystemGenerator, TestCase};

/// The name users pick it by.
pub const NAME: &str = "gnast";
/// The operator of its own tests.
pub const OP: &str = "gnast";
/// The operator of a corpus entry run again for its edge map.
pub const REPLAY: &str = "gnast-replay";
/// Pairs of tests the latent-distance correlation is measured on.
const CORRELATION_TESTS: usize = 60;

/// The GNAST generator.
pub struct GnastGen {
    model: Gnast,
    /// Corpus entries run through it already.
    seen: HashSet<u64>,
    /// The network failed (a tensor error): said once, then it makes no
    /// more tests.
    failed: Option<String>,
    correlation: Option<f64>,
}

impl GnastGen {
    /// Untrained networks of `opts`, seeded with `seed`.
    pub fn new(opts: Options, seed: u64) -> Result<GnastGen, String> {
        let model = Gnast::new(opts, seed).map_err(|e| e.to_string())?;
        Ok(GnastGen { model, seen: HashSet::new(), failed: None, correlation: None })
    }

    fn fail(&mut self, e: ::gnast::Error) {
        eprintln!("bridge run: gnast: {e}; it makes no more tests (the unit level goes on)");
        self.failed = Some(e.to_string());
    }
}

impl SystemGenerator for GnastGen {
    fn name(&self) -> &'static str {
        NAME
    }

    fn generate(&mut self, corpus: &[Seed<'_>], _parents: &mut dyn crate::Parents, n: usize) -> Vec<TestCase> {
        if self.failed.is_some() {
            return Vec::new();
        }
        if self.model.due() {
            if let Err(e) = self.model.train() {
                self.fail(e);
                return Vec::new();
            }
        }
        let mut out = Vec::with_capacity(n);
        for s in corpus {
            if out.len() == n {
                break;
            }
            if !self.seen.insert(s.id) {
                continue;
            }
            let labels = s.labels();
            out.push(TestCase {
                data: s.data.to_vec(),
                parent: s.id,
                donors: Vec::new(),
                op: REPLAY.into(),
                labels,
                tree: None,
            });
        }
        let fallback = corpus.first().map_or(0, |s| s.id);
        match self.model.propose(n - out.len()) {
            Ok(ps) => out.extend(ps.into_iter().map(|p| {
                let parent = if p.anchor == NO_ANCHOR { fallback } else { p.anchor };
                let labels = Labels::inserted(OP, p.data.len());
                TestCase { data: p.data, parent, donors: Vec::new(), op: OP.into(), labels, tree: None }
            })),
            Err(e) => self.fail(e),
        }
        out
    }

    /// A run the time limit stopped is not learned from: its map is cut,
    /// and learning from such runs taught the network to make slow tests.
    fn feedback(&mut self, case: &TestCase, map: Option<&[u8]>, interesting: bool) {
        if let Some(map) = map {
            self.model.observe(&case.data, map, case.parent, interesting);
        }
    }

    fn records_labels(&self) -> bool {
        false
    }

    fn report(&mut self, last: bool) -> Vec<(&'static str, f64)> {
        if last && self.correlation.is_none() && self.model.counters.epochs > 0 && self.failed.is_none() {
            self.correlation = self.model.latent_edit_correlation(CORRELATION_TESTS).ok().flatten();
        }
        let c = &self.model.counters;
        let mut r = vec![
            ("epochs", c.epochs as f64),
            ("proposed", c.proposed as f64),
            ("kept", c.kept as f64),
            ("diverged", c.diverged as f64),
            ("collapsed", c.collapsed as f64),
            ("train_s", c.train_s),
            ("generate_s", c.generate_s),
            ("train_ms_per_epoch", 1e3 * c.train_s / (c.epochs.max(1) as f64)),
            ("failed", f64::from(u8::from(self.failed.is_some()))),
        ];
        let losses = [
            ("vae_loss_first", c.vae_loss_first),
            ("vae_loss_last", c.vae_loss_last),
            ("gnn_loss_first", c.gnn_loss_first),
            ("gnn_loss_last", c.gnn_loss_last),
        ];
        r.extend(losses.into_iter().filter_map(|(k, v)| v.map(|v| (k, f64::from(v)))));
        if let Some(x) = self.correlation {
            r.push(("latent_edit_correlation", x));
        }
        r
    }
}
