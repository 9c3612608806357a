//! Running instrumented targets: the fork-server client, the shared-memory
//! coverage map, timeouts and rlimits, and the classification of each run.

mod contain;
pub mod coverage;
mod error;
pub mod forkserver;
pub mod input_at;
pub mod libtool;
mod newbits;
pub mod outcome;
pub mod sanitizer;
mod scratch;
pub mod shm;
pub mod target;
pub mod timeouts;

pub use contain::{absolute_args, path_args, path_args_in};
pub use coverage::{Coverage, Newness};
pub use error::Error;
pub use forkserver::ForkServer;
pub use outcome::{signal_name, Outcome};
pub use target::{split_test, substitute, InputMode, Target};
pub use timeouts::Timeouts;
