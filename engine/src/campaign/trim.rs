//! Kept tests trimmed as AFL++ trims its queue entries: chunks are cut
//! out, the largest first (a sixteenth of the test, rounded to a power of
//! two, down to a 1024th, never under 4 bytes), and a cut stays when the
//! run still exits the same way with the same edges in the same hit-count
//! buckets (`exec::coverage::checksum`). Smaller parents make cheaper and
//! more focused mutants. The command line of a test that carries one is
//! left whole. Each try is a run, counted against the campaign's execs.

use exec::{ForkServer, Outcome};
use provenance::Labels;

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
