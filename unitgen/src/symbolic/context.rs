//! Branch directions in context: how many times a trace had met the
//! branch's site when it took the direction, in buckets of hit counts as
//! AFL counts edges. A loop that ends one iteration later than any trace
//! ended it (a `sed` script read one byte further) takes its exit in a
//! context no trace gave it, though every trace took that exit.

use model::symtrace::PathEntry;
use model::trace::PATH_PIN;
use std::collections::HashMap;

/// A direction (`site`, value) and the bucket of its site's meeting.
pub(crate) type InContext = (u32, u64, u8);

/// The hit-count bucket of the `k`-th meeting (from 1).
pub(crate) fn bucket(k: u32) -> u8 {
    match k {
        0..=1 => 0,
        2 => 1,
        3 => 2,
        4..=7 => 3,
        8..=15 => 4,
        16..=31 => 5,
        32..=127 => 6,
        _ => 7,
    }
}

/// For each entry of `path`, the bucket of its site's meeting there
/// (pins, which are not branches, get 0).
pub(crate) fn buckets(path: &[PathEntry]) -> Vec<u8> {
    let mut met: HashMap<u32, u32> = HashMap::new();
    path.iter()
        .map(|e| {
            if e.kind == PATH_PIN {
                return 0;
            }
            let k = met.entry(e.site).or_default();
            *k += 1;
            bucket(*k)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::trace::PATH_BRANCH;

    fn entry(site: u32) -> PathEntry {
        PathEntry { kind: PATH_BRANCH, site, node: 1, taken: 1, cases: Vec::new() }
    }

    #[test]
    fn each_site_counts_its_own_meetings_in_log_buckets() {
        let mut path: Vec<_> = (0..9).map(|_| entry(7)).collect();
        path.insert(3, entry(8));
        assert_eq!(buckets(&path), [0, 1, 2, 0, 3, 3, 3, 3, 4, 4]);
        assert_eq!((bucket(31), bucket(32), bucket(127), bucket(128)), (5, 6, 6, 7));
    }
}
