//! The `__sym_*` entry points the symbolic clones (`F.sym`) call. Keep in
//! step with `instrument/src/symbolic/abi.rs`. Each returns the result's
//! shadow (0: concrete) and does nothing outside a symbolic replay.

use crate::model::op::Op;
use crate::model::trace::*;
use crate::sym::{self, Sym, MAX_PARAMS};

fn with<R: Default>(f: impl FnOnce(&mut Sym) -> R) -> R {
    sym::get().map(f).unwrap_or_default()
}

/// `a op b` on `width`-bit operands, `out` bits wide (`op`: an [`Op`]'s
/// code).
fn binary(op: u32, sa: u32, sb: u32, va: u64, vb: u64, width: u32, out: u32) -> u32 {
    if sa == 0 && sb == 0 {
        return 0;
    }
    with(|s| {
        let Some(op) = s.op(op) else { return 0 };
        let (a, b) = (s.operand(sa, va, width), s.operand(sb, vb, width));
        s.node(op, out, a, b, 0, 0)
    })
}

/// `a op b` on `width`-bit integers (`op`: the code of `Op::Add` ..
/// `Op::Xor`). A
/// 64-bit difference folds the constants of its sides (pointer
/// differences, see `symptr`).
#[no_mangle]
pub extern "C" fn __sym_binop(op: u32, sa: u32, sb: u32, va: u64, vb: u64, width: u32) -> u32 {
    if op == u32::from(Op::Sub.code()) && width == 64 && (sa != 0 || sb != 0) {
        return with(|s| crate::symptr::sub(s, sa, sb, va, vb));
    }
    binary(op, sa, sb, va, vb, width, width)
}

/// The overflow flag (1 bit) of an `llvm.*.with.overflow` of kind `kind`
/// (uadd, sadd, usub, ssub, umul, smul: 0..5) on `width`-bit operands;
/// see `symoverflow.rs`.
#[no_mangle]
pub extern "C" fn __sym_overflow(kind: u32, sa: u32, sb: u32, va: u64, vb: u64, width: u32) -> u32 {
    if (sa == 0 && sb == 0) || width == 0 || width > 64 {
        return 0;
    }
    with(|s| {
        let (a, b) = (s.operand(sa, va, width), s.operand(sb, vb, width));
        crate::symoverflow::flag(s, kind, a, b, width)
    })
}

/// A comparison (`op`: the code of `Op::Eq` .. `Op::Sge`): 1 bit.
#[no_mangle]
pub extern "C" fn __sym_cmp(op: u32, sa: u32, sb: u32, va: u64, vb: u64, width: u32) -> u32 {
    binary(op, sa, sb, va, vb, width, 1)
}

/// `s` zero- or sign-extended or truncated to `to` bits.
#[no_mangle]
pub extern "C" fn __sym_cast(sa: u32, to: u32, signed: u32) -> u32 {
    if sa == 0 {
        return 0;
    }
    with(|s| s.resize(sa, to, signed != 0))
}

/// `c ? t : f`.
#[no_mangle]
pub extern "C" fn __sym_select(sc: u32, c: u32, st: u32, sf: u32, vt: u64, vf: u64, width: u32) -> u32 {
    if sc == 0 {
        return if c != 0 { st } else { sf };
    }
    with(|s| {
        let (t, f) = (s.operand(st, vt, width), s.operand(sf, vf, width));
        if t == 0 || f == 0 {
            return 0;
        }
        s.node(Op::Ite, width, sc, t, f, 0)
    })
}

#[no_mangle]
pub extern "C" fn __sym_load(p: *const u8, size: u32) -> u32 {
    with(|s| s.load(p as usize, size as usize))
}

/// A load through `base[index]` whose index is symbolic: a read from a
/// table when the index is a byte (widened), the table's bytes being
/// readable, or when the object read is small and constant (the index
/// then kept within it); else the index is pinned to its value.
#[no_mangle]
pub extern "C" fn __sym_load_indexed(p: *const u8, si: u32, vi: u64, elem: u32, size: u32) -> u32 {
    if si == 0 {
        return __sym_load(p, size);
    }
    let (p, elem, size) = (p as usize, elem as usize, size as usize);
    let byte = with(|s| crate::symtable::read(s, p, si, vi, elem, size).unwrap_or(0));
    if byte != 0 {
        return byte;
    }
    // An index of any width into a small object of constant bytes.
    let object = crate::state::object_at(p);
    with(|s| {
        if let Some(t) = object.and_then(|o| crate::symtable::read_bounded(s, p, si, vi, elem, size, o)) {
            return t;
        }
        s.pin(si, vi, INDEX_PIN.as_ptr());
        s.load(p, size)
    })
}

#[no_mangle]
pub extern "C" fn __sym_store(p: *mut u8, sv: u32, size: u32) {
    with(|s| s.store(p as usize, sv, size as usize))
}

/// After `memcpy`/`memmove` (also `strcpy`'s `n` bytes).
#[no_mangle]
pub extern "C" fn __sym_memcpy(dst: *mut u8, src: *const u8, n: u64) {
    with(|s| s.copy(dst as usize, src as usize, n as usize))
}

/// After `memset(dst, c, n)`; `sc` is the shadow of `c`.
#[no_mangle]
pub extern "C" fn __sym_memset(dst: *mut u8, sc: u32, n: u64) {
    with(|s| {
        if sc == 0 {
            s.clear(dst as usize, n as usize);
            return;
        }
        let b = s.resize(sc, 8, false);
        for i in 0..n as usize {
            s.set_byte(dst as usize + i, b);
        }
    })
}

/// Forgets the shadow of fresh memory (an `alloca`, a `malloc`).
#[no_mangle]
pub extern "C" fn __sym_clear(p: *mut u8, n: u64) {
    with(|s| s.clear(p as usize, n as usize))
}

#[no_mangle]
pub extern "C" fn __sym_set_param(i: u32, sa: u32) {
    with(|s| {
        if (i as usize) < MAX_PARAMS {
            s.params[i as usize] = sa;
        }
    })
}

#[no_mangle]
pub extern "C" fn __sym_get_param(i: u32) -> u32 {
    with(|s| {
        let v = s.params.get(i as usize).copied().unwrap_or(0);
        if let Some(p) = s.params.get_mut(i as usize) {
            *p = 0;
        }
        v
    })
}

#[no_mangle]
pub extern "C" fn __sym_set_ret(sa: u32) {
    with(|s| s.ret = sa)
}

#[no_mangle]
pub extern "C" fn __sym_get_ret() -> u32 {
    with(|s| core::mem::take(&mut s.ret))
}

/// A conditional branch on `sc` went `taken`; its directions' counters
/// are `if_false` and `if_true` among those of the module whose map
/// pointer is at `area`.
///
/// # Safety
/// `area` is null or the module's map pointer (the pass's global).
#[no_mangle]
pub unsafe extern "C" fn __sym_branch(
    site: u32,
    sc: u32,
    taken: u32,
    area: *const *mut u8,
    if_false: u32,
    if_true: u32,
) {
    if sc != 0 {
        let slots = [map_slot(area, if_false), map_slot(area, if_true)];
        with(|s| s.record(PATH_BRANCH, site, sc, u64::from(taken != 0), &[], slots));
    }
}

/// Before a division or remainder (`op`: the code of `Op::UDiv` ..
/// `Op::SRem`) of `a` by `b` (`width` bits, shadows `sa`, `sb`, values
/// `va`, `vb`): its trap (`b == 0`, or `a == MIN && b == -1` when signed)
/// as a branch of `site` without a counter, so the explorer asks for the
/// inputs that make it trap as it asks for any branch not taken.
#[no_mangle]
pub extern "C" fn __sym_check_div(site: u32, op: u32, sa: u32, sb: u32, va: u64, vb: u64, width: u32) {
    if sa == 0 && sb == 0 || width == 0 || width > 64 {
        return;
    }
    let signed = matches!(u8::try_from(op).map(Op::from_code), Ok(Some(Op::SDiv | Op::SRem)));
    let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    let min = 1u64 << (width - 1);
    let (va, vb) = (va & mask, vb & mask);
    let traps = vb == 0 || (signed && va == min && vb == mask);
    with(|s| {
        let a = if sa != 0 { sa } else { s.constant(va, width) };
        let b = if sb != 0 { sb } else { s.constant(vb, width) };
        let mut fault = 0;
        if sb != 0 {
            let zero = s.constant(0, width);
            fault = s.node(Op::Eq, 1, b, zero, 0, 0);
        }
        if signed {
            let (kmin, kneg) = (s.constant(min, width), s.constant(mask, width));
            let (x, y) = (s.node(Op::Eq, 1, a, kmin, 0, 0), s.node(Op::Eq, 1, b, kneg, 0, 0));
            let both = s.node(Op::And, 1, x, y, 0, 0);
            fault = if fault == 0 { both } else { s.node(Op::Or, 1, fault, both, 0, 0) };
        }
        if fault != 0 && s.nodes[fault as usize].op != Op::Const {
            s.record(PATH_BRANCH, site, fault, u64::from(traps), &[], [NO_SLOT, NO_SLOT]);
        }
    })
}

/// A switch on `sv` (value `v`) with `n` case values at `cases`, and
/// `n + 1` counter ids at `ids` (the cases', then the default's).
///
/// # Safety
/// `cases` points at `n` values and `ids` at `n + 1` (the pass's constant
/// tables); `area` is as for [`__sym_branch`].
#[no_mangle]
pub unsafe extern "C" fn __sym_switch(
    site: u32,
    sv: u32,
    v: u64,
    cases: *const u64,
    n: u32,
    area: *const *mut u8,
    ids: *const u32,
) {
    if sv != 0 {
        let cases = core::slice::from_raw_parts(cases, n as usize);
        let ids = core::slice::from_raw_parts(ids, n as usize + 1);
        with(|s| s.record(PATH_SWITCH, site, sv, v, cases, ids.iter().map(|&k| map_slot(area, k))));
    }
}

/// The map slot of counter `id` of the module whose map pointer is at
/// `area`.
unsafe fn map_slot(area: *const *mut u8, id: u32) -> u32 {
    if area.is_null() || id == NO_SLOT {
        return NO_SLOT;
    }
    let offset = (*area as usize).wrapping_sub(crate::map::get() as usize);
    ((offset + id as usize) % crate::model::MAP_SIZE) as u32
}

/// What an indirect call in a symbolic clone may call instead of `fp`:
/// the symbolic clone of the function it points to (null: none, `fp` is
/// called with its symbolic arguments pinned).
#[no_mangle]
pub extern "C" fn __sym_clone_of(fp: *const u8) -> *const u8 {
    crate::state::with(|st| st.tables.function_by_addr(fp as usize).map(|f| f.sym))
        .flatten()
        .unwrap_or(core::ptr::null())
}

/// An unmodelled call's argument: pinned to its value. `callee` names
/// the call (a NUL-terminated constant; null when unknown), so that a
/// user sees what blocks exploration.
#[no_mangle]
pub extern "C" fn __sym_pin(sa: u32, v: u64, callee: *const core::ffi::c_char) {
    if sa == 0 {
        return;
    }
    with(|s| s.pin(sa, v, callee.cast()))
}

/// What a symbolic index into memory that is no table is pinned by.
const INDEX_PIN: &[u8] = b"(symbolic index into memory)\0";
