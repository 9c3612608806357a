//! Pointer expressions, kept as `x + c` (`x` symbolic, `c` a constant) so
//! that addresses cancel out: two pointers into one object compare as
//! their offsets, and a pointer difference is the difference of offsets.
//! The solver never sees a run's addresses (z3 4.8.12 has been seen to
//! stop the process in its bignum code on compares of such constants).

use crate::model::op::Op;
use crate::model::trace::*;
use crate::sym::{self, Sym};

fn with<R: Default>(f: impl FnOnce(&mut Sym) -> R) -> R {
    sym::get().map(f).unwrap_or_default()
}

/// `e` (64 bits) as `(x, c)` with `e == x + c`; `x` is 0 for a constant
/// `e` whose value is `v`.
fn split(s: &mut Sym, e: u32, v: u64) -> (u32, u64) {
    if e == 0 {
        return (0, v);
    }
    // A pointer's shadow narrower than a pointer (the bytes a load read
    // back held a narrower expression) is widened: `x + c` is 64 bits.
    let e = if s.width(e) == 64 { e } else { s.resize(e, 64, false) };
    let n = s.nodes[e as usize];
    let konst = |k: u32| {
        let m = s.nodes[k as usize];
        (m.op == Op::Const).then_some(m.val)
    };
    match n.op {
        Op::Const => (0, n.val),
        Op::Add => match (konst(n.a), konst(n.b)) {
            (_, Some(c)) => (n.a, c),
            (Some(c), _) => (n.b, c),
            _ => (e, 0),
        },
        _ => (e, 0),
    }
}

/// `x + c` as a node (0 when `x` is: the value is concrete).
fn join(s: &mut Sym, x: u32, c: u64) -> u32 {
    if x == 0 {
        return 0;
    }
    if c == 0 {
        return x;
    }
    let k = s.constant(c, 64);
    s.node(Op::Add, 64, x, k, 0, 0)
}

/// A pointer `r` computed from `p` (shadow `sp`) by a GEP whose index
/// `vi` (shadow `si`, 0 when concrete) counts `stride` bytes: `p + idx *
/// stride` plus the GEP's concrete rest. A GEP with several symbolic
/// indices makes one call per index, `p` being `r` after the first.
#[no_mangle]
pub extern "C" fn __sym_gep(sp: u32, p: u64, si: u32, vi: u64, stride: u64, r: u64) -> u32 {
    if sp == 0 && si == 0 {
        return 0;
    }
    with(|s| {
        let (mut x, c) = split(s, sp, p);
        // What `r` adds to `p` besides the symbolic index.
        let rest = r.wrapping_sub(p).wrapping_sub(if si == 0 { 0 } else { vi.wrapping_mul(stride) });
        if si != 0 {
            let idx = s.resize(si, 64, true);
            let off = if stride == 1 {
                idx
            } else {
                let k = s.constant(stride, 64);
                s.node(Op::Mul, 64, idx, k, 0, 0)
            };
            x = if x == 0 { off } else { s.node(Op::Add, 64, x, off, 0, 0) };
        }
        join(s, x, c.wrapping_add(rest))
    })
}

/// A compare of two pointers (`op`: the code of `Op::Eq` .. `Op::Uge`),
/// both sides
/// moved by the lower of their values: equal for equality, and for order
/// as long as no offset reaches past the address space's ends.
#[no_mangle]
pub extern "C" fn __sym_cmp_ptr(op: u32, sa: u32, sb: u32, va: u64, vb: u64) -> u32 {
    if sa == 0 && sb == 0 {
        return 0;
    }
    with(|s| {
        let Some(op) = s.op(op) else { return 0 };
        let ((xa, ca), (xb, cb)) = (split(s, sa, va), split(s, sb, vb));
        let base = va.min(vb);
        let side = |s: &mut Sym, x: u32, c: u64| match join(s, x, c.wrapping_sub(base)) {
            0 => s.constant(c.wrapping_sub(base), 64),
            e => e,
        };
        let (a, b) = (side(s, xa, ca), side(s, xb, cb));
        s.node(op, 1, a, b, 0, 0)
    })
}

/// `a - b` on 64 bits with the constants of both sides folded: a pointer
/// difference is the difference of the offsets.
pub(crate) fn sub(s: &mut Sym, sa: u32, sb: u32, va: u64, vb: u64) -> u32 {
    let ((xa, ca), (xb, cb)) = (split(s, sa, va), split(s, sb, vb));
    let x = match (xa, xb) {
        (0, 0) => return 0,
        (x, 0) => x,
        (0, y) => {
            let zero = s.constant(0, 64);
            s.node(Op::Sub, 64, zero, y, 0, 0)
        }
        (x, y) => s.node(Op::Sub, 64, x, y, 0, 0),
    };
    join(s, x, ca.wrapping_sub(cb))
}

/// How far outside its object an access must reach for its check: a
/// gigabyte, past the neighbouring objects, where a plain build faults
/// too (an access a few bytes past the end corrupts a neighbour quietly,
/// and the lifter keeps only what the whole program shows). In a program
/// built with AddressSanitizer, one byte past is enough: ASan reports it.
const FAR: u64 = 1 << 30;

/// Most access checks a site records in one run: a loop that walks an
/// array by a symbolic index would otherwise add a node chain and a path
/// entry per step, and the first few steps are where a far index shows.
const CHECKS_PER_SITE: u8 = 4;

/// Before an access of `access` bytes at `p` whose address is symbolic
/// (shadow `sp`): whether the inputs could move it far outside the object
/// it is in (see [`FAR`]), as a branch of `site` without a counter, so the
/// explorer asks for such inputs as it asks for a division that traps. A
/// symbolic index into an array is how a negative or huge index reaches
/// memory; the index itself is not pinned here. In a program built with
/// ASan, first whether it could start just past the object's end.
/// The bounds are those of the object map: what carving tracks, and in a
/// replay the restored objects and the blocks the call allocates.
#[no_mangle]
pub extern "C" fn __sym_check_access(site: u32, p: u64, sp: u32, access: u32) {
    if sp == 0 {
        return;
    }
    let fresh = with(|s| {
        let n = s.checks.entry(site).or_default();
        *n = n.saturating_add(1);
        *n <= CHECKS_PER_SITE
    });
    if !fresh {
        return;
    }
    let Some((base, size)) = crate::state::object_at(p as usize) else { return };
    with(|s| {
        let (x, c) = split(s, sp, p);
        // The offset into the object, `x + (c - base)`: no address in it.
        let off = join(s, x, c.wrapping_sub(base as u64));
        if off == 0 {
            return;
        }
        // Outside [-FAR, size + FAR] as one unsigned compare (just outside
        // the object in a program built with ASan, which reports that).
        let margin = if crate::sys::has_asan() { 0 } else { FAR };
        let shifted = {
            let k = s.constant(margin, 64);
            s.node(Op::Add, 64, off, k, 0, 0)
        };
        let room = (size as u64).saturating_sub(u64::from(access)).saturating_add(2 * margin);
        let at = (p as usize).wrapping_sub(base) as u64;
        if margin == 0 {
            // First, the off-by-one: the access that starts just past the
            // last one that fits (`buf[len]` with `len` the size). Any
            // offset past the end answers the check below, but the program
            // around a unit mostly lets through only the one next to the
            // end (a length allowed to equal the buffer's size), and the
            // solver would otherwise pick any.
            let next = s.constant(room.wrapping_add(1), 64);
            let just_past = s.node(Op::Eq, 1, off, next, 0, 0);
            let taken = at == room.wrapping_add(1);
            s.record(PATH_BRANCH, just_past_site(site), just_past, u64::from(taken), &[], [NO_SLOT, NO_SLOT]);
        }
        let limit = s.constant(room, 64);
        let far = s.node(Op::Ugt, 1, shifted, limit, 0, 0);
        let taken = at.wrapping_add(margin) > room;
        s.record(PATH_BRANCH, site, far, u64::from(taken), &[], [NO_SLOT, NO_SLOT]);
    })
}

/// The site of an access check's just-past-the-end branch: another id
/// than the check's own, so that the explorer solves for both (it keys
/// what it tried by site and direction). Sites are hashes
/// (`instrument/src/symbolic/shadow.rs`), and so is this.
fn just_past_site(site: u32) -> u32 {
    site.rotate_left(13) ^ 0x5bd1_e995
}
