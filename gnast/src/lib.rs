//! GNAST (Joffe and Clark): a generative network that makes program
//! inputs, trained on the executions it finds most unusual. No training
//! data is needed beyond the seeds: it makes its own.
//!
//! One epoch: the generator turns latent vectors into tests, the program
//! runs them, the VAE encodes each edge map, farthest-first traversal
//! ranks the encodings and the redundant tail is dropped; the kept set
//! trains both networks, and its encodings (plus a little noise) are the
//! generator's next latent vectors. [`Gnast`] is that loop without the
//! program: the caller runs the tests and hands back their edge maps.

pub mod features;
pub mod fft;
pub mod gnn;
mod learner;
mod net;
mod options;
pub mod vae;

pub use learner::{Counters, Gnast, Proposal, NO_ANCHOR};
pub use options::Options;

/// What can go wrong in the networks: a tensor operation failed (a shape
/// that does not fit, out of memory).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the generative network failed: {0}")]
    Tensor(#[from] candle_core::Error),
    #[error("{0}")]
    Options(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
