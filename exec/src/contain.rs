//! Containment of runs: a scratch working directory emptied after every run,
//! and, when `bridge` runs as root, an unprivileged user for the target.
//! Fuzzed inputs make targets write files (sed's `w`) and run commands
//! (dc's `!`); none of it may touch the campaign or the machine.

use std::path::{Path, PathBuf};

/// The scratch working directory of a target and who runs in it.
pub struct Jail {
    work: PathBuf,
    /// Modification time of the empty working directory: while it stays,
    /// nothing was created in it (one `stat` instead of a listing per run).
    clean_mtime: std::cell::Cell<Option<(i64, i64)>>,
    /// `(uid, gid)` the fork server switches to.
    pub run_as: Option<(u32, u32)>,
}

impl Jail {
    /// Prepares `scratch/work`. `scratch` itself must be readable by the
    /// target's user (it holds the input file).
    pub fn new(scratch: &Path) -> std::io::Result<Jail> {
        use std::os::unix::fs::PermissionsExt;
        let work = scratch.join("work");
        std::fs::create_dir_all(&work)?;
        std::fs::set_permissions(scratch, std::fs::Permissions::from_mode(0o755))?;
        // SAFETY: geteuid cannot fail.
        let run_as = if unsafe { libc::geteuid() } == 0 { nobody() } else { None };
        if let Some((uid, gid)) = run_as {
            std::os::unix::fs::chown(&work, Some(uid), Some(gid))?;
        }
        Ok(Jail { work, run_as, clean_mtime: std::cell::Cell::new(None) })
    }

    /// The working directory of every run.
    pub fn work(&self) -> &Path {
        &self.work
    }

    /// Removes whatever the last run left in the working directory.
    pub fn clean(&self) -> std::io::Result<()> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(&self.work)?;
        let now = (m.mtime(), m.mtime_nsec());
        if self.clean_mtime.get() == Some(now) {
            return Ok(());
        }
        for entry in std::fs::read_dir(&self.work)? {
            let path = entry?.path();
            match std::fs::symlink_metadata(&path) {
                Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path)?,
                Ok(_) => std::fs::remove_file(&path)?,
                Err(_) => {}
            }
        }
        let m = std::fs::metadata(&self.work)?;
        self.clean_mtime.set(Some((m.mtime(), m.mtime_nsec())));
        Ok(())
    }
}

/// The `nobody` user (or 65534 when there is none).
fn nobody() -> Option<(u32, u32)> {
    // SAFETY: getpwnam returns NULL or a pointer to a static record.
    unsafe {
        let pw = libc::getpwnam(c"nobody".as_ptr());
        if pw.is_null() {
            Some((65534, 65534))
        } else {
            Some(((*pw).pw_uid, (*pw).pw_gid))
        }
    }
}

/// The arguments that name regular files relative to our working
/// directory, with their absolute paths: runs happen in a scratch
/// directory, where they would name nothing. Only regular files: an
/// argument that happens to name a directory here (jq's filter `.`) is
/// more likely something else, and a program reading a directory finds
/// the scratch one as empty as any. Nor a word without a letter or a
/// digit: that is a delimiter (`cut -d ,`, `sort -t :`), whatever file
/// an earlier run left under that name.
pub fn path_args(args: &[String]) -> Vec<(usize, String)> {
    path_args_in(Path::new("."), args)
}

/// [`path_args`] for a command run from `dir`.
pub fn path_args_in(dir: &Path, args: &[String]) -> Vec<(usize, String)> {
    args.iter()
        .enumerate()
        .filter_map(|(i, a)| {
            let p = Path::new(a);
            let word = a.chars().any(char::is_alphanumeric);
            if a.contains("@@") || a.starts_with('-') || !word || !p.is_relative() || !dir.join(p).is_file() {
                return None;
            }
            let abs = std::fs::canonicalize(dir.join(p)).ok()?;
            Some((i, abs.to_string_lossy().into_owned()))
        })
        .collect()
}

/// `args` with [`path_args`] made absolute.
pub fn absolute_args(args: &[String]) -> Vec<String> {
    let mut out = args.to_vec();
    for (i, abs) in path_args(args) {
        out[i] = abs;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_work_directory_is_emptied() {
        let dir = tempfile::tempdir().unwrap();
        let jail = Jail::new(dir.path()).unwrap();
        std::fs::write(jail.work().join("f"), "x").unwrap();
        std::fs::create_dir_all(jail.work().join("d/e")).unwrap();
        jail.clean().unwrap();
        assert_eq!(std::fs::read_dir(jail.work()).unwrap().count(), 0);
    }

    #[test]
    fn existing_relative_files_become_absolute() {
        let args = absolute_args(&["Cargo.toml".into(), "-n".into(), "@@".into(), "no-such-file".into()]);
        assert!(Path::new(&args[0]).is_absolute());
        assert_eq!(&args[1..], ["-n", "@@", "no-such-file"]);
    }

    #[test]
    fn directories_stay_as_given() {
        // jq's filter `.`, sed's script `..`: directories here, words there.
        let args: Vec<String> = [".", "..", "src", "Cargo.toml"].map(String::from).to_vec();
        assert_eq!(path_args(&args).into_iter().map(|(i, _)| i).collect::<Vec<_>>(), [3]);
        assert_eq!(&absolute_args(&args)[..3], [".", "..", "src"]);
    }

    #[test]
    fn delimiters_stay_as_given_whatever_file_has_their_name() {
        // A file `,` a program wrote here (sed's `w ,`): `cut -d , -f 1`
        // still means the comma.
        let dir = tempfile::tempdir().unwrap();
        for name in [",", ":", "data.csv"] {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        let args: Vec<String> = ["-d", ",", "-t", ":", "data.csv"].map(String::from).to_vec();
        let found = path_args_in(dir.path(), &args);
        assert_eq!(found.iter().map(|(i, _)| *i).collect::<Vec<_>>(), [4]);
        assert!(Path::new(&found[0].1).is_absolute());
    }
}
