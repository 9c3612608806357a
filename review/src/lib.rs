//! Reviewing failures: what each one is (its signature: the signal or a
//! hang, and the innermost frames of its stack, symbolized to function,
//! file and line), the smallest input that still fails the same way
//! (`reduce`), and the reports a user reads (a table, a static HTML page,
//! SARIF for code scanning). The stack comes from the runtime, which writes it when a run
//! with `CARVE_STACK_OUT` fails; nothing here runs inside a campaign.

pub mod html;
pub mod identity;
pub mod reduce;
pub mod report;
pub mod sarif;
pub mod signature;
pub mod stack;
pub mod symbolize;
pub mod table;

/// What can go wrong while reviewing.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot run {program}: {err}")]
    Spawn { program: std::path::PathBuf, err: std::io::Error },
    #[error("cannot write the test to a scratch file: {0}")]
    Scratch(std::io::Error),
    #[error("{0}")]
    Target(exec::Error),
}
