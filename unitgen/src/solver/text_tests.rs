//! Tests of the text stage ([`super`]).

use super::*;
use model::op::Op;
use model::trace::Node;

/// Answers nothing, and counts what it was asked.
#[derive(Default)]
struct Nothing(u32);

impl Solver for Nothing {
    fn solve(&mut self, _: &Query<'_>) -> Answer {
        self.0 += 1;
        Answer::Unknown
    }
    fn stats(&self) -> Stats {
        Stats::default()
    }
}

struct Dag(Vec<Node>);

impl Dag {
    fn add(&mut self, op: Op, width: u8, a: u32, b: u32, val: u64) -> u32 {
        self.0.push(Node { op, width, a, b, c: 0, val });
        self.0.len() as u32 - 1
    }
    fn konst(&mut self, v: u64, width: u8) -> u32 {
        self.add(Op::Const, width, 0, 0, v)
    }
    /// The decimal value of input bytes `at..at + n`, as `strtol`'s
    /// model builds it (multiply by ten, add the digit).
    fn number(&mut self, at: u64, n: u64) -> u32 {
        let (ten, zero_char) = (self.konst(10, 64), self.konst(u64::from(b'0'), 64));
        let mut acc = self.konst(0, 64);
        for k in at..at + n {
            let byte = self.add(Op::Input, 8, 0, 0, k);
            let wide = self.add(Op::ZExt, 64, byte, 0, 0);
            let digit = self.add(Op::Sub, 64, wide, zero_char, 0);
            let m = self.add(Op::Mul, 64, acc, ten, 0);
            acc = self.add(Op::Add, 64, m, digit, 0);
        }
        acc
    }
    /// Each of input bytes `at..at + n` is a digit (as the model's
    /// decisions say).
    fn digits(&mut self, at: u64, n: u64) -> Vec<Cond> {
        let (zero_char, nine) = (self.konst(u64::from(b'0'), 8), self.konst(9, 8));
        (at..at + n)
            .map(|k| {
                let byte = self.add(Op::Input, 8, 0, 0, k);
                let off = self.add(Op::Sub, 8, byte, zero_char, 0);
                Cond::Bit(self.add(Op::Ule, 1, off, nine, 0), true)
            })
            .collect()
    }
    fn trace(self) -> Trace {
        Trace { flags: 0, nodes: self.0, path: Vec::new(), tables: Vec::new(), pin_names: Vec::new() }
    }
}

fn solve(t: &Trace, conds: Vec<Cond>, near: &[u8]) -> (Answer, u32) {
    let mut s = Textual::new(Nothing::default());
    let a = s.solve(&Query { id: 1, trace: t, conds, near });
    (a, s.inner.0)
}

fn apply(near: &[u8], a: &Answer) -> Vec<u8> {
    let Answer::Sat(assign) = a else { panic!("no solution: {a:?}") };
    let mut out = near.to_vec();
    for &(k, v) in assign {
        out[k as usize] = v;
    }
    out
}

#[test]
fn a_number_compared_with_a_constant_is_written_as_that_constant() {
    let mut d = Dag(vec![Node::default()]);
    let n = d.number(4, 8);
    let k = d.konst(2_147_483_648, 64);
    let eq = d.add(Op::Eq, 1, n, k, 0);
    let t = d.trace();
    let near = b"set 00000012\n";
    let (a, asked) = solve(&t, vec![Cond::Bit(eq, true)], near);
    // Eight digits cannot hold ten: the solver is asked.
    assert_eq!((a, asked), (Answer::Unknown, 1));
    let near = b"set 000000000012\n";
    let mut d = Dag(vec![Node::default()]);
    let n = d.number(4, 12);
    let k = d.konst(2_147_483_648, 64);
    let eq = d.add(Op::Eq, 1, n, k, 0);
    let t = d.trace();
    let (a, asked) = solve(&t, vec![Cond::Bit(eq, true)], near);
    assert_eq!(asked, 0);
    assert_eq!(apply(near, &a), b"set 002147483648\n");
}

#[test]
fn a_sum_of_two_numbers_is_met_by_changing_one_of_them() {
    let near = b"0010 0020";
    let mut d = Dag(vec![Node::default()]);
    let (x, y) = (d.number(0, 4), d.number(5, 4));
    let sum = d.add(Op::Add, 64, x, y, 0);
    let k = d.konst(1234, 64);
    let eq = d.add(Op::Eq, 1, sum, k, 0);
    // The second number stays below 100 (a condition that holds).
    let hundred = d.konst(100, 64);
    let small = d.add(Op::Ult, 1, y, hundred, 0);
    let t = d.trace();
    let (a, asked) = solve(&t, vec![Cond::Bit(small, true), Cond::Bit(eq, true)], near);
    assert_eq!(asked, 0);
    assert_eq!(apply(near, &a), b"1214 0020");
}

#[test]
fn an_index_scaled_to_an_offset_is_pushed_to_the_ends_of_its_type() {
    // off = n * 4 far past 1 GiB, with n read from six digits: no
    // boundary of a type fits, the scaled neighbour of the limit does.
    let near = b"000007";
    let mut d = Dag(vec![Node::default()]);
    let n = d.number(0, 6);
    let four = d.konst(4, 64);
    let off = d.add(Op::Mul, 64, n, four, 0);
    let limit = d.konst(3_000_000, 64);
    let far = d.add(Op::Ugt, 1, off, limit, 0);
    let mut conds = d.digits(0, 6);
    conds.push(Cond::Bit(far, true));
    let t = d.trace();
    let (a, asked) = solve(&t, conds, near);
    assert_eq!(asked, 0);
    let got = apply(near, &a);
    let v: u64 = std::str::from_utf8(&got).unwrap().parse().unwrap();
    assert!(v * 4 > 3_000_000, "{v}");
}

#[test]
fn a_number_on_the_path_is_pushed_to_where_its_check_wraps() {
    // depth + count <= 16 on 32 bits, depth 2, count read from twelve
    // digits (each byte a digit): the path keeps holding for a count
    // near 2^32, where the sum wraps.
    let near = b"000000000002";
    let mut d = Dag(vec![Node::default()]);
    let n = d.number(0, 12);
    let count = d.add(Op::Extract, 32, n, 0, 0);
    let depth = d.konst(2, 32);
    let sum = d.add(Op::Add, 32, count, depth, 0);
    let sixteen = d.konst(16, 32);
    let room = d.add(Op::Ule, 1, sum, sixteen, 0);
    let mut conds = d.digits(0, 12);
    conds.push(Cond::Bit(room, true));
    let t = d.trace();
    let mut s = Textual::new(Nothing::default());
    let got = s.extremes(&Query { id: 1, trace: &t, conds: conds.clone(), near });
    assert_eq!(got.len(), 1, "one number, one answer: {got:?}");
    let a = apply(near, &Answer::Sat(got[0].clone()));
    let v: u64 = std::str::from_utf8(&a).unwrap().parse().unwrap();
    assert!(v > 16 && (v + 2) as u32 <= 16, "{v}");
    // A path the parent input does not hold gives nothing.
    conds.push(Cond::Bit(room, false));
    assert_eq!(s.extremes(&Query { id: 2, trace: &t, conds, near }), Vec::<Vec<(u32, u8)>>::new());
}

/// Two numbers of `digits` digits each, a blank between, every byte of
/// them a digit, and their 64-bit sum compared (`op`) with `k` (held).
fn sum_of_two(digits: u64, op: Op, k: u64) -> (Trace, Vec<Cond>) {
    let mut d = Dag(vec![Node::default()]);
    let a = d.number(0, digits);
    let b = d.number(digits + 1, digits);
    let sum = d.add(Op::Add, 64, a, b, 0);
    let k = d.konst(k, 64);
    let cmp = d.add(op, 1, sum, k, 0);
    let mut conds = d.digits(0, digits);
    conds.extend(d.digits(digits + 1, digits));
    conds.push(Cond::Bit(cmp, true));
    (d.trace(), conds)
}

/// The two numbers of an input `sum_of_two` reads.
fn two_numbers(input: &[u8]) -> (u64, u64) {
    let text = std::str::from_utf8(input).unwrap();
    let (x, y) = text.split_once(' ').unwrap();
    (x.parse().unwrap(), y.parse().unwrap())
}

#[test]
fn a_sum_no_one_number_reaches_is_reached_with_the_others_at_zero() {
    // a + b == 3 with a = 12 and b = 5, every byte a digit: neither
    // number alone gives 3 (it would be negative), either does once the
    // other is 0.
    let near = b"000000000012 000000000005";
    let (t, conds) = sum_of_two(12, Op::Eq, 3);
    let (answer, asked) = solve(&t, conds, near);
    assert_eq!(asked, 0, "solved before the solver");
    let (x, y) = two_numbers(&apply(near, &answer));
    assert_eq!(x + y, 3);
}

#[test]
fn each_number_a_wrapping_check_reads_is_pushed_to_its_end_on_its_own() {
    // addr + len <= 256 on 64 bits, each read from twenty digits: a
    // wrapped addr and a wrapped len are two answers, each changing one
    // number only.
    let near = b"00000000000000000016 00000000000000000016";
    let (t, conds) = sum_of_two(20, Op::Ule, 256);
    let mut s = Textual::new(Nothing::default());
    let got = s.extremes(&Query { id: 1, trace: &t, conds, near });
    assert_eq!(got.len(), 2, "{got:?}");
    let mut changed = Vec::new();
    for answer in got {
        let (x, y) = two_numbers(&apply(near, &Answer::Sat(answer)));
        assert!(x.wrapping_add(y) <= 256 && x.max(y) > 256, "{x} {y}");
        changed.push(x > 256);
    }
    changed.sort();
    assert_eq!(changed, [false, true], "one answer moves addr, the other len");
}

#[test]
fn what_no_text_satisfies_goes_to_the_solver_and_conditions_that_held_keep_holding() {
    // n == 5 and n != 5 at once: no number does it.
    let near = b"12";
    let mut d = Dag(vec![Node::default()]);
    let n = d.number(0, 2);
    let five = d.konst(5, 64);
    let eq = d.add(Op::Eq, 1, n, five, 0);
    let t = d.trace();
    let (a, asked) = solve(&t, vec![Cond::Bit(eq, false), Cond::Bit(eq, true)], near);
    assert_eq!((a, asked), (Answer::Unknown, 1));
    // Without the parent input, nothing is tried.
    let (a, asked) = solve(&t, vec![Cond::Bit(eq, true)], b"");
    assert_eq!((a, asked), (Answer::Unknown, 1));
}

#[test]
fn a_product_of_two_checked_numbers_passes_int_max_with_both_at_their_limits() {
    // qty <= 9999 and cents <= 999999, each read from more digits than
    // that; qty * cents > INT_MAX needs both near their limits.
    let near = b"00003 000000045";
    let mut d = Dag(vec![Node::default()]);
    let (qty, cents) = (d.number(0, 5), d.number(6, 9));
    let mut conds = d.digits(0, 5);
    conds.extend(d.digits(6, 9));
    for (n, limit) in [(qty, 9999), (cents, 999_999)] {
        let k = d.konst(limit, 64);
        conds.push(Cond::Bit(d.add(Op::Ugt, 1, n, k, 0), false));
    }
    let product = d.add(Op::Mul, 64, qty, cents, 0);
    let int_max = d.konst(i32::MAX as u64, 64);
    conds.push(Cond::Bit(d.add(Op::Sgt, 1, product, int_max, 0), true));
    let t = d.trace();
    let (answer, asked) = solve(&t, conds, near);
    assert_eq!(asked, 0, "solved before the solver");
    let out = apply(near, &answer);
    let (q, c) = two_numbers(&out);
    assert!(q <= 9999 && c <= 999_999 && q * c > i32::MAX as u64, "{}", String::from_utf8_lossy(&out));
}
