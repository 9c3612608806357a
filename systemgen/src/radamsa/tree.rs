//! Tree mutators on bracket `()[]{}<>` and quote `"'` structure: delete, copy, swap, nest.

use super::ctx::Ctx;

/// A bracketed or quoted span, delimiters included: `data[start..end]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Node {
    start: usize,
    end: usize,
}

impl Node {
    fn len(self) -> usize {
        self.end - self.start
    }

    fn contains(self, other: Node) -> bool {
        self.start <= other.start && other.end <= self.end && self != other
    }

    fn disjoint(self, other: Node) -> bool {
        self.end <= other.start || other.end <= self.start
    }
}

fn closer(open: u8) -> Option<u8> {
    match open {
        b'(' => Some(b')'),
        b'[' => Some(b']'),
        b'{' => Some(b'}'),
        b'<' => Some(b'>'),
        _ => None,
    }
}

/// The end (exclusive) of a quoted string opening at `start`, on the same line.
fn quote_end(data: &[u8], start: usize) -> Option<usize> {
    let q = data[start];
    let mut i = start + 1;
    while i < data.len() {
        match data[i] {
            b'\\' => i += 1,
            b'\n' => return None,
            b if b == q => return Some(i + 1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The nodes of `data`, ordered by their end. An unmatched opener is dropped when an outer
/// closer ends its parent; an unmatched closer or quote is ignored. Quoted strings end on
/// their line and hold no nodes.
fn parse(data: &[u8]) -> Vec<Node> {
    let mut nodes = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < data.len() {
        let b = data[i];
        if b == b'"' || b == b'\'' {
            if let Some(end) = quote_end(data, i) {
                nodes.push(Node { start: i, end });
                i = end;
                continue;
            }
        } else if closer(b).is_some() {
            open.push(i);
        } else if matches!(b, b')' | b']' | b'}' | b'>') {
            if let Some(depth) = open.iter().rposition(|&o| closer(data[o]) == Some(b)) {
                nodes.push(Node { start: open[depth], end: i + 1 });
                open.truncate(depth);
            }
        }
        i += 1;
    }
    nodes
}

/// The nodes of `data` and one of them (near the focus), if there is any.
fn pick(ctx: &mut Ctx<'_>, data: &[u8]) -> Option<(Vec<Node>, Node)> {
    let mut nodes = parse(data);
    if nodes.is_empty() {
        return None;
    }
    nodes.sort_by_key(|n| n.start);
    let node = nodes[ctx.pick_near(nodes.len(), |i| nodes[i].start)];
    Some((nodes, node))
}

/// `td`: delete a node.
pub(crate) fn delete_node(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let Some((_, n)) = pick(ctx, data) else {
        return false;
    };
    data.drain(n.start..n.end);
    true
}

/// `tr2`: duplicate a node.
pub(crate) fn dup_node(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let Some((_, n)) = pick(ctx, data) else {
        return false;
    };
    if n.len() > ctx.room(data.len()) {
        return false;
    }
    let copy = data[n.start..n.end].to_vec();
    data.splice(n.end..n.end, copy);
    true
}

/// `ts1`: replace one node with a copy of another.
pub(crate) fn swap_one(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let Some((nodes, at)) = pick(ctx, data) else {
        return false;
    };
    if nodes.len() < 2 {
        return false;
    }
    let from = nodes[ctx.below(nodes.len())];
    if from == at || from.len() > at.len() + ctx.room(data.len()) {
        return false;
    }
    let copy = data[from.start..from.end].to_vec();
    data.splice(at.start..at.end, copy);
    true
}

/// `ts2`: swap two nodes that do not overlap.
pub(crate) fn swap_two(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let Some((nodes, a)) = pick(ctx, data) else {
        return false;
    };
    let free: Vec<Node> = nodes.iter().copied().filter(|&n| a.disjoint(n)).collect();
    if free.is_empty() {
        return false;
    }
    let b = free[ctx.below(free.len())];
    let (x, y) = if a.start < b.start { (a, b) } else { (b, a) };
    let mut out = Vec::with_capacity(data.len());
    out.extend_from_slice(&data[..x.start]);
    out.extend_from_slice(&data[y.start..y.end]);
    out.extend_from_slice(&data[x.end..y.start]);
    out.extend_from_slice(&data[x.start..x.end]);
    out.extend_from_slice(&data[y.end..]);
    *data = out;
    true
}

/// `tr`: repeat a path: nest a node inside itself several times, at one of its descendants
/// (or around its contents when it has none): `(a(b))` becomes `(a(a(a(b))))`.
pub(crate) fn repeat_path(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let Some((nodes, outer)) = pick(ctx, data) else {
        return false;
    };
    let inner: Vec<Node> = nodes.iter().copied().filter(|&n| outer.contains(n)).collect();
    let inner = if inner.is_empty() {
        Node { start: outer.start + 1, end: outer.end - 1 }
    } else {
        inner[ctx.below(inner.len())]
    };
    let prefix = data[outer.start..inner.start].to_vec();
    let suffix = data[inner.end..outer.end].to_vec();
    let step = prefix.len() + suffix.len();
    let most = (ctx.room(data.len()) / step).min(1 << 10);
    if most == 0 {
        return false;
    }
    let times = ctx.small(most);
    data.splice(inner.end..inner.end, suffix.iter().copied().cycle().take(suffix.len() * times));
    data.splice(outer.start..outer.start, prefix.iter().copied().cycle().take(prefix.len() * times));
    true
}

#[cfg(test)]
mod tests {
    use super::super::ctx::testing::run;
    use super::super::ctx::MutFn;
    use super::*;

    const DOC: &[u8] = br#"f(a, [1, 2, {"k": (3)}], <x y="z">) + g('q', {b})"#;

    fn balanced(data: &[u8]) -> bool {
        let mut stack = Vec::new();
        for &b in data {
            if let Some(c) = closer(b) {
                stack.push(c);
            } else if matches!(b, b')' | b']' | b'}' | b'>') && stack.pop() != Some(b) {
                return false;
            }
        }
        stack.is_empty()
    }

    #[test]
    fn parses_nested_and_quoted_nodes() {
        let nodes = parse(b"(a[b]\"c)\")");
        assert_eq!(nodes, vec![Node { start: 2, end: 5 }, Node { start: 5, end: 9 }, Node { start: 0, end: 10 }]);
        // Stray closers and openers do not stop the parse.
        assert_eq!(parse(b"a < b) (c)").len(), 1);
        assert!(parse(b"no structure").is_empty());
    }

    #[test]
    fn keeps_brackets_balanced() {
        assert!(balanced(DOC));
        let all: [MutFn; 5] = [delete_node, dup_node, swap_one, swap_two, repeat_path];
        for f in all {
            let mut changed = 0;
            for seed in 0..300 {
                let (ok, out) = run(f, DOC, seed);
                assert!(balanced(&out), "{}", String::from_utf8_lossy(&out));
                changed += usize::from(ok && out != DOC);
            }
            assert!(changed > 100, "{changed}");
        }
    }

    #[test]
    fn repeat_path_nests() {
        let (ok, out) = run(repeat_path, b"(x)", 5);
        assert!(ok);
        let n = out.iter().filter(|&&b| b == b'(').count();
        assert!(n >= 2);
        assert_eq!(out, [vec![b'('; n], vec![b'x'], vec![b')'; n]].concat());
    }

    #[test]
    fn nothing_to_do_without_structure() {
        let all: [MutFn; 5] = [delete_node, dup_node, swap_one, swap_two, repeat_path];
        for f in all {
            assert_eq!(run(f, b"plain", 1), (false, b"plain".to_vec()));
            assert!(!run(f, b"", 1).0);
        }
    }
}
