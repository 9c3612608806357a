//! The GNAST loop without the program: [`Gnast::propose`] makes tests,
//! [`Gnast::observe`] takes each one's edge map back, and every
//! [`Options::epoch`] tests [`Gnast::train`] culls the training set by
//! farthest-first traversal and trains both networks on what is kept.
//!
//! Training that diverges (a non-finite loss or weight) goes back to the
//! last good weights at half the learning rate; a generator that
//! collapses (a batch of proposals with under a tenth distinct tests) is
//! started afresh, untrained until the next epoch: retrained at once on
//! the same kept set it would collapse again, while the varied tests of
//! fresh weights bring the kept set new executions. Both are counted, and
//! generation goes on.

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use serde::Serialize;
use std::time::Instant;

use crate::features::fold;
use crate::fft;
use crate::gnn::Gnn;
use crate::vae::Vae;
use crate::{Options, Result};

/// The anchor of a test made before the training set had any execution.
pub const NO_ANCHOR: u64 = u64::MAX;
/// Executions waiting for training, in multiples of [`Options::keep`].
const WAITING: usize = 4;
/// Encodings closer than this are one execution's.
const SAME: f32 = 1e-6;
/// Proposals in a batch below which collapse is not judged.
const COLLAPSE_MIN: usize = 16;

/// One proposed test, and the caller's test its latent vector came from
/// (the encoding of that test's execution, or of one made from it): its
/// pseudo-parent, since a generated test has no mutation trail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposal {
    pub data: Vec<u8>,
    pub anchor: u64,
}

/// What happened so far, for the campaign's report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Counters {
    pub epochs: u64,
    pub proposed: u64,
    /// Training passes whose loss or weights went non-finite.
    pub diverged: u64,
    /// Batches of proposals that collapsed to a few tests.
    pub collapsed: u64,
    /// Seconds spent training (culling included) and generating.
    pub train_s: f64,
    pub generate_s: f64,
    pub kept: usize,
    /// Mean losses of the first and the latest epoch.
    pub vae_loss_first: Option<f32>,
    pub vae_loss_last: Option<f32>,
    pub gnn_loss_first: Option<f32>,
    pub gnn_loss_last: Option<f32>,
}

/// One execution of the training set.
struct Item {
    data: Vec<u8>,
    features: Vec<f32>,
    /// Its encoding by the VAE as it was after the last training pass.
    z: Vec<f32>,
    anchor: u64,
}

/// The generator, the VAE and the training set.
pub struct Gnast {
    opts: Options,
    vae: Vae,
    gnn: Gnn,
    kept: Vec<Item>,
    new: Vec<Item>,
    /// Executions that reached new coverage since the last pass: they
    /// join the training set whatever the reservoir drops.
    found: Vec<Item>,
    rng: ChaCha8Rng,
    pub counters: Counters,
    /// Executions observed since the last training pass.
    seen_since: u64,
    born: Instant,
}

impl Gnast {
    /// Untrained networks, seeded with `seed`.
    pub fn new(opts: Options, seed: u64) -> Result<Gnast> {
        opts.check()?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let vae = Vae::new(opts.features, opts.hidden, opts.latent, opts.lr, &mut rng)?;
        let gnn = Gnn::new(opts.latent, opts.hidden, opts.max_len, opts.width, opts.lr, &mut rng)?;
        let (kept, new, found, counters) = (Vec::new(), Vec::new(), Vec::new(), Counters::default());
        Ok(Gnast { opts, vae, gnn, kept, new, found, rng, counters, seen_since: 0, born: Instant::now() })
    }

    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Whether an epoch's worth of executions came back since training,
    /// and training has had less than its share of the time so far.
    pub fn due(&self) -> bool {
        let spent = self.counters.train_s;
        let share = self.opts.train_share;
        self.new.len() >= self.opts.epoch && (share >= 1.0 || spent <= share * self.born.elapsed().as_secs_f64())
    }

    /// `n` tests: each from the encoding of a kept execution plus noise
    /// (from pure noise while none is kept).
    pub fn propose(&mut self, n: usize) -> Result<Vec<Proposal>> {
        let t = Instant::now();
        let (zs, anchors) = self.latents(n);
        let refs: Vec<&[f32]> = zs.iter().map(Vec::as_slice).collect();
        let mut tests = self.gnn.sample(&refs, &mut self.rng)?;
        if collapsed(&tests) {
            self.counters.collapsed += 1;
            let o = &self.opts;
            self.gnn = Gnn::new(o.latent, o.hidden, o.max_len, o.width, o.lr, &mut self.rng)?;
            tests = self.gnn.sample(&refs, &mut self.rng)?;
        }
        self.counters.proposed += n as u64;
        self.counters.generate_s += t.elapsed().as_secs_f64();
        Ok(tests.into_iter().zip(anchors).map(|(data, anchor)| Proposal { data, anchor }).collect())
    }

    fn latents(&mut self, n: usize) -> (Vec<Vec<f32>>, Vec<u64>) {
        let (mut zs, mut anchors) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for _ in 0..n {
            let (base, anchor) = match self.kept.choose(&mut self.rng) {
                Some(item) => (item.z.clone(), item.anchor),
                None => (vec![0.0; self.opts.latent], NO_ANCHOR),
            };
            let scale = if anchor == NO_ANCHOR { 1.0 } else { self.opts.noise };
            let z = base.iter().map(|x| x + scale * normal(&mut self.rng)).collect();
            zs.push(z);
            anchors.push(anchor);
        }
        (zs, anchors)
    }

    /// The edge map `map` of test `data`, whose pseudo-parent is `anchor`.
    /// While training waits for its share of the time, at most
    /// [`WAITING`] × [`Options::keep`] executions wait with it, a uniform
    /// sample of those observed (reservoir sampling). An execution that
    /// reached new coverage (`found`) waits outside the sample, up to
    /// [`Options::keep`] of them: rare, and what the generator should
    /// learn to make.
    pub fn observe(&mut self, data: &[u8], map: &[u8], anchor: u64, found: bool) {
        let cap = WAITING * self.opts.keep;
        if found && self.found.len() < self.opts.keep {
            let item = Item { data: data.to_vec(), features: fold(map, self.opts.features), z: Vec::new(), anchor };
            self.found.push(item);
            return;
        }
        self.seen_since += 1;
        let slot = if self.new.len() < cap {
            None
        } else {
            match self.rng.random_range(0..self.seen_since) {
                i if (i as usize) < cap => Some(i as usize),
                _ => return,
            }
        };
        let item = Item { data: data.to_vec(), features: fold(map, self.opts.features), z: Vec::new(), anchor };
        match slot {
            Some(i) => self.new[i] = item,
            None => self.new.push(item),
        }
    }

    /// The training pass: the new executions join the kept ones, the
    /// farthest-first prefix of [`Options::keep`] stays (one of those
    /// encoded at the same point), and both networks
    /// train [`Options::steps`] steps on it.
    pub fn train(&mut self) -> Result<()> {
        let t = Instant::now();
        // The kept executions' encodings are the VAE's as it is: only
        // the new ones need encoding before they are ranked.
        self.new.append(&mut self.found);
        Self::encode(&self.vae, &mut self.new)?;
        self.kept.append(&mut self.new);
        self.seen_since = 0;
        let points: Vec<Vec<f32>> = self.kept.iter().map(|i| i.z.clone()).collect();
        // Executions encoded where one before them is are the redundant
        // tail even inside the first `keep`: the set keeps one of each.
        let mut order = fft::order(&points, self.opts.keep);
        let distinct = order.iter().skip(1).take_while(|&&(_, d)| d > SAME).count() + 1;
        order.truncate(distinct);
        let mut slots: Vec<Option<Item>> = std::mem::take(&mut self.kept).into_iter().map(Some).collect();
        self.kept = order.iter().filter_map(|&(i, _)| slots[i].take()).collect();
        let vae = self.train_vae()?;
        Self::encode(&self.vae, &mut self.kept)?;
        let gnn = self.train_gnn()?;
        let c = &mut self.counters;
        c.epochs += 1;
        c.kept = self.kept.len();
        c.vae_loss_first = c.vae_loss_first.or(vae);
        c.vae_loss_last = vae.or(c.vae_loss_last);
        c.gnn_loss_first = c.gnn_loss_first.or(gnn);
        c.gnn_loss_last = gnn.or(c.gnn_loss_last);
        c.train_s += t.elapsed().as_secs_f64();
        Ok(())
    }

    /// The encodings of `items` by `vae` as it is.
    fn encode(vae: &Vae, items: &mut [Item]) -> Result<()> {
        for chunk in items.chunks_mut(256) {
            let feats: Vec<&[f32]> = chunk.iter().map(|i| i.features.as_slice()).collect();
            let zs = vae.encode(&feats)?;
            for (item, z) in chunk.iter_mut().zip(zs) {
                item.z = z;
            }
        }
        Ok(())
    }

    /// Random examples of the kept set, a training batch of them.
    fn batch(&mut self) -> Vec<usize> {
        let n = self.kept.len();
        (0..self.opts.batch.min(n)).map(|_| self.rng.random_range(0..n)).collect()
    }

    /// The VAE's steps; their mean loss, `None` when it diverged (and
    /// went back to its last good weights).
    fn train_vae(&mut self) -> Result<Option<f32>> {
        let mut sum = 0.0;
        for _ in 0..self.opts.steps {
            let pick = self.batch();
            let feats: Vec<&[f32]> = pick.iter().map(|&i| self.kept[i].features.as_slice()).collect();
            let loss = self.vae.train(&feats, &mut self.rng)?;
            match self.vae.net.judge(loss)? {
                Some(l) => sum += l,
                None => return Ok(self.diverged()),
            }
        }
        self.vae.net.keep()?;
        Ok(Some(sum / self.opts.steps.max(1) as f32))
    }

    /// Counts a training pass that diverged (its network went back to its
    /// last good weights).
    fn diverged(&mut self) -> Option<f32> {
        self.counters.diverged += 1;
        None
    }

    /// The generator's steps on (encoding plus noise, test) pairs.
    fn train_gnn(&mut self) -> Result<Option<f32>> {
        if self.kept.is_empty() {
            return Ok(None);
        }
        let mut sum = 0.0;
        for _ in 0..self.opts.steps {
            let pick = self.batch();
            let noise = self.opts.noise;
            let zs: Vec<Vec<f32>> = (pick.iter())
                .map(|&i| self.kept[i].z.iter().map(|x| x + noise * normal(&mut self.rng)).collect())
                .collect();
            let zs: Vec<&[f32]> = zs.iter().map(Vec::as_slice).collect();
            let tests: Vec<&[u8]> = pick.iter().map(|&i| self.kept[i].data.as_slice()).collect();
            let loss = self.gnn.train(&zs, &tests)?;
            match self.gnn.net.judge(loss)? {
                Some(l) => sum += l,
                None => return Ok(self.diverged()),
            }
        }
        self.gnn.net.keep()?;
        Ok(Some(sum / self.opts.steps.max(1) as f32))
    }

    /// How far apart strings made from latent vectors are, against how
    /// far apart the vectors are (GNAST's RQ4): the Pearson correlation
    /// of Euclidean distance with edit distance over every pair of `n`
    /// tests made from normal vectors. `None` when it is undefined (a
    /// distance that never varies).
    pub fn latent_edit_correlation(&mut self, n: usize) -> Result<Option<f64>> {
        let zs: Vec<Vec<f32>> =
            (0..n).map(|_| (0..self.opts.latent).map(|_| normal(&mut self.rng)).collect()).collect();
        let refs: Vec<&[f32]> = zs.iter().map(Vec::as_slice).collect();
        let tests = self.gnn.sample(&refs, &mut self.rng)?;
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for i in 0..n {
            for j in i + 1..n {
                xs.push(f64::from(fft::dist2(&zs[i], &zs[j]).sqrt()));
                ys.push(strsim::generic_levenshtein(&tests[i], &tests[j]) as f64);
            }
        }
        Ok(pearson(&xs, &ys))
    }

    /// Sets a weight of the generator to NaN (tests of recovery).
    pub fn poison_generator(&mut self) -> Result<()> {
        self.gnn.net.poison("up.weight")
    }

    /// The generator's learning rate now.
    pub fn generator_learning_rate(&self) -> f64 {
        self.gnn.net.learning_rate()
    }
}

fn normal(rng: &mut ChaCha8Rng) -> f32 {
    StandardNormal.sample(rng)
}

/// Under a tenth of a batch (of at least [`COLLAPSE_MIN`]) distinct.
fn collapsed(tests: &[Vec<u8>]) -> bool {
    if tests.len() < COLLAPSE_MIN {
        return false;
    }
    let mut sorted: Vec<&Vec<u8>> = tests.iter().collect();
    sorted.sort();
    sorted.dedup();
    sorted.len() * 10 < tests.len()
}

fn pearson(xs: &[f64], ys: &[f64]) -> Option<f64> {
    let n = xs.len() as f64;
    if xs.len() < 2 {
        return None;
    }
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in xs.iter().zip(ys) {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}
