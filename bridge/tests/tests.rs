//! End-to-end tests of `bridge`: real programs built with carve-clang, run
//! through the real fork server (one test binary: `util` holds the helpers,
//! `suite/` the tests).

mod suite;
mod util;
