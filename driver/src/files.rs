//! Unit files, and writing any file atomically.

use crate::{Error, Result};
use model::unit::Unit;
use std::path::{Path, PathBuf};

/// The unit test in `path`.
pub fn read_unit(path: &Path) -> Result<Unit> {
    let bytes = std::fs::read(path).map_err(|e| Error::Read(path.to_path_buf(), e))?;
    Unit::decode(&bytes).map_err(|e| Error::NotAUnit(path.to_path_buf(), e))
}

/// The unit files (`*.unit`) of a directory, sorted (or the one file given).
pub fn unit_files(path: &Path) -> Result<Vec<PathBuf>> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut v: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| Error::Read(path.to_path_buf(), e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "unit"))
        .collect();
    v.sort();
    Ok(v)
}

/// The files of directory `dir` (not its subdirectories), sorted: a seed
/// directory, a corpus.
pub fn files_in(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::Read(dir.to_path_buf(), e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    Ok(files)
}

/// Writes `bytes` to `path` whole or not at all (a temporary file in the
/// same directory, renamed).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    write_atomic_via(dir, path, bytes)
}

/// [`write_atomic`] with the temporary file in `tmp_dir` (on the same
/// file system as `path`): a directory of its own, which the next run can
/// clear of what a kill left behind.
pub fn write_atomic_via(tmp_dir: &Path, path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = temp_file_in(tmp_dir).map_err(|e| Error::Write(path.to_path_buf(), e))?;
    std::io::Write::write_all(&mut tmp, bytes).map_err(|e| Error::Write(path.to_path_buf(), e))?;
    tmp.persist(path).map_err(|e| Error::Write(path.to_path_buf(), e.error))?;
    Ok(())
}

/// A temporary file in `dir`, to be renamed into place, with the mode a
/// file created there the usual way gets (`0666` less the umask), not
/// the `0600` of a temporary file: a campaign's report is for others to
/// read too.
pub fn temp_file_in(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    use std::os::unix::fs::PermissionsExt;
    tempfile::Builder::new().permissions(std::fs::Permissions::from_mode(0o666)).tempfile_in(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_atomic_write_replaces_the_whole_file_and_leaves_nothing_else() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        write_atomic(&p, b"first, longer").unwrap();
        write_atomic(&p, b"second").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"second");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
        assert!(matches!(write_atomic(&d.path().join("no/such/dir/f"), b"x"), Err(Error::Write(..))));
    }

    #[test]
    fn an_atomic_write_has_the_usual_mode() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("index.html");
        write_atomic(&p, b"<html>").unwrap();
        let plain = d.path().join("plain");
        std::fs::write(&plain, b"").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&p), mode(&plain), "{:o}", mode(&p));
        assert_ne!(mode(&p), 0o600);
    }

    #[test]
    fn a_file_that_is_not_a_unit_says_so() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.unit");
        std::fs::write(&p, b"not a unit").unwrap();
        assert!(matches!(read_unit(&p), Err(Error::NotAUnit(..))));
        assert!(matches!(read_unit(&d.path().join("none.unit")), Err(Error::Read(..))));
        std::fs::write(d.path().join("b.txt"), b"").unwrap();
        assert_eq!(unit_files(d.path()).unwrap(), vec![p]);
    }
}
