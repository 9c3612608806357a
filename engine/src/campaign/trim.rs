//! Kept tests trimmed as AFL++ trims its queue entries, when they are
//! about to be mutated: before each batch, a few favoured entries not yet
//! trimmed (the parents the generator mostly picks; AFL++ trims an entry
//! the first time it fuzzes it, and many never are). Chunks are cut out,
//! the largest first (a sixteenth of the test, rounded to a power of two,
//! down to a 1024th, never under 4 bytes), and a cut stays when the run
//! still exits the same way with the same edges in the same hit-count
//! buckets (`exec::coverage::checksum`). Smaller parents make cheaper and
//! more focused mutants. The trimmed test replaces the entry's file, its
//! trail record's labels cut with it, and keeps the file's time (when it
//! was found). Seeds, the command line of a test that carries one, and
//! tests a grammar derived are left whole. Each try is a run, counted
//! against the campaign's execs.

use super::Campaign;
use exec::{ForkServer, Outcome};
use provenance::Labels;

/// Favoured entries trimmed before a batch, at most.
const PER_BATCH: usize = 4;

/// Smallest chunk cut.
const MIN_CHUNK: usize = 4;
/// Most runs spent on one test.
pub const MAX_RUNS: u64 = 128;

/// A test trimmed, with its labels, and what it cost.
pub struct Trimmed {
    pub data: Vec<u8>,
    pub labels: Labels,
    /// Runs tried.
    pub runs: u64,
}

/// `data` (labelled `labels`; its first `keep` bytes left whole), whose
/// run exited with `outcome` and a map of checksum `want`, trimmed.
pub fn trim(
    fs: &mut ForkServer,
    (data, labels): (&[u8], &Labels),
    keep: usize,
    (outcome, want): (Outcome, u64),
) -> Result<Trimmed, exec::Error> {
    let mut out = Trimmed { data: data.to_vec(), labels: labels.clone(), runs: 0 };
    let len = data.len().saturating_sub(keep);
    if len < 2 * MIN_CHUNK || !matches!(outcome, Outcome::Exit(_)) {
        return Ok(out);
    }
    let top = len.next_power_of_two();
    let mut step = (top / 16).max(MIN_CHUNK);
    let last = (top / 1024).max(MIN_CHUNK);
    while step >= last && out.runs < MAX_RUNS {
        let mut at = keep;
        while at < out.data.len() && out.runs < MAX_RUNS {
            let end = (at + step).min(out.data.len());
            let mut cut = out.data[..at].to_vec();
            cut.extend_from_slice(&out.data[end..]);
            out.runs += 1;
            let same = fs.run_limited(&cut)? == outcome && exec::coverage::checksum(fs.map()) == want;
            if same {
                let mut l = out.labels.slice(0, at);
                l.extend(&out.labels.slice(end, out.data.len()));
                out.data = cut;
                out.labels = l;
            } else {
                at = end;
            }
        }
        step /= 2;
    }
    Ok(out)
}

/// Where the part of a test that may be trimmed starts: after its first
/// line when it carries its command line there.
pub fn trimmable_from(data: &[u8], args_in_input: bool) -> usize {
    if !args_in_input {
        return 0;
    }
    data.iter().position(|&b| b == b'\n').map_or(data.len(), |n| n + 1)
}

impl Campaign {
    /// Trims up to [`PER_BATCH`] favoured entries (`favored`, by corpus
    /// index) not trimmed yet, when the campaign trims.
    pub(super) fn trim_favored(&mut self, favored: &[bool]) -> crate::Result<()> {
        if !self.file.config.trim || self.grammar.is_some() {
            return Ok(());
        }
        let args_in_input = self.fs.target().args_in_input;
        let picked: Vec<usize> =
            (0..self.corpus.len()).filter(|&k| favored[k] && !self.corpus[k].trimmed).take(PER_BATCH).collect();
        for k in picked {
            self.corpus[k].trimmed = true;
            let e = &self.corpus[k];
            let outcome = self.fs.run_limited(&e.data)?;
            let want = exec::coverage::checksum(self.fs.map());
            let keep = trimmable_from(&e.data, args_in_input);
            let t = trim(&mut self.fs, (&e.data, &e.labels), keep, (outcome, want))?;
            let s = &mut self.file.stats;
            s.execs += t.runs + 1;
            s.trim_runs += t.runs + 1;
            s.trimmed += 1;
            if t.data.len() == e.data.len() {
                continue;
            }
            s.trim_cut_bytes += (e.data.len() - t.data.len()) as u64;
            let path = self.out.root().join(&e.name);
            let found = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
            match provenance::Record::read(self.out.root(), &e.name).ok().flatten() {
                Some(r) => {
                    // A record without labels (a test with no trail) stays so.
                    let labels = r.labels.as_ref().map(|_| t.labels.clone());
                    let record = provenance::Record { labels, ..r };
                    self.out.write_test(&e.name, &t.data, &record)?;
                }
                None => self.out.write(&e.name, &t.data)?,
            }
            if let Some(time) = found {
                let _ = std::fs::File::options().write(true).open(&path).and_then(|f| f.set_modified(time));
            }
            let e = &mut self.corpus[k];
            e.data = t.data;
            e.labels = t.labels;
        }
        Ok(())
    }
}
