//! The variational autoencoder over folded edge maps (GNAST §5.2): an
//! encoder to a mean and a log-variance per latent dimension, a decoder
//! back to the features. Its mean is the encoding that orders executions.
//!
//! The paper decodes each of the 64 Ki counters into 8 bucket classes.
//! Here the decoder predicts each folded feature's level in 0..=1 with a
//! binary cross-entropy: the same information, 1/512 the size. The latent
//! noise is scaled by 0.1, the paper's remedy for a VAE that would not
//! converge.

use candle_core::{Device, Tensor, D};
use candle_nn::{linear, ops::leaky_relu, Linear, Module};
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};

use crate::net::{matrix, Net};
use crate::Result;

/// The slope of the leaky ReLUs.
const SLOPE: f64 = 0.1;
/// The scale of the latent noise while training.
const NOISE: f32 = 0.1;

struct Layers {
    enc: Linear,
    mu: Linear,
    logvar: Linear,
    dec: Linear,
    out: Linear,
}

/// The VAE.
pub struct Vae {
    pub net: Net,
    layers: Layers,
    dim: usize,
    latent: usize,
}

impl Vae {
    /// A VAE of `dim` features, `hidden` units and `latent` dimensions.
    pub fn new(dim: usize, hidden: usize, latent: usize, lr: f64, rng: &mut impl Rng) -> Result<Vae> {
        let (net, layers) = Net::new(lr, rng, |vb| {
            Ok(Layers {
                enc: linear(dim, hidden, vb.pp("enc"))?,
                mu: linear(hidden, latent, vb.pp("mu"))?,
                logvar: linear(hidden, latent, vb.pp("logvar"))?,
                dec: linear(latent, hidden, vb.pp("dec"))?,
                out: linear(hidden, dim, vb.pp("out"))?,
            })
        })?;
        Ok(Vae { net, layers, dim, latent })
    }

    pub fn latent(&self) -> usize {
        self.latent
    }

    fn moments(&self, x: &Tensor) -> Result<(Tensor, Tensor)> {
        let h = leaky_relu(&self.layers.enc.forward(x)?, SLOPE)?;
        Ok((self.layers.mu.forward(&h)?, self.layers.logvar.forward(&h)?.clamp(-8f32, 8f32)?))
    }

    /// The encodings (means) of `traces`, folded feature vectors.
    pub fn encode(&self, traces: &[&[f32]]) -> Result<Vec<Vec<f32>>> {
        if traces.is_empty() {
            return Ok(Vec::new());
        }
        let (mu, _) = self.moments(&matrix(traces, self.dim)?)?;
        Ok(mu.to_vec2::<f32>()?)
    }

    /// One training step on `traces`: reconstruction plus the KL term,
    /// averaged over the batch, the latent noise drawn from `rng`. `None`
    /// when the loss was not finite.
    pub fn train(&mut self, traces: &[&[f32]], rng: &mut impl Rng) -> Result<Option<f32>> {
        let x = matrix(traces, self.dim)?;
        let (mu, logvar) = self.moments(&x)?;
        let n = traces.len() * self.latent;
        let eps: Vec<f32> = (0..n).map(|_| NOISE * Distribution::<f32>::sample(&StandardNormal, rng)).collect();
        let eps = Tensor::from_vec(eps, mu.shape(), &Device::Cpu)?;
        let z = (&mu + (eps * (&logvar * 0.5)?.exp()?)?)?;
        let h = leaky_relu(&self.layers.dec.forward(&z)?, SLOPE)?;
        let logits = self.layers.out.forward(&h)?;
        let rec = (bce_with_logits(&logits, &x)? * self.dim as f64)?;
        // KL(q(z|x) || N(0, I)) = -1/2 Σ (1 + logvar - mu² - e^logvar).
        let kl = ((logvar.exp()? + mu.sqr()? - &logvar)? - 1.0)?.sum(D::Minus1)?.mean_all()?;
        let loss = (rec + (kl * 0.5)?)?;
        self.net.step(&loss)
    }
}

/// Binary cross-entropy of `logits` against `targets` in 0..=1, averaged,
/// in the form that stays finite: max(x, 0) - x·t + ln(1 + e^-|x|).
/// (candle's `binary_cross_entropy_with_logit` takes the log of a sigmoid,
/// which is 0 or 1 in f32 past |x| ≈ 17: its loss turns NaN as soon as the
/// decoder is sure of a feature, and every such pass diverged.)
fn bce_with_logits(logits: &Tensor, targets: &Tensor) -> Result<Tensor> {
    let softplus = (logits.abs()?.neg()?.exp()? + 1.0)?.log()?;
    Ok(((logits.relu()? - (logits * targets)?)? + softplus)?.mean_all()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cross_entropy_stays_finite_where_a_sigmoid_saturates() {
        let x = Tensor::new(&[[50f32, -50.0, 0.0, 30.0]], &Device::Cpu).unwrap();
        let t = Tensor::new(&[[1f32, 1.0, 0.5, 0.0]], &Device::Cpu).unwrap();
        let got = bce_with_logits(&x, &t).unwrap().to_scalar::<f32>().unwrap();
        // Per element: 0, 50, ln 2, 30.
        let want = (0.0 + 50.0 + std::f32::consts::LN_2 + 30.0) / 4.0;
        assert!((got - want).abs() < 1e-3, "{got} against {want}");
    }
}
