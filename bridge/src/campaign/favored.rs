//! Favoured queue entries, as AFL++ marks them: for each branch outcome the
//! queue reaches, the entry that reaches it at the least cost (run time ×
//! length); radamsa-like picks among these for its cheap picks, so that a
//! large or slow entry is mutated when nothing cheaper reaches what it does.

/// What an entry costs to mutate and run: its run time (1 µs when unknown)
/// times its length (at least 1).
fn cost(run_us: u32, len: usize) -> u64 {
    u64::from(run_us.max(1)) * len.max(1) as u64
}

/// For each entry (`hits`, `run_us`, length), whether it is the cheapest
/// to reach one of its branch outcomes (the earlier of equals).
pub fn favored<'a>(entries: impl Iterator<Item = (&'a [u32], u32, usize)>) -> Vec<bool> {
    let mut best: std::collections::HashMap<u32, (u64, usize)> = std::collections::HashMap::new();
    let mut n = 0;
    for (i, (hits, run_us, len)) in entries.enumerate() {
        n = i + 1;
        let c = cost(run_us, len);
        for &slot in hits {
            let b = best.entry(slot).or_insert((c, i));
            if c < b.0 {
                *b = (c, i);
            }
        }
    }
    let mut out = vec![false; n];
    for (_, i) in best.into_values() {
        out[i] = true;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_outcome_favours_its_cheapest_entry() {
        // 0 reaches 1 and 2; 1 reaches 2 faster; 2 reaches 1 but is long;
        // 3 reaches nothing.
        let entries: [(&[u32], u32, usize); 4] = [(&[1, 2], 100, 10), (&[2], 10, 10), (&[1], 100, 50), (&[], 1, 1)];
        assert_eq!(favored(entries.into_iter()), [true, true, false, false]);
        // Equal costs: the earlier.
        let tie: [(&[u32], u32, usize); 2] = [(&[7], 5, 5), (&[7], 5, 5)];
        assert_eq!(favored(tie.into_iter()), [true, false]);
    }
}
