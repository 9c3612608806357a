//! Driving the runtime linked into targets: a run with carving on and its
//! snapshots read back as units (`carve`), the functions a program lists
//! (`carve::list_functions`), a unit replayed once (`replay`), and the
//! unit fork server that runs a unit again and again with new parameter
//! values, within time limits that adapt (`unit_runner`, `try_limit`).
//! The CLI and the campaign both use it; it never prints, and its errors
//! are typed ([`Error`]).

pub mod carve;
mod error;
pub mod files;
pub mod input_file;
pub mod replay;
mod try_limit;
pub mod unit_runner;

pub use error::{Error, Result};
pub use unit_runner::{Restore, UnitRunner};
