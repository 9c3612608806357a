//! The labels of a mutated test, from its parent's, by diff.
//!
//! A mutation keeps a common prefix and suffix of its input; only the
//! middle changed. The prefix and suffix keep their labels; in the
//! middle, runs of at least [`MIN_COPY`] bytes found in the input or in a
//! donor (a splice's other test) keep the label of the bytes they equal,
//! and the rest was written by the operator. Every `Copied` byte equals
//! the byte it names by construction: a run is only labelled a copy after
//! its bytes were compared with its source's, and the source's labels are
//! carried over (labels are transitive), so exact labels stay exact.
//!
//! The search is bounded so that it can run after every mutation: the
//! prefix and suffix are one comparison each; the middle is searched
//! through a hash index of 4-byte strings of the sources, sampled so that
//! at most a few thousand places are indexed, and compares at most
//! [`CHAIN`] places per byte of the middle. Copies shorter than the
//! sampling step (plus three) may be missed and labelled inserted; a
//! middle larger than [`MAX_MIDDLE`] is not searched at all.

use crate::labels::{Labels, Origin, FRESH};

/// The shortest run of the middle labelled a copy.
pub const MIN_COPY: usize = 4;
/// A changed middle larger than this is labelled inserted without a search.
pub const MAX_MIDDLE: usize = 256 << 10;
/// At most this many places of the sources are indexed per byte of the
/// middle (and at least [`MIN_INDEX`], at most [`MAX_INDEX`], in all).
const INDEX_PER_BYTE: usize = 8;
const MIN_INDEX: usize = 256;
const MAX_INDEX: usize = 8192;
/// Places compared per byte of the middle.
const CHAIN: usize = 8;

/// Another test a mutation may have taken bytes from (a splice).
#[derive(Debug, Clone, Copy)]
pub struct Donor<'a> {
    pub id: u64,
    pub data: &'a [u8],
    /// Its labels; `None`: its own bytes ([`Labels::own`]).
    pub labels: Option<&'a Labels>,
}

/// The labels of `after`, made by operator `op` from `before` (labelled
/// `before_labels`) and perhaps bytes of `donors`. Bytes neither kept nor
/// found as copies are `Inserted { test: FRESH, op }`. When
/// `before_labels` does not cover `before`, all of `after` is inserted.
pub fn relabel(before: &[u8], before_labels: &Labels, after: &[u8], op: &str, donors: &[Donor<'_>]) -> Labels {
    if before_labels.len() != before.len() {
        return Labels::inserted(op, after.len());
    }
    let p = common_prefix(before, after);
    let s = common_suffix(&before[p..], &after[p..]);
    let mut out = before_labels.slice(0, p);
    let middle = &after[p..after.len() - s];
    if middle.len() < MIN_COPY || middle.len() > MAX_MIDDLE {
        out.push(middle.len(), inserted(op));
    } else {
        let mut sources = Vec::with_capacity(1 + donors.len());
        sources.push(Source { data: before, labels: Some(before_labels), id: FRESH });
        for d in donors {
            let labels = d.labels.filter(|l| l.len() == d.data.len());
            if d.data.len() >= MIN_COPY && (labels.is_some() || d.id != FRESH) {
                sources.push(Source { data: d.data, labels, id: d.id });
            }
        }
        copies(middle, &sources, op, &mut out);
    }
    out.extend(&before_labels.slice(before.len() - s, before.len()));
    out
}

fn inserted(op: &str) -> Origin {
    Origin::Inserted { test: FRESH, op: op.to_string() }
}

/// Where copied bytes may come from.
struct Source<'a> {
    data: &'a [u8],
    /// `None`: the bytes of test `id` itself.
    labels: Option<&'a Labels>,
    id: u64,
}

impl Source<'_> {
    /// The labels of bytes `start..end`.
    fn labels(&self, start: usize, end: usize, out: &mut Labels) {
        match self.labels {
            Some(l) => out.extend(&l.slice(start, end)),
            None => out.push(end - start, Origin::Copied { test: self.id, offset: start as u32 }),
        }
    }
}

/// The length of the common prefix of `a` and `b`.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const W: usize = 32;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + W <= n && a[i..i + W] == b[i..i + W] {
        i += W;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// The length of the common suffix of `a` and `b`.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const W: usize = 32;
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut i = 0;
    while i + W <= n && a[n - i - W..n - i] == b[n - i - W..n - i] {
        i += W;
    }
    while i < n && a[n - i - 1] == b[n - i - 1] {
        i += 1;
    }
    i
}

fn key(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

const NONE: u32 = u32::MAX;

/// Places of the sources by the 4 bytes that start there: `head[hash]` is
/// the latest place indexed with that hash, `next[e]` the one before.
struct Index {
    bits: u32,
    head: Vec<u32>,
    next: Vec<u32>,
    /// (source, offset) of each place.
    places: Vec<(u32, u32)>,
}

impl Index {
    fn new(sources: &[Source<'_>], budget: usize) -> Index {
        let total: usize = sources.iter().map(|s| s.data.len().saturating_sub(MIN_COPY - 1)).sum();
        let step = total.div_ceil(budget).max(1);
        let entries = total.div_ceil(step);
        let bits = (entries * 2).next_power_of_two().trailing_zeros().max(4);
        let mut ix = Index {
            bits,
            head: vec![NONE; 1 << bits],
            next: Vec::with_capacity(entries),
            places: Vec::with_capacity(entries),
        };
        for (si, s) in sources.iter().enumerate() {
            let mut j = 0;
            while j + MIN_COPY <= s.data.len() {
                let h = ix.hash(key(s.data, j));
                ix.next.push(ix.head[h]);
                ix.head[h] = ix.places.len() as u32;
                ix.places.push((si as u32, j as u32));
                j += step;
            }
        }
        ix
    }

    fn hash(&self, k: u32) -> usize {
        (k.wrapping_mul(0x9E37_79B1) >> (32 - self.bits)) as usize
    }
}

/// Labels `middle` into `out`: copies of the sources found greedily, the
/// rest inserted by `op`.
fn copies(middle: &[u8], sources: &[Source<'_>], op: &str, out: &mut Labels) {
    let m = middle.len();
    let budget = (m * INDEX_PER_BYTE).clamp(MIN_INDEX, MAX_INDEX);
    let ix = Index::new(sources, budget);
    // Bytes `pending..k` are not labelled yet.
    let (mut k, mut pending) = (0, 0);
    while k + MIN_COPY <= m {
        let want = key(middle, k);
        // The longest copy through `k`: (source, its start, length, bytes before `k`).
        let mut best: Option<(usize, usize, usize, usize)> = None;
        let mut e = ix.head[ix.hash(want)];
        let mut tries = 0;
        while e != NONE && tries < CHAIN {
            tries += 1;
            let (si, j) = ix.places[e as usize];
            e = ix.next[e as usize];
            let (si, j) = (si as usize, j as usize);
            let src = sources[si].data;
            if key(src, j) != want {
                continue;
            }
            let fwd = MIN_COPY + common_prefix(&src[j + MIN_COPY..], &middle[k + MIN_COPY..]);
            let back = common_suffix(&src[..j], &middle[pending..k]);
            if best.is_none_or(|b| back + fwd > b.2) {
                best = Some((si, j - back, back + fwd, back));
            }
        }
        match best {
            Some((si, start, len, back)) => {
                out.push(k - back - pending, inserted(op));
                sources[si].labels(start, start + len, out);
                k += len - back;
                pending = k;
            }
            None => k += 1,
        }
    }
    out.push(m - pending, inserted(op));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src<'a>(id: u64, data: &'a [u8]) -> impl Fn(u64) -> Option<&'a [u8]> {
        move |t| (t == id).then_some(data)
    }

    #[test]
    fn prefix_and_suffix_keep_their_labels() {
        let before = b"hello brave new world";
        let l = Labels::own(7, before.len());
        let after = b"hello bold new world";
        let r = relabel(before, &l, after, "x", &[]);
        assert_eq!(r.check(after, src(7, before)), Ok(()));
        assert_eq!(r.at(0), Some(Origin::Copied { test: 7, offset: 0 }));
        assert_eq!(r.at(7), Some(Origin::Inserted { test: FRESH, op: "x".into() }));
        assert_eq!(r.at(after.len() - 1), Some(Origin::Copied { test: 7, offset: before.len() as u32 - 1 }));
        // Nothing changed: the same labels.
        assert_eq!(relabel(before, &l, before, "x", &[]), l);
        // Everything deleted, everything new.
        assert!(relabel(before, &l, b"", "x", &[]).is_empty());
        assert_eq!(relabel(b"", &Labels::default(), b"abcdef", "x", &[]), Labels::inserted("x", 6));
    }

    #[test]
    fn swapped_and_repeated_lines_are_copies() {
        let before = b"alpha line\nbeta line\ngamma line\n";
        let l = Labels::own(1, before.len());
        for after in [
            &b"gamma line\nbeta line\nalpha line\n"[..],
            b"alpha line\nbeta line\nbeta line\nbeta line\ngamma line\n",
            b"alpha line\nbeta line\ngamma line\nalpha line\nbeta line\ngamma line\n",
        ] {
            let r = relabel(before, &l, after, "ls", &[]);
            assert_eq!(r.check(after, src(1, before)), Ok(()));
            let copied: usize =
                r.runs().filter(|(_, r)| matches!(r.origin, Origin::Copied { .. })).map(|(_, r)| r.len as usize).sum();
            assert_eq!(copied, after.len(), "{r:?}");
        }
    }

    #[test]
    fn donor_bytes_keep_the_donors_labels() {
        let before = b"GET /index.html HTTP/1.0\r\n";
        let donor = b"POST /form HTTP/1.1\r\nContent-Length: 3\r\n";
        // The donor's first five bytes were written by `num` in test 4.
        let mut dl = Labels::inserted("num", 5);
        dl.adopt(4);
        dl.extend(&Labels::own(4, donor.len()).slice(5, donor.len()));
        let after = b"GET /index.html HTTP/1.1\r\nContent-Length: 3\r\n";
        let l = Labels::own(2, before.len());
        let r = relabel(before, &l, after, "fo", &[Donor { id: 4, data: donor, labels: Some(&dl) }]);
        assert_eq!(r.check(after, src(4, donor).or_else_src(2, before)), Ok(()));
        assert!(matches!(r.at(after.len() - 3), Some(Origin::Copied { test: 4, .. })));
        // Without labels, a donor is its own bytes.
        let r = relabel(before, &l, after, "fo", &[Donor { id: 4, data: donor, labels: None }]);
        assert_eq!(r.check(after, src(4, donor).or_else_src(2, before)), Ok(()));
        assert!(matches!(r.at(after.len() - 3), Some(Origin::Copied { test: 4, .. })));
    }

    trait OrElse<'a> {
        fn or_else_src(self, id: u64, data: &'a [u8]) -> impl Fn(u64) -> Option<&'a [u8]>;
    }
    impl<'a, F: Fn(u64) -> Option<&'a [u8]>> OrElse<'a> for F {
        fn or_else_src(self, id: u64, data: &'a [u8]) -> impl Fn(u64) -> Option<&'a [u8]> {
            move |t| self(t).or((t == id).then_some(data))
        }
    }

    /// Random edits of random text: the labels are always exact.
    #[test]
    fn random_edits_are_exact() {
        let mut x: u64 = 0x1234_5678;
        let mut rnd = |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n.max(1) as u64) as usize
        };
        let seed: Vec<u8> = (0..3000).map(|_| b"ab\ncd"[rnd(5)]).collect();
        let donor: Vec<u8> = (0..500).map(|_| b"abcxyz\n"[rnd(7)]).collect();
        let sources = |t: u64| match t {
            1 => Some(&seed[..]),
            2 => Some(&donor[..]),
            _ => None,
        };
        let mut data = seed.clone();
        let mut labels = Labels::own(1, seed.len());
        for round in 0..2000 {
            let before = data.clone();
            let (a, b) = (rnd(data.len() + 1), rnd(data.len() + 1));
            let (a, b) = (a.min(b), a.max(b));
            match rnd(4) {
                0 => drop(data.splice(a..b, (0..rnd(20)).map(|_| b"ab\n"[rnd(3)]))),
                1 => {
                    let piece = before[a..b].to_vec();
                    let at = rnd(data.len() + 1);
                    data.splice(at..at, piece);
                }
                2 => {
                    let (c, d) = (rnd(donor.len() + 1), rnd(donor.len() + 1));
                    data.splice(a..b, donor[c.min(d)..c.max(d)].iter().copied());
                }
                _ => drop(data.drain(a..b)),
            }
            data.truncate(8000);
            labels = relabel(&before, &labels, &data, "e", &[Donor { id: 2, data: &donor, labels: None }]);
            assert_eq!(labels.check(&data, sources), Ok(()), "round {round}");
        }
    }
}
