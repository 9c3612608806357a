//! Shared data types, constants and names of the carving and bridging system.
//!
//! Everything the instrumentation pass, the runtime and the bridge must agree
//! on lives here, once: the coverage map layout, the fork-server protocol and
//! the environment variables. This crate does no I/O. `chars.rs`,
//! `consts.rs`, `names.rs`, `op.rs`, `protocol.rs`, `snapshot.rs` and
//! `trace.rs` use nothing but `core`: the `no_std` runtime compiles them
//! directly, so the names have one source.

pub mod alarm;
pub mod chars;
mod consts;
mod encoding;
pub mod env;
#[cfg(test)]
mod fuzz_decoders;
pub mod fuzzing;
pub mod http;
pub mod layout;
mod names;
pub mod op;
pub mod protocol;
pub mod shell;
pub mod snapshot;
pub mod symtrace;
pub mod trace;
pub mod unit;

pub use consts::*;
