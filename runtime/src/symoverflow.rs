//! The overflow flag of `llvm.{u,s}{add,sub,mul}.with.overflow`: UBSan's
//! checks of signed (and unsigned) arithmetic, and code that asks for
//! the flag itself (`__builtin_add_overflow`). Its result is the plain
//! operation (`__sym_binop`); the flag is built here from the operands,
//! so that the branch to the sanitizer's report can be negated: a signed
//! overflow is then found by solving, as any other branch.

use crate::model::op::Op;
use crate::sym::Sym;

/// Which operation (the ABI's `kind`).
pub const UADD: u32 = 0;
pub const SADD: u32 = 1;
pub const USUB: u32 = 2;
pub const SSUB: u32 = 3;
pub const UMUL: u32 = 4;
pub const SMUL: u32 = 5;

/// The flag (1 bit) of operation `kind` on `a`, `b` of `w` bits (their
/// expressions or constants; 0 when the flag cannot be built).
pub fn flag(s: &mut Sym, kind: u32, a: u32, b: u32, w: u32) -> u32 {
    let zero = s.constant(0, w);
    let signed = matches!(kind, SADD | SSUB | SMUL);
    let op = match kind {
        UADD | SADD => Op::Add,
        USUB | SSUB => Op::Sub,
        UMUL | SMUL => Op::Mul,
        _ => return 0,
    };
    if w <= 32 {
        // The exact result in twice the width, against the type's range:
        // comparisons with constants, which the solver's text stage and
        // the type-ends queries know how to meet.
        let (wa, wb) = (s.resize(a, 2 * w, signed), s.resize(b, 2 * w, signed));
        let wide = s.node(op, 2 * w, wa, wb, 0, 0);
        return if signed {
            let max = s.constant((1u64 << (w - 1)) - 1, 2 * w);
            let min = s.constant((1u64 << (w - 1)).wrapping_neg(), 2 * w);
            let above = s.node(Op::Sgt, 1, wide, max, 0, 0);
            let below = s.node(Op::Slt, 1, wide, min, 0, 0);
            s.node(Op::Or, 1, above, below, 0, 0)
        } else if kind == USUB {
            s.node(Op::Ult, 1, a, b, 0, 0)
        } else {
            let max = s.constant((1u64 << w) - 1, 2 * w);
            s.node(Op::Ugt, 1, wide, max, 0, 0)
        };
    }
    match kind {
        UADD => {
            let r = s.node(Op::Add, w, a, b, 0, 0);
            s.node(Op::Ult, 1, r, a, 0, 0)
        }
        USUB => s.node(Op::Ult, 1, a, b, 0, 0),
        SADD | SSUB => {
            // The result's sign differs from a's, where b's sign agrees with
            // a's (addition) or differs from it (subtraction).
            let r = s.node(op, w, a, b, 0, 0);
            let ar = s.node(Op::Xor, w, a, r, 0, 0);
            let other = if kind == SADD { s.node(Op::Xor, w, b, r, 0, 0) } else { s.node(Op::Xor, w, a, b, 0, 0) };
            let both = s.node(Op::And, w, ar, other, 0, 0);
            s.node(Op::Slt, 1, both, zero, 0, 0)
        }
        _ => {
            // Past 32 bits: a != 0 and r / a != b (and, signed, -1 * MIN).
            let r = s.node(Op::Mul, w, a, b, 0, 0);
            let div = s.node(if signed { Op::SDiv } else { Op::UDiv }, w, r, a, 0, 0);
            let differs = s.node(Op::Ne, 1, div, b, 0, 0);
            let nonzero = s.node(Op::Ne, 1, a, zero, 0, 0);
            let mut f = s.node(Op::And, 1, nonzero, differs, 0, 0);
            if signed {
                let minus_one = s.constant(u64::MAX, w);
                let min = s.constant(1 << (w - 1), w);
                let a_m1 = s.node(Op::Eq, 1, a, minus_one, 0, 0);
                let b_min = s.node(Op::Eq, 1, b, min, 0, 0);
                let both = s.node(Op::And, 1, a_m1, b_min, 0, 0);
                f = s.node(Op::Or, 1, f, both, 0, 0);
            }
            f
        }
    }
}
