//! Branch directions in context: how many times a trace had met the
//! branch's site when it took the direction, in buckets of hit counts as
//! AFL counts edges. A loop that ends one iteration later than any trace
//! ended it (a `sed` script read one byte further) takes its exit in a
//! context no trace gave it, though every trace took that exit.

use model::hit_bucket;
use model::symtrace::PathEntry;
use model::trace::PATH_PIN;
use std::collections::HashMap;

/// A direction (`site`, value) and the bucket of its site's meeting
/// ([`hit_bucket`], as AFL's edge counts).
pub(crate) type InContext = (u32, u64, u8);

/// For each entry of `path`, the bucket of its site's meeting there
/// (pins, which are not branches, get 0).
pub(crate) fn buckets(path: &[PathEntry]) -> Vec<u8> {
    let mut met: HashMap<u32, u8> = HashMap::new();
    path.iter()
        .map(|e| {
            if e.kind == PATH_PIN {
                return 0;
            }
            let k = met.entry(e.site).or_default();
            *k = k.saturating_add(1);
            hit_bucket(*k)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::trace::PATH_BRANCH;

    fn entry(site: u32) -> PathEntry {
        PathEntry { kind: PATH_BRANCH, site, node: 1, taken: 1, cases: Vec::new(), slots: Vec::new() }
    }

    #[test]
    fn each_site_counts_its_own_meetings_in_log_buckets() {
        let mut path: Vec<_> = (0..9).map(|_| entry(7)).collect();
        path.insert(3, entry(8));
        assert_eq!(buckets(&path), [1, 2, 4, 1, 8, 8, 8, 8, 16, 16]);
        // Past 255 meetings, the last bucket.
        let long: Vec<_> = (0..300).map(|_| entry(7)).collect();
        assert_eq!(buckets(&long)[299], 128);
    }
}
