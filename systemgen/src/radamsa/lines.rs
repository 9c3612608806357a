//! Line mutators for text-like tests: delete, duplicate, repeat, swap, permute, import lines.

use rand::seq::SliceRandom;

use super::ctx::Ctx;

/// At most this many lines are moved by one permutation or deletion.
const WINDOW: usize = 16;

/// Whether `data` looks line-based: it has a newline and few control bytes in its first KiB.
pub(crate) fn looks_line_based(data: &[u8]) -> bool {
    let head = &data[..data.len().min(1024)];
    let control = head.iter().filter(|&&b| b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t') || b == 0x7f).count();
    control * 8 <= head.len() && data.contains(&b'\n')
}

/// A test cut into lines (without their `\n`).
struct Text<'d> {
    lines: Vec<&'d [u8]>,
    /// Byte offset of each line.
    starts: Vec<usize>,
    /// Whether the last line ended with `\n`.
    final_nl: bool,
}

impl<'d> Text<'d> {
    fn split(data: &'d [u8]) -> Self {
        let final_nl = data.last() == Some(&b'\n');
        let body = if final_nl { &data[..data.len() - 1] } else { data };
        let lines: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
        let mut starts = Vec::with_capacity(lines.len());
        let mut at = 0;
        for line in &lines {
            starts.push(at);
            at += line.len() + 1;
        }
        Text { lines, starts, final_nl }
    }

    /// The test's lines, if it looks line-based.
    fn parse(data: &'d [u8]) -> Option<Self> {
        looks_line_based(data).then(|| Self::split(data))
    }

    /// A line index, near the focus of a burst if there is one.
    fn pick(&self, ctx: &mut Ctx<'_>) -> usize {
        ctx.pick_near(self.lines.len(), |i| self.starts[i])
    }

    /// A place between lines, `0..=len`.
    fn pick_gap(&self, ctx: &mut Ctx<'_>) -> usize {
        let n = self.lines.len();
        if ctx.chance(1, n as u32 + 1) {
            n
        } else {
            self.pick(ctx)
        }
    }

    fn join(&self) -> Vec<u8> {
        let size: usize = self.lines.iter().map(|l| l.len() + 1).sum();
        let mut out = Vec::with_capacity(size);
        for (i, line) in self.lines.iter().enumerate() {
            if i > 0 {
                out.push(b'\n');
            }
            out.extend_from_slice(line);
        }
        if self.final_nl && !self.lines.is_empty() {
            out.push(b'\n');
        }
        out
    }
}

/// Applies `edit` to the lines of `data`; `edit` returns `false` when it cannot apply.
fn edit(ctx: &mut Ctx<'_>, data: &mut Vec<u8>, f: impl FnOnce(&mut Ctx<'_>, &mut Text<'_>) -> bool) -> bool {
    let out = {
        let Some(mut text) = Text::parse(data) else {
            return false;
        };
        if !f(ctx, &mut text) {
            return false;
        }
        text.join()
    };
    if out.len() > ctx.limit {
        return false;
    }
    *data = out;
    true
}

/// Whether a line of `len` bytes still fits.
fn fits(ctx: &Ctx<'_>, data_len: usize, len: usize) -> bool {
    len < ctx.room(data_len)
}

/// `ld`: delete a line.
pub(crate) fn delete_line(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    edit(ctx, data, |ctx, t| {
        let i = t.pick(ctx);
        t.lines.remove(i);
        true
    })
}

/// `lds`: delete many lines (a block, or lines picked here and there).
pub(crate) fn delete_lines(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    edit(ctx, data, |ctx, t| {
        let n = t.lines.len();
        if n < 2 {
            return false;
        }
        let count = 1 + ctx.small(n.min(WINDOW * 4) - 1);
        if ctx.chance(1, 2) {
            let i = t.pick(ctx).min(n - count);
            t.lines.drain(i..i + count);
        } else {
            for _ in 0..count {
                let i = ctx.below(t.lines.len());
                t.lines.remove(i);
            }
        }
        true
    })
}

/// `lr2`: duplicate a line.
pub(crate) fn dup_line(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let len = data.len();
    edit(ctx, data, |ctx, t| {
        let i = t.pick(ctx);
        let line = t.lines[i];
        fits(ctx, len, line.len()) && {
            t.lines.insert(i + 1, line);
            true
        }
    })
}

/// `li`: copy a line a few lines above or below.
pub(crate) fn copy_line_near(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let len = data.len();
    edit(ctx, data, |ctx, t| {
        let n = t.lines.len();
        let i = t.pick(ctx);
        let line = t.lines[i];
        let away = 2 + ctx.below(4);
        let to = if ctx.chance(1, 2) { (i + away).min(n) } else { i.saturating_sub(away - 1) };
        fits(ctx, len, line.len()) && {
            t.lines.insert(to, line);
            true
        }
    })
}

/// `lr`: repeat a line many times.
pub(crate) fn repeat_line(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let room = ctx.room(data.len());
    edit(ctx, data, |ctx, t| {
        let i = t.pick(ctx);
        let line = t.lines[i];
        let most = (room / (line.len() + 1)).min(1 << 12);
        if most < 2 {
            return false;
        }
        let times = 1 + ctx.small(most - 1);
        t.lines.splice(i..i, std::iter::repeat_n(line, times));
        true
    })
}

/// `ls`: swap two lines (often neighbours).
pub(crate) fn swap_lines(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    edit(ctx, data, |ctx, t| {
        let n = t.lines.len();
        if n < 2 {
            return false;
        }
        let i = t.pick(ctx);
        let j = if ctx.chance(1, 2) {
            if i + 1 < n {
                i + 1
            } else {
                i - 1
            }
        } else {
            (i + 1 + ctx.below(n - 1)) % n
        };
        t.lines.swap(i, j);
        true
    })
}

/// `lp`: permute the order of a few consecutive lines.
pub(crate) fn permute_lines(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    edit(ctx, data, |ctx, t| {
        let n = t.lines.len();
        if n < 2 {
            return false;
        }
        let i = t.pick(ctx).min(n - 2);
        let width = 1 + ctx.small((n - i).min(WINDOW) - 1);
        t.lines[i..i + width].shuffle(ctx.rng);
        true
    })
}

/// A line of this test (half the time) or of another corpus entry.
fn line_from_elsewhere(ctx: &mut Ctx<'_>, own: &Text<'_>) -> Vec<u8> {
    let other = if ctx.chance(1, 2) { &[][..] } else { ctx.other() };
    if other.is_empty() {
        return own.lines[ctx.below(own.lines.len())].to_vec();
    }
    let lines = Text::split(other).lines;
    lines[ctx.below(lines.len())].to_vec()
}

/// `lis` (`replace == false`): insert a line taken from this test or another corpus entry;
/// `lrs` (`replace == true`): replace a line with such a line.
fn line_elsewhere(ctx: &mut Ctx<'_>, data: &mut Vec<u8>, replace: bool) -> bool {
    let room = ctx.room(data.len());
    let out = {
        let Some(mut text) = Text::parse(data) else {
            return false;
        };
        let line = line_from_elsewhere(ctx, &text);
        let i = if replace { text.pick(ctx) } else { text.pick_gap(ctx) };
        let freed = if replace { text.lines[i].len() } else { 0 };
        if line.len() + 1 > room + freed {
            return false;
        }
        let mut lines = std::mem::take(&mut text.lines);
        if replace {
            lines[i] = &line;
        } else {
            lines.insert(i, &line);
        }
        Text { lines, starts: Vec::new(), final_nl: text.final_nl }.join()
    };
    *data = out;
    true
}

/// `lis`: insert a line taken from this test or another corpus entry.
pub(crate) fn insert_line(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    line_elsewhere(ctx, data, false)
}

/// `lrs`: replace a line with one from this test or another corpus entry.
pub(crate) fn replace_line(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    line_elsewhere(ctx, data, true)
}

#[cfg(test)]
mod tests {
    use super::super::ctx::testing::{run, run_with};
    use super::super::ctx::MutFn;
    use super::*;

    const TEXT: &[u8] = b"alpha\nbravo\ncharlie\ndelta\necho\nfoxtrot\n";

    fn lines(data: &[u8]) -> Vec<&[u8]> {
        Text::split(data).lines
    }

    #[test]
    fn only_line_based_data() {
        assert!(looks_line_based(TEXT));
        assert!(!looks_line_based(b"no newline here"));
        assert!(!looks_line_based(b"\x00\x01\x02\x03\n\x04\x05\x06"));
        let all: [MutFn; 9] = [
            delete_line,
            delete_lines,
            dup_line,
            copy_line_near,
            repeat_line,
            swap_lines,
            permute_lines,
            insert_line,
            replace_line,
        ];
        for f in all {
            assert_eq!(
                run(f, b"binary\x00\x00\x00\x00\x01\x02", 3),
                (false, b"binary\x00\x00\x00\x00\x01\x02".to_vec())
            );
            assert!(!run(f, b"", 3).0);
        }
    }

    #[test]
    fn line_structure_is_kept() {
        let orig = lines(TEXT);
        for seed in 0..200 {
            let (ok, out) = run(delete_line, TEXT, seed);
            assert!(ok);
            assert_eq!(lines(&out).len(), 5);
            assert!(lines(&out).iter().all(|l| orig.contains(l)));
            assert!(out.ends_with(b"\n"));

            let (_, out) = run(delete_lines, TEXT, seed);
            assert!(lines(&out).len() <= 4 || out.is_empty());

            for f in [dup_line as MutFn, copy_line_near] {
                let (_, out) = run(f, TEXT, seed);
                let got = lines(&out);
                assert_eq!(got.len(), 7);
                assert!(got.iter().all(|l| orig.contains(l)));
            }

            let (_, out) = run(repeat_line, TEXT, seed);
            assert!(lines(&out).len() > 7);
            assert!(lines(&out).iter().all(|l| orig.contains(l)));

            for f in [swap_lines as MutFn, permute_lines] {
                let (_, out) = run(f, TEXT, seed);
                let mut got = lines(&out);
                got.sort();
                assert_eq!(got, orig, "same lines in another order");
            }
        }
    }

    #[test]
    fn swap_changes_order() {
        let (_, out) = run(swap_lines, b"a\nb\n", 1);
        assert_eq!(out, b"b\na\n");
    }

    #[test]
    fn lines_from_elsewhere() {
        let other: &[u8] = b"XRAY\nYANKEE\n";
        let mut seen_other = false;
        for seed in 0..100 {
            let (ok, out) = run_with(insert_line, TEXT, &[TEXT, other], seed);
            assert!(ok);
            let got = lines(&out);
            assert_eq!(got.len(), 7);
            seen_other |= got.contains(&&b"XRAY"[..]) || got.contains(&&b"YANKEE"[..]);
            let (ok, out) = run_with(replace_line, TEXT, &[TEXT, other], seed);
            assert!(ok);
            assert_eq!(lines(&out).len(), 6);
        }
        assert!(seen_other);
    }
}
