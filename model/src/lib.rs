//! Shared data types, constants and names of the carving and bridging system.
//!
//! Everything the instrumentation pass, the runtime and the bridge must agree
//! on lives here, once: the coverage map layout, the fork-server protocol and
//! the environment variables. This crate does no I/O.

pub mod env;
pub mod protocol;

/// Size of the shared-memory edge map in bytes (AFL-compatible: 64 KiB of
/// 8-bit hit counters).
pub const MAP_SIZE: usize = 1 << 16;
