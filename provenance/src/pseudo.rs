//! Pseudo-provenance: labels rebuilt for a test whose labels were lost (a
//! reduced alarm, an entry imported from another tool's queue), showing
//! how it could have been made from the seeds and its ancestors (Groce
//! and Holmes, §4.1). They are a guess, never a record: they come only
//! inside [`Pseudo`] and must not be written into a trail record.
//!
//! The test is split into tokens (its lines; with `--args-in-input` the
//! first line's words instead of that line) and labelled greedily from
//! the start: at each place, the longest copy of the bytes there in any
//! source, cut back to the last token it ends when it ends inside one,
//! and without a head of fewer than [`MIN_PSEUDO`] bytes ending a token,
//! so that copies start and stop where tokens do. A copy is at least
//! [`MIN_PSEUDO`] bytes, or a whole token holding the same word or line
//! (trailing blanks aside) as a whole token of its source. Ties go to
//! the copy that continues the previous one (perhaps past changed
//! bytes), then to one starting a token of its source, then to the first
//! source given. Bytes found nowhere are `Inserted { test: FRESH, op:
//! UNKNOWN_OP }`. Greedy, not optimal: a long copy taken early may hide
//! a better split, as in the paper.
//!
//! Copies are found through two indexes of the sources: their tokens by
//! content (every token, at most [`TOKEN_CHAIN`] places each), and their
//! 4-byte strings (every place, sampled past [`MAX_PLACES`] places in
//! all, at most [`CHAIN`] compared per byte); a copy found from inside is
//! extended back over the bytes not labelled yet. The labels are exact:
//! every copy is compared with its source, and a source's own labels are
//! carried over (labels are transitive), as a mutator's copy carries them.

use crate::labels::{Labels, Origin, Run, FRESH};
use serde::Serialize;
use std::cell::Cell;
use std::collections::HashMap;
use std::ops::Range;

/// The operator named by the bytes of a rebuilt test found in no source.
pub const UNKNOWN_OP: &str = "unknown";
/// The shortest copy that is not a whole token (the length of the
/// strings indexed).
pub const MIN_PSEUDO: usize = 4;
/// Places of a source token's content kept (the first sources' first).
const TOKEN_CHAIN: usize = 64;
/// Places of a 4-byte string compared at a place of the test.
const CHAIN: usize = 32;
/// Places of the sources indexed by their 4-byte string, at most; past
/// it every `n`th place is.
const MAX_PLACES: usize = 1 << 21;

/// A test labels may be rebuilt from: its id, its bytes and its labels
/// when known (`None`: its own bytes, as a seed's).
pub type Source<'a> = (u64, &'a [u8], Option<&'a Labels>);

/// Labels rebuilt by [`pseudo`]: all of them are pseudo-provenance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pseudo {
    /// Bytes found in no source name the test being labelled as
    /// [`FRESH`] ([`Labels::adopt`] gives it its id).
    pub labels: Labels,
    /// The test's tokens ([`token_spans`]).
    pub tokens: Vec<Range<usize>>,
    /// Bytes labelled as copies.
    pub copied: usize,
}

/// The tokens of `data`, in order and covering it: its lines (with their
/// newline), and when `args_in_input`, instead of the first line its
/// words, each with the blanks after it (the first with those before).
pub fn token_spans(data: &[u8], args_in_input: bool) -> Vec<Range<usize>> {
    let mut cuts = Vec::new();
    let mut at = 0;
    if args_in_input && !data.is_empty() {
        let line_end = data.iter().position(|&b| b == b'\n').map_or(data.len(), |i| i + 1);
        let line = &data[..line_end];
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        cuts.extend(model::shell::line_words(line).iter().skip(1).map(|w| w.start));
        at = line_end;
        cuts.push(at);
    }
    cuts.extend(data[at..].iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| at + i + 1));
    if cuts.last() != Some(&data.len()) {
        cuts.push(data.len());
    }
    let mut start = 0;
    cuts.into_iter()
        .filter(|&c| c > 0)
        .map(|end| {
            let r = start..end;
            start = end;
            r
        })
        .collect()
}

/// The end of a token's content: before its trailing blanks.
fn content_end(data: &[u8], t: &Range<usize>) -> usize {
    t.start + data[t.clone()].iter().rposition(|b| !b" \t\r\n".contains(b)).map_or(0, |k| k + 1)
}

/// Rebuilds the labels of `data` from `sources` (the seeds and the
/// ancestors; a source of id [`FRESH`] without labels is ignored, as are
/// labels that do not cover their source: its bytes are then its own).
pub fn pseudo(data: &[u8], sources: &[Source<'_>], args_in_input: bool) -> Pseudo {
    pseudo_counted(data, sources, args_in_input).0
}

/// [`pseudo`], with the work the greedy search did (see [`Greedy::work`]).
fn pseudo_counted(data: &[u8], sources: &[Source<'_>], args_in_input: bool) -> (Pseudo, usize) {
    let srcs: Vec<Src<'_>> = sources
        .iter()
        .map(|&(id, d, l)| Src::new(id, d, l.filter(|l| l.len() == d.len()), args_in_input))
        .filter(|s| s.id != FRESH || s.runs.is_some())
        .collect();
    let tokens = token_spans(data, args_in_input);
    let index = Index::new(&srcs);
    let g = Greedy { data, tokens: &tokens, srcs: &srcs, index: &index, work: Cell::new(0) };
    let (labels, copied) = g.run();
    let work = g.work.get();
    (Pseudo { labels, tokens, copied }, work)
}

/// A source, ready to copy from.
struct Src<'a> {
    id: u64,
    data: &'a [u8],
    /// Its labels' runs with where each starts (`None`: its own bytes).
    runs: Option<Vec<(usize, &'a Run)>>,
    /// Its tokens: where each starts and where its content ends.
    tokens: Vec<(u32, u32)>,
}

impl<'a> Src<'a> {
    fn new(id: u64, data: &'a [u8], labels: Option<&'a Labels>, args_in_input: bool) -> Src<'a> {
        let tokens =
            token_spans(data, args_in_input).iter().map(|t| (t.start as u32, content_end(data, t) as u32)).collect();
        Src { id, data, runs: labels.map(|l| l.runs().collect()), tokens }
    }

    /// The length of the content of the token starting at `at`, if one does.
    fn token_at(&self, at: usize) -> Option<usize> {
        let k = self.tokens.binary_search_by_key(&(at as u32), |t| t.0).ok()?;
        Some((self.tokens[k].1 - self.tokens[k].0) as usize)
    }

    /// Appends the labels of bytes `start..end` (those [`Labels::slice`]
    /// gives, found by bisection).
    fn copy(&self, start: usize, end: usize, out: &mut Labels) {
        let Some(runs) = &self.runs else {
            out.push(end - start, Origin::Copied { test: self.id, offset: start as u32 });
            return;
        };
        let first = runs.partition_point(|(at, r)| at + r.len as usize <= start);
        for &(at, r) in &runs[first..] {
            if at >= end {
                break;
            }
            let (a, b) = (at.max(start), (at + r.len as usize).min(end));
            let origin = match &r.origin {
                Origin::Copied { test, offset } => Origin::Copied { test: *test, offset: offset + (a - at) as u32 },
                other => other.clone(),
            };
            out.push(b - a, origin);
        }
    }
}

const NONE: u32 = u32::MAX;

/// Where the sources hold a token's content or a 4-byte string.
struct Index<'a> {
    /// Content of a token -> (source, place), the first sources' first.
    tokens: HashMap<&'a [u8], Vec<(u32, u32)>>,
    /// `head[hash]`: the first place of a 4-byte string with that hash,
    /// `next[e]`: the one after place `e`; earlier sources and places first.
    bits: u32,
    head: Vec<u32>,
    next: Vec<u32>,
    places: Vec<(u32, u32)>,
}

fn key(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

impl<'a> Index<'a> {
    fn new(srcs: &[Src<'a>]) -> Index<'a> {
        let mut tokens: HashMap<&[u8], Vec<(u32, u32)>> = HashMap::new();
        for (si, s) in srcs.iter().enumerate() {
            for &(start, end) in &s.tokens {
                let v = tokens.entry(&s.data[start as usize..end as usize]).or_default();
                if v.len() < TOKEN_CHAIN {
                    v.push((si as u32, start));
                }
            }
        }
        let total: usize = srcs.iter().map(|s| (s.data.len() + 1).saturating_sub(MIN_PSEUDO)).sum();
        let step = total.div_ceil(MAX_PLACES).max(1);
        let bits = total.div_ceil(step).next_power_of_two().trailing_zeros().max(4);
        let mut ix = Index { tokens, bits, head: vec![NONE; 1 << bits], next: Vec::new(), places: Vec::new() };
        // Inserted last first, so that each chain runs first to last.
        for (si, s) in srcs.iter().enumerate().rev() {
            for j in (0..(s.data.len() + 1).saturating_sub(MIN_PSEUDO)).step_by(step).rev() {
                let h = ix.hash(key(s.data, j));
                ix.next.push(ix.head[h]);
                ix.head[h] = ix.places.len() as u32;
                ix.places.push((si as u32, j as u32));
            }
        }
        ix
    }

    fn hash(&self, k: u32) -> usize {
        (k.wrapping_mul(0x9E37_79B1) >> (32 - self.bits)) as usize
    }
}

/// The length of the common prefix of `a` and `b`.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The length of the common suffix of `a` and `b`.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count()
}

/// A copy that may label bytes `at..at + len` of the test: bytes
/// `off..off + len` of source `src`.
#[derive(Debug, Clone, Copy)]
struct Found {
    at: usize,
    len: usize,
    src: usize,
    off: usize,
}

struct Greedy<'t, 'a> {
    data: &'t [u8],
    tokens: &'t [Range<usize>],
    srcs: &'t [Src<'a>],
    index: &'t Index<'a>,
    /// Places of the sources looked at (in the 4-byte index, and as
    /// copies) plus bytes compared with them: what the search costs,
    /// counted so that a test can bound it.
    work: Cell<usize>,
}

impl Greedy<'_, '_> {
    /// The labels, and how many bytes are copies.
    fn run(&self) -> (Labels, usize) {
        let n = self.data.len();
        let mut out = Labels::default();
        // Bytes `pending..i` are not labelled yet; `prev`: the last copy's
        // source and where the next byte of it would be.
        let (mut i, mut pending, mut copied) = (0, 0, 0);
        let mut prev: Option<(usize, usize)> = None;
        while i < n {
            let Some(c) = self.best(i, pending, prev) else {
                i += 1;
                continue;
            };
            inserted(&mut out, c.at - pending);
            self.srcs[c.src].copy(c.off, c.off + c.len, &mut out);
            copied += c.len;
            i = c.at + c.len;
            pending = i;
            prev = Some((c.src, c.off + c.len));
        }
        inserted(&mut out, n - pending);
        (out, copied)
    }

    /// The best copy through byte `i`, bytes `pending..i` being free.
    fn best(&self, i: usize, pending: usize, prev: Option<(usize, usize)>) -> Option<Found> {
        let mut best: Option<(Found, (usize, bool, bool))> = None;
        let mut consider = |src: usize, j: usize| {
            let Some(c) = self.copy_at(i, pending, src, j) else { return };
            // On the previous copy's diagonal (perhaps past changed bytes).
            let continues = prev.is_some_and(|(s, e)| s == src && e + (c.at - pending) == c.off);
            let rank = (c.len, continues, self.srcs[src].token_at(c.off).is_some());
            // Earlier candidates (earlier sources and places) win ties.
            if best.as_ref().is_none_or(|(_, r)| rank > *r) {
                best = Some((c, rank));
            }
        };
        if let Some((s, e)) = prev {
            consider(s, e + (i - pending));
        }
        let t = self.tokens.partition_point(|t| t.start < i);
        if let Some(tok) = self.tokens.get(t).filter(|tok| tok.start == i) {
            let content = &self.data[i..content_end(self.data, tok)];
            for &(s, off) in self.index.tokens.get(content).into_iter().flatten() {
                consider(s as usize, off as usize);
            }
        }
        if i + MIN_PSEUDO <= self.data.len() {
            let want = key(self.data, i);
            let ix = self.index;
            let mut e = ix.head[ix.hash(want)];
            let mut tries = 0;
            while e != NONE && tries < CHAIN {
                tries += 1;
                self.work.set(self.work.get() + 1);
                let (s, j) = ix.places[e as usize];
                e = ix.next[e as usize];
                if key(self.srcs[s as usize].data, j as usize) == want {
                    consider(s as usize, j as usize);
                }
            }
        }
        best.map(|(c, _)| c)
    }

    /// The copy of source `src` that puts its byte `j` at byte `i` of the
    /// test, extended both ways (back over bytes `pending..i` at most),
    /// less a short head ending a token and cut back to the last token
    /// it ends, each when what is left is a copy.
    fn copy_at(&self, i: usize, pending: usize, src: usize, j: usize) -> Option<Found> {
        let sd = self.srcs[src].data;
        self.work.set(self.work.get() + 1);
        if j >= sd.len() {
            return None;
        }
        let fwd = common_prefix(&sd[j..], &self.data[i..]);
        if fwd == 0 {
            return None;
        }
        let back = common_suffix(&sd[..j], &self.data[pending..i]);
        self.work.set(self.work.get() + fwd + back);
        let mut c = Found { at: i - back, len: back + fwd, src, off: j - back };
        let end = c.at + c.len;
        // A few bytes ending a token and going on into the next are not a
        // copy: the copy starts with the next token.
        let t = self.tokens.partition_point(|t| t.end <= c.at);
        if let Some(tok) = self.tokens.get(t).filter(|tok| tok.start < c.at && tok.end - c.at < MIN_PSEUDO) {
            let head = tok.end - c.at;
            let rest = Found { at: tok.end, len: c.len.saturating_sub(head), src, off: c.off + head };
            if rest.len > 0 && self.is_copy(&rest) {
                c = rest;
            }
        }
        // The last token end before `end`, past `i` (so that the copy
        // labels byte `i` or later ones).
        let t = self.tokens.partition_point(|t| t.end < end);
        if t > 0 {
            let b = self.tokens[t - 1].end;
            if b > c.at.max(i) && b < end {
                let cut = Found { len: b - c.at, ..c };
                if self.is_copy(&cut) {
                    return Some(cut);
                }
            }
        }
        self.is_copy(&c).then_some(c)
    }

    /// Whether `c` may be labelled a copy: long enough, or a whole token
    /// of the test holding the content of a whole token of its source.
    fn is_copy(&self, c: &Found) -> bool {
        if c.len >= MIN_PSEUDO {
            return true;
        }
        let Ok(t) = self.tokens.binary_search_by_key(&c.at, |t| t.start) else { return false };
        let tok = &self.tokens[t];
        let content = content_end(self.data, tok) - tok.start;
        c.len >= content.max(1) && c.at + c.len <= tok.end && self.srcs[c.src].token_at(c.off) == Some(content)
    }
}

/// Appends `len` bytes found in no source.
fn inserted(out: &mut Labels, len: usize) {
    out.push(len, Origin::Inserted { test: FRESH, op: UNKNOWN_OP.into() });
}

/// How rebuilt labels agree with recorded ones.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agreement {
    pub tokens: usize,
    /// Tokens whose first byte names the same test in both.
    pub same_source: usize,
    /// Tokens each of whose bytes names the same test in both.
    pub same_bytes: usize,
    /// For each token, whether its first byte names the same test in both.
    pub agree: Vec<bool>,
    /// Bytes per run.
    pub mean_run_rebuilt: f64,
    pub mean_run_recorded: f64,
}

impl Agreement {
    /// The share of tokens whose first byte names the same test (1 when
    /// there are none).
    pub fn share(&self) -> f64 {
        if self.tokens == 0 {
            1.0
        } else {
            self.same_source as f64 / self.tokens as f64
        }
    }
}

/// The test each byte's label names (`None` past the labels' end).
fn tests_of(l: &Labels, n: usize) -> Vec<Option<u64>> {
    let mut out = Vec::with_capacity(n);
    for (_, r) in l.runs() {
        out.extend(std::iter::repeat_n(Some(r.origin.test()), r.len as usize));
    }
    out.resize(n, None);
    out
}

fn mean_run(l: &Labels) -> f64 {
    let runs = l.runs().count();
    if runs == 0 {
        0.0
    } else {
        l.len() as f64 / runs as f64
    }
}

/// How `rebuilt` agrees with `recorded`, token by token, by the test the
/// labels name (not the place in it: a line found in another place of
/// the same seed agrees). Both should name the test itself alike
/// ([`Labels::adopt`] them first).
pub fn compare(recorded: &Labels, rebuilt: &Labels, tokens: &[Range<usize>]) -> Agreement {
    let n = tokens.last().map_or(0, |t| t.end).max(recorded.len()).max(rebuilt.len());
    let (a, b) = (tests_of(recorded, n), tests_of(rebuilt, n));
    let agree: Vec<bool> = tokens.iter().map(|t| t.start < t.end && a[t.start] == b[t.start]).collect();
    Agreement {
        tokens: tokens.len(),
        same_source: agree.iter().filter(|&&x| x).count(),
        same_bytes: tokens.iter().filter(|t| a[t.start..t.end] == b[t.start..t.end]).count(),
        agree,
        mean_run_rebuilt: mean_run(rebuilt),
        mean_run_recorded: mean_run(recorded),
    }
}

/// The quality of pseudo-provenance on test `id` (bytes `data`, labels
/// `recorded`): its labels rebuilt from `sources` (less the test itself)
/// and compared with those recorded.
pub fn measure(id: u64, data: &[u8], recorded: &Labels, sources: &[Source<'_>], args_in_input: bool) -> Agreement {
    let others: Vec<Source<'_>> = sources.iter().filter(|s| s.0 != id).copied().collect();
    let p = pseudo(data, &others, args_in_input);
    let (mut rebuilt, mut recorded) = (p.labels, recorded.clone());
    rebuilt.adopt(id);
    recorded.adopt(id);
    compare(&recorded, &rebuilt, &p.tokens)
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::fuzzing::Rng;

    fn lookup<'a>(sources: &'a [Source<'a>]) -> impl Fn(u64) -> Option<&'a [u8]> + 'a {
        |t| sources.iter().find(|s| s.0 == t).map(|s| s.1)
    }

    /// The test each token's first byte is labelled from.
    fn token_sources(p: &Pseudo) -> Vec<u64> {
        p.tokens.iter().map(|t| p.labels.at(t.start).unwrap().test()).collect()
    }

    #[test]
    fn tokens_are_lines_or_the_command_line_words() {
        let d = b"a b\nline two\n\nend";
        assert_eq!(token_spans(d, false), [0..4, 4..13, 13..14, 14..17]);
        assert_eq!(token_spans(d, true), [0..2, 2..4, 4..13, 13..14, 14..17]);
        assert_eq!(token_spans(b"  -n  'x y'\n", true), [0..6, 6..12]);
        assert_eq!(token_spans(b"", true), Vec::<Range<usize>>::new());
        assert_eq!(token_spans(b"\n", true).len(), 1);
    }

    #[test]
    fn lines_of_two_seeds_and_a_new_line_are_found() {
        let a = b"int x = 1;\nint y = 2;\nreturn x + y;\n";
        let b = b"while (1) {\n  x++;\n}\n";
        let test = b"int x = 1;\n  x++;\nsome new line\nreturn x + y;\n}\n";
        let sources: [Source; 2] = [(10, a, None), (11, b, None)];
        let p = pseudo(test, &sources, false);
        assert_eq!(p.labels.check(test, lookup(&sources)), Ok(()));
        assert_eq!(token_sources(&p), [10, 11, FRESH, 10, 11]);
        assert_eq!(p.labels.at(22), Some(Origin::Inserted { test: FRESH, op: UNKNOWN_OP.into() }));
        // "}\n" is a whole line of `b`, short as it is.
        assert_eq!(p.labels.at(test.len() - 2), Some(Origin::Copied { test: 11, offset: 19 }));
        assert_eq!(p.copied, test.len() - 14);
        // Short bytes that are not a whole token are not copies.
        let p = pseudo(b"}x\n", &sources, false);
        assert_eq!(p.copied, 0);
    }

    #[test]
    fn whole_lines_win_over_longer_copies_across_them() {
        // `a` holds "first\nsec" then other bytes; `b` the whole second line.
        let a = b"first\nsecXXXX\n";
        let b = b"zzz\nsecond\n";
        let test = b"first\nsecond\n";
        let sources: [Source; 2] = [(1, a, None), (2, b, None)];
        let p = pseudo(test, &sources, false);
        assert_eq!(p.labels.check(test, lookup(&sources)), Ok(()));
        assert_eq!(token_sources(&p), [1, 2]);
        assert_eq!(p.labels.runs().count(), 2);
    }

    #[test]
    fn command_line_words_are_tokens() {
        let a = b"-n --verbose file\nbody\n";
        let b = b"-q --quiet\n";
        let test = b"--quiet -n\nbody\n";
        let sources: [Source; 2] = [(1, a, None), (2, b, None)];
        let p = pseudo(test, &sources, true);
        assert_eq!(p.labels.check(test, lookup(&sources)), Ok(()));
        // "-n" is short but a whole word of `a`.
        assert_eq!(token_sources(&p), [2, 1, 1]);
        assert_eq!(p.labels.at(8), Some(Origin::Copied { test: 1, offset: 0 }));
    }

    #[test]
    fn an_ancestors_labels_are_carried() {
        let seed = b"alpha\nbeta\ngamma\n";
        // Test 5: "gamma\n" of the seed, then "NEW\n" written by `num` in test 5.
        let anc = b"gamma\nNEW\n";
        let mut l = Labels::own(1, seed.len()).slice(11, 17);
        l.extend(&Labels::inserted("num", 4));
        l.adopt(5);
        let test = b"alpha\nNEW\ngamma\n";
        let sources: [Source; 2] = [(1, seed, None), (5, anc, Some(&l))];
        let p = pseudo(test, &sources, false);
        assert_eq!(p.labels.check(test, lookup(&sources)), Ok(()));
        assert_eq!(p.labels.at(7), Some(Origin::Inserted { test: 5, op: "num".into() }));
        assert_eq!(token_sources(&p), [1, 5, 1]);
        // Labels that do not cover their source are not used.
        let bad = Labels::own(1, 3);
        let p = pseudo(test, &[(1, seed, None), (5, anc, Some(&bad))], false);
        assert_eq!(p.labels.at(7), Some(Origin::Copied { test: 5, offset: 7 }));
    }

    #[test]
    fn copies_carry_what_slice_gives() {
        let mut r = Rng(7);
        let mut l = Labels::default();
        for k in 0..50u64 {
            let n = 1 + r.below(9);
            if r.below(2) == 0 {
                l.push(n, Origin::Copied { test: k % 3, offset: r.below(100) as u32 });
            } else {
                l.push(n, Origin::Inserted { test: k, op: "op".into() });
            }
        }
        let data = vec![0u8; l.len()];
        let s = Src::new(3, &data, Some(&l), false);
        for _ in 0..500 {
            let (a, b) = (r.below(l.len() + 1), r.below(l.len() + 1));
            let (a, b) = (a.min(b), a.max(b));
            let mut out = Labels::default();
            s.copy(a, b, &mut out);
            assert_eq!(out, l.slice(a, b));
        }
    }

    #[test]
    fn a_concatenation_of_source_lines_agrees_fully() {
        let a = b"one line\ntwo line\nthree\n";
        let b = b"four four\nfive!\nsix six six\n";
        let sources: [Source; 2] = [(1, a, None), (2, b, None)];
        // Lines taken in another order, with their recorded labels.
        let (mut test, mut rec) = (Vec::new(), Labels::default());
        for (id, src, s, e) in [(2, &b[..], 10, 16), (1, a, 0, 9), (1, a, 18, 24), (2, b, 0, 10), (1, a, 9, 18)] {
            test.extend_from_slice(&src[s..e]);
            rec.extend(&Labels::own(id, src.len()).slice(s, e));
        }
        let m = measure(9, &test, &rec, &sources, false);
        assert_eq!((m.tokens, m.same_source, m.same_bytes), (5, 5, 5));
        assert_eq!(m.share(), 1.0);
        assert_eq!(m.mean_run_rebuilt, m.mean_run_recorded);
        // A line of the test's own makes both say the test itself.
        test.extend_from_slice(b"brand new\n");
        rec.extend(&Labels::inserted("bi", 10));
        rec.adopt(9);
        let m = measure(9, &test, &rec, &sources, false);
        assert_eq!((m.tokens, m.same_source, m.same_bytes), (6, 6, 6));
        // A line recorded from elsewhere disagrees.
        let mut other = Labels::own(3, test.len()).slice(0, 6);
        other.extend(&rec.slice(6, test.len()));
        let m = compare(&other, &pseudo(&test, &sources, false).labels, &token_spans(&test, false));
        assert_eq!(m.agree, [false, true, true, true, true, false]);
    }

    /// Random tests made of pieces of seeds and of a labelled ancestor:
    /// the rebuilt labels are always exact, and mostly agree.
    #[test]
    fn random_tests_get_exact_labels() {
        let mut r = Rng(0x5eed);
        let words: [&[u8]; 8] = [b"ab", b"cd", b"x", b"}", b"  ", b"-n", b"abab", b"\n"];
        let text = |r: &mut Rng, n: usize| -> Vec<u8> {
            let mut out = Vec::new();
            let n = 1 + r.below(n);
            while out.len() < n {
                out.extend_from_slice(words[r.below(words.len())]);
                if r.below(4) == 0 {
                    out.push(b'\n');
                }
            }
            out
        };
        let (mut same, mut tokens) = (0, 0);
        for round in 0..300 {
            let args = round % 2 == 1;
            let seeds: Vec<Vec<u8>> = (0..3).map(|_| text(&mut r, 400)).collect();
            // Pieces of the seeds and new bytes, labelled as they are made.
            let make = |r: &mut Rng, from: &[(u64, &[u8], Labels)], id: u64| {
                let (mut data, mut labels) = (Vec::new(), Labels::default());
                for _ in 0..1 + r.below(12) {
                    if r.below(4) == 0 {
                        let new = text(r, 20);
                        labels.extend(&Labels::inserted("op", new.len()));
                        data.extend(new);
                    } else {
                        let (_, d, l) = &from[r.below(from.len())];
                        let (a, b) = (r.below(d.len() + 1), r.below(d.len() + 1));
                        let (a, b) = (a.min(b), a.max(b));
                        data.extend_from_slice(&d[a..b]);
                        labels.extend(&l.slice(a, b));
                    }
                }
                labels.adopt(id);
                (data, labels)
            };
            let own: Vec<(u64, &[u8], Labels)> =
                seeds.iter().enumerate().map(|(k, s)| (k as u64, &s[..], Labels::own(k as u64, s.len()))).collect();
            let (anc, anc_l) = make(&mut r, &own, 7);
            let mut from = own.clone();
            from.push((7, &anc, anc_l.clone()));
            let (test, rec) = make(&mut r, &from, 8);
            let mut sources: Vec<Source> = seeds.iter().enumerate().map(|(k, s)| (k as u64, &s[..], None)).collect();
            sources.push((7, &anc, Some(&anc_l)));
            let p = pseudo(&test, &sources, args);
            assert_eq!(p.labels.check(&test, lookup(&sources)), Ok(()), "round {round}");
            let m = measure(8, &test, &rec, &sources, args);
            assert_eq!(m.tokens, p.tokens.len());
            same += m.same_source;
            tokens += m.tokens;
        }
        eprintln!("random: {same} of {tokens} tokens agree");
        // Lines recur among the seeds: a token may rightly be found
        // elsewhere, but most are not.
        assert!(same * 2 > tokens, "{same} of {tokens}");
    }

    /// A test of 64 KiB against 300 sources of 4 KiB.
    #[test]
    fn large_inputs_take_linear_time() {
        let mut r = Rng(3);
        let line = |r: &mut Rng| -> Vec<u8> {
            let mut l: Vec<u8> = (0..r.below(40)).map(|_| b"    abcdefgh(){};=+"[r.below(19)]).collect();
            l.push(b'\n');
            l
        };
        let sources: Vec<Vec<u8>> =
            (0..300).map(|_| (0..100).flat_map(|_| line(&mut r)).take(4096).collect()).collect();
        let mut test = Vec::new();
        while test.len() < 64 << 10 {
            let s = &sources[r.below(300)];
            let (a, b) = (r.below(s.len()), r.below(s.len()));
            test.extend_from_slice(&s[a.min(b)..a.max(b).min(a.min(b) + 300)]);
            test.extend(line(&mut r));
        }
        let srcs: Vec<Source> = sources.iter().enumerate().map(|(k, s)| (k as u64, &s[..], None)).collect();
        let (p, work) = pseudo_counted(&test, &srcs, false);
        let (_, work_quarter) = pseudo_counted(&test[..test.len() / 4], &srcs, false);
        eprintln!(
            "{} bytes, {} runs, {} copied, work {work} ({work_quarter} on a quarter)",
            test.len(),
            p.labels.runs().count(),
            p.copied
        );
        assert_eq!(p.labels.check(&test, lookup(&srcs)), Ok(()));
        assert!(p.copied * 2 > test.len());
        assert_linear(test.len(), work, work_quarter);
        // A repetitive test against repetitive sources.
        let same = vec![b'a'; 64 << 10];
        let srcs: Vec<Source> = (0..300).map(|k| (k as u64, &same[..4096], None)).collect();
        let (p, work) = pseudo_counted(&same, &srcs, false);
        let (_, work_quarter) = pseudo_counted(&same[..same.len() / 4], &srcs, false);
        eprintln!("repetitive: {} runs, work {work} ({work_quarter} on a quarter)", p.labels.runs().count());
        assert_eq!(p.copied, same.len());
        assert_linear(same.len(), work, work_quarter);
    }

    /// Checks the work counted on `n` bytes and on their first quarter:
    /// at most the places the search may try at a byte (the previous
    /// copy, a token's chain, a 4-byte string's chain) per byte, and
    /// growing as the input does (a search quadratic in it would do 16
    /// times the work on 4 times the bytes, not about 4).
    fn assert_linear(n: usize, work: usize, work_quarter: usize) {
        assert!(work <= (1 + TOKEN_CHAIN + CHAIN) * n, "work {work} on {n} bytes");
        assert!(work * 2 <= work_quarter * 9, "work {work} on {n} bytes, {work_quarter} on a quarter");
    }
}
