//! A record's checksum: a 4-byte trailer that is the CRC-32 (IEEE, as PNG
//! and zlib compute it) of the record's type and bytes, or of its bytes,
//! in either byte order. It is taken as such only when every record of
//! its chain (two or more) holds it: four bytes match by chance one time
//! in four billion.

use super::chain::Field;
use super::Splice;

/// What a chain's trailers hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Check {
    /// Of the bytes from the field's end (the type too), not from the
    /// record's bytes.
    typed: bool,
    big_endian: bool,
}

impl Check {
    /// The checksum every record of `fields` holds in its trailer, if any.
    pub fn find(input: &[u8], fields: &[Field]) -> Option<Check> {
        if fields.len() < 2 || fields.iter().any(|f| f.trailer != 4 || f.end + 4 > input.len()) {
            return None;
        }
        let all = [(true, true), (true, false), (false, true), (false, false)];
        all.into_iter()
            .map(|(typed, big_endian)| Check { typed, big_endian })
            .find(|c| fields.iter().all(|f| c.sum(&input[c.from(f)..f.end]) == input[f.end..f.end + 4]))
    }

    /// Where the bytes it covers start.
    pub fn from(&self, f: &Field) -> usize {
        if self.typed {
            f.at + f.width
        } else {
            f.start
        }
    }

    /// The checksum of `bytes`, as the trailer holds it.
    pub fn sum(&self, bytes: &[u8]) -> [u8; 4] {
        let v = crc32fast::hash(bytes);
        if self.big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }

    /// Whether `splices` change what `f`'s checksum covers, and leave the
    /// checksum, the length field and the record's ends to it.
    pub fn stale(&self, f: &Field, splices: &[Splice]) -> bool {
        let covered = self.from(f)..f.end;
        let inside = |s: &Splice| s.at >= covered.start && s.end <= covered.end;
        let changed = splices.iter().any(|s| s.within(covered.clone()));
        let untouchable = |s: &Splice| {
            s.over(f.end..f.end + 4) || s.over(f.at..f.at + f.width) || s.within(covered.clone()) && !inside(s)
        };
        changed && !splices.iter().any(untouchable)
    }
}
