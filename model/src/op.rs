//! The operators of a symbolic trace as one type (`core` only: the runtime
//! compiles this file too): what each takes, which widths fit it, and its
//! concrete value, with the semantics of SMT-LIB bit-vectors that the
//! solver gives it (a division by zero is all ones, a remainder by zero
//! the dividend, a shift past the width 0 or the sign). The runtime's
//! folding, the tools' evaluator, the trace decoder, the DAG tools and the
//! solver all go through it; adding an operator is one variant here, and
//! the exhaustive matches say where else it must be handled.

use crate::trace::*;

/// An operator of a trace node (its wire code: the `OP_*` constants).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Input,
    Const,
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
    Eq,
    Ne,
    Ult,
    Ule,
    Ugt,
    Uge,
    Slt,
    Sle,
    Sgt,
    Sge,
    ZExt,
    SExt,
    Extract,
    Concat,
    Ite,
    Table,
}

/// Every operator, in code order.
pub const ALL_OPS: [Op; 31] = [
    Op::Input,
    Op::Const,
    Op::Add,
    Op::Sub,
    Op::Mul,
    Op::UDiv,
    Op::SDiv,
    Op::URem,
    Op::SRem,
    Op::Shl,
    Op::LShr,
    Op::AShr,
    Op::And,
    Op::Or,
    Op::Xor,
    Op::Eq,
    Op::Ne,
    Op::Ult,
    Op::Ule,
    Op::Ugt,
    Op::Uge,
    Op::Slt,
    Op::Sle,
    Op::Sgt,
    Op::Sge,
    Op::ZExt,
    Op::SExt,
    Op::Extract,
    Op::Concat,
    Op::Ite,
    Op::Table,
];

/// The low `w` bits.
pub const fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// `v`'s low `w` bits as a signed value.
pub const fn signed(v: u64, w: u32) -> i64 {
    if w == 0 || w >= 64 {
        v as i64
    } else {
        let shift = 64 - w;
        ((v << shift) as i64) >> shift
    }
}

impl Op {
    /// The wire code.
    pub const fn code(self) -> u8 {
        match self {
            Op::Input => OP_INPUT,
            Op::Const => OP_CONST,
            Op::Add => OP_ADD,
            Op::Sub => OP_SUB,
            Op::Mul => OP_MUL,
            Op::UDiv => OP_UDIV,
            Op::SDiv => OP_SDIV,
            Op::URem => OP_UREM,
            Op::SRem => OP_SREM,
            Op::Shl => OP_SHL,
            Op::LShr => OP_LSHR,
            Op::AShr => OP_ASHR,
            Op::And => OP_AND,
            Op::Or => OP_OR,
            Op::Xor => OP_XOR,
            Op::Eq => OP_EQ,
            Op::Ne => OP_NE,
            Op::Ult => OP_ULT,
            Op::Ule => OP_ULE,
            Op::Ugt => OP_UGT,
            Op::Uge => OP_UGE,
            Op::Slt => OP_SLT,
            Op::Sle => OP_SLE,
            Op::Sgt => OP_SGT,
            Op::Sge => OP_SGE,
            Op::ZExt => OP_ZEXT,
            Op::SExt => OP_SEXT,
            Op::Extract => OP_EXTRACT,
            Op::Concat => OP_CONCAT,
            Op::Ite => OP_ITE,
            Op::Table => OP_TABLE,
        }
    }

    /// The operator of a wire code; `None` for a code no operator has.
    pub fn from_code(code: u8) -> Option<Op> {
        ALL_OPS.iter().copied().find(|o| o.code() == code)
    }

    /// How many node operands it takes (`a`, `b`, `c` in that order).
    pub const fn operands(self) -> usize {
        match self {
            Op::Input | Op::Const => 0,
            Op::ZExt | Op::SExt | Op::Extract | Op::Table => 1,
            Op::Ite => 3,
            _ => 2,
        }
    }

    /// A comparison (its value is 1 bit).
    pub const fn is_comparison(self) -> bool {
        matches!(self, Op::Eq | Op::Ne | Op::Ult | Op::Ule | Op::Ugt | Op::Uge | Op::Slt | Op::Sle | Op::Sgt | Op::Sge)
    }

    /// Whether a node of `width` bits with operands of widths `wa`, `wb`,
    /// `wc` (0 where there is none) and `val` fits this operator.
    pub const fn well_typed(self, width: u8, wa: u8, wb: u8, wc: u8, val: u64) -> bool {
        if width == 0 || width > 64 {
            return false;
        }
        match self {
            Op::Input => width == 8,
            Op::Const => true,
            Op::ZExt | Op::SExt => wa <= width,
            Op::Extract => val < 64 && val + width as u64 <= wa as u64,
            Op::Concat => wa as u32 + wb as u32 == width as u32,
            Op::Ite => wa == 1 && wb == width && wc == width,
            Op::Table => wa == 8,
            op if op.is_comparison() => width == 1 && wa == wb,
            _ => wa == width && wb == width,
        }
    }

    /// The value of an operator other than `Input` and `Table` (which need
    /// the input and the trace's tables) on operand values `a`, `b`, `c`
    /// of widths `wa`, `wb`, for a node of width `w` with `val`; masked to
    /// `w` bits. `None` for `Input` and `Table`, and past 64 bits.
    #[allow(clippy::too_many_arguments)]
    pub const fn eval(self, w: u32, wa: u32, wb: u32, a: u64, b: u64, c: u64, val: u64) -> Option<u64> {
        if w > 64 || wa > 64 || wb > 64 {
            return None;
        }
        let (a, b) = (a & mask(wa), b & mask(if self.is_comparison() || wb == 0 { wa } else { wb }));
        let (sa, sb) = (signed(a, wa), signed(b, wa));
        let v = match self {
            Op::Input | Op::Table => return None,
            Op::Const => val,
            Op::Add => a.wrapping_add(b),
            Op::Sub => a.wrapping_sub(b),
            Op::Mul => a.wrapping_mul(b),
            Op::UDiv => match a.checked_div(b) {
                Some(q) => q,
                None => u64::MAX,
            },
            Op::URem => match a.checked_rem(b) {
                Some(r) => r,
                None => a,
            },
            Op::SDiv if b == 0 => {
                if sa < 0 {
                    1
                } else {
                    u64::MAX
                }
            }
            Op::SDiv => sa.wrapping_div(sb) as u64,
            Op::SRem if b == 0 => a,
            Op::SRem => sa.wrapping_rem(sb) as u64,
            Op::Shl => {
                if b < w as u64 {
                    a << b
                } else {
                    0
                }
            }
            Op::LShr => {
                if b < w as u64 {
                    a >> b
                } else {
                    0
                }
            }
            Op::AShr => {
                let k = if b < w as u64 { b } else { w.saturating_sub(1) as u64 };
                (sa >> k) as u64
            }
            Op::And => a & b,
            Op::Or => a | b,
            Op::Xor => a ^ b,
            Op::Eq => (a == b) as u64,
            Op::Ne => (a != b) as u64,
            Op::Ult => (a < b) as u64,
            Op::Ule => (a <= b) as u64,
            Op::Ugt => (a > b) as u64,
            Op::Uge => (a >= b) as u64,
            Op::Slt => (sa < sb) as u64,
            Op::Sle => (sa <= sb) as u64,
            Op::Sgt => (sa > sb) as u64,
            Op::Sge => (sa >= sb) as u64,
            Op::ZExt => a,
            Op::SExt => sa as u64,
            Op::Extract => {
                if val < 64 {
                    a >> val
                } else {
                    0
                }
            }
            Op::Concat => {
                if wa + wb > 64 {
                    return None;
                }
                (if wb < 64 { a << wb } else { 0 }) | b
            }
            Op::Ite => {
                if a & 1 != 0 {
                    b
                } else {
                    c
                }
            }
        };
        Some(v & mask(w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_are_distinct() {
        for (k, op) in ALL_OPS.iter().enumerate() {
            assert_eq!(Op::from_code(op.code()), Some(*op));
            assert!(ALL_OPS[..k].iter().all(|o| o.code() != op.code()), "{op:?}");
        }
        assert_eq!(Op::from_code(15), None);
        assert_eq!(Op::from_code(200), None);
    }

    #[test]
    fn division_and_shifts_follow_smt_lib() {
        let e = |op: Op, w, a, b| op.eval(w, w, w, a, b, 0, 0).unwrap();
        assert_eq!(e(Op::UDiv, 8, 7, 0), 0xff);
        assert_eq!(e(Op::URem, 8, 7, 0), 7);
        assert_eq!(e(Op::SDiv, 8, 0xf9, 0), 1); // -7 / 0
        assert_eq!(e(Op::SDiv, 8, 7, 0), 0xff);
        assert_eq!(e(Op::SDiv, 32, 0x8000_0000, 0xffff_ffff), 0x8000_0000); // MIN / -1 wraps
        assert_eq!(e(Op::SRem, 8, 0xf9, 2), 0xff); // -7 % 2 = -1
        assert_eq!(e(Op::Shl, 8, 1, 8), 0);
        assert_eq!(e(Op::LShr, 8, 0x80, 9), 0);
        assert_eq!(e(Op::AShr, 8, 0x80, 200), 0xff);
        assert_eq!(e(Op::Slt, 8, 0xff, 0), 1);
        assert_eq!(Op::Concat.eval(16, 8, 8, 0x12, 0x34, 0, 0), Some(0x1234));
        assert_eq!(Op::Extract.eval(8, 32, 0, 0x1234_5678, 0, 0, 8), Some(0x56));
        assert_eq!(Op::SExt.eval(32, 8, 0, 0x80, 0, 0, 0), Some(0xffff_ff80));
        assert_eq!(Op::Ite.eval(8, 1, 8, 0, 3, 4, 0), Some(4));
        assert_eq!(Op::Input.eval(8, 0, 0, 0, 0, 0, 0), None);
    }

    #[test]
    fn widths_that_do_not_fit_are_refused() {
        assert!(Op::Add.well_typed(32, 32, 32, 0, 0));
        assert!(!Op::Add.well_typed(64, 32, 64, 0, 0));
        assert!(Op::Eq.well_typed(1, 16, 16, 0, 0) && !Op::Eq.well_typed(8, 16, 16, 0, 0));
        assert!(!Op::ZExt.well_typed(8, 32, 0, 0, 0));
        assert!(!Op::Extract.well_typed(8, 8, 0, 0, 4));
        assert!(!Op::Concat.well_typed(32, 8, 8, 0, 0));
        assert!(!Op::Input.well_typed(16, 0, 0, 0, 0));
    }
}
