//! What can stop the engine: a file it cannot read or write, a target it
//! cannot start or run, a campaign directory that is not one.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot {what} {}: {source}", path.display())]
    File {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Driver(#[from] driver::Error),
    #[error(transparent)]
    Exec(#[from] exec::Error),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Grammar(#[from] grammar::Error),
    #[error(transparent)]
    Review(#[from] review::Error),
    /// What was asked cannot be done: its reason.
    #[error("{0}")]
    Refused(String),
    /// A panic inside the engine, caught where it cannot lose anything.
    #[error("internal error: {0}")]
    Internal(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The path an I/O error is about, and what was being done to it.
pub trait FileContext<T> {
    fn at(self, what: &'static str, path: &Path) -> Result<T>;
}

impl<T> FileContext<T> for std::io::Result<T> {
    fn at(self, what: &'static str, path: &Path) -> Result<T> {
        self.map_err(|source| Error::File { what, path: path.to_path_buf(), source })
    }
}

/// Fails with `Error::Refused` unless `cond` holds.
macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err($crate::Error::Refused(format!($($msg)+)));
        }
    };
}
pub(crate) use ensure;
