//! What can go wrong while driving the runtime.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot start {0}")]
    Start(PathBuf, #[source] exec::Error),
    #[error("cannot run {0}")]
    Run(PathBuf, #[source] std::io::Error),
    #[error(transparent)]
    Exec(#[from] exec::Error),
    #[error("{0} did not list its functions: is it built with this carve-clang?")]
    NotListed(PathBuf),
    #[error("{0} lists its functions in another format: rebuild it with this carve-clang")]
    ListFormat(PathBuf),
    #[error("{program} cannot replay this unit of {function} (replay exit status {status}; see its stderr with `bridge replay`)")]
    NotReplayable { program: PathBuf, function: String, status: i32 },
    #[error("a try must be the started unit with other parameter values")]
    OtherUnit,
    #[error("cannot give the input file {0} its new content")]
    InputFile(String),
    #[error("bad trace from the target")]
    BadTrace(#[source] model::snapshot::DecodeError),
    #[error("{0} is not a unit test")]
    NotAUnit(PathBuf, #[source] model::unit::UnitError),
    #[error("cannot read {0}")]
    Read(PathBuf, #[source] std::io::Error),
    #[error("cannot write {0}")]
    Write(PathBuf, #[source] std::io::Error),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

pub type Result<T> = std::result::Result<T, Error>;
