//! Length fields and checksums kept true, half the time, in a test that
//! changes bytes of its parent's records. A mutant of a PNG chunk's data
//! that is longer or shorter than the data was leaves the chunk's length
//! stale: the parser reads the chunk with bytes of the next one and, most
//! often, stops at an error it has already seen. With its length
//! rewritten the chunk reads whole, and so do the chunks after it; with
//! its CRC rewritten, a parser that checks it reads it at all. The
//! records are those of [`model::fields`], found once for each parent (of
//! its top level only, which costs no search a test); the change is taken
//! as one splice, between the parts parent and test begin and end with
//! alike. Half the changed tests are left as they are: the error paths a
//! stale length or checksum leads to are the program's too.

use std::collections::HashMap;

use model::fields::{fix_top, Records, Splice};
use provenance::Labels;

use super::ctx::Ctx;

/// Its name in a test's `op`.
pub const TAG: &str = "fl";

/// The records of the parents seen, by their id and length (a parent
/// trimmed in place keeps its id).
#[derive(Debug, Clone, Default)]
pub struct Lengths {
    known: HashMap<(u64, usize), Records>,
}

impl Lengths {
    /// Rewrites the length fields and checksums of `parent`'s records that
    /// `data`, made from it, changed, half the time; relabels what it
    /// wrote as fresh bytes. Whether it wrote anything.
    pub fn fix(&mut self, ctx: &mut Ctx<'_>, id: u64, parent: &[u8], data: &mut [u8], labels: &mut Labels) -> bool {
        if data == parent || !ctx.chance(1, 2) {
            return false;
        }
        let records = self.known.entry((id, parent.len())).or_insert_with(|| Records::of(parent));
        if records.is_empty() || data.len() == parent.len() && !records.checked() {
            return false;
        }
        let prefix = parent.iter().zip(data.iter()).take_while(|(a, b)| a == b).count();
        let most = parent.len().min(data.len()) - prefix;
        let suffix = parent.iter().rev().zip(data.iter().rev()).take(most).take_while(|(a, b)| a == b).count();
        let splice = Splice { at: prefix, end: parent.len() - suffix, len: data.len() - prefix - suffix };
        let written = fix_top(records, data, &[splice]);
        for r in &written {
            let mut l = labels.slice(0, r.start);
            l.extend(&Labels::inserted(TAG, r.len()));
            l.extend(&labels.slice(r.end, labels.len()));
            *labels = l;
        }
        !written.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn chunk(kind: &[u8], data: &[u8]) -> Vec<u8> {
        [&(data.len() as u32).to_be_bytes()[..], kind, data, b"\xde\xad\xbe\xef"].concat()
    }

    fn png(text: &[u8]) -> Vec<u8> {
        [&b"\x89PNG\r\n\x1a\n"[..], &chunk(b"IHDR", b"0123456789abc"), &chunk(b"tEXt", text), &chunk(b"IEND", b"")]
            .concat()
    }

    /// A chunk's data made longer: its length follows half the time, and
    /// the bytes rewritten are labelled fresh; text is never touched.
    #[test]
    fn a_changed_chunk_gets_its_length_and_crc_half_the_time() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut ctx = Ctx { rng: &mut rng, corpus: &[], recent: &[], limit: 1 << 16, focus: None, donors: Vec::new() };
        let mut lengths = Lengths::default();
        let parent = png(b"Title\0a picture");
        let (mut fixed, mut tries) = (0, 0);
        for _ in 0..200 {
            let mut data = png(b"Title\0a longer picture");
            let mut labels = Labels::own(7, data.len());
            data[33..37].copy_from_slice(&15u32.to_be_bytes());
            if lengths.fix(&mut ctx, 7, &parent, &mut data, &mut labels) {
                assert_eq!(data, png(b"Title\0a longer picture"));
                assert!(matches!(labels.at(33), Some(provenance::Origin::Inserted { .. })), "{labels:?}");
                assert!(matches!(labels.at(37), Some(provenance::Origin::Copied { test: 7, offset: 37 })));
                assert_eq!(labels.len(), data.len());
                fixed += 1;
            }
            tries += 1;
        }
        assert!((70..130).contains(&fixed), "{fixed} of {tries}");
        let crc = |kind: &[u8], data: &[u8]| crc32fast::hash(&[kind, data].concat()).to_be_bytes();
        let checked = |text: &[u8]| {
            [(&b"IHDR"[..], &b"0123456789abc"[..]), (b"tEXt", text), (b"IEND", b"")]
                .iter()
                .fold(b"\x89PNG\r\n\x1a\n".to_vec(), |v, (kind, data)| {
                    [&v[..], &(data.len() as u32).to_be_bytes(), kind, data, &crc(kind, data)].concat()
                })
        };
        let parent = checked(b"Title\0a picture");
        let fixed = (0..40).filter(|_| {
            let mut data = parent.clone();
            data[49] = b'P';
            let mut labels = Labels::own(9, data.len());
            let fixed = lengths.fix(&mut ctx, 9, &parent, &mut data, &mut labels);
            assert!(!fixed || data == checked(b"Title\0a Picture"), "the same length, a new CRC");
            fixed
        });
        assert!((10..30).contains(&fixed.count()));
        let text = b"<doc>one</doc>".to_vec();
        for _ in 0..20 {
            let mut data = b"<doc>three</doc>".to_vec();
            let mut labels = Labels::own(8, data.len());
            assert!(!lengths.fix(&mut ctx, 8, &text, &mut data, &mut labels));
        }
    }
}
