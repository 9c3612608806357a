//! GNAST's sizes and cadence, with defaults that fit one core beside the
//! fork server.

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// Sizes and cadence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Options {
    /// Latent dimensions: of the VAE's encodings and the generator's input.
    pub latent: usize,
    /// The longest test the generator makes, in bytes.
    pub max_len: usize,
    /// Tests run between two training passes (an epoch), at least.
    pub epoch: usize,
    /// The largest share of the time training may take: a pass waits
    /// (more tests run) while training has had more (1: never waits).
    pub train_share: f64,
    /// Training steps per network per epoch.
    pub steps: usize,
    /// Executions kept in the training set, the farthest-first prefix
    /// (the paper's k).
    pub keep: usize,
    /// Features an edge map is folded into.
    pub features: usize,
    /// Hidden units of both networks.
    pub hidden: usize,
    /// Channels per position in the generator.
    pub width: usize,
    /// Examples per training step.
    pub batch: usize,
    /// AdamW's learning rate (halved each time training diverges).
    pub lr: f64,
    /// The scale of the noise added to an encoding to make a latent vector.
    pub noise: f32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            latent: 16,
            max_len: 128,
            epoch: 512,
            train_share: 0.3,
            steps: 4,
            keep: 512,
            features: 1024,
            hidden: 128,
            width: 32,
            batch: 32,
            lr: 3e-3,
            noise: 0.1,
        }
    }
}

impl Options {
    /// The options, or what is wrong with them in words.
    pub fn check(&self) -> Result<()> {
        let bad = |what: &str| Err(Error::Options(format!("GNAST's {what} must be at least 1")));
        if self.latent == 0 {
            return bad("latent size");
        }
        if self.max_len == 0 {
            return bad("maximum length");
        }
        if self.epoch == 0 {
            return bad("epoch (tests between training passes)");
        }
        if !(self.train_share > 0.0 && self.train_share <= 1.0) {
            return Err(Error::Options(format!("GNAST's training share is in (0, 1], not {}", self.train_share)));
        }
        if self.keep < 2 {
            return Err(Error::Options("GNAST keeps at least 2 executions".into()));
        }
        if self.features == 0 || self.hidden == 0 || self.width == 0 || self.batch == 0 {
            return bad("network size");
        }
        if self.max_len > 4096 {
            return Err(Error::Options(format!("GNAST's maximum length is at most 4096 bytes, not {}", self.max_len)));
        }
        Ok(())
    }
}
