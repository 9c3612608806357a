//! The files a fork server's runs read their test from (`@@`, or standard
//! input) and their command line from (`--args-in-input`): one open file
//! each, rewritten in place before every run.

use crate::Error;
use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

pub(crate) struct ScratchFile {
    pub(crate) path: PathBuf,
    pub(crate) file: File,
    /// The length of what it holds.
    len: u64,
    /// Left at its start after each rewrite: the target shares it as its
    /// standard input (an lseek a run otherwise spared).
    pub(crate) rewind: bool,
    /// Its length is set at every rewrite, not only when it shrinks: the
    /// target may have written to it.
    pub(crate) exact: bool,
}

impl ScratchFile {
    /// Creates the file, empty, for reading and writing.
    pub(crate) fn create(path: PathBuf) -> Result<ScratchFile, Error> {
        let file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .map_err(|err| Error::Input { path: path.clone(), err })?;
        Ok(ScratchFile { path, file, len: 0, rewind: true, exact: false })
    }

    /// Makes `bytes` the whole content of the file, leaving it at its
    /// start if `rewind` (the target may share the open file as its
    /// standard input, and a run moves it). Cut only when it shrinks: ext4 flushes a
    /// truncated file when it is closed, and a truncate costs a call.
    pub(crate) fn rewrite(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let fail = |err| Error::Input { path: self.path.clone(), err };
        self.file.write_all_at(bytes, 0).map_err(fail)?;
        let len = bytes.len() as u64;
        if len < self.len || self.exact {
            self.file.set_len(len).map_err(fail)?;
        }
        self.len = len;
        if self.rewind {
            self.file.seek(SeekFrom::Start(0)).map_err(fail)?;
        }
        Ok(())
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_leave_exactly_the_last_bytes_from_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = ScratchFile::create(dir.path().join("input")).unwrap();
        for bytes in [&b"a longer first test"[..], b"short", b"", b"grown again to be long", b"x"] {
            f.rewrite(bytes).unwrap();
            assert_eq!(std::fs::read(f.path()).unwrap(), bytes);
            // A reader sharing the open file reads it from its start.
            let mut shared = f.file.try_clone().unwrap();
            let mut got = Vec::new();
            std::io::Read::read_to_end(&mut shared, &mut got).unwrap();
            assert_eq!(got, bytes);
        }
    }
}
