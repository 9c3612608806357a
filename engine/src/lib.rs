//! The bridging engine: a campaign of system tests (`campaign`), with the
//! unit level inside it, and one unit's exploration and lifting
//! (`unit_loop`), which `bridge fuzz-unit` and `bridge explore` use too.
//! It prints nothing but a campaign's status line; its errors are typed
//! ([`Error`]).

pub mod alone;
pub mod campaign;
mod error;
pub mod lift;
pub mod review;
pub mod unit_loop;

pub use error::{Error, FileContext, Result};
