//! The runtime linked into every instrumented target (C ABI, static library).
//!
//! It runs inside someone else's program: it never unwinds (the workspace
//! builds with `panic = "abort"`), never allocates on a probe's path (probes
//! are inline counter increments that do not call in at all), and reads its
//! configuration from the environment once. The C interface is documented in
//! `include/carve_rt.h`; the entry points are in [`abi`].

pub mod abi;
mod forkserver;
mod map;
mod sys;
