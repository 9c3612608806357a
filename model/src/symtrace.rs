//! Symbolic traces as the tools see them (the format is in
//! [`crate::trace`]): decoding a trace, encoding a symbolic-input file.

use crate::op::Op;
use crate::snapshot::{next_record, DecodeError, Reader};
use crate::trace::*;
use crate::unit::push_record;

/// One entry of a trace's path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathEntry {
    pub kind: u8,
    pub site: u32,
    pub node: u32,
    pub taken: u64,
    /// A switch's case values.
    pub cases: Vec<u64>,
    /// Each direction's coverage-map slot (a branch's `taken` 0 and 1, a
    /// switch's cases and then its default; [`NO_SLOT`] or none when
    /// unknown).
    pub slots: Vec<u32>,
}

impl PathEntry {
    /// The coverage-map slot of direction `dir` (a branch's 0 or 1, a
    /// switch's case value or `None` for its default), when known.
    pub fn slot(&self, dir: Option<u64>) -> Option<u32> {
        let k = match (self.kind, dir) {
            (PATH_BRANCH, Some(d)) => d as usize,
            (PATH_SWITCH, Some(c)) => self.cases.iter().position(|&x| x == c)?,
            (PATH_SWITCH, None) => self.cases.len(),
            _ => return None,
        };
        self.slots.get(k).copied().filter(|&s| s != NO_SLOT)
    }
}

/// A decoded trace: `nodes[0]` is a placeholder, ids start at 1.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    pub flags: u32,
    pub nodes: Vec<Node>,
    pub path: Vec<PathEntry>,
    /// Tables read by [`Op::Table`] nodes, [`TABLE_LEN`] entries each.
    pub tables: Vec<Vec<u64>>,
    /// What pinned values: a pin entry's `site` is an index here plus one
    /// (0: not named). Traces written before names were kept have none.
    pub pin_names: Vec<String>,
}

/// Most nodes and path entries a trace may announce.
const MAX_ITEMS: u32 = 1 << 26;

impl Trace {
    /// What pinned the value of pin entry `e` (`None`: not named).
    pub fn pinned_by(&self, e: &PathEntry) -> Option<&str> {
        (e.kind == PATH_PIN && e.site > 0).then(|| self.pin_names.get(e.site as usize - 1).map(String::as_str))?
    }

    pub fn decode(bytes: &[u8]) -> Result<Trace, DecodeError> {
        let (kind, payload, _) = next_record(bytes)?;
        if kind != KIND_TRACE {
            return Err(DecodeError::Malformed("not a trace record"));
        }
        let mut r = Reader::new(payload);
        let flags = r.u32()?;
        let n = r.u32()?;
        if n > MAX_ITEMS {
            return Err(DecodeError::Malformed("node count"));
        }
        let mut nodes = Vec::with_capacity(n as usize + 1);
        nodes.push(Node::default());
        for id in 1..=n {
            let x = Node::decode(&mut r)?;
            // Operands come before their users.
            if [x.a, x.b, x.c][..x.op.operands()].iter().any(|&o| o == 0 || o >= id) {
                return Err(DecodeError::Malformed("operand after its user"));
            }
            if !well_typed(&x, &nodes) {
                return Err(DecodeError::Malformed("node whose width does not fit its operands"));
            }
            nodes.push(x);
        }
        let m = r.u32()?;
        if m > MAX_ITEMS {
            return Err(DecodeError::Malformed("path length"));
        }
        let mut path = Vec::with_capacity(m.min(1 << 16) as usize);
        for _ in 0..m {
            let (kind, site, node, taken) = (r.u8()?, r.u32()?, r.u32()?, r.u64()?);
            if kind > PATH_PIN || node == 0 || node > n {
                return Err(DecodeError::Malformed("path entry"));
            }
            let mut cases = Vec::new();
            if kind == PATH_SWITCH {
                let k = r.u32()?;
                if k > MAX_ITEMS {
                    return Err(DecodeError::Malformed("switch cases"));
                }
                for _ in 0..k {
                    cases.push(r.u64()?);
                }
            }
            let mut slots = Vec::new();
            if kind != PATH_PIN {
                let k = r.u32()?;
                if k as usize > cases.len() + 2 {
                    return Err(DecodeError::Malformed("direction slots"));
                }
                for _ in 0..k {
                    slots.push(r.u32()?);
                }
            }
            path.push(PathEntry { kind, site, node, taken, cases, slots });
        }
        let t = r.u32()?;
        if t > 1 << 16 {
            return Err(DecodeError::Malformed("table count"));
        }
        let mut tables = Vec::with_capacity(t as usize);
        for _ in 0..t {
            let mut entries = Vec::with_capacity(TABLE_LEN);
            for _ in 0..TABLE_LEN {
                entries.push(r.u64()?);
            }
            tables.push(entries);
        }
        if nodes.iter().any(|x| x.op == Op::Table && x.val >= u64::from(t)) {
            return Err(DecodeError::Malformed("table id"));
        }
        let mut pin_names = Vec::new();
        if !r.is_empty() {
            let k = r.u32()?;
            if k > 1 << 16 {
                return Err(DecodeError::Malformed("pin name count"));
            }
            for _ in 0..k {
                let len = r.u32()?;
                if len > 1 << 12 {
                    return Err(DecodeError::Malformed("pin name"));
                }
                pin_names.push(String::from_utf8_lossy(r.take(len as usize)?).into_owned());
            }
        }
        if path.iter().any(|e| e.kind == PATH_PIN && e.site as usize > pin_names.len()) {
            return Err(DecodeError::Malformed("pin site"));
        }
        Ok(Trace { flags, nodes, path, tables, pin_names })
    }
}

impl Trace {
    /// The trace as the runtime writes it (a `KIND_TRACE` record):
    /// `decode(encode(t))` gives `t` back. Tools write traces only to
    /// test how traces they cannot use are met.
    pub fn encode(&self) -> Vec<u8> {
        let mut p = Vec::new();
        let path = self.path.iter().map(|e| EntryRef {
            kind: e.kind,
            site: e.site,
            node: e.node,
            taken: e.taken,
            cases: &e.cases,
            slots: &e.slots,
        });
        let nodes = self.nodes.get(1..).unwrap_or_default();
        let tables = self.tables.iter().map(Vec::as_slice);
        encode_trace(&mut p, self.flags, nodes, path, tables, self.pin_names.iter().map(|n| n.as_bytes()));
        let mut out = Vec::new();
        push_record(&mut out, KIND_TRACE, &p);
        out
    }
}

/// Whether node `x`'s width fits its operator and its operands (`nodes`:
/// the nodes before it, their own widths checked), so that a solver can
/// trust every node it is given.
fn well_typed(x: &Node, nodes: &[Node]) -> bool {
    let w = |k: usize, id: u32| if k < x.op.operands() { nodes[id as usize].width } else { 0 };
    x.op.well_typed(x.width, w(0, x.a), w(1, x.b), w(2, x.c), x.val)
}

/// The symbolic-input file (`CARVE_SYM_IN`) for these parameter bytes.
pub fn encode_sym_in(inputs: &[SymInput]) -> Vec<u8> {
    let mut payload = Vec::new();
    crate::snapshot::Sink::u32(&mut payload, inputs.len() as u32);
    for i in inputs {
        i.encode(&mut payload);
    }
    let mut out = Vec::new();
    push_record(&mut out, KIND_SYM_IN, &payload);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(op: Op, width: u8, a: u32, b: u32, val: u64) -> Node {
        Node { op, width, a, b, c: 0, val }
    }

    /// A trace of `nodes` (from id 1), `pins` pin entries `(site, node)`,
    /// no tables, and `names` as its pin names.
    fn encode(nodes: &[Node], pins: &[(u32, u32)], names: &[&str]) -> Vec<u8> {
        let path = pins
            .iter()
            .map(|&(site, node)| PathEntry { kind: PATH_PIN, site, node, taken: 1, cases: vec![], slots: vec![] })
            .collect();
        let mut all = vec![Node::default()];
        all.extend_from_slice(nodes);
        let pin_names = names.iter().map(|n| n.to_string()).collect();
        Trace { flags: 0, nodes: all, path, tables: vec![], pin_names }.encode()
    }

    #[test]
    fn encoding_then_decoding_gives_the_trace_back() {
        let nodes =
            vec![Node::default(), node(Op::Input, 8, 0, 0, 3), node(Op::Const, 8, 0, 0, 7), node(Op::Eq, 1, 1, 2, 0)];
        let path = vec![
            PathEntry { kind: PATH_BRANCH, site: 4, node: 3, taken: 1, cases: vec![], slots: vec![10, 11] },
            PathEntry { kind: PATH_SWITCH, site: 5, node: 1, taken: 7, cases: vec![7, 9], slots: vec![1, 2, NO_SLOT] },
            PathEntry { kind: PATH_PIN, site: 1, node: 2, taken: 7, cases: vec![], slots: vec![] },
        ];
        let t = Trace { flags: 3, nodes, path, tables: vec![vec![5; TABLE_LEN]], pin_names: vec!["atoi".into()] };
        let back = Trace::decode(&t.encode()).unwrap();
        assert_eq!(
            (back.flags, &back.nodes, &back.path, &back.tables, &back.pin_names),
            (t.flags, &t.nodes, &t.path, &t.tables, &t.pin_names)
        );
    }

    #[test]
    fn nodes_whose_widths_do_not_fit_are_rejected() {
        let byte = node(Op::Input, 8, 0, 0, 0);
        let wide = node(Op::ZExt, 64, 1, 0, 0);
        let k = node(Op::Const, 64, 0, 0, 7);
        assert!(Trace::decode(&encode(&[byte, wide, k, node(Op::Add, 64, 2, 3, 0)], &[], &[])).is_ok());
        // An 8-bit operand under a 64-bit add, as a narrow pointer shadow made.
        let bad = encode(&[byte, k, node(Op::Add, 64, 1, 2, 0)], &[], &[]);
        assert!(matches!(Trace::decode(&bad), Err(DecodeError::Malformed(_))));
        for x in [
            node(Op::Eq, 8, 2, 3, 0),
            node(Op::Extract, 8, 2, 0, 60),
            node(Op::Concat, 32, 1, 1, 0),
            node(Op::Ite, 64, 2, 2, 0),
            node(Op::ZExt, 4, 2, 0, 0),
        ] {
            assert!(Trace::decode(&encode(&[byte, wide, k, x], &[], &[])).is_err(), "{x:?}");
        }
    }

    #[test]
    fn an_operator_code_no_operator_has_is_an_error() {
        use crate::snapshot::{header, HEADER_LEN};
        let nodes = [node(Op::Input, 8, 0, 0, 0), node(Op::Const, 8, 0, 0, 1), node(Op::Eq, 1, 1, 2, 0)];
        // The trace with the third node's operator byte (after the flags,
        // the count and two nodes) set to `code`, its checksum redone.
        let with_code = |code: u8| {
            let mut bytes = encode(&nodes, &[], &[]);
            bytes[HEADER_LEN + 8 + 2 * NODE_LEN] = code;
            let h = header(KIND_TRACE, &bytes[HEADER_LEN..]);
            bytes[..HEADER_LEN].copy_from_slice(&h);
            Trace::decode(&bytes)
        };
        assert_eq!(with_code(Op::Eq.code()).unwrap().nodes[3].op, Op::Eq);
        assert_eq!(with_code(Op::Ult.code()).unwrap().nodes[3].op, Op::Ult);
        for code in [15, 26, 38, 99, u8::MAX] {
            assert!(matches!(with_code(code), Err(DecodeError::Malformed("operator"))), "{code}");
        }
    }

    #[test]
    fn pins_name_what_pinned_them() {
        let nodes = [node(Op::Input, 8, 0, 0, 0), node(Op::Const, 8, 0, 0, 1), node(Op::Eq, 1, 1, 2, 0)];
        let t = Trace::decode(&encode(&nodes, &[(1, 3), (0, 3)], &["usleep"])).unwrap();
        assert_eq!(t.pinned_by(&t.path[0]), Some("usleep"));
        assert_eq!(t.pinned_by(&t.path[1]), None);
        assert!(Trace::decode(&encode(&nodes, &[(2, 3)], &["usleep"])).is_err());
    }
}
