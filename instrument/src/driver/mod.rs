//! The compiler driver behind `carve-clang`: a drop-in for clang-19.
//!
//! Each C/C++ translation unit goes to optimised bitcode (with the user's
//! flags), through [`crate::instrument_file`], then to an object (backend
//! only, at the user's `-O` level). Links get the runtime library. Anything
//! that neither compiles nor links a source (`-E`, `-M`, `--version`, ...)
//! goes to clang untouched.

mod args;
mod compile;
pub mod watchdog;

pub use args::{Invocation, Mode};
pub use compile::{run, DriverError, Toolchain};
pub use watchdog::{Fault, Step, Watch};
