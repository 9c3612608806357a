//! Symbolic traces: what a symbolic unit replay writes (`CARVE_SYM_OUT`)
//! and the explorer reads. `core` only (the runtime compiles this file
//! too); the decoder lives with the tools.
//!
//! A trace is one record of [`KIND_TRACE`] (header as in
//! [`crate::snapshot`]): a flags word ([`TRACE_NODES_FULL`],
//! [`TRACE_PATH_FULL`]), the expression DAG (a u32 count, then [`Node`]s
//! from id 1), then the path: a u32 count of entries, each `kind` u8
//! (`PATH_*`), `site` u32, `node` u32, `taken` u64 and, for a switch, a u32
//! count and that many u64 case values, then, for a branch or a switch, a
//! u32 count and that many u32 coverage-map slots, one per direction
//! ([`NO_SLOT`] when it has no counter): a branch's `taken` 0 and 1, a
//! switch's cases in order and its default last. Every branch, switch and
//! pinned value met on symbolic data is there, in order. Last the tables that
//! [`Op::Table`] nodes read: a u32 count, then [`TABLE_LEN`] u64 each.
//!
//! Expressions are bit-vectors of `width` bits (1 to 64); comparisons are
//! 1 bit wide. Node 0 is never used: a shadow of 0 means "concrete".
//! Inputs are the bytes of the unit's symbolic parameters, in the order of
//! the symbolic-input file (`CARVE_SYM_IN`).

use crate::op::Op;

/// Record kind of a trace.
pub const KIND_TRACE: u32 = 5;
/// Record kind of the symbolic-input file: which parameter bytes are
/// symbolic (`SymInput`s).
pub const KIND_SYM_IN: u32 = 6;

/// [`SymInput::object`] of the input file (`CARVE_SYM_FILE`): the bytes
/// the program reads from it are symbolic.
pub const SYM_IN_FILE: u32 = u32::MAX - 1;

/// Entries of a table: one per value of its 8-bit index.
pub const TABLE_LEN: usize = 256;

/// A conditional branch: `node` (1 bit) was `taken` (0 or 1).
pub const PATH_BRANCH: u8 = 0;
/// A switch: `node` had the value `taken`; the cases follow.
pub const PATH_SWITCH: u8 = 1;
/// A value pinned to its concrete `taken` (an unmodelled call's argument,
/// a symbolic pointer): kept in every query, never negated.
pub const PATH_PIN: u8 = 2;

/// What a [`PATH_PIN`] entry that keeps a table index within its object
/// is named (NUL-terminated, as the runtime passes names): an assumption
/// the program's own access makes, not a value pinned.
pub const TABLE_BOUND: &[u8] = b"(index within its table)\0";

/// A direction without a coverage counter (or a module that gave none).
pub const NO_SLOT: u32 = u32::MAX;

/// Trace flags: the DAG reached its bound (later values were concretised);
/// the path reached its bound (later branches were not recorded).
pub const TRACE_NODES_FULL: u32 = 1;
pub const TRACE_PATH_FULL: u32 = 2;
/// A node whose width did not fit its operands' was not built: its value
/// was left concrete.
pub const TRACE_ILL_TYPED: u32 = 4;

/// Size of a node on the wire.
pub const NODE_LEN: usize = 22;

/// One expression node; on the wire its operator is its code
/// ([`Op::code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Node {
    pub op: Op,
    pub width: u8,
    pub a: u32,
    pub b: u32,
    pub c: u32,
    pub val: u64,
}

impl Default for Node {
    /// The placeholder of id 0, which no node has as an operand.
    fn default() -> Node {
        Node { op: Op::Input, width: 0, a: 0, b: 0, c: 0, val: 0 }
    }
}

impl Node {
    pub fn encode(&self, s: &mut impl crate::snapshot::Sink) {
        s.u8(self.op.code());
        s.u8(self.width);
        s.u32(self.a);
        s.u32(self.b);
        s.u32(self.c);
        s.u64(self.val);
    }

    pub fn decode(r: &mut crate::snapshot::Reader<'_>) -> Result<Node, crate::snapshot::DecodeError> {
        // The one place a byte becomes an operator: a code no operator
        // has is an error.
        let Some(op) = Op::from_code(r.u8()?) else { return Err(crate::snapshot::DecodeError::Malformed("operator")) };
        let n = Node { op, width: r.u8()?, a: r.u32()?, b: r.u32()?, c: r.u32()?, val: r.u64()? };
        if n.width == 0 || n.width > 64 {
            return Err(crate::snapshot::DecodeError::Malformed("expression width"));
        }
        Ok(n)
    }
}

/// Symbolic bytes of one parameter (`KIND_SYM_IN` lists them): an
/// argument word or bytes of an object, and the index of their first
/// input byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymInput {
    /// [`crate::snapshot::RELOC_IN_ARG`] for an argument, [`SYM_IN_FILE`]
    /// for the input file (`offset` 0; `len` bytes from its start), else
    /// the object.
    pub object: u32,
    /// The argument's index, or the offset in the object.
    pub offset: u64,
    pub len: u32,
    pub first: u32,
}

impl SymInput {
    pub fn encode(&self, s: &mut impl crate::snapshot::Sink) {
        s.u32(self.object);
        s.u64(self.offset);
        s.u32(self.len);
        s.u32(self.first);
    }

    pub fn decode(r: &mut crate::snapshot::Reader<'_>) -> Result<SymInput, crate::snapshot::DecodeError> {
        Ok(SymInput { object: r.u32()?, offset: r.u64()?, len: r.u32()?, first: r.u32()? })
    }
}

/// A path entry as [`encode_trace`] writes it.
#[derive(Debug, Clone, Copy)]
pub struct EntryRef<'a> {
    pub kind: u8,
    pub site: u32,
    pub node: u32,
    pub taken: u64,
    /// A switch's case values (written for switches only).
    pub cases: &'a [u64],
    /// Each direction's coverage-map slot (not written for pins).
    pub slots: &'a [u32],
}

/// Writes a trace payload: the one definition of its layout, used by the
/// runtime (symbolic replay) and the tools alike. `nodes` start at id 1;
/// each table has [`TABLE_LEN`] entries.
pub fn encode_trace<'a>(
    s: &mut impl crate::snapshot::Sink,
    flags: u32,
    nodes: &[Node],
    path: impl ExactSizeIterator<Item = EntryRef<'a>>,
    tables: impl ExactSizeIterator<Item = &'a [u64]>,
    pin_names: impl ExactSizeIterator<Item = &'a [u8]>,
) {
    s.u32(flags);
    s.u32(nodes.len() as u32);
    for n in nodes {
        n.encode(s);
    }
    s.u32(path.len() as u32);
    for e in path {
        s.u8(e.kind);
        s.u32(e.site);
        s.u32(e.node);
        s.u64(e.taken);
        if e.kind == PATH_SWITCH {
            s.u32(e.cases.len() as u32);
            for &c in e.cases {
                s.u64(c);
            }
        }
        if e.kind != PATH_PIN {
            s.u32(e.slots.len() as u32);
            for &k in e.slots {
                s.u32(k);
            }
        }
    }
    s.u32(tables.len() as u32);
    for t in tables {
        for &v in t {
            s.u64(v);
        }
    }
    s.u32(pin_names.len() as u32);
    for name in pin_names {
        s.u32(name.len() as u32);
        s.put(name);
    }
}
