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
//! through a hash index of the 4-byte strings at some places of the
//! sources: every place (or every few) within the middle's length of the
//! change, where mutators that repeat or move a line, a node or a sequence
//! take their bytes; elsewhere in the input and in the donors, about one
//! place per 16 bytes of the middle (at least [`NEAR`], at most 1024), so
//! that a copy a good part of the middle long is found wherever it came
//! from. At most [`CHAIN`] places are compared per probe, long stretches
//! found nowhere are probed more and more sparsely ([`SKIP`]), and at most
//! [`MAX_COPIES`] copies are labelled per middle. Copies shorter than the
//! sampling step (plus three) may be missed and labelled inserted; a
//! middle larger than [`MAX_MIDDLE`] is not searched at all. Missing a copy
//! never makes a label wrong, only less telling.

use crate::labels::{Labels, Origin, FRESH};

/// The shortest run of the middle labelled a copy.
pub const MIN_COPY: usize = 4;
/// A changed middle larger than this is labelled inserted without a search.
pub const MAX_MIDDLE: usize = 256 << 10;
/// After `2^SKIP` bytes of the middle found nowhere, every other byte is
/// probed, after twice as many every third, and so on.
const SKIP: u32 = 3;
/// At most this many copies are labelled in a middle; the rest of it is
/// inserted (a sequence repeated a thousand times is mostly new bytes, and
/// its labels stay short).
const MAX_COPIES: usize = 64;
/// Places compared per byte of the middle.
const CHAIN: usize = 8;
/// Bytes of the input on either side of its changed part searched closely
/// (as well as the middle's length): mutators that repeat or move a line,
/// a node or a sequence mostly copy bytes from next to where they write.
/// Also the fewest places indexed elsewhere.
const NEAR: usize = 32;

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
    let mut out = Labels::default();
    copy_labels(before_labels, 0, p, &mut out);
    let middle = &after[p..after.len() - s];
    let m = middle.len();
    if !(MIN_COPY..=MAX_MIDDLE).contains(&m) {
        push_inserted(&mut out, m, op);
    } else {
        let mut sources = Vec::with_capacity(1 + donors.len());
        sources.push(Source { data: before, labels: Some(before_labels), id: FRESH });
        for d in donors {
            let labels = d.labels.filter(|l| l.len() == d.data.len());
            if d.data.len() >= MIN_COPY && (labels.is_some() || d.id != FRESH) {
                sources.push(Source { data: d.data, labels, id: d.id });
            }
        }
        // Places near the change (every one when the input changed in a
        // small part); elsewhere, places spread by the middle's length.
        let near = m + NEAR;
        let (lo, hi) = (p.saturating_sub(near), (before.len() - s + near).min(before.len()));
        let near_step = (hi - lo).div_ceil(m / 16 + 2 * NEAR).max(1);
        let far: usize = lo + (before.len() - hi) + sources[1..].iter().map(|d| d.data.len()).sum::<usize>();
        let far_step = far.div_ceil((m / 16).clamp(NEAR, 1 << 10)).max(1);
        let mut regions = Vec::with_capacity(2 + sources.len());
        regions.push((0, lo, hi, near_step));
        regions.push((0, 0, lo, far_step));
        regions.push((0, hi, before.len(), far_step));
        regions.extend((1..sources.len()).map(|i| (i, 0, sources[i].data.len(), far_step)));
        copies(middle, &sources, &regions, op, &mut out);
    }
    copy_labels(before_labels, before.len() - s, before.len(), &mut out);
    out
}

/// Appends the labels of bytes `start..end` of `labels` (as
/// [`Labels::slice`] does, without a copy in between).
fn copy_labels(labels: &Labels, start: usize, end: usize, out: &mut Labels) {
    for (at, r) in labels.runs() {
        let run_end = at + r.len as usize;
        if run_end <= start {
            continue;
        }
        if at >= end {
            break;
        }
        let (a, b) = (at.max(start), run_end.min(end));
        let origin = match &r.origin {
            Origin::Copied { test, offset } => Origin::Copied { test: *test, offset: offset + (a - at) as u32 },
            other => other.clone(),
        };
        out.push(b - a, origin);
    }
}

/// Appends `len` bytes written by `op`.
fn push_inserted(out: &mut Labels, len: usize, op: &str) {
    if len > 0 {
        out.push(len, Origin::Inserted { test: FRESH, op: op.into() });
    }
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
            Some(l) => copy_labels(l, start, end, out),
            None => out.push(end - start, Origin::Copied { test: self.id, offset: start as u32 }),
        }
    }
}

/// The length of the common prefix of `a` and `b`.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    while i + 8 <= n {
        let x = word(a, i) ^ word(b, i);
        if x != 0 {
            return i + (x.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// The length of the common suffix of `a` and `b`.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut i = 0;
    while i + BLOCK <= n && a[n - i - BLOCK..n - i] == b[n - i - BLOCK..n - i] {
        i += BLOCK;
    }
    while i + 8 <= n {
        let x = word(a, n - i - 8) ^ word(b, n - i - 8);
        if x != 0 {
            return i + (x.leading_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a[n - i - 1] == b[n - i - 1] {
        i += 1;
    }
    i
}

/// Bytes compared at once while they are equal.
const BLOCK: usize = 64;

/// The 8 bytes at `at`, the first the lowest.
fn word(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn key(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

const NONE: u32 = u32::MAX;

thread_local! {
    /// The index, kept from one call to the next for its memory.
    static INDEX: std::cell::RefCell<Index> =
        const { std::cell::RefCell::new(Index { bits: 0, head: Vec::new(), next: Vec::new(), places: Vec::new() }) };
}

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
    /// Indexes every `step`th place of `start..end` of source `source`,
    /// for each `(source, start, end, step)` of `regions` (forgetting
    /// what it held).
    fn fill(&mut self, sources: &[Source<'_>], regions: &[(usize, usize, usize, usize)]) {
        let entries: usize =
            regions.iter().map(|&(_, a, b, step)| b.saturating_sub(a + MIN_COPY - 1).div_ceil(step)).sum();
        self.bits = entries.next_power_of_two().trailing_zeros().max(4);
        self.head.clear();
        self.head.resize(1 << self.bits, NONE);
        self.next.clear();
        self.places.clear();
        for &(si, start, end, step) in regions {
            let data = sources[si].data;
            let mut j = start;
            while j + MIN_COPY <= end.min(data.len()) {
                let h = self.hash(key(data, j));
                self.next.push(self.head[h]);
                self.head[h] = self.places.len() as u32;
                self.places.push((si as u32, j as u32));
                j += step;
            }
        }
    }

    fn hash(&self, k: u32) -> usize {
        (k.wrapping_mul(0x9E37_79B1) >> (32 - self.bits)) as usize
    }
}

/// Labels `middle` into `out`: copies of the sources found greedily, the
/// rest inserted by `op`.
fn copies(middle: &[u8], sources: &[Source<'_>], regions: &[(usize, usize, usize, usize)], op: &str, out: &mut Labels) {
    INDEX.with_borrow_mut(|ix| {
        ix.fill(sources, regions);
        greedy(middle, sources, ix, op, out);
    });
}

/// Labels `middle` into `out` with the copies of the sources `ix` finds.
fn greedy(middle: &[u8], sources: &[Source<'_>], ix: &Index, op: &str, out: &mut Labels) {
    let m = middle.len();
    // Bytes `pending..k` are not labelled yet.
    let (mut k, mut pending, mut misses, mut found) = (0, 0, 0, 0);
    while k + MIN_COPY <= m && found < MAX_COPIES {
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
                push_inserted(out, k - back - pending, op);
                sources[si].labels(start, start + len, out);
                k += len - back;
                pending = k;
                misses = 0;
                found += 1;
            }
            None => {
                // Long stretches of new bytes are probed more and more sparsely
                // (a copy met on the way is still found from the middle out).
                k += 1 + (misses >> SKIP);
                misses += 1;
            }
        }
    }
    push_inserted(out, m - pending, op);
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
