//! An edge map as the VAE sees it: the hit-count bucket of every edge,
//! folded into a short vector.
//!
//! The map has 64 Ki counters; a dense layer over all of them would not
//! fit one core beside the fork server. Counter `i` goes to feature
//! `i % dim` (edge ids are hashes, so folding spreads them), which keeps
//! the largest bucket folded into it, scaled to 0..=1: the bucket of a
//! count is AFL's (1, 2, 3, 4–7, 8–15, 16–31, 32–127, 128+), level 1 to 8.

/// The bucket level (0 for an edge not taken, 1..=8) of a hit count:
/// which of AFL's buckets ([`model::hit_bucket`]) it falls in.
pub fn level(count: u8) -> u8 {
    match model::hit_bucket(count) {
        0 => 0,
        b => b.trailing_zeros() as u8 + 1,
    }
}

/// `map` folded into `dim` features in 0..=1.
pub fn fold(map: &[u8], dim: usize) -> Vec<f32> {
    let dim = dim.max(1);
    let mut out = vec![0f32; dim];
    for (i, chunk) in map.chunks(8).enumerate() {
        // Most of a map is zero: skip eight counters at a time.
        if chunk.iter().all(|&c| c == 0) {
            continue;
        }
        for (j, &c) in chunk.iter().enumerate() {
            if c != 0 {
                let f = &mut out[(i * 8 + j) % dim];
                *f = f.max(f32::from(level(c)) / 8.0);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_follow_afl_buckets() {
        let got: Vec<u8> = [0u8, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 127, 128, 255].iter().map(|&c| level(c)).collect();
        assert_eq!(got, [0, 1, 2, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8]);
    }

    #[test]
    fn folding_keeps_the_largest_bucket() {
        let mut map = vec![0u8; 64];
        map[3] = 1;
        map[3 + 16] = 200;
        map[5] = 2;
        let f = fold(&map, 16);
        assert_eq!(f.len(), 16);
        assert_eq!(f[3], 1.0);
        assert_eq!(f[5], 0.25);
        assert_eq!(f.iter().filter(|&&x| x > 0.0).count(), 2);
    }
}
