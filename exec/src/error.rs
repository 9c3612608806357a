//! The errors of running targets.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("target {0} not found or not executable")]
    NoTarget(PathBuf),
    #[error("cannot create the shared coverage map: {0}")]
    Shm(std::io::Error),
    #[error("cannot start {path}: {err}")]
    Spawn { path: PathBuf, err: std::io::Error },
    #[error("{0} did not start the fork server: is it built with carve-clang? ({1})")]
    NoForkServer(PathBuf, String),
    #[error("the fork server of {0} died")]
    ForkServerDied(PathBuf),
    #[error("cannot write the input file {path}: {err}")]
    Input { path: PathBuf, err: std::io::Error },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}
