//! Hit counts, AFL's buckets, and the cumulative coverage of many runs.

use crate::newbits::{self, BLOCK};
use model::MAP_SIZE;

/// AFL's hit-count buckets: 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+.
pub use model::hit_bucket as bucket;

const fn bucket_table() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = bucket(i as u8);
        i += 1;
    }
    t
}
pub(crate) static BUCKETS: [u8; 256] = bucket_table();

/// The edges a map shows, as `(edge, bucket)` pairs.
pub fn edges(map: &[u8]) -> Vec<(u32, u8)> {
    map.iter().enumerate().filter(|(_, &h)| h != 0).map(|(i, &h)| (i as u32, BUCKETS[h as usize])).collect()
}

/// A checksum of what a map shows: each edge hit and its hit-count
/// bucket (two maps with the same edges in the same buckets have the same
/// checksum), as AFL++ compares a trimmed test's run with its original's.
/// Each non-zero word of the map, its bytes replaced by their buckets, is
/// mixed with its place on its own and the results summed: no word waits
/// for the one before (trimming takes a checksum per run).
pub fn checksum(map: &[u8]) -> u64 {
    let words = map.chunks_exact(8);
    let mut last = [0u8; 8];
    last[..words.remainder().len()].copy_from_slice(words.remainder());
    let mut h: u64 = 0;
    for (k, word) in words.map(|w| <[u8; 8]>::try_from(w).unwrap()).chain([last]).enumerate() {
        if u64::from_ne_bytes(word) == 0 {
            continue;
        }
        let bucketed = u64::from_le_bytes(word.map(|b| BUCKETS[b as usize]));
        h = h.wrapping_add(mix(bucketed ^ (k as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)));
    }
    h
}

/// SplitMix64's finaliser: every bit of the result depends on every bit
/// of `x`.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// What a run added to what was seen before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Newness {
    Nothing,
    /// A known edge in a new hit-count bucket.
    NewCounts,
    /// An edge never seen before.
    NewEdges,
}

/// Everything seen so far: for each edge, the union of its buckets.
pub struct Coverage {
    seen: Box<[u8; MAP_SIZE]>,
    edges: usize,
}

impl Default for Coverage {
    fn default() -> Self {
        Coverage { seen: Box::new([0; MAP_SIZE]), edges: 0 }
    }
}

impl Coverage {
    /// Adds one run's raw map; says what was new.
    pub fn add(&mut self, map: &[u8]) -> Newness {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("ssse3") {
            // SAFETY: the CPU has SSSE3.
            return unsafe { self.add_ssse3(map) };
        }
        self.add_blocks(map, newbits::portable)
    }

    /// [`Coverage::add`] with the blocks tested 16 bytes at a time.
    ///
    /// # Safety
    /// The CPU must have SSSE3.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "ssse3")]
    unsafe fn add_ssse3(&mut self, map: &[u8]) -> Newness {
        // SAFETY: the caller's CPU has SSSE3, and so has this function's.
        self.add_blocks(map, |m, s| unsafe { newbits::ssse3(m, s) })
    }

    /// Adds `map` block by block: a whole block that `new` finds nothing
    /// new in (most blocks of most runs) is passed over, the others (and a
    /// last block cut short) are added byte by byte.
    #[inline(always)]
    fn add_blocks(&mut self, map: &[u8], new: impl Fn(&[u8; BLOCK], &[u8; BLOCK]) -> bool) -> Newness {
        let mut newness = Newness::Nothing;
        for (block_map, block_seen) in map.chunks(BLOCK).zip(self.seen.chunks_mut(BLOCK)) {
            if let (Ok(m), Ok(s)) = (<&[u8; BLOCK]>::try_from(block_map), <&[u8; BLOCK]>::try_from(&*block_seen)) {
                if !new(m, s) {
                    continue;
                }
            }
            newness = newness.max(add_block(block_map, block_seen, &mut self.edges));
        }
        newness
    }

    /// The raw union of buckets, `MAP_SIZE` bytes (to save and load).
    pub fn as_bytes(&self) -> &[u8] {
        &self.seen[..]
    }

    /// Coverage saved with [`Coverage::as_bytes`]; `None` when `bytes` has
    /// the wrong size.
    pub fn from_bytes(bytes: &[u8]) -> Option<Coverage> {
        let seen: Box<[u8; MAP_SIZE]> = bytes.to_vec().into_boxed_slice().try_into().ok()?;
        let edges = seen.iter().filter(|&&b| b != 0).count();
        Some(Coverage { seen, edges })
    }

    /// Edges hit at least once.
    pub fn edges(&self) -> usize {
        self.edges
    }

    /// How many of `slots` were hit at least once.
    pub fn covered_among(&self, slots: &[usize]) -> usize {
        slots.iter().filter(|&&s| self.seen[s] != 0).count()
    }

    pub fn is_covered(&self, edge: usize) -> bool {
        self.seen[edge] != 0
    }

    /// The edges a run's raw map hits that were never hit before.
    pub fn new_edges(&self, map: &[u8]) -> Vec<usize> {
        let mut out = Vec::new();
        for (k, (chunk_map, chunk_seen)) in map.chunks_exact(8).zip(self.seen.chunks_exact(8)).enumerate() {
            if u64::from_ne_bytes(chunk_map.try_into().unwrap()) == 0 {
                continue;
            }
            for (i, (&h, &s)) in chunk_map.iter().zip(chunk_seen).enumerate() {
                if h != 0 && s == 0 {
                    out.push(8 * k + i);
                }
            }
        }
        out
    }
}

/// [`Coverage::add`] on one block of the map and of what was seen. A word
/// whose buckets were all seen before (most words of most runs) costs a
/// word's lookups and one test, not a test per byte.
fn add_block(map: &[u8], seen: &mut [u8], edges: &mut usize) -> Newness {
    let mut newness = Newness::Nothing;
    for (chunk_map, chunk_seen) in map.chunks(8).zip(seen.chunks_mut(8)) {
        if let (Ok(word), Ok(was)) = (<[u8; 8]>::try_from(chunk_map), <[u8; 8]>::try_from(&*chunk_seen)) {
            if !newbits::word(word, was) {
                continue;
            }
        } else if chunk_map.iter().all(|&b| b == 0) {
            continue;
        }
        for (&h, s) in chunk_map.iter().zip(chunk_seen.iter_mut()) {
            let b = BUCKETS[h as usize];
            if b & !*s != 0 {
                if *s == 0 {
                    *edges += 1;
                    newness = Newness::NewEdges;
                } else if newness == Newness::Nothing {
                    newness = Newness::NewCounts;
                }
                *s |= b;
            }
        }
    }
    newness
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_see_edges_and_buckets_not_counts_within_a_bucket() {
        let map = |hits: &[(usize, u8)]| {
            let mut m = vec![0u8; 64];
            for &(i, h) in hits {
                m[i] = h;
            }
            m
        };
        let c = |hits: &[(usize, u8)]| checksum(&map(hits));
        assert_eq!(c(&[(3, 4), (40, 1)]), c(&[(3, 7), (40, 1)]), "4 and 7 share a bucket");
        assert_ne!(c(&[(3, 4), (40, 1)]), c(&[(3, 8), (40, 1)]));
        assert_ne!(c(&[(3, 4)]), c(&[(3, 4), (40, 1)]));
        assert_ne!(c(&[(3, 1)]), c(&[(4, 1)]));
        assert_ne!(c(&[(3, 1)]), c(&[(11, 1)]), "the same byte of another word");
        assert_ne!(c(&[(3, 1), (11, 2)]), c(&[(3, 2), (11, 1)]));
    }

    #[test]
    fn buckets_are_afls() {
        // AFL's buckets, written out by hand: (first hit count, last, bucket).
        let expected: [(u8, u8, u8); 9] = [
            (0, 0, 0),
            (1, 1, 1),
            (2, 2, 2),
            (3, 3, 4),
            (4, 7, 8),
            (8, 15, 16),
            (16, 31, 32),
            (32, 127, 64),
            (128, 255, 128),
        ];
        let mut next = 0u16;
        for (lo, hi, b) in expected {
            assert_eq!(u16::from(lo), next, "the ranges cover every count once");
            for h in lo..=hi {
                assert_eq!(bucket(h), b, "bucket of {h} hits");
                assert_eq!(BUCKETS[h as usize], b, "table entry for {h} hits");
            }
            next = u16::from(hi) + 1;
        }
        assert_eq!(next, 256);
        for (h, b) in
            [(3, 4), (4, 8), (7, 8), (8, 16), (15, 16), (16, 32), (31, 32), (32, 64), (127, 64), (128, 128), (255, 128)]
        {
            assert_eq!(bucket(h), b, "bucket of {h} hits");
        }
    }

    #[test]
    fn coverage_tells_new_edges_from_new_counts() {
        let mut cov = Coverage::default();
        let mut map = vec![0u8; MAP_SIZE];
        map[5] = 1;
        map[9] = 3;
        assert_eq!(cov.new_edges(&map), vec![5, 9]);
        map[9] = 0;
        assert_eq!(cov.add(&map), Newness::NewEdges);
        assert!(cov.new_edges(&map).is_empty());
        assert_eq!(cov.add(&map), Newness::Nothing);
        map[5] = 9;
        assert_eq!(cov.add(&map), Newness::NewCounts);
        map[70000 % MAP_SIZE] = 1;
        assert_eq!(cov.add(&map), Newness::NewEdges);
        assert_eq!(cov.edges(), 2);
        assert_eq!(edges(&map), vec![(5, 16), ((70000 % MAP_SIZE) as u32, 1)]);
        // New counts in one block and a new edge in the map's last: the
        // edge is what the run says.
        map[5] = 200;
        map[MAP_SIZE - 1] = 1;
        assert_eq!(cov.add(&map), Newness::NewEdges);
        assert_eq!(cov.edges(), 3);
        map[MAP_SIZE - 1] = 0;
        let back = Coverage::from_bytes(cov.as_bytes()).unwrap();
        assert_eq!(back.edges(), 3);
        assert!(Coverage::from_bytes(&[0; 3]).is_none());
        // The part of the map a target uses, ending inside a word.
        let mut part = vec![0u8; 100];
        part[98] = 2;
        assert_eq!(cov.add(&part), Newness::NewEdges);
        assert_eq!(cov.add(&part), Newness::Nothing);
        part[98] = 1;
        assert_eq!(cov.add(&part), Newness::NewCounts);
        part[5] = 1;
        assert_eq!(cov.add(&part), Newness::Nothing, "edge 5 was seen once");
        part[5] = 2;
        assert_eq!(cov.add(&part), Newness::NewCounts, "but never twice");
        assert_eq!(cov.edges(), 4);
    }
}
