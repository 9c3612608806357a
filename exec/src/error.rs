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
    #[error("{0} is built with carve-clang, but {1} before it started the fork server: run it by hand with the same arguments to see why{2}")]
    StartFailed(PathBuf, String, &'static str),
    #[error("the fork server of {0} died")]
    ForkServerDied(PathBuf),
    #[error("cannot write the input file {path}: {err}")]
    Input { path: PathBuf, err: std::io::Error },
    #[error(
        "{} is libtool's wrapper script of {}, which is not built yet: run the wrapper once (it builds it), or build with ./configure --disable-shared",
        wrapper.display(), expected.display()
    )]
    LibtoolUnbuilt { wrapper: PathBuf, expected: PathBuf },
    #[error("cannot give the target its input at {0}: {1}")]
    InputAt(PathBuf, String),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}
