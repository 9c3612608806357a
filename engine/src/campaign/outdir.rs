//! The campaign directory (DESIGN §9): `queue/`, `crashes/`, `hangs/`,
//! `coverage.csv`, `campaign.json`. Every file is written to `.tmp/` and
//! renamed into place, so a campaign killed at any moment leaves only
//! whole files.

use crate::error::ensure;
use crate::{Error, FileContext, Result};
use model::layout::{self, record_path, tree_path, CAMPAIGN_FILE, CRASHES, HANGS, QUEUE};
pub use model::layout::{parse_id, sanitize, src_field, NEW_WORD_OP};
use provenance::{Labels, Record};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const CSV_HEADER: &str = "seconds,execs,edges,edges_total,branches,branches_total,branch_pct,queue,unique_crashes";

/// The directories of a campaign (trail records of the tests in
/// `queue/` are in `trails/queue/`, and so on).
const DIRS: [&str; 8] =
    [QUEUE, CRASHES, HANGS, "trails/queue", "trails/crashes", "trails/hangs", layout::TMP, layout::SYNCED];

pub struct OutDir {
    root: PathBuf,
}

/// A saved test: its id, its bytes, and whether it is a lift that added a
/// word to the command line (`op:lift_FUNCTION+word`).
pub struct Saved {
    pub id: u64,
    /// Its path in the campaign directory (`queue/NAME`).
    pub name: String,
    pub data: Vec<u8>,
    pub new_word: bool,
    /// A seed of the campaign (`orig:` in its name).
    pub seed: bool,
    /// Its bytes' origins, from its trail record (none when the record
    /// is missing or cannot be read).
    pub labels: Option<Labels>,
}

impl OutDir {
    /// A new campaign directory. An existing one that holds a file is
    /// refused; one that holds only directories (what a campaign whose
    /// target did not start leaves) is used again.
    pub fn create(root: &Path) -> Result<OutDir> {
        if root.exists() && holds_a_file(root) {
            return Err(Error::Refused(format!(
                "{} already exists: continue it with --resume, or choose another output directory",
                root.display()
            )));
        }
        let out = OutDir { root: root.to_path_buf() };
        for d in DIRS {
            std::fs::create_dir_all(root.join(d)).at("create", &root.join(d))?;
        }
        Ok(out)
    }

    /// An existing campaign directory, to resume.
    pub fn open(root: &Path) -> Result<OutDir> {
        ensure!(
            root.join(CAMPAIGN_FILE).is_file(),
            "{} holds no campaign to resume (no campaign.json)",
            root.display()
        );
        let out = OutDir { root: root.to_path_buf() };
        for d in DIRS.iter().chain(&[layout::ALARMS]) {
            std::fs::create_dir_all(root.join(d))?;
        }
        // Left-overs of writes cut short by the kill.
        for e in std::fs::read_dir(root.join(layout::TMP))?.flatten() {
            let _ = std::fs::remove_file(e.path());
        }
        Ok(out)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Writes `rel` atomically (temporary file, then rename).
    pub fn write(&self, rel: &str, bytes: &[u8]) -> Result<()> {
        let path = self.root.join(rel);
        Ok(driver::files::write_atomic_via(&self.root.join(layout::TMP), &path, bytes)?)
    }

    /// Writes the test `rel` and its trail record, the record first: a
    /// test is never without its record, whenever the campaign is killed
    /// (a record without its test is ignored).
    pub fn write_test(&self, rel: &str, bytes: &[u8], record: &Record) -> Result<()> {
        self.write(&record_path(rel), &record.to_json())?;
        self.write(rel, bytes)
    }

    /// Writes the derivation tree (JSON) of test `rel` where it is kept.
    pub fn write_tree(&self, rel: &str, json: &str) -> Result<()> {
        let path = tree_path(rel);
        if let Some(dir) = Path::new(&path).parent() {
            std::fs::create_dir_all(self.root.join(dir)).at("create", &self.root.join(dir))?;
        }
        self.write(&path, json.as_bytes())
    }

    /// Appends a line to `rel` (`coverage.csv`, `units.csv`), after
    /// `header` when the file is new.
    pub fn append_line(&self, rel: &str, header: &str, row: &str) -> Result<()> {
        let path = self.root.join(rel);
        let fresh = !path.exists();
        let mut f = std::fs::OpenOptions::new().append(true).create(true).open(&path)?;
        let text = if fresh { format!("{header}\n{row}\n") } else { format!("{row}\n") };
        f.write_all(text.as_bytes()).at("append to", &path)?;
        Ok(())
    }

    pub fn read(&self, rel: &str) -> Result<Vec<u8>> {
        let path = self.root.join(rel);
        std::fs::read(&path).at("read", &path)
    }

    /// The tests saved in `dir` (`queue`, `crashes`, `hangs`), by id.
    pub fn saved(&self, dir: &str) -> Result<Vec<Saved>> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(self.root.join(dir))? {
            let e = e?;
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(id) = parse_id(&name) else { continue };
            let data = std::fs::read(e.path()).at("read", &e.path())?;
            let new_word = name.contains(",op:lift_") && name.ends_with(NEW_WORD_OP);
            let seed = name.contains(",orig:");
            let labels = Record::read(&self.root, &format!("{dir}/{name}"))
                .ok()
                .flatten()
                .and_then(|r| r.labels)
                .filter(|l| l.len() == data.len());
            out.push(Saved { id, name: format!("{dir}/{name}"), data, new_word, seed, labels });
        }
        out.sort_by_key(|s| s.id);
        Ok(out)
    }
}

/// Writes a kept test with its trail record and, when a grammar made it,
/// its derivation tree (as JSON) first.
pub fn write_kept(
    out: &OutDir,
    tree: Option<&systemgen::Tree>,
    rel: &str,
    bytes: &[u8],
    record: &Record,
) -> Result<()> {
    if let Some(t) = tree {
        out.write_tree(rel, &t.to_json())?;
    }
    out.write_test(rel, bytes, record)
}

/// Whether `dir` holds anything but directories, at any depth (an
/// unreadable entry counts as a file).
fn holds_a_file(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else { return true };
    entries.into_iter().any(|e| match e.and_then(|e| e.file_type().map(|t| (e.path(), t))) {
        Ok((path, t)) if t.is_dir() => holds_a_file(&path),
        _ => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn existing_directories_are_refused_and_writes_are_whole() {
        let dir = tempfile::tempdir().unwrap();
        let out = OutDir::create(&dir.path().join("out")).unwrap();
        out.write("queue/id:000001,orig:x", b"abc").unwrap();
        assert_eq!(out.saved("queue").unwrap()[0].data, b"abc");
        assert!(OutDir::create(&dir.path().join("out")).is_err());
        assert!(OutDir::open(&dir.path().join("out")).is_err(), "no campaign.json yet");
    }

    #[test]
    fn a_directory_of_empty_directories_is_used_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("out");
        OutDir::create(&root).unwrap();
        let again = OutDir::create(&root).expect("nothing was written: the skeleton is taken");
        again.write("trails/queue/x.json", b"{}").unwrap();
        assert!(OutDir::create(&root).is_err(), "a file deep inside is kept");
    }

    #[test]
    fn appended_files_get_their_header_once() {
        let dir = tempfile::tempdir().unwrap();
        let out = OutDir::create(&dir.path().join("out")).unwrap();
        out.append_line("units.csv", "a,b", "1,2").unwrap();
        out.append_line("units.csv", "a,b", "3,4").unwrap();
        assert_eq!(out.read("units.csv").unwrap(), b"a,b\n1,2\n3,4\n");
    }
}
