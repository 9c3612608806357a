//! Mutated records for the runtime's parser tests (a test build only).

use crate::model::snapshot::{header, HEADER_LEN};
use alloc::vec::Vec;

/// How many inputs a fuzz test runs: `RUNTIME_FUZZ_INPUTS`, default 20 000
/// (`scripts/bench/decoders.sh` runs a million).
pub fn inputs() -> u64 {
    std::env::var("RUNTIME_FUZZ_INPUTS").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000)
}

/// A deterministic stream of mutations of one valid record.
pub struct Mutator(u64);

impl Mutator {
    pub fn new(seed: u64) -> Mutator {
        Mutator(seed | 1)
    }

    fn word(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// `valid` (a record of `kind`) with one to four edits: bit flips,
    /// random or boundary bytes, a cut, an insertion; most of the time
    /// its checksum made to fit again, so that the payload is parsed.
    pub fn mutate(&mut self, kind: u32, valid: &[u8]) -> Vec<u8> {
        let mut bytes = valid.to_vec();
        for _ in 0..1 + self.word() % 4 {
            let k = (self.word() % bytes.len() as u64) as usize;
            match self.word() % 5 {
                0 => bytes[k] ^= 1 << (self.word() % 8),
                1 => bytes[k] = self.word() as u8,
                2 => bytes.truncate(k.max(1)),
                3 => bytes[k] = [0, 1, 8, 16, 24, 0x7f, 0xff][(self.word() % 7) as usize],
                _ => {
                    let b = self.word() as u8;
                    bytes.insert(k, b)
                }
            }
        }
        if !self.word().is_multiple_of(8) && bytes.len() > HEADER_LEN {
            let h = header(kind, &bytes[HEADER_LEN..]);
            bytes[..HEADER_LEN].copy_from_slice(&h);
        }
        bytes
    }
}
