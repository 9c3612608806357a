//! The overflow flag of `llvm.{u,s}{add,sub,mul}.with.overflow`: UBSan's
//! checks of signed (and unsigned) arithmetic, and code that asks for
//! the flag itself (`__builtin_add_overflow`). Its result is the plain
//! operation (`__sym_binop`); the flag is built here from the operands,
//! so that the branch to the sanitizer's report can be negated: a signed
//! overflow is then found by solving, as any other branch.

use crate::model::op::mask;
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
    if matches!(kind, UMUL | SMUL) {
        // (0: an operand the full DAG could not hold, no constant.)
        let konst = |n: u32| (n != 0).then(|| s.nodes[n as usize]).filter(|x| x.op == Op::Const).map(|x| x.val);
        match (konst(a), konst(b)) {
            (None, Some(k)) => return by_constant(s, signed, a, k, w),
            (Some(k), None) => return by_constant(s, signed, b, k, w),
            _ => {}
        }
    }
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

/// The flag of `x * k` for a constant `k`: `x` against the bounds
/// `k` leaves it (`x > INT64_MAX / 100` for `e * 100`), comparisons
/// with constants rather than a product (and for 64 bits, a division)
/// that a bit-blasting solver takes seconds over, and that the solver's
/// text stage can meet by writing a number.
fn by_constant(s: &mut Sym, signed: bool, x: u32, k: u64, w: u32) -> u32 {
    let never = |s: &mut Sym| s.constant(0, 1);
    let cmp = |s: &mut Sym, op: Op, bound: i128| {
        let c = s.constant(bound as u64, w);
        s.node(op, 1, x, c, 0, 0)
    };
    if !signed {
        let k = k & mask(w);
        if k <= 1 {
            return never(s);
        }
        return cmp(s, Op::Ugt, (mask(w) / k) as i128);
    }
    let k = crate::model::op::signed(k, w) as i128;
    let (max, min) = ((1i128 << (w - 1)) - 1, -(1i128 << (w - 1)));
    match k {
        0 | 1 => never(s),
        -1 => cmp(s, Op::Eq, min),
        _ => {
            // Division rounds toward zero, as the bounds need: with k > 1,
            // x * k > MAX exactly when x > MAX / k, and < MIN when
            // x < MIN / k; with k < -1 the sides swap.
            let (above, below) = if k > 0 { (max / k, min / k) } else { (min / k, max / k) };
            let hi = cmp(s, Op::Sgt, above);
            let lo = cmp(s, Op::Slt, below);
            s.node(Op::Or, 1, hi, lo, 0, 0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symeval::OneByte;

    /// The flag of `x * k` on 8 bits, for `x` each byte value, against the
    /// product's true range.
    #[test]
    fn a_product_with_a_constant_overflows_exactly_where_its_bound_says() {
        for kind in [UMUL, SMUL] {
            for k in 0..=255u64 {
                let mut s = Sym::new();
                let x = s.node(Op::Input, 8, 0, 0, 0, 0);
                let c = s.constant(k, 8);
                for (a, b) in [(x, c), (c, x)] {
                    let f = flag(&mut s, kind, a, b, 8);
                    assert_ne!(f, 0);
                    // A flag that never rises is the constant 0.
                    let never = s.nodes[f as usize].op == Op::Const && s.nodes[f as usize].val == 0;
                    let e = OneByte::of(&s, f);
                    assert!(never || e.is_some());
                    let mut vals = alloc::vec::Vec::new();
                    for v in 0..=255u8 {
                        let got = e.as_ref().is_some_and(|e| e.at(&s, v, &mut vals).unwrap() != 0);
                        let want = if kind == SMUL {
                            let p = i128::from(v as i8) * i128::from(k as u8 as i8);
                            !(-128..=127).contains(&p)
                        } else {
                            u128::from(v) * u128::from(k) > 255
                        };
                        assert_eq!(got, want, "kind {kind} x {v} k {k}");
                    }
                }
            }
        }
    }
}
