//! An AFL++ sync directory (`--sync DIR`): the campaign is the instance
//! `DIR/NAME`, so its `queue/` is where AFL++'s `-M`/`-S` instances find
//! what it keeps, and it reads the new entries of every other instance's
//! `DIR/*/queue/` (AFL++'s or another bridge's). It never writes into
//! another instance's directory. How far it has read each instance is in
//! its own `.synced/INSTANCE`, as AFL++ keeps it.

use super::outdir::OutDir;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// AFL++ skips larger files too (`MAX_FILE`).
const MOST_BYTES: u64 = 1 << 20;
/// Entries read in one scan, so a large queue is taken in steps between
/// unit rounds.
const MOST_PER_SCAN: usize = 256;
/// How often the directory is scanned again when the last scan found
/// nothing.
const IDLE_RESCAN: Duration = Duration::from_millis(500);

/// One entry of another instance's queue.
pub struct Import {
    /// The instance (its directory's name) and the entry's id there.
    pub instance: String,
    pub id: u64,
    pub name: String,
    pub data: Vec<u8>,
}

pub struct SyncDir {
    root: PathBuf,
    me: String,
    /// The next id to read from each instance.
    next: BTreeMap<String, u64>,
    last_scan: Option<Instant>,
    found_last: bool,
}

impl SyncDir {
    /// The sync directory `root`, where this campaign is `me`; what was
    /// read before comes from `out`'s `.synced/`.
    pub fn open(root: &Path, me: &str, out: &OutDir) -> crate::Result<SyncDir> {
        let mut next = BTreeMap::new();
        if let Ok(dir) = std::fs::read_dir(out.root().join(model::layout::SYNCED)) {
            for e in dir.flatten() {
                let instance = e.file_name().to_string_lossy().into_owned();
                if let Some(n) = std::fs::read_to_string(e.path()).ok().and_then(|s| s.trim().parse().ok()) {
                    next.insert(instance, n);
                }
            }
        }
        Ok(SyncDir { root: root.to_path_buf(), me: me.to_string(), next, last_scan: None, found_last: true })
    }

    /// The entries other instances queued since the last scan, in id order
    /// per instance (at most [`MOST_PER_SCAN`]); `out` records how far
    /// they go. Unreadable entries (an instance resuming, a file being
    /// written) are skipped.
    pub fn scan(&mut self, out: &OutDir) -> crate::Result<Vec<Import>> {
        if !self.found_last && self.last_scan.is_some_and(|t| t.elapsed() < IDLE_RESCAN) {
            return Ok(Vec::new());
        }
        self.last_scan = Some(Instant::now());
        let mut found = Vec::new();
        for (instance, queue) in self.instances() {
            let from = self.next.get(&instance).copied().unwrap_or(0);
            let mut entries: Vec<(u64, String)> = std::fs::read_dir(&queue)
                .map(|d| d.flatten().filter_map(|e| entry_id(&e.file_name().to_string_lossy())).collect())
                .unwrap_or_default();
            entries.retain(|(id, _)| *id >= from);
            entries.sort();
            for (id, name) in entries {
                if found.len() >= MOST_PER_SCAN {
                    break;
                }
                self.next.insert(instance.clone(), id + 1);
                let path = queue.join(&name);
                let fits = std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() > 0 && m.len() <= MOST_BYTES);
                if let (true, Ok(data)) = (fits, std::fs::read(&path)) {
                    found.push(Import { instance: instance.clone(), id, name, data });
                }
            }
            out.write(
                &format!("{}/{instance}", model::layout::SYNCED),
                self.next.get(&instance).copied().unwrap_or(0).to_string().as_bytes(),
            )?;
        }
        self.found_last = !found.is_empty();
        Ok(found)
    }

    /// The other instances with a queue: (name, queue directory).
    fn instances(&self) -> Vec<(String, PathBuf)> {
        let mut v: Vec<(String, PathBuf)> = std::fs::read_dir(&self.root)
            .map(|d| {
                d.flatten()
                    .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path().join(model::layout::QUEUE)))
                    .filter(|(name, queue)| !name.starts_with('.') && *name != self.me && queue.is_dir())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }
}

/// The id of a queue entry named AFL's way (`id:000042,...`).
fn entry_id(name: &str) -> Option<(u64, String)> {
    let digits = name.strip_prefix("id:")?.split(',').next()?;
    Some((digits.parse().ok()?, name.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_entries_are_read_once_in_id_order_and_never_our_own() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (inst, names) in [
            ("main", &["id:000001,src:000000,op:havoc", "id:000000,time:0,orig:a"][..]),
            ("bridge", &["id:000000,orig:x"][..]),
        ] {
            std::fs::create_dir_all(root.join(inst).join("queue/.state")).unwrap();
            for n in names {
                std::fs::write(root.join(inst).join("queue").join(n), n.as_bytes()).unwrap();
            }
        }
        std::fs::write(root.join("main/queue/README"), b"not an entry").unwrap();
        std::fs::write(root.join("main/queue/id:000002,empty"), b"").unwrap();
        let out = OutDir::create(&root.join("bridge-out")).unwrap();
        let mut sync = SyncDir::open(root, "bridge", &out).unwrap();
        let got: Vec<(String, u64)> = sync.scan(&out).unwrap().into_iter().map(|i| (i.instance, i.id)).collect();
        // `bridge-out` has no queue entries; `bridge` is this instance.
        assert_eq!(got, [("main".to_string(), 0), ("main".to_string(), 1)]);
        sync.last_scan = None;
        assert!(sync.scan(&out).unwrap().is_empty(), "read twice");
        std::fs::write(root.join("main/queue/id:000003,src:000001"), b"new").unwrap();
        // A campaign picking up again reads on from where it stopped.
        let mut again = SyncDir::open(root, "bridge", &out).unwrap();
        let got: Vec<u64> = again.scan(&out).unwrap().into_iter().map(|i| i.id).collect();
        assert_eq!(got, [3]);
    }
}
