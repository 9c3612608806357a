//! Whether a 64-byte block of a run's map shows a hit-count bucket never
//! seen there before: the test `Coverage::add` makes of every block of the
//! map after every run, so it is most of the coverage check's cost on a
//! large target (xml-fuzz uses 882 blocks). Most blocks of most runs show
//! nothing new; only those that do are looked at byte by byte.
//!
//! On x86-64 with SSSE3 (every x86-64 CPU of the last fifteen years) the
//! buckets of 16 counts are computed at once from two 16-entry tables, one
//! for the low and one for the high four bits of a count (`pshufb`), as
//! AFL++ classifies a map with wide lookups; elsewhere word by word.

use super::coverage::BUCKETS;

/// The size of a block.
pub(crate) const BLOCK: usize = 64;

/// Whether a word of the map shows a bucket `was` (the same word of what
/// was seen) lacks; a zero word never does.
#[inline(always)]
pub(crate) fn word(word: [u8; 8], was: [u8; 8]) -> bool {
    u64::from_ne_bytes(word) != 0
        && u64::from_ne_bytes(word.map(|h| BUCKETS[h as usize])) & !u64::from_ne_bytes(was) != 0
}

/// The portable test: a block with a word that shows a bucket not seen.
#[inline(always)]
pub(crate) fn portable(map: &[u8; BLOCK], seen: &[u8; BLOCK]) -> bool {
    map.chunks_exact(8).zip(seen.chunks_exact(8)).any(|(m, s)| word(m.try_into().unwrap(), s.try_into().unwrap()))
}

/// The same test with SSSE3.
///
/// # Safety
/// The CPU must have SSSE3.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
#[inline]
pub(crate) unsafe fn ssse3(map: &[u8; BLOCK], seen: &[u8; BLOCK]) -> bool {
    use std::arch::x86_64::*;
    // The bucket of a count h is that of its high four bits when they are
    // not zero (32, 64 or 128, above any bucket of the low four), and that
    // of its low four bits otherwise: the larger of the two lookups.
    let low = _mm_setr_epi8(0, 1, 2, 4, 8, 8, 8, 8, 16, 16, 16, 16, 16, 16, 16, 16);
    let high = _mm_setr_epi8(0, 32, 64, 64, 64, 64, 64, 64, -128, -128, -128, -128, -128, -128, -128, -128);
    let nibble = _mm_set1_epi8(0x0f);
    let mut new = _mm_setzero_si128();
    for k in 0..BLOCK / 16 {
        // SAFETY: both arrays hold BLOCK bytes; unaligned loads.
        let (m, s) = unsafe {
            (_mm_loadu_si128(map.as_ptr().add(16 * k).cast()), _mm_loadu_si128(seen.as_ptr().add(16 * k).cast()))
        };
        let lo = _mm_shuffle_epi8(low, _mm_and_si128(m, nibble));
        let hi = _mm_shuffle_epi8(high, _mm_and_si128(_mm_srli_epi16(m, 4), nibble));
        new = _mm_or_si128(new, _mm_andnot_si128(s, _mm_max_epu8(lo, hi)));
    }
    _mm_movemask_epi8(_mm_cmpeq_epi8(new, _mm_setzero_si128())) != 0xffff
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both tests agree on every count against every bucket set, in every
    /// byte of the block.
    #[test]
    fn the_wide_test_agrees_with_the_portable_one() {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("ssse3") {
            let mut checked = 0;
            for h in 0..=255u8 {
                for seen_bits in [0u8, 1, 2, 4, 8, 16, 32, 64, 128, 0xff, 0x7f, 0xfe, 0x55, 0xaa] {
                    for at in [0, 7, 8, 15, 16, 33, 63] {
                        let mut map = [0u8; BLOCK];
                        map[at] = h;
                        let mut seen = [0u8; BLOCK];
                        seen[at] = seen_bits;
                        let want = BUCKETS[h as usize] & !seen_bits != 0;
                        assert_eq!(portable(&map, &seen), want, "count {h}, seen {seen_bits:#x}, byte {at}");
                        // SAFETY: the CPU has SSSE3.
                        assert_eq!(unsafe { ssse3(&map, &seen) }, want, "count {h}, seen {seen_bits:#x}, byte {at}");
                        checked += 1;
                    }
                }
            }
            assert_eq!(checked, 256 * 14 * 7);
            return;
        }
        // Without SSSE3 the portable test alone.
        let mut map = [0u8; BLOCK];
        map[9] = 3;
        assert!(portable(&map, &[0; BLOCK]));
        assert!(!portable(&map, &[4; BLOCK]));
    }
}
