//! Tests beyond the invocation kinds of `tests.rs`.

mod robustness;
mod sanitizers;
mod selects;
