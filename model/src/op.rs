//! The operators of a symbolic trace as one type (`core` only: the runtime
//! compiles this file too): what each takes, which widths fit it, and its
//! concrete value, with the semantics of SMT-LIB bit-vectors that the
//! solver gives it (a division by zero is all ones, a remainder by zero
//! the dividend, a shift past the width 0 or the sign). The runtime's
//! folding, the tools' evaluator, the trace decoder, the DAG tools and the
//! solver all go through it; adding an operator is one variant here, and
//! the exhaustive matches say where else it must be handled.

/// An operator of a trace node. Its discriminant is its wire code (the
/// byte a trace holds and the pass passes to the `__sym_*` entry points):
/// the codes never change, and a byte becomes an `Op` only through
/// [`Op::from_code`], which refuses a code no operator has.
#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// `val`: the input byte's index. 8 bits.
    Input = 0,
    /// `val`: the constant.
    Const = 1,
    Add = 2,
    Sub = 3,
    Mul = 4,
    UDiv = 5,
    SDiv = 6,
    URem = 7,
    SRem = 8,
    Shl = 9,
    LShr = 10,
    AShr = 11,
    And = 12,
    Or = 13,
    Xor = 14,
    /// Comparisons: `a`, `b` of equal width; 1 bit.
    Eq = 16,
    Ne = 17,
    /// Order comparisons ([`Op::is_order`]).
    Ult = 18,
    Ule = 19,
    Ugt = 20,
    Uge = 21,
    Slt = 22,
    Sle = 23,
    Sgt = 24,
    Sge = 25,
    /// `a` widened to `width`.
    ZExt = 32,
    SExt = 33,
    /// Bits `val .. val + width` of `a`.
    Extract = 34,
    /// `a` (high) and `b` (low) side by side.
    Concat = 35,
    /// `a` (1 bit) ? `b` : `c`.
    Ite = 36,
    /// Entry `a` (8 bits, an unsigned byte) of table `val` (see the
    /// trace's tables): `width` bits.
    Table = 37,
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
        self as u8
    }

    /// The operator of a wire code; `None` for a code no operator has.
    pub const fn from_code(code: u8) -> Option<Op> {
        Some(match code {
            0 => Op::Input,
            1 => Op::Const,
            2 => Op::Add,
            3 => Op::Sub,
            4 => Op::Mul,
            5 => Op::UDiv,
            6 => Op::SDiv,
            7 => Op::URem,
            8 => Op::SRem,
            9 => Op::Shl,
            10 => Op::LShr,
            11 => Op::AShr,
            12 => Op::And,
            13 => Op::Or,
            14 => Op::Xor,
            16 => Op::Eq,
            17 => Op::Ne,
            18 => Op::Ult,
            19 => Op::Ule,
            20 => Op::Ugt,
            21 => Op::Uge,
            22 => Op::Slt,
            23 => Op::Sle,
            24 => Op::Sgt,
            25 => Op::Sge,
            32 => Op::ZExt,
            33 => Op::SExt,
            34 => Op::Extract,
            35 => Op::Concat,
            36 => Op::Ite,
            37 => Op::Table,
            _ => return None,
        })
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
        matches!(self, Op::Eq | Op::Ne) || self.is_order()
    }

    /// An order comparison: signed or unsigned `<`, `<=`, `>`, `>=`.
    pub const fn is_order(self) -> bool {
        matches!(self, Op::Ult | Op::Ule | Op::Ugt | Op::Uge | Op::Slt | Op::Sle | Op::Sgt | Op::Sge)
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
    fn codes_are_the_wire_format_and_round_trip() {
        // The bytes traces hold: changing one breaks every trace written.
        let codes = [
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 32, 33, 34, 35,
            36, 37,
        ];
        assert_eq!(ALL_OPS.map(Op::code), codes);
        for op in ALL_OPS {
            assert_eq!(Op::from_code(op.code()), Some(op));
        }
        // Every other byte is no operator.
        let known = (0..=u8::MAX).filter(|&b| Op::from_code(b).is_some()).count();
        assert_eq!(known, ALL_OPS.len());
        assert_eq!(Op::from_code(15), None);
        assert_eq!(Op::from_code(200), None);
    }

    #[test]
    fn order_comparisons_are_the_comparisons_that_are_not_symmetric() {
        let mut orders = 0;
        for op in ALL_OPS.into_iter().filter(|o| o.is_comparison()) {
            let e = |a, b| op.eval(1, 8, 8, a, b, 0, 0);
            assert_eq!(op.is_order(), e(1, 2) != e(2, 1), "{op:?}");
            orders += op.is_order() as usize;
        }
        assert_eq!(orders, 8);
        assert!(ALL_OPS.into_iter().all(|o| o.is_comparison() || !o.is_order()));
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
