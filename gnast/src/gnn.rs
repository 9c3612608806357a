//! The generator (GNAST §5.3): a latent vector in, one distribution over
//! bytes per position of the test out, sampled (not argmax: sampling is
//! what keeps an untrained or converged generator diverse).
//!
//! The paper upsamples with a stack of transposed convolutions. Here a
//! dense layer widens the latent vector to `len × width` channels, and one
//! dense layer shared by every position maps each position's channels to
//! its 257 classes: the 256 byte values and the end of the test (the
//! paper's alphabet was 128 ASCII characters and padding; tests of binary
//! formats need every byte). Its loss is the cross-entropy of the strings
//! of the training set given their encodings.

use candle_core::{Device, Tensor};
use candle_nn::{linear, ops::leaky_relu, Linear, Module};
use rand::Rng;

use crate::net::{matrix, Net};
use crate::Result;

/// The class that ends a test.
pub const END: u32 = 256;
/// Classes per position.
pub const VOCAB: usize = 257;
const SLOPE: f64 = 0.1;
/// Positions decoded at a time when sampling.
const CHUNK: usize = 16;

struct Layers {
    up: Linear,
    wide: Linear,
    out: Linear,
}

/// The generator.
pub struct Gnn {
    pub net: Net,
    layers: Layers,
    latent: usize,
    len: usize,
    width: usize,
}

impl Gnn {
    /// A generator from `latent` dimensions to tests of at most `len`
    /// bytes, `hidden` units wide and `width` channels per position.
    pub fn new(latent: usize, hidden: usize, len: usize, width: usize, lr: f64, rng: &mut impl Rng) -> Result<Gnn> {
        let (net, layers) = Net::new(lr, rng, |vb| {
            Ok(Layers {
                up: linear(latent, hidden, vb.pp("up"))?,
                wide: linear(hidden, len * width, vb.pp("wide"))?,
                out: linear(width, VOCAB, vb.pp("out"))?,
            })
        })?;
        Ok(Gnn { net, layers, latent, len, width })
    }

    pub fn max_len(&self) -> usize {
        self.len
    }

    /// Each vector's channels, `(vectors, len, width)`.
    fn channels(&self, zs: &[&[f32]]) -> Result<Tensor> {
        let z = matrix(zs, self.latent)?;
        let h = leaky_relu(&self.layers.up.forward(&z)?, SLOPE)?;
        let w = leaky_relu(&self.layers.wide.forward(&h)?, SLOPE)?;
        Ok(w.reshape((zs.len(), self.len, self.width))?)
    }

    /// One test per latent vector, each byte sampled from its position's
    /// distribution; a test ends at its first end class. Positions are
    /// decoded [`CHUNK`] at a time, until every test has ended.
    pub fn sample(&self, zs: &[&[f32]], rng: &mut impl Rng) -> Result<Vec<Vec<u8>>> {
        let n = zs.len();
        if n == 0 {
            return Ok(Vec::new());
        }
        let w = self.channels(zs)?;
        let mut tests = vec![Vec::new(); n];
        let mut open = vec![true; n];
        for at in (0..self.len).step_by(CHUNK) {
            let k = CHUNK.min(self.len - at);
            let part = w.narrow(1, at, k)?.contiguous()?.reshape((n * k, self.width))?;
            let probs = candle_nn::ops::softmax_last_dim(&self.layers.out.forward(&part)?)?;
            let probs = probs.flatten_all()?.to_vec1::<f32>()?;
            for (i, rows) in probs.chunks(k * VOCAB).enumerate() {
                for row in rows.chunks(VOCAB) {
                    if !open[i] {
                        break;
                    }
                    match pick(row, rng.random::<f32>()) {
                        c if c == END as usize => open[i] = false,
                        c => tests[i].push(c as u8),
                    }
                }
            }
            if !open.contains(&true) {
                break;
            }
        }
        Ok(tests)
    }

    /// One training step: the cross-entropy of `tests` (cut to the
    /// longest the generator makes) given `zs`, over the positions that
    /// sampling reads: each byte and the end class after it. `None` when
    /// the loss was not finite.
    pub fn train(&mut self, zs: &[&[f32]], tests: &[&[u8]]) -> Result<Option<f32>> {
        let (mut rows, mut targets) = (Vec::new(), Vec::new());
        for (i, t) in tests.iter().enumerate() {
            let take = t.len().min(self.len);
            for (p, &b) in t[..take].iter().enumerate() {
                rows.push((i * self.len + p) as u32);
                targets.push(u32::from(b));
            }
            if take < self.len {
                rows.push((i * self.len + take) as u32);
                targets.push(END);
            }
        }
        let n = rows.len();
        let rows = Tensor::from_vec(rows, n, &Device::Cpu)?;
        let targets = Tensor::from_vec(targets, n, &Device::Cpu)?;
        let w = self.channels(zs)?.reshape((zs.len() * self.len, self.width))?;
        let logits = self.layers.out.forward(&w.index_select(&rows, 0)?)?;
        let loss = candle_nn::loss::cross_entropy(&logits, &targets)?;
        self.net.step(&loss)
    }
}

/// The class whose cumulative probability first reaches `u` (the last
/// one when rounding leaves `u` above the total).
fn pick(row: &[f32], u: f32) -> usize {
    let mut acc = 0.0;
    for (i, p) in row.iter().enumerate() {
        acc += p;
        if u < acc {
            return i;
        }
    }
    row.len() - 1
}
